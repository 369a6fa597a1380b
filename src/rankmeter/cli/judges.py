"""``rankmeter judges A.qrels B.qrels [RUN ...]``: how far two judges agree, and whether the runs' order
survives the change of judge."""

from __future__ import annotations

import sys

import click

from ._options import COLUMN_OPTIONS, Command, column_options

PARAMETER_OPTIONS = {**COLUMN_OPTIONS, "metrics": "-m/--metric"}


@click.command(
    cls=Command,
    name="judges",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter judges human.qrels llm.qrels\n\n"
        "  rankmeter judges human.qrels llm.qrels runs/ -m ndcg@10 -m map --format markdown\n\n"
        "  rankmeter judges human.qrels llm.qrels bm25.run dense.run -m ndcg@10 --format json"
    ),
)
@click.argument("judges_a", metavar="A", type=click.Path(dir_okay=False))
@click.argument("judges_b", metavar="B", type=click.Path(dir_okay=False))
@click.argument("runs", nargs=-1, metavar="[RUN ...]")
@click.option("-m", "--metric", "metrics", multiple=True,
              help="Metric to compare the runs on under both judges, repeatable or comma-separated "
                   "(default ndcg@10 when runs are given).")
@click.option("--names", default=None, metavar="A,B", help="Names of the two judges (default: the file names).")
@click.option("--test", default="t", show_default=True,
              type=click.Choice(["t", "wilcoxon", "randomization", "bootstrap"]),
              help="Paired test for the runs' pairwise decisions (the same under both judges).")
@click.option("--correction", default="holm", show_default=True,
              type=click.Choice(["holm", "bonferroni", "bh", "none"]), help="Multiple-testing correction.")
@click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1, min_open=True, max_open=True),
              help="Significance level.")
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of the resampling tests.")
@click.option("--top", default=10, show_default=True, type=click.IntRange(min=0),
              help="How many of the queries that disagree most to list.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "markdown", "html"]), default="table",
              show_default=True, help="Output format (csv: one long table of section, key, column, value).")
@click.option("--order", type=click.Choice(["score", "rank"]), default="score", show_default=True,
              help="Rank by score (ties: item id descending, as trec_eval) or by the file's rank column.")
@column_options("query", "item", "score", "grade", "rank")
def command(judges_a: str, judges_b: str, runs: tuple[str, ...], metrics: tuple[str, ...], names: str | None,
            test: str, correction: str, alpha: float, seed: int, top: int, fmt: str, order: str,
            query_column: str | None, item_column: str | None, score_column: str | None,
            grade_column: str | None, rank_column: str | None) -> None:
    """Agreement of judgments A and B (Cohen's kappa, Krippendorff's alpha, confusion matrix), and with
    RUNs, each run's metrics under both, Kendall's tau and tau_AP between the two orderings of the runs,
    the largest rank moves and the pairwise significance decisions that flip.

    A RUN is PATH, NAME=PATH, or a folder of runs, as in `rankmeter compare`.
    """
    from .._errors import ParameterError
    from ..io import read_qrels, read_run
    from ..judges import agreement, compare_judges
    from ..report.judges import judge_tables, long_rows
    from ..report.tables import to_html, to_markdown
    from ._options import _stem, named_runs, parse_metric_list
    from ._output import note, write_csv, write_json, write_table

    if names is None:
        pair = (_stem(judges_a), _stem(judges_b))
        if pair[0] == pair[1]:
            pair = (f"{pair[0]} (A)", f"{pair[1]} (B)")
    else:
        parts = [p.strip() for p in names.split(",")]
        if len(parts) != 2 or not all(parts) or parts[0] == parts[1]:
            raise ParameterError(f"--names must be two different names separated by a comma. Got {names!r} instead.")
        pair = (parts[0], parts[1])
    qa, qb = (read_qrels(p, query=query_column, item=item_column, grade=grade_column) for p in (judges_a, judges_b))
    ag = agreement(qa, qb, names=pair)
    jc = None
    notes: list[str] = []
    if runs:
        named = named_runs(runs, notes)
        if len(named) < 2:
            raise ParameterError(f"judges needs at least 2 runs to compare orderings. Got {len(named)}; "
                                 "give more RUN arguments, or a folder of runs")
        parsed, metric_notes = parse_metric_list(metrics or ("ndcg@10",))
        notes += metric_notes
        loaded = {n: read_run(p, order=order, query=query_column, item=item_column, score=score_column,
                              rank=rank_column) for n, p in named}
        jc = compare_judges(qa, qb, loaded, parsed, names=pair, test=test, correction=correction, alpha=alpha,
                            seed=seed)
        notes += [f"under {pair[0]}: {line}" for line in jc.first.notes]
        notes += [f"under {pair[1]}: {line}" for line in jc.second.notes]
    elif metrics:
        raise ParameterError("-m/--metric needs runs: give RUN arguments after the two judgments")
    if ag.pairs["only_a"] or ag.pairs["only_b"]:
        notes.append(f"{ag.pairs['only_a']} (query, item) pairs judged by {pair[0]} only and {ag.pairs['only_b']} "
                     f"by {pair[1]} only are not in kappa, alpha or the confusion matrix")
    for line in notes:
        note(line)
    tables = judge_tables(ag, jc, top=top)
    if fmt == "json":
        payload = {"agreement": ag.to_dict(),
                   "disagreeing_queries": ag.per_query().head(top).reset_index().to_dict(orient="records")
                   if ag.pairs["both"] else []}
        if jc is not None:
            payload["runs"] = jc.to_dict()
        write_json(payload)
    elif fmt == "csv":
        write_csv(["section", "key", "column"], long_rows(tables), ["value"])
    elif fmt == "markdown":
        sys.stdout.write("\n".join(to_markdown(t) for t in tables))
    elif fmt == "html":
        sys.stdout.write(to_html(tables, f"Judges: {pair[0]} and {pair[1]}"))
    else:
        for t in tables:
            write_table(t.title, list(t.keys), t.rows, list(t.columns), caption=t.caption or None)
