"""Sampled-negative evaluation: rank each user's test items among N sampled non-interacted items.

Many papers score a recommender by ranking each test user's held-out items against
``N`` (often 100) items drawn at random among those the user never interacted with,
instead of against the whole catalogue. This is cheaper, but **it inflates the
scores** compared with full ranking, and can even change which of two recommenders
looks better (Krichene & Rendle 2020, "On sampled metrics for item recommendation",
KDD, doi:10.1145/3394486.3403226). rankmeter supports it to reproduce such papers,
and labels every result computed this way with :func:`label`:
``"sampled (N=100, seed=0): inflates scores vs full ranking"``.

Sampling: for each user, ``N`` distinct items uniformly from the catalogue minus
every item the user interacted with (train and test), from a generator seeded with
``(seed, crc32(user id))``: a user's negatives depend only on the seed, the user, the
catalogue and the user's items, not on the other users. A user with fewer than ``N``
such items gets all of them (counted in ``Candidates.short_users``).

>>> c = sample_negatives({"user": ["u1", "u1", "u2"], "item": ["a", "b", "c"]}, n=2, seed=0,
...                      interactions={"user": ["u1", "u1", "u2", "u1"], "item": ["a", "b", "c", "d"]},
...                      catalog=["a", "b", "c", "d", "e", "f"])
>>> sorted(c.to_mapping()["u1"]), c.n_negatives, c.label  # a, b tested; 2 of c, e, f (d is known)
(['a', 'b', 'e', 'f'], 2, 'sampled (N=2, seed=0): inflates scores vs full ranking')
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Iterable, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import ParameterError
from ..data.ids import as_string_array, encode, union_vocab

__all__ = ["Candidates", "sample_negatives", "label", "restrict", "correct", "CorrectedEstimate", "corrected_label",
           "CORRECTIONS"]


STRATEGIES = ("uniform", "popularity")
PER = ("user", "positive")


def label(n: int, seed: int, strategy: str = "uniform", per: str = "user") -> str:
    """The label every sampled-mode output carries (the protocol named when it is not the default).

    >>> label(100, 0, "popularity", "positive")
    'sampled (N=100 per held-out item, popularity-proportional, seed=0): inflates scores vs full ranking'
    """
    what = f"N={n}" + (" per held-out item" if per == "positive" else "")
    if strategy == "popularity":
        what += ", popularity-proportional"
    return f"sampled ({what}, seed={seed}): inflates scores vs full ranking"


@dataclass(frozen=True, eq=False)
class Candidates:
    """Per-user candidate items: the user's test items plus the sampled negatives.

    ``users`` (text ids), ``offsets`` (CSR: user ``u`` owns ``items[offsets[u]:offsets[u+1]]``),
    ``items`` (text ids), ``negatives`` (how many of each user's candidates are sampled),
    ``short_users`` (users who had fewer than ``n_negatives`` items to sample from).
    """

    users: pa.Array
    offsets: np.ndarray
    items: pa.Array
    negatives: np.ndarray
    n_negatives: int
    seed: int
    short_users: int = 0
    strategy: str = "uniform"
    per: str = "user"

    @property
    def label(self) -> str:
        return label(self.n_negatives, self.seed, self.strategy, self.per)

    def to_mapping(self) -> dict[str, list[str]]:
        ids = self.items.to_pylist()
        return {u: ids[self.offsets[n]:self.offsets[n + 1]] for n, u in enumerate(self.users.to_pylist())}

    def pair_mask(self, users: pa.Array, items: pa.Array) -> np.ndarray:
        """For rows ``(users[r], items[r])``: is the item a candidate of that user?"""
        if len(users) == 0:
            return np.zeros(0, dtype=bool)
        key_c = pc.binary_join_element_wise(self.users.take(pa.array(
            np.repeat(np.arange(len(self.users)), np.diff(self.offsets)))), self.items, "\x00")
        key_r = pc.binary_join_element_wise(as_string_array(users), as_string_array(items), "\x00")
        return np.asarray(pc.is_in(key_r, value_set=key_c).to_numpy(zero_copy_only=False), dtype=bool)

    def __repr__(self) -> str:
        return f"Candidates({len(self.users)} users, {len(self.items)} items; {self.label})"


def _pairs(data: Any) -> tuple[pa.Array, pa.Array]:
    from .beyond import user_item_ids

    return user_item_ids(data)


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"The 'n' parameter of sample_negatives must be an int >= 1. Got {n!r} instead.")
    return int(n)


def sample_negatives(test: Any, *, n: int = 100, seed: int = 0, interactions: Any = None,
                     catalog: Iterable[Any] | None = None, strategy: str = "uniform",
                     per: str = "user") -> Candidates:
    """Candidates for sampled evaluation: each test user's test items plus ``n`` sampled negatives.

    Protocols (each named in the label): ``strategy="uniform"`` draws negatives uniformly;
    ``"popularity"`` draws them with probability proportional to their number of
    interactions in ``interactions`` (RecBole's ``popN``; items never interacted with are
    never drawn). ``per="user"`` draws ``n`` per user; ``"positive"`` draws ``n`` per
    held-out item (``n * |test items|`` per user, ranked together with all of them, as
    RecBole's per-positive sampling).

    ``test``: the test interactions (anything ``read_interactions`` reads, or a Qrels).
    ``interactions``: everything known about the users (train and test; default: ``test``);
    negatives avoid all of it. ``catalog``: the items to sample from (default: every
    item of ``interactions`` and ``test``).
    """
    n = _check_n(n)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"The 'seed' parameter of sample_negatives must be an int >= 0. Got {seed!r} instead.")
    tu, ti = _pairs(test)
    ku, ki = _pairs(interactions) if interactions is not None else (tu, ti)
    ku, ki = pa.concat_arrays([ku, tu]), pa.concat_arrays([ki, ti])
    if catalog is None:
        cat = union_vocab(ki)
    else:
        cat = union_vocab(as_string_array(list(catalog) if not isinstance(catalog, (pa.Array, np.ndarray))
                                          else catalog))
    return sample_candidates(tu, ti, ku, ki, cat, n, int(seed), strategy=strategy, per=per)


def _check_protocol(strategy: str, per: str, func: str) -> None:
    if strategy not in STRATEGIES:
        raise ParameterError(f"The 'strategy' parameter of {func} must be one of {', '.join(STRATEGIES)}. "
                             f"Got {strategy!r} instead.")
    if per not in PER:
        raise ParameterError(f"The 'per' parameter of {func} must be one of {', '.join(PER)}. Got {per!r} instead.")


def sample_candidates(tu: pa.Array, ti: pa.Array, ku: pa.Array, ki: pa.Array, cat: pa.Array, n: int, seed: int,
                      *, strategy: str = "uniform", per: str = "user",
                      popularity_of: tuple[pa.Array, pa.Array] | None = None) -> Candidates:
    """Sample the candidates (see :func:`sample_negatives`). ``popularity_of``: the (user, item) pairs
    whose item counts weigh popularity-proportional sampling (default: the known pairs ``ku, ki``)."""
    _check_protocol(strategy, per, "sample_negatives")
    weights = None
    if strategy == "popularity":
        pu, pi_ = popularity_of if popularity_of is not None else (ku, ki)
        codes = np.asarray(pc.fill_null(pc.index_in(pi_, value_set=cat), -1).to_numpy(zero_copy_only=False))
        weights = np.bincount(codes[codes >= 0], minlength=len(cat)).astype(np.float64)
    users = union_vocab(tu)
    nu, m = len(users), len(cat)
    # each user's known items, as sorted catalogue positions
    kuc = np.asarray(pc.fill_null(pc.index_in(ku, value_set=users), -1).to_numpy(zero_copy_only=False))
    kic = np.asarray(pc.fill_null(pc.index_in(ki, value_set=cat), -1).to_numpy(zero_copy_only=False))
    keep = (kuc >= 0) & (kic >= 0)
    keys = np.unique(kuc[keep].astype(np.int64) * max(m, 1) + kic[keep])
    known_user = keys // max(m, 1)
    known_item = keys % max(m, 1)
    known_off = np.searchsorted(known_user, np.arange(nu + 1))
    # each user's test items (text, any item: test items may be outside the catalogue)
    tuc, _ = encode(tu) if len(tu) else (np.zeros(0, dtype=np.int64), users)
    tcodes, tvocab = encode(ti) if len(ti) else (np.zeros(0, dtype=np.int64), pa.array([], pa.string()))
    tkeys = np.unique(tuc * max(len(tvocab), 1) + tcodes)
    t_user = tkeys // max(len(tvocab), 1)
    t_item = tkeys % max(len(tvocab), 1)
    t_off = np.searchsorted(t_user, np.arange(nu + 1))
    out_items: list[pa.Array] = []
    offsets = [0]
    negs = np.zeros(nu, dtype=np.int64)
    short = 0
    uids = users.to_pylist()
    for u in range(nu):
        seen = known_item[known_off[u]:known_off[u + 1]]  # sorted, unique
        free = m - len(seen)
        pos_codes = t_item[t_off[u]:t_off[u + 1]]
        want = n * len(pos_codes) if per == "positive" else n
        rng = np.random.default_rng([seed, zlib.crc32(uids[u].encode("utf-8"))])
        if weights is None:
            take = min(want, free)
            j = np.sort(rng.choice(free, size=take, replace=False)) if take > 0 else np.zeros(0, dtype=np.int64)
            # the j-th catalogue position not in `seen`
            shift = np.searchsorted(seen - np.arange(len(seen)), j, side="right")
            neg = j + shift
        else:
            pool = np.setdiff1d(np.arange(m), seen, assume_unique=True)
            pool = pool[weights[pool] > 0]
            take = min(want, len(pool))
            neg = np.sort(rng.choice(pool, size=take, replace=False, p=weights[pool] / weights[pool].sum())) \
                if take > 0 else np.zeros(0, dtype=np.int64)
        if take < want:
            short += 1
        pos_items = tvocab.take(pa.array(pos_codes))
        out_items.append(pos_items)
        out_items.append(cat.take(pa.array(neg, pa.int64())))
        negs[u] = take
        offsets.append(offsets[-1] + len(pos_items) + take)
    items = pa.concat_arrays(out_items) if out_items else pa.array([], pa.string())
    return Candidates(users=users, offsets=np.asarray(offsets, dtype=np.int64), items=items, negatives=negs,
                      n_negatives=n, seed=seed, short_users=short, strategy=strategy, per=per)


def restrict(table: pa.Table, candidates: Candidates) -> tuple[pa.Table, int]:
    """Keep the rows of a ``user, item, score`` table whose item is a candidate of its user.

    Returns the kept rows and the number of rows left out (for lists computed without
    the candidates, e.g. a file of top-k lists).
    """
    mask = candidates.pair_mask(table.column("user").combine_chunks(), table.column("item").combine_chunks())
    return table.filter(pa.array(mask)), int((~mask).sum())


# ----------------------------------------------------------------------------- corrected sampled metrics

CORRECTIONS = ("none", "bias", "bv", "mle")
_CORRECTABLE = {"r": "recall", "recall": "recall", "ndcg": "ndcg", "p": "precision", "precision": "precision"}


def corrected_label(n: int, method: str, seed: int | None = None) -> str:
    """The label of a corrected sampled estimate: ``"sampled N=100, corrected (bv)"``."""
    s = f"sampled N={n}" + (f", seed={seed}" if seed is not None else "")
    return s + (f", corrected ({method})" if method != "none" else ": inflates scores vs full ranking")


@dataclass(frozen=True, eq=False)
class CorrectedEstimate:
    """Estimates of a full-ranking metric from sampled ranks: one value per user, and their mean.

    ``per_user`` follows the order of the users given; ``label`` says how it was computed
    (``"sampled N=100, corrected (bv)"``); ``method`` and ``metric`` as passed.
    """

    per_user: np.ndarray
    metric: str
    method: str
    n_sampled: int
    label: str

    @property
    def mean(self) -> float:
        return float(self.per_user.mean()) if len(self.per_user) else float("nan")

    def __repr__(self) -> str:
        return f"CorrectedEstimate({self.metric} = {self.mean:.4f} over {len(self.per_user)} users; {self.label})"


def _parse_correctable(metric: str) -> tuple[str, int]:
    from ..metrics.registry import parse_metric

    m = parse_metric(metric)
    kind = _CORRECTABLE.get(m.spec.name)
    if kind is None or m.k is None:
        raise ParameterError(f"The 'metric' parameter of correct must be recall@k, ndcg@k or precision@k (a metric "
                             f"that adds up over the held-out items, with a cut-off). Got {metric!r} instead.")
    defaults = {p.name: p.default for p in m.spec.params}
    odd = [k for k, v in m.params.items() if k != "rel" and defaults.get(k) != v]
    if odd:
        raise ParameterError(f"correct supports {m.spec.name} with its default parameters only; got {odd[0]}="
                             f"{m.params[odd[0]]!r} in {metric!r}")
    return kind, int(m.k)


def _gain(kind: str, k: int, rank: np.ndarray) -> np.ndarray:
    """Contribution of a held-out item at full rank ``rank`` (1-based), before the per-user normaliser."""
    rank = np.asarray(rank, dtype=np.float64)
    inside = rank <= k
    if kind == "ndcg":
        return np.where(inside, 1.0 / np.log2(rank + 1.0), 0.0)
    return inside.astype(np.float64)


def _norm(kind: str, k: int, n_pos: np.ndarray) -> np.ndarray:
    n_pos = np.asarray(n_pos, dtype=np.float64)
    if kind == "recall":
        return cast(np.ndarray, np.divide(1.0, n_pos, out=np.zeros_like(n_pos), where=n_pos > 0))
    if kind == "precision":
        return np.full_like(n_pos, 1.0 / k)
    m = np.minimum(n_pos, k).astype(np.int64)
    cum = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64)))))
    ideal = cum[m]
    return cast(np.ndarray, np.divide(1.0, ideal, out=np.zeros_like(ideal), where=ideal > 0))


def _binomial_matrix(n_full: int, n: int) -> np.ndarray:
    """``A[R-1, r-1] = P(sampled rank r | full rank R)``: ``r - 1 ~ Binomial(n, (R - 1) / (n_full - 1))``."""
    from scipy.special import gammaln

    q = np.arange(n_full, dtype=np.float64)[:, None] / max(n_full - 1, 1)
    j = np.arange(n + 1, dtype=np.float64)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        log = (gammaln(n + 1.0) - gammaln(j + 1.0) - gammaln(n - j + 1.0)
               + np.where(j > 0, j * np.log(q), 0.0) + np.where(n - j > 0, (n - j) * np.log1p(-q), 0.0))
    return cast(np.ndarray, np.exp(log))


_SOLVERS: dict[tuple[int, int, str, float], tuple[np.ndarray, np.ndarray]] = {}


def _solver(n_full: int, n: int, method: str, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """(matrix S, A) with ``M~ = S @ M`` for a target ``M`` over full ranks (cached: the same sizes recur)."""
    key = (n_full, n, method, lam)
    if key not in _SOLVERS:
        a = _binomial_matrix(n_full, n)
        if method == "bias":
            s = np.linalg.pinv(a, rcond=1e-4)
        else:
            lhs = (1.0 - lam) * (a.T @ a) + lam * np.diag(a.sum(axis=0))
            s = np.linalg.solve(lhs, a.T)
        if len(_SOLVERS) > 4096:
            _SOLVERS.clear()
        _SOLVERS[key] = (s, a)
    return _SOLVERS[key]


def _correction_table(n_full: int, n: int, kind: str, k: int, shifts: np.ndarray, method: str,
                      lam: float) -> np.ndarray:
    """Corrected metric values ``M~[shift, r-1]`` for each shift (other held-out items above) and sampled rank.

    Krichene & Rendle (2020): choose ``M~`` minimising, over full ranks R weighted uniformly,
    ``(E[M~(r) | R] - M(R))^2`` (``bias``: the least-squares solution, pseudo-inverse with
    singular values below 1e-4 of the largest cut: the exact solution
    swings wildly) plus ``lam * Var[M~(r) | R]`` (``bv``); the
    normal equations are ``((1 - lam) A'A + lam diag(1'A)) M~ = A'M``.
    """
    s, _a = _solver(n_full, n, method, lam)
    top = min(n_full, k)  # the targets are 0 beyond full rank k
    ranks = np.arange(1, top + 1, dtype=np.float64)
    targets = np.stack([_gain(kind, k, ranks + sh) for sh in shifts], axis=1)  # (top, n_shifts)
    return cast(np.ndarray, (s[:, :top] @ targets).T)  # (n_shifts, n + 1)


def _mle_posteriors(r: np.ndarray, n: np.ndarray, n_full: int, iters: int = 500,
                    tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Jin et al. (2021): the maximum-likelihood distribution of the share ``theta`` of negatives ranked above
    a held-out item, on a grid, by EM; and each observation's posterior over the grid.

    ``r - 1 ~ Binomial(n, theta)`` for each observation.
    """
    from scipy.stats import binom

    # every share j / (n_full - 1) for the first 64 ranks (exact top ranks), then a geometric grid
    step = 1.0 / max(n_full - 1, 1)
    theta = np.unique(np.concatenate((np.arange(64) * step, np.geomspace(64 * step, 1.0, 336)))) if n_full > 65 \
        else np.arange(n_full) * step
    # EM over the distinct (rank, n) pairs, weighted by their counts (the likelihood depends on nothing else)
    pairs, inverse, counts = np.unique(np.stack((r, n), axis=1), axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    lik = binom.pmf((pairs[:, 0] - 1)[:, None], pairs[:, 1][:, None], theta[None, :])  # (pairs, grid)
    w = counts / counts.sum()
    pi = np.full(len(theta), 1.0 / len(theta))
    for _ in range(iters):
        joint = lik * pi
        post = joint / np.maximum(joint.sum(axis=1, keepdims=True), 1e-300)
        new = w @ post
        if np.abs(new - pi).max() < tol:
            pi = new
            break
        pi = new
    joint = lik * pi
    post = (joint / np.maximum(joint.sum(axis=1, keepdims=True), 1e-300))[inverse]
    return theta, post, pi


def _as_lists(x: Any, name: str) -> tuple[list[Any] | None, list[np.ndarray]]:
    if isinstance(x, dict):
        keys = list(x)
        return keys, [np.asarray(x[u], dtype=np.float64).ravel() for u in keys]
    try:
        return None, [np.asarray(v, dtype=np.float64).ravel() for v in x]
    except (TypeError, ValueError):
        raise ParameterError(f"The {name!r} parameter of correct must be a sequence (one entry per user) of "
                             f"sequences of numbers, or a mapping user -> sequence. Got {type(x).__name__}.") from None


def _per_user(value: Any, n_users: int, name: str, minimum: int) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(n_users, float(arr))
    if arr.shape != (n_users,) or not np.isfinite(arr).all() or (arr != np.round(arr)).any() or (arr < minimum).any():
        raise ParameterError(f"The {name!r} parameter of correct must be an int >= {minimum}, or one per user "
                             f"({n_users}). Got {value!r} instead.")
    return arr.astype(np.int64)


def correct(ranks: Any, n_items: Any, n_sampled: Any, metric: str = "ndcg@10", method: str = "bv", *,
            above: Any = None, lam: float = 0.1) -> CorrectedEstimate:
    """Estimate a full-ranking metric from each user's sampled ranks of the held-out items.

    ``ranks``: one sequence per user (or a mapping user -> sequence) of the sampled rank of
    each held-out item: 1 + the number of the user's ``n_sampled`` sampled negatives scored
    above it. ``n_items``: the number of items each held-out item competes with under full
    ranking, itself included (the user's non-interacted catalogue items + 1); an int or one
    per user. ``n_sampled``: negatives drawn per user (int or one per user). ``above``
    (optional, same shape as ``ranks``): for each held-out item, how many of the user's
    other held-out items rank above it (known exactly under sampling: they are all
    candidates); its full rank is then its rank among negatives plus ``above``.

    ``metric``: ``recall@k``, ``ndcg@k`` (binary gains) or ``precision@k``; each adds up
    per held-out item ``g(R)`` (``[R <= k]``, or ``[R <= k] / log2(R + 1)``) times a per-user
    normaliser (``1 / |S_u|``, ``1 / IDCG``, ``1 / k``). ``method``:

    * ``"none"``: the plain sampled metric, ``g`` at the sampled rank (what papers report);
    * ``"bias"``: Krichene & Rendle's (KDD 2020) minimum-bias correction: the function
      ``M~(r)`` of the sampled rank whose expectation is closest (least squares over
      full ranks R, weighted uniformly) to ``g(R)``;
    * ``"bv"``: their bias-variance correction, adding ``lam * Var[M~ | R]`` to the
      criterion (``lam`` 0.1 by default);
    * ``"mle"``: Jin et al.'s (AAAI 2021) rank-distribution estimator: the
      maximum-likelihood distribution (EM on a grid: every rank of the first 64, then 336
      geometric steps) of the share ``theta``
      of negatives above a held-out item, pooled over all held-out items, and each item's
      ``g`` averaged over its posterior (the pooled means equal the plug-in estimate).

    References: Krichene & Rendle (2020), On sampled metrics for item recommendation,
    KDD, doi:10.1145/3394486.3403226; Jin, Li, Zhang, Hao, Zhang (2021), On estimating
    recommendation evaluation metrics under sampling, AAAI, arXiv:2103.01474.

    >>> est = correct([[1], [3], [60]], n_items=1000, n_sampled=99, metric="recall@10", method="none")
    >>> est.per_user.tolist(), est.label
    ([1.0, 1.0, 0.0], 'sampled N=99: inflates scores vs full ranking')
    >>> est = correct([[1], [3], [60]], n_items=1000, n_sampled=99, metric="recall@10", method="bv")
    >>> est.label, bool(est.mean < 2 / 3)
    ('sampled N=99, corrected (bv)', True)
    """
    if method not in CORRECTIONS:
        raise ParameterError(f"The 'method' parameter of correct must be one of {', '.join(CORRECTIONS)}. "
                             f"Got {method!r} instead.")
    if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not 0.0 <= lam <= 1.0:
        raise ParameterError(f"The 'lam' parameter of correct must be a number in [0, 1]. Got {lam!r} instead.")
    kind, k = _parse_correctable(metric)
    _keys, rank_lists = _as_lists(ranks, "ranks")
    nu = len(rank_lists)
    if above is None:
        above_lists = [np.zeros(len(r)) for r in rank_lists]
    else:
        _k2, above_lists = _as_lists(above, "above")
        if len(above_lists) != nu or any(len(a) != len(r) for a, r in zip(above_lists, rank_lists, strict=True)):
            raise ParameterError("The 'above' parameter of correct must have one count per rank of 'ranks'")
    n_full = _per_user(n_items, nu, "n_items", 1)
    n_neg = _per_user(n_sampled, nu, "n_sampled", 0)
    lengths = np.array([len(r) for r in rank_lists], dtype=np.int64)
    owner = np.repeat(np.arange(nu), lengths)
    r = np.concatenate(rank_lists) if nu else np.zeros(0)
    sh = np.concatenate(above_lists) if nu else np.zeros(0)
    if len(r) and ((r != np.round(r)).any() or (r < 1).any() or (r > n_neg[owner] + 1).any()):
        bad = int(np.flatnonzero((r != np.round(r)) | (r < 1) | (r > n_neg[owner] + 1))[0])
        raise ParameterError(f"a sampled rank must be an int in [1, n_sampled + 1]; user {int(owner[bad])} has "
                             f"{r[bad]!r} (n_sampled {int(n_neg[owner[bad]])})")
    if len(sh) and ((sh != np.round(sh)).any() or (sh < 0).any()):
        raise ParameterError("The 'above' parameter of correct must hold ints >= 0")
    if (n_full <= n_neg).any():
        u = int(np.flatnonzero(n_full <= n_neg)[0])
        raise ParameterError(f"n_items must exceed n_sampled (the full ranking holds the sampled negatives and the "
                             f"item); user {u} has n_items {int(n_full[u])}, n_sampled {int(n_neg[u])}")
    r_i = r.astype(np.int64)
    sh_i = sh.astype(np.int64)
    contrib = np.zeros(len(r))
    if method == "none":
        contrib = _gain(kind, k, r_i + sh_i)
    elif method in ("bias", "bv"):
        groups: dict[tuple[int, int], list[int]] = {}
        for u in range(nu):
            groups.setdefault((int(n_full[u]), int(n_neg[u])), []).append(u)
        starts = np.concatenate(([0], np.cumsum(lengths)))
        for (nf, nn), us in groups.items():
            rows = np.concatenate([np.arange(starts[u], starts[u + 1]) for u in us]) if us else np.zeros(0, int)
            if not len(rows):
                continue
            shifts, inv = np.unique(sh_i[rows], return_inverse=True)
            table = _correction_table(nf, nn, kind, k, shifts, method, float(lam))
            contrib[rows] = table[inv, r_i[rows] - 1]
    else:
        if len(r):
            theta, post, _pi = _mle_posteriors(r_i, n_neg[owner], int(np.median(n_full)))
            full_rank = 1.0 + np.round(theta[None, :] * (n_full[owner][:, None] - 1))  # rank among negatives + 1
            contrib = (post * _gain(kind, k, full_rank + sh_i[:, None])).sum(axis=1)
    per_user = np.bincount(owner, weights=contrib, minlength=nu) * _norm(kind, k, lengths)
    n_label = int(n_neg.max()) if nu else 0
    return CorrectedEstimate(per_user=per_user, metric=metric, method=method, n_sampled=n_label,
                             label=corrected_label(n_label, method))
