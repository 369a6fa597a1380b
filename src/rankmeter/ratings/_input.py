"""Loading true and predicted ratings, joining them on (user, item), and counting what did not join.

Accepted forms (see :func:`load_ratings`):

- two tables, **truth** (user, item, rating) and **predictions** (user, item,
  prediction), joined on (user, item): paths (CSV/TSV with a header, Parquet,
  MovieLens ``u.data``-style headerless ``user item rating timestamp`` files and
  ``ratings.dat``-style ``::`` files), pandas or polars DataFrames, pyarrow Tables,
  mappings of columns, or nested mappings ``{user: {item: rating}}``;
- **one table** holding both the true rating and the prediction (``predictions=None``);
- **two aligned arrays** of true and predicted ratings (optionally ``users=`` and
  ``items=`` arrays of the same length), or one list of ``(true, predicted)`` pairs
  (python-recsys's form).

Nothing is dropped silently. A truth pair without a prediction (absent, null or
NaN) is *missing*: ``missing="fail"`` (default) raises, ``"skip"`` leaves it out and
counts it, ``"fill"`` uses ``fill`` as its prediction and counts it. Predictions of
pairs absent from the truth are left out and counted. Duplicate (user, item) pairs
are an error unless ``duplicates="first"|"last"`` (counted). A null or NaN true
rating, a true rating outside the declared scale, different lengths, and an empty
join are errors. Predictions outside the declared scale are counted and evaluated as
they are, or clipped to the scale with ``clip=True``.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError, ParameterError
from ..data.qrels import numeric_type
from ..metrics.rating_batch import RatingsBatch
from ..metrics.rating_scale import Scale, as_scale

__all__ = ["RatingsCoverage", "LoadedRatings", "load_ratings", "TRUE_NAMES", "PREDICTION_NAMES"]

#: Column names recognised for the true rating and for the prediction (case, ``_``, ``-``
#: and spaces ignored), in order of preference.
TRUE_NAMES = ("rating", "true", "true_rating", "y_true", "truth", "actual", "target", "label", "relevance",
              "grade", "r")
PREDICTION_NAMES = ("prediction", "predicted", "predicted_rating", "pred", "y_pred", "estimate", "est",
                    "score", "rating_pred", "r_hat", "rating")

MISSING_POLICIES = ("fail", "skip", "fill")
DUPLICATE_POLICIES = ("error", "first", "last")


# --------------------------------------------------------------------------- coverage


@dataclass(frozen=True)
class RatingsCoverage:
    """What was evaluated, and every pair or user that was not, with counts.

    ``truth_pairs`` = evaluated + skipped (missing predictions left out) + (for
    fill) nothing: filled pairs are evaluated. ``extra_predictions`` are
    predictions of pairs absent from the truth, left out.
    """

    policy: str  # the missing-prediction policy: fail, skip or fill
    evaluated: int  # users with at least one evaluated pair
    pairs: int  # evaluated pairs
    items: int  # items with at least one evaluated pair
    truth_pairs: int  # (user, item) pairs of the truth (after duplicates were resolved)
    prediction_rows: int  # rows of the predictions input (after duplicates were resolved)
    missing: int = 0  # truth pairs without a usable prediction
    missing_nan: int = 0  # of which the prediction was present but null/NaN
    skipped: int = 0
    filled: int = 0
    fill_value: float | None = None
    extra_predictions: int = 0
    users_left_out: int = 0  # truth users whose every pair was skipped
    duplicates_truth: int = 0  # duplicate rows dropped by duplicates='first'|'last'
    duplicates_predictions: int = 0
    outside_scale: int = 0  # predictions outside the declared scale (evaluated as they are unless clipped)
    clipped: int = 0
    examples: Mapping[str, Sequence[str]] = field(default_factory=dict)

    @property
    def prediction_coverage(self) -> float:
        """Share of truth pairs that had a prediction (before filling)."""
        return 1.0 - self.missing / self.truth_pairs if self.truth_pairs else float("nan")

    def notes(self) -> list[str]:
        out = []

        def ex(key: str) -> str:
            ids = list(self.examples.get(key, ()))
            return f" (e.g. {', '.join(map(str, ids[:3]))})" if ids else ""

        if self.missing:
            nan = f", {self.missing_nan} of them null or NaN" if self.missing_nan else ""
            if self.policy == "skip":
                what = "are left out (missing='skip')"
            else:
                what = f"are filled with {self.fill_value:g} (missing='fill')"
            out.append(f"{self.missing} of {self.truth_pairs} test pairs have no prediction{nan} and {what}"
                       f"{ex('missing')}; prediction coverage {self.prediction_coverage:.4f}")
        if self.users_left_out:
            out.append(f"{self.users_left_out} users have no predicted pair and are left out{ex('users_left_out')}")
        if self.extra_predictions:
            out.append(f"{self.extra_predictions} predictions are for pairs absent from the truth and are left out"
                       f"{ex('extra')}")
        if self.duplicates_truth:
            out.append(f"{self.duplicates_truth} duplicate (user, item) rows of the truth were dropped")
        if self.duplicates_predictions:
            out.append(f"{self.duplicates_predictions} duplicate (user, item) rows of the predictions were dropped")
        if self.outside_scale:
            how = "clipped to it (clip=True)" if self.clipped else "evaluated as they are (clip=True clips them)"
            out.append(f"{self.outside_scale} predictions are outside the declared scale and are {how}"
                       f"{ex('outside')}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "evaluated": self.evaluated,
            "pairs": self.pairs,
            "items": self.items,
            "truth_pairs": self.truth_pairs,
            "prediction_rows": self.prediction_rows,
            "missing": self.missing,
            "missing_nan": self.missing_nan,
            "skipped": self.skipped,
            "filled": self.filled,
            "fill_value": self.fill_value,
            "extra_predictions": self.extra_predictions,
            "users_left_out": self.users_left_out,
            "duplicates_truth": self.duplicates_truth,
            "duplicates_predictions": self.duplicates_predictions,
            "outside_scale": self.outside_scale,
            "clipped": self.clipped,
            "prediction_coverage": self.prediction_coverage,
        }


# --------------------------------------------------------------------------- one side


@dataclass
class _Side:
    """Ids and values of one input, row-aligned, before coding."""

    users: pa.Array
    items: pa.Array
    values: np.ndarray  # float64, NaN where null
    name: str  # "truth" / "predictions" / a file name, for messages
    error: Callable[[str, int | None], InputError]
    values2: np.ndarray | None = None  # one-table form: the predictions

    def __len__(self) -> int:
        return len(self.values)


def _plain_error(name: str) -> Callable[[str, int | None], InputError]:
    def make(message: str, row: int | None = None) -> InputError:
        if row is None:
            return InputError(f"{name}: {message}")
        return InputError(f"row {row} of the {name}: {message}")

    return make


def _pick(columns: Sequence[str], candidates: Sequence[str], taken: set[str], role: str = "",
          source: str | None = None) -> str | None:
    """The one column matching ``candidates`` (io's resolver: two matches are an error naming both)."""
    from ..io.columns import candidates as _candidates

    found = _candidates(list(columns), role or "value", set(taken), aliases=candidates)
    if len(found) > 1:
        flag = "prediction" if role == "prediction" else "rating"
        raise InputError(f"columns {', '.join(map(repr, found))} could each be the {role} column; name one with "
                         f"{flag}=... (CLI: --{flag}-column)", source=source)
    return found[0] if found else None


def _given(columns: Sequence[str], name: str, role: str, source: str) -> str:
    from ..io.columns import resolve

    return resolve(list(columns), {role: name}, source=source)[role]


def _as_array(col: Any) -> pa.Array:
    if isinstance(col, pa.ChunkedArray):
        return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return col


def _numeric(col: Any, what: str, side_error: Callable[[str, int | None], InputError]) -> np.ndarray:
    arr = _as_array(col)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if not (numeric_type(t) or pa.types.is_null(t)):
        try:
            arr = pc.cast(arr, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            for i in range(len(arr)):
                v = arr[i].as_py()
                if v is None:
                    continue
                try:
                    float(v)
                except (TypeError, ValueError):
                    raise side_error(f"{what} is not a number: {v!r}", i) from None
            raise side_error(f"the {what} column has type {t}; expected numbers", None) from None
    if not pa.types.is_floating(arr.type) or arr.type != pa.float64():
        arr = pc.cast(arr, pa.float64())
    out = arr.to_numpy(zero_copy_only=False)
    if arr.null_count:
        out = np.array(out, dtype=np.float64)
        out[np.asarray(arr.is_null())] = np.nan
    return np.asarray(out, dtype=np.float64)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _is_vector(obj: Any) -> bool:
    """A 1-D sequence of numbers (numpy array, list, pandas Series, pyarrow numeric array)."""
    if isinstance(obj, np.ndarray):
        return obj.ndim == 1 and obj.dtype.kind in "biuf"
    if isinstance(obj, (pa.Array, pa.ChunkedArray)):
        t = obj.type
        return bool(pa.types.is_integer(t) or pa.types.is_floating(t))
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(obj, pd.Series):
        return obj.dtype.kind in "biuf"
    if isinstance(obj, (list, tuple)):
        return all(_is_number(x) or x is None for x in obj)
    return False


def _is_pairs(obj: Any) -> bool:
    if isinstance(obj, np.ndarray):
        return obj.ndim == 2 and obj.shape[1] == 2 and obj.dtype.kind in "biuf"
    return isinstance(obj, (list, tuple)) and len(obj) > 0 and all(
        isinstance(p, (tuple, list)) and len(p) == 2 and all(_is_number(v) or v is None for v in p) for p in obj)


def _is_nested(obj: Any) -> bool:
    return isinstance(obj, Mapping) and len(obj) > 0 and all(isinstance(v, Mapping) for v in obj.values())


def _vector(obj: Any, what: str) -> np.ndarray:
    if isinstance(obj, (pa.Array, pa.ChunkedArray)):
        return _numeric(obj, what, _plain_error(what))
    try:
        return np.asarray([np.nan if v is None else v for v in obj] if isinstance(obj, (list, tuple)) else obj,
                          dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be numbers") from None


def _ids(values: Any, n: int, what: str, default: str | None) -> pa.Array:
    if values is None:
        if default is not None:
            return pa.array([default] * n, type=pa.string())
        return pa.array(np.arange(n, dtype=np.int64))
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        arr = _as_array(values)
    else:
        seq = values.tolist() if hasattr(values, "tolist") else list(values)
        arr = pa.array(seq) if all(isinstance(v, (int, np.integer)) for v in seq) else pa.array(
            [None if v is None else str(v) for v in seq], type=pa.string())
    if len(arr) != n:
        raise InputError(f"{what} and ratings have different lengths: {len(arr)} and {n}")
    return arr


def _from_nested(obj: Mapping[Any, Mapping[Any, Any]], name: str) -> _Side:
    users, items, vals = [], [], []
    for u, row in obj.items():
        for i, v in row.items():
            users.append(str(u))
            items.append(str(i))
            vals.append(np.nan if v is None else v)
    try:
        values = np.asarray(vals, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name}: ratings must be numbers") from None
    return _Side(pa.array(users, type=pa.string()), pa.array(items, type=pa.string()), values, name,
                 _plain_error(name))


def _from_table(obj: Any, name: str, *, user: str | None, item: str | None, value: str | None,
                value_names: Sequence[str], value_role: str, second: str | None = None,
                second_names: Sequence[str] = (), second_role: str = "") -> _Side:
    from ..io.interactions import read_interactions

    data = read_interactions(obj, user=user, item=item, rating=False, timestamp=False)
    source = data.source or name
    columns = [str(c) for c in data.table.column_names]
    taken = {data.user, data.item}
    # the prediction column of a one-table input is picked first, so that "rating" stays the true rating
    second_col = None
    if second_role:
        second_col = _given(columns, second, second_role, source) if second is not None else _pick(
            columns, [n for n in second_names if n != "rating"], taken, second_role, source)
        if second_col is None:
            raise InputError(
                f"cannot find the {second_role} column among {', '.join(map(repr, columns))}; name it with "
                f"prediction=... (CLI: --prediction-column), or use one of: "
                f"{', '.join(n for n in second_names[:6])}", source=source)
        taken.add(second_col)
    col = _given(columns, value, value_role, source) if value is not None else _pick(columns, value_names, taken,
                                                                                      value_role, source)
    if col is None:
        flag = "rating" if value_role == "true rating" else "prediction"
        raise InputError(
            f"cannot find the {value_role} column among {', '.join(map(repr, columns))}; name it with "
            f"{flag}=... (CLI: --{flag}-column), or use one of: {', '.join(value_names[:6])}", source=source)

    def err(message: str, row: int | None = None) -> InputError:
        return data.input_error(message, row)

    values = _numeric(data.table.column(col), value_role, err)
    second_values = _numeric(data.table.column(second_col), second_role, err) if second_col else None
    return _Side(_as_array(data.table.column(data.user)), _as_array(data.table.column(data.item)), values,
                 source, err, second_values)


@dataclass
class _Columns:
    user: str | None = None
    item: str | None = None
    rating: str | None = None
    prediction: str | None = None


def _load_sides(truth: Any, predictions: Any, users: Any, items: Any, cols: _Columns) -> tuple[_Side, _Side | None]:
    """(truth side, predictions side or None when the truth side holds both)."""
    if predictions is None:
        if _is_pairs(truth):
            arr = np.asarray([[np.nan if v is None else v for v in p] for p in truth], dtype=np.float64) \
                if not isinstance(truth, np.ndarray) else truth.astype(np.float64)
            n = len(arr)
            side = _Side(_ids(users, n, "users", "all"), _ids(items, n, "items", None), arr[:, 0],
                         "pairs", _plain_error("(true, predicted) pairs"), arr[:, 1].copy())
            return side, None
        if _is_vector(truth):
            raise InputError("predictions are missing: give true and predicted ratings as two arrays, "
                             "or one list of (true, predicted) pairs, or one table with both columns")
        side = _from_table(truth, "ratings", user=cols.user, item=cols.item, value=cols.rating,
                           value_names=TRUE_NAMES, value_role="true rating", second=cols.prediction,
                           second_names=PREDICTION_NAMES, second_role="prediction")
        return side, None
    if _is_vector(truth) or _is_vector(predictions):
        if not (_is_vector(truth) and _is_vector(predictions)):
            raise InputError("true and predicted ratings must both be arrays of numbers, or both be tables")
        t = _vector(truth, "true ratings")
        p = _vector(predictions, "predicted ratings")
        if len(t) != len(p):
            raise InputError(f"true and predicted ratings have different lengths: {len(t)} and {len(p)}")
        n = len(t)
        side = _Side(_ids(users, n, "users", "all"), _ids(items, n, "items", None), t, "ratings",
                     _plain_error("ratings"), p)
        return side, None
    if users is not None or items is not None:
        raise ParameterError("users= and items= go with aligned arrays; tables carry their own id columns")
    if _is_nested(truth):
        ts = _from_nested(truth, "truth")
    else:
        ts = _from_table(truth, "truth", user=cols.user, item=cols.item, value=cols.rating, value_names=TRUE_NAMES,
                         value_role="true rating")
    if _is_nested(predictions):
        ps = _from_nested(predictions, "predictions")
    else:
        ps = _from_table(predictions, "predictions", user=cols.user, item=cols.item, value=cols.prediction,
                         value_names=PREDICTION_NAMES, value_role="prediction")
    return ts, ps


# --------------------------------------------------------------------------- id coding


def _code_ids(arrays: Sequence[pa.Array]) -> tuple[list[np.ndarray], pa.Array]:
    """Codes of every array over one vocabulary: the union of their ids, sorted as text.

    Ids are text (``1`` and ``"1"`` are the same id). Non-negative integer ids of
    moderate size take a counting path (no hashing or sorting of the rows).
    """
    arrays = [_as_array(a) for a in arrays]
    arrays = [a.dictionary_decode() if pa.types.is_dictionary(a.type) else a for a in arrays]
    total = sum(len(a) for a in arrays)
    if arrays and all(pa.types.is_integer(a.type) for a in arrays) and total:
        nps = [a.to_numpy(zero_copy_only=False) for a in arrays]
        lo = min(int(x.min()) for x in nps if len(x))
        hi = max(int(x.max()) for x in nps if len(x))
        if lo >= 0 and hi < max(4 * total + 1024, 1 << 20) and hi < (1 << 28):
            present = np.zeros(hi + 1, dtype=bool)
            for x in nps:
                present[x] = True
            values = np.flatnonzero(present)
            text = values.astype(str)
            order = np.argsort(text, kind="stable")
            table = np.zeros(hi + 1, dtype=np.int64)
            table[values[order]] = np.arange(len(values), dtype=np.int64)
            return [table[x] for x in nps], pa.array(text[order].tolist(), type=pa.string())
    encoded = []
    dicts = []
    for a in arrays:
        enc = pc.dictionary_encode(a)
        enc = enc.combine_chunks() if isinstance(enc, pa.ChunkedArray) else enc
        d = enc.dictionary
        d = d.cast(pa.string()) if not pa.types.is_string(d.type) else d
        encoded.append(enc.indices.to_numpy(zero_copy_only=False).astype(np.int64))
        dicts.append(d)
    union = pc.unique(pa.concat_arrays(dicts)) if dicts else pa.array([], type=pa.string())
    vocab = union.take(pc.sort_indices(union))
    out = []
    for idx, d in zip(encoded, dicts, strict=True):
        mapping = pc.index_in(d, value_set=vocab).to_numpy(zero_copy_only=False).astype(np.int64)
        out.append(mapping[idx] if len(idx) else np.zeros(0, dtype=np.int64))
    return out, vocab


def _null_row(arr: pa.Array) -> int | None:
    if arr.null_count == 0:
        return None
    return int(np.flatnonzero(np.asarray(arr.is_null()))[0])


def _sorted_key_dups(keys: np.ndarray) -> bool:
    """Whether some key repeats: a check of order first (files grouped by user and item), else a sort."""
    if len(keys) < 2:
        return False
    if bool(np.all(keys[1:] > keys[:-1])):
        return False
    s = np.sort(keys.astype(np.uint32) if int(keys.max()) < 2**32 else keys)
    return bool(np.any(s[1:] == s[:-1]))


def _sort_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keys sorted, and the row of each; equal keys keep their row order.

    One ``np.sort`` of ``key << r | row`` when it fits in 63 bits (much faster than an
    argsort), else a stable argsort.
    """
    n = len(keys)
    if n == 0:
        return keys.astype(np.int64), np.zeros(0, dtype=np.int64)
    rb = max(1, int(n - 1).bit_length())
    if int(keys.max()).bit_length() + rb <= 63:
        packed = (keys.astype(np.int64) << rb) | np.arange(n, dtype=np.int64)
        packed.sort()
        return packed >> rb, packed & ((1 << rb) - 1)
    order = np.argsort(keys, kind="stable")
    return keys[order], order


def _sorted_dups(keys: np.ndarray, rows: np.ndarray, policy: str, side: _Side, uvocab: pa.Array, ivocab: pa.Array,
                 ucodes: np.ndarray, icodes: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Resolve repeated keys of a sorted side: an error, or keep the first / last row of each."""
    if len(keys) < 2:
        return keys, rows, 0
    same = keys[1:] == keys[:-1]
    n_dup = int(np.count_nonzero(same))
    if not n_dup:
        return keys, rows, 0
    if policy == "error":
        r = int(rows[1:][same].min())  # the earliest row that repeats an earlier one
        u, i = uvocab[int(ucodes[r])].as_py(), ivocab[int(icodes[r])].as_py()
        raise side.error(
            f"{n_dup} duplicate (user, item) pairs, e.g. user {u!r} item {i!r} again; remove them or choose "
            "duplicates='first'|'last' (CLI: --duplicates)", r)
    keep = np.ones(len(keys), dtype=bool)
    if policy == "first":
        keep[1:] = ~same
    else:
        keep[:-1] = ~same
    return keys[keep], rows[keep], n_dup


def _dedupe(keys: np.ndarray, policy: str) -> np.ndarray:
    """Rows to keep (sorted positions) when some keys repeat: the first or the last of each."""
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    if policy == "first":
        first = np.ones(len(sk), dtype=bool)
        first[1:] = sk[1:] != sk[:-1]
        return np.sort(order[first])
    last = np.ones(len(sk), dtype=bool)
    last[:-1] = sk[1:] != sk[:-1]
    return np.sort(order[last])


def _dup_error(side: _Side, keys: np.ndarray, uvocab: pa.Array, ivocab: pa.Array, ucodes: np.ndarray,
               icodes: np.ndarray) -> InputError:
    from ..data.table import duplicate_rows

    rows = duplicate_rows(keys)
    r = int(rows[0])
    u, i = uvocab[int(ucodes[r])].as_py(), ivocab[int(icodes[r])].as_py()
    return side.error(
        f"{len(rows)} duplicate (user, item) pairs, e.g. user {u!r} item {i!r} again; remove them or choose "
        "duplicates='first'|'last' (CLI: --duplicates)", r)


# --------------------------------------------------------------------------- the join


@dataclass
class LoadedRatings:
    """Evaluated pairs (coded) with their vocabularies, scale and coverage."""

    true: np.ndarray
    pred: np.ndarray
    user: np.ndarray
    item: np.ndarray
    user_ids: pa.Array
    item_ids: pa.Array
    scale: Scale
    coverage: RatingsCoverage

    def batch(self, context: Mapping[str, Any] | None = None) -> RatingsBatch:
        ctx: dict[str, Any] = {"scale": self.scale, "user_ids": self.user_ids, "item_ids": self.item_ids}
        if context:
            ctx.update(context)
        return RatingsBatch(self.true, self.pred, self.user, self.item, len(self.user_ids), len(self.item_ids),
                            "user", ctx)


def parse_missing(missing: str, fill: float | None) -> tuple[str, float | None]:
    """``missing`` and ``fill`` checked; ``"fill=3"`` is accepted for ``missing="fill", fill=3``."""
    if not isinstance(missing, str):
        raise ParameterError(f"The 'missing' parameter must be one of fail, skip, fill. Got {missing!r} instead.")
    text = missing.strip().lower()
    if text.startswith("fill=") or text.startswith("fill:"):
        try:
            fill = float(text[5:])
        except ValueError:
            raise ParameterError(f"The 'missing' parameter fill=VALUE needs a number. Got {missing!r} instead.") \
                from None
        text = "fill"
    if text not in MISSING_POLICIES:
        raise ParameterError(f"The 'missing' parameter must be one of fail, skip, fill. Got {missing!r} instead.")
    if text == "fill":
        if fill is None:
            raise ParameterError("missing='fill' needs the value to fill with: fill=3.5 (CLI: --missing fill=3.5)")
        try:
            fill = float(fill)
        except (TypeError, ValueError):
            raise ParameterError(f"The 'fill' parameter must be a number. Got {fill!r} instead.") from None
        if not math.isfinite(fill):
            raise ParameterError(f"The 'fill' parameter must be finite. Got {fill!r} instead.")
    elif fill is not None:
        raise ParameterError(f"fill={fill!r} is given but missing={missing!r}; use missing='fill'")
    return text, fill


def load_ratings(
    truth: Any,
    predictions: Any = None,
    *,
    scale: Any = None,
    missing: str = "fail",
    fill: float | None = None,
    clip: bool = False,
    duplicates: str = "error",
    users: Any = None,
    items: Any = None,
    user: str | None = None,
    item: str | None = None,
    rating: str | None = None,
    prediction: str | None = None,
) -> LoadedRatings:
    """Load, validate and join true and predicted ratings (see the module docstring for the forms).

    ``user``, ``item``, ``rating``, ``prediction`` name the columns when detection
    is not enough (``rating`` is the true rating's column, ``prediction`` the
    prediction's).
    """
    policy, fill_value = parse_missing(missing, fill)
    if duplicates not in DUPLICATE_POLICIES:
        raise ParameterError(
            f"The 'duplicates' parameter must be one of error, first, last. Got {duplicates!r} instead.")
    declared = as_scale(scale)
    ts, ps = _load_sides(truth, predictions, users, items, _Columns(user, item, rating, prediction))

    # ids: present, coded over one vocabulary per kind
    for side in (ts, ps):
        if side is None:
            continue
        for arr, what in ((side.users, "user"), (side.items, "item")):
            r = _null_row(arr)
            if r is not None:
                raise side.error(f"{what} id is missing", r)
    sides = [ts] if ps is None else [ts, ps]
    (u_codes, uvocab) = _code_ids([s.users for s in sides])
    (i_codes, ivocab) = _code_ids([s.items for s in sides])
    n_items_all = max(len(ivocab), 1)

    # true ratings: numbers, within the declared scale
    t_val = ts.values
    bad = ~np.isfinite(t_val)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        what = "missing (null or NaN)" if np.isnan(t_val[r]) else f"not finite ({t_val[r]})"
        raise ts.error(f"{int(bad.sum())} true ratings are {what}; every test pair needs its true rating", r)
    if declared is not None and len(t_val):
        out = (t_val < declared.min) | (t_val > declared.max)
        if out.any():
            r = int(np.flatnonzero(out)[0])
            raise ts.error(f"{int(out.sum())} true ratings are outside the declared scale {declared.min:g}:"
                           f"{declared.max:g}, e.g. {t_val[r]:g}", r)

    # predictions: NaN is a missing one (the missing= policy); inf or -inf is an error with its file and line
    p_side, p_val = (ts, ts.values2) if ps is None else (ps, ps.values)
    if p_val is not None and len(p_val):
        inf = np.isinf(p_val)
        if inf.any():
            r = int(np.flatnonzero(inf)[0])
            n_inf = int(np.count_nonzero(inf))
            raise p_side.error(f"{n_inf} prediction{'s are' if n_inf != 1 else ' is'} infinite, e.g. {p_val[r]} "
                               "(a prediction must be a finite number)", r)

    t_keys = u_codes[0] * n_items_all + i_codes[0]
    t_rows: np.ndarray | None = None  # rows of the truth kept, in evaluation order (None: all, in order)
    dup_t = dup_p = 0
    examples: dict[str, list[str]] = {}

    def pair_text(rows: np.ndarray | None, ucodes: np.ndarray, icodes: np.ndarray) -> list[str]:
        rows = np.arange(min(3, len(ucodes))) if rows is None else rows
        return [f"{uvocab[int(ucodes[r])].as_py()}/{ivocab[int(icodes[r])].as_py()}" for r in rows[:3]]

    matched: np.ndarray | None = None  # None: every truth pair has a prediction row
    if ps is None:
        if _sorted_key_dups(t_keys):
            if duplicates == "error":
                raise _dup_error(ts, t_keys, uvocab, ivocab, u_codes[0], i_codes[0])
            t_rows = _dedupe(t_keys, duplicates)
            dup_t = len(t_keys) - len(t_rows)
            t_keys = t_keys[t_rows]
        n_truth = len(t_keys)
        if n_truth == 0:
            raise InputError(f"{ts.name}: there is no (user, item) pair to evaluate")
        assert ts.values2 is not None
        pred = _take(ts.values2, t_rows)
        prediction_rows = n_truth
        extra = 0
    else:
        # both sides sorted by (user, item) key, with their rows, by one sort of packed integers each;
        # the truth pairs are then evaluated in (user, item) order
        kt, t_rows = _sort_rows(t_keys)
        kt, t_rows, dup_t = _sorted_dups(kt, t_rows, duplicates, ts, uvocab, ivocab, u_codes[0], i_codes[0])
        kp, p_rows = _sort_rows(u_codes[1] * n_items_all + i_codes[1])
        kp, p_rows, dup_p = _sorted_dups(kp, p_rows, duplicates, ps, uvocab, ivocab, u_codes[1], i_codes[1])
        n_truth = len(kt)
        if n_truth == 0:
            raise InputError(f"{ts.name}: there is no (user, item) pair to evaluate")
        prediction_rows = len(kp)
        if len(kp) == n_truth and np.array_equal(kp, kt):  # the same pairs on both sides
            matched = np.ones(n_truth, dtype=bool)
            pred = ps.values.take(p_rows)
        elif len(kp):
            at = np.minimum(np.searchsorted(kp, kt), len(kp) - 1)
            matched = kp[at] == kt
            pred = np.where(matched, ps.values.take(p_rows.take(at)), np.nan)
        else:
            matched = np.zeros(n_truth, dtype=bool)
            pred = np.full(n_truth, np.nan)
        n_matched = int(np.count_nonzero(matched))
        extra = prediction_rows - n_matched
        if extra:
            at2 = np.minimum(np.searchsorted(kt, kp), n_truth - 1)
            rows_extra = p_rows[kt[at2] != kp]
            examples["extra"] = pair_text(np.sort(rows_extra)[:3], u_codes[1], i_codes[1])
        if n_matched == 0:
            ex_t = pair_text(np.sort(t_rows[:3]), u_codes[0], i_codes[0])
            ex_p = pair_text(np.sort(p_rows[:3]), u_codes[1], i_codes[1])
            raise InputError(
                f"empty join: none of the {n_truth} test pairs has a prediction (truth pairs e.g. "
                f"{', '.join(ex_t)}; prediction pairs e.g. {', '.join(ex_p) or 'none'}); check that users "
                "and items use the same ids on both sides")

    missing_mask = np.isnan(pred)
    n_missing = int(np.count_nonzero(missing_mask))
    n_missing_nan = n_missing if matched is None else int(np.count_nonzero(missing_mask & matched))
    if n_missing == n_truth:
        raise InputError(f"{ts.name}: every prediction is missing (null or NaN): nothing to evaluate")
    truth_row = np.arange(len(ts)) if t_rows is None else t_rows  # truth row of each kept pair
    if n_missing:
        examples["missing"] = pair_text(truth_row[missing_mask], u_codes[0], i_codes[0])
        if policy == "fail":
            nan = f" ({n_missing_nan} of them null or NaN)" if n_missing_nan else ""
            raise InputError(
                f"{n_missing} of {n_truth} test pairs have no prediction{nan}, e.g. user/item "
                f"{', '.join(examples['missing'])}; choose missing='skip' to leave them out, or "
                "missing='fill=VALUE' to predict VALUE for them (e.g. missing='fill=3'; both are counted) "
                "(CLI: --missing skip | --missing fill=VALUE)")
    skipped = filled = 0
    keep_rows = t_rows
    t_use = _take(t_val, t_rows)
    if n_missing and policy == "skip":
        ok = ~missing_mask
        keep_rows = truth_row[ok]
        t_use, pred = t_use[ok], pred[ok]
        skipped = n_missing
    elif n_missing and policy == "fill":
        assert fill_value is not None
        pred = np.where(missing_mask, fill_value, pred)
        filled = n_missing
    if not np.isfinite(pred).all():
        raise InputError(f"{int((~np.isfinite(pred)).sum())} predictions are infinite: the fill value "
                         f"{fill_value} (missing='fill=VALUE' needs a finite VALUE)")

    clipped = outside = 0
    if declared is not None:
        out = (pred < declared.min) | (pred > declared.max)
        outside = int(np.count_nonzero(out))
        if outside:
            r = int(np.flatnonzero(out)[0])
            row = r if keep_rows is None else int(keep_rows[r])
            u, i = uvocab[int(u_codes[0][row])].as_py(), ivocab[int(i_codes[0][row])].as_py()
            examples["outside"] = [f"{u}/{i}: {pred[r]:g}"]
            if clip:
                clipped = outside
                pred = np.clip(pred, declared.min, declared.max)

    # codes of the evaluated pairs, over vocabularies of the evaluated users and items only
    if ps is not None:  # the pairs are in key order: the codes are the keys' digits
        kept_keys = kt if not (n_missing and policy == "skip") else kt[~missing_mask]
        uc, ic = np.divmod(kept_keys, n_items_all)
    else:
        uc = _take(u_codes[0], keep_rows)
        ic = _take(i_codes[0], keep_rows)
    users_left_out = 0
    if ps is None and keep_rows is None:
        user_ids, item_ids = uvocab, ivocab  # the vocabularies come from exactly these rows
    else:
        uc, user_ids, used_u = _compact(uc, uvocab)
        ic, item_ids, _ = _compact(ic, ivocab)
        if skipped:
            truth_users = np.zeros(len(uvocab), dtype=bool)
            truth_users[_take(u_codes[0], t_rows)] = True
            users_left_out = int(truth_users.sum()) - len(user_ids)
            if users_left_out:
                gone = np.flatnonzero(truth_users & ~used_u)
                examples["users_left_out"] = [uvocab[int(g)].as_py() for g in gone[:3]]

    if declared is not None:
        used_scale = declared
    else:
        used_scale = Scale(float(t_use.min()), float(t_use.max()), "data")
    coverage = RatingsCoverage(
        policy=policy, evaluated=len(user_ids), pairs=len(t_use), items=len(item_ids), truth_pairs=n_truth,
        prediction_rows=prediction_rows, missing=n_missing, missing_nan=n_missing_nan, skipped=skipped,
        filled=filled, fill_value=fill_value, extra_predictions=extra, users_left_out=users_left_out,
        duplicates_truth=dup_t, duplicates_predictions=dup_p, outside_scale=outside, clipped=clipped,
        examples=examples,
    )
    return LoadedRatings(np.ascontiguousarray(t_use, dtype=np.float64), np.ascontiguousarray(pred, dtype=np.float64),
                         np.ascontiguousarray(uc, dtype=np.int64), np.ascontiguousarray(ic, dtype=np.int64),
                         user_ids, item_ids, used_scale, coverage)


def _take(values: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    return values if rows is None else values.take(rows)


def _compact(codes: np.ndarray, vocab: pa.Array) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """Codes over the ids actually used (order kept), the smaller vocabulary, and the used mask."""
    used = np.zeros(len(vocab), dtype=bool)
    used[codes] = True
    if used.all():
        return codes, vocab, used
    new = np.cumsum(used) - 1
    return new[codes].astype(np.int64), vocab.filter(pa.array(used)), used
