"""The tie rule, written once: how rows of a query are put in rank order.

A scored run is ranked by score descending; equal scores are broken by item id
descending, comparing the ids' UTF-8 bytes (C's ``strcmp``), which is trec_eval's
rule (``form_res_rels.c``). Every reader, engine and recommender orders rows with
:func:`rank_order`; nothing else sorts rankings.

>>> import numpy as np, pyarrow as pa
>>> perm, moved = rank_order(np.array([0, 0, 0]), np.array([1.0, 2.0, 1.0]), pa.array(["a", "b", "c"]))
>>> perm.tolist()
[1, 2, 0]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .ids import ints, take_rows, to_numpy

__all__ = ["rank_order"]


def rank_order(qcodes: np.ndarray, value: np.ndarray,
                items: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Permutation to (query asc, value desc, item id desc by bytes), or None if already so.

    Also returns, when the rows were in order but for some ties, the positions of the
    tied rows (the only ones the permutation may move), else None.

    Sorting numbers is cheap; comparing ids is not. So rows are ordered by (query,
    value) with numpy, and only the rows inside groups of equal (query, value), the
    ties, are ordered by their ids, with pyarrow's string sort.
    """
    n = len(qcodes)
    if n < 2:
        return None, None
    dq = np.diff(qcodes)
    dv = np.diff(value)
    same_q = dq == 0
    if bool(((dq > 0) | (same_q & (dv <= 0))).all()):
        perm = None
        same = same_q & (dv == 0)
    else:
        perm = np.lexsort((-value, qcodes))
        q, v = qcodes[perm], value[perm]
        same = (q[1:] == q[:-1]) & (v[1:] == v[:-1])
    starts = np.flatnonzero(same)  # row i + 1 ties with row i
    if not len(starts):
        return perm, None
    rows = np.concatenate((starts, starts + 1))  # positions (in the current order) of tied rows
    rows.sort()
    rows = rows[np.concatenate(([True], rows[1:] != rows[:-1]))]
    group = np.cumsum(~((rows > 0) & same[np.maximum(rows - 1, 0)]))  # a new group unless tied to the row above
    src = rows if perm is None else perm[rows]
    tied = take_rows(items, src)
    if pa.types.is_integer(tied.type):  # integer ids compare as their decimal text
        tied = C.cast(tied, pa.string())
    sub = pa.table({"g": ints(group), "item": tied})
    # Arrow compares strings by their UTF-8 bytes, trec_eval's strcmp order
    within = to_numpy(C.sort_indices(sub, [("g", "ascending"), ("item", "descending")]))
    if perm is None:
        if bool((within == np.arange(len(rows))).all()):
            return None, None  # the ties are in order already
        new = np.arange(n)
        new[rows] = src[within]
        return new, rows
    perm[rows] = src[within]
    return perm, None
