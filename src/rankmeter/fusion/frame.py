"""The runs joined into one frame: every (query, document) candidate, a column per run.

A fusion reads, for each candidate (a document some run retrieved for a query, over
the union of the runs' queries) and each run: the normalised score, whether the run
retrieved the document, and its position in the run's ranking. :func:`join` builds that
once, with the runs' queries and items coded together (no loop over queries), and
:func:`normalize` applies a normalisation (:data:`NORMS`) to it.

Positions are each run's ranking of the documents it retrieved by normalised score
with the tie rule (:mod:`rankmeter.data.order`: score descending, ties by item id
descending), so they do not depend on the input's row order. For every normalisation
but ``min-max-inverted`` that is the run's own ranking.

>>> from rankmeter import Run
>>> a = Run.from_columns(["q", "q"], ["d1", "d2"], [2.0, 1.0])
>>> b = Run.from_columns(["q", "p"], ["d2", "d9"], [5.0, 1.0])
>>> f = normalize(join([a, b], ("a", "b")), "min-max")
>>> f.query_ids.to_pylist(), f.items.to_pylist(), f.retrieved.tolist(), f.pos.tolist()
(['q', 'p'], ['d1', 'd2', 'd9'], [[True, False], [True, True], [False, True]], [[1, 0], [2, 1], [0, 1]])

A query's candidates are in item id order (bytes), whatever the input's order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import pyarrow as pa

from .. import _compute as C
from ..data import Run
from ..data.ids import as_string_array, encode_unsorted, ints, take_rows, to_numpy
from ..data.order import rank_order
from .spec import Normalization

__all__ = ["Frame", "NORMS", "join", "normalize", "norm_by_name"]

_EPS = 1e-9  # ranx's floor for a normaliser's denominator

NORMS: tuple[Normalization, ...] = (
    Normalization("min-max", ("min_max", "minmax"), "(s - min) / max(max - min, 1e-9)",
                  "not scored", "Lee 1997, doi:10.1145/258525.258587"),
    Normalization("min-max-inverted", ("min_max_inverted",), "(max - s) / max(max - min, 1e-9) (lower is better)",
                  "not scored", "ranx (for distances)"),
    Normalization("max", (), "s / max(max, 1e-9)", "not scored", "Lee 1997"),
    Normalization("sum", (), "(s - min) / max(sum(s) - n min, 1e-9)", "not scored",
                  "Montague and Aslam 2001, doi:10.1145/502585.502657"),
    Normalization("zmuv", ("z", "z-score"), "(s - mean) / max(std, 1e-9) (std with ddof 0)", "not scored",
                  "Montague and Aslam 2001"),
    Normalization("rank", (), "1 - (p - 1) / n (p: position, n: documents the run retrieved)", "not scored",
                  "Renda and Straccia 2003, doi:10.1145/952532.952689"),
    Normalization("borda", (), "1 - (p - 1) / N (N: candidates of the query)",
                  "(N - n + 1) / 2N: the mean of the points left (scored)",
                  "Aslam and Montague 2001, doi:10.1145/383952.384007", fills=True),
    Normalization("none", ("None",), "s (the run's scores as they are)", "not scored", ""),
)


def norm_by_name(name: str | None) -> Normalization:
    from .._errors import ParameterError

    key = "none" if name is None else name
    for n in NORMS:
        if key == n.name or key in n.aliases:
            return n
    raise ParameterError(f"The 'norm' parameter of fuse must be one of {', '.join(n.name for n in NORMS)} or None. "
                         f"Got {name!r} instead.")


@dataclass(frozen=True)
class Frame:
    """Candidates (rows, grouped by query in ``query_ids`` order) by runs (columns).

    ``scores``: normalised scores (0 where not scored); ``scored``: the run gives the candidate a
    score (it retrieved it, or the normalisation fills it: Borda); ``retrieved``: the run retrieved
    it; ``pos``: its 1-based position in the run (0: not retrieved); ``raw``: the input scores (nan
    where not retrieved); ``run_len[q, j]``: documents run ``j`` retrieved for query ``q``.
    """

    names: tuple[str, ...]
    query_ids: pa.Array
    offsets: np.ndarray
    query: np.ndarray  # each candidate's query code
    items: pa.Array
    raw: np.ndarray
    scores: np.ndarray
    scored: np.ndarray
    retrieved: np.ndarray
    pos: np.ndarray
    run_len: np.ndarray
    norm: str = "none"

    @property
    def n_runs(self) -> int:
        return len(self.names)

    @property
    def n_cand(self) -> np.ndarray:
        """Candidates of each query (N)."""
        return np.diff(self.offsets)

    def missing_queries(self) -> list[tuple[str, int]]:
        """(run name, how many queries of the union it has no document for), for runs that lack some."""
        lacking = (self.run_len == 0).sum(axis=0)
        return [(self.names[j], int(lacking[j])) for j in range(self.n_runs) if lacking[j]]


def join(runs: Sequence[Run], names: Sequence[str]) -> Frame:
    """The runs' candidates over the union of their queries (queries in order of first appearance)."""
    m = len(runs)
    qcodes_all, qvocab = encode_unsorted(pa.concat_arrays([as_string_array(r.query_ids) for r in runs]))
    starts = np.cumsum([0] + [r.n_queries for r in runs])
    row_q = np.concatenate([qcodes_all[starts[j]:starts[j + 1]][r.row_queries()] for j, r in enumerate(runs)])
    row_item = pa.concat_arrays([as_string_array(r.item_rows) for r in runs])
    icodes, ivocab = encode_unsorted(row_item)
    n_items = max(len(ivocab), 1)
    keys = row_q.astype(np.int64) * n_items + icodes
    uniq, inv = np.unique(keys, return_inverse=True)
    inv = inv.reshape(-1)
    n, nq = len(uniq), len(qvocab)
    query = uniq // n_items
    items = C.take(ivocab, ints(uniq % n_items))
    # a query's candidates in item id order (bytes): sums over them then add in an order that depends on
    # the query's own rows only, not on the input's order or on the other queries read with it
    perm = to_numpy(C.sort_indices(pa.table({"q": ints(query), "item": items}),
                                   [("q", "ascending"), ("item", "ascending")])).astype(np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[perm] = np.arange(n)
    inv, query, items = rank[inv], query[perm], C.take(items, ints(perm))
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(np.bincount(query, minlength=nq), out=offsets[1:])
    raw = np.full((n, m), np.nan)
    pos = np.zeros((n, m), dtype=np.int64)
    run_len = np.zeros((nq, m), dtype=np.int64)
    bounds = np.cumsum([0] + [len(r) for r in runs])
    for j, r in enumerate(runs):
        rows = inv[bounds[j]:bounds[j + 1]]
        raw[rows, j] = r.scores
        within = np.arange(len(r), dtype=np.int64) - np.repeat(r.offsets[:-1], r.lengths())
        pos[rows, j] = within + 1
        run_len[:, j] = np.bincount(row_q[bounds[j]:bounds[j + 1]], minlength=nq)
    retrieved = pos > 0
    return Frame(tuple(names), qvocab, offsets, query, items, raw, np.where(retrieved, raw, 0.0), retrieved.copy(),
                 retrieved, pos, run_len)


def _seg(ufunc: np.ufunc, values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``ufunc`` reduced over each query's candidates (every query has at least one).

    Sums add each query's values one after the other (``bincount``), so a query's sum is the same
    bits whatever other queries share the array (a blocked or pairwise sum is not): chunked fusion
    gives the in-memory numbers exactly."""
    if not len(values):
        return np.zeros(len(offsets) - 1)
    if ufunc is np.add:
        n = len(offsets) - 1
        return np.bincount(np.repeat(np.arange(n), np.diff(offsets)), weights=values, minlength=n)
    return np.asarray(ufunc.reduceat(values, offsets[:-1]))


def normalize(frame: Frame, norm: str | None) -> Frame:
    """The frame with its scores normalised per run and query, and positions by the normalised scores."""
    spec = norm_by_name(norm)
    q, off, N = frame.query, frame.offsets, frame.n_cand
    ret = frame.retrieved
    out = np.zeros_like(frame.raw)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for j in range(frame.n_runs):
            r = ret[:, j]
            s = np.where(r, frame.raw[:, j], 0.0)
            n = frame.run_len[:, j].astype(np.float64)
            if spec.name == "none":
                v = s
            elif spec.name in ("min-max", "min-max-inverted", "sum"):
                mn = _seg(np.minimum, np.where(r, s, np.inf), off)
                mx = _seg(np.maximum, np.where(r, s, -np.inf), off)
                if spec.name == "sum":
                    den = np.maximum(_seg(np.add, s, off) - mn * n, _EPS)
                    v = (s - mn[q]) / den[q]
                else:
                    den = np.maximum(mx - mn, _EPS)
                    v = (s - mn[q]) / den[q] if spec.name == "min-max" else (mx[q] - s) / den[q]
            elif spec.name == "max":
                mx = _seg(np.maximum, np.where(r, s, -np.inf), off)
                v = s / np.maximum(mx, _EPS)[q]
            elif spec.name == "zmuv":
                mean = _seg(np.add, s, off) / n
                dev = np.where(r, s - mean[q], 0.0)
                std = np.sqrt(_seg(np.add, dev * dev, off) / n)
                v = dev / np.maximum(std, _EPS)[q]
            elif spec.name == "rank":
                v = 1.0 - (frame.pos[:, j] - 1) / n[q]
            else:  # borda
                v = np.where(r, 1.0 - (frame.pos[:, j] - 1) / N[q], 0.5 - (n[q] - 1) / (2.0 * N[q]))
            out[:, j] = np.where(r | spec.fills, v, 0.0)
    scored = np.ones_like(ret) if spec.fills else ret.copy()
    pos = _positions(frame, out) if spec.name == "min-max-inverted" else frame.pos
    return replace(frame, scores=out, scored=scored, pos=pos, norm=spec.name)


def _positions(frame: Frame, values: np.ndarray) -> np.ndarray:
    """Each run's 1-based positions of the documents it retrieved, ranked by ``values`` with the tie rule."""
    pos = np.zeros_like(frame.pos)
    for j in range(frame.n_runs):
        rows = np.flatnonzero(frame.retrieved[:, j])
        if not len(rows):
            continue
        qc = frame.query[rows]
        perm, _ = rank_order(qc, values[rows, j], take_rows(frame.items, rows))
        ordered = rows if perm is None else rows[perm]
        counts = np.bincount(qc, minlength=len(frame.offsets) - 1)
        first = np.concatenate(([0], np.cumsum(counts)[:-1]))
        pos[ordered, j] = np.arange(len(rows)) - np.repeat(first, counts) + 1
    return pos
