"""Reading item facts from the evaluation context, aligned with a batch's item codes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..._errors import InputError, ParameterError
from ...data.ids import as_string_array

__all__ = [
    "ContextExample",
    "HELPER",
    "need",
    "batch_vocab",
    "item_table",
    "item_matrix",
    "id_set",
    "positions",
    "lookup",
    "missing_error",
    "ref_values",
    "ref_set",
]

HELPER = "rankmeter.beyond.context_from_train(train, ...)"


@dataclass(frozen=True)
class ContextExample:
    """A worked example of a beyond-accuracy metric: several users' lists, judgments and a context.

    ``metric`` is the full metric string (``"novelty(form=complement)@2"``); ``value`` is
    the mean (query-level metrics) or the corpus value. The registry's examples of
    these metrics are of this class (the ranking family's ``Example`` has no context);
    ``tests/beyond`` runs each of them.
    """

    metric: str
    rankings: Mapping[str, Sequence[str]]
    qrels: Mapping[str, Any]
    context: Mapping[str, Any]
    value: float
    note: str = ""
    tol: float = 1e-12
    queries: str = "judged"
    extra: Mapping[str, Any] = field(default_factory=dict)

_WHAT = {
    "popularity": "item id -> share of training users who interacted with it",
    "popularity_interactions": "item id -> share of training interactions",
    "n_users": "the number of training users",
    "n_interactions": "the number of training interactions",
    "catalog": "the item ids that could be recommended (by default the training items)",
    "all_items": "every item id of the data set, train and test",
    "features": "item id -> feature vector, or an (ids, matrix) pair",
    "categories": "item id -> set of category labels",
}


def need(context: Mapping[str, Any] | None, key: str, metric: str) -> Any:
    """``context[key]``, or a ParameterError naming the key and the helper that builds it."""
    if context is None or context.get(key) is None:
        raise ParameterError(
            f"{metric} needs context[{key!r}] ({_WHAT.get(key, key)}); build the context with {HELPER} "
            f"and pass it as rankmeter.evaluate(..., context=ctx)")
    return context[key]


def batch_vocab(batch: Any) -> pa.Array:
    """The batch's item vocabulary (``context["item_ids"]``) as a string array."""
    v = batch.context.get("item_ids")
    if v is None:
        raise ParameterError("the batch has no context['item_ids'] vocabulary (built by rankmeter.evaluate)")
    return as_string_array(v)


def _ids(values: Any, key: str, metric: str) -> pa.Array:
    try:
        arr = as_string_array(list(values) if not isinstance(values, (pa.Array, pa.ChunkedArray, np.ndarray))
                              else values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as exc:
        raise ParameterError(f"context[{key!r}] of {metric} must hold item ids: {exc}") from None
    if arr.null_count:
        raise ParameterError(f"context[{key!r}] of {metric} has a missing item id")
    return arr


def _check_unique(ids: pa.Array, key: str, metric: str) -> None:
    if len(pc.unique(ids)) != len(ids):
        vc = pc.value_counts(ids)
        dup = [d["values"] for d in vc.to_pylist() if d["counts"] > 1][:3]
        raise ParameterError(f"context[{key!r}] of {metric} lists some items more than once, e.g. {dup}")


def item_table(value: Any, key: str, metric: str, ndim: int = 1) -> tuple[pa.Array, np.ndarray]:
    """An item table (mapping, ``(ids, values)`` pair, pandas Series) as ``(ids, values)``."""
    if isinstance(value, tuple) and len(value) == 2:
        ids, vals = value
    elif isinstance(value, Mapping):
        ids, vals = list(value.keys()), list(value.values())
    elif type(value).__module__.startswith("pandas") and hasattr(value, "index"):
        ids, vals = value.index.to_numpy(), value.to_numpy()
    else:
        raise ParameterError(
            f"context[{key!r}] of {metric} must be a mapping item -> value or an (ids, values) pair. "
            f"Got {type(value).__name__} instead.")
    ids = _ids(ids, key, metric)
    try:
        if ndim == 2 and not isinstance(vals, np.ndarray):
            arr = np.asarray([np.asarray(v, dtype=np.float64) for v in vals], dtype=np.float64)
        else:
            arr = np.asarray(vals, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"context[{key!r}] of {metric} must hold numbers: {exc}") from None
    if ndim == 2 and arr.ndim == 1 and len(arr) == 0:
        arr = arr.reshape(0, 0)
    if arr.ndim != ndim or len(arr) != len(ids):
        raise ParameterError(
            f"context[{key!r}] of {metric} must give one {'vector' if ndim == 2 else 'number'} per item: "
            f"{len(ids)} ids, values of shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ParameterError(f"context[{key!r}] of {metric} holds a value that is not a finite number")
    _check_unique(ids, key, metric)
    return ids, arr


def item_matrix(value: Any, key: str, metric: str) -> tuple[pa.Array, np.ndarray]:
    return item_table(value, key, metric, ndim=2)


def id_set(value: Any, key: str, metric: str) -> pa.Array:
    """A set of item ids (any iterable, or a pyarrow/numpy array) as unique ids."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__") and not isinstance(value, pa.Array):
        raise ParameterError(f"context[{key!r}] of {metric} must be a collection of item ids. "
                             f"Got {type(value).__name__} instead.")
    ids = _ids(value, key, metric)
    return pc.unique(ids)


def positions(vocab: pa.Array, ids: pa.Array) -> np.ndarray:
    """Position of each vocabulary id in ``ids`` (-1 where absent)."""
    if len(vocab) == 0:
        return np.zeros(0, dtype=np.int64)
    idx = pc.index_in(vocab, value_set=ids)
    return np.asarray(pc.fill_null(idx, -1).to_numpy(zero_copy_only=False), dtype=np.int64)


def lookup(batch: Any, key: str, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """Values of an item table for every code of the batch vocabulary, and a found mask."""
    ids, vals = item_table(need(batch.context, key, metric), key, metric)
    pos = positions(batch_vocab(batch), ids)
    found = pos >= 0
    out = np.full(len(pos), np.nan)
    out[found] = vals[pos[found]]
    return out, found


def missing_error(metric: str, key: str, vocab: pa.Array, codes: np.ndarray, count: int, fix: str = "") -> InputError:
    ex = vocab.take(pa.array(np.unique(codes)[:3])).to_pylist() if len(codes) else []
    return InputError(f"{metric}: {count} recommended items (rows) are not in context[{key!r}], e.g. {ex}"
                      + (f"; {fix}" if fix else ""), source="context")


def ref_values(context: Mapping[str, Any] | None, key: str, metric: str) -> dict[str, Any]:
    """Slow path for reference implementations: an item table as a plain dict."""
    value = need(context, key, metric)
    if isinstance(value, tuple) and len(value) == 2:
        ids, vals = value
        ids = ids.to_pylist() if isinstance(ids, (pa.Array, pa.ChunkedArray)) else list(ids)
        return {str(i): v for i, v in zip(ids, list(vals), strict=True)}
    if isinstance(value, Mapping):
        return {str(i): v for i, v in value.items()}
    return {str(i): v for i, v in value.items()}


def ref_set(context: Mapping[str, Any] | None, key: str, metric: str) -> set[str]:
    value = need(context, key, metric)
    if isinstance(value, (pa.Array, pa.ChunkedArray)):
        value = value.to_pylist()
    return {str(v) for v in value}
