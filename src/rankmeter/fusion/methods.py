"""Every fusion method: a vectorised kernel over all queries at once, and its declaration (:data:`METHODS`).

A kernel reads a :class:`~rankmeter.fusion.frame.Frame` (candidates by runs: normalised
scores, which runs retrieved each candidate, its positions) with the runs' weights and
the method's parameters, and returns each candidate's fused score. The fused run is then
ranked by the tie rule (fused score descending, ties by item id descending), so it is the
same whatever the input's row order.

The worked examples fuse the same two runs (``A`` ranks d1 > d2 > d3 with scores 3, 2, 1;
``B`` ranks d2 > d4 with scores 0.9, 0.5), min-max normalised unless said otherwise:

>>> from rankmeter.fusion import fuse
>>> A = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
>>> B = {"q": {"d2": 0.9, "d4": 0.5}}
>>> fuse([A, B], method="rrf").to_lists()
{'q': ['d2', 'd1', 'd4', 'd3']}
"""

from __future__ import annotations

from functools import cmp_to_key
from typing import Any, Callable

import numpy as np

from .._errors import ParameterError
from .._params import Range
from .frame import Frame
from .spec import FusionMethod, Param

__all__ = ["METHODS", "method_by_name", "SEGFUSE_BOUNDS", "BAYES_CUTOFFS", "MIN_LOG_ODDS"]

# SegFuse's segments (Shokouhi 2007): the k-th (1-based) holds (10 * 2^(k-1)) - 5 positions, ten segments
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)], dtype=np.int64)
# BayesFuse's position bins (as ranx estimates them) and the log-odds of a document a run did not retrieve
BAYES_CUTOFFS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000], dtype=np.int64)
MIN_LOG_ODDS = float(np.log(0.001 / 0.999))


# --------------------------------------------------------------------------- helpers

def _count(f: Frame, p: dict[str, Any]) -> np.ndarray:
    """Runs counted for a candidate: those that scored it (``count=retrieved``) or gave it a non-zero score."""
    if p.get("count", "retrieved") == "nonzero":
        return np.asarray((f.scored & (f.scores != 0)).sum(axis=1))
    return np.asarray(f.scored.sum(axis=1))


def _over_retrieved(f: Frame, values: np.ndarray) -> np.ndarray:
    """The sum over runs of ``values`` where the run retrieved the candidate."""
    return np.asarray(np.where(f.retrieved, values, 0.0).sum(axis=1))


def _dot(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Each row's weighted sum, products first then added in run order (no fused multiply-add: the SQL
    engines' numbers are the same bits)."""
    return np.asarray((values * w[None, :]).sum(axis=1))


def _inv_pos(f: Frame) -> np.ndarray:
    return np.asarray(1.0 / np.maximum(f.pos, 1))


# --------------------------------------------------------------------------- score-based

def comb_sum(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """CombSUM: the sum of a candidate's normalised scores, 0 from runs that did not score it.

    .. math:: s(d) = \\sum_j \\hat s_j(d)

    Fox and Shaw, TREC-2 (NIST SP 500-215), 1994.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="sum").to_dict()
    {'q': {'d2': 1.5, 'd1': 1.0, 'd4': 0.0, 'd3': 0.0}}
    """
    return np.asarray(f.scores.sum(axis=1))


def comb_mnz(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """CombMNZ: CombSUM times the number of runs that retrieved the candidate (Lee 1997; ranx).

    .. math:: s(d) = |\\{j : d \\in r_j\\}| \\sum_j \\hat s_j(d)

    ``count=nonzero`` counts the runs that gave it a non-zero normalised score instead
    (Fox and Shaw 1994's reading). Fox and Shaw 1994; Lee, SIGIR 1997, doi:10.1145/258525.258587.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="mnz").to_dict()
    {'q': {'d2': 3.0, 'd1': 1.0, 'd4': 0.0, 'd3': 0.0}}
    """
    return np.asarray(f.scores.sum(axis=1) * _count(f, p))


def comb_anz(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """CombANZ: CombSUM divided by the number of runs that retrieved the candidate.

    .. math:: s(d) = \\sum_j \\hat s_j(d) / |\\{j : d \\in r_j\\}|

    Fox and Shaw 1994; Lee 1997. With ``count=nonzero`` a candidate every run scored 0 keeps 0.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="anz").to_dict()
    {'q': {'d1': 1.0, 'd2': 0.75, 'd4': 0.0, 'd3': 0.0}}
    """
    c = _count(f, p)
    return np.asarray(f.scores.sum(axis=1) / np.maximum(c, 1))


def comb_gmnz(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """CombGMNZ: CombSUM times the number of runs that retrieved the candidate to the power gamma.

    .. math:: s(d) = |\\{j : d \\in r_j\\}|^{\\gamma} \\sum_j \\hat s_j(d)

    Lee, SIGIR 1997, doi:10.1145/258525.258587 (gamma = 1 is CombMNZ, 0 CombSUM).

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="gmnz",
    ...      params={"gamma": 2}).to_dict()
    {'q': {'d2': 6.0, 'd1': 1.0, 'd4': 0.0, 'd3': 0.0}}
    """
    return np.asarray(f.scores.sum(axis=1) * _count(f, p).astype(np.float64) ** p["gamma"])


def _masked(f: Frame) -> np.ndarray:
    return np.where(f.scored, f.scores, np.nan)


def comb_max(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """CombMAX: the largest normalised score among the runs that scored the candidate.

    Fox and Shaw 1994.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="max").to_dict()
    {'q': {'d2': 1.0, 'd1': 1.0, 'd4': 0.0, 'd3': 0.0}}
    """
    return np.asarray(np.nanmax(_masked(f), axis=1))


def comb_min(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """CombMIN: the smallest normalised score among the runs that scored the candidate.

    Fox and Shaw 1994.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="min").to_dict()
    {'q': {'d1': 1.0, 'd2': 0.5, 'd4': 0.0, 'd3': 0.0}}
    """
    return np.asarray(np.nanmin(_masked(f), axis=1))


def comb_med(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """CombMED: the median normalised score among the runs that scored the candidate.

    Fox and Shaw 1994.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="med").to_dict()
    {'q': {'d1': 1.0, 'd2': 0.75, 'd4': 0.0, 'd3': 0.0}}
    """
    return np.asarray(np.nanmedian(_masked(f), axis=1))


def wsum(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Weighted sum (linear combination): each run's normalised score times its weight, 0 where not scored.

    .. math:: s(d) = \\sum_j w_j \\hat s_j(d)

    Vogt and Cottrell, Information Retrieval 1(3), 1999, doi:10.1023/A:1009980820262.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="wsum",
    ...      weights=[0.3, 0.7]).to_dict()
    {'q': {'d2': 0.85, 'd1': 0.3, 'd4': 0.0, 'd3': 0.0}}
    """
    return _dot(f.scores, w)


def wmnz(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """WMNZ: CombSUM times the sum of the weights of the runs that retrieved the candidate.

    .. math:: s(d) = \\Big(\\sum_{j : d \\in r_j} w_j\\Big) \\sum_j \\hat s_j(d)

    Wu and Crestani, CIKM 2002, doi:10.1145/584792.584908.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="wmnz",
    ...      weights=[0.3, 0.7]).to_dict()
    {'q': {'d2': 1.5, 'd1': 0.3, 'd4': 0.0, 'd3': 0.0}}
    """
    return np.asarray(f.scores.sum(axis=1) * _dot(f.scored, w))


def mixed(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Mixed: the weighted sum times the square root of the number of runs that retrieved the candidate.

    .. math:: s(d) = \\sqrt{|\\{j : d \\in r_j\\}|} \\sum_j w_j \\hat s_j(d)

    Wu and Crestani, CIKM 2002, doi:10.1145/584792.584908.

    >>> from rankmeter.fusion import fuse
    >>> r = fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="mixed",
    ...          weights=[0.3, 0.7])
    >>> {d: round(s, 6) for d, s in r.to_dict()["q"].items()}
    {'d2': 1.202082, 'd1': 0.3, 'd4': 0.0, 'd3': 0.0}
    """
    return np.asarray(_dot(f.scores, w) * np.sqrt(f.scored.sum(axis=1)))


# --------------------------------------------------------------------------- position-based

def rrf(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Reciprocal rank fusion: the sum over the runs that retrieved the candidate of 1 / (k + position).

    .. math:: s(d) = \\sum_{j : d \\in r_j} \\frac{1}{k + \\mathrm{pos}_j(d)}, \\quad k = 60

    Cormack, Clarke and Büttcher, SIGIR 2009, doi:10.1145/1571941.1572114. A run that did not
    retrieve the document adds nothing.

    >>> from rankmeter.fusion import fuse
    >>> r = fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="rrf")
    >>> {d: round(s, 6) for d, s in r.to_dict()["q"].items()}
    {'d2': 0.032522, 'd1': 0.016393, 'd4': 0.016129, 'd3': 0.015873}
    """
    return _over_retrieved(f, 1.0 / (p["k"] + np.maximum(f.pos, 1)))


def isr(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Inverse square rank: the sum of 1 / position^2 times the number of runs that retrieved the candidate.

    .. math:: s(d) = |\\{j : d \\in r_j\\}| \\sum_{j : d \\in r_j} \\mathrm{pos}_j(d)^{-2}

    Mourão, Martins and Magalhães, Comput. Med. Imaging Graph. 39, 2015, doi:10.1016/j.compmedimag.2014.05.006.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="isr").to_dict()
    {'q': {'d2': 2.5, 'd1': 1.0, 'd4': 0.25, 'd3': 0.1111111111111111}}
    """
    return np.asarray(_over_retrieved(f, _inv_pos(f) ** 2) * f.retrieved.sum(axis=1))


def log_isr(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Log ISR: the sum of 1 / position^2 times the log of the number of runs that retrieved the candidate.

    .. math:: s(d) = \\log |\\{j : d \\in r_j\\}| \\sum_{j : d \\in r_j} \\mathrm{pos}_j(d)^{-2}

    Mourão, Martins and Magalhães 2015 (a document one run retrieved scores log 1 = 0).

    >>> from rankmeter.fusion import fuse
    >>> r = fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="log_isr")
    >>> {d: round(s, 6) for d, s in r.to_dict()["q"].items()}
    {'d2': 0.866434, 'd4': 0.0, 'd3': 0.0, 'd1': 0.0}
    """
    return np.asarray(_over_retrieved(f, _inv_pos(f) ** 2) * np.log(f.retrieved.sum(axis=1)))


def logn_isr(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """LogN ISR: as Log ISR with log(count + sigma), so a document one run retrieved still scores.

    .. math:: s(d) = \\log(|\\{j : d \\in r_j\\}| + \\sigma) \\sum_{j : d \\in r_j} \\mathrm{pos}_j(d)^{-2}

    Mourão, Martins and Magalhães 2015; sigma = 0.01 by default (ranx).

    >>> from rankmeter.fusion import fuse
    >>> r = fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="logn_isr")
    >>> {d: round(s, 6) for d, s in r.to_dict()["q"].items()}
    {'d2': 0.872668, 'd1': 0.00995, 'd4': 0.002488, 'd3': 0.001106}
    """
    return np.asarray(_over_retrieved(f, _inv_pos(f) ** 2) * np.log(f.retrieved.sum(axis=1) + p["sigma"]))


def rbc(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Rank-biased centroid: the sum of (1 - phi) phi^(position - 1) over the runs that retrieved the candidate.

    .. math:: s(d) = \\sum_{j : d \\in r_j} (1 - \\phi)\\,\\phi^{\\mathrm{pos}_j(d) - 1}

    Bailey, Moffat, Scholer and Thomas, SIGIR 2017, doi:10.1145/3077136.3080839.

    >>> from rankmeter.fusion import fuse
    >>> r = fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="rbc",
    ...          params={"phi": 0.5})
    >>> r.to_dict()
    {'q': {'d2': 0.75, 'd1': 0.5, 'd4': 0.25, 'd3': 0.125}}
    """
    phi = p["phi"]
    return _over_retrieved(f, (1.0 - phi) * phi ** (np.maximum(f.pos, 1) - 1.0))


def _borda_points(f: Frame) -> np.ndarray:
    """Borda points: N - position + 1 for a retrieved document, (N - n + 1) / 2 for the others (N candidates,
    n retrieved by the run)."""
    N = f.n_cand[f.query].astype(np.float64)[:, None]
    n = f.run_len[f.query].astype(np.float64)
    return np.asarray(np.where(f.retrieved, N - f.pos + 1.0, (N - n + 1.0) / 2.0))


def bordafuse(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """BordaFuse: each run gives N points to its first document, N - 1 to its second..., and shares the
    points left equally among the candidates it did not retrieve; the sum over runs.

    .. math:: s(d) = \\sum_j \\begin{cases} N - \\mathrm{pos}_j(d) + 1 & d \\in r_j \\\\
              (N - |r_j| + 1) / 2 & \\text{otherwise} \\end{cases}

    Aslam and Montague, SIGIR 2001, doi:10.1145/383952.384007 (N: the query's candidates).

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="bordafuse").to_dict()
    {'q': {'d2': 7.0, 'd1': 5.5, 'd4': 4.0, 'd3': 3.5}}
    """
    return np.asarray(_borda_points(f).sum(axis=1))


def w_bordafuse(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Weighted BordaFuse: each run's Borda points times its weight.

    Aslam and Montague, SIGIR 2001, doi:10.1145/383952.384007.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="w_bordafuse",
    ...      weights=[1, 2]).to_dict()
    {'q': {'d2': 11.0, 'd4': 7.0, 'd1': 7.0, 'd3': 5.0}}
    """
    return _dot(_borda_points(f), w)


def _majority(rows: dict[int, tuple[int, ...]], ids: dict[int, bytes], weights: list[float],
              m: int) -> Callable[[int, int], int]:
    """The pairwise comparison: -1 when the runs' (weighted) majority ranks x above y, 1 below; without a
    majority, the tie rule (the larger id by bytes first). Every pair is decided: a tournament."""

    def cmp(x: int, y: int) -> int:
        px, py = rows[x], rows[y]
        net = 0.0
        for j in range(m):
            if px[j] < py[j]:
                net += weights[j]
            elif py[j] < px[j]:
                net -= weights[j]
        if net == 0:
            return -1 if ids[x] > ids[y] else (1 if ids[x] < ids[y] else 0)
        return -1 if net > 0 else 1

    return cmp


def _condorcet(f: Frame, w: np.ndarray) -> np.ndarray:
    out = np.zeros(len(f.query))
    items = f.items.to_pylist()
    big = np.iinfo(np.int64).max
    pos = np.where(f.retrieved, f.pos, big)
    weights = [float(x) for x in w]
    m = f.n_runs
    for q in range(len(f.offsets) - 1):
        a, b = int(f.offsets[q]), int(f.offsets[q + 1])
        # candidates in the tie rule's order (item id descending by bytes), then sorted by the majority
        ids = {i: items[i].encode() for i in range(a, b)}
        order = sorted(range(a, b), key=lambda i: ids[i], reverse=True)
        rows = {i: tuple(int(x) for x in pos[i]) for i in order}
        ranked = sorted(order, key=cmp_to_key(_majority(rows, ids, weights, m)))
        n = b - a
        for r, i in enumerate(ranked):
            out[i] = n - r
    return out


def condorcet(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Condorcet-fuse: candidates sorted by pairwise majority (d above e when more runs rank d above e).

    A run ranks every document it retrieved above those it did not; a run that retrieved
    neither of two documents abstains. A pair without a majority is decided by the tie rule
    (the larger item id by bytes first), so every pair is decided (a tournament). The
    candidates, in the tie rule's order, are sorted by that comparison (Python's merge sort):
    where the majority has cycles the result is still a path through the majority graph, each
    document preferred to the next, as Montague and Aslam show any such sort gives, and it is the
    same in every process (ranx's is not). The fused score is N - rank + 1.

    Montague and Aslam, CIKM 2002, doi:10.1145/584792.584881.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="condorcet").to_dict()
    {'q': {'d2': 4.0, 'd4': 3.0, 'd1': 2.0, 'd3': 1.0}}
    """
    return _condorcet(f, np.ones(f.n_runs))


def w_condorcet(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Weighted Condorcet-fuse: each run's vote counts its weight.

    Montague and Aslam, CIKM 2002, doi:10.1145/584792.584881.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="w_condorcet",
    ...      weights=[1, 2]).to_lists()
    {'q': ['d2', 'd4', 'd1', 'd3']}
    """
    return _condorcet(f, w)


# --------------------------------------------------------------------------- trained (position probabilities)

def _per_run(values: list[np.ndarray], f: Frame, index: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """``values[j][index[:, j]]`` where ``valid``, else 0."""
    out = np.zeros(f.pos.shape)
    for j, v in enumerate(values):
        ok = valid[:, j] & (index[:, j] < len(v))
        out[ok, j] = np.asarray(v)[index[ok, j]]
    return out


def probfuse(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """ProbFuse: each run's list cut into S segments; a document in segment k scores P(rel | k) / k.

    .. math:: s(d) = \\sum_{j : d \\in r_j} \\frac{P_j(\\mathrm{rel} \\mid k_j(d))}{k_j(d)}, \\quad
              k_j(d) = \\lceil \\mathrm{pos}_j(d) / \\lceil |r_j| / S \\rceil \\rceil

    Lillis, Toolan, Collier and Dunnion, SIGIR 2006, doi:10.1145/1148170.1148197. ``probs``: for each
    run, the S trained probabilities (:func:`rankmeter.fusion.fuse_optimize`).

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="probfuse",
    ...      params={"probs": [[0.8, 0.4], [0.6, 0.2]]}).to_dict()
    {'q': {'d2': 1.4, 'd1': 0.8, 'd3': 0.2, 'd4': 0.1}}
    """
    probs = p["probs"]
    seg = np.zeros(f.pos.shape, dtype=np.int64)
    for j, v in enumerate(probs):
        size = np.maximum(-(-f.run_len[f.query, j] // len(v)), 1)  # ceil(n / S)
        seg[:, j] = (np.maximum(f.pos[:, j], 1) - 1) // size
    prob = _per_run(probs, f, seg, f.retrieved)
    return np.asarray((prob / (seg + 1)).sum(axis=1))


def segfuse(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """SegFuse: segments of growing size (5, 10, 20... positions); a document scores P(rel | segment) times
    its normalised score + 1.

    .. math:: s(d) = \\sum_{j : d \\in r_j} P_j(\\mathrm{rel} \\mid k_j(d)) \\, (\\hat s_j(d) + 1)

    Shokouhi, ECIR 2007, doi:10.1007/978-3-540-71496-5_30 (segment k holds 10 * 2^(k-1) - 5 positions;
    a position past the tenth segment scores 0).

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="segfuse",
    ...      params={"probs": [[0.5] * 10, [0.25] * 10]}).to_dict()
    {'q': {'d2': 1.25, 'd1': 1.0, 'd3': 0.5, 'd4': 0.25}}
    """
    seg = np.searchsorted(SEGFUSE_BOUNDS, np.maximum(f.pos, 1) - 1, side="right") - 1
    prob = _per_run(p["probs"], f, seg, f.retrieved)
    return np.asarray((prob * (f.scores + 1.0)).sum(axis=1))


def posfuse(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """PosFuse: a document scores the trained probability that the run's document at its position is
    relevant (0 past the trained positions).

    .. math:: s(d) = \\sum_{j : d \\in r_j} P_j(\\mathrm{rel} \\mid \\mathrm{pos}_j(d))

    Lillis, Zhang, Toolan, Collier, Leonard and Dunnion, SIGIR 2010, doi:10.1145/1835449.1835508.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="posfuse",
    ...      params={"probs": [[0.8, 0.4, 0.2], [0.6, 0.3]]}).to_dict()
    {'q': {'d2': 1.0, 'd1': 0.8, 'd4': 0.3, 'd3': 0.2}}
    """
    return np.asarray(_per_run(p["probs"], f, np.maximum(f.pos, 1) - 1, f.retrieved).sum(axis=1))


def slidefuse(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """SlideFuse: PosFuse's probabilities averaged over a window of w positions either side.

    .. math:: s(d) = \\sum_{j : d \\in r_j} \\frac{1}{b - a + 1} \\sum_{i=a}^{b} P_j(\\mathrm{rel} \\mid i),
              \\ a = \\max(\\mathrm{pos} - w, 1),\\ b = \\min(\\mathrm{pos} + w, |r_j|)

    Lillis, Zhang, Toolan, Collier, Leonard and Dunnion, ECIR 2008, doi:10.1007/978-3-540-78646-7_33
    (probabilities past the trained positions count 0).

    >>> from rankmeter.fusion import fuse
    >>> r = fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="slidefuse",
    ...      params={"probs": [[0.8, 0.4, 0.3], [0.6, 0.2]], "w": 1})
    >>> {d: round(s, 6) for d, s in r.to_dict()["q"].items()}
    {'d2': 0.9, 'd1': 0.6, 'd4': 0.4, 'd3': 0.35}
    """
    wd = p["w"]
    out = np.zeros(len(f.query))
    for j, v in enumerate(p["probs"]):
        r = f.retrieved[:, j]
        pos0 = f.pos[r, j] - 1
        n = f.run_len[f.query[r], j]
        a = np.maximum(pos0 - wd, 0)
        b = np.minimum(pos0 + wd, n - 1)
        csum = np.concatenate(([0.0], np.cumsum(np.asarray(v, dtype=np.float64))))
        hi = np.minimum(b + 1, len(v))
        lo = np.minimum(a, len(v))
        out[r] += (csum[hi] - csum[lo]) / (b - a + 1)
    return out


def bayesfuse(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """BayesFuse: the sum of each run's trained log-odds of relevance at the document's position.

    .. math:: s(d) = \\sum_j \\log \\frac{P_j(\\mathrm{rel} \\mid \\mathrm{pos}_j(d))}
              {P_j(\\lnot\\mathrm{rel} \\mid \\mathrm{pos}_j(d))}

    Aslam and Montague, SIGIR 2001, doi:10.1145/383952.384007. A run that did not retrieve the
    document (or retrieved it past the trained positions) adds log(0.001 / 0.999), as in ranx.

    >>> from rankmeter.fusion import fuse
    >>> r = fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="bayesfuse",
    ...          params={"log_odds": [[1.0, 0.5, 0.0], [2.0, -1.0]]})
    >>> {d: round(s, 4) for d, s in r.to_dict()["q"].items()}
    {'d2': 2.5, 'd1': -5.9068, 'd3': -6.9068, 'd4': -7.9068}
    """
    out = np.zeros(len(f.query))
    for j, v in enumerate(p["log_odds"]):
        idx = np.maximum(f.pos[:, j], 1) - 1
        ok = f.retrieved[:, j] & (idx < len(v))
        col = np.full(len(f.query), MIN_LOG_ODDS)
        col[ok] = np.asarray(v)[idx[ok]]
        out += col
    return out


def mapfuse(f: Frame, w: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """MAPFuse: each run's trained MAP divided by the document's position.

    .. math:: s(d) = \\sum_{j : d \\in r_j} \\mathrm{MAP}_j / \\mathrm{pos}_j(d)

    Lillis, Zhang, Toolan, Collier, Leonard and Dunnion, SIGIR 2010, doi:10.1145/1835449.1835508.

    >>> from rankmeter.fusion import fuse
    >>> fuse([{"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"q": {"d2": 0.9, "d4": 0.5}}], method="mapfuse",
    ...      params={"map_scores": [0.4, 0.2]}).to_dict()
    {'q': {'d2': 0.4, 'd1': 0.4, 'd3': 0.13333333333333333, 'd4': 0.1}}
    """
    return _over_retrieved(f, np.asarray(p["map_scores"], dtype=np.float64)[None, :] * _inv_pos(f))


# --------------------------------------------------------------------------- the table

def _grid(low: float, high: float, step: float) -> tuple[float, ...]:
    n = int(round((high - low) / step))
    return tuple(round(low + i * step, 10) for i in range(n + 1))


_COUNT = Param("count", "choice", "which runs count: those that retrieved the document (ranx; Lee 1997) or those "
               "that gave it a non-zero normalised score (Fox and Shaw)", default="retrieved",
               choices=("retrieved", "nonzero"))
_PROBS = Param("probs", "arrays", "per run, the trained probabilities of relevance (by segment or position)")
_FOX = "Fox and Shaw, TREC-2, NIST SP 500-215, 1994"
_LEE = "Lee, SIGIR 1997, doi:10.1145/258525.258587"
_MOURAO = "Mourão, Martins and Magalhães, Comput. Med. Imaging Graph. 39, 2015, doi:10.1016/j.compmedimag.2014.05.006"
_WU = "Wu and Crestani, CIKM 2002, doi:10.1145/584792.584908"
_ASLAM = "Aslam and Montague, SIGIR 2001, doi:10.1145/383952.384007"
_MONTAGUE = "Montague and Aslam, CIKM 2002, doi:10.1145/584792.584881"
_LILLIS10 = "Lillis et al., SIGIR 2010, doi:10.1145/1835449.1835508"
_RRF_K = Param("k", "number", "the constant added to every position (Cormack et al.: 60)", range=Range(0),
               default=60, grid=tuple(range(10, 101, 10)))

_ZERO = "0 (after normalisation)"
_NONE = "nothing (not counted)"
_NOTHING = "nothing"

METHODS: tuple[FusionMethod, ...] = (
    FusionMethod("rrf", ("reciprocal_rank_fusion", "RRF"), "Reciprocal rank fusion", "positions",
                 "sum_j 1 / (k + pos_j(d))", _NOTHING, "Cormack, Clarke and Büttcher, SIGIR 2009, "
                 "doi:10.1145/1571941.1572114", rrf, params=(_RRF_K,)),
    FusionMethod("sum", ("comb_sum", "combsum", "CombSUM"), "CombSUM", "scores", "sum_j s_j(d)", _ZERO,
                 _FOX, comb_sum),
    FusionMethod("mnz", ("comb_mnz", "combmnz", "CombMNZ"), "CombMNZ", "scores", "count(d) * sum_j s_j(d)", _ZERO,
                 f"{_FOX}; {_LEE}", comb_mnz, params=(_COUNT,)),
    FusionMethod("anz", ("comb_anz", "combanz", "CombANZ"), "CombANZ", "scores", "sum_j s_j(d) / count(d)", _ZERO,
                 f"{_FOX}; {_LEE}", comb_anz, params=(_COUNT,)),
    FusionMethod("max", ("comb_max", "combmax", "CombMAX"), "CombMAX", "scores", "max over the runs that scored d",
                 _NONE, _FOX, comb_max),
    FusionMethod("min", ("comb_min", "combmin", "CombMIN"), "CombMIN", "scores", "min over the runs that scored d",
                 _NONE, _FOX, comb_min),
    FusionMethod("med", ("comb_med", "combmed", "CombMED"), "CombMED", "scores",
                 "median over the runs that scored d", _NONE, _FOX, comb_med),
    FusionMethod("gmnz", ("comb_gmnz", "combgmnz", "CombGMNZ"), "CombGMNZ", "scores",
                 "count(d)^gamma * sum_j s_j(d)", _ZERO, _LEE, comb_gmnz,
                 params=(Param("gamma", "number", "the exponent of the count", grid=_grid(0.05, 1.0, 0.05)),
                         _COUNT)),
    FusionMethod("isr", ("inverse_square_rank",), "Inverse square rank", "positions",
                 "count(d) * sum_j pos_j(d)^-2", _NOTHING, _MOURAO, isr),
    FusionMethod("log_isr", ("logisr",), "Log ISR", "positions", "log(count(d)) * sum_j pos_j(d)^-2", _NOTHING,
                 _MOURAO, log_isr),
    FusionMethod("logn_isr", ("lognisr",), "LogN ISR", "positions", "log(count(d) + sigma) * sum_j pos_j(d)^-2",
                 _NOTHING, _MOURAO, logn_isr,
                 params=(Param("sigma", "number", "added to the count inside the log", range=Range(0, 1),
                               default=0.01, grid=_grid(0.05, 1.0, 0.05)),)),
    FusionMethod("wsum", ("weighted_sum", "linear", "combsum_weighted"), "Weighted sum", "scores",
                 "sum_j w_j s_j(d)", _ZERO, "Vogt and Cottrell, Information Retrieval 1(3), 1999, "
                 "doi:10.1023/A:1009980820262", wsum, weighted=True),
    FusionMethod("wmnz", ("weighted_mnz",), "WMNZ", "scores", "(sum of the weights of the runs that retrieved d) * "
                 "sum_j s_j(d)", _ZERO, _WU, wmnz, weighted=True),
    FusionMethod("mixed", (), "Mixed", "scores", "sqrt(count(d)) * sum_j w_j s_j(d)", _ZERO, _WU, mixed,
                 weighted=True),
    FusionMethod("rbc", ("rank_biased_centroid",), "Rank-biased centroid", "positions",
                 "sum_j (1 - phi) phi^(pos_j(d) - 1)", _NOTHING, "Bailey, Moffat, Scholer and Thomas, SIGIR 2017, "
                 "doi:10.1145/3077136.3080839", rbc,
                 params=(Param("phi", "number", "the persistence", range=Range(0, 1, low_open=True, high_open=True),
                               grid=_grid(0.05, 0.95, 0.05)),)),
    FusionMethod("bordafuse", ("borda", "borda_fuse", "BordaFuse"), "BordaFuse", "positions",
                 "sum_j (N - pos_j(d) + 1), unretrieved (N - n_j + 1) / 2", "(N - n_j + 1) / 2 points", _ASLAM,
                 bordafuse),
    FusionMethod("w_bordafuse", ("weighted_bordafuse", "weighted_borda"), "Weighted BordaFuse", "positions",
                 "sum_j w_j Borda_j(d)", "(N - n_j + 1) / 2 points", _ASLAM, w_bordafuse, weighted=True),
    FusionMethod("condorcet", ("condorcet_fuse", "condorcetfuse", "Condorcet-fuse"), "Condorcet-fuse", "positions",
                 "sort by pairwise majority; N - rank + 1", "ranked below the run's documents", _MONTAGUE, condorcet),
    FusionMethod("w_condorcet", ("weighted_condorcet",), "Weighted Condorcet-fuse", "positions",
                 "sort by weighted pairwise majority; N - rank + 1", "ranked below the run's documents", _MONTAGUE,
                 w_condorcet, weighted=True),
    FusionMethod("probfuse", ("prob_fuse", "ProbFuse"), "ProbFuse", "positions", "sum_j P_j(rel | k) / k",
                 _NOTHING, "Lillis et al., SIGIR 2006, doi:10.1145/1148170.1148197", probfuse,
                 needs_training=True, params=(_PROBS,),
                 hyper=(Param("n_segments", "int", "segments per list", range=Range(1), grid=tuple(range(1, 51))),)),
    FusionMethod("segfuse", ("seg_fuse", "SegFuse"), "SegFuse", "positions", "sum_j P_j(rel | k) (s_j(d) + 1)",
                 _NOTHING, "Shokouhi, ECIR 2007, doi:10.1007/978-3-540-71496-5_30", segfuse, needs_training=True,
                 params=(_PROBS,)),
    FusionMethod("slidefuse", ("slide_fuse", "SlideFuse"), "SlideFuse", "positions",
                 "sum_j mean of P_j(rel | i) for i in [pos - w, pos + w]", _NOTHING,
                 "Lillis et al., ECIR 2008, doi:10.1007/978-3-540-78646-7_33", slidefuse, needs_training=True,
                 params=(_PROBS, Param("w", "int", "the window's half width", range=Range(0),
                                       grid=tuple(range(0, 21))))),
    FusionMethod("posfuse", ("pos_fuse", "PosFuse"), "PosFuse", "positions", "sum_j P_j(rel | pos_j(d))", _NOTHING,
                 _LILLIS10, posfuse, needs_training=True, params=(_PROBS,)),
    FusionMethod("bayesfuse", ("bayes_fuse", "BayesFuse"), "BayesFuse", "positions",
                 "sum_j log-odds_j(rel | pos_j(d))", "log(0.001 / 0.999)", _ASLAM, bayesfuse, needs_training=True,
                 params=(Param("log_odds", "arrays", "per run, the trained log-odds of relevance by position"),)),
    FusionMethod("mapfuse", ("map_fuse", "MAPFuse"), "MAPFuse", "positions", "sum_j MAP_j / pos_j(d)", _NOTHING,
                 _LILLIS10, mapfuse, needs_training=True,
                 params=(Param("map_scores", "vector", "per run, its MAP on the training queries"),)),
)

_BY_NAME: dict[str, FusionMethod] = {}
for _m in METHODS:
    for _n in (_m.name, *_m.aliases):
        _BY_NAME[_n.lower()] = _m


def method_by_name(name: str) -> FusionMethod:
    """The method a name or alias (any case) stands for, or a ParameterError listing them."""
    m = _BY_NAME.get(name.lower()) if isinstance(name, str) else None
    if m is None:
        raise ParameterError(f"The 'method' parameter of fuse must be one of {', '.join(x.name for x in METHODS)} "
                             f"(or an alias: comb_sum, combmnz, weighted_bordafuse...). Got {name!r} instead.")
    return m
