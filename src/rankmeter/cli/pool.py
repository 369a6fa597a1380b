"""``rankmeter pool RUN ... --depth 100``: the pool to judge (TREC qrels lines without grades, or CSV)."""

from __future__ import annotations

import sys

import click

from ._options import COLUMN_OPTIONS, column_options

PARAMETER_OPTIONS = {**COLUMN_OPTIONS, "depth": "--depth"}


@click.command(
    name="pool",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter pool runs/ --depth 100 > pool.txt\n\n"
        "  rankmeter pool bm25.run dense.run --depth 20 --format csv\n\n"
        "  rankmeter pool runs/ --depth 50 --method rrf"
    ),
)
@click.argument("runs", nargs=-1, required=True, metavar="RUN [RUN ...]")
@click.option("--depth", default=100, show_default=True, type=click.IntRange(min=1),
              help="How many items of each run's ranking go into the pool.")
@click.option("--method", default="depth", show_default=True,
              help="Pooling method: depth (the union of every run's first DEPTH items), or a fusion method of "
                   "`rankmeter fuse` (rrf, sum, mnz, ...): the fused run's first DEPTH items.")
@click.option("--format", "fmt", type=click.Choice(["qrels", "csv"]), default="qrels", show_default=True,
              help="qrels: 'query 0 item' lines to be graded; csv: query, item, the number of runs and the runs "
                   "that pooled it.")
@click.option("--order", type=click.Choice(["score", "rank"]), default="score", show_default=True,
              help="Rank by score (ties: item id descending, as trec_eval) or by the file's rank column.")
@column_options("query", "item", "score", "rank")
def command(runs: tuple[str, ...], depth: int, method: str, fmt: str, order: str, query_column: str | None,
            item_column: str | None, score_column: str | None, rank_column: str | None) -> None:
    """Write the depth-DEPTH pool of the RUNs: every (query, item) that some run ranks in its first DEPTH.

    A RUN is PATH, NAME=PATH, or a folder of runs, as in `rankmeter compare`.
    """
    from ..io import read_run
    from ..judges import pool
    from ._options import named_runs
    from ._output import csv_text, note

    notes: list[str] = []
    named = named_runs(runs, notes)
    loaded = {n: read_run(p, order=order, query=query_column, item=item_column, score=score_column,
                          rank=rank_column) for n, p in named}
    p = pool(loaded, depth=depth, method=method)
    for line in notes:
        note(line)
    note(f"pool of {len(p.runs)} runs at depth {depth}: {p.size} (query, item) pairs over {len(p.items)} queries")
    if fmt == "csv":
        import csv

        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(["query", "item", "runs", "contributed_by"])
        for q, d, n, rs in p.rows():
            w.writerow([csv_text(q), csv_text(d), n, csv_text(rs)])
    else:
        sys.stdout.write(p.to_qrels_text())
