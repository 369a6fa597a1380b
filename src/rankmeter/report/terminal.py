"""Terminal output: the one table renderer of every command, and text made safe for a terminal.

Every string that comes from the data (ids, run names, metric names as the user
wrote them, notes that quote them) goes through :func:`terminal_text` before it
reaches a terminal: control characters (ANSI/OSC escape sequences, carriage
returns, bidirectional overrides) are shown escaped, and cells are rich
``Text`` objects, which rich never reads as markup (``[red]q2`` is printed as
written).

Tables never cut a number or a name (:func:`print_grid`): a table wider than the
terminal is printed in parts, each repeating the leading (name) column; a cell
wider than the whole terminal wraps onto several lines rather than losing
characters; when the output is not a terminal (a pipe, a file) the table is
printed at its full width.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from ._common import (
    DOWN,
    UP,
    adjusted_name,
    aggregate_cells,
    counts_text,
    describe,
    diff_metric_label,
    fmt,
    fmt_p,
    fmt_signed,
    legend,
    marker,
    mean_label,
    missing_text,
    no_value_text,
    show_n,
)
from .escape import NEEDS_ESCAPE, char_escape, encodable, escape

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ..compare import Comparison

__all__ = ["terminal_text", "Grid", "print_grid", "means_grid", "tests_grid", "means_table", "tests_table",
           "print_comparison"]

# what the one rule escapes, but the backslash (prose is not data: a message's own backslashes stay)
_CONTROL = re.compile(f"[{NEEDS_ESCAPE[2:]}]")


def _escape_char(m: re.Match[str]) -> str:
    return char_escape(m.group(0))


def terminal_text(value: Any) -> str:
    """``str(value)`` with every terminal control character shown as an escape: for prose (messages, notes,
    captions), which may quote data. Data itself (ids, names) is written by the one rule,
    :func:`rankmeter.report.escape.escape`, which also doubles a literal backslash.

    Rich markup is not touched here: print the result as a rich ``Text`` (never
    parsed as markup) or with ``markup=False``.

    >>> terminal_text("q\\x1b]8;;http://x\\x1b\\\\1")
    'q\\\\x1b]8;;http://x\\\\x1b\\\\1'
    >>> terminal_text("a\\nb\\tc"), terminal_text("[red]q2")
    ('a\\\\nb\\\\tc', '[red]q2')
    """
    return _CONTROL.sub(_escape_char, str(value))


def cell(value: Any, style: str = "") -> "Text":
    """A rich ``Text`` of data-derived text: escaped by the one rule (:func:`~rankmeter.report.escape.escape`),
    never read as markup."""
    import sys

    from rich.text import Text

    if isinstance(value, Text):
        return value
    return Text(encodable(escape(value), getattr(sys.stdout, "encoding", None)), style=style)


@dataclass
class Grid:
    """A table as data: header, rows of cells (str or rich ``Text``), title, caption.

    ``keep`` leading columns (the names) are repeated in every part when the
    table is printed in parts; ``justify`` per column (default: the kept columns
    left, the others right).
    """

    columns: list[Any]
    rows: list[list[Any]]
    title: str | None = None
    caption: str | None = None
    keep: int = 1
    justify: list[str] | None = None
    styles: dict[int, str] = field(default_factory=dict)

    def _justify(self, i: int) -> str:
        if self.justify is not None:
            return self.justify[i]
        return "left" if i < self.keep else "right"

    def widths(self) -> list[int]:
        """The natural width of each column (its longest line, header included)."""
        out = []
        for i, head in enumerate(self.columns):
            w = max((len(x) for x in str(cell(head)).split("\n")), default=0)
            for row in self.rows:
                txt = cell(row[i])
                w = max(w, max((txt.cell_len if "\n" not in txt.plain else len(x)
                                for x in txt.plain.split("\n")), default=0))
            out.append(max(w, 1))
        return out

    def to_rich(self, columns: Sequence[int] | None = None, part: str = "") -> "Table":
        """A rich table of the given columns (all by default); cells fold rather than being cut."""
        from rich.table import Table
        from rich.text import Text

        cols = list(range(len(self.columns))) if columns is None else list(columns)
        title = Text(terminal_text(self.title) + part) if self.title else None
        caption = Text(terminal_text(self.caption)) if self.caption else None
        table = Table(title=title, caption=caption, caption_justify="left")
        for i in cols:
            # justify is one of rich's names (the ignore below)
            table.add_column(cell(self.columns[i]), justify=self._justify(i),  # type: ignore[arg-type]
                             overflow="fold", no_wrap=False, style=self.styles.get(i, ""))
        for row in self.rows:
            table.add_row(*[cell(row[i]) for i in cols])
        return table

    def parts(self, width: int) -> list[list[int]]:
        """Column groups that each fit in ``width`` (the kept columns in every group)."""
        w = self.widths()
        keep = list(range(min(self.keep, len(w))))
        rest = list(range(len(keep), len(w)))

        def total(cols: list[int]) -> int:
            return sum(w[i] for i in cols) + 3 * len(cols) + 1

        if total(keep + rest) <= width or not rest:
            return [keep + rest]
        groups: list[list[int]] = []
        cur: list[int] = []
        for i in rest:
            if cur and total(keep + cur + [i]) > width:
                groups.append(keep + cur)
                cur = []
            cur.append(i)
        groups.append(keep + cur)
        return groups

    def full_width(self) -> int:
        return sum(self.widths()) + 3 * len(self.columns) + 1


def print_grid(grid: Grid, console: "Console | None" = None) -> None:
    """Print ``grid`` whole, or in parts that fit the terminal; never cut a number or a name.

    When the console is not a terminal, the table is printed at its full width
    (a file or a pipe has no width to fit).
    """
    from rich.console import Console

    console = console or Console()
    if not console.is_terminal:
        # rich would fit the table to 80 columns: widen the console for this table only
        before = console.width
        console.width = max(grid.full_width(), before)
        try:
            console.print(grid.to_rich())
        finally:
            console.width = before
        return
    groups = grid.parts(console.width)
    for n, cols in enumerate(groups):
        part = f" (part {n + 1} of {len(groups)})" if len(groups) > 1 else ""
        console.print(grid.to_rich(cols, part))


# --------------------------------------------------------------------------- a comparison


def means_grid(cmp: "Comparison", digits: int = 4) -> Grid:
    """Runs as rows, metrics as columns: ``mean [low, high]`` and a marker against the baseline."""
    from rich.text import Text

    pct = f"{cmp.settings.confidence * 100:g}%"
    head: list[Any] = ["run"]
    for m in cmp.metrics:
        head.append(f"{mean_label(cmp, m)} {'↑' if cmp.higher_is_better.get(m, True) else '↓'}")
    best = {m: set(cmp.best(m)) for m in cmp.metrics}
    rows = []
    for r in cmp.runs:
        name = cell(r)
        if r == cmp.baseline:
            name.append(" (baseline)", style="dim")
        cells: list[Any] = [name]
        for m in cmp.metrics:
            v, lo, hi = aggregate_cells(cmp, r, m, digits)  # a count: its sum
            c = Text(v, style="bold" if r in best[m] else "")
            c.append(f" [{lo}, {hi}]", style="dim")
            mk = marker(cmp, m, r)
            c.append(" " + (UP if mk == "up" else DOWN if mk == "down" else " "),
                     style="green" if mk == "up" else "red" if mk == "down" else "")
            cells.append(c)
        rows.append(cells)
    counts = counts_text(cmp)
    return Grid(head, rows, title=f"Means and {pct} bootstrap intervals ({cmp.n_queries} {cmp.units})",
                caption=legend(cmp) + "; bold: best" + (f". {counts}" if counts else ""))


def tests_grid(cmp: "Comparison", digits: int = 4, compact: bool = False) -> Grid:
    """One row per test: metric, runs, difference and interval, d_z, statistic, p, adjusted p.

    ``compact`` leaves out d_z and the statistic.
    """
    from rich.text import Text

    corr = adjusted_name(cmp)
    pct = f"{cmp.settings.confidence * 100:g}%"
    numbers = ["diff", f"{pct} interval", "p", f"p {corr}"] if compact else \
        ["diff", f"{pct} interval", "d_z", "statistic", "p", f"p {corr}"]
    with_n = show_n(cmp)
    if with_n:
        numbers.append("n")
    rows = []
    for t in cmp.tests:
        sig = Text("*" if t.significant else "", style="bold green" if t.better == t.b else "bold red")
        extra = [] if compact else [fmt(t.effect_size, 2), fmt(t.statistic, 3)]
        vs = cell(t.b)
        vs.append(" vs ")
        vs.append_text(cell(t.a))
        rows.append([cell(diff_metric_label(cmp, t.metric)), vs, t.test, fmt_signed(t.diff, digits),
                     f"[{fmt(t.diff_interval[0], digits)}, {fmt(t.diff_interval[1], digits)}]",
                     *extra, fmt_p(t.p_value), fmt_p(t.p_adjusted), *([str(t.n)] if with_n else []), sig])
    return Grid(["metric", "b vs a", "test", *numbers, ""], rows, title="Paired tests (diff = mean(b) - mean(a))",
                keep=2, justify=["left", "left", "left"] + ["right"] * len(numbers) + ["left"])


def overlap_grid(cmp: "Comparison", digits: int = 4) -> Grid:
    """How similar the compared runs' rankings are: mean RBO per compared pair."""
    rows = [[o["a"], o["b"], fmt(o["mean"], digits), str(o["queries"])] for o in cmp.overlap]
    measure = cmp.overlap[0]["measure"] if cmp.overlap else "rbo"
    return Grid(["run", "against", f"mean {measure}", "queries"], rows, title="Rank overlap",
                caption="Extrapolated rank-biased overlap (Webber et al. 2010) of the two runs' rankings, "
                        "averaged over the compared queries both runs have.", keep=2)


def means_table(cmp: "Comparison", digits: int = 4) -> "Table":
    """The means table as one rich table (see :func:`means_grid`)."""
    return means_grid(cmp, digits).to_rich()


def tests_table(cmp: "Comparison", digits: int = 4, compact: bool = False) -> "Table":
    """The tests table as one rich table (see :func:`tests_grid`)."""
    return tests_grid(cmp, digits, compact).to_rich()


def print_comparison(cmp: "Comparison", console: "Console | None" = None, digits: int = 4,
                     notes: bool = True) -> None:
    """Both tables (in parts when the terminal is narrow), the settings, the missing queries and the notes."""
    from rich.console import Console
    from rich.text import Text

    console = console or Console()
    print_grid(means_grid(cmp, digits), console)
    print_grid(tests_grid(cmp, digits), console)
    if getattr(cmp, "overlap", None):
        print_grid(overlap_grid(cmp, digits), console)
    console.print(Text(terminal_text(describe(cmp)), style="dim"))
    for extra in (missing_text(cmp), no_value_text(cmp)):
        if extra:
            console.print(Text(terminal_text(extra), style="yellow"))
    if notes:
        for note in cmp.notes:
            console.print(Text("note: " + terminal_text(note), style="yellow"))
