"""Propensities of the ranked rows, read from the evaluation context (private to this family)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from ... import _compute as C
from ..._errors import InputError, ParameterError
from ...data.ids import as_string_array
from ..batch import Batch
from ..registry import Param

__all__ = ["UnbiasedExample", "PROPENSITY", "EXPONENT", "CLIP", "REL1", "row_propensity", "ref_propensity",
           "jain_propensity", "HELP"]

HELP = ("build context['popularity'] and context['n_users'] with rankmeter.beyond.context_from_train(train), "
        "or pass context['propensity'] = {item: p} with propensity=given")

_KEY = {"popularity": "popularity", "given": "propensity"}

PROPENSITY = Param("propensity", str, "popularity",
                   "where propensities come from: the power-law model of training popularity (popularity), "
                   "context['propensity'] per item (given), or the position-based model rank**-exponent (position)",
                   choices=("popularity", "given", "position"))
EXPONENT = Param("exponent", float, 0.5, "power-law exponent of the popularity model: p(i) = popularity(i)**exponent",
                 low=0)
CLIP = Param("clip", float, 0.0, "propensities below clip are raised to clip (bounds the weight 1/p by 1/clip)",
             low=0, high=1)
REL1 = Param("rel", float, 1.0, "minimum grade counted as relevant")


@dataclass(frozen=True)
class UnbiasedExample:
    """A worked example: several users' lists, judgments, a context and the expected mean."""

    metric: str
    rankings: Mapping[str, Sequence[str]]
    qrels: Mapping[str, Any]
    context: Mapping[str, Any]
    value: float
    note: str = ""
    tol: float = 1e-12
    extra: Mapping[str, Any] = field(default_factory=dict)


def _need(context: Mapping[str, Any] | None, key: str, metric: str) -> Any:
    if context is None or context.get(key) is None:
        raise ParameterError(f"{metric} needs context[{key!r}]; {HELP}, and pass it as "
                             f"rankmeter.evaluate(..., context=ctx)")
    return context[key]


def _table(value: Any, key: str, metric: str) -> tuple[pa.Array, np.ndarray]:
    if isinstance(value, tuple) and len(value) == 2:
        ids, vals = value
    elif isinstance(value, Mapping):
        ids, vals = list(value.keys()), list(value.values())
    elif type(value).__module__.startswith("pandas") and hasattr(value, "index"):
        ids, vals = value.index.to_numpy(), value.to_numpy()
    else:
        raise ParameterError(f"context[{key!r}] of {metric} must be a mapping item -> number or an (ids, values) "
                             f"pair. Got {type(value).__name__} instead.")
    try:
        arr = np.asarray(vals, dtype=np.float64)
        id_arr = as_string_array(ids if isinstance(ids, (pa.Array, pa.ChunkedArray, np.ndarray)) else list(ids))
    except (TypeError, ValueError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise ParameterError(f"context[{key!r}] of {metric} must map item ids to numbers: {exc}") from None
    if arr.ndim != 1 or len(arr) != len(id_arr):
        raise ParameterError(f"context[{key!r}] of {metric} must give one number per item")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ParameterError(f"context[{key!r}] of {metric} holds a value that is not a finite number >= 0")
    return id_arr, arr


def _vocab_values(b: Batch, key: str, metric: str) -> np.ndarray:
    """The table's value for every code of the batch's item vocabulary (nan where absent), cached."""
    ck = ("unbiased_table", key, metric)
    if ck not in b._cache:
        ids, vals = _table(_need(b.context, key, metric), key, metric)
        vocab = b.context.get("item_ids")
        if vocab is None:
            raise ParameterError("the batch has no context['item_ids'] vocabulary (built by rankmeter.evaluate)")
        vocab = as_string_array(vocab)
        out = np.full(len(vocab), np.nan)
        if len(vocab) and len(ids):
            idx = C.index_in(vocab, ids)
            raw = np.asarray(idx.to_numpy(zero_copy_only=False), dtype=np.float64)  # nulls -> nan
            pos = np.where(np.isnan(raw), -1, np.nan_to_num(raw, nan=-1)).astype(np.int64)
            found = pos >= 0
            out[found] = vals[pos[found]]
        b._cache[ck] = out
    return b._cache[ck]  # type: ignore[no-any-return]


def _missing(metric: str, key: str, b: Batch, codes: np.ndarray) -> InputError:
    vocab = as_string_array(b.context["item_ids"])
    ex = [vocab[int(c)].as_py() for c in np.unique(codes)[:3]]
    return InputError(f"{metric}: {len(codes)} relevant recommended items (rows) have no entry in "
                      f"context[{key!r}], e.g. {ex}; give every judged item a propensity", source="context")


def _finish(p: np.ndarray, clip: float, metric: str) -> np.ndarray:
    p = np.maximum(p, clip)
    if (p <= 0).any():
        raise InputError(f"{metric}: {int((p <= 0).sum())} relevant recommended items have propensity 0; "
                         f"set clip > 0 (e.g. {metric}(clip=0.01)) to bound their weight", source="context")
    return p


def row_propensity(b: Batch, rows: np.ndarray, propensity: str, exponent: float, clip: float,
                   metric: str, rank: np.ndarray | None = None) -> np.ndarray:
    """Clipped propensity of the given ranked rows (relevant ones); ``rank``: their 1-based ranks (position model)."""
    if propensity == "position":
        r = np.asarray(rank if rank is not None else b.pos[rows], dtype=np.float64)
        return _finish(np.power(r, -exponent), clip, metric)
    key = _KEY[propensity]
    table = _vocab_values(b, key, metric)  # read (and checked) even when no relevant item was retrieved
    if not len(rows):
        return np.zeros(0)
    vals = table[b.item[rows]]
    absent = np.isnan(vals)
    if absent.any():
        raise _missing(metric, key, b, b.item[rows][absent])
    if propensity == "popularity":
        vals = vals ** exponent
    elif (vals > 1).any():
        raise InputError(f"{metric}: context['propensity'] holds values above 1 (a propensity is a probability)",
                         source="context")
    return _finish(vals, clip, metric)


def ref_propensity(context: Mapping[str, Any] | None, item: str, propensity: str, exponent: float, clip: float,
                   metric: str, rank: int = 1) -> float:
    """Slow path: one item's clipped propensity from a plain dict reading of the context (or its rank)."""
    if propensity == "position":
        return max(rank ** -exponent, clip)
    table = _need(context, _KEY[propensity], metric)
    if isinstance(table, tuple):
        table = dict(zip([str(i) for i in table[0]], table[1]))
    v = float(table[item])
    if propensity == "popularity":
        v = v ** exponent
    v = max(v, clip)
    if v <= 0:
        raise InputError(f"{metric}: propensity 0")
    return v


def jain_propensity(count: np.ndarray | float, n: float, a: float, b: float) -> np.ndarray | float:
    """Jain et al.'s (2016) propensity model: ``p = 1 / (1 + C (N_l + B)^-A)``, ``C = (ln N - 1)(B + 1)^A``.

    >>> round(float(jain_propensity(10.0, 1000.0, 0.55, 1.5)), 6)
    0.28152
    """
    c = (math.log(n) - 1.0) * (b + 1.0) ** a
    return 1.0 / (1.0 + c * np.power(np.asarray(count, dtype=np.float64) + b, -a))
