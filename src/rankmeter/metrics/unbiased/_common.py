"""Propensities of the ranked rows, read from the evaluation context (private to this family)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, cast

import numpy as np
import pyarrow as pa

from ... import _compute as C
from ..._errors import InputError, ParameterError
from ...data.ids import as_string_array
from ..batch import Batch
from ..registry import Param

__all__ = ["UnbiasedExample", "PROPENSITY", "EXPONENT", "CLIP", "REL1", "row_propensity", "ref_propensity",
           "jain_propensity", "HELP", "PAIR_COLUMNS", "pair_table", "item_propensity"]

HELP = ("build context['popularity'] and context['n_users'] with rankmeter.beyond.context_from_train(train), "
        "or pass context['propensity'] (per item: {item: p}; per user and item: a table of query, item, "
        "propensity columns or {(query, item): p}) with propensity=given")

#: column names of a per-(query, item) propensity table, in order of preference
PAIR_COLUMNS = {"query": ("query", "user", "query_id", "user_id", "qid", "uid"),
                "item": ("item", "item_id", "doc", "docno", "doc_id"),
                "propensity": ("propensity", "p", "prob", "probability")}

_KEY = {"popularity": "popularity", "given": "propensity"}

PROPENSITY = Param("propensity", str, "popularity",
                   "where propensities come from: the power-law model of training popularity (popularity), "
                   "context['propensity'] per item or per (user, item) (given), or the position-based model "
                   "rank**-exponent (position)",
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


def _column(names: Sequence[str], role: str) -> str | None:
    low = {str(n).lower(): str(n) for n in names}
    for cand in PAIR_COLUMNS[role]:
        if cand in low:
            return low[cand]
    return None


def pair_table(value: Any, metric: str = "propensity") -> tuple[pa.Array, pa.Array, np.ndarray] | None:
    """A per-(query, item) propensity table as (query ids, item ids, values), or None for a per-item one.

    Per-(query, item) forms: an Arrow table or a pandas DataFrame with query (or user), item
    and propensity columns, a mapping of such columns, or a mapping ``{(query, item): p}``.
    Ids are text, as everywhere in rankmeter (``7`` and ``"7"`` are the same id).

    >>> q, i, p = pair_table({("u1", "a"): 0.5, ("u2", "a"): 0.25})
    >>> q.to_pylist(), i.to_pylist(), p.tolist()
    (['u1', 'u2'], ['a', 'a'], [0.5, 0.25])
    >>> pair_table({"a": 0.5}) is None
    True
    """
    cols: Mapping[str, Any] | None = None
    if isinstance(value, pa.Table):
        cols = {n: value.column(n) for n in value.column_names}
    elif type(value).__module__.startswith("pandas") and hasattr(value, "columns"):
        cols = {str(n): value[n].to_numpy() for n in value.columns}
    elif isinstance(value, Mapping) and value and all(isinstance(k, tuple) for k in value):
        keys = list(value)
        if any(len(k) != 2 for k in keys):
            raise ParameterError(f"context['propensity'] of {metric}: a key of a per-(query, item) mapping must be a "
                                 "(query, item) pair")
        cols = {"query": [str(k[0]) for k in keys], "item": [str(k[1]) for k in keys],
                "propensity": list(value.values())}
    elif isinstance(value, Mapping) and value and all(_column(list(value), r) is not None for r in PAIR_COLUMNS) \
            and not any(isinstance(v, (int, float, np.number)) for v in value.values()):
        cols = value  # columns (an item -> p mapping whose items are named "query", "item"... has numbers)
    if cols is None:
        return None
    names = list(cols)
    found = {role: _column(names, role) for role in PAIR_COLUMNS}
    absent = [role for role, name in found.items() if name is None]
    if absent:
        raise ParameterError(f"context['propensity'] of {metric} is a table without a {absent[0]} column "
                             f"(expected one of {', '.join(PAIR_COLUMNS[absent[0]])}; found {', '.join(names)})")
    column = {role: name for role, name in found.items() if name is not None}  # every role: checked above
    try:
        q = as_string_array(cols[column["query"]])
        i = as_string_array(cols[column["item"]])
        v = cols[column["propensity"]]
        v = np.asarray(v.to_numpy(zero_copy_only=False) if hasattr(v, "to_numpy") else v, dtype=np.float64)
    except (TypeError, ValueError, pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        raise ParameterError(f"context['propensity'] of {metric}: cannot read the table: {exc}") from None
    if q.null_count or i.null_count:
        raise InputError(f"{metric}: context['propensity'] has a missing query or item id", source="context")
    if not (len(q) == len(i) == len(v)):
        raise ParameterError(f"context['propensity'] of {metric}: its columns differ in length")
    if not np.isfinite(v).all() or (v < 0).any() or (v > 1).any():
        bad = int(np.flatnonzero(~(np.isfinite(v) & (v >= 0) & (v <= 1)))[0])
        raise InputError(f"{metric}: context['propensity'] row {bad + 1} ({q[bad].as_py()!r}, {i[bad].as_py()!r}) "
                         f"has propensity {v[bad]!r}, not a probability in [0, 1]", source="context")
    return q, i, v


def _pair_lookup(b: Batch, key: str, metric: str,
                 table: tuple[pa.Array, pa.Array, np.ndarray]) -> tuple[np.ndarray, np.ndarray, int]:
    """The table's (query, item) keys in this batch's codes, sorted, with their values, cached."""
    ck = ("unbiased_pairs", key)
    if ck not in b._cache:
        qids, vocab = b.context.get("query_ids"), b.context.get("item_ids")
        if qids is None or vocab is None:
            raise ParameterError(f"{metric}: per-(query, item) propensities need the batch's query ids and item "
                                 "vocabulary (context['query_ids'], context['item_ids']), built by rankmeter.evaluate")
        q, i, v = table
        vocab = as_string_array(vocab)
        n_items = max(len(vocab), 1)
        qc = _codes(q, as_string_array(qids))
        ic = _codes(i, vocab)
        keep = (qc >= 0) & (ic >= 0)
        keys = qc[keep] * n_items + ic[keep]
        order = np.argsort(keys, kind="stable")
        keys, vals = keys[order], v[keep][order]
        dup = np.flatnonzero(keys[1:] == keys[:-1])
        if len(dup):
            k = int(keys[dup[0]])
            raise InputError(f"{metric}: context['propensity'] gives ({as_string_array(qids)[k // n_items].as_py()!r}, "
                             f"{vocab[k % n_items].as_py()!r}) more than one propensity", source="context")
        b._cache[ck] = (keys, vals, n_items)
    return b._cache[ck]  # type: ignore[no-any-return]  # the cache holds Any


def _codes(ids: pa.Array, vocab: pa.Array) -> np.ndarray:
    if not len(ids) or not len(vocab):
        return np.full(len(ids), -1, dtype=np.int64)
    raw = C.index_in(ids, vocab).to_numpy(zero_copy_only=False)
    raw = np.asarray(raw, dtype=np.float64)  # nulls -> nan
    return np.where(np.isnan(raw), -1, np.nan_to_num(raw, nan=-1)).astype(np.int64)


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
    return b._cache[ck]  # type: ignore[no-any-return]  # the cache holds Any


def _missing(metric: str, key: str, b: Batch, codes: np.ndarray,
             what: str = "relevant recommended items") -> InputError:
    vocab = as_string_array(b.context["item_ids"])
    ex = [vocab[int(c)].as_py() for c in np.unique(codes)[:3]]
    return InputError(f"{metric}: {len(codes)} {what} (rows) have no entry in "
                      f"context[{key!r}], e.g. {ex}; give every judged item a propensity", source="context")


def _missing_pairs(metric: str, b: Batch, query: np.ndarray, codes: np.ndarray, what: str) -> InputError:
    vocab = as_string_array(b.context["item_ids"])
    qids = as_string_array(b.context["query_ids"])
    ex = [(qids[int(q)].as_py(), vocab[int(c)].as_py()) for q, c in list(zip(query, codes, strict=True))[:3]]
    return InputError(f"{metric}: {len(codes)} {what} have no (query, item) entry in context['propensity'], "
                      f"e.g. {ex}; give every judged (query, item) pair a propensity", source="context")


def _finish(p: np.ndarray, clip: float, metric: str) -> np.ndarray:
    p = np.maximum(p, clip)
    if (p <= 0).any():
        raise InputError(f"{metric}: {int((p <= 0).sum())} relevant recommended items have propensity 0; "
                         f"set clip > 0 (e.g. {metric}(clip=0.01)) to bound their weight", source="context")
    return p


def row_propensity(b: Batch, rows: np.ndarray, propensity: str, exponent: float, clip: float,
                   metric: str, rank: np.ndarray | None = None, query: np.ndarray | None = None) -> np.ndarray:
    """Clipped propensity of the given ranked rows (relevant ones); ``rank``: their 1-based ranks (position model),
    ``query``: their query (per-(query, item) propensities; found from the offsets when not given)."""
    if propensity == "position":
        r = np.asarray(rank if rank is not None else b.pos[rows], dtype=np.float64)
        return _finish(np.power(r, -exponent), clip, metric)
    if query is None:
        query = np.searchsorted(b.offsets, rows, side="right") - 1
    return item_propensity(b, query, b.item[rows], propensity, exponent, clip, metric)


def item_propensity(b: Batch, query: np.ndarray, items: np.ndarray, propensity: str, exponent: float, clip: float,
                    metric: str, what: str = "relevant recommended items") -> np.ndarray:
    """Clipped propensity of (query, item code) pairs of the batch: from a per-item table (popularity or
    given) or a per-(query, item) table (given); a pair without one is an InputError counting them."""
    key = _KEY[propensity]
    raw = _need(b.context, key, metric)
    pairs = None
    if propensity == "given":  # read once per batch (and cutoff), whichever metric asks first
        ck = ("unbiased_pair_table", key)
        if ck not in b._cache:
            b._cache[ck] = pair_table(raw, metric)
        pairs = b._cache[ck]
    if pairs is None:
        table = _vocab_values(b, key, metric)  # read (and checked) even when no relevant item was retrieved
        vals = table[items]
        absent = np.isnan(vals)
        if absent.any():
            raise _missing(metric, key, b, items[absent], what)
    else:
        keys, known, n_items = _pair_lookup(b, key, metric, pairs)
        want = np.asarray(query, dtype=np.int64) * n_items + items
        at = np.minimum(np.searchsorted(keys, want), max(len(keys) - 1, 0))
        found = (keys[at] == want) if len(keys) else np.zeros(len(want), dtype=bool)
        if not found.all():
            raise _missing_pairs(metric, b, np.asarray(query)[~found], items[~found], what)
        vals = known[at] if len(keys) else np.zeros(0)
    if not len(vals):
        return np.zeros(0)
    if propensity == "popularity":
        vals = vals ** exponent
    elif (vals > 1).any():
        raise InputError(f"{metric}: context['propensity'] holds values above 1 (a propensity is a probability)",
                         source="context")
    return _finish(vals, clip, metric)


def ref_propensity(context: Mapping[str, Any] | None, item: str, propensity: str, exponent: float, clip: float,
                   metric: str, rank: int = 1, query: str | None = None) -> float:
    """Slow path: one item's clipped propensity from a plain dict reading of the context (or its rank);
    a per-(query, item) table is read row by row for ``query``."""
    if propensity == "position":
        return cast("float", max(rank ** -exponent, clip))
    table = _need(context, _KEY[propensity], metric)
    pairs = pair_table(table, metric) if propensity == "given" else None
    if pairs is not None:
        got = [float(p) for q, i, p in zip(pairs[0].to_pylist(), pairs[1].to_pylist(), pairs[2].tolist(), strict=True)
               if q == query and i == item]
        if len(got) != 1:
            raise InputError(f"{metric}: ({query!r}, {item!r}) has {len(got)} propensities")
        table = {item: got[0]}
    if isinstance(table, tuple):
        table = dict(zip([str(i) for i in table[0]], table[1], strict=True))
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
    return cast(np.ndarray, 1.0 / (1.0 + c * np.power(np.asarray(count, dtype=np.float64) + b, -a)))
