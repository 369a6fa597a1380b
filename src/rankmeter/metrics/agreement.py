"""Agreement between two rankings: rank-biased overlap, AP correlation, Kendall's tau.

These compare two *rankings* of items with each other (a re-ranker against its
first stage, a reproduction against the original, yesterday's results against
today's), not a ranking against judgments.

A ranking is a sequence of item ids, best first. An element that is a ``set``,
``frozenset``, ``tuple`` or ``list`` is a group of *tied* items sharing a span of
ranks: ``["a", {"b", "c"}, "d"]`` ranks ``a`` first, ``b`` and ``c`` tied at ranks
2-3 and ``d`` fourth. Ids are compared as text (``str(item)``); an item may
appear only once in a ranking.

>>> r = rbo(["a", "b", "c", "d"], ["b", "a", "c", "d"], p=0.9)
>>> round(r.ext, 6), round(r.min, 6), round(r.res, 6)
(0.9, 0.506371, 0.393629)
>>> round(tau_ap(["a", "b", "c", "d"], ["b", "a", "c", "d"]), 6)
0.333333
>>> round(kendall_tau_rankings(["a", "b", "c", "d"], ["b", "a", "c", "d"]), 6)
0.666667

References: W. Webber, A. Moffat, J. Zobel, "A similarity measure for indefinite
rankings", ACM TOIS 28(4), 2010, doi:10.1145/1852102.1852106; M. Corsi,
J. Urbano, "The treatment of ties in rank-biased overlap", SIGIR 2024,
doi:10.1145/3626772.3657700; E. Yilmaz, J. A. Aslam, S. Robertson, "A new rank
correlation coefficient for information retrieval", SIGIR 2008,
doi:10.1145/1390334.1390435. See ``docs/rankcmp.md`` for the conventions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence, cast

import numpy as np

from .._errors import InputError, ParameterError
from .._params import check_choice, check_number

__all__ = ["RBOResult", "rbo", "tau_ap", "kendall_tau_rankings", "tie_groups", "RBO_TIES"]

RBO_TIES = ("a", "b", "w")
_GROUP_TYPES = (set, frozenset, tuple, list)


# =========================================================================== rankings


@dataclass(frozen=True)
class _Flat:
    """A ranking flattened: item ids, and the top / bottom rank (0-based) of each item's tie group."""

    ids: list[str]
    top: np.ndarray
    bottom: np.ndarray

    @property
    def tied(self) -> bool:
        return bool(np.any(self.top != self.bottom))

    def __len__(self) -> int:
        return len(self.ids)


def _flatten(ranking: Any, name: str, func: str) -> _Flat:
    """Item ids, top and bottom ranks of a ranking given as items and tie groups; refuses duplicates."""
    if isinstance(ranking, (str, bytes)) or not hasattr(ranking, "__iter__"):
        raise InputError(f"{func}: {name} must be a sequence of item ids (a tie group as a set), "
                         f"not {type(ranking).__name__}")
    ids: list[str] = []
    top: list[int] = []
    bottom: list[int] = []
    seen: dict[str, int] = {}
    pos = 0
    for element in ranking:
        group = element if isinstance(element, _GROUP_TYPES) else (element,)
        members = [str(x) for x in group]
        if not members:
            raise InputError(f"{func}: {name} has an empty tie group at rank {pos + 1}")
        if isinstance(element, (set, frozenset)):
            members.sort()  # a set has no order; the contributions do not depend on it
        for item in members:
            if item in seen:
                raise InputError(f"{func}: item {item!r} appears twice in {name} "
                                 f"(ranks {seen[item] + 1} and {pos + 1})")
            seen[item] = pos
            ids.append(item)
            top.append(pos)
            bottom.append(pos + len(members) - 1)
        pos += len(members)
    return _Flat(ids, np.asarray(top, dtype=np.int64), np.asarray(bottom, dtype=np.int64))


def tie_groups(items: Sequence[Any], scores: Sequence[float] | np.ndarray) -> list[Any]:
    """A ranking with tie groups from items and scores: score descending, equal scores tied.

    Within the ranking, groups are ordered by score; a group of one item is the item
    itself, a larger group a ``tuple`` (in input order).

    >>> tie_groups(["a", "b", "c", "d"], [0.5, 0.9, 0.5, 0.1])
    ['b', ('a', 'c'), 'd']
    """
    ids = [str(x) for x in items]
    s = np.asarray(scores, dtype=np.float64)
    if s.shape != (len(ids),):
        raise InputError(f"tie_groups: {len(ids)} items but {s.size} scores")
    if not np.all(np.isfinite(s)):
        raise InputError("tie_groups: scores must be finite numbers")
    order = np.argsort(-s, kind="stable")
    out: list[Any] = []
    i = 0
    while i < len(order):
        j = i + 1
        while j < len(order) and s[order[j]] == s[order[i]]:
            j += 1
        members = [ids[k] for k in order[i:j]]
        out.append(members[0] if len(members) == 1 else tuple(members))
        i = j
    return out


# =========================================================================== RBO


@dataclass(frozen=True)
class RBOResult:
    """Rank-biased overlap of two rankings seen to finite depths: the point estimate and its interval.

    ``ext``: the extrapolated value (Webber et al. eq. 32, Corsi & Urbano's
    generalisation with ties); ``min``: the lower bound (no further overlap beyond
    the seen prefixes); ``max``: the upper bound (the best possible continuation);
    ``res = max - min``: the residual, the uncertainty due to the unseen part.
    ``min <= ext <= max``. ``float(result)`` is ``ext``.
    """

    ext: float
    min: float
    max: float
    p: float
    ties: str | None
    lengths: tuple[int, int]

    @property
    def res(self) -> float:
        return self.max - self.min

    def __float__(self) -> float:
        return self.ext

    def to_dict(self) -> dict[str, Any]:
        return {"ext": self.ext, "min": self.min, "max": self.max, "res": self.res, "p": self.p,
                "ties": self.ties, "lengths": list(self.lengths)}


def _contrib(f: _Flat, rows: np.ndarray, depths: np.ndarray, variant: str) -> np.ndarray:
    """Contribution of items ``rows`` of ranking ``f`` at each depth (shape rows x depths).

    ``w``: 1 once the item's tie group has started (every tied item is seen at the
    group's first rank). ``a``/``b``: the share of the group's ranks within the depth,
    ``clip((d - top) / size, 0, 1)`` (the probability that the item is within depth
    ``d`` when the tie is broken at random).
    """
    t = f.top[rows][:, None]
    d = depths[None, :]
    if variant == "w":
        return cast(np.ndarray, (d > t).astype(np.float64))
    size = (f.bottom[rows] - f.top[rows] + 1)[:, None]
    return cast(np.ndarray, np.clip((d - t) / size, 0.0, 1.0))


def _tail_log(p: float, upto: int) -> float:
    """``sum_{d > upto} p^d / d`` = ``-ln(1 - p) - sum_{d <= upto} p^d / d``."""
    d = np.arange(1, upto + 1, dtype=np.float64)
    return float(-math.log1p(-p) - np.sum(p ** d / d))


def rbo(a: Sequence[Any], b: Sequence[Any], p: float = 0.9, *, ties: str | None = None) -> RBOResult:
    """Rank-biased overlap of two rankings: extrapolated value, lower bound, upper bound and residual.

    With ``A_d = X_d / d`` the agreement at depth ``d`` (``X_d`` the number of items
    in both top-``d`` prefixes), RBO is ``(1 - p) sum_{d>=1} p^(d-1) A_d``. Seen to
    depths ``s <= l`` (the shorter ranking ``S`` of ``s`` items, the longer ``L``),
    the extrapolated value is Webber, Moffat and Zobel's eq. 32:

    .. math::

        RBO_{ext} = \\frac{1-p}{p} \\Big( \\sum_{d=1}^{l} \\frac{X_d}{d} p^d
            + \\sum_{d=s+1}^{l} \\frac{X_s (d-s)}{s d} p^d \\Big)
            + \\Big( \\frac{X_l - X_s}{l} + \\frac{X_s}{s} \\Big) p^l

    where for ``d > s``, ``X_d`` is the overlap of all of ``S`` with the top ``d``
    of ``L`` (eq. 30 when ``s = l``). ``min`` assumes no overlap beyond what was
    seen (eq. 11, with the uneven-list form), ``max`` the best continuation;
    ``res = max - min``.

    Ties (a set/tuple/list element is a group of tied items) follow Corsi and
    Urbano (SIGIR 2024), chosen by ``ties`` (required when a ranking has ties):
    ``"w"`` ties mean equality, every tied item is seen at the group's first rank
    and ``A_d = 2 X_d / (|S_d| + |L_d|)`` (Webber et al.'s suggestion, completed);
    ``"a"`` ties mean uncertainty and RBO is the expected value over the random
    orders of the ties (each tied item contributes the share of its group's ranks
    within the depth; ``A_d = X_d / d``); ``"b"`` corrects ``"a"`` for the
    information lost to ties, as Kendall's tau-b does (``A_d = X_d / (||c_S|| ||c_L||)``).
    Without ties all three equal eq. 32.

    ``p`` in (0, 1): the persistence; the top ``d`` ranks carry ``1 - p^d`` of the
    weight (p = 0.9: about 86% in the top 10). Empty rankings are refused.

    >>> r = rbo(list("abcdefg"), list("abcdfeg"), p=0.9)
    >>> round(r.ext, 6), r.min <= r.ext <= r.max
    (0.986878, True)
    >>> round(rbo(["a", "b", "c"], ["a", "b"], p=0.5).ext, 6)     # uneven: b-list ends at 2
    1.0
    >>> round(rbo(["a", {"b", "c"}], ["a", "c", "b"], p=0.9, ties="a").ext, 6)
    0.9775
    """
    p = check_number("p", p, func="rbo", low=0, high=1, low_open=True, high_open=True)
    if ties is not None:
        check_choice("ties", ties, RBO_TIES, func="rbo")
    fa, fb = _flatten(a, "a", "rbo"), _flatten(b, "b", "rbo")
    if len(fa) == 0 or len(fb) == 0:
        raise InputError(f"rbo: ranking {'a' if len(fa) == 0 else 'b'} is empty (RBO needs at least one item "
                         "in each ranking)")
    tied = fa.tied or fb.tied
    if tied and ties is None:
        raise ParameterError("The 'ties' parameter of rbo must be one of a, b, w when a ranking has tied items "
                             "(a: expected value over the orders of the ties; b: tau-b-like correction; "
                             "w: ties mean equality). Got None instead.")
    variant = ties if tied and ties is not None else "w"  # without ties the variants coincide; 'w' is the cheapest
    S, L = (fa, fb) if len(fa) <= len(fb) else (fb, fa)
    s, l = len(S), len(L)  # noqa: E741  (the paper's s and l, as in the formula above)
    depths = np.arange(1, l + 1, dtype=np.float64)
    posL = {x: i for i, x in enumerate(L.ids)}
    common_s = np.array([i for i, x in enumerate(S.ids) if x in posL], dtype=np.int64)
    common_l = np.array([posL[S.ids[i]] for i in common_s], dtype=np.int64)
    inS = set(S.ids)
    uniq_l = np.array([i for i, x in enumerate(L.ids) if x not in inS], dtype=np.int64)

    # X_d for d = 1..l (S is complete beyond s: every item contributes 1 there)
    if not tied:
        first = np.maximum(S.top[common_s], L.top[common_l])  # both seen from depth first + 1
        X = np.cumsum(np.bincount(first, minlength=l)[:l]).astype(np.float64)
    else:
        X = np.sum(_contrib(S, common_s, depths, variant) * _contrib(L, common_l, depths, variant), axis=0)
    Xl = float(X[-1])

    # normalisers of the agreement A_d = X_d / norm_d
    if variant == "w" and tied:
        nS = np.sum(_contrib(S, np.arange(s), depths, "w"), axis=0)
        nS[s:] = depths[s:]  # beyond s, the shorter ranking is taken to have d items
        nL = np.sum(_contrib(L, np.arange(l), depths, "w"), axis=0)
        norm = (nS + nL) / 2.0
    elif variant == "b":
        qS = np.sum(_contrib(S, np.arange(s), depths, "b") ** 2, axis=0)
        qS[s:] = depths[s:]
        qL = np.sum(_contrib(L, np.arange(l), depths, "b") ** 2, axis=0)
        norm = np.sqrt(qS) * np.sqrt(qL)
    else:
        norm = depths.copy()

    weights = p ** depths
    A_min = X / norm
    As = float(A_min[s - 1])

    # extrapolation: beyond s, each unseen item of S agrees at the rate A_s seen at depth s
    X_ext = X.copy()
    if l > s:
        dd = depths[s:]
        if tied and variant != "w":
            cu = _contrib(L, uniq_l, dd, variant)
            cu[cu == 0] = np.nan
            mean_c = np.nanmean(cu, axis=0) if len(uniq_l) else np.ones(len(dd))
        else:
            mean_c = np.ones(len(dd))
        X_ext[s:] = X[s:] + (dd - s) * As * mean_c
    A_ext = X_ext / norm
    sec3_ext = (Xl + (l - s) * As) / l * p ** (l + 1) / (1 - p)
    scale = (1 - p) / p
    ext = scale * (float(np.dot(A_ext, weights)) + sec3_ext)

    sec3_min = Xl * _tail_log(p, l)
    lo = scale * (float(np.dot(A_min, weights)) + sec3_min)

    # upper bound: S continues with L's own items in L's order, then both with each other's, then identically
    X_max = X.copy()
    if l > s:
        dd = depths[s:]
        take = uniq_l[: l - s]
        cm = _contrib(L, take, dd, variant) if tied else np.ones((len(take), len(dd)))
        cm = np.where(np.arange(len(take))[:, None] <= np.arange(len(dd))[None, :], cm, 0.0)
        X_max[s:] = X[s:] + cm.sum(axis=0)
    A_max = X_max / norm
    f = int(round(l + s - Xl))
    dmax = np.arange(l + 1, f + 1, dtype=np.float64)
    sec3_max = float(np.sum((2 * dmax - l - s + Xl) / dmax * p ** dmax)) + p ** (f + 1) / (1 - p)
    hi = scale * (float(np.dot(A_max, weights)) + sec3_max)
    return RBOResult(ext=ext, min=lo, max=hi, p=float(p), ties=ties if tied else None, lengths=(len(fa), len(fb)))


# =========================================================================== tau_AP and Kendall


def _untied(f: _Flat, name: str, func: str) -> None:
    if f.tied:
        raise InputError(f"{func}: {name} has tied items; {func} is defined for rankings without ties")


def _same_items(fa: _Flat, fb: _Flat, names: tuple[str, str], func: str) -> None:
    sa, sb = set(fa.ids), set(fb.ids)
    if sa != sb:
        only_a = [x for x in fa.ids if x not in sb]
        only_b = [x for x in fb.ids if x not in sa]
        parts = []
        for nm, only in ((names[0], only_a), (names[1], only_b)):
            if only:
                shown = ", ".join(map(repr, only[:3])) + (", ..." if len(only) > 3 else "")
                parts.append(f"{len(only)} only in {nm} ({shown})")
        raise InputError(f"{func}: the two rankings must hold the same items; " + "; ".join(parts))


def _smaller_before(w: np.ndarray) -> np.ndarray:
    """For each position i, how many j < i have w[j] < w[i] (``w`` a permutation of 0..n-1); O(n log n)."""
    n = len(w)
    tree = [0] * (n + 1)
    out = np.empty(n, dtype=np.int64)
    for i, v in enumerate(w.tolist()):
        c, k = 0, v  # prefix count of values < v
        while k > 0:
            c += tree[k]
            k -= k & (-k)
        out[i] = c
        k = v + 1
        while k <= n:
            tree[k] += 1
            k += k & (-k)
    return out


def tau_ap(reference: Sequence[Any], other: Sequence[Any], *, symmetric: bool = False) -> float:
    """AP correlation of ``other`` against ``reference`` (Yilmaz, Aslam and Robertson, SIGIR 2008).

    .. math::

        \\tau_{AP} = \\frac{2}{N-1} \\sum_{i=2}^{N} \\frac{C(i)}{i-1} - 1

    where ``i`` runs over the ranks of ``other`` and ``C(i)`` counts the items above
    rank ``i`` in ``other`` that ``reference`` also ranks above the item at rank ``i``.
    Like average precision, a swap near the top costs more than one near the
    bottom; 1 for identical rankings, -1 for reversed ones. Not symmetric:
    ``symmetric=True`` gives the mean of both directions (Yilmaz et al., section 4).
    Both rankings must hold the same items (at least 2) and no ties.

    >>> round(tau_ap(["a", "b", "c", "d"], ["a", "b", "d", "c"]), 6)
    0.777778
    >>> round(tau_ap(["a", "b", "c", "d"], ["b", "a", "c", "d"]), 6)     # a swap at the top costs more
    0.333333
    >>> tau_ap(["a", "b", "c"], ["c", "b", "a"])
    -1.0
    """
    from .._params import check_bool

    symmetric = check_bool("symmetric", symmetric, func="tau_ap")
    fr, fo = _flatten(reference, "reference", "tau_ap"), _flatten(other, "other", "tau_ap")
    _untied(fr, "reference", "tau_ap")
    _untied(fo, "other", "tau_ap")
    _same_items(fr, fo, ("reference", "other"), "tau_ap")
    if len(fr) < 2:
        raise InputError(f"tau_ap: the rankings must hold at least 2 items, got {len(fr)}")
    one = _tau_ap_flat(fr.ids, fo.ids)
    if not symmetric:
        return one
    return (one + _tau_ap_flat(fo.ids, fr.ids)) / 2.0


def _tau_ap_flat(ref: list[str], other: list[str]) -> float:
    pos = {x: i for i, x in enumerate(ref)}
    w = np.array([pos[x] for x in other], dtype=np.int64)
    c = _smaller_before(w)
    n = len(w)
    i = np.arange(1, n)  # 0-based positions 1..n-1 = ranks 2..N
    return float(2.0 / (n - 1) * np.sum(c[1:] / i) - 1.0)


def kendall_tau_rankings(a: Sequence[Any], b: Sequence[Any], variant: str = "b") -> float:
    """Kendall's tau between two rankings of the same items (tie groups share their rank).

    The ranks of every item in ``a`` and ``b`` are compared with
    :func:`rankmeter.metrics.kendall_tau` (``variant`` ``"b"``: tie-corrected,
    scipy's default; ``"a"``; ``"c"``). Both rankings must hold the same items.

    .. math::

        \\tau_b = \\frac{C - D}{\\sqrt{(n_0 - T_a)(n_0 - T_b)}}

    >>> round(kendall_tau_rankings(["a", "b", "c", "d"], ["a", "b", "d", "c"]), 6)
    0.666667
    >>> round(kendall_tau_rankings(["a", {"b", "c"}, "d"], ["a", "b", "c", "d"]), 6)
    0.912871
    """
    from .functions import kendall_tau

    fa, fb = _flatten(a, "a", "kendall_tau_rankings"), _flatten(b, "b", "kendall_tau_rankings")
    _same_items(fa, fb, ("a", "b"), "kendall_tau_rankings")
    if len(fa) < 2:
        raise InputError(f"kendall_tau_rankings: the rankings must hold at least 2 items, got {len(fa)}")
    rb = {x: int(t) for x, t in zip(fb.ids, fb.top, strict=True)}
    x = np.asarray(fa.top, dtype=np.float64)
    y = np.array([rb[i] for i in fa.ids], dtype=np.float64)
    return kendall_tau(x, y, variant=variant)
