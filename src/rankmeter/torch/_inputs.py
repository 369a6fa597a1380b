"""The inputs of rankmeter.torch checked and put in one form: ids, exclusions, judgments."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from .._errors import InputError, MissingExtraError, ParameterError

if TYPE_CHECKING:
    import torch

__all__ = ["Exclusion", "Judgments", "as_exclusion", "as_ids", "as_judgments", "check_scores", "load_torch",
           "same_device"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def load_torch() -> Any:
    """The torch module, or a :class:`MissingExtraError` naming the extra."""
    try:
        import torch
    except ImportError:
        raise MissingExtraError("rankmeter.torch", "torch", "torch") from None
    return torch


def check_scores(scores: Any, func: str) -> torch.Tensor:
    th = load_torch()
    if not isinstance(scores, th.Tensor):
        raise ParameterError(f"The 'scores' parameter of {func} must be a torch.Tensor (users x items). "
                             f"Got {type(scores).__name__} instead.")
    if scores.dim() != 2:
        raise InputError(f"scores must be a 2-D tensor (users x items); found shape {tuple(scores.shape)}",
                         source="scores")
    if str(scores.dtype).removeprefix("torch.") not in _FLOATS:
        raise InputError(f"scores must be a floating tensor (float16, bfloat16, float32 or float64); found "
                         f"{scores.dtype} (convert with .float() or .double())", source="scores")
    if scores.layout != th.strided:
        raise InputError(f"scores must be a dense tensor; found layout {scores.layout}", source="scores")
    out: torch.Tensor = scores
    return out


def same_device(device: torch.device, other: Any, name: str, what: str = "scores") -> None:
    torch = load_torch()
    if isinstance(other, torch.Tensor) and other.device != device:
        raise InputError(f"{name} is on {other.device} while {what} are on {device}: put both on one device "
                         f"(e.g. {name}.to({what}.device))", source=name)


def as_ids(values: Any, n: int, name: str) -> pa.Array:
    """Ids as a string array of length ``n``: text, no missing id, none twice."""
    from .. import _compute as C
    from ..data.ids import as_string_array

    if isinstance(values, (str, bytes)):
        raise ParameterError(f"The '{name}' parameter must be a sequence of ids (str), one per "
                             f"{'column' if name == 'item_ids' else 'row'}. Got a single {type(values).__name__}.")
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            raise ParameterError(f"The '{name}' parameter must hold text ids; found Arrow type {values.type}")
        arr = as_string_array(values)
    else:
        seq = list(values)
        for i, v in enumerate(seq):
            if not isinstance(v, str):
                raise ParameterError(
                    f"The '{name}' parameter must hold text ids (str): rankmeter compares ids as text. Found "
                    f"{type(v).__name__} {v!r} at position {i} (pass [str(i) for i in ids] if that is meant)")
        arr = pa.array(seq, type=pa.string()) if seq else pa.array([], type=pa.string())
    if len(arr) != n:
        what = "columns of scores" if name == "item_ids" else "rows of scores"
        raise InputError(f"{name} has {len(arr)} ids for the {n} {what}", source=name)
    if arr.null_count:
        raise InputError(f"{name} has a missing id", source=name)
    if len(C.unique(arr)) != len(arr):
        seen: set[str] = set()
        # set.add: finds the first repeat (the ignore below)
        dup = next(i for i in arr.to_pylist() if i in seen or seen.add(i))  # type: ignore[func-returns-value]
        first = arr.to_pylist().index(dup)
        raise InputError(f"{name} lists {dup!r} more than once (first at position {first}): ids must be unique",
                         source=name)
    return arr


def _index_pairs(rows: Any, cols: Any, n: int, m: int, name: str) -> tuple[np.ndarray, np.ndarray]:
    torch = load_torch()
    r = rows.detach().cpu().numpy() if isinstance(rows, torch.Tensor) else np.asarray(rows)
    c = cols.detach().cpu().numpy() if isinstance(cols, torch.Tensor) else np.asarray(cols)
    if r.ndim != 1 or c.ndim != 1 or len(r) != len(c):
        raise InputError(f"{name} pairs must be two 1-D sequences of equal length (rows, columns); found shapes "
                         f"{r.shape} and {c.shape}", source=name)
    if len(r) and (not np.issubdtype(r.dtype, np.integer) or not np.issubdtype(c.dtype, np.integer)):
        raise InputError(f"{name} pairs must hold integer row and column indices; found {r.dtype} and {c.dtype}",
                         source=name)
    r, c = r.astype(np.int64), c.astype(np.int64)
    out = (r < 0) | (r >= n) | (c < 0) | (c >= m)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise InputError(f"{name} has {int(out.sum())} pairs outside the {n} x {m} score matrix, e.g. "
                         f"(row {int(r[i])}, column {int(c[i])}) at position {i}", source=name)
    return r, c


def _from_lists(values: list[Any], n: int, m: int, name: str, graded: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if len(values) != n:
        raise InputError(f"{name} has {len(values)} per-user entries for the {n} rows of scores", source=name)
    rows: list[int] = []
    cols: list[int] = []
    grades: list[float] = []
    for u, entry in enumerate(values):
        if isinstance(entry, dict):
            if not graded:
                raise InputError(f"{name} entries must be sequences of column indices; found a dict for row {u}",
                                 source=name)
            for c, g in entry.items():
                rows.append(u)
                cols.append(int(c))
                grades.append(float(g))
        else:
            for c in entry:
                rows.append(u)
                cols.append(int(c))
                grades.append(1.0)
    r, c = _index_pairs(np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64), n, m, name)
    return r, c, np.asarray(grades, dtype=np.float64)


def _sparse_parts(t: torch.Tensor, name: str) -> tuple[Any, Any, Any]:
    torch = load_torch()
    if t.layout == torch.sparse_csr:
        crow, col, vals = t.crow_indices(), t.col_indices(), t.values()
        counts = crow[1:] - crow[:-1]
        rows = torch.repeat_interleave(torch.arange(t.shape[0], device=t.device), counts)
        return rows, col, vals
    if t.layout == torch.sparse_coo:
        t = t.coalesce()
        return t.indices()[0], t.indices()[1], t.values()
    raise InputError(f"{name}: unsupported tensor layout {t.layout} (dense, sparse_coo or sparse_csr)", source=name)


class Exclusion:
    """Cells hidden from users: filled into a block of scores on the device; counted per row; and, on the
    host, the (row, column) keys of every hidden cell (built on first use)."""

    def __init__(self, n: int, m: int, dense: Any = None, rows: np.ndarray | None = None,
                 cols: np.ndarray | None = None, device: Any = None) -> None:
        self.n, self.m = n, m
        self.dense = dense  # the boolean mask as given, when given dense
        self.any = dense is not None or (rows is not None and len(rows) > 0)
        self._keys: np.ndarray | None = None
        if rows is not None and cols is not None:
            torch = load_torch()
            keys = np.unique(rows * m + cols)
            self._keys = keys
            r_sorted, c_sorted = keys // max(m, 1), keys % max(m, 1)
            self.offsets = np.searchsorted(r_sorted, np.arange(n + 1))
            self.r_dev = torch.from_numpy(r_sorted).to(device)
            self.c_dev = torch.from_numpy(c_sorted).to(device)
            self.counts_dev = torch.from_numpy(np.diff(self.offsets).astype(np.int64)).to(device)

    @property
    def keys(self) -> np.ndarray:
        """row * n_items + column of every excluded cell, sorted (host)."""
        if self._keys is None:
            torch = load_torch()
            self._keys = torch.nonzero(self.dense.reshape(-1)).flatten().cpu().numpy().astype(np.int64) \
                if self.dense is not None else np.zeros(0, dtype=np.int64)
        return self._keys

    def fill_(self, block: Any, a: int, b: int, value: float | int) -> None:
        """Write ``value`` into the hidden cells of ``block``, which holds rows ``a:b``."""
        if self.dense is not None:
            block.masked_fill_(self.dense[a:b], value)
        elif self.any:
            lo, hi = int(self.offsets[a]), int(self.offsets[b])
            block[self.r_dev[lo:hi] - a, self.c_dev[lo:hi]] = value

    def filled(self, block: Any, a: int, b: int, value: float | int) -> Any:
        """A copy of ``block`` (rows ``a:b``) with ``value`` in its hidden cells (one pass for a mask)."""
        if self.dense is not None:
            return block.masked_fill(self.dense[a:b], value)
        out = block.clone()
        self.fill_(out, a, b, value)
        return out

    def counts(self, a: int, b: int, rows: Any) -> Any:
        """Hidden cells of some rows (positions in ``a:b``, a device tensor)."""
        if self.dense is not None:
            return self.dense[a:b][rows].sum(dim=1)
        if self.any:
            return self.counts_dev[a + rows]
        return rows * 0

    def excludes(self, rows: np.ndarray, cols: np.ndarray, m: int) -> np.ndarray:
        """Which of these cells are hidden (host arrays in, a host mask out)."""
        if self.dense is not None:  # looked up on the device: no copy of the mask
            torch = load_torch()
            dev = self.dense.device
            r, c = torch.from_numpy(rows).to(dev), torch.from_numpy(cols).to(dev)
            return self.dense[r, c].cpu().numpy().astype(bool)  # type: ignore[no-any-return]  # torch: Any
        keys = self.keys
        if not len(keys):
            return np.zeros(len(rows), dtype=bool)
        k = rows * m + cols
        at = np.minimum(np.searchsorted(keys, k), len(keys) - 1)
        return keys[at] == k  # type: ignore[no-any-return]  # numpy's stubs type this as Any


def as_exclusion(exclude: Any, n: int, m: int, device: torch.device) -> Exclusion:
    """``exclude`` in any accepted form: a boolean mask, sparse pairs (a sparse COO tensor or a (rows, columns)
    pair), CSR offsets (a sparse CSR tensor), or one sequence of column indices per user; for a matrix of
    ``n`` users x ``m`` items on ``device``."""
    torch = load_torch()
    if exclude is None:
        return Exclusion(n, m)
    if isinstance(exclude, np.ndarray) and exclude.ndim == 2:  # a dense mask given as numpy
        exclude = torch.as_tensor(exclude, device=device)
    same_device(device, exclude, "exclude")
    if isinstance(exclude, torch.Tensor) and exclude.layout == torch.strided:
        if tuple(exclude.shape) != (n, m):
            raise InputError(f"exclude has shape {tuple(exclude.shape)} but scores have shape {(n, m)}",
                             source="exclude")
        if exclude.dtype != torch.bool:
            raise InputError(f"a dense exclude must be a boolean mask; found {exclude.dtype} (use a sparse tensor, "
                             "(rows, columns) pairs or lists of column indices for indices)", source="exclude")
        return Exclusion(n, m, dense=exclude)
    if isinstance(exclude, torch.Tensor):
        if tuple(exclude.shape) != (n, m):
            raise InputError(f"exclude has shape {tuple(exclude.shape)} but scores have shape {(n, m)}",
                             source="exclude")
        r, c, _v = _sparse_parts(exclude, "exclude")
        rows, cols = _index_pairs(r, c, n, m, "exclude")
    elif isinstance(exclude, tuple) and len(exclude) == 2:
        same_device(device, exclude[0], "exclude")
        same_device(device, exclude[1], "exclude")
        rows, cols = _index_pairs(exclude[0], exclude[1], n, m, "exclude")
    elif isinstance(exclude, (list, np.ndarray)) and (len(exclude) == 0 or not np.isscalar(exclude[0])):
        rows, cols, _g = _from_lists(list(exclude), n, m, "exclude", graded=False)
    else:
        raise ParameterError("The 'exclude' parameter must be a boolean mask tensor, a sparse COO or CSR tensor, a "
                             "(rows, columns) pair or one sequence of column indices per user. "
                             f"Got {type(exclude).__name__} instead.")
    return Exclusion(n, m, rows=rows, cols=cols, device=device)


@dataclass
class Judgments:
    """Judgments on the host: (row, column, grade) of every judged cell that is not excluded; ``dense``:
    every cell is judged (grade 0 = judged not relevant), and only the nonzero ones are listed."""

    rows: np.ndarray
    cols: np.ndarray
    grades: np.ndarray
    dense: torch.Tensor | None


def as_judgments(relevant: Any, scores: torch.Tensor, excl: Exclusion) -> Judgments:
    """``relevant`` in any accepted form: a dense tensor of grades (0 = judged not relevant), a sparse COO or
    CSR tensor of grades (the stored cells are the judged ones), ``(rows, columns)`` or ``(rows, columns,
    grades)`` pairs, or one entry per user (a sequence of relevant columns, or a dict column -> grade)."""
    torch = load_torch()
    n, m = scores.shape
    if isinstance(relevant, np.ndarray) and relevant.ndim == 2:  # dense grades given as numpy
        relevant = torch.as_tensor(relevant, device=scores.device)
    same_device(scores.device, relevant, "relevant")
    if isinstance(relevant, torch.Tensor) and relevant.layout == torch.strided:
        if tuple(relevant.shape) != (n, m):
            raise InputError(f"relevant has shape {tuple(relevant.shape)} but scores have shape {(n, m)}",
                             source="relevant")
        if relevant.dtype.is_complex:
            raise InputError(f"relevant must hold real grades; found {relevant.dtype}", source="relevant")
        nz = relevant != 0
        if excl.dense is not None:
            nz &= ~excl.dense
        at = torch.nonzero(nz)
        g = relevant[nz].to(torch.float64).cpu().numpy()
        rows, cols = at[:, 0].cpu().numpy().astype(np.int64), at[:, 1].cpu().numpy().astype(np.int64)
        if excl.dense is None and excl.any:
            keep = ~excl.excludes(rows, cols, m)
            rows, cols, g = rows[keep], cols[keep], g[keep]
        _finite(g, "relevant")
        return Judgments(rows, cols, g, relevant)
    if isinstance(relevant, torch.Tensor):
        if tuple(relevant.shape) != (n, m):
            raise InputError(f"relevant has shape {tuple(relevant.shape)} but scores have shape {(n, m)}",
                             source="relevant")
        r, c, v = _sparse_parts(relevant, "relevant")
        rows, cols = _index_pairs(r, c, n, m, "relevant")
        grades = v.to(torch.float64).cpu().numpy()
    elif isinstance(relevant, tuple) and len(relevant) in (2, 3):
        for part in relevant:
            same_device(scores.device, part, "relevant")
        rows, cols = _index_pairs(relevant[0], relevant[1], n, m, "relevant")
        if len(relevant) == 3:
            gv = relevant[2]
            grades = (gv.detach().to(torch.float64).cpu().numpy() if isinstance(gv, torch.Tensor)
                      else np.asarray(gv, dtype=np.float64))
            if grades.shape != rows.shape:
                raise InputError(f"relevant has {len(grades)} grades for {len(rows)} pairs", source="relevant")
        else:
            grades = np.ones(len(rows), dtype=np.float64)
    elif isinstance(relevant, (list, np.ndarray)) and (len(relevant) == 0 or not np.isscalar(relevant[0])):
        rows, cols, grades = _from_lists(list(relevant), n, m, "relevant", graded=True)
    else:
        raise ParameterError("The 'relevant' parameter must be a dense tensor of grades, a sparse COO or CSR "
                             "tensor, (rows, columns[, grades]) pairs or one entry per user. "
                             f"Got {type(relevant).__name__} instead.")
    _finite(grades, "relevant")
    keys = rows * m + cols
    order = np.argsort(keys, kind="stable")
    dup = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if len(dup):
        i = int(order[dup[0]])
        raise InputError(f"relevant judges {len(dup)} cells more than once, e.g. (row {int(rows[i])}, column "
                         f"{int(cols[i])})", source="relevant")
    keep = ~excl.excludes(rows, cols, m)
    return Judgments(rows[keep], cols[keep], grades[keep], None)


def _finite(grades: np.ndarray, name: str) -> None:
    bad = ~np.isfinite(grades)
    if bad.any():
        raise InputError(f"{name} has {int(bad.sum())} grades that are not finite numbers", source=name)
