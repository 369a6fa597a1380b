"""Judgments by subtopic: ndeval's ``query subtopic item grade`` qrels, in every input form.

TREC text: the second column (trec_eval's "iteration", ignored there) is the subtopic,
as in NIST ndeval's qrels and ir_measures' reading of them; the text is read by the one
TREC parser (:func:`rankmeter.io.trec.parse_trec`: every check and message), and the
subtopics are then taken from the same lines by the same rules. Tables (CSV/TSV, Parquet,
DataFrames): a ``subtopic`` column (aliases ``subtopic_id``, ``intent``, ``aspect``,
``facet``, ``iteration``; or named with ``subtopic=``), its values ids as text. Python:
``{query: {subtopic: {item: grade}}}``. All go through
:func:`rankmeter.data.subtopics.qrels_from_subtopics` (per-item grade = the highest
over the item's subtopics, with a note).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from .._errors import InputError
from ..data import Qrels, RowError
from ..data.subtopics import qrels_from_subtopics
from .source import Input, open_input
from .trec import comment_note, locate, parse_trec

__all__ = ["read_trec_subtopic_qrels", "subtopic_qrels_from_dict", "subtopic_hint"]


def subtopic_hint(column: str | None = None) -> str:
    """Said when judgments repeat a (query, item) and may be judgments by subtopic.

    >>> subtopic_hint("aspect")  # doctest: +NORMALIZE_WHITESPACE
    "; if these are judgments by subtopic (column 'aspect'; query subtopic item grade, as ndeval reads them), read
    them with subtopics=True (CLI: --subtopics)"
    """
    where = f"column {column!r}; " if column else ""
    return (f"; if these are judgments by subtopic ({where}query subtopic item grade, as ndeval reads them), read them "
            "with subtopics=True (CLI: --subtopics)")


def read_trec_subtopic_qrels(path: str | Path | Input, *, comments: bool = True, **options: Any) -> Qrels:
    """Read ndeval's qrels (``query subtopic item grade``, TREC text); ``-`` is standard input.

    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False)
    >>> _ = f.write("q1 1 d1 1\\nq1 2 d1 0\\nq1 2 d2 2\\n"); f.close()
    >>> q = read_trec_subtopic_qrels(f.name); os.unlink(f.name)
    >>> q.to_dict(), q.subtopics.to_dict(q)
    ({'q1': {'d1': 1.0, 'd2': 2.0}}, {'q1': {'1': {'d1': 1.0}, '2': {'d2': 2.0, 'd1': 0.0}}})
    """
    inp = path if isinstance(path, Input) else open_input(path)
    data = inp.read_all()
    if not data.strip():
        raise InputError("the file is empty", source=inp.name)
    parsed = parse_trec(data, "qrels", inp.name, comments=comments)  # every check, messages at file:line
    t = parsed.table
    subtopic = _second_fields(data, comments)
    if len(subtopic) != t.num_rows:  # pragma: no cover - the two readings of one text disagree
        raise InputError(f"read {t.num_rows} judgments but {len(subtopic)} subtopics", source=inp.name)
    q = locate(parsed, lambda: qrels_from_subtopics(t.column("query"), subtopic, t.column("item"), t.column("grade"),
                                                    **options))
    if parsed.comment_lines:
        q = replace(q, comment_lines=parsed.comment_lines,
                    notes=q.notes + (comment_note(parsed.comment_lines, parsed.source),))
    return q  # type: ignore[no-any-return]  # built from untyped pyarrow values


def _second_fields(data: bytes, comments: bool) -> pa.Array:
    """The second field of every data line of TREC text that :func:`parse_trec` has read (so it is UTF-8 and
    every data line has its four fields), by the same rules: a byte order mark dropped, lines ending at
    ``\\n``, ``\\r\\n`` or ``\\r`` (``bytes.splitlines``), fields separated by ASCII blanks (``bytes.split``:
    space, tab, ``\\v``, ``\\f``), blank lines and (``comments``) lines starting with ``#`` skipped.

    >>> _second_fields(b"\\xef\\xbb\\xbf# c\\nq1\\t7 d 1\\r\\n\\n q2 x\\x0bd 0\\rq3 s d 1", True).to_pylist()
    ['7', 'x', 's']
    """
    raw = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    out = []
    for line in raw.splitlines():
        fields = line.split()
        if fields and not (comments and fields[0].startswith(b"#")):
            out.append(fields[1].decode("utf-8"))
    return pa.array(out, pa.string())


def subtopic_qrels_from_dict(obj: dict[Any, Any], where: str, key: Any, numbers: Any, **options: Any) -> Qrels:
    """Qrels from ``{query: {subtopic: {item: grade}}}``; ``key`` and ``numbers`` are the loaders' id and
    number checks."""
    q: list[str] = []
    s: list[str] = []
    d: list[str] = []
    g: list[Any] = []
    for qid, per in obj.items():
        qk = key(qid, "query", where)
        if not isinstance(per, dict):
            raise InputError(f"judgments by subtopic of query {qid!r} must be a dict subtopic -> {{item: grade}}, "
                             f"got {type(per).__name__}", source=where)
        for sub, judged in per.items():
            sk = key(sub, "subtopic", where)
            if not isinstance(judged, dict):
                raise InputError(f"judgments of query {qid!r}, subtopic {sub!r} must be a dict item -> grade "
                                 "(judgments by subtopic are {query: {subtopic: {item: grade}}}), got "
                                 f"{type(judged).__name__}", source=where)
            for item, grade in judged.items():
                q.append(qk)
                s.append(sk)
                d.append(key(item, "item", where))
                g.append(grade)
    grades = numbers(g, "relevance grade", q, d, where)
    try:
        return qrels_from_subtopics(q, s, d, grades, **options)
    except RowError as exc:
        raise InputError(f"query {q[exc.row]!r}, subtopic {s[exc.row]!r}, item {d[exc.row]!r}: {exc.message}",
                         source=where) from None
