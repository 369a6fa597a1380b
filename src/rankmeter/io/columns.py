"""One column resolver and one typing of columns, for every reader of tables.

Roles and their names
---------------------
:data:`ALIASES` holds one list of column names per role (``query``, ``item``,
``score``, ``grade``, ``rank``, ``rating``, ``prediction``, ``timestamp``). A name
matches an alias when they are equal ignoring case, ``_``, ``-`` and spaces
(``userId`` matches ``user_id``).

:func:`resolve` maps roles to columns:

- a column named explicitly (``query="QID"``) is taken as written (exact case
  first, then the one column equal to it ignoring case);
- otherwise every column matching one of the role's aliases is a *candidate*;
  one candidate is the column, two or more (``query`` and ``Query``, ``user`` and
  ``user_id``) are an error naming them all: rankmeter never guesses between them;
- a column name appearing twice in one table is an error naming it.

Typing
------
Ids are text, always. :func:`id_column` turns an id column into a string array:
text as it is, integers into their decimal text (``7`` -> ``"7"``, the same
everywhere), dictionary columns decoded; floating-point, decimal, temporal,
boolean, nested (struct, list, map) and non-UTF-8 binary columns are refused with
an error naming the column and its type (a float id has no one text form:
``1.0`` and ``1`` would be different ids in different tools). :func:`number_column`
turns a score, grade or rank column into float64; text is parsed with Arrow's
number grammar (the one every reader uses: ``1e3``, ``.5``, ``-2`` are numbers,
``1_000``, ``0x10``, `` 1`` are not), and the first value that is not a number is
reported by its row.

>>> resolve(["QID", "docno", "rel"], {"query": None, "item": None, "grade": None}, source="q.csv")
{'query': 'QID', 'item': 'docno', 'grade': 'rel'}
>>> id_column(pa.array([7, 10]), "query", "qid", "<t>").to_pylist()
['7', '10']
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .._errors import InputError
from ..data import RowError

__all__ = [
    "ALIASES", "resolve", "candidates", "normalise", "check_unique_names", "id_column", "number_column",
    "rank_column", "first_not_number", "option_hint",
]

#: Column names recognised for each role, in order of preference (case, ``_``, ``-`` and
#: spaces ignored).
ALIASES: dict[str, tuple[str, ...]] = {
    "query": ("query", "query_id", "qid", "topic", "topic_id", "user", "user_id", "userid", "uid"),
    "item": ("item", "item_id", "itemid", "iid", "doc", "doc_id", "docid", "docno", "document", "document_id",
             "movie_id", "product_id"),
    "grade": ("relevance", "rel", "grade", "label", "judgment", "judgement", "rating", "gain", "relevance_grade"),
    "score": ("score", "prediction", "predicted", "pred", "rating", "similarity", "sim", "weight"),
    "rank": ("rank", "position", "pos"),
    "subtopic": ("subtopic", "subtopic_id", "sub_topic", "intent", "intent_id", "aspect", "facet", "iteration", "iter"),
    "rating": ("rating", "score", "relevance", "grade", "label"),
    "timestamp": ("timestamp", "time", "ts", "datetime", "date", "unix_time"),
    "user": ("user", "user_id", "userid", "uid", "query", "qid", "query_id"),
}

#: Names that say "a relevance grade" literally: any other grade column gets a note.
LITERAL_GRADE = frozenset({"relevance", "rel", "grade", "relevancegrade", "judgment", "judgement"})


def normalise(name: object) -> str:
    """A column name compared for aliases: lower case, without ``_``, ``-`` and spaces.

    >>> normalise("User_ID"), normalise("movie-id")
    ('userid', 'movieid')
    """
    return re.sub(r"[\s_\-]", "", str(name).lower())


def option_hint(role: str) -> str:
    """How to name a role's column: ``query=... (CLI: --query-column)``."""
    return f"{role}=... (CLI: --{role}-column)"


def _names(columns: Sequence[str]) -> str:
    return ", ".join(repr(c) for c in columns) if columns else "(none)"


def check_unique_names(columns: Sequence[object], source: str | None) -> None:
    """An error naming the first column name that appears twice."""
    seen: set[str] = set()
    for c in columns:
        c = str(c)
        if c in seen:
            raise InputError(f"the column {c!r} appears twice; rename one of them (every column needs its own name)",
                             source=source)
        seen.add(c)


def _given(columns: Sequence[str], name: str, role: str, source: str | None) -> str:
    if name in columns:
        return name
    low = [c for c in columns if c.lower() == str(name).lower()]
    if len(low) == 1:
        return low[0]
    if len(low) > 1:
        raise InputError(f"columns {_names(low)} each match the {role} column {name!r} ignoring case; give its "
                         "exact spelling", source=source)
    raise InputError(f"no column {name!r} for the {role}; found columns {_names(columns)}", source=source)


# read only: a frozenset default (the ignore below)
def candidates(columns: Sequence[str], role: str, taken: set[str] = frozenset(),  # type: ignore[assignment]
               aliases: Sequence[str] | None = None) -> list[str]:
    """The columns that could be the ``role`` column (matching an alias), in table order."""
    keys = {normalise(a) for a in (aliases if aliases is not None else ALIASES[role])}
    return [c for c in columns if c not in taken and normalise(c) in keys]


def resolve(
    columns: Sequence[object],
    roles: Mapping[str, str | None],
    *,
    source: str | None,
    optional: Sequence[str] = (),
    aliases: Mapping[str, Sequence[str]] | None = None,
    hint: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Map each role to its column: explicitly named ones first, then detection.

    ``roles`` maps a role to the name the caller gave (None: detect). An optional role
    that is not found is left out of the result. ``aliases`` overrides the alias lists
    of some roles; ``hint`` overrides how an error says to name a role's column.

    >>> resolve(["query", "Query", "doc"], {"query": None, "item": None},
    ...         source="r.csv")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    rankmeter._errors.InputError: r.csv: columns 'query', 'Query' could each be the query column; name one with
    query=... (CLI: --query-column)
    """
    cols = [str(c) for c in columns]
    check_unique_names(cols, source)
    hint = dict(hint or {})
    out: dict[str, str] = {}
    taken: set[str] = set()
    for role, name in roles.items():
        if name is not None:
            col = _given(cols, name, role, source)
            if col in taken:
                raise InputError(f"the column {col!r} is given for two roles", source=source)
            out[role] = col
            taken.add(col)
    for role in roles:
        if role in out:
            continue
        found = candidates(cols, role, taken, (aliases or {}).get(role))
        how = hint.get(role, option_hint(role))
        if len(found) > 1:
            raise InputError(f"columns {_names(found)} could each be the {role} column; name one with {how}",
                             source=source)
        if found:
            out[role] = found[0]
            taken.add(found[0])
        elif role not in optional:
            names = (aliases or {}).get(role) or ALIASES[role]
            raise InputError(
                f"cannot find the {role} column: no {role} column among {_names(cols)}; name it with {how}, or "
                "use one of: "
                f"{', '.join(list(names)[:6])}", source=source)
    return out


# --------------------------------------------------------------------------- typing


def _plain(col: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    return col


def _is_text(t: pa.DataType) -> bool:
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t))


def id_column(col: pa.Array | pa.ChunkedArray, role: str, name: str, source: str | None,
              keep_ints: bool = False) -> pa.Array:
    """An id column as a string array (see the module docstring); raises InputError or RowError.

    ``keep_ints``: integer ids (signed, or unsigned up to 32 bits) are left as numbers for a
    reader that matches their decimal text itself (the evaluation core does), which saves
    writing 2 x 10^6 numbers as text per million rows.

    >>> id_column(pa.array(["007", "x"]), "item", "doc", "<t>").to_pylist()
    ['007', 'x']
    >>> id_column(pa.array([1.0]), "item", "doc", "r.parquet")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    rankmeter._errors.InputError: r.parquet: the item column 'doc' holds floating-point numbers (double); ids must be
    text or integers (a float id has no single text form: convert the column to integers or text first)
    """
    arr = _plain(col)
    t = arr.type
    as_number = keep_ints and (pa.types.is_signed_integer(t) or t in (pa.uint8(), pa.uint16(), pa.uint32()))
    if as_number:
        out = arr
    elif _is_text(t):
        out = arr if pa.types.is_string(t) else C.cast(arr, pa.string())
    elif pa.types.is_integer(t):
        out = C.cast(arr, pa.string())
    elif pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        try:
            out = C.cast(arr, pa.string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise InputError(f"the {role} column {name!r} has type {col.type} and holds bytes that are not UTF-8 "
                             "text; ids must be text or integers", source=source) from None
    elif pa.types.is_null(t) and len(arr) == 0:
        out = pa.array([], pa.string())
    elif pa.types.is_floating(t) or pa.types.is_decimal(t):
        raise InputError(f"the {role} column {name!r} holds floating-point numbers ({t}); ids must be text or "
                         "integers (a float id has no single text form: convert the column to integers or text "
                         "first)", source=source)
    else:
        raise InputError(f"the {role} column {name!r} has type {col.type}; ids must be text or integers",
                         source=source)
    if out.null_count:
        row = int(np.flatnonzero(np.asarray(out.is_null().to_numpy(zero_copy_only=False)))[0])
        raise RowError(row, f"{role} id is missing (column {name!r})")
    if len(out) and not as_number:  # (a number is never empty)
        offsets = np.frombuffer(out.buffers()[1], dtype=np.int32, count=len(out) + 1 + out.offset)[out.offset:]
        empty = np.flatnonzero(offsets[1:] == offsets[:-1])
        if len(empty):
            raise RowError(int(empty[0]), f"{role} id is empty (column {name!r})")
    return out


def first_not_number(arr: pa.Array) -> int | None:
    """The first row of a text array that Arrow's number grammar does not read (None: all read)."""
    lo, hi = 0, len(arr)
    try:
        C.cast(arr, pa.float64())
        return None
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    while hi - lo > 1:  # the first failing row, by halving: about log2(n) casts
        mid = (lo + hi) // 2
        try:
            C.cast(arr.slice(lo, mid - lo), pa.float64())
            lo = mid
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            hi = mid
    return lo


def rank_column(col: pa.Array | pa.ChunkedArray, name: str | None, source: str | None, *,
                text: bool = True) -> np.ndarray:
    """A rank column checked by the one number grammar (:func:`number_column`), as numbers that order
    exactly: integers as int64 (past 64 bits: their dense ordinal), so that ranks like 1e20 and
    1e20 + 1 never tie; other numbers as float64 (:func:`rankmeter.data.run.rank_values`).

    >>> rank_column(pa.array(["100000000000000000000", "100000000000000000001"]), "r", "<t>").tolist()
    [0, 1]
    >>> rank_column(pa.array(["2", "1.5"]), "r", "<t>").tolist()
    [2.0, 1.5]
    """
    from ..data.run import rank_values

    arr = _plain(col)
    if pa.types.is_integer(arr.type) and not pa.types.is_uint64(arr.type) and not arr.null_count:
        return rank_values(arr)  # (as float64, integers past 2**53 would not even convert)
    values = number_column(col, "rank", name, source, text=text)
    return rank_values(arr) if _is_text(arr.type) else values


def number_column(col: pa.Array | pa.ChunkedArray, what: str, name: str | None, source: str | None,
                  *, finite: bool = True, text: bool = True) -> np.ndarray:
    """A score, grade or rank column as float64 numbers; raises RowError at the first bad row.

    ``what`` names the value in messages (``score``, ``relevance grade``, ``rank``).
    ``text=False`` refuses a text column (typed sources: a DataFrame's string scores
    are a mistake to point out, not text to parse).

    >>> number_column(pa.array(["1", "2.5", "1e3"]), "score", "s", "<t>").tolist()
    [1.0, 2.5, 1000.0]
    >>> number_column(pa.array(["1", "1_000"]), "score", "s", "<t>")
    Traceback (most recent call last):
    ...
    rankmeter.data.table.RowError: score is not a number ('1_000')
    """
    from ..data.ids import to_numpy

    arr = _plain(col)
    t = arr.type
    if arr.null_count:
        row = int(np.flatnonzero(np.asarray(arr.is_null().to_numpy(zero_copy_only=False)))[0])
        raise RowError(row, f"{what} is missing")
    if _is_text(t) and not text:
        where = f" (column {name!r})" if name else ""
        raise InputError(f"{what} column must be numeric, found {t}{where}", source=source)
    if _is_text(t):
        try:
            arr = C.cast(arr, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            bad = first_not_number(arr)
            if bad is not None:
                raise RowError(bad, f"{what} is not a number ({arr[bad].as_py()!r})") from None
            raise
    elif pa.types.is_decimal(t) or pa.types.is_integer(t) or pa.types.is_boolean(t) or pa.types.is_float16(t):
        arr = C.cast(arr, pa.float64())
    elif pa.types.is_null(t) and len(arr) == 0:
        arr = pa.array([], pa.float64())
    elif not pa.types.is_floating(t):
        where = f" {name!r}" if name else ""
        raise InputError(f"the {what} column{where} has type {t}; expected numbers", source=source)
    values = np.asarray(to_numpy(arr), dtype=np.float64)
    if finite:
        bad_rows = np.flatnonzero(~np.isfinite(values))
        if len(bad_rows):
            r = int(bad_rows[0])
            text = _plain(col)[r].as_py()
            raise RowError(r, f"{what} is not a finite number ({text!r})")
    return values
