"""Terminal report: rich tables of means (intervals, markers, best in bold) and of tests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._common import DOWN, UP, describe, fmt, fmt_p, fmt_signed, legend, marker, missing_text

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from ..compare import Comparison


def means_table(cmp: "Comparison", digits: int = 4) -> "Table":
    """Runs as rows, metrics as columns: ``mean [low, high]`` and a marker against the baseline."""
    from rich.table import Table
    from rich.text import Text

    pct = f"{cmp.settings.confidence * 100:g}%"
    table = Table(title=f"Means and {pct} bootstrap intervals ({cmp.n_queries} {cmp.units})",
                  caption=legend(cmp) + "; bold: best", caption_justify="left")
    table.add_column("run", no_wrap=True)
    for m in cmp.metrics:
        arrow = "↑" if cmp.higher_is_better.get(m, True) else "↓"
        table.add_column(f"{m} {arrow}", justify="right", no_wrap=True)
    best = {m: set(cmp.best(m)) for m in cmp.metrics}
    for r in cmp.runs:
        name = Text(r)
        if r == cmp.baseline:
            name.append(" (baseline)", style="dim")
        cells: list[Text] = [name]
        for m in cmp.metrics:
            lo, hi = cmp.intervals[r][m]
            cell = Text(fmt(cmp.means[r][m], digits), style="bold" if r in best[m] else "")
            cell.append(f" [{fmt(lo, digits)}, {fmt(hi, digits)}]", style="dim")
            mk = marker(cmp, m, r)
            cell.append(" " + (UP if mk == "up" else DOWN if mk == "down" else " "),
                        style="green" if mk == "up" else "red" if mk == "down" else "")
            cells.append(cell)
        table.add_row(*cells)
    return table


def tests_table(cmp: "Comparison", digits: int = 4, compact: bool = False) -> "Table":
    """One row per test: metric, runs, difference and interval, d_z, statistic, p, adjusted p.

    ``compact`` leaves out d_z and the statistic (for terminals under 120 columns).
    """
    from rich.table import Table
    from rich.text import Text

    from ..stats.correction import correction_name

    corr = correction_name(cmp.settings.correction)
    pct = f"{cmp.settings.confidence * 100:g}%"
    table = Table(title="Paired tests (diff = mean(b) - mean(a))")
    def width(header: str, values: list[str]) -> int:
        return min(max([len(header)] + [len(v) for v in values]), 10)

    table.add_column("metric", min_width=width("metric", [t.metric for t in cmp.tests]), overflow="fold")
    table.add_column("b vs a", min_width=width("b vs a", [f"{t.b} vs {t.a}" for t in cmp.tests]), overflow="fold")
    table.add_column("test", min_width=width("test", [t.test for t in cmp.tests]), overflow="fold")
    numbers = ("diff", f"{pct} interval", "p", f"p {corr}") if compact else \
        ("diff", f"{pct} interval", "d_z", "statistic", "p", f"p {corr}")
    for col in numbers:
        # the interval may wrap onto two lines in a narrow terminal; the rest stay whole
        table.add_column(col, justify="right", no_wrap=not col.endswith("interval"))
    table.add_column("")
    for t in cmp.tests:
        sig = Text("*" if t.significant else "", style="bold green" if t.better == t.b else "bold red")
        extra = [] if compact else [fmt(t.effect_size, 2), fmt(t.statistic, 3)]
        table.add_row(t.metric, f"{t.b} vs {t.a}", t.test, fmt_signed(t.diff, digits),
                      f"[{fmt(t.diff_interval[0], digits)}, {fmt(t.diff_interval[1], digits)}]",
                      *extra, fmt_p(t.p_value), fmt_p(t.p_adjusted), sig)
    return table


def print_comparison(cmp: "Comparison", console: "Console | None" = None, digits: int = 4) -> None:
    from rich.console import Console

    console = console or Console()
    console.print(means_table(cmp, digits))
    console.print(tests_table(cmp, digits, compact=console.width < 120))
    console.print(describe(cmp), style="dim")
    miss = missing_text(cmp)
    if miss:
        console.print(miss, style="yellow")
    for note in cmp.notes:
        console.print(f"note: {note}", style="yellow")
