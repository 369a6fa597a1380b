"""Turn any accepted input into :class:`~rankmeter.data.Qrels` or :class:`~rankmeter.data.Run`.

Accepted, for both: a ``Qrels``/``Run`` object, a path (TREC text, CSV/TSV, Parquet),
a pandas or polars DataFrame, a pyarrow Table, and plain Python:

- runs: ``{query: {item: score}}`` (ranked by score) or ``{query: [items best first]}``
  (the order is used as given);
- judgments: ``{query: {item: grade}}`` or ``{query: [relevant items]}`` (grade 1 each,
  the per-user list form of Hivemall's ``truth``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
import pyarrow as pa

from .._errors import InputError
from ..data import Qrels, Run
from ..data._table import RowError
from .tables import (
    GRADE_NAMES, ITEM_NAMES, QUERY_NAMES, RANK_NAMES, SCORE_NAMES, is_frame, pick_columns, read_table_file, to_arrow,
)
from .trec import read_trec_qrels, read_trec_run

__all__ = ["read_qrels", "read_run", "as_qrels", "as_run", "detect_format"]

Format = Literal["auto", "trec", "csv", "tsv", "parquet"]


def detect_format(path: str | Path) -> str:
    """``parquet``, ``csv``, ``tsv`` or ``trec``, from the name and, for text, the first line."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".csv":
        return "csv"
    if suffix in (".tsv", ".tab"):
        # a TSV with a header, or a tab-separated TREC file?
        return "tsv" if _has_header(p) else "trec"
    try:
        with open(p, "rb") as fh:
            head = fh.read(4)
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    if head == b"PAR1":
        return "parquet"
    return "trec"


def _has_header(p: Path) -> bool:
    try:
        with open(p, "r", encoding="utf-8", errors="replace") as fh:
            first = fh.readline().lower().split()
    except FileNotFoundError:
        raise InputError("no such file", source=str(p)) from None
    names = set(QUERY_NAMES) | set(ITEM_NAMES)
    return any(f in names for f in first)


def _qrels_from_table(table: pa.Table, source: str, query: str | None, item: str | None, grade: str | None,
                      header_lines: int, **options: Any) -> Qrels:
    cols = pick_columns(table, {"query": QUERY_NAMES, "item": ITEM_NAMES, "grade": GRADE_NAMES},
                        {"query": query, "item": item, "grade": grade}, source, optional=("grade",))
    g = table.column(cols["grade"]) if "grade" in cols else pa.array(np.ones(table.num_rows))

    def build() -> Qrels:
        return Qrels.from_columns(table.column(cols["query"]), table.column(cols["item"]), g, **options)

    try:
        return build()
    except RowError as exc:
        raise InputError(exc.message, source=source, line=exc.row + 1 + header_lines) from None
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(str(exc), source=source) from None


def _run_from_table(table: pa.Table, source: str, query: str | None, item: str | None, score: str | None,
                    rank: str | None, header_lines: int, order: str = "score", **options: Any) -> Run:
    roles = {"query": QUERY_NAMES, "item": ITEM_NAMES, "score": SCORE_NAMES, "rank": RANK_NAMES}
    cols = pick_columns(table, roles, {"query": query, "item": item, "score": score, "rank": rank}, source,
                        optional=("score", "rank"))
    if "score" not in cols and "rank" not in cols:
        raise InputError(
            f"cannot find a score or rank column among {', '.join(table.column_names)}; name one with "
            "score=... or rank=...", source=source)
    if "score" not in cols and order == "score":
        order = "rank"
    sc = table.column(cols["score"]) if "score" in cols else None
    rk = table.column(cols["rank"]) if ("rank" in cols and order == "rank") else None
    try:
        return Run.from_columns(table.column(cols["query"]), table.column(cols["item"]), sc, rank=rk,
                                order=order, **options)  # type: ignore[arg-type]
    except RowError as exc:
        raise InputError(exc.message, source=source, line=exc.row + 1 + header_lines) from None
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(str(exc), source=source) from None


def read_qrels(path: str | Path, *, format: Format = "auto", query: str | None = None, item: str | None = None,
               grade: str | None = None, duplicates: str = "error") -> Qrels:
    """Read judgments from a file, picking the format from the file (TREC, CSV/TSV, Parquet).

    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False)
    >>> _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n"); f.close()
    >>> read_qrels(f.name).to_dict(); os.unlink(f.name)
    {'q1': {'d1': 1.0, 'd2': 0.0}}
    """
    fmt = detect_format(path) if format == "auto" else format
    if fmt == "trec":
        return read_trec_qrels(path, duplicates=duplicates)
    table = read_table_file(path, sep="\t" if fmt == "tsv" else None)
    return _qrels_from_table(table, str(path), query, item, grade, 0 if fmt == "parquet" else 1,
                             duplicates=duplicates)


def read_run(path: str | Path, *, format: Format = "auto", query: str | None = None, item: str | None = None,
             score: str | None = None, rank: str | None = None, order: str = "score",
             duplicates: str = "error") -> Run:
    """Read a run from a file, picking the format from the file (TREC, CSV/TSV, Parquet).

    ``order="score"`` (default) ranks by score descending, ties by item id descending;
    ``order="rank"`` uses the rank column.
    """
    fmt = detect_format(path) if format == "auto" else format
    if fmt == "trec":
        return read_trec_run(path, order=order, duplicates=duplicates)
    table = read_table_file(path, sep="\t" if fmt == "tsv" else None)
    return _run_from_table(table, str(path), query, item, score, rank, 0 if fmt == "parquet" else 1,
                           order=order, duplicates=duplicates)


def _is_pathlike(obj: Any) -> bool:
    return isinstance(obj, (str, Path))


def as_qrels(obj: Any, *, source: str = "qrels", **options: Any) -> Qrels:
    """Any accepted judgments input as :class:`Qrels`."""
    if isinstance(obj, Qrels):
        return obj
    if _is_pathlike(obj):
        return read_qrels(obj, **options)
    if is_frame(obj):
        names = {k: options.pop(k, None) for k in ("query", "item", "grade")}
        return _qrels_from_table(to_arrow(obj, source), f"<{source} table>", names["query"], names["item"],
                                 names["grade"], 0, **options)
    if isinstance(obj, dict):
        q: list[str] = []
        d: list[str] = []
        g: list[float] = []
        for qid, judged in obj.items():
            if isinstance(judged, dict):
                for item, grade in judged.items():
                    q.append(str(qid)); d.append(str(item)); g.append(grade)
            elif isinstance(judged, (list, tuple, set, frozenset, np.ndarray)):
                for item in judged:
                    q.append(str(qid)); d.append(str(item)); g.append(1.0)
            else:
                raise InputError(f"judgments of query {qid!r} must be a dict item -> grade or a list of items, "
                                 f"got {type(judged).__name__}", source=f"<{source} dict>")
        try:
            return Qrels.from_columns(q, d, g, **options)
        except RowError as exc:
            raise InputError(f"query {q[exc.row]!r}, item {d[exc.row]!r}: {exc.message}", source=f"<{source} dict>") from None
    raise InputError(f"cannot read judgments from a {type(obj).__name__}", source=source)


def as_run(obj: Any, *, source: str = "run", **options: Any) -> Run:
    """Any accepted run input as :class:`Run`."""
    if isinstance(obj, Run):
        return obj
    if _is_pathlike(obj):
        return read_run(obj, **options)
    if is_frame(obj):
        names = {k: options.pop(k, None) for k in ("query", "item", "score", "rank")}
        return _run_from_table(to_arrow(obj, source), f"<{source} table>", names["query"], names["item"],
                               names["score"], names["rank"], 0, **options)
    if isinstance(obj, dict):
        values = list(obj.values())
        if values and all(isinstance(v, dict) for v in values):
            q, d, s = [], [], []
            for qid, scored in obj.items():
                for item, score in scored.items():
                    q.append(str(qid)); d.append(str(item)); s.append(score)
            try:
                return Run.from_columns(q, d, s, **options)
            except RowError as exc:
                raise InputError(f"query {q[exc.row]!r}, item {d[exc.row]!r}: {exc.message}",
                                 source=f"<{source} dict>") from None
        if all(isinstance(v, (list, tuple, np.ndarray)) for v in values):
            q, d = [], []
            for qid, items in obj.items():
                for item in items:
                    q.append(str(qid)); d.append(str(item))
            try:
                return Run.from_columns(q, d, order="given", **options)
            except RowError as exc:
                raise InputError(f"query {q[exc.row]!r}, item {d[exc.row]!r}: {exc.message}",
                                 source=f"<{source} dict>") from None
        raise InputError("a run dict maps each query to {item: score} or to [items best first], the same "
                         "form for every query", source=f"<{source} dict>")
    raise InputError(f"cannot read a run from a {type(obj).__name__}", source=source)
