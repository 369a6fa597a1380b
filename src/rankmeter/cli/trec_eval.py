"""``rankmeter trec_eval [trec_eval options] QRELS RUN``: a drop-in for trec_eval 10.0.

Same options, defaults, measure order and output as trec_eval (``%-22s\\t%s\\t%6.4f``
lines, counts as integers, the ``all`` lines with summed counts and geometric
means); ``--compat 9.0.8`` follows trec_eval 9.0.8 (the version pytrec_eval
bundles). See docs/trec_eval.md for the measures and the few deliberate
differences (``--bug-compatible`` restores trec_eval's output there).
"""

from __future__ import annotations

import math
from typing import Any

import click

from ._options import Command

_HELP = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.command(cls=Command, name="trec_eval", context_settings=_HELP)
@click.argument("qrels", type=str, required=False)  # required unless -v: checked in the command
@click.argument("run", type=str, required=False)
@click.option("-q", "--query_eval_wanted", "query_flag", is_flag=True,
              help="Also print each query's values.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE[.PARAMS]",
              help="Measure or nickname (official, all_trec, set), repeatable; parameters after a dot: "
                   "P.5,10  ndcg.1=3,2=9  utility.2,-1,0,0  11pt_avg..25,.5,.75.  Default: official.")
@click.option("-c", "--complete_rel_info_wanted", "complete", is_flag=True,
              help="Average over every judged query; a query missing from the run scores 0.")
@click.option("-l", "--level_for_rel", "level", type=int, default=1, show_default=True,
              help="Lowest grade that counts as relevant.")
@click.option("-n", "--nosummary", "no_summary", is_flag=True, help="Do not print the 'all' lines.")
@click.option("-N", "--Number_docs_in_coll", "num_docs", type=int, default=0, show_default=True,
              help="Number of documents in the collection (utility's 4th coefficient).")
@click.option("-M", "--Max_retrieved_per_topic", "max_docs", type=int, default=None,
              help="Evaluate only the top NUM documents of each query.")
@click.option("-J", "--Judged_docs_only", "judged_only", is_flag=True,
              help="Drop unjudged documents from the rankings before evaluating.")
@click.option("-R", "--Rel_info_format", "rel_format", type=click.Choice(["qrels", "qrels_jg", "prefs", "qrels_prefs"]),
              default="qrels",
              show_default=True, help="Format of QRELS.")
@click.option("-T", "--Results_format", "results_format", type=click.Choice(["trec_results"]),
              default="trec_results", show_default=True, help="Format of RUN.")
@click.option("-Z", "--Zscore", "zscore_file", type=str, default=None,
              help="Print z-scores against the means and deviations of this file (qid measure mean sd).")
@click.option("-v", "--version", "version", is_flag=True, help="Print the trec_eval version followed and exit.")
@click.option("--compat", type=click.Choice(["10.0", "9.0.8"]), default="10.0", show_default=True,
              help="trec_eval version to follow (9.0.8, as pytrec_eval: scores held in single precision).")
@click.option("--bug-compatible", is_flag=True,
              help="Also reproduce trec_eval's known bugs (see docs/trec_eval.md).")
@click.option("--path", "path", type=click.Choice(["auto", "vector", "walk"]), default="auto", hidden=True,
              help="How to compute (tests): the vectorised kernels (auto falls back to the walk), or the walk.")
def command(qrels: str | None, run: str | None, query_flag: bool, measures: tuple[str, ...], complete: bool, level: int,
            no_summary: bool, num_docs: int, max_docs: int | None, judged_only: bool, rel_format: str,
            results_format: str, zscore_file: str | None, version: bool, compat: str,
            bug_compatible: bool, path: str = "auto") -> None:
    """Evaluate RUN against QRELS exactly as trec_eval does; '-' reads stdin, .gz is read too."""
    if version:  # alone, as trec_eval -v: no QRELS or RUN needed
        click.echo(f"trec_eval version {compat} (rankmeter)", err=True)
        return
    if qrels is None or run is None:
        raise click.UsageError(f"Missing argument '{'QRELS' if qrels is None else 'RUN'}'.")
    from .._errors import InputError, ParameterError
    from ..metrics.trec.engine import Options, expand_selection

    if qrels == "-" and run == "-":
        raise ParameterError("QRELS and RUN cannot both be '-' (stdin)")
    for flag, value, low in (("-M/--Max_retrieved_per_topic", max_docs, 0), ("-N/--Number_docs_in_coll", num_docs, 0),
                             ("-l/--level_for_rel", level, 0)):
        if value is not None and value < low:
            raise ParameterError(f"{flag} must be an integer >= {low}. Got {value} instead.")
    selected, params = expand_selection(list(measures) or ["official"], compat)
    wanted = {"qrels": "qrels", "qrels_jg": "jg", "prefs": "prefs", "qrels_prefs": "prefs"}[rel_format]
    wrong = [m for m in selected if m.rel_format not in ("", wanted)]
    if wrong:
        needs = {"qrels": "qrels", "jg": "qrels_jg", "prefs": "prefs or -R qrels_prefs"}[wrong[0].rel_format]
        raise ParameterError(f"measure {wrong[0].name} cannot be computed from -R {rel_format} judgments"
                             f" (it needs -R {needs})")
    opts = Options(level=level, num_docs_in_coll=num_docs, judged_only=judged_only, max_docs=max_docs,
                   compat=compat)
    stdin = None
    if "-" in (qrels, run):
        from ..io.source import open_input
        from ..io.trec import read_run_stream_checked

        # (decompressed, binary and archives refused by their first bytes, lines within the limit; a run
        # checked as it arrives: a repeated item ends an endless stream at once)
        from ..io.treceval import check_ids, parse_results_text

        inp = open_input("-")
        comments = compat == "10.0"

        def walk(block: bytes, line: int) -> None:  # text the parser refused: trec_eval's reader, block by block
            try:
                parse_results_text(block.decode("utf-8", "surrogateescape"), inp.name, comments=comments)
            except InputError as exc:
                raise InputError(exc.message, source=exc.source, line=(exc.line or 1) + line - 1,
                                 text=exc.text) from None

        stdin = (read_run_stream_checked(inp, comments=comments, refused=walk,  # (ids with a control character too)
                                         check=lambda block, line: check_ids(block, "run", inp.name, comments=comments,
                                                                             first_line=line))
                 if run == "-" else _judgments_from_stream(inp, rel_format, comments))
    got = None
    if path != "walk" and rel_format == "qrels" and zscore_file is None and not _tabular(qrels) and not _tabular(run):
        got = fast_lines(qrels, run, selected, params, opts, query_flag=query_flag, complete=complete,
                         summary=not no_summary, bug_compatible=bug_compatible, stdin=stdin, strict=path == "vector")
    elif path == "vector":
        raise ParameterError("--path vector: this input goes through trec_eval's walk")
    if got is not None:
        lines, notes = got
    else:
        lines, notes = _slow_lines(qrels, run, selected, params, opts, rel_format=rel_format, query_flag=query_flag,
                                   complete=complete, summary=not no_summary, bug_compatible=bug_compatible,
                                   zscore_file=zscore_file, stdin=stdin)
    # ids that were not UTF-8 go back out as the bytes they were read as (surrogateescape): trec_eval's bytes
    # (click 8.5 deprecates get_text_stream, to be removed in click 9; its stubs type it as object)
    out = click.get_text_stream("stdout", errors="surrogateescape")  # type: ignore[operator]
    out.write("".join(lines))
    out.flush()
    from ..report.terminal import terminal_text

    for note in notes:
        click.echo(f"rankmeter trec_eval: note: {terminal_text(note)}", err=True)  # notes may quote ids


def _judgments_from_stream(inp: Any, rel_format: str, comments: bool) -> bytes:
    """The judgments' text from a stream, checked as it arrives (ids; with ``-R qrels``, a malformed line and a
    document judged twice for a query, which trec_eval refuses) and kept on disk until its end."""
    from .._errors import InputError
    from ..io.streamed import RepeatedPairs, read_stream_checked
    from ..io.treceval import check_ids, parse_qrels_text

    def refused(block: bytes, line: int) -> None:  # rankmeter's parser refused it: trec_eval's reader says why
        try:
            parse_qrels_text(block.decode("utf-8", "surrogateescape"), inp.name, comments=comments)
        except InputError as exc:
            raise InputError(exc.message, source=exc.source, line=(exc.line or 1) + line - 1,
                             text=exc.text) from None

    def message(query: str, item: str) -> str:
        return f"item {item!r} is judged twice for query {query!r} (trec_eval refuses duplicates)"

    return read_stream_checked(
        inp, check=lambda block, line: check_ids(block, "prefs" if rel_format == "prefs" else "qrels", inp.name,
                                                 comments=comments, first_line=line),
        repeats=RepeatedPairs(inp.name, message, comments=comments, refused=refused) if rel_format == "qrels"
        else None)


def _text(path: str, stdin: bytes | None) -> tuple[str, str]:
    from ..io.treceval import read_text

    if path == "-" and stdin is not None:
        import gzip

        raw = gzip.decompress(stdin) if stdin[:2] == b"\x1f\x8b" else stdin
        return raw.decode("utf-8", errors="surrogateescape"), "<stdin>"
    return read_text(path)


def _slow_lines(qrels: str, run: str, selected: list[Any], params: dict[str, str], opts: Any, *, rel_format: str,
                query_flag: bool, complete: bool, summary: bool, bug_compatible: bool, zscore_file: str | None,
                stdin: bytes | None) -> tuple[list[str], list[str]]:
    """trec_eval's readers and its walk, query by query (every option, every judgment format)."""
    from ..io.treceval import parse_prefs_text, parse_qrels_text, parse_results_text, parse_zscores_text, read_text

    comments = opts.compat == "10.0"
    wanted = {"qrels": "qrels", "qrels_jg": "jg", "prefs": "prefs", "qrels_prefs": "prefs"}[rel_format]
    if rel_format == "qrels" and _tabular(qrels):
        q = _tabular_qrels(qrels)
    else:
        text, src = _text(qrels, stdin)
        if rel_format in ("prefs", "qrels_prefs"):
            q = parse_prefs_text(text, src, comments=comments, from_qrels=rel_format == "qrels_prefs")
        else:
            q = parse_qrels_text(text, src, comments=comments, groups=rel_format == "qrels_jg")
    if _tabular(run):
        r = _tabular_run(run, runid=any(m.kind == "runid" for m in selected))
    else:
        text, src = _text(run, stdin)
        r = parse_results_text(text, src, comments=comments)
        del text
    zscores = None
    if zscore_file is not None:
        ztext, zsrc = read_text(zscore_file)
        zscores = parse_zscores_text(ztext, zsrc)
    lines = evaluate_lines(q.judgments, r, selected, params, opts, query_flag=query_flag, complete=complete,
                           summary=summary, zscores=zscores, bug_compatible=bug_compatible,
                           grouped=rel_format == "qrels_jg", prefs=wanted == "prefs")
    notes = coverage_notes(qrels, q, run, r, complete=complete, compat=opts.compat)
    if opts.compat == "9.0.8":
        import numpy as np

        lens = [len(r.sims[x]) for x in r.sims]
        codes = np.repeat(np.arange(len(lens), dtype=np.int64), lens)
        doubles = np.fromiter((x for sims in r.sims.values() for x in sims), dtype=np.float64, count=int(sum(lens)))
        note = float_ties_note(run, codes, doubles)
        if note:
            notes.append(note)
    return lines, notes


def fast_lines(qrels_path: str, run_path: str, selected: list[Any], params: dict[str, str], opts: Any, *,
               query_flag: bool = False, complete: bool = False, summary: bool = True, bug_compatible: bool = False,
               stdin: bytes | None = None, strict: bool = False) -> tuple[list[str], list[str]] | None:
    """trec_eval's output through rankmeter's readers and vectorised kernels, or None to take trec_eval's walk.

    The same lines as :func:`evaluate_lines` (``tests/trec_eval`` checks both on
    trec_eval's golden files). None, so that the faithful path reads the files again
    and says what is wrong in trec_eval's terms, when rankmeter's reader refuses the
    input or reads it otherwise than trec_eval's would (a grade written ``1.5`` or
    ``2e1``, which trec_eval's ``atol`` reads as 1 and 2; a score ``nan``; a
    duplicate item), and for ``-Z``.
    """
    import numpy as np
    import pyarrow as pa

    from .. import _compute as C
    from .._errors import InputError, ParameterError, RankmeterError
    from ..data import Qrels
    from ..data.ids import as_string_array, distinct_ids, ints, to_numpy
    from ..metrics.trec.engine import FLOAT_SCORES, MIN_GEO_MEAN, stored_scores
    from ..metrics.trec.vector import SUMMED
    from ..pytrec_eval import near_rounding, trec_columns, trec_plan

    comments = opts.compat == "10.0"
    # ids with a control character refused first, with their line (not a reason to take the walk)
    raws = {kind: _fast_input(path, kind, stdin, comments) for path, kind in ((qrels_path, "qrels"), (run_path, "run"))}
    try:
        if opts.level < 1:  # grade 0 relevant: trec_eval's 0/0 cases (nan) the kernels do not reproduce
            raise ParameterError("-l 0 goes through trec_eval's walk")
        # the judgments first, their text let go of before the run is read (2M judgments: the two texts'
        # columns and the judgments' coding at once came to about 50 MB more)
        qtext, qraw = _trec_text(qrels_path, "qrels", raws.pop("qrels"), comments)
        qt = qtext.table
        grades = np.asarray(to_numpy(qt.column("grade")), dtype=np.float64)
        fractional = len(grades) and not bool(np.all(grades == np.trunc(grades)))
        if _grades_not_plain(qrels_path, qraw, comments) or fractional:
            raise InputError("a grade trec_eval's atol reads otherwise")
        q = Qrels.from_columns(qt.column("query"), qt.column("item"), grades)
        qrels_comments = qtext.comment_lines
        del qtext, qt, grades  # (the judgments' text columns: Qrels holds its own copy)
        if bug_compatible and len(q.grades):
            top = np.full(q.n_queries, -np.inf)
            np.maximum.at(top, q.row_queries(), q.grades)
            if bool((top < 0).any()):  # trec_eval fails on such a query if it is evaluated first: the walk decides
                raise InputError("a query judged only with negative grades")
            del top
        if _qrels_lines_refused(qrels_path, qraw):  # the walk names the line
            raise InputError("a blank or indented '#' line in the judgments")
        del qraw
        C.release_memory()  # (coding millions of ids leaves their temporaries with the allocators)
        if q.n_queries >= C.MILLIONS:
            C.map_large_arrays()  # (millions of queries: per-query outputs between freed temporaries)
        rtext, rraw = _trec_text(run_path, "run", raws.pop("run"), comments)  # (a compressed run's bytes: kept
        # only to find the run id)
        if not any(m.kind == "runid" for m in selected):
            rraw = None
        table = rtext.table.select(["query", "item", "score"])
        float_note = None
        if opts.compat in FLOAT_SCORES:  # 9.0.8 holds a score in a C float: ties beyond its precision
            doubles = np.asarray(to_numpy(table.column("score")), dtype=np.float64)
            codes = np.asarray(to_numpy(C.dictionary_encode(as_string_array(table.column("query"))).indices),
                               dtype=np.int64)
            float_note = float_ties_note(run_path, codes, doubles)
            table = table.set_column(2, "score", pa.array(stored_scores(doubles, opts.compat)))
        plan = []
        for m in selected:
            text = params.get(m.name)
            p = m.parse_params(text) if text is not None else m.default
            plan.append((m, p, m.value_names(p, text)))
        prep = trec_plan(q, plan, opts)  # (its engine looks the run's query ids up among the judged ones)
        # ids compared as Arrow arrays (2M queries as Python sets and lists took about 1 GB), each run id's
        # judged code by the engine's signature lookup (Arrow's unique and two index_in of 2M ids: about 2 s)
        run_ids = distinct_ids(table.column("query"))
        run_codes = prep.engine.codes(run_ids)  # (-1: not judged)
        n_judged = q.n_queries
        lost = np.ones(n_judged, dtype=bool)
        lost[run_codes[run_codes >= 0]] = False
        missing = C.take(q.query_ids, ints(np.flatnonzero(lost))).to_pylist() if lost.any() else []
        unjudged = C.take(run_ids, ints(np.flatnonzero(run_codes < 0)))  # (for the coverage notes)
        del lost, run_codes
        dummies: list[str] = []
        if bug_compatible and not complete and opts.compat == "10.0" and missing:
            raise InputError("a judged query without results (trec_eval 10.0 stops: the walk names it)")
        if complete and opts.compat == "10.0" and missing:
            dummies = missing
            extra = pa.table({"query": pa.array(dummies, pa.string()),
                              "item": pa.array(["ceci_nest_pas_un_docno"] * len(dummies), pa.string()),
                              "score": pa.array(np.ones(len(dummies)))})
            table = pa.concat_tables([table.cast(extra.schema), extra])
        tc = trec_columns(q, table, plan, opts, strings=query_flag, zero_on=dummies, printed=True, arrow_ids=True,
                          prepared=prep)
        del prep  # (the engine: its arrays for 2M judged queries come to about 100 MB)
    except (RankmeterError, ValueError):
        if strict:
            raise
        return None
    if not len(tc.queries):
        raise InputError("no queries with both results and relevance info (trec_eval exits here too)")
    idx = _byte_order(tc.queries)
    order = idx.tolist() if any(isinstance(v, list) for v in tc.columns.values()) else []
    sorted_ids = C.take(tc.queries, ints(idx))
    qids = sorted_ids.to_pylist() if query_flag else []  # (Python strings only when printed per query)
    n_eval = len(sorted_ids)
    last_id = sorted_ids[n_eval - 1].as_py()
    cols: dict[str, Any] = {name: (np.asarray(v)[idx] if not isinstance(v, list) else [v[i] for i in order])
            for name, v in tc.columns.items()}
    lines: list[str] = []
    if query_flag:
        per: list[list[str]] = []
        for m, _p, names in plan:
            if m.kind in ("runid", "num_q", "gm"):
                continue
            if m.kind == "string":
                per.append([f"{names[0]:<22}\t{qid}\t'{s}'\n" for qid, s in zip(qids, cols[names[0]], strict=True)])
            elif m.kind == "long":
                head = f"{names[0]:<22}\t"
                per.append([f"{head}{qid}\t{int(x)}\n" for qid, x in zip(qids, cols[names[0]].tolist(), strict=True)])
            else:
                for name in names:
                    head = f"{name:<22}\t"
                    col = cols[name]
                    if bool(np.isnan(col).any()):
                        per.append([f"{head}{qid}\t{_fmt(x)}\n" for qid, x in zip(qids, col.tolist(), strict=True)])
                    else:
                        per.append([f"{head}{qid}\t{x:6.4f}\n" for qid, x in zip(qids, col.tolist(), strict=True)])
        lines = [line for row in zip(*per, strict=True) for line in row] if per else []
    if summary:
        means: list[float] = []
        n_q = n_judged if complete else n_eval
        runid = ""
        if any(m.kind == "runid" for m, _, _ in plan):
            # a -c stand-in query carries the run id of the run's first query (byte order), as in trec_eval
            last = (last_id if last_id not in set(dummies)
                    else run_ids[int(_byte_order(run_ids)[0])].as_py())
            runid = _runid(run_path, rraw, last)
        for m, _p, names in plan:
            if m.kind == "runid":
                lines.append(f"{'runid':<22}\tall\t{runid}\n")
            elif m.kind == "num_q":
                lines.append(f"{'num_q':<22}\tall\t{n_q}\n")
            elif m.kind == "long":
                total = _seqsum(cols[names[0]])
                if m.name == "num_rel" and complete:
                    total = _num_rel_all_arrays(q, opts, bug_compatible, total, missing)
                lines.append(f"{names[0]:<22}\tall\t{int(total)}\n")
            elif m.kind == "string":
                continue
            elif m.kind == "gm":
                s = _seqsum(cols[names[0]])
                if complete:
                    s += (n_q - n_eval) * math.log(MIN_GEO_MEAN)
                means.append(math.exp(s / n_q))  # (gm_* are SUMMED)
                lines.append(f"{names[0]:<22}\tall\t{_fmt(means[-1])}\n")
            else:
                for name in names:
                    mean = _seqsum(cols[name]) / n_q
                    if m.name in SUMMED:  # other means add values equal to the walk's bit for bit
                        means.append(mean)
                    lines.append(f"{name:<22}\tall\t{_fmt(mean)}\n")
        if bool(near_rounding(np.array(means)).any()):
            if strict:
                raise ParameterError("--path vector: a mean lies at a rounding boundary (trec_eval's walk prints it)")
            return None  # a mean at a rounding boundary: every query's sum in trec_eval's order (the walk)
    from types import SimpleNamespace

    # the coverage notes need only the ids one input has and the other lacks
    notes = coverage_notes(qrels_path,
                           SimpleNamespace(judgments=dict.fromkeys(missing), comment_lines=qrels_comments),
                           run_path, SimpleNamespace(docnos=dict.fromkeys(unjudged.to_pylist()),
                                                     comment_lines=rtext.comment_lines),
                           complete=complete, compat=opts.compat)
    return lines, notes + ([float_note] if float_note else [])


def _trec_text(path: str, kind: str, raw: bytes | None, comments: bool) -> tuple[Any, bytes | None]:
    """A TREC file parsed (its ``raw`` bytes where they were read already: stdin, a compressed file decompressed
    once, parsed and searched in memory), and those bytes."""
    from ..io.trec import parse_trec, read_trec_text

    if raw is not None:
        return parse_trec(raw, kind, "<stdin>" if path == "-" else path, comments=comments), raw
    return read_trec_text(path, kind, comments=comments), None


def _byte_order(ids: Any) -> Any:
    """The positions of Arrow string ids in byte order (as trec_eval's strcmp), as int64: Arrow's sort when
    the ids are ASCII, else Python's sort of their surrogate-escaped bytes.

    >>> import pyarrow as pa
    >>> _byte_order(pa.array(["b", "a", "B"])).tolist(), _byte_order(pa.array(["é", "z"])).tolist()
    ([2, 1, 0], [1, 0])
    """
    import numpy as np

    from .. import _compute as C
    from ..data.ids import string_buffers, to_numpy

    if not len(ids):
        return np.zeros(0, dtype=np.int64)
    offsets, data = string_buffers(ids)
    if int(data[int(offsets[0]):int(offsets[-1])].max(initial=0)) < 128:
        return np.asarray(to_numpy(C.sort_indices(ids)), dtype=np.int64)
    values = ids.to_pylist()
    return np.array(sorted(range(len(values)), key=lambda i: values[i].encode("utf-8", "surrogateescape")),
                    dtype=np.int64)


def _fast_input(path: str, kind: str, stdin: bytes | None, comments: bool) -> bytes | None:
    """The bytes of an input that is not a plain file (stdin; a compressed file, decompressed once, so that
    every search of it reads the same bytes), or None for a plain file (read and searched by its path); either
    way with its ids checked (:func:`rankmeter.io.treceval.check_ids`: an id holding a control character is an
    error naming the line)."""
    from ..io.source import open_input
    from ..io.treceval import check_ids, check_ids_file

    if path == "-":
        import gzip

        raw = gzip.decompress(stdin) if stdin and stdin[:2] == b"\x1f\x8b" else (stdin or b"")
        check_ids(raw, kind, "<stdin>", comments=comments)
        return raw
    inp = open_input(path)
    if inp.plain_file:
        check_ids_file(path, kind, inp.name, comments=comments)
        return None
    raw = inp.read_all()
    check_ids(raw, kind, inp.name, comments=comments)
    return raw


def float_ties_note(run_name: str, codes: Any, scores: Any) -> str | None:
    """What single precision (trec_eval 9.0.8) does to a run: scores of one query that differ as doubles and
    are equal as floats, so that their order goes by docno. None when there are none.

    >>> import numpy as np
    >>> print(float_ties_note("run", np.array([0, 0, 0, 1]), np.array([1.00000002, 1.00000001, 0.5, 1.0])))
    ... # doctest: +ELLIPSIS
    run: 1 pair of scores of 1 query differ only beyond single precision: tied, ordered by docno, as trec_eval ...
    >>> float_ties_note("run", np.array([0, 1]), np.array([1.00000002, 1.00000001])) is None
    True
    """
    import numpy as np

    from ..metrics.trec.engine import stored_scores

    singles = stored_scores(scores, "9.0.8")
    if not len(scores) or bool(np.array_equal(singles, scores, equal_nan=True)):
        return None
    order = np.lexsort((scores, codes))
    c, a, b = codes[order], scores[order], singles[order]
    merged = (c[1:] == c[:-1]) & (a[1:] != a[:-1]) & (b[1:] == b[:-1])
    pairs = int(np.count_nonzero(merged))
    if not pairs:
        return None
    queries = len(np.unique(c[1:][merged]))
    return (f"{run_name}: {pairs} pair{'s' if pairs > 1 else ''} of scores of {queries} quer"
            f"{'ies' if queries > 1 else 'y'} differ only beyond single precision: tied, ordered by docno, "
            "as trec_eval 9.0.8 does")


def _seqsum(values: Any) -> float:
    """Left-to-right sum, as trec_eval accumulates: numpy's sum is pairwise, its running sum (``cumsum``) goes
    left to right. 64k values at a time, the total carried in front (2M values as Python floats took 64 MB).

    >>> import numpy as np
    >>> _seqsum([0.1] * 10), float(np.sum([0.1] * 10))
    (0.9999999999999999, 1.0)
    """
    import numpy as np

    arr = np.asarray(values, dtype=np.float64)
    block = 1 << 16
    total = 0.0
    for i in range(0, len(arr), block):
        total = float(np.cumsum(np.concatenate(([total], arr[i:i + block])))[-1])
    return total


def _grades_not_plain(path: str, raw: bytes | None, comments: bool) -> bool:
    """Some grade field holds '.', 'e' or 'E' (C's atol would read it otherwise than a float parser).

    With ``comments`` (10.0), lines starting with ``#`` are not looked at.
    """
    import re

    first = rb"[^# \t\v\f\r\n]" if comments else rb"[^ \t\v\f\r\n]"
    pattern = re.compile(rb"(?m)^[ \t\v\f]*" + first + rb"[^ \t\v\f\r\n]*[ \t\v\f]+[^ \t\v\f\r\n]+[ \t\v\f]+"
                         rb"[^ \t\v\f\r\n]+[ \t\v\f]+[^ \t\v\f\r\n]*[.eE]")
    needles = (b".", b"e", b"E")  # (a match holds one of them: a file with none is not searched)
    if raw is not None:
        return _search(raw, pattern, 0, needles) is not None
    return _search_file(path, pattern, needles=needles) is not None


def _qrels_lines_refused(path: str, raw: bytes | None) -> bool:
    """The judgments hold a blank line or a line whose first non-blank is ``#`` after blanks.

    trec_eval stops on either ("Malformed line"; 10.0 skips only lines *starting* with
    ``#``), and so does :func:`rankmeter.io.treceval.parse_qrels_text`.
    """
    import re

    pattern = re.compile(rb"(?m)^(?:[ \t\v\f\r]*\n|[ \t\v\f\r]+(?:#|\Z))")
    # a match is a line that starts with a blank or ends at once: the file's first byte, or a line end and then one
    blanks = b" \t\v\f\r\n"
    needles = tuple(b"\n" + blanks[i:i + 1] for i in range(len(blanks)))
    if raw is not None:
        return _search(raw, pattern, 0, needles, blanks) is not None
    return _search_file(path, pattern, needles=needles, heads=blanks) is not None


def _search(data: Any, pattern: Any, group: int, needles: tuple[bytes, ...] = (), heads: bytes = b"") -> bytes | None:
    """The ``group`` of ``pattern``'s first match in ``data``.

    ``needles``: byte strings one of which every match holds, unless it starts at the data's first byte and
    that byte is one of ``heads``: data without them is not searched (``find`` is memchr, tens of times
    faster than the expression over 27 MB of judgments).

    >>> import re
    >>> _search(b"a 1 b 2", re.compile(rb"[.]"), 0, (b".",)), _search(b"a 1.5", re.compile(rb"[.][0-9]"), 0, (b".",))
    (None, b'.5')
    """
    if needles and not any(data.find(n) >= 0 for n in needles) and bytes(data[:1]) not in heads:
        return None
    m = pattern.search(data)
    return None if m is None else bytes(m.group(group))


def _search_file(path: str, pattern: Any, group: int = 0, needles: tuple[bytes, ...] = (),
                 heads: bytes = b"") -> bytes | None:
    """The ``group`` of ``pattern``'s first match in a file's bytes (mapped, not copied; gzip: decompressed);
    ``needles`` and ``heads`` as :func:`_search` reads them."""
    import gzip
    import mmap

    with open(path, "rb") as fh:
        head = fh.read(2)
        if head == b"\x1f\x8b":
            fh.seek(0)
            return _search(gzip.decompress(fh.read()), pattern, group, needles, heads)
        fh.seek(0)
        try:
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                return _search(mm, pattern, group, needles, heads)
        except ValueError:  # an empty file cannot be mapped
            return None


def _runid(path: str, raw: bytes | None, qid: str) -> str:
    """The run id (6th field) of the first line of query ``qid`` in the run file.

    Found with ``find`` (the line starting ``qid`` and a blank; a regular expression for lines
    that start with blanks), over the bytes or the file mapped in memory.
    """
    import re

    key = qid.encode("utf-8", "surrogateescape")

    def first_line(data: Any) -> bytes | None:
        for sep in (b" ", b"\t"):
            if data[:len(key) + 1] == key + sep:
                at = 0
            else:
                at = data.find(b"\n" + key + sep)
                if at < 0:
                    continue
                at += 1
            end = data.find(b"\n", at)
            return bytes(data[at:end if end >= 0 else len(data)])
        m = re.search(rb"(?m)^[ \t\v\f]*" + re.escape(key) + rb"[ \t\v\f][^\n]*", data)
        return bytes(m.group(0)) if m else None

    if raw is not None:
        line = first_line(raw)
    else:
        import gzip
        import mmap

        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                fh.seek(0)
                line = first_line(gzip.decompress(fh.read()))
            else:
                with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                    line = first_line(mm)
    fields = line.split() if line else []
    return fields[5].decode("utf-8", "surrogateescape") if len(fields) > 5 else ""


def _num_rel_all_arrays(q: Any, opts: Any, bug_compatible: bool, total: float, missing: list[str]) -> float:
    """:func:`_num_rel_all` from a :class:`~rankmeter.data.Qrels`."""
    import numpy as np

    if bug_compatible:
        return float(np.count_nonzero(q.grades > 0))
    if opts.compat == "10.0" or not missing:
        return total
    rowq = q.row_queries()
    ids = q.query_ids.to_pylist()
    gone = set(missing)  # (once: a set per query was quadratic)
    miss = np.isin(np.arange(len(ids)), [i for i, x in enumerate(ids) if x in gone])
    return total + float(np.count_nonzero(miss[rowq] & (q.grades >= opts.level)))


def coverage_notes(qrels_name: str, q: Any, run_name: str, r: Any, *, complete: bool, compat: str) -> list[str]:
    """What trec_eval skips without a word, said on stderr (stdout stays trec_eval's).

    >>> from rankmeter.io.treceval import parse_qrels_text, parse_results_text
    >>> q = parse_qrels_text("# c\\n1 0 a 1\\n2 0 b 1\\n")
    >>> r = parse_results_text("1 Q0 a 1 1.0 x\\n3 Q0 c 1 1.0 x\\n")
    >>> coverage_notes("q", q, "r", r, complete=False, compat="10.0")  # doctest: +NORMALIZE_WHITESPACE
    ['q: 1 comment line skipped', 'r: 1 query without judgments is not evaluated (3)',
     'q: 1 judged query without results is not evaluated (2); -c counts it']
    """
    notes = []
    for name, obj in ((qrels_name, q), (run_name, r)):
        n = getattr(obj, "comment_lines", 0)
        if n:
            notes.append(f"{name}: {n} comment line{'s' if n > 1 else ''} skipped")
    unjudged = sorted(set(r.docnos) - set(q.judgments))
    if unjudged:
        notes.append(f"{run_name}: {len(unjudged)} quer{'ies' if len(unjudged) > 1 else 'y'} without judgments "
                     f"{'are' if len(unjudged) > 1 else 'is'} not evaluated ({_some(unjudged)})")
    missing = sorted(set(q.judgments) - set(r.docnos))
    if missing:
        if complete:
            how = ("scored on an empty result (-c)" if compat == "10.0"
                   else "counted with 0 in the averages (-c)")
            notes.append(f"{qrels_name}: {len(missing)} judged quer{'ies' if len(missing) > 1 else 'y'} without "
                         f"results {how} ({_some(missing)})")
        else:
            notes.append(f"{qrels_name}: {len(missing)} judged quer{'ies' if len(missing) > 1 else 'y'} without "
                         f"results {'are' if len(missing) > 1 else 'is'} not evaluated ({_some(missing)}); "
                         f"-c counts {'them' if len(missing) > 1 else 'it'}")
    return notes


def _some(ids: list[str], n: int = 5) -> str:
    return ", ".join(ids[:n]) + (f", ... ({len(ids) - n} more)" if len(ids) > n else "")


def _fmt(value: float) -> str:
    """C's ``%6.4f`` (nan prints as trec_eval prints it on Linux)."""
    if math.isnan(value):
        return ("-nan" if math.copysign(1.0, value) < 0 else "nan").rjust(6)
    return f"{value:6.4f}"


def evaluate_lines(judgments: dict[str, Any], results: Any, selected: list[Any], params: dict[str, str],
                   opts: Any, *, query_flag: bool = False, complete: bool = False, summary: bool = True,
                   zscores: dict[tuple[str, str], tuple[float, float]] | None = None,
                   bug_compatible: bool = False, grouped: bool = False, prefs: bool = False) -> list[str]:
    """trec_eval's output lines for judgments and results (see :func:`command`).

    ``grouped``: judgments are ``{qid: {group: {docno: grade}}}`` (-R qrels_jg).
    """
    from .._errors import InputError
    from ..metrics.trec.engine import MIN_GEO_MEAN, form_res_rels, stored_scores
    from ..pytrec_eval import bogus_cleared

    # measure parameters and value names, once
    plan = []
    for m in selected:
        text = params.get(m.name)
        p = m.parse_params(text) if text is not None else m.default
        plan.append((m, p, m.value_names(p, text)))
    z = zscores is not None
    zp = "Z" if z else ""
    lines: list[str] = []
    accum: dict[str, list[float]] = {m.name: [0.0] * len(names) for m, _, names in plan}
    n_eval = 0
    runid = ""
    result_qids = sorted(results.docnos, key=lambda s: s.encode("utf-8", "surrogateescape"))
    first_runid = results.run_ids[result_qids[0]] if result_qids else ""
    qrels_qids = sorted(judgments, key=lambda s: s.encode("utf-8", "surrogateescape"))
    for qid in qrels_qids:
        bogus = False
        if qid in results.docnos:
            docnos, sims = results.docnos[qid], results.sims[qid]
            this_runid = results.run_ids[qid]
        elif complete and opts.compat == "10.0":
            docnos, sims, this_runid, bogus = ["ceci_nest_pas_un_docno"], [1.0], first_runid, True
        elif bug_compatible and opts.compat == "10.0" and not prefs and not grouped:
            raise InputError(f"query {qid} is judged but has no results: trec_eval 10.0 stops here (exit code 4, "
                             "--bug-compatible); without --bug-compatible it is skipped, as 9.0.8 does, and -c "
                             "counts it")
        else:
            continue
        if (bug_compatible and n_eval == 0 and not prefs and not grouped
                and not any(g >= 0 for g in judgments[qid].values())):
            raise InputError(f"query {qid} is judged only with negative grades: trec_eval fails on it when it is the "
                             "first query evaluated (--bug-compatible); without --bug-compatible it is evaluated, "
                             "nothing relevant")
        rr: Any  # a ResRels, the ResRels of each judgment group, or the preference counts
        try:
            if prefs:
                from ..metrics.trec.prefs import form_prefs_counts

                rr = form_prefs_counts(docnos, stored_scores(sims, opts.compat).tolist(), judgments[qid],
                                       opts.max_docs)
            elif grouped:
                groups = judgments[qid]
                rr = [form_res_rels(docnos, sims, groups[g], opts) for g in sorted(groups, key=str.encode)]
            else:
                rr = form_res_rels(docnos, sims, judgments[qid], opts)
        except InputError as e:
            raise InputError(f"query {qid}: {e.message}") from None
        runid = this_runid
        values: list[tuple[Any, list[str], list[Any]]] = []
        for m, p, names in plan:
            if m.kind == "runid":
                values.append((m, names, []))
                continue
            v = m.compute(rr, opts, p)
            if bogus:  # trec_eval's clean-up of the dummy ranking's values, by exact value name
                if m.kind == "string":
                    v = [""] if names[0] == "relstring" else v
                else:
                    v = [(0.0 if isinstance(x, float) else 0) if bogus_cleared(name) else x
                         for name, x in zip(names, v, strict=True)]
            if m.kind == "gm":  # a query's gm_map / gm_bpref value is log(max(value, 1e-5)), as in m_gm_map.c
                v = [math.log(max(float(v[0]), MIN_GEO_MEAN))]
            values.append((m, names, v))
        if z:
            assert zscores is not None
            converted = []
            for m, names, v in values:
                if m.kind in ("runid", "string"):
                    converted.append((m, names, v))
                    continue
                cv = []
                for name, x in zip(names, v, strict=True):
                    ms = zscores.get((qid, name))
                    if ms is None:
                        cv.append(-1000000.0)
                    elif ms[1]:
                        cv.append((float(x) - ms[0]) / ms[1])
                    else:
                        cv.append(0.0 if float(x) == ms[0] else -1000000.0)
                converted.append((m, names, cv))
            values = converted
        for m, names, v in values:
            acc = accum[m.name]
            if m.kind not in ("runid", "string"):  # (-Z: the z-score of gm's log, averaged as gm: exp of the mean)
                for i, x in enumerate(v):
                    acc[i] += float(x)
            if not query_flag or m.kind in ("runid", "num_q", "gm"):
                continue
            if m.kind == "string":
                lines.append(f"{names[0]:<22}\t{qid}\t'{v[0]}'\n")
            elif m.kind == "long" and not z:
                lines.append(f"{names[0]:<22}\t{qid}\t{int(v[0])}\n")
            else:
                for name, x in zip(names, v, strict=True):
                    lines.append(f"{zp}{name:<22}\t{qid}\t{_fmt(float(x))}\n")
        n_eval += 1
    if n_eval == 0:
        raise InputError("no queries with both results and relevance info (trec_eval exits here too)")
    if not summary:
        return lines
    n_q = len(qrels_qids) if complete else n_eval
    for m, _p, names in plan:
        acc = accum[m.name]
        if m.kind == "runid":
            lines.append(f"{'runid':<22}\tall\t{runid}\n")
        elif m.kind == "num_q":
            lines.append(f"{zp}{'num_q':<22}\tall\t{_fmt(float(n_q)) if z else n_q}\n")
        elif m.kind == "long":
            total = acc[0]
            if m.name == "num_rel" and complete:
                total = _num_rel_all(judgments, opts, bug_compatible, total, results, n_eval)
            lines.append(f"{zp}{names[0]:<22}\tall\t{_fmt(total) if z else int(total)}\n")
        elif m.kind == "string":
            continue
        elif m.kind == "gm":
            s = acc[0]
            if complete:
                s += (n_q - n_eval) * math.log(MIN_GEO_MEAN)
            lines.append(f"{zp}{names[0]:<22}\tall\t{_fmt(math.exp(s / n_q))}\n")
        else:
            for name, x in zip(names, acc, strict=True):
                lines.append(f"{zp}{name:<22}\tall\t{_fmt(x / n_q)}\n")
    return lines


def _num_rel_all(judgments: dict[str, dict[str, int]], opts: Any, bug_compatible: bool, total: float,
                 results: Any, n_eval: int) -> float:
    """num_rel's ``all`` line under -c: every judged query's relevant count.

    trec_eval counts grades > 0 whatever ``-l`` says (``--bug-compatible``); rankmeter
    counts grades >= the level, the sum of the per-query values.
    """
    if bug_compatible:
        return float(sum(1 for q in judgments.values() for g in _grades(q) if g > 0))
    if opts.compat == "10.0":
        return total  # every judged query was evaluated
    missing = [q for q in judgments if q not in results.docnos]
    return total + sum(1 for q in missing for g in judgments[q].values() if g >= opts.level)


def _grades(q: Any) -> list[float]:
    if isinstance(q, list):  # preferences: (jg, jsg, rel_level, docno)
        return [t[2] for t in q]
    return [g for v in q.values() for g in (v.values() if isinstance(v, dict) else [v])]


def _tabular(path: str) -> bool:
    """A CSV / TSV-with-header / Parquet file (read by rankmeter's readers, not as TREC text)."""
    if path == "-":
        return False
    from ..io import detect_format

    return detect_format(path) != "trec"


def _tabular_qrels(path: str) -> Any:
    """Judgments from a table file; grades must be whole numbers (trec_eval's grades are integers)."""
    from .._errors import InputError
    from ..io import read_qrels
    from ..io.treceval import TrecEvalQrels, check_table_ids

    judgments: dict[str, dict[str, int]] = {}
    qrels = read_qrels(path)
    check_table_ids(path, qrels, "qrels")  # ids trec_eval could not read (a blank, a control character)
    for q, docs in qrels.to_dict().items():
        out = judgments[q] = {}
        for d, g in docs.items():
            if g != int(g):
                raise InputError(f"grade {g:g} of item {d!r} for query {q!r} is not a whole number "
                                 f"(trec_eval's grades are integers)", source=path)
            out[d] = int(g)
    return TrecEvalQrels(judgments)


def _tabular_run(path: str, runid: bool = True) -> Any:
    """Results from a table file; the run id is the file's name without its suffix.

    ``runid``: the run id is printed, so a file name holding a blank or a control character is refused.
    """
    import re
    from pathlib import Path

    from .._errors import InputError
    from ..io import read_run
    from ..io.treceval import TrecEvalResults, check_table_ids

    res = TrecEvalResults()
    tag = Path(path).stem
    if runid and re.search("[\x00-\x20\x7f]", tag):
        raise InputError(f"the run id would be the file's name {tag!r}, which holds a blank or a control character "
                         "(trec_eval cannot read such an id): rename the file, or leave out the runid measure",
                         source=path)
    run = read_run(path)
    check_table_ids(path, run, "run")  # ids trec_eval could not read (a blank, a control character)
    for q, docs in run.to_dict().items():
        res.docnos[q] = list(docs)
        res.sims[q] = list(docs.values())
        res.run_ids[q] = tag
    return res
