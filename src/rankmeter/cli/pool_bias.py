"""``rankmeter pool-bias QRELS RUN ... -m map``: the leave-one-run-out test of pool bias."""

from __future__ import annotations

import click

from ._options import COLUMN_OPTIONS, Command, column_options

PARAMETER_OPTIONS = {**COLUMN_OPTIONS, "depth": "--depth", "metrics": "-m/--metric"}


@click.command(
    cls=Command,
    name="pool-bias",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter pool-bias qrels.txt runs/ -m map -m P@10 --depth 100\n\n"
        "  rankmeter pool-bias qrels.txt a.run b.run c.run -m ndcg@10 --format json"
    ),
)
@click.argument("qrels", type=click.Path(dir_okay=False))
@click.argument("runs", nargs=-1, required=True, metavar="RUN [RUN ...]")
@click.option("-m", "--metric", "metrics", multiple=True, help="Metric, repeatable or comma-separated (default map).")
@click.option("--depth", default=100, show_default=True, type=click.IntRange(min=1),
              help="The pool depth the judgments were made at.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True,
              help="Output format.")
@click.option("--order", type=click.Choice(["score", "rank"]), default="score", show_default=True,
              help="Rank by score (ties: item id descending, as trec_eval) or by the file's rank column.")
@column_options("query", "item", "score", "grade", "rank")
def command(qrels: str, runs: tuple[str, ...], metrics: tuple[str, ...], depth: int, fmt: str, order: str,
            query_column: str | None, item_column: str | None, score_column: str | None, grade_column: str | None,
            rank_column: str | None) -> None:
    """Leave-one-run-out (Zobel 1998): each RUN evaluated again without the judged items only it pooled
    (at depth DEPTH), with the change in its score and its rank among the other runs.

    A RUN is PATH, NAME=PATH, or a folder of runs, as in `rankmeter compare`.
    """
    from .._errors import ParameterError
    from ..io import read_qrels, read_run
    from ..judges import pool_bias
    from ._options import named_runs, parse_metric_list
    from ._output import note, write_csv, write_json, write_table

    notes: list[str] = []
    named = named_runs(runs, notes)
    if len(named) < 2:
        raise ParameterError(f"pool-bias needs at least 2 runs. Got {len(named)}; give more RUN arguments, "
                             "or a folder of runs")
    parsed, metric_notes = parse_metric_list(metrics or ("map",))
    q = read_qrels(qrels, query=query_column, item=item_column, grade=grade_column)
    loaded = {n: read_run(p, order=order, query=query_column, item=item_column, score=score_column,
                          rank=rank_column) for n, p in named}
    res = pool_bias(q, loaded, parsed, depth=depth)
    for line in notes + metric_notes:
        note(line)
    from typing import Any

    from ._output import is_count

    cols = ["full", "reduced", "change", "rank_full", "rank_reduced", "unique", "unique_relevant"]
    whole = {"rank_full", "rank_reduced", "unique", "unique_relevant", "max_rank_drop"}  # ranks and counts: integers

    def cell(c: str, v: Any) -> float:
        f = float(v)
        return int(f) if c in whole and f.is_integer() else f

    def label(m: Any) -> str:  # a count's change is a change of its mean over the queries, as compare's tests
        return f"{m} (mean)" if is_count(str(m)) else str(m)

    rows = [([str(r["run"]), label(r["metric"])], [cell(c, r[c]) for c in cols]) for r in res.by_run.to_dict("records")]
    scols = list(res.summary.columns)
    srows = [([label(m)], [cell(c, v) for c, v in zip(scols, row, strict=True)])
             for m, row in zip(res.summary.index, res.summary.to_numpy(), strict=True)]
    if fmt == "json":
        write_json({"depth": depth, "by_run": res.by_run.to_dict("records"),
                    "summary": res.summary.reset_index().to_dict("records")})
    elif fmt == "csv":
        write_csv(["run", "metric"], rows, cols)
    else:
        write_table("Leave one run out", ["run", "metric"], rows, cols,
                    caption=f"pool depth {depth}; reduced: without the judged items only that run pooled")
        write_table("Summary", ["metric"], srows, scols)
