"""Turn any accepted input into :class:`~rankmeter.data.Qrels` or :class:`~rankmeter.data.Run`.

Accepted, for both: a ``Qrels``/``Run`` object, a path (TREC text, CSV/TSV, Parquet,
Arrow IPC/Feather; gzip-, bz2-, xz- or zstd-compressed or not; ``-`` for standard input,
FIFOs and ``/dev/stdin`` too), a pandas or polars DataFrame, a pyarrow Table, and plain Python:

- runs: ``{query: {item: score}}`` (ranked by score) or ``{query: [items best first]}``
  (the order is used as given);
- judgments: ``{query: {item: grade}}`` or ``{query: [relevant items]}`` (grade 1 each,
  the per-user list form of Hivemall's ``truth``).

Every form goes through the same steps (:mod:`rankmeter.io.columns`): one column
resolver, ids as text (integers as their decimal text; float ids refused), one
number grammar, errors naming file:line (text files) or the row.

Judgments from a table: the grade column is found by its name; a table of only a
query and an item column means "every judgment is relevant (grade 1)", with a note.
Any other unrecognised column (``query,item,score``; ``query,item,foo``) is an error
naming it, so that a grade is never silently lost; a float score column with no
grade says that the file looks like a run (QRELS comes first). A grade read from a
column not literally named as one (``rating``, ``label``, ``gain``) gets a note
("grade from column 'rating'").
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Literal

import numpy as np
import pyarrow as pa

from .._errors import InputError, ParameterError
from ..data import Qrels, RowError, Run
from ..data.subtopics import qrels_from_subtopics
from .columns import ALIASES, LITERAL_GRADE, candidates, id_column, normalise, number_column, rank_column, resolve
from .source import Input, base_name, open_input
from .subtopics import read_trec_subtopic_qrels, subtopic_hint, subtopic_qrels_from_dict
from .tables import csv_header, is_frame, parse_csv, read_arrow, read_parquet, table_format, to_arrow
from .trec import read_trec_qrels, read_trec_run

__all__ = ["read_qrels", "read_run", "as_qrels", "as_run", "detect_format"]

Format = Literal["auto", "trec", "csv", "tsv", "parquet", "arrow"]
_FORMATS = ("auto", "trec", "csv", "tsv", "parquet", "arrow")
_BOM = b"\xef\xbb\xbf"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return "_" not in text


def _looks_like_header(line: str, sep: str) -> bool:
    import csv

    fields = [f.strip() for f in next(csv.reader([line], delimiter=sep))]
    if len(fields) < 2 or any(_is_number(f) for f in fields if f):
        return False
    known = {normalise(a) for role in ("query", "item", "user") for a in ALIASES[role]}
    return any(normalise(f) in known for f in fields)


def _first_line(head: bytes) -> str:
    text = head[3:] if head.startswith(_BOM) else head
    for raw in text.replace(b"\r", b"\n").split(b"\n"):
        if raw.strip():
            return raw.decode("utf-8", "replace")
    return ""


def detect_format(path: str | Path | Input) -> str:
    """``parquet``, ``arrow``, ``csv``, ``tsv`` or ``trec``, from the first bytes and the name (a compression
    suffix aside).

    Parquet and Arrow IPC/Feather by their magic bytes (or a ``.parquet``/``.feather``/``.arrow``
    name); ``.csv`` names are CSV; otherwise a first line that is a header of id column names
    (``query``, ``item``, ``user``...; no number in it) separated by commas or tabs makes CSV or
    TSV; anything else is TREC text.
    """
    inp = path if isinstance(path, Input) else open_input(path)
    name = base_name(inp.name)
    table = table_format(inp)
    if table is not None:
        return table
    if name.endswith(".csv"):
        return "csv"
    first = _first_line(inp.head)
    if name.endswith((".tsv", ".tab")):
        return "tsv" if _looks_like_header(first, "\t") or _any_alias(first, "\t") else "trec"
    if _looks_like_header(first, ","):
        return "csv"
    if _looks_like_header(first, "\t"):
        return "tsv"
    return "trec"


def _any_alias(line: str, sep: str) -> bool:
    known = {normalise(a) for role in ("query", "item", "user") for a in ALIASES[role]}
    return any(normalise(f) in known for f in line.split(sep))


def _check_format(format: str) -> None:
    if format not in _FORMATS:
        raise ParameterError(f"The 'format' parameter must be one of {', '.join(_FORMATS)}. Got {format!r} instead.")


# --------------------------------------------------------------------------- tables


def _where(source: str, line_of: Callable[[int], tuple[int, str]] | None, row_offset: int) -> Callable[..., InputError]:
    """Turn a RowError into an InputError: file:line for text, the row (1-based) otherwise."""

    def make(exc: RowError) -> InputError:
        if line_of is not None:
            line, text = line_of(exc.row)
            return InputError(exc.message, source=source, line=line, text=text)
        return InputError(exc.message, source=source, line=exc.row + 1 + row_offset)

    return make


def _grade_problem(table: pa.Table, cols: dict[str, str], source: str) -> tuple[str | None, list[str]]:
    """Without a grade column: an error message (an unrecognised column that could hold grades) and notes."""
    rest = [c for c in table.column_names if c not in cols.values()]
    ignored = candidates(rest, "timestamp")
    others = [c for c in rest if c not in ignored]
    notes = ["no grade column: every judgment counts as relevant (grade 1)"]
    if ignored:
        notes.append(f"column{'s' if len(ignored) > 1 else ''} {', '.join(map(repr, ignored))} ignored")
    if not others:
        return None, notes
    col = others[0]
    t = table.schema.field(col).type
    scores = candidates(others, "score")
    if scores and pa.types.is_floating(table.schema.field(scores[0]).type):
        return (f"column {scores[0]!r} holds scores and there is no grade column: this looks like a run, not "
                "judgments (QRELS comes first, then RUN); if it is the grade, name it with grade=... "
                "(CLI: --grade-column)"), notes
    kind = "numbers" if (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)) else "values"
    return (f"no grade column found, but column {col!r} holds {kind}: name the grade column with grade=... "
            "(CLI: --grade-column); only a table of just a query and an item column means 'every judgment "
            "is relevant'"), notes


def _qrels_from_table(table: pa.Table, source: str, query: str | None, item: str | None, grade: str | None,
                      line_of: Callable[[int], tuple[int, str]] | None = None, row_offset: int = 0,
                      subtopics: bool = False, subtopic: str | None = None, **options: Any) -> Qrels:
    roles = {"query": query, "item": item, "grade": grade}
    if subtopics:
        roles["subtopic"] = subtopic
    cols = resolve(table.column_names, roles, source=source, optional=("grade",))
    notes: list[str] = []
    where = _where(source, line_of, row_offset)
    try:
        if "grade" in cols:
            g = number_column(table.column(cols["grade"]), "relevance grade", cols["grade"], source,
                              text=line_of is not None)
            if grade is None and normalise(cols["grade"]) not in LITERAL_GRADE:
                notes.append(f"grade from column {cols['grade']!r}")
        else:
            problem, notes = _grade_problem(table, cols, source)
            if problem is not None:
                raise InputError(problem, source=source)
            g = np.ones(table.num_rows)
        qids = id_column(table.column(cols["query"]), "query", cols["query"], source)
        # integer item ids stay numbers: Qrels codes them as such, writing only the distinct ones as text
        iids = id_column(table.column(cols["item"]), "item", cols["item"], source, keep_ints=not subtopics)
        if subtopics:
            sids = id_column(table.column(cols["subtopic"]), "subtopic", cols["subtopic"], source)
            q = qrels_from_subtopics(qids, sids, iids, g, **options)
        else:
            q = Qrels.from_columns(qids, iids, g, **options)
    except RowError as exc:
        if not subtopics and exc.message.startswith("duplicate judgment"):
            maybe = candidates([c for c in table.column_names if c not in cols.values()], "subtopic")
            if maybe:
                exc = RowError(exc.row, exc.message + subtopic_hint(maybe[0]))
        raise where(exc) from None
    except InputError:
        raise
    except ValueError as exc:
        raise InputError(str(exc), source=source) from None
    return q.annotated(notes=q.notes + tuple(notes)) if notes else q


def _run_from_table(table: pa.Table, source: str, query: str | None, item: str | None, score: str | None,
                    rank: str | None, line_of: Callable[[int], tuple[int, str]] | None = None,
                    row_offset: int = 0, order: str = "score", **options: Any) -> Run:
    cols, order = run_columns(table.column_names, source, order, {"query": query, "item": item, "score": score,
                                                                  "rank": rank})
    where = _where(source, line_of, row_offset)
    try:
        qids = id_column(table.column(cols["query"]), "query", cols["query"], source)
        iids = id_column(table.column(cols["item"]), "item", cols["item"], source)
        text = line_of is not None  # text files: numbers parsed; typed sources: numbers required
        sc = (number_column(table.column(cols["score"]), "score", cols["score"], source, text=text)
              if "score" in cols else None)
        rk = (rank_column(table.column(cols["rank"]), cols["rank"], source, text=text)
              if order == "rank" else None)
        # checked against the Literal values (the ignore below)
        return Run.from_columns(qids, iids, sc, rank=rk, order=order, **options)  # type: ignore[arg-type]
    except RowError as exc:
        raise where(exc) from None
    except InputError:
        raise
    except ValueError as exc:
        raise InputError(str(exc), source=source) from None


def run_columns(names: list[str], source: str, order: str,
                given: dict[str, str | None]) -> tuple[dict[str, str], str]:
    """The run's columns by role (query, item, and score and/or rank as ``order`` needs), and the order to use.

    Without a score column, a rank column ranks the run (``order`` becomes ``rank``).
    """
    cols = resolve(names, {"query": given.get("query"), "item": given.get("item"), "score": given.get("score"),
                           "rank": given.get("rank")}, source=source, optional=("score", "rank"))
    if "score" not in cols and "rank" not in cols:
        rest = [c for c in names if c not in cols.values()]
        judged = candidates(rest, "grade")
        hint = (f"; column {judged[0]!r} looks like relevance grades: is this the judgments file? QRELS comes "
                "first, then RUN" if judged else "")
        raise InputError(f"cannot find a score or rank column among {', '.join(names)}; name one with score=... "
                         f"(CLI: --score-column) or rank=... (CLI: --rank-column){hint}", source=source)
    if "score" not in cols and order == "score":
        order = "rank"
    if order == "rank" and "rank" not in cols:
        raise InputError(f"order='rank' needs a rank column; found {', '.join(names)}", source=source)
    if order != "rank":
        cols.pop("rank", None)
    return cols, order


def _csv(inp: Input, fmt: str, text_roles: dict[str, str | None], kind: str,
         order: str = "score") -> tuple[pa.Table, Any]:
    """Parse CSV/TSV with the columns of the roles (as resolved from the header) read as text."""
    sep = "\t" if fmt == "tsv" else ","
    header = csv_header(inp.head, sep)
    if kind == "qrels":
        cols = resolve(header, text_roles, source=inp.name, optional=("grade",))
    else:
        cols, _ = run_columns(header, inp.name, order, text_roles)
    # ranks as text too: checked and read exactly later (:func:`~rankmeter.io.columns.rank_column`)
    ids = [cols[r] for r in ("query", "item", "subtopic", "rank") if r in cols]
    values = [c for r, c in cols.items() if r not in ("query", "item", "subtopic", "rank")]
    parsed = parse_csv(inp.read_all(), sep, inp.name, text=ids, numbers=values,
                       keep=None if kind == "qrels" else list(cols.values()))
    return parsed.table, parsed.line_of


# --------------------------------------------------------------------------- files


def read_qrels(path: str | Path | Input, *, format: Format = "auto", query: str | None = None,
               item: str | None = None, grade: str | None = None, duplicates: str = "error",
               comments: bool = True, subtopics: bool = False, subtopic: str | None = None) -> Qrels:
    """Read judgments from a file (TREC, CSV/TSV, Parquet, Arrow IPC/Feather; compressed or not; ``-`` for stdin).

    ``comments=False`` reads TREC lines starting with ``#`` as data (trec_eval 9.0.8).
    ``"irds:DATASET_ID"`` reads the judgments of an ir_datasets dataset (:mod:`rankmeter.io.irds`).

    ``subtopics=True`` reads judgments by subtopic, NIST ndeval's ``query subtopic item grade``
    (TREC text: the second column; tables: a ``subtopic`` column, or the one named by
    ``subtopic=``, which implies ``subtopics=True``). The intent-aware metrics
    (``alpha-nDCG@20``, ``ERR-IA@20``...) read them; every other metric sees each item's
    highest grade over its subtopics (a note says so). See docs/intent.md.

    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False)
    >>> _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n"); f.close()
    >>> read_qrels(f.name).to_dict(); os.unlink(f.name)
    {'q1': {'d1': 1.0, 'd2': 0.0}}
    """
    _check_format(format)
    subtopics = _check_subtopics(subtopics, subtopic)
    if isinstance(path, str) and path.startswith("irds:"):  # judgments of an ir_datasets dataset (io/irds.py)
        from .irds import read_irds_qrels

        return read_irds_qrels(path, subtopics=subtopics, duplicates=duplicates)
    inp = path if isinstance(path, Input) else open_input(path)
    fmt = detect_format(inp) if format == "auto" else format
    if fmt == "trec":
        if subtopics:
            return read_trec_subtopic_qrels(inp, comments=comments, duplicates=duplicates)
        try:
            return read_trec_qrels(inp, comments=comments, duplicates=duplicates)
        except InputError as exc:
            if not exc.message.startswith("duplicate judgment"):
                raise
            raise InputError(exc.message + subtopic_hint(), source=exc.source, line=exc.line, text=exc.text) from None
    sub: dict[str, Any] = {"subtopics": subtopics, "subtopic": subtopic}
    if fmt in ("parquet", "arrow"):
        table = read_parquet(inp) if fmt == "parquet" else read_arrow(inp)
        return _qrels_from_table(table, inp.name, query, item, grade, duplicates=duplicates, **sub)
    roles = {"query": query, "item": item, "grade": grade, **({"subtopic": subtopic} if subtopics else {})}
    table, line_of = _csv(inp, fmt, roles, "qrels")
    return _qrels_from_table(table, inp.name, query, item, grade, line_of, duplicates=duplicates, **sub)


def _check_subtopics(subtopics: Any, subtopic: Any) -> bool:
    """The ``subtopics`` keyword, checked; a named ``subtopic`` column implies it."""
    if not isinstance(subtopics, (bool, np.bool_)):
        raise ParameterError(f"The 'subtopics' parameter must be True or False. Got {subtopics!r} instead.")
    if subtopic is not None and not isinstance(subtopic, str):
        raise ParameterError(f"The 'subtopic' parameter must be a column name (a string) or None. Got {subtopic!r} "
                             "instead.")
    return bool(subtopics) or subtopic is not None


def read_run(path: str | Path | Input, *, format: Format = "auto", query: str | None = None,
             item: str | None = None, score: str | None = None, rank: str | None = None, order: str = "score",
             duplicates: str = "error", comments: bool = True) -> Run:
    """Read a run from a file (TREC, CSV/TSV, Parquet, Arrow IPC/Feather; compressed or not; ``-`` for stdin).

    ``order="score"`` (default) ranks by score descending, ties by item id descending;
    ``order="rank"`` uses the rank column. ``comments=False`` reads TREC lines starting
    with ``#`` as data (trec_eval 9.0.8).
    """
    _check_format(format)
    inp = path if isinstance(path, Input) else open_input(path)
    fmt = detect_format(inp) if format == "auto" else format
    if fmt == "trec":
        return read_trec_run(inp, comments=comments, order=order, duplicates=duplicates)
    names = {"query": query, "item": item, "score": score, "rank": rank}
    if fmt in ("parquet", "arrow"):
        table = read_parquet(inp) if fmt == "parquet" else read_arrow(inp)
        return _run_from_table(table, inp.name, query, item, score, rank, order=order, duplicates=duplicates)
    table, line_of = _csv(inp, fmt, names, "run", order)
    return _run_from_table(table, inp.name, query, item, score, rank, line_of, order=order, duplicates=duplicates)


# --------------------------------------------------------------------------- Python objects


def _is_pathlike(obj: Any) -> bool:
    return isinstance(obj, (str, Path))


def _key(value: Any, what: str, source: str) -> str:
    """A dict key or list entry as an id: text as it is, integers as decimal text; floats refused."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (float, np.floating)):
        raise InputError(f"{what} id {value!r} is a {type(value).__name__}; ids must be text or integers",
                         source=source)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return str(value)


def _numbers(values: list[Any], what: str, qs: list[str], ds: list[str], source: str) -> np.ndarray:
    """Dict values as float64; a value that is not a finite number names its query and item."""
    try:
        out = np.asarray(values, dtype=np.float64)
        if out.ndim == 1 and not any(isinstance(v, (str, bytes)) for v in values[:1]):
            bad = np.flatnonzero(~np.isfinite(out))
            if not len(bad):
                return out
    except (TypeError, ValueError, OverflowError):
        pass
    for i, v in enumerate(values):
        problem = None
        if isinstance(v, (str, bytes)):
            problem = "is not a number"
        else:
            try:
                f = float(v)
                if not math.isfinite(f):
                    problem = "is not a finite number"
            except OverflowError:
                problem = "is too large for a float64 number"
            except (TypeError, ValueError):
                problem = "is not a number"
        if problem:
            shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:37] + "..."
            raise InputError(f"query {qs[i]!r}, item {ds[i]!r}: {what} {problem} ({shown})", source=source)
    return np.asarray(values, dtype=np.float64)  # pragma: no cover


def as_qrels(obj: Any, *, source: str = "qrels", **options: Any) -> Qrels:
    """Any accepted judgments input as :class:`Qrels`."""
    if isinstance(obj, Qrels):
        return obj
    if _is_pathlike(obj) or isinstance(obj, Input):
        return read_qrels(obj, **options)
    subtopics = _check_subtopics(options.pop("subtopics", False), options.get("subtopic"))
    if is_frame(obj):
        names = {k: options.pop(k, None) for k in ("query", "item", "grade")}
        options.pop("comments", None)
        where = f"<{source} table>"
        return _qrels_from_table(to_arrow(obj, where), where, names["query"], names["item"], names["grade"],
                                 subtopics=subtopics, **options)
    options.pop("subtopic", None)
    if isinstance(obj, dict) and subtopics:
        options.pop("comments", None)
        return subtopic_qrels_from_dict(obj, f"<{source} dict>", _key, _numbers, **options)
    if isinstance(obj, dict):
        options.pop("comments", None)
        where = f"<{source} dict>"
        q: list[str] = []
        d: list[str] = []
        g: list[Any] = []
        for qid, judged in obj.items():
            qk = _key(qid, "query", where)
            if isinstance(judged, dict):
                for item, grade in judged.items():
                    q.append(qk)
                    d.append(_key(item, "item", where))
                    g.append(grade)
            elif isinstance(judged, (list, tuple, set, frozenset, np.ndarray)):
                for item in judged:
                    q.append(qk)
                    d.append(_key(item, "item", where))
                    g.append(1.0)
            else:
                raise InputError(f"judgments of query {qid!r} must be a dict item -> grade or a list of items, "
                                 f"got {type(judged).__name__}", source=where)
        grades = _numbers(g, "relevance grade", q, d, where)
        try:
            return Qrels.from_columns(q, d, grades, **options)
        except RowError as exc:
            raise InputError(f"query {q[exc.row]!r}, item {d[exc.row]!r}: {exc.message}", source=where) from None
    raise InputError(f"cannot read judgments from a {type(obj).__name__}", source=source)


def as_run(obj: Any, *, source: str = "run", **options: Any) -> Run:
    """Any accepted run input as :class:`Run`."""
    if isinstance(obj, Run):
        return obj
    if _is_pathlike(obj) or isinstance(obj, Input):
        return read_run(obj, **options)
    if is_frame(obj):
        names = {k: options.pop(k, None) for k in ("query", "item", "score", "rank")}
        options.pop("comments", None)
        where = f"<{source} table>"
        return _run_from_table(to_arrow(obj, where), where, names["query"], names["item"], names["score"],
                               names["rank"], **options)
    if isinstance(obj, dict):
        options.pop("comments", None)
        where = f"<{source} dict>"
        values = list(obj.values())
        if values and all(isinstance(v, dict) for v in values):
            q, d, s = [], [], []
            for qid, scored in obj.items():
                qk = _key(qid, "query", where)
                for item, score in scored.items():
                    q.append(qk)
                    d.append(_key(item, "item", where))
                    s.append(score)
            scores = _numbers(s, "score", q, d, where)
            try:
                return Run.from_columns(q, d, scores, **options)
            except RowError as exc:
                raise InputError(f"query {q[exc.row]!r}, item {d[exc.row]!r}: {exc.message}", source=where) from None
        if all(isinstance(v, (list, tuple, np.ndarray)) for v in values):
            q, d = [], []
            for qid, items in obj.items():
                qk = _key(qid, "query", where)
                for item in items:
                    q.append(qk)
                    d.append(_key(item, "item", where))
            try:
                return Run.from_columns(q, d, order="given", **options)
            except RowError as exc:
                raise InputError(f"query {q[exc.row]!r}, item {d[exc.row]!r}: {exc.message}", source=where) from None
        raise InputError("a run dict maps each query to {item: score} or to [items best first], the same "
                         "form for every query", source=where)
    raise InputError(f"cannot read a run from a {type(obj).__name__}", source=source)
