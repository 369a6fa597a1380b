"""Metrics of ranked lists held in SQL arrays: the engine behind the DuckDB and Spark SQL functions.

Each row of a call holds one ranking ``rec`` (item ids, best first), the judged
items ``truth`` (Apache Hivemall's form: the relevant items; optionally with
``grades``, one per truth item) and a cutoff ``k``. A whole column of rows is turned
into one :class:`~rankmeter.metrics.batch.Batch` and evaluated by the registry's
kernels, so a SQL function returns the number ``rankmeter.evaluate`` gives for the
same list, bit for bit.

The graded form of Apache Hivemall's documentation (its ``ndcg`` over
``struct(relscore, itemid)``) passes relevance grades directly: ``rec_grades`` (the grade of each recommended
item, in rank order) and ``truth_grades`` (the grades of all judged items, whose
descending order is the ideal ranking).

Rules for bad input (documented in docs/scale.md):

- a NULL ``rec``, ``truth``, ``grades`` or ``k`` gives NULL (SQL's usual rule);
- ``k <= 0``, a NULL element inside a list, an item twice in ``rec`` or in ``truth``,
  ``grades`` of another length than ``truth``, a non-finite grade: an error naming
  the function, the row and the value;
- a metric that needs what one row cannot know (the top grade of the whole judgment
  set for ``err``, item popularity, a corpus-level metric): an error saying how to
  pass it (``err(max_grade=3)``) or to use ``rankmeter.duckdb.evaluate`` /
  ``rankmeter.spark.evaluate``.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError, ParameterError
from ..evaluation import compute
from ..metrics.batch import Batch
from ..metrics.registry import Metric, parse_metric, sql_functions

__all__ = ["SQL_FUNCTIONS", "list_metric", "graded_metric", "resolve"]

# SQL function name (Apache Hivemall's names) -> registry metric: declared on each metric's spec
# (``sql_name``, ``sql_aliases``) and read from the registry.
SQL_FUNCTIONS: dict[str, str] = sql_functions()
GRADED_NDCG = "ndcg(gain=exp)"  # Hivemall's graded nDCG: gain 2^rel - 1, discount 1/log2(i+1)


class _RowContext(Mapping[str, Any]):
    """The context of a row-wise call: nothing beyond the row is known, and reading it is an error."""

    def __init__(self, function: str) -> None:
        self.function = function

    def __getitem__(self, key: str) -> Any:
        hint = (" give the top grade of the scale as a parameter, e.g. err(max_grade=3)@10,"
                if key == "max_grade" else "")
        raise ParameterError(
            f"{self.function} needs context[{key!r}], which a SQL function applied row by row cannot know;{hint} "
            "or evaluate the whole run with rankmeter.duckdb.evaluate / rankmeter.spark.evaluate (which take a "
            "context)")

    def get(self, key: str, default: Any = None) -> Any:
        return self[key]

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def resolve(function: str, name: str | None = None, k_given: bool = True) -> Metric:
    """The registry metric a SQL call evaluates (without its cutoff when k comes as an argument)."""
    text = name if name is not None else SQL_FUNCTIONS[function]
    m = parse_metric(text)
    if m.spec.input != "ranking":
        raise ParameterError(f"{function}: metric {text!r} evaluates {m.spec.input}, not rankings")
    if m.spec.level == "corpus":
        raise ParameterError(
            f"{function}: {text!r} is a corpus-level metric (one value for all lists together), not a value per "
            "row: use rankmeter.duckdb.evaluate or rankmeter.spark.evaluate")
    if m.params.get("tied_pairs", "order") != "order":
        raise ParameterError(
            f"{function}: {text!r} needs the scores of tied items, which a ranked list does not carry: use "
            "rankmeter.duckdb.evaluate or rankmeter.spark.evaluate on the scored run")
    if k_given and m.k is not None:
        raise ParameterError(f"{function}: give the cutoff once, in the k argument or in the name ({text!r})")
    if k_given and not m.spec.cutoff:
        raise ParameterError(f"{function}: metric {m.spec.name} takes no cutoff k")
    return m


def _as_list_array(arr: Any, what: str, function: str) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not isinstance(arr, pa.Array):
        arr = pa.array(arr)
    if pa.types.is_large_list(arr.type) or pa.types.is_fixed_size_list(arr.type) or \
            pa.types.is_list_view(arr.type) or pa.types.is_large_list_view(arr.type):
        arr = arr.cast(pa.list_(arr.type.value_type))
    if pa.types.is_null(arr.type):
        return pa.nulls(len(arr), pa.list_(pa.string()))
    if not pa.types.is_list(arr.type):
        raise InputError(f"{function}: {what} must be an array (list), found {arr.type}")
    return arr


def _check_k(k: Any, n: int, function: str) -> tuple[np.ndarray, np.ndarray]:
    """Cutoffs as int64 and their validity (NULL k: NULL result)."""
    if k is None:
        return np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool)
    if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
        k = pa.array(np.full(n, int(k), dtype=np.int64))
    if isinstance(k, pa.ChunkedArray):
        k = k.combine_chunks()
    if not isinstance(k, pa.Array):
        k = pa.array(k)
    if not (pa.types.is_integer(k.type) or pa.types.is_null(k.type)):
        raise InputError(f"{function}: k must be an integer, found {k.type}")
    valid = ~np.asarray(k.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    vals = np.asarray(pc.fill_null(k, 1).to_numpy(zero_copy_only=False), dtype=np.int64) if len(k) else \
        np.zeros(0, dtype=np.int64)
    bad = valid & (vals < 1)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise ParameterError(f"The 'k' parameter of {function} must be an int >= 1. Got {int(vals[r])} instead "
                             f"(row {r + 1}).")
    return vals, valid


def _ids(values: pa.Array) -> pa.Array:
    """List elements as strings (integer ids become their decimal text)."""
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if pa.types.is_string(values.type):
        return values
    if pa.types.is_large_string(values.type) or pa.types.is_string_view(values.type):
        return values.cast(pa.string())
    if pa.types.is_integer(values.type):
        return pc.cast(values, pa.string())
    raise InputError(f"item ids must be strings or integers, found {values.type}")


def _flatten(arr: pa.Array, rows: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """Elements of the selected rows' lists and their offsets (rows renumbered 0..)."""
    sub = arr.take(pa.array(rows, type=pa.int64()))
    lengths = np.asarray(pc.list_value_length(sub).to_numpy(zero_copy_only=False), dtype=np.int64) if len(sub) \
        else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    return pc.list_flatten(sub), offsets


def _first_null(values: pa.Array, offsets: np.ndarray, rows: np.ndarray) -> int | None:
    if not values.null_count:
        return None
    i = int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
    return int(rows[np.searchsorted(offsets, i, side="right") - 1])


def _duplicate_row(items: pa.Array, offsets: np.ndarray, rows: np.ndarray) -> tuple[int, str] | None:
    """A row whose list holds an item twice, and that item."""
    n = len(items)
    if n < 2:
        return None
    seg = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    enc = pc.dictionary_encode(items)
    codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    key = seg * max(len(enc.dictionary), 1) + codes
    order = np.argsort(key, kind="stable")
    ks = key[order]
    dup = np.flatnonzero(ks[1:] == ks[:-1])
    if not len(dup):
        return None
    i = int(order[dup[0] + 1])
    return int(rows[seg[i]]), str(items[i].as_py())


def _run_groups(metric: Metric, ks: np.ndarray | None, rows: np.ndarray, build: Any) -> np.ndarray:
    """Evaluate the rows grouped by their cutoff (``ks`` None: the metric's own); values in ``rows`` order."""
    out = np.empty(len(rows), dtype=np.float64)
    if ks is None:
        groups: list[tuple[int | None, np.ndarray]] = [(metric.k, np.arange(len(rows)))]
    else:
        groups = [(int(kval), np.flatnonzero(ks[rows] == kval)) for kval in np.unique(ks[rows])]
    for kval, pick in groups:
        batch = build(rows[pick])
        m = Metric(spec=metric.spec, params=metric.params, k=kval, text="v")
        values, _ = compute(batch, [m])
        out[pick] = values["v"]
    return out


def list_metric(
    function: str,
    rec: Any,
    truth: Any,
    k: Any = None,
    grades: Any = None,
    name: str | None = None,
) -> pa.Array:
    """One value per row: the metric of ranked list ``rec`` against judged items ``truth``.

    ``function`` is the SQL name (``precision``, ``ndcg``, ... or ``rankmeter_metric``
    with ``name``, a registry metric string such as ``'ndcg(gain=exp)@10'``). ``k``
    (an int or an integer array) is the cutoff, or None when the name carries it.
    ``grades`` (a list of numbers per row, parallel to ``truth``) makes the judgments
    graded; without it every truth item has grade 1.

    >>> list_metric("ndcg", pa.array([["1", "3", "2", "6"]]), pa.array([["1", "2", "4"]]), 2).to_pylist()
    [0.6131471927654584]
    """
    metric = resolve(function, name, k_given=k is not None)
    label = function if name is None else f"{function}({name!r})"
    rec = _as_list_array(rec, "rec", label)
    truth = _as_list_array(truth, "truth", label)
    n = len(rec)
    if len(truth) != n:
        raise InputError(f"{label}: rec and truth have different lengths ({n} and {len(truth)})")
    kv, kvalid = _check_k(k, n, label)
    valid = kvalid & ~rec.is_null().to_numpy(zero_copy_only=False) & ~truth.is_null().to_numpy(zero_copy_only=False)
    if grades is not None:
        grades = _as_list_array(grades, "grades", label)
        valid &= ~grades.is_null().to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(valid)
    result = np.full(n, np.nan)
    if len(rows):
        rec_types = rec.type.value_type
        truth_types = truth.type.value_type
        kinds = {_kind(rec_types), _kind(truth_types)} - {"null"}
        if len(kinds) > 1:
            raise InputError(f"{label}: rec holds {rec_types} and truth holds {truth_types}; item ids must be of "
                             "one kind (both strings or both integers)")
        ritems, roff = _flatten(rec, rows)
        titems, toff = _flatten(truth, rows)
        for what, vals, off in (("rec", ritems, roff), ("truth", titems, toff)):
            bad = _first_null(vals, off, rows)
            if bad is not None:
                raise InputError(f"{label}: {what} holds a NULL item at row {bad + 1}")
        ritems = _ids(ritems) if len(ritems) else pa.array([], pa.string())
        titems = _ids(titems) if len(titems) else pa.array([], pa.string())
        for what, vals, off in (("rec", ritems, roff), ("truth", titems, toff)):
            d = _duplicate_row(vals, off, rows)
            if d is not None:
                raise InputError(f"{label}: item {d[1]!r} appears twice in {what} at row {d[0] + 1}"
                                 + (" (aggregate it with collect_set / list(DISTINCT ...))" if what == "truth" else ""))
        if grades is not None:
            gvals, goff = _flatten(grades, rows)
            if not np.array_equal(goff, toff):
                r = int(rows[np.flatnonzero(np.diff(goff) != np.diff(toff))[0]])
                raise InputError(f"{label}: grades must have one value per truth item (row {r + 1})")
            g = _floats(gvals, goff, rows, f"{label}: grades", "")
        else:
            g = np.ones(len(titems), dtype=np.float64)
        ctx = _RowContext(label)
        rseg_all = np.repeat(np.arange(len(rows), dtype=np.int64), np.diff(roff))
        tseg_all = np.repeat(np.arange(len(rows), dtype=np.int64), np.diff(toff))
        # grade of every recommended item: join (row, item) with (row, truth item)
        grade_all = np.zeros(len(ritems))
        matched_all = np.zeros(len(ritems), dtype=bool)
        if len(ritems) and len(titems):
            j = pa.table({"r": rseg_all, "i": ritems, "n": np.arange(len(ritems), dtype=np.int64)}).join(
                pa.table({"r": tseg_all, "i": titems, "g": g}), ["r", "i"], join_type="inner")
            if j.num_rows:
                at = j.column("n").to_numpy()
                grade_all[at] = j.column("g").to_numpy()
                matched_all[at] = True
        position = {int(r): i for i, r in enumerate(rows)}

        def build(sub_rows: np.ndarray) -> Batch:
            local = np.array([position[int(r)] for r in sub_rows], dtype=np.int64)
            return _batch(local, roff, toff, grade_all, matched_all, g, ctx)

        result[rows] = _run_groups(metric, kv if k is not None else None, rows, build)
    return pa.array(result, mask=~valid, type=pa.float64())


def _floats(vals: pa.Array, off: np.ndarray, rows: np.ndarray, where: str, thing: str) -> np.ndarray:
    """The flattened numbers of list cells as float64; a NULL, a non-number or a non-finite value is an
    InputError (``where``: function and argument; ``thing``: what one value is, for the messages)."""
    bad = _first_null(vals, off, rows)
    if bad is not None:
        raise InputError(f"{where} holds a NULL{thing} at row {bad + 1}")
    if not (pa.types.is_integer(vals.type) or pa.types.is_floating(vals.type)
            or pa.types.is_decimal(vals.type) or pa.types.is_null(vals.type)):
        raise InputError(f"{where}{thing + 's' if thing else ''} must be numbers, found {vals.type}")
    out = np.asarray(pc.cast(vals, pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64) \
        if len(vals) else np.zeros(0)
    if not np.isfinite(out).all():
        raise InputError(f"{where} holds a non-finite {thing.strip() or 'number'}")
    return out


def _kind(t: pa.DataType) -> str:
    if pa.types.is_null(t):
        return "null"
    if pa.types.is_integer(t):
        return "integer"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t) or \
            (pa.types.is_dictionary(t) and pa.types.is_string(t.value_type)):
        return "string"
    return str(t)


def _gather(offsets: np.ndarray, local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Element indices of the local rows' segments, and the new offsets."""
    starts, ends = offsets[local], offsets[local + 1]
    lens = ends - starts
    new = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    idx = np.arange(int(new[-1]), dtype=np.int64) - np.repeat(new[:-1] - starts, lens)
    return idx, new


def _batch(local: np.ndarray, roff: np.ndarray, toff: np.ndarray, grade_all: np.ndarray,
           matched_all: np.ndarray, tgrade: np.ndarray, ctx: Mapping[str, Any]) -> Batch:
    ridx, offsets = _gather(roff, local)
    tidx, qrel_offsets = _gather(toff, local)
    pos = np.arange(len(ridx), dtype=np.int64) - np.repeat(offsets[:-1], np.diff(offsets))
    return Batch.build(offsets=offsets, grade=grade_all[ridx], matched=matched_all[ridx], score=-(pos + 1.0),
                       item=np.zeros(len(ridx), dtype=np.int64), qrel_offsets=qrel_offsets, qrel_grade=tgrade[tidx],
                       context=ctx)


def graded_metric(function: str, rec_grades: Any, truth_grades: Any, k: Any, name: str = GRADED_NDCG) -> pa.Array:
    """Hivemall's graded form: the grade of each recommended item (rank order) and all judged grades.

    Hivemall's ``ndcg(rec, truth, k)`` with ``rec`` a list of ``struct(relscore,
    itemid)`` in rank order and ``truth`` the relevance scores: rankmeter's
    ``ndcg(gain=exp)@k``. The ideal ranking is ``truth`` sorted descending (Hivemall
    takes ``truth`` in the order given, which its documented query sorts).

    >>> graded_metric("ndcg", pa.array([[5.0, 2.0, 4.0, 1.0, 3.0]]), pa.array([[5.0, 4.0, 3.0, 2.0, 1.0]]), 2
    ...               ).to_pylist()
    [0.8128912838590545]
    """
    metric = resolve(function, name, k_given=True)
    rec = _as_list_array(rec_grades, "rec", function)
    truth = _as_list_array(truth_grades, "truth", function)
    n = len(rec)
    if len(truth) != n:
        raise InputError(f"{function}: rec and truth have different lengths ({n} and {len(truth)})")
    kv, kvalid = _check_k(k, n, function)
    valid = kvalid & ~rec.is_null().to_numpy(zero_copy_only=False) & ~truth.is_null().to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(valid)
    result = np.full(n, np.nan)
    if len(rows):
        rvals, roff = _flatten(rec, rows)
        tvals, toff = _flatten(truth, rows)
        arrays = []
        for what, vals, off in (("rec", rvals, roff), ("truth", tvals, toff)):
            arrays.append(_floats(vals, off, rows, f"{function}: {what}", " relevance score"))
        rg, tg = arrays
        ctx = _RowContext(function)
        position = {int(r): i for i, r in enumerate(rows)}

        def build(sub_rows: np.ndarray) -> Batch:
            local = np.array([position[int(r)] for r in sub_rows], dtype=np.int64)
            return _batch(local, roff, toff, rg, np.ones(len(rg), dtype=bool), tg, ctx)

        result[rows] = _run_groups(metric, kv, rows, build)
    return pa.array(result, mask=~valid, type=pa.float64())
