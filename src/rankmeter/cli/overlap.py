"""``rankmeter overlap RUN_A RUN_B -m 'rbo(p=0.9)' -m tau_ap``: how similar two runs' rankings are, per query."""

from __future__ import annotations

import click

from ._options import COLUMN_OPTIONS, Command, column_options

PARAMETER_OPTIONS = {**COLUMN_OPTIONS, "measures": "-m/--measure"}


@click.command(
    cls=Command,
    name="overlap",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=(
        "Examples:\n\n"
        "  rankmeter overlap bm25.run rerank.run -m 'rbo(p=0.9)' -m tau_ap\n\n"
        "  rankmeter overlap a.run b.run -m 'rbo(p=0.8)@10,rbo_res(p=0.8)@10' --per-query --format csv\n\n"
        "  rankmeter overlap a.run b.run -m 'rbo(p=0.9, ties=a)' -m kendall"
    ),
)
@click.argument("run_a", type=click.Path(dir_okay=False))
@click.argument("run_b", type=click.Path(dir_okay=False))
@click.option("-m", "--measure", "measures", multiple=True, required=True,
              help="Agreement measure, repeatable or comma-separated outside parentheses: rbo(p=0.9) (the "
                   "extrapolated RBO), rbo_min, rbo_max, rbo_res (bounds and residual), ties=a|b|w to read equal "
                   "scores as ties; tau_ap (run A is the reference; symmetric=true), kendall (variant=b); @k cuts "
                   "both rankings to k items.")
@click.option("--per-query", "-q", is_flag=True, help="Also print each query's values.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True,
              help="Output format.")
@click.option("--order", type=click.Choice(["score", "rank"]), default="score", show_default=True,
              help="Rank by score (ties: item id descending, as trec_eval) or by the file's rank column.")
@click.option("--duplicates", type=click.Choice(["error", "max", "first", "last"]), default="error",
              show_default=True, help="What to do with a repeated (query, item) row.")
@column_options("query", "item", "score", "rank")
def command(run_a: str, run_b: str, measures: tuple[str, ...], per_query: bool, fmt: str, order: str,
            duplicates: str, query_column: str | None, item_column: str | None, score_column: str | None,
            rank_column: str | None) -> None:
    """Compare the rankings of RUN_A and RUN_B query by query (RBO, tau_AP, Kendall's tau).

    Queries found in one run only are counted on stderr and left out; tau_AP and
    Kendall's tau are computed on the items both runs retrieved for a query (the
    per-query output gives their number as 'common').
    """
    from ..compare.overlap import overlap_runs, parse_overlap_measure
    from ..io import read_run
    from ._options import _stem
    from ._output import note, write_csv, write_json, write_table

    parsed = [parse_overlap_measure(t) for text in measures for t in _split(text)]
    names = (_stem(run_a), _stem(run_b))
    if names[0] == names[1]:
        names = (f"{names[0]} (A)", f"{names[1]} (B)")
    runs = [read_run(p, order=order, duplicates=duplicates, query=query_column, item=item_column,
                     score=score_column, rank=rank_column) for p in (run_a, run_b)]
    for name, r in zip(names, runs, strict=True):
        for line in r.notes:
            note(f"{name}: {line}")
    res = overlap_runs(runs[0], runs[1], parsed, names=names)
    for line in res.notes:
        note(line)
    texts = [m.text for m in parsed]
    if fmt == "json":
        payload = res.to_dict(per_query=per_query)
        payload["runs"] = {"a": names[0], "b": names[1]}
        write_json(payload)
        return
    rows = [([q], [res.values[m][i] for m in texts] + [int(res.common[i])]) for i, q in enumerate(res.queries)]
    mean = res.mean
    if fmt == "csv":
        if per_query:
            write_csv(["query"], rows + [(["all"], [mean[m] for m in texts] + [float("nan")])], texts + ["common"])
        else:
            write_csv(["measure"], [([m], [mean[m], int(res.defined(m))]) for m in texts], ["mean", "queries"])
        return
    if per_query:
        write_table("per query", ["query"], rows, texts + ["common"])
    caption = (f"{names[0]} vs {names[1]}: {len(res.queries)} {'query' if len(res.queries) == 1 else 'queries'} "
               f"in both runs")
    write_table("", ["measure"], [([m], [mean[m], int(res.defined(m))]) for m in texts], ["mean", "queries"],
                caption=caption)


def _split(text: str) -> list[str]:
    """Comma-separated measures, commas inside parentheses kept: 'rbo(p=0.9, ties=a),tau_ap'."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [t.strip() for t in out if t.strip()]
