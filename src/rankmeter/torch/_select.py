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
- ``"margin"`` (any floating dtype, float64 included): ``topk`` over the scores, then
  an exact resolution of the boundary: a row where more items share the k-th score
  than were taken is selected again with a key of (above the k-th score, item rank).
  The taken items are finally put in order by (score, item rank), descending.

Cells marked excluded are never selected. Rows are processed in blocks that bound the
temporary memory (a 64-bit key per cell of a block).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import torch

__all__ = ["Selection", "block_cells", "item_rank", "select_topk", "SELECTIONS"]

SELECTIONS = ("auto", "key", "margin")
_INT64_MIN = -(2**63)
_BLOCK_CELLS = 1 << 24  # cells per block of rows (a 128 MiB key block)


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


def select_topk(scores: torch.Tensor, kk: int, rank: torch.Tensor, exclude: Any = None, *,
                method: str = "auto", cells: int | None = None) -> Selection:
    """The exact top ``kk`` of every row of ``scores`` (users x items) under the tie rule.

    ``rank``: :func:`item_rank` as a tensor on the scores' device. ``exclude``: a callable
    giving the boolean mask of rows ``a:b`` (on the device), or None.
    """
    import torch

    n, m = scores.shape
    kk = min(kk, m)
    dev = scores.device
    if method == "auto":
        method = "key" if scores.dtype in (torch.float32, torch.float16, torch.bfloat16) else "margin"
    if method == "key" and scores.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        from .._errors import ParameterError

        raise ParameterError(f"The 'selection' parameter 'key' needs scores of at most 32 bits (float32, float16, "
                             f"bfloat16). Got {scores.dtype} scores: use selection='margin' or 'auto'.")
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
        mask = exclude(a, b) if exclude is not None else None
        nvalid = (m - mask.sum(dim=1)) if mask is not None else torch.full((b - a,), m, dtype=torch.int64, device=dev)
        v = torch.clamp(nvalid, max=kk)
        if kk == 0:
            idx = torch.zeros((b - a, 0), dtype=torch.int64, device=dev)
        elif method == "key":
            idx = _by_key(s, kk, rank, mask)
        else:
            idx = _by_margin(s, kk, rank, mask, nvalid)
        sel = torch.gather(s, 1, idx).to(out_dtype)
        taken = torch.arange(kk, device=dev)[None, :] < v[:, None]
        bad += (~torch.isfinite(sel) & taken).sum()
        nan += (torch.isnan(sel) & taken).sum()
        index[a:b] = idx
        score[a:b] = sel
        valid[a:b] = v
    return Selection(index=index, score=score, valid=valid, bad=int(bad), nan=int(nan))


def _by_key(s: torch.Tensor, kk: int, rank: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """One 64-bit key per cell: the score's order-preserving integer image above the item rank."""
    import torch

    bits = s.to(torch.float32).view(torch.int32)
    mag = bits & 0x7FFFFFFF
    hi = torch.where(bits < 0, -mag, mag)  # -0.0 and +0.0 both give 0; larger floats give larger integers
    hi = hi.masked_fill(mag > 0x7F800000, 0x7FFFFFFF)  # every NaN above +inf, so that it is always seen
    key = (hi.to(torch.int64) << 32) | rank[None, :]
    if mask is not None:
        key.masked_fill_(mask, _INT64_MIN)  # below every real key (those are > -2**63)
    return torch.topk(key, kk, dim=1, largest=True, sorted=True).indices


def _by_margin(s: torch.Tensor, kk: int, rank: torch.Tensor, mask: torch.Tensor | None,
               nvalid: torch.Tensor) -> torch.Tensor:
    """``topk`` over the scores, then the boundary resolved exactly and the taken items put in order."""
    import torch

    low = torch.tensor(float("-inf"), dtype=s.dtype, device=s.device)
    ms = s.masked_fill(mask, low) if mask is not None else s
    vals, idx = torch.topk(ms, kk, dim=1, largest=True, sorted=False)
    # rows with NaN among the taken: leave them as they are (the caller refuses NaN scores)
    kth = vals.amin(dim=1)
    taken_eq = (vals == kth[:, None]).sum(dim=1)
    all_eq = (ms == kth[:, None]).sum(dim=1)
    amb = torch.nonzero((all_eq > taken_eq) & (nvalid > kk)).flatten()
    if amb.numel():
        sub = ms[amb]
        t = kth[amb][:, None]
        big = torch.tensor(1 << 40, dtype=torch.int64, device=s.device)
        key = torch.where(sub > t, big, torch.where(sub == t, rank[None, :].expand_as(sub), -1))
        idx[amb] = torch.topk(key, kk, dim=1, largest=True, sorted=False).indices
        vals[amb] = torch.gather(ms[amb], 1, idx[amb])
    # order the taken items: score descending, then item rank descending (-0.0 made +0.0 first)
    r = rank[idx]
    o = torch.argsort(r, dim=1, descending=True, stable=True)
    idx, vals = torch.gather(idx, 1, o), torch.gather(vals, 1, o)
    o = torch.argsort(vals + 0.0, dim=1, descending=True, stable=True)
    return torch.gather(idx, 1, o)
