"""``rankmeter evaluate QRELS RUN -m METRIC ...``"""

from __future__ import annotations

import click


def _metric_help() -> str:
    return (
        "Metric, repeatable: name(param=value,...)@k, e.g. ndcg@10, 'ap(norm=min)@5', P_10, "
        "'RBP(p=0.8)'. `rankmeter metrics` lists them all."
    )


@click.command(name="evaluate", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("run", type=click.Path(dir_okay=False))
@click.option("-m", "--metric", "metrics", multiple=True, required=True, help=_metric_help())
@click.option("--per-query", "-q", is_flag=True, help="Also print each query's values.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "trec"]), default="table",
              show_default=True, help="Output format; trec prints trec_eval's three-column lines.")
@click.option("--queries", type=click.Choice(["judged", "run", "qrels"]), default="judged", show_default=True,
              help="Which queries count: judged queries with a relevant item (a query missing from the run "
                   "scores 0), queries in both inputs (trec_eval's default), or every judged query (trec_eval -c).")
@click.option("--order", type=click.Choice(["score", "rank"]), default="score", show_default=True,
              help="Rank by score (ties: item id descending, as trec_eval) or by the file's rank column.")
@click.option("--duplicates", type=click.Choice(["error", "max", "first", "last"]), default="error",
              show_default=True, help="What to do with a repeated (query, item) row.")
@click.option("--chunk-rows", type=click.IntRange(min=1), default=None,
              help="Stream the run in query-grouped chunks of about this many rows (bounded memory).")
def command(qrels: str, run: str, metrics: tuple[str, ...], per_query: bool, fmt: str, queries: str,
            order: str, duplicates: str, chunk_rows: int | None) -> None:
    """Evaluate RUN against the judgments QRELS.

    Files may be TREC text (qrels: query iter item grade; run: query Q0 item rank
    score tag), CSV/TSV with a header, or Parquet; the format is picked from the file.
    """
    from ..io import read_qrels, read_run
    from ..metrics.registry import parse_metrics
    from ._output import is_count, note, trec_line, write_csv, write_json, write_table

    parsed = parse_metrics(list(metrics))
    q = read_qrels(qrels, duplicates=duplicates)
    if chunk_rows is not None:
        from ..stream import evaluate_stream

        result = evaluate_stream(q, run, parsed, chunk_rows=chunk_rows, queries=queries, order=order,
                                 duplicates=duplicates)
    else:
        from ..evaluate import check_ranking_metrics, evaluate

        check_ranking_metrics(parsed)
        r = read_run(run, order=order, duplicates=duplicates)
        result = evaluate(q, r, parsed, queries=queries)
    for line in result.notes:
        note(line)
    names = list(result.values) + [m for m in result.corpus if m not in result.values]
    means = result.mean
    if fmt == "json":
        write_json(result.to_dict(per_query=per_query))
        return
    per_rows = []
    if per_query:
        cols = [result.values[m] for m in result.values]
        per_rows = [(qid, [c[i] for c in cols]) for i, qid in enumerate(result.queries)]
    if fmt == "csv":
        if per_query:
            write_csv("query", per_rows + [("all", [means[m] for m in result.values])], list(result.values))
        else:
            write_csv("metric", [(m, [means[m]]) for m in names], ["mean"])
        return
    if fmt == "trec":
        out = []
        specs = {m.text: m.spec.name for m in parsed}
        if per_query:
            for qid, vals in per_rows:
                out += [trec_line(m, qid, v, is_count(specs[m])) for m, v in zip(result.values, vals)]
        # like trec_eval, the "all" line of a count (num_ret, num_rel, ...) is the total
        out += [trec_line(m, "all", float(result.values[m].sum()) if (is_count(specs[m]) and m in result.values)
                          else means[m], is_count(specs[m])) for m in names]
        click.echo("\n".join(out))
        return
    caption = f"{result.n_queries} queries ({result.coverage.policy if result.coverage else 'judged'})"
    if per_query:
        write_table("per query", "query", per_rows, list(result.values))
    write_table("", "metric", [(m, [means[m]]) for m in names], ["mean"], caption=caption)
