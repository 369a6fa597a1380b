"""Full ranking from embeddings: scores in blocks of users, each block's exact top k kept."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .._errors import InputError, ParameterError
from ..data import Run
from ._evaluate import ranked_run, tie_notes
from ._inputs import as_exclusion, as_ids, load_torch, same_device
from ._select import SELECTIONS, item_rank, select_topk

if TYPE_CHECKING:
    import torch

__all__ = ["block_users", "free_bytes", "topk"]

_BYTES_PER_CELL = 24  # the block's scores, a 64-bit key, a mask byte and temporaries, per (user, item)


def free_bytes(device: torch.device) -> int:
    """Memory free for a block: the CUDA device's free memory, else the host's available memory."""
    torch = load_torch()
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 1 << 30


def block_users(n_items: int, device: torch.device | None, max_bytes: int | None = None) -> int:
    """Users per block: a quarter of the free memory (at most ``max_bytes``) over the bytes one user's
    row of scores and keys takes (no device: 1 GiB).

    >>> block_users(1000, None, max_bytes=24_000 * 10)
    10
    """
    budget = free_bytes(device) // 4 if device is not None else 1 << 30
    if max_bytes is not None:
        budget = min(budget, int(max_bytes))
    return max(1, budget // (max(n_items, 1) * _BYTES_PER_CELL))


def _check_int(value: Any, name: str, low: int, none_ok: bool = False) -> None:
    if value is None and none_ok:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ParameterError(f"The '{name}' parameter of rankmeter.torch.topk must be an int >= {low}"
                             f"{' or None' if none_ok else ''}. Got {value!r} instead.")


def topk(
    user_emb: torch.Tensor,
    item_emb: torch.Tensor,
    k: int,
    *,
    exclude: Any = None,
    item_ids: Sequence[str] | None = None,
    user_ids: Sequence[str] | None = None,
    batch_users: int | None = None,
    similarity: str = "dot",
    selection: str = "auto",
    max_bytes: int | None = None,
) -> Run:
    r"""Each user's exact top ``k`` items by embedding similarity, as a :class:`~rankmeter.Run`.

    Scores :math:`s_{ui} = \langle e_u, e_i \rangle` (``similarity="dot"``) or
    :math:`\langle e_u, e_i \rangle / (\lVert e_u \rVert \lVert e_i \rVert)` (``"cosine"``; a zero
    vector has cosine 0 with everything, counted in a note) are computed for a block
    of users at a time, in the embeddings' dtype and on their device, so the whole
    matrix is never held; each block's top k is selected as
    :func:`rankmeter.torch.evaluate` selects it (equal scores: item id descending by
    bytes; excluded items never listed). ``batch_users``: users per block; by default
    as many as fit in a quarter of the device's free memory (at most ``max_bytes``),
    at about 24 bytes per (user, item). The run's notes say for how many users the
    k-th and (k+1)-th scores are equal.

    >>> import pytest; torch = pytest.importorskip("torch")  # (skipped where torch is absent)
    >>> import rankmeter.torch as rmt
    >>> users = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> items = torch.tensor([[2.0, 0.0], [1.0, 1.0], [0.0, 3.0]])
    >>> rmt.topk(users, items, 2, item_ids=["a", "b", "c"]).to_lists()
    {'0': ['a', 'b'], '1': ['c', 'b']}
    """
    torch = load_torch()
    func = "rankmeter.torch.topk"
    for name, t in (("user_emb", user_emb), ("item_emb", item_emb)):
        if not isinstance(t, torch.Tensor):
            raise ParameterError(f"The '{name}' parameter of {func} must be a torch.Tensor. "
                                 f"Got {type(t).__name__} instead.")
        if t.dim() != 2:
            raise InputError(f"{name} must be 2-D (rows x dimensions); found shape {tuple(t.shape)}", source=name)
        if not t.dtype.is_floating_point:
            raise InputError(f"{name} must be a floating tensor; found {t.dtype}", source=name)
    same_device(user_emb.device, item_emb, "item_emb", "user_emb")
    if user_emb.shape[1] != item_emb.shape[1]:
        raise InputError(f"user_emb has {user_emb.shape[1]} dimensions and item_emb {item_emb.shape[1]}: they must "
                         "agree", source="item_emb")
    if user_emb.dtype != item_emb.dtype:
        raise InputError(f"user_emb is {user_emb.dtype} and item_emb {item_emb.dtype}: give both one dtype",
                         source="item_emb")
    _check_int(k, "k", 1)
    _check_int(batch_users, "batch_users", 1, none_ok=True)
    _check_int(max_bytes, "max_bytes", 1, none_ok=True)
    if similarity not in ("dot", "cosine"):
        raise ParameterError(f"The 'similarity' parameter of {func} must be 'dot' or 'cosine'. "
                             f"Got {similarity!r} instead.")
    if selection not in SELECTIONS:
        raise ParameterError(f"The 'selection' parameter of {func} must be 'auto', 'key' or 'margin'. "
                             f"Got {selection!r} instead.")
    n, m = int(user_emb.shape[0]), int(item_emb.shape[0])
    dev = user_emb.device
    users = as_ids(user_ids, n, "user_ids") if user_ids is not None else \
        C.cast(pa.array(np.arange(n, dtype=np.int64)), pa.string())
    items = as_ids(item_ids, m, "item_ids") if item_ids is not None else \
        C.cast(pa.array(np.arange(m, dtype=np.int64)), pa.string())
    excl = as_exclusion(exclude, n, m, dev)
    rank = torch.from_numpy(item_rank(items if item_ids is not None else None, m)).to(dev)
    notes: list[str] = []
    with torch.no_grad():
        u, it = user_emb.detach(), item_emb.detach()
        if similarity == "cosine":
            zero = int((u.norm(dim=1) == 0).sum()) + int((it.norm(dim=1) == 0).sum())
            if zero:
                notes.append(f"{zero} embeddings are zero vectors: their cosine with every vector is taken as 0")
            u = torch.nn.functional.normalize(u, dim=1)
            it = torch.nn.functional.normalize(it, dim=1)
        step = batch_users if batch_users is not None else block_users(m, dev, max_bytes)
        kk = min(k + 1, m)
        idx_parts, score_parts, valid_parts = [], [], []
        for a in range(0, n, step):
            b = min(n, a + step)
            s = u[a:b] @ it.T
            sel = select_topk(s, kk, rank, excl, method=selection, cells=(b - a) * m, row0=a, check=k)
            if sel.bad:
                raise InputError(f"the scores of users {a} to {b - 1} hold {sel.bad} values that are not finite "
                                 "numbers among their top k (NaN or infinite embeddings?)", source="user_emb")
            idx_parts.append(sel.index.cpu().numpy())
            score_parts.append(sel.score.cpu().numpy())
            valid_parts.append(sel.valid.cpu().numpy())
    index = np.concatenate(idx_parts) if idx_parts else np.zeros((0, kk), dtype=np.int64)
    score = np.concatenate(score_parts) if score_parts else np.zeros((0, kk))
    valid = np.concatenate(valid_parts) if valid_parts else np.zeros(0, dtype=np.int64)
    notes += tie_notes(score, valid, [k])
    listed = np.minimum(valid, k)
    urow, ucol = np.nonzero(np.arange(index.shape[1])[None, :] < listed[:, None])
    run = ranked_run(users, items, urow, index[urow, ucol], score[urow, ucol])
    if notes:
        object.__setattr__(run, "notes", tuple(run.notes) + tuple(notes))
    return run
