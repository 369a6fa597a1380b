"""Exact top k of a score matrix on its device, with rankmeter's tie rule.

rankmeter ranks by score descending and breaks equal scores by item id descending,
comparing the ids' UTF-8 bytes (:mod:`rankmeter.data.order`). On a device this is done
with an *item rank*: the position of each column's id in ascending byte order, so that
"a larger id first" becomes "a larger rank first".

Two selections, equal in what they pick:

- ``"key"`` (scores of at most 32 bits: float32, bfloat16, float16): one 64-bit key per
  cell, the score's order-preserving integer image in the high 32 bits and the item
  rank in the low 32 bits, then one ``topk`` over the keys. The image maps -0.0 and
  +0.0 to the same integer (rankmeter ties them) and every NaN above +inf.
- ``"margin"`` (any floating dtype, float64 included; the default): ``topk`` of a window
  of k + max(k, 32) items, put in order by (score, item rank) descending, its first k
  kept. That is exact when the window holds every item tied with the k-th score (its
  last score is lower); a row where the tie runs past the window is selected again
  over the whole row, with a key of (above the k-th score, item rank).

Both are measured by ``benchmarks/bench_torch.py``. Cells marked excluded are never
selected. Rows are processed in blocks that bound the temporary memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import torch

    from ._inputs import Exclusion

__all__ = ["Selection", "block_cells", "item_rank", "select_topk", "SELECTIONS"]

SELECTIONS = ("auto", "key", "margin")
_INT64_MIN = -(2**63)
_BLOCK_CELLS = 1 << 24  # cells per block of rows (a 128 MiB key block)
_MARGIN = 32  # the window of the margin selection: kk + max(kk, _MARGIN) items


@dataclass
class Selection:
    """The top ``kk`` columns of each row in rank order (on the scores' device).

    ``index[r, :valid[r]]`` are row r's selected columns, best first (``valid[r]`` is
    ``min(kk, number of columns not excluded)``); ``score`` holds their scores as
    given (for float16/bfloat16 converted exactly to float32). ``bad`` counts the
    selected cells whose score is not a finite number.
    """

    index: torch.Tensor
    score: torch.Tensor
    valid: torch.Tensor
    bad: int
    nan: int


def item_rank(ids: Any, n_items: int) -> np.ndarray:
    """Each column's position in ascending byte order of the item ids (the tie rule's key).

    Without ids, column j is named by the decimal text of j, so "9" sorts after "10":

    >>> item_rank(None, 11).tolist()
    [0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 2]
    """
    import pyarrow as pa

    from .. import _compute as C
    from ..data.ids import to_numpy

    arr = ids if ids is not None else C.cast(pa.array(np.arange(n_items, dtype=np.int64)), pa.string())
    order = to_numpy(C.sort_indices(arr)) if n_items else np.zeros(0, dtype=np.int64)
    rank = np.empty(n_items, dtype=np.int64)
    rank[order] = np.arange(n_items, dtype=np.int64)
    return rank


def _block_rows(n_items: int, cells: int) -> int:
    return max(1, cells // max(n_items, 1))


def block_cells(device: torch.device) -> int:
    """Cells per block of rows: on a CUDA device about a 24th of its free memory (a key, the scores and
    temporaries per cell), elsewhere 2**24 (a 128 MiB key block)."""
    import torch

    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return max(_BLOCK_CELLS, int(free) // 24)
    return _BLOCK_CELLS


def select_topk(scores: torch.Tensor, kk: int, rank: torch.Tensor, exclude: Exclusion | None = None, *,
                method: str = "auto", cells: int | None = None, row0: int = 0, check: int | None = None
                ) -> Selection:
    """The exact top ``kk`` of every row of ``scores`` (users x items) under the tie rule.

    ``rank``: :func:`item_rank` as a tensor on the scores' device. ``exclude``: the hidden cells
    (:class:`~._inputs.Exclusion`), whose row ``row0`` is the first row of ``scores``. ``check``: the
    leading positions whose scores are counted in ``bad`` and ``nan`` (default: all ``kk``).
    """
    import torch

    n, m = scores.shape
    kk = min(kk, m)
    dev = scores.device
    if method == "auto":
        method = "margin"
    if method == "key" and scores.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        from .._errors import ParameterError

        raise ParameterError(f"The 'selection' parameter 'key' needs scores of at most 32 bits (float32, float16, "
                             f"bfloat16). Got {scores.dtype} scores: use selection='margin' or 'auto'.")
    excl = exclude if exclude is not None and exclude.any else None
    out_dtype = torch.float64 if scores.dtype == torch.float64 else torch.float32
    index = torch.empty((n, kk), dtype=torch.int64, device=dev)
    score = torch.empty((n, kk), dtype=out_dtype, device=dev)
    valid = torch.empty(n, dtype=torch.int64, device=dev)
    bad = torch.zeros((), dtype=torch.int64, device=dev)
    nan = torch.zeros((), dtype=torch.int64, device=dev)
    step = _block_rows(m, block_cells(dev) if cells is None else cells)
    for a in range(0, n, step):
        b = min(n, a + step)
        s = scores[a:b]
        if kk == 0:
            idx, v = torch.zeros((b - a, 0), dtype=torch.int64, device=dev), torch.zeros(b - a, dtype=torch.int64,
                                                                                          device=dev)
        elif method == "key":
            idx, v = _by_key(s, kk, rank, excl, row0 + a, row0 + b)
        else:
            idx, v = _by_margin(s, kk, rank, excl, row0 + a, row0 + b)
        sel = torch.gather(s, 1, idx).to(out_dtype)
        taken = torch.arange(kk, device=dev)[None, :] < torch.clamp(v, max=kk if check is None else check)[:, None]
        bad += (~torch.isfinite(sel) & taken).sum()
        nan += (torch.isnan(sel) & taken).sum()
        index[a:b] = idx
        score[a:b] = sel
        valid[a:b] = v
    return Selection(index=index, score=score, valid=valid, bad=int(bad), nan=int(nan))


def _by_key(s: torch.Tensor, kk: int, rank: torch.Tensor, excl: Exclusion | None, a: int, b: int
            ) -> tuple[torch.Tensor, torch.Tensor]:
    """One 64-bit key per cell: the score's order-preserving integer image above the item rank."""
    import torch

    bits = s.to(torch.float32).view(torch.int32)
    mag = bits & 0x7FFFFFFF
    hi = torch.where(bits < 0, -mag, mag)  # -0.0 and +0.0 both give 0; larger floats give larger integers
    hi = hi.masked_fill(mag > 0x7F800000, 0x7FFFFFFF)  # every NaN above +inf, so that it is always seen
    key = (hi.to(torch.int64) << 32) | rank[None, :]
    if excl is not None:
        excl.fill_(key, a, b, _INT64_MIN)  # below every real key (those are > -2**63)
    top = torch.topk(key, kk, dim=1, largest=True, sorted=True)
    return top.indices, (top.values != _INT64_MIN).sum(dim=1)


def _by_margin(s: torch.Tensor, kk: int, rank: torch.Tensor, excl: Exclusion | None, a: int, b: int
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """``topk`` of a wider window (kk + margin) over the scores; a row whose group of scores tied with its
    kk-th runs past the window is resolved exactly over the whole row. The taken items are then put in
    order: score descending, item rank descending."""
    import torch

    m = s.shape[1]
    ms = excl.filled(s, a, b, float("-inf")) if excl is not None else s
    w = min(m, kk + max(kk, _MARGIN))
    vals, idx = torch.topk(ms, w, dim=1, largest=True, sorted=True)
    t = vals[:, kk - 1]
    # the window holds every item tied with the kk-th when its last score is below it (or it is the whole row;
    # a kk-th of -inf: fewer items than kk are left, all taken; NaN: refused by the caller)
    open_ = (vals[:, w - 1] >= t) & (t > float("-inf")) if w < m else torch.zeros_like(t, dtype=torch.bool)
    idx = _tie_order(vals, idx, rank)[:, :kk].contiguous()
    rows = torch.nonzero(open_).flatten()
    if rows.numel():
        sub = ms[rows]
        tr = t[rows][:, None]
        big = torch.tensor(1 << 40, dtype=torch.int64, device=s.device)
        key = torch.where(sub > tr, big, torch.where(sub == tr, rank[None, :].expand_as(sub), -1))
        pick = torch.topk(key, kk, dim=1, largest=True, sorted=False).indices
        pv = torch.gather(sub, 1, pick)
        o = torch.argsort(pv, dim=1, descending=True, stable=True)
        idx[rows] = _tie_order(torch.gather(pv, 1, o), torch.gather(pick, 1, o), rank)
    # how many are real: kk, unless the row has fewer items that are not hidden
    top = torch.gather(ms, 1, idx)
    seen = (top > float("-inf")) | torch.isnan(top)
    v = seen.sum(dim=1)
    short = torch.nonzero(v < kk).flatten()
    if short.numel():
        hidden = excl.counts(a, b, short) if excl is not None else torch.zeros_like(short)
        v[short] = torch.clamp(m - hidden, max=kk)  # a -inf score that is not hidden stays in, to be refused
    return idx, v


def _tie_order(vals: torch.Tensor, idx: torch.Tensor, rank: torch.Tensor) -> torch.Tensor:
    """Columns ``idx`` whose scores ``vals`` are sorted descending in each row, put in rank order: within each
    run of equal scores (-0.0 equal to +0.0), item rank descending. One sort of a 64-bit key per row: the
    run's number above the complement of the item rank."""
    import torch

    if vals.shape[1] < 2:
        return idx
    step = (vals[:, 1:] != vals[:, :-1]).to(torch.int64)
    run = torch.cat((torch.zeros_like(step[:, :1]), torch.cumsum(step, dim=1)), dim=1)
    key = (run << 32) | (0xFFFFFFFF - rank[idx])
    return torch.gather(idx, 1, torch.argsort(key, dim=1))
