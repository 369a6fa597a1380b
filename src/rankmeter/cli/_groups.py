"""``--group-by FILE`` of ``evaluate`` and ``compare``: per-group tables in every output format."""

from __future__ import annotations

import sys
from typing import Any, Mapping, cast

import click

__all__ = ["GROUP_BY_HELP", "group_by_option", "notes_of", "tables", "write"]

GROUP_BY_HELP = ("Two-column file (query or user, group; tab, comma or space separated, optional header): also "
                 "print each metric's mean per group, the group sizes and the gap between groups (max - min, "
                 "min / max). Queries without a group are counted on stderr.")


def group_by_option(f: Any) -> Any:
    return click.option("--group-by", "group_by", type=click.Path(dir_okay=False), default=None,
                        help=GROUP_BY_HELP)(f)


def notes_of(views: Mapping[str, Any]) -> list[str]:
    """Each view's notes once (prefixed by the run when several runs differ)."""
    out: list[str] = []
    first = next(iter(views.values())).notes if views else []
    out += list(first)
    for run, gv in list(views.items())[1:]:
        out += [f"{run}: {n}" for n in gv.notes if n not in first]
    return out


def tables(views: Mapping[str, Any]) -> list[Any]:
    """Per-group means, gaps and (when run) tests as :class:`rankmeter.report.tables.Table` objects."""
    from ..report.tables import Table

    multi = len(views) > 1
    run_key = ["run"] if multi else []
    first = next(iter(views.values()))
    metrics = list(first.means.columns)
    counts = set(getattr(first, "counts", ()))  # a count: its sum per group; its gap and tests: of the means

    def shown(m: str, how: str) -> str:
        return f"{m} ({how})" if m in counts else m

    mean_rows, gap_rows, test_rows = [], [], []
    for run, gv in views.items():
        key = [run] if multi else []
        sums = gv.sums if counts else {}
        mean_rows += [([*key, g, str(gv.sizes[g])], [sums[g][m] if m in counts else float(gv.means.loc[g, m])
                                                     for m in metrics]) for g in gv.groups]
        gap_rows += [([*key, shown(m, "mean"), str(gv.gap.loc[m, "highest"]), str(gv.gap.loc[m, "lowest"])],
                      [float(gv.gap.loc[m, "max_minus_min"]), float(gv.gap.loc[m, "min_over_max"])])
                     for m in metrics]
        for row in gv.tests.to_dict(orient="records"):
            test_rows.append(([*key, shown(row["metric"], "mean"), row["group"], row["other"], row["test"],
                               str(row["n"])],
                              [row["diff"], row["p_value"], row["p_adjusted"]]))
    unit = first.unit
    out = [
        Table("Per group", [*run_key, "group", "size"], mean_rows, [shown(m, "sum") for m in metrics],
              f"Mean per group of {unit if unit != 'query' else 'queries'} (a {unit} without a value is left out "
              f"and counted)." + (" Counts (sum) are summed over the group's queries, as trec_eval does; their gap "
                                  "and tests are of the means (mean)." if counts else "")),
        Table("Gap between groups", [*run_key, "metric", "highest", "lowest"], gap_rows,
              ["max - min", "min / max"], "Highest and lowest group mean of each metric."),
    ]
    if test_rows:
        out.append(Table("Tests within groups", [*run_key, "metric", "group", "against", "test", "n"], test_rows,
                         ["diff", "p", "p adjusted"], "Paired test of each run against the baseline, per group."))
    return out


def write(views: Mapping[str, Any], fmt: str) -> None:
    """Print the per-group tables after the main output, in ``fmt``."""
    from ..report.tables import to_html, to_latex, to_markdown
    from ._output import write_csv, write_table

    ts = tables(views)
    if fmt == "table":
        for t in ts:
            write_table(t.title, t.keys, t.rows, t.columns, caption=t.caption)
    elif fmt == "markdown":
        sys.stdout.write("\n".join(to_markdown(t) for t in ts))
    elif fmt == "latex":
        sys.stdout.write("\n".join(to_latex(t, label=f"tab:groups-{i}") for i, t in enumerate(ts)))
    elif fmt == "html":
        sys.stdout.write(to_html(ts, title="rankmeter: per group"))
    elif fmt == "csv":
        t = ts[0]
        write_csv(t.keys, t.rows, t.columns)


def payload(views: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON form: ``{run: GroupResult.to_dict()}`` (one run: the dict itself)."""
    if len(views) == 1:
        return cast("dict[str, Any]", next(iter(views.values())).to_dict())
    return {run: gv.to_dict() for run, gv in views.items()}
