"""``rankmeter explain-diff QRELS RUN -a ndcg@10 -b sklearn:ndcg@10``: why two specifications of one metric
give two numbers, per query, in parts that add up exactly (:mod:`rankmeter.compare.explain`)."""

from __future__ import annotations

import click

from ._options import column_options


@click.command(
    name="explain-diff",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter explain-diff qrels.txt run.txt -a ndcg@10 -b sklearn:ndcg@10\n\n"
        "  rankmeter explain-diff test.csv recs.csv -a ap@10 -b 'rectools:map_divide_by_k@10' --per-query\n\n"
        "  rankmeter explain-diff qrels.txt run.txt -a ndcg@10 -b rectools:ndcg@10 --format csv"
    ),
)
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("run", type=click.Path(dir_okay=False))
@click.option("-a", "metric_a", required=True, help="The first specification (e.g. ndcg@10).")
@click.option("-b", "metric_b", required=True, help="The second specification of the same metric (e.g. "
              "sklearn:ndcg@10, ndcg(ideal=k)@10).")
@click.option("--per-query", "-q", is_flag=True, help="Print each query's a, b, total and parts.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True,
              help="Output format (csv: one row per query).")
@click.option("--queries", type=click.Choice(["judged", "run", "qrels"]), default="judged", show_default=True,
              help="Which queries count, as in rankmeter evaluate.")
@click.option("--ties", type=click.Choice(["id", "average", "optimistic", "pessimistic"]), default="id",
              show_default=True, help="The tie rule of a specification without its own.")
@column_options("query", "item", "score", "grade")
def command(qrels: str, run: str, metric_a: str, metric_b: str, per_query: bool, fmt: str, queries: str, ties: str,
            query_column: str | None, item_column: str | None, score_column: str | None,
            grade_column: str | None) -> None:
    """Split, per query, the difference b - a of two specifications of one metric into one part per
    convention switch (ties, cutoff, then each parameter that differs), applied in that order; the parts
    add up to b - a exactly."""
    from ..compare.explain import explain_diff
    from ..io import read_qrels, read_run
    from ._output import note, write_csv, write_json, write_table

    q = read_qrels(qrels, query=query_column, item=item_column, grade=grade_column)
    r = read_run(run, query=query_column, item=item_column, score=score_column)
    d = explain_diff(q, r, metric_a, metric_b, queries=queries, ties=ties)
    for line in d.notes:
        note(line)
    frame = d.by_query
    if fmt == "json":
        payload = {"a": d.a, "b": d.b, "queries": len(frame),
                   "mean": {c: float(frame[c].mean()) for c in frame.columns},
                   "steps": [{"reason": r_, "metric": m} for r_, m in d.steps]}
        if per_query:
            payload["per_query"] = {str(k): {c: float(v) for c, v in row.items()} for k, row in frame.iterrows()}
        write_json(payload)
        return
    if fmt == "csv":
        write_csv(["query"], [([str(k)], [float(v) for v in row]) for k, row in frame.iterrows()],
                  list(frame.columns))
        return
    means = [([c], [float(frame[c].mean())]) for c in frame.columns]
    write_table(f"{d.b} - {d.a}", ["part"], means, ["mean"],
                caption=f"{len(frame)} queries; parts applied in order, adding up to total")
    if per_query:
        write_table("per query", ["query"], [([str(k)], [float(v) for v in row]) for k, row in frame.iterrows()],
                    list(frame.columns))
