"""trec_eval's input files, read exactly as trec_eval reads them.

For the ``rankmeter trec_eval`` command: judgments (``qid iter docno rel``, the grade
read with C's ``atol``), results (``qid iter docno rank sim run_id [anything]``, the
score read with ``atof``, the rank column ignored) and z-score files
(``qid measure mean stddev``). trec_eval 10.0 skips lines starting with ``#``;
9.0.8 reads them as data (``comments=False``). ``-`` reads stdin; ``.gz`` files are
decompressed. Each file is returned grouped by query, in file order.

Fields are split at C's blanks only and ids are kept as their bytes (surrogate-escaped
where they are not UTF-8), as trec_eval keeps them; an id holding a control character,
which trec_eval would print raw, is an error naming the line (:func:`check_ids`).

>>> q = parse_qrels_text("1 0 d1 2\\n# note\\n1 0 d2 0\\n", "q.txt")
>>> q.judgments, q.comment_lines
({'1': {'d1': 2, 'd2': 0}}, 1)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from .._errors import InputError
from .source import open_input

__all__ = [
    "TrecEvalQrels",
    "TrecEvalResults",
    "read_text",
    "parse_qrels_text",
    "parse_prefs_text",
    "parse_results_text",
    "parse_zscores_text",
    "check_ids",
    "check_ids_file",
    "check_table_ids",
]

# C0 controls but the blanks and line ends trec_eval splits at (C's isspace: \t \n \v \f \r), and DEL: trec_eval
# would read them as part of an id and print them raw, so ``rankmeter trec_eval`` refuses ids holding them
_CONTROL = "[\x00-\x08\x0e-\x1f\x7f]"
_CONTROL_TEXT = re.compile(_CONTROL)
_CONTROL_BYTES = re.compile(_CONTROL.encode("ascii"))
# the id fields of each kind of line (0-based), as trec_eval's readers split it
_ID_FIELDS = {"qrels": ((0, "query"), (2, "item")), "run": ((0, "query"), (2, "item"), (5, "run")),
              "prefs": ((0, "query"), (3, "item"))}
# characters Python's str.split() or str.splitlines() break at and C's isspace does not (or not as a line end):
# while a text holds none, they split it as trec_eval does
_PY_ONLY_BREAKS = re.compile("[\v\f\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_C_FIELD = re.compile("[^ \t\n\v\f\r]+")
_LINE_END = re.compile("\r\n|\r|\n")


@dataclass
class TrecEvalQrels:
    """Judgments per query: ``{qid: {docno: grade}}`` in file order."""

    judgments: dict[str, Any]
    comment_lines: int = 0


@dataclass
class TrecEvalResults:
    """Results per query: docnos, scores and the run id of the query's first line."""

    docnos: dict[str, list[str]] = field(default_factory=dict)
    sims: dict[str, list[float]] = field(default_factory=dict)
    run_ids: dict[str, str] = field(default_factory=dict)
    comment_lines: int = 0


def read_text(path: str) -> tuple[str, str]:
    """The text of a file (``-``: stdin; compressed: decompressed) and its name for messages.

    Read through :func:`rankmeter.io.source.open_input`: archives, binary data and UTF-16/32
    are refused by name, a truncated compressed file and a line over the limit are errors.
    """
    inp = open_input(path)
    return inp.read_all().decode("utf-8", errors="surrogateescape"), inp.name


def _split_lines(text: str) -> tuple[list[str], Callable[[str], list[str]]]:
    """The lines of ``text`` and how to split one into fields, as trec_eval does.

    Fields break at C's blanks only and lines at ``\\n``, ``\\r\\n`` and ``\\r`` (as
    rankmeter's TREC parser; trec_eval reads a lone ``\\r`` as a blank): U+00A0,
    U+3000, U+0085, U+2028... are part of the id they are in. Python's own ``split``
    and ``splitlines`` are used while the text holds none of the characters where they
    differ (one search).

    >>> lines, split = _split_lines("q\\u3000a 0 d 1\\r\\nq 0 d\\x85e 1\\n")
    >>> [split(x) for x in lines]
    [['q\\u3000a', '0', 'd', '1'], ['q', '0', 'd\\x85e', '1']]
    """
    if _PY_ONLY_BREAKS.search(text) is None:
        return text.splitlines(), str.split
    lines = _LINE_END.split(text)
    if lines and not lines[-1]:
        lines.pop()
    return lines, _C_FIELD.findall


def _line_number(data: Any, start: int) -> int:
    """The 1-based number of the line starting at ``start`` (line ends ``\\n``, ``\\r\\n``, ``\\r``)."""
    if isinstance(data, str):
        return data.count("\n", 0, start) + data.count("\r", 0, start) - data.count("\r\n", 0, start) + 1
    import numpy as np

    buf = np.frombuffer(data, dtype=np.uint8, count=start)
    cr = buf == 13
    return int(np.count_nonzero(buf == 10) + np.count_nonzero(cr)
               - np.count_nonzero(cr[:-1] & (buf[1:] == 10))) + 1


def check_ids(data: Any, kind: str, source: str, *, comments: bool = True, first_line: int = 1) -> None:
    """Refuse an id that holds a control character, naming the file and line (``rankmeter trec_eval``).

    trec_eval splits fields at C's blanks (space, ``\\t``, ``\\v``, ``\\f``, ``\\r``, ``\\n``)
    and reads any other byte as part of an id, which it prints raw: an ESC in a query id
    would reach the terminal. The id fields (query and item; a run's run id too) of
    ``kind`` (``qrels``, ``run`` or ``prefs``) lines are refused when they hold another
    C0 control (``\\x00``-``\\x08``, ``\\x0e``-``\\x1f``) or DEL; comment lines (10.0:
    lines starting with ``#``) and the other fields are not looked at. ``data`` is text,
    bytes or a memory map: one regular-expression search over it, and the lines it finds
    looked at one by one.

    >>> check_ids("q1 Q0 d\\x1b[2J 1 1.0 r\\n# \\x07\\n", "run", "r.txt", comments=False)
    Traceback (most recent call last):
    ...
    rankmeter._errors.InputError: r.txt:1: item id 'd\\x1b[2J' holds a control character, which trec_eval \
would print raw: rankmeter trec_eval refuses it: 'q1 Q0 d\\x1b[2J 1 1.0 r'
    >>> check_ids("q1 Q0 d 1 1.0 r \\x07\\n# \\x07\\n", "run", "r.txt")  # another field, a comment: accepted
    """
    text = isinstance(data, str)
    pattern: re.Pattern[Any] = _CONTROL_TEXT if text else _CONTROL_BYTES
    nl, cr, hash_ = ("\n", "\r", "#") if text else (b"\n", b"\r", b"#")
    fields = _ID_FIELDS[kind]
    pos = 0
    while True:
        m = pattern.search(data, pos)
        if m is None:
            return
        at = m.start()
        start = max(data.rfind(nl, 0, at), data.rfind(cr, 0, at)) + 1
        ends = [e for e in (data.find(nl, at), data.find(cr, at)) if e >= 0]
        end = min(ends) if ends else len(data)
        line = data[start:end]
        pos = end + 1
        if comments and line[:1] == hash_:
            continue
        split = _C_FIELD.findall(line) if text else bytes(line).split()
        for i, role in fields:
            if i < len(split) and pattern.search(split[i]) is not None:
                shown = split[i] if text else split[i].decode("utf-8", "surrogateescape")
                raw = line if text else bytes(line).decode("utf-8", "surrogateescape")
                raise InputError(f"{role} id {shown!r} holds a control character, which trec_eval would print raw: "
                                 "rankmeter trec_eval refuses it", source=source,
                                 line=_line_number(data, start) + first_line - 1, text=raw)


def check_ids_file(path: str, kind: str, source: str, *, comments: bool = True) -> None:
    """:func:`check_ids` over a plain file, mapped in memory (not read into it)."""
    import mmap

    with open(path, "rb") as fh:
        try:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file cannot be mapped
            return
        with mm:
            if _CONTROL_BYTES.search(mm) is None:  # (the common case: no match object holding the map)
                return
            check_ids(mm, kind, source, comments=comments)


def check_table_ids(path: str, obj: Any, kind: str) -> None:
    """Refuse a query or item id holding a blank or a control character in judgments or a run read from a
    table file (CSV, Parquet...), naming the file and line (row, for binary formats).

    trec_eval cannot read such an id (a blank splits the field), so ``rankmeter trec_eval``
    could not print it as trec_eval would. ``obj`` is the :class:`~rankmeter.data.Qrels`
    or :class:`~rankmeter.data.Run` read from ``path``; its unique ids are searched at
    once (Arrow's regular expressions), and the file is read again only to name the line.
    """
    import pyarrow.compute as pc

    for role, ids in (("query", obj.query_ids), ("item", obj.item_ids)):
        hit = pc.match_substring_regex(ids, "[\\x00-\\x20\\x7f]")
        if not pc.any(hit).as_py():
            continue
        bad = ids[pc.index(hit, True).as_py()].as_py()
        line, text = _table_line(path, kind, role, bad)
        raise InputError(f"{role} id {bad!r} holds a blank or a control character, which trec_eval cannot read "
                         "(a blank splits the field): rankmeter trec_eval refuses it", source=path, line=line,
                         text=text)


def _table_line(path: str, kind: str, role: str, bad: str) -> tuple[int | None, str | None]:
    """The line (CSV/TSV: number and text) or row (Parquet, Arrow: 1-based number) where ``bad`` first is
    the ``role`` id."""
    import pyarrow.compute as pc

    from .columns import resolve
    from .loaders import _csv, detect_format, run_columns
    from .tables import read_arrow, read_parquet

    inp = open_input(path)
    fmt = detect_format(inp)
    line_of = None
    if fmt in ("parquet", "arrow"):
        table = read_parquet(inp) if fmt == "parquet" else read_arrow(inp)
    else:
        roles: dict[str, str | None] = ({"query": None, "item": None, "grade": None} if kind == "qrels" else
                                        {"query": None, "item": None, "score": None, "rank": None})
        table, line_of = _csv(inp, fmt, roles, kind)
    if kind == "qrels":
        cols = resolve(table.column_names, {"query": None, "item": None, "grade": None}, source=path,
                       optional=("grade",))
    else:
        cols, _ = run_columns(table.column_names, path, "score", {"query": None, "item": None, "score": None,
                                                                   "rank": None})
    col = table.column(cols[role])
    row = pc.index(col.cast("string") if col.type != "string" else col, bad).as_py()
    if row < 0:
        return None, None
    if line_of is not None:
        n, text = line_of(row)
        return n, text
    return row + 1, None


def parse_qrels_text(text: str, source: str = "<qrels>", comments: bool = True,
                     groups: bool = False) -> TrecEvalQrels:
    """Judgments from trec_eval's qrels text (4 columns; a docno judged twice is an error).

    ``groups``: the second column names a judgment group (trec_eval ``-R qrels_jg``):
    judgments become ``{qid: {group: {docno: grade}}}``. A blank line is an error, as in
    trec_eval ("Malformed line"); so is a ``#`` after blanks, which is not a comment.

    >>> parse_qrels_text("1 0 d1 2\\n\\n1 0 d2 0\\n", "q.txt")
    Traceback (most recent call last):
    ...
    rankmeter._errors.InputError: q.txt:2: malformed line: blank (trec_eval stops on it too): ''
    """
    from .cnumbers import atol

    check_ids(text, "qrels", source, comments=comments)
    lines, split = _split_lines(text)
    out: dict[str, Any] = {}
    skipped = 0
    for n, raw in enumerate(lines, start=1):
        f = split(raw)
        if not f:
            raise InputError("malformed line: blank (trec_eval stops on it too)", source=source, line=n, text=raw)
        if comments and raw.startswith("#"):
            skipped += 1
            continue
        if len(f) != 4:
            hint = " (a '#' after blanks starts no comment)" if comments and f[0].startswith("#") else ""
            raise InputError(f"expected 4 columns (qid iter docno rel), found {len(f)}{hint}", source=source, line=n,
                             text=raw)
        q = out.setdefault(f[0], {})
        if groups:
            q = q.setdefault(f[1], {})
        if f[2] in q:
            raise InputError(f"item {f[2]!r} is judged twice for query {f[0]!r} (trec_eval refuses duplicates)",
                             source=source, line=n, text=raw)
        q[f[2]] = atol(f[3])
    return TrecEvalQrels(out, skipped)


def parse_prefs_text(text: str, source: str = "<prefs>", comments: bool = True,
                     from_qrels: bool = False) -> TrecEvalQrels:
    """Preferences ``{qid: [(jg, jsg, rel_level, docno), ...]}`` from trec_eval's prefs text.

    ``qid jg jsg docno rel_level`` (-R prefs); with ``from_qrels``, a qrels file read as
    preferences (-R qrels_prefs): ``qid jg docno rel_level``, one sub-group per group.
    """
    from .cnumbers import atof

    out: dict[str, Any] = {}
    skipped = 0
    want = 4 if from_qrels else 5
    check_ids(text, "qrels" if from_qrels else "prefs", source, comments=comments)
    lines, split = _split_lines(text)
    for n, raw in enumerate(lines, start=1):
        f = split(raw)
        if not f:
            continue
        if comments and raw.startswith("#"):
            skipped += 1
            continue
        if len(f) != want:
            cols = "qid jg docno rel_level" if from_qrels else "qid jg jsg docno rel_level"
            raise InputError(f"expected {want} columns ({cols}), found {len(f)}", source=source, line=n, text=raw)
        if from_qrels:
            out.setdefault(f[0], []).append((f[1], "0", atof(f[3]), f[2]))
        else:
            out.setdefault(f[0], []).append((f[1], f[2], atof(f[4]), f[3]))
    return TrecEvalQrels(out, skipped)


def parse_results_text(text: str, source: str = "<run>", comments: bool = True) -> TrecEvalResults:
    """Results from trec_eval's results text (6 columns, more are ignored)."""
    from .cnumbers import atof

    check_ids(text, "run", source, comments=comments)
    lines, split = _split_lines(text)
    res = TrecEvalResults()
    for n, raw in enumerate(lines, start=1):
        f = split(raw)
        if not f:
            continue
        if comments and raw.startswith("#"):
            res.comment_lines += 1
            continue
        if len(f) < 6:
            raise InputError(f"expected 6 columns (qid iter docno rank sim run_id), found {len(f)}",
                             source=source, line=n, text=raw)
        q = f[0]
        if q not in res.docnos:
            res.docnos[q] = []
            res.sims[q] = []
            res.run_ids[q] = f[5]
        res.docnos[q].append(f[2])
        sim = atof(f[4])
        if sim != sim:
            raise InputError("the score is nan, which has no place in a ranking (trec_eval's order of it depends on "
                             "its sort routine and the line order)", source=source, line=n, text=raw)
        res.sims[q].append(sim)
    return res


def parse_zscores_text(text: str, source: str = "<zscores>") -> dict[tuple[str, str], tuple[float, float]]:
    """Means and standard deviations per (query, measure) from a trec_eval ``-Z`` file.

    A (query, measure) given on two lines is an error naming both (trec_eval 10.0 takes
    one of them without a word: a deliberate difference, see docs/trec_eval.md).

    >>> parse_zscores_text("1 map 0.2 0.1\\n1 P_5 0.4 0.2\\n")
    {('1', 'map'): (0.2, 0.1), ('1', 'P_5'): (0.4, 0.2)}
    >>> parse_zscores_text("1 map 0.2 0.1\\n1 map 0.3 0.1\\n", "z.txt")
    Traceback (most recent call last):
    ...
    rankmeter._errors.InputError: z.txt:2: query 1, measure map given twice (first on line 1): '1 map 0.3 0.1'
    """
    from .cnumbers import atof

    out: dict[tuple[str, str], tuple[float, float]] = {}
    first: dict[tuple[str, str], int] = {}
    lines, split = _split_lines(text)
    for n, raw in enumerate(lines, start=1):
        f = split(raw)
        if not f:
            continue
        if len(f) != 4:
            raise InputError(f"expected 4 columns (qid measure mean stddev), found {len(f)}", source=source,
                             line=n, text=raw)
        key = (f[0], f[1])
        if key in first:
            raise InputError(f"query {f[0]}, measure {f[1]} given twice (first on line {first[key]})",
                             source=source, line=n, text=raw)
        first[key] = n
        out[key] = (atof(f[2]), atof(f[3]))
    return out
