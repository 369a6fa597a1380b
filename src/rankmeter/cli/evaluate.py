"""``rankmeter evaluate QRELS RUN [RUN ...] -m METRIC ...``"""

from __future__ import annotations

from typing import Any

import click

from ..metrics.conventions import TOOLS as _TOOLS
from ._groups import group_by_option
from ._options import COLUMN_OPTIONS, Command, column_options, subtopics_option

# library keywords -> this command's options, for messages (see _options.cli_spelling)
PARAMETER_OPTIONS = {**COLUMN_OPTIONS, "metrics": "-m/--metric"}


def _metric_help() -> str:
    return (
        "Metric, repeatable or comma-separated: name(param=value,...)@k, e.g. ndcg@10, 'ap(norm=min)@5', "
        "P_10, 'RBP(p=0.8)', -m ndcg@10,map, trec_eval's -m P.5,10. `rankmeter metrics` lists them all. "
        "With QRELS irds:DATASET_ID (judgments from ir_datasets), --measures official: the dataset's official measures."
    )


@click.command(
    cls=Command,
    name="evaluate",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter evaluate qrels.txt run.txt -m ndcg@10,map -m P.5,10\n\n"
        "  rankmeter evaluate irds:msmarco-passage/dev/small run.txt --measures official\n\n"
        "  rankmeter evaluate qrels.txt runs/ -m ndcg@10 --format markdown\n\n"
        "  rankmeter evaluate test.csv recs.csv -m ndcg@10 --query-column user --item-column movie\n\n"
        "  rankmeter evaluate test.csv recs.csv -m 'snips_recall(propensity=given)@10' --propensity p.csv\n\n"
        "  rankmeter evaluate --subtopics qrels.diversity.txt run.txt -m alpha-nDCG@20,ERR-IA@20,NRBP,strec@20"
    ),
)
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("runs", nargs=-1, required=True, metavar="RUN [RUN ...]")
@click.option("-m", "--metric", "--measures", "metrics", multiple=True, required=True, help=_metric_help())
@click.option("--per-query", "-q", is_flag=True, help="Also print each query's values.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "trec", "markdown", "latex", "html"]),
              default="table", show_default=True,
              help="Output format (with --group-by, csv prints the means per group); trec prints trec_eval's "
                   "three-column lines; markdown, latex and html print the table a paper needs (one row per run).")
@click.option("--queries", type=click.Choice(["judged", "run", "qrels"]), default="judged", show_default=True,
              help="Which queries count: judged queries with a relevant item (a query missing from the run "
                   "scores 0), queries in both inputs (trec_eval's default), or every judged query (trec_eval -c).")
@click.option("--order", type=click.Choice(["score", "rank"]), default="score", show_default=True,
              help="Rank by score (ties: item id descending, as trec_eval) or by the file's rank column.")
@click.option("--duplicates", type=click.Choice(["error", "max", "first", "last"]), default="error",
              show_default=True, help="What to do with a repeated (query, item) row.")
@click.option("--depth", "-M", type=click.IntRange(min=1), default=None,
              help="Cut every ranking to its first N items before every metric (trec_eval -M; not a cutoff: "
                   "recall and nDCG still count every judgment).")
@click.option("--judged-only", "-J", is_flag=True,
              help="Remove unjudged items (and items judged with a negative grade) from every ranking first "
                   "(trec_eval -J); labelled in the output.")
@click.option("--ties", type=click.Choice(["id", "average", "optimistic", "pessimistic", "bounds"]), default="id",
              show_default=True,
              help="How tied scores are ordered: id (item id descending, trec_eval's rule); average (the expected "
                   "value over the orders of each tied group, McSherry and Najork 2008, as scikit-learn's "
                   "ndcg_score); optimistic / pessimistic (best / worst grade first); bounds (the id rule's values, "
                   "and the notes say how far the tie order moves each metric).")
@click.option("--unjudged", type=click.Choice(["ignore", "bounds"]), default="ignore", show_default=True,
              help="ignore: unjudged items are not relevant; bounds: also each metric's smallest and largest value "
                   "over every completion of the judgments (each retrieved unjudged item not relevant or relevant at "
                   "--unjudged-grade), in the notes and in --format json. See docs/judgments.md.")
@click.option("--unjudged-grade", type=click.FloatRange(min=0, min_open=True), default=None,
              help="With --unjudged bounds: the grade of the unjudged items made relevant (default: each query's "
                   "highest judged grade).")
@click.option("--convention", type=click.Choice(list(_TOOLS)), default=None,
              help="Read the metric names without a tool: prefix as this tool computes them (ndcg@10 under "
                   "--convention sklearn is sklearn:ndcg@10); output keyed as written. See docs/conventions.md.")
@click.option("--chunk-rows", type=click.IntRange(min=1), default=None,
              help="Stream the run in query-grouped chunks of about this many rows (bounded memory).")
@click.option("--propensity", "propensity_file", type=click.Path(dir_okay=False), default=None,
              help="Observation propensities per (user, item) for the IPS/SNIPS metrics with propensity=given: "
                   "a CSV/TSV/Parquet file with query (or user), item and propensity columns.")
@column_options("query", "item", "score", "grade", "rank", "subtopic")
@subtopics_option
@group_by_option
def command(qrels: str, runs: tuple[str, ...], metrics: tuple[str, ...], per_query: bool, fmt: str, queries: str,
            order: str, duplicates: str, depth: int | None, judged_only: bool, ties: str, unjudged: str,
            unjudged_grade: float | None, convention: str | None, chunk_rows: int | None,
            propensity_file: str | None, group_by: str | None,
            query_column: str | None,
            item_column: str | None, score_column: str | None, grade_column: str | None,
            rank_column: str | None, subtopic_column: str | None = None, subtopics: bool = False) -> None:
    """Evaluate each RUN against the judgments QRELS.

    Files may be TREC text (qrels: query iter item grade; run: query Q0 item rank
    score tag), CSV/TSV with a header, or Parquet; the format is picked from the file.
    A RUN is PATH (named by its file name without extension), NAME=PATH, or a folder
    (its files, sorted, each named by its file name). Several runs give one table
    with a column per run. With --subtopics, QRELS are judgments by subtopic (NIST
    ndeval's query subtopic item grade) for the intent-aware metrics.
    """
    from .. import _compute as C
    from ..io import read_qrels, read_run
    from ._options import named_runs, parse_metric_list
    from ._output import note

    notes: list[str] = []
    if fmt == "trec" and ties not in ("id", "bounds"):
        from .._errors import ParameterError

        raise ParameterError(f"--format trec prints trec_eval's measures, which order tied scores by item id; "
                             f"--ties {ties} gives other values: use --format table, json or csv")
    if group_by is not None and fmt == "trec":
        from .._errors import ParameterError

        raise ParameterError("--group-by cannot be written in --format trec (trec_eval's lines have no groups); "
                             "use table, json, csv, markdown, latex or html")
    if group_by is not None:  # a bad groups file is an error before the work, not after it
        from ..stats.groups import read_groups

        read_groups(group_by, option="--group-by")
    named = named_runs(runs, notes)
    # keyed by the text written (README), each spelling its own key; trec_eval's names are one per metric
    if any(m.strip().lower() == "official" for m in metrics):  # QRELS irds:ID: the dataset's official measures
        from ..io.irds import expand_official

        metrics = tuple(expand_official(list(metrics), qrels))
    parsed, metric_notes = parse_metric_list(metrics, spellings=fmt != "trec")
    if convention is not None:
        from ..metrics.conventions import with_convention

        parsed = with_convention([m.text for m in parsed], convention)
    notes += metric_notes
    for line in notes:
        note(line)
    _check_propensity_sources(parsed)
    if ties != "id":  # refused by name before any file is read
        from ..metrics.ties import check_ties

        check_ties(parsed, ties, order=order, depth=depth, judged_only=judged_only)
    from ..metrics.unjudged import check_unjudged

    check_unjudged(parsed, unjudged, unjudged_grade, ties=ties)  # refused by name before any file is read
    if unjudged != "ignore" and (chunk_rows is not None or any(_is_stream(p) for _, p in named)):
        from .._errors import ParameterError

        raise ParameterError("--unjudged bounds evaluates the run in memory: leave out --chunk-rows and give the run "
                             "as a file (not a pipe or '-')")
    bounds: dict[str, Any] = {"unjudged": unjudged, "unjudged_grade": unjudged_grade} if unjudged != "ignore" else {}
    columns = {"query": query_column, "item": item_column, "score": score_column, "rank": rank_column}
    if fmt == "json":  # the record it prints holds each file's SHA-256: computed beside the evaluation
        from ..provenance import hash_ahead

        hash_ahead(qrels, *(p for _, p in named))
    ahead = None  # the first run file, read ahead while the judgments load
    if chunk_rows is None and named:
        from ..engines.memory import judgments_as_large, open_ahead

        if not judgments_as_large(qrels, named[0][1]):  # (then the run is opened once the judgments are in)
            ahead = open_ahead(named[0][1], order=order, columns=columns)
    try:
        q = read_qrels(qrels, duplicates=duplicates, query=query_column, item=item_column, grade=grade_column,
                       subtopics=subtopics, subtopic=subtopic_column)
        if len(q) >= C.MILLIONS:
            C.release_memory()  # (coding millions of ids leaves their temporaries with the allocators)
            if q.n_queries >= C.MILLIONS:
                C.map_large_arrays()  # (millions of queries: per-query outputs between freed temporaries)
        context = None
        if propensity_file is not None:  # read by the unbiased family's metrics with propensity=given
            from ..metrics.unbiased.propensities import read_propensities

            context = {"propensity": read_propensities(propensity_file)}
            if not any(m.params.get("propensity") == "given" for m in parsed):
                note("--propensity is read only by metrics with propensity=given (e.g. "
                     "'snips_recall(propensity=given)@10'); no metric asked for it")
    except BaseException:
        if ahead is not None:
            ahead.close()
        raise
    results: dict[str, Any] = {}
    for name, path in named:
        if chunk_rows is not None:
            from ..engines.stream import evaluate_stream

            res = evaluate_stream(q, path, parsed, chunk_rows=chunk_rows, queries=queries, order=order,
                                  duplicates=duplicates, query=query_column, item=item_column, score=score_column,
                                  rank=rank_column, depth=depth, judged_only=judged_only, context=context, ties=ties)
        else:
            from ..engines.memory import evaluate_file
            from ..evaluate import check_ranking_metrics, evaluate
            from ..evaluation import Engine

            check_ranking_metrics(parsed)
            if order != "given" and _is_stream(path):  # '-', a pipe, a FIFO: parsed and evaluated as it arrives
                from ..engines.stream import evaluate_stream

                # (chunks of 100k rows: a fault in the stream is reported after at most ~5 MB of text)
                res = evaluate_stream(q, path, parsed, chunk_rows=100_000, queries=queries, order=order,
                                      duplicates=duplicates,
                                      query=query_column, item=item_column, score=score_column, rank=rank_column,
                                      depth=depth, judged_only=judged_only, context=context, ties=ties)
            elif order == "given" or path == "-":
                r = read_run(path, order=order, duplicates=duplicates, query=query_column, item=item_column,
                             score=score_column, rank=rank_column)
                res = evaluate(q, r, parsed, queries=queries, depth=depth, judged_only=judged_only, context=context,
                               ties=ties, **bounds)
            else:  # a file: read and evaluated in chunks of whole queries, on both cores
                engine = Engine(q, parsed, queries=queries, context=context, order=order, duplicates=duplicates,
                                depth=depth, judged_only=judged_only, ties=ties, **bounds)
                blocks, ahead = ahead, None
                res = evaluate_file(engine, path, columns=columns, blocks=blocks)
        from ..evaluation.threads import resolve_threads
        from ..provenance import attach

        res = attach(res, qrels=qrels, run=path, metrics=parsed, threads=resolve_threads(None), options={
            "queries": queries, "depth": depth, "judged_only": judged_only, "order": order, "duplicates": duplicates,
            "ties": ties, "convention": convention, **bounds})  # the files as named on the command line
        prefix = f"{name}: " if len(named) > 1 else ""
        for line in res.notes:
            note(prefix + line)
        results[name] = res
    views = None
    if group_by is not None:
        from . import _groups

        views = {name: res.by_group(group_by, option="--group-by") for name, res in results.items()}
        for line in _groups.notes_of(views):
            note(line)
    _print(results, parsed, per_query, fmt, views)


def _is_stream(path: str) -> bool:
    """Standard input, a pipe or a FIFO (``/dev/stdin``, ``<(...)``): read once, as it arrives."""
    if path == "-":
        return True
    import os
    import stat

    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and not stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def _check_propensity_sources(parsed: list[Any]) -> None:
    """Propensity-weighted metrics that estimate propensities from training popularity: this command has no
    training data, so say what works before any reading."""
    from .._errors import ParameterError

    for m in parsed:
        if m.spec.family == "unbiased" and m.params.get("propensity") not in ("given", "position"):
            raise ParameterError(
                f"-m {m.text} estimates propensities from training popularity, which `rankmeter evaluate` has no "
                f"input for: give them per (user, item) with --propensity FILE and propensity=given (e.g. "
                f"'snips_recall(propensity=given)@10'), or use `rankmeter run-experiment`, which reads the "
                f"training data")


def _names(result: Any) -> list[str]:
    return list(result.values) + [m for m in result.corpus if m not in result.values]


def _print(results: dict[str, Any], parsed: list[Any], per_query: bool, fmt: str, views: Any = None) -> None:
    import click as _click

    from . import _groups
    from ._output import is_count, line_safe, note, trec_line, undefined_means, write_csv, write_json, write_table

    single = len(results) == 1
    first = next(iter(results.values()))
    names = _names(first)
    counts = set(first.counts)  # shown by their sum, as trec_eval, and labelled so
    # a mean no query qualifies for is undefined: said on stderr, and in the JSON's notes
    agg = {run: _aggregates(res, counts) for run, res in results.items()}  # (once per result, not per metric)
    undefined = {run: undefined_means(res.mean, fmt=fmt) for run, res in results.items()}
    for run, lines in undefined.items():
        for line in lines:
            note(line if single else f"{run}: {line}")
    if fmt == "json":
        payloads = {}
        from ..result import result_to_saved

        for run, res in results.items():
            # with --per-query, what Result.load reads back (rankmeter compare takes the file as a RUN)
            payload = result_to_saved(res) if per_query else res.to_dict(per_query=False)
            if res.provenance is not None:
                payload["provenance"] = res.provenance.to_dict()
            if undefined[run]:
                payload["notes"] = list(payload.get("notes", [])) + undefined[run]
            if views is not None:
                payload["groups"] = views[run].to_dict()
            payloads[run] = payload
        write_json(next(iter(payloads.values())) if single else {"runs": payloads})
        return
    if fmt == "csv":
        if views is not None:  # one CSV table: the means per group
            _groups.write(views, "csv")
            return
        if per_query:  # the "all" row: each metric's aggregate, the sum for a count (header says so)
            write_csv(["query"] if single else ["run", "query"], _per_query_rows(results, totals=True),
                      [f"{m} (all: sum)" if m in counts else m for m in first.values])
        else:
            write_csv(["metric"], [([_label(m, counts)], [agg[run][m] for run in results]) for m in names],
                      ["mean"] if single else list(results))
        return
    if fmt == "trec":
        from ..metrics.registry import trec_output_name

        out = []
        specs = {m.text: m.spec.name for m in parsed}
        # trec_eval's own names where it has the measure (P_10, ndcg_cut_10, map), else ours
        trec_names = {m.text: trec_output_name(m) or _not_trec_name(m) for m in parsed}
        for run, res in results.items():
            means = res.mean
            if not single:
                out.append(f"{'runid':<22}\tall\t{line_safe(run)}")  # trec_eval's own run-id line
            if per_query:
                cols = [res.values[m] for m in res.values]
                for i, qid in enumerate(res.queries):
                    out += [trec_line(trec_names.get(m, m), qid, c[i], is_count(specs.get(m, m)))
                            for m, c in zip(res.values, cols, strict=True)]
            # like trec_eval, the "all" line of a count (num_ret, num_rel, ...) is the total
            out += [trec_line(trec_names.get(m, m), "all", float(res.values[m].sum())
                              if (is_count(specs.get(m, m)) and m in res.values) else means[m],
                              is_count(specs.get(m, m))) for m in _names(res)]
        _click.echo("\n".join(out))
        return
    if fmt in ("markdown", "latex", "html"):
        _paper(results, names, per_query, fmt, _groups.tables(views) if views is not None else [])
        return
    if per_query:
        write_table("per query", ["query"] if single else ["run", "query"], _per_query_rows(results),
                    list(first.values))
    if single:
        res, means = first, next(iter(agg.values()))
        caption = f"{res.n_queries} {_plural_queries(res.n_queries)} ({_policy(res)})"
        write_table("", ["metric"], [([_label(m, counts)], [means[m]]) for m in names], ["mean"],
                    caption=caption)
    else:
        sizes = {res.n_queries for res in results.values()}
        if len(sizes) == 1:
            n = sizes.pop()
            caption = f"{n} {_plural_queries(n)} each ({_policy(first)})"
        else:
            caption = "; ".join(f"{run}: {res.n_queries} {_plural_queries(res.n_queries)}"
                                for run, res in results.items()) + f" ({_policy(first)})"
        # runs as rows, metrics as columns: the orientation of markdown, LaTeX, HTML and compare's table
        write_table("", ["run", "queries"], [([run, str(res.n_queries)], [agg[run][m] for m in names])
                                             for run, res in results.items()],
                    [_label(m, counts) for m in names], caption=caption)
    if views is not None:
        _groups.write(views, "table")


def _per_query_rows(results: dict[str, Any], totals: bool = False) -> list[tuple[list[str], list[float]]]:
    """One row per (run, query) in run order (the run column only with several runs); ``totals``
    adds each run's ``all`` row of means."""
    import numpy as np

    rows: list[tuple[list[str], list[float]]] = []
    single = len(results) == 1
    for run, res in results.items():
        counts = set(res.counts)
        cols = [np.asarray(res.values[m]).round().astype(np.int64).tolist() if m in counts
                else np.asarray(res.values[m]).tolist() for m in res.values]
        key = [] if single else [run]
        rows += [([*key, qid], [c[i] for c in cols]) for i, qid in enumerate(res.queries)]
        if totals:
            agg = _aggregates(res, counts)
            rows.append(([*key, "all"], [agg[m] for m in res.values]))
    return rows


def _label(metric: str, counts: set[str]) -> str:
    """A metric's name where its aggregate is shown: ``num_ret (sum)`` for a count."""
    return f"{metric} (sum)" if metric in counts else metric


def _aggregates(res: Any, counts: set[str]) -> dict[str, Any]:
    """Metric -> the aggregate the CLI shows: a count's sum (an int, as trec_eval's ``all`` line), else the
    mean. Computed once per result: ``Result.mean`` aggregates every metric, so asking it once per metric
    made thousands of ``-m`` options quadratic (issue 32)."""
    out: dict[str, Any] = dict(res.mean)
    if counts & set(out):
        sums = res.sums
        out.update({m: sums[m] for m in counts if m in sums})
    return out


def _plural_queries(n: int) -> str:
    return "query" if n == 1 else "queries"


def _policy(res: Any) -> str:
    return res.coverage.policy if res.coverage else "judged"


def _paper(results: dict[str, Any], names: list[str], per_query: bool, fmt: str, extra: list[Any]) -> None:
    import sys

    from ..report.tables import Table, to_html, to_latex, to_markdown

    first = next(iter(results.values()))
    policy = _policy(first)
    sizes = {res.n_queries for res in results.values()}
    count_metrics = set(first.counts)
    n = sizes.pop() if len(sizes) == 1 else None
    caption = (f"Mean over {n} {_plural_queries(n)} ({policy})." if n is not None
               else f"Mean over each run's queries ({policy}).")
    if count_metrics:
        caption += " Counts (sum) are summed over the queries, as trec_eval does."
    agg = {run: _aggregates(res, count_metrics) for run, res in results.items()}
    means = Table("", ["run", "queries"], [([run, str(res.n_queries)], [agg[run][m] for m in names])
                                           for run, res in results.items()],
                  [_label(m, count_metrics) for m in names], caption)
    tables = [means]
    if per_query:
        tables.append(Table("Per query", ["query"] if len(results) == 1 else ["run", "query"],
                            _per_query_rows(results), list(first.values)))
    tables += extra
    if fmt == "markdown":
        sys.stdout.write("\n".join(to_markdown(t) for t in tables))
    elif fmt == "latex":
        sys.stdout.write("\n".join(to_latex(t, label="tab:results" if i == 0 else f"tab:per-query-{i}")
                                   for i, t in enumerate(tables)))
    else:
        sys.stdout.write(to_html(tables, title=f"rankmeter evaluate: {len(results)} "
                                                f"run{'s' if len(results) != 1 else ''}"))


def _not_trec_name(m: Any) -> str:
    """How ``--format trec`` prints a metric trec_eval does not compute: as typed, unless the text is
    a trec_eval measure name (rankmeter's own ``rbp``, binary with p = 0.8, is not trec_eval's ``rbp``):
    then with every parameter spelled out, so no script reads it as trec_eval's.

    >>> from rankmeter.metrics.registry import parse_metric
    >>> _not_trec_name(parse_metric("rbp")), _not_trec_name(parse_metric("ndcg(gain=exp)@10"))
    ('rbp(rel=1,p=0.8,residual=false,gain=binary)', 'ndcg(gain=exp)@10')
    """
    from ..metrics.trec.engine import MEASURES

    if m.text.strip() not in {x.name for x in MEASURES}:
        return str(m.text)

    def fmt(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        return f"{v:g}" if isinstance(v, float) else str(v)

    params = ",".join(f"{p.name}={fmt(m.params[p.name])}" for p in m.spec.params)
    return f"{m.spec.name}({params})" + (f"@{m.k}" if m.k is not None else "")
