"""trec_eval's input files, read exactly as trec_eval reads them.

For the ``rankmeter trec_eval`` command: judgments (``qid iter docno rel``, the grade
read with C's ``atol``), results (``qid iter docno rank sim run_id [anything]``, the
score read with ``atof``, the rank column ignored) and z-score files
(``qid measure mean stddev``). trec_eval 10.0 skips lines starting with ``#``;
9.0.8 reads them as data (``comments=False``). ``-`` reads stdin; ``.gz`` files are
decompressed. Each file is returned grouped by query, in file order.

>>> q = parse_qrels_text("1 0 d1 2\\n# note\\n1 0 d2 0\\n", "q.txt")
>>> q.judgments, q.comment_lines
({'1': {'d1': 2, 'd2': 0}}, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
]


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

    out: dict[str, Any] = {}
    skipped = 0
    for n, raw in enumerate(text.splitlines(), start=1):
        f = raw.split()
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
    for n, raw in enumerate(text.splitlines(), start=1):
        f = raw.split()
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

    res = TrecEvalResults()
    for n, raw in enumerate(text.splitlines(), start=1):
        f = raw.split()
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
    for n, raw in enumerate(text.splitlines(), start=1):
        f = raw.split()
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
