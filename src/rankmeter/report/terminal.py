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
        cols = list(range(len(self.columns))) if columns is None else list(columns)
        table = self._frame(cols, part)
        for row in self.rows:
            table.add_row(*[cell(row[i]) for i in cols])
        return table

    def _frame(self, cols: list[int], part: str = "") -> "Table":
        """The rich table of these columns, without its rows: its title, caption, columns and header."""
        from rich.table import Table
        from rich.text import Text

        title = Text(terminal_text(self.title) + part) if self.title else None
        caption = Text(terminal_text(self.caption)) if self.caption else None
        table = Table(title=title, caption=caption, caption_justify="left")
        for i in cols:
            # justify is one of rich's names (the ignore below)
            table.add_column(cell(self.columns[i]), justify=self._justify(i),  # type: ignore[arg-type]
                             overflow="fold", no_wrap=False, style=self.styles.get(i, ""))
        return table

    def parts(self, width: int, widths: list[int] | None = None) -> list[list[int]]:
        """Column groups that each fit in ``width`` (the kept columns in every group); ``widths``: :meth:`widths`,
        if already known."""
        w = self.widths() if widths is None else widths
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

    def full_width(self, widths: list[int] | None = None) -> int:
        return sum(self.widths() if widths is None else widths) + 3 * len(self.columns) + 1


def print_grid(grid: Grid, console: "Console | None" = None) -> None:
    """Print ``grid`` whole, or in parts that fit the terminal; never cut a number or a name.

    When the console is not a terminal, the table is printed at its full width
    (a file or a pipe has no width to fit). The table is rich's (:meth:`Grid.to_rich`), laid
    out by :class:`_Layout` when every cell fits on one line: the same characters in the
    same styles, at a fraction of rich's cost per cell.
    """
    from rich.console import Console

    console = console or Console()
    layout = _Layout(grid)
    if not console.is_terminal:
        # rich would fit the table to 80 columns: widen the console for this table only
        before = console.width
        console.width = max(grid.full_width(layout.widths()), before)
        try:
            console.print(layout.table(list(range(len(grid.columns)))))
        finally:
            console.width = before
        return
    groups = grid.parts(console.width, layout.widths())
    for n, cols in enumerate(groups):
        part = f" (part {n + 1} of {len(groups)})" if len(groups) > 1 else ""
        console.print(layout.table(cols, part))


class _Layout:
    """A grid's cells as text once, and its tables laid out line by line as rich lays out :meth:`Grid.to_rich`.

    rich measures, wraps and pads every cell through several renderables (about 25 us a
    cell here: 20,000 rows took 3 s). When each cell of a table fits on one line at its
    column's natural width, which is every table that fits its console, the layout is
    simple, and this class writes it directly: the same segments (text and style), so the
    same characters in the same colours, whatever the size. A table that does not fit
    (a cell wider than the terminal, which rich folds), a cell of several lines, tabs or
    other justification goes to rich whole. ``tests/report/test_terminal_layout.py`` holds
    the two equal, segment for segment.
    """

    def __init__(self, grid: Grid) -> None:
        import sys

        from rich.text import Text

        encoding = getattr(sys.stdout, "encoding", None)  # as cell() reads it
        self.grid = grid
        self.header = [_text_cell(cell(h), header=True) for h in grid.columns]
        self.rows = [[_text_cell(x) if isinstance(x, Text) else _str_cell(x, encoding) for x in row]
                     for row in grid.rows]

    def widths(self) -> list[int]:
        """:meth:`Grid.widths` from the cells already made."""
        return [max(head[5], max((row[i][5] for row in self.rows), default=0), 1) for i, head in enumerate(self.header)]

    def simple(self, cols: list[int]) -> bool:
        """Whether every cell of these columns is one line of text laid out by the column alone."""
        if any(self.grid._justify(i) not in ("left", "right", "center") for i in cols):
            return False
        return all(c[3] for c in self.header) and all(row[i][3] for row in self.rows for i in cols)

    def table(self, cols: list[int], part: str = "") -> Any:
        """A renderable of the grid's table of these columns (:meth:`Grid.to_rich`)."""
        frame = self.grid._frame(cols, part)
        if not self.simple(cols):
            for row in self.grid.rows:
                frame.add_row(*[cell(row[i]) for i in cols])
            return frame
        return _Lines(self, frame, cols)


# a cell: (plain text, base style, spans, simple, cells, measure): simple says one line that needs no more of
# rich's layout; cells, its width on a terminal; measure, its width as Grid.widths measures it
_CellText = tuple[str, Any, list[Any], bool, int, int]

# what rich reads as a line break (str.splitlines) or a tab: a cell holding one is laid out by rich
_NOT_ONE_LINE = re.compile("[\t\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def _text_cell(text: "Text", header: bool = False) -> _CellText:
    from rich.cells import cell_len

    plain = text.plain
    simple = (text.justify is None and text.overflow is None and text.no_wrap is None and text.end == "\n"
              and _NOT_ONE_LINE.search(plain) is None)
    cells = cell_len(plain)
    # Grid.widths: a header by its characters, a cell by its cells, each line of several by its characters
    measure = max(len(x) for x in plain.split("\n")) if header or "\n" in plain else cells
    return plain, text.style, text.spans, simple, cells, measure


def _str_cell(value: Any, encoding: str | None) -> _CellText:
    """:func:`cell` of a value that is not a rich ``Text``, without making the ``Text``."""
    from rich.cells import cell_len
    from rich.control import strip_control_codes

    plain = strip_control_codes(encodable(escape(value), encoding))  # what Text(...) keeps
    cells = cell_len(plain)
    measure = max(len(x) for x in plain.split("\n")) if "\n" in plain else cells
    return plain, "", [], _NOT_ONE_LINE.search(plain) is None, cells, measure


class _Lines:
    """The table of :meth:`_Layout.table`: rich's own ``Table.__rich_console__``, written out for one-line cells.

    What rich does, step by step, for a table whose columns get their natural widths: the
    title centred and the caption at the left over the table's width (rich itself renders
    them); the box's top edge; each row as its left edge, each cell as a pad (the cell's
    style), its text justified in the column (``Text.wrap``: left pads the end, right and
    center strip the trailing blanks first) and rendered span by span (``Text.render``: the
    text's base style first, then each span, in order), a pad, the dividers; the header
    row in the header style, the head rule after it, the foot edge's verticals on the last
    row; the bottom edge. A console too narrow for the natural widths gets rich's table.
    A console that writes no style (a file, a pipe) gets each line as one segment.
    """

    def __init__(self, layout: _Layout, frame: "Table", cols: list[int]) -> None:
        self.layout, self.frame, self.cols = layout, frame, cols

    def __rich_console__(self, console: "Console", options: Any) -> Any:
        from rich.segment import Segment
        from rich.style import Style

        table, cols, layout = self.frame, self.cols, self.layout
        widths = [max(layout.header[i][4], max((row[i][4] for row in layout.rows), default=0)) + 2 for i in cols]
        extra = 2 + len(cols) - 1  # the edges and the dividers (the box and its edges are always shown)
        # rich's own layout: a console too narrow, a table with no rows, or a column of width 0 holding zero-width
        # characters (a column of empty cells is one blank of two cells per row, in the cell's style)
        empty = [w == 2 for w in widths]
        if sum(widths) + extra > options.max_width or not layout.rows or all(empty) or any(
                layout.header[i][0] or any(row[i][0] for row in layout.rows)
                for i, e in zip(cols, empty, strict=True) if e):
            for row in layout.grid.rows:
                table.add_row(*[cell(row[i]) for i in cols])
            yield table
            return
        table_width = sum(widths) + extra
        render_options = options.update(width=table_width, highlight=table.highlight, height=None)
        if table.title:
            yield from console.render(table.title, options=render_options.update(justify=table.title_justify))

        border = console.get_style(table.style or "") + console.get_style(table.border_style or "")
        box = table.box.substitute(options, safe=console.safe_box if table.safe_box is None else table.safe_box) \
            if table.box else None
        if box is None:  # rich's default box: never None here
            raise RuntimeError("a grid's table has a box")
        line = Segment.line()
        yield Segment(box.get_top(widths), border)
        yield line
        get_style = console.get_style
        null = Style.null()
        header_style = get_style(table.header_style or "")
        justify = [c.justify for c in table.columns]
        head_styles = [header_style + get_style(c.header_style) for c in table.columns]
        body_styles = [get_style(c.style or "") + null for c in table.columns]
        edges = [(box.head_left, box.head_right, box.head_vertical), (box.mid_left, box.mid_right, box.mid_vertical),
                 (box.foot_left, box.foot_right, box.foot_vertical)]
        n = len(layout.rows)
        plain = console.color_system is None and not console.record and not console.is_jupyter
        for index in range(n + 1):
            cells = [layout.header[i] for i in cols] if index == 0 else [layout.rows[index - 1][i] for i in cols]
            left, right, divider = edges[0 if index == 0 else (2 if index == n else 1)]
            if plain:  # no style is written: the line's text is all there is
                texts = [" " + _justified(c, widths[j] - 2, justify[j])[0] + " " for j, c in enumerate(cells)]
                yield Segment(left + divider.join(texts) + right)
            else:
                styles = head_styles if index == 0 else body_styles
                yield Segment(left, border)
                for j, c in enumerate(cells):
                    if j:
                        yield Segment(divider, border)
                    if empty[j]:
                        yield Segment("  ", styles[j])
                    else:
                        yield from _cell_segments(c, widths[j] - 2, justify[j], styles[j], console)
                yield Segment(right, border)
            yield line
            if index == 0:
                yield Segment(box.get_row(widths, "head", edge=True), border)
                yield line
        yield Segment(box.get_bottom(widths), border)
        yield line
        if table.caption:
            yield from console.render(table.caption, options=render_options.update(justify=table.caption_justify))


_TRAILING_BLANKS = re.compile(r"\s+$")


def _cut(spans: list[Any], end: int) -> list[Any]:
    """Spans of a text cut to its first ``end`` characters (``Text``'s own trimming)."""
    from rich.text import Span

    return [s if s.end < end else Span(s.start, min(end, s.end), s.style) for s in spans if s.start < end]


def _justified(c: _CellText, width: int, justify: str) -> tuple[str, list[Any]]:
    """A one-line cell's text and spans as ``Text.wrap`` justifies it in ``width`` cells."""
    plain, _, spans, _, cells, _ = c
    if len(plain) > width:  # Text.rstrip_end: more characters than cells (zero-width ones): blanks cut
        blanks = _TRAILING_BLANKS.search(plain)
        if blanks is not None:
            plain = plain[:len(plain) - min(len(blanks.group(0)), len(plain) - width)]
            spans = _cut(spans, len(plain))
            cells = -1
    if justify == "left":  # Text.truncate(width, pad=True)
        if cells < 0:
            from rich.cells import cell_len

            cells = cell_len(plain)
        return plain + " " * (width - cells), spans
    from rich.cells import cell_len

    # right and center: Text.rstrip (spans cut to the text left), then pad_left (spans moved), and pad_right
    text = plain.rstrip()
    if len(text) < len(plain):
        spans = _cut(spans, len(text))
        cells = -1
    room = width - (cell_len(text) if cells < 0 else cells)
    shift = room if justify == "right" else room // 2
    if shift > 0:
        text = " " * shift + text
        if spans:
            from rich.text import Span

            spans = [Span(s.start + shift, s.end + shift, s.style) for s in spans]
    if justify == "center":
        text += " " * (width - cell_len(text))
    return text, spans


def _cell_segments(c: _CellText, width: int, justify: str, style: Any, console: "Console") -> list[Any]:
    """One cell's line as rich renders ``Padding(text, (0, 1))`` in a column ``width + 2`` wide, in ``style``."""
    from rich.segment import Segment
    from rich.style import Style
    from rich.text import Span

    text, spans = _justified(c, width, justify)
    base = c[1]
    # Text("\n").join([line]): the base style becomes the first span; then Text.render
    if base:
        spans = [Span(0, len(text), base), *spans]
    pad = Segment(" ", style)
    if not spans:
        return [pad, Segment(text, style if style else None), pad]
    out = [pad]
    get = console.get_style
    null = Style.null()
    style_map = {i: get(s.style, default=null) for i, s in enumerate(spans, 1)}
    style_map[0] = get("", default=null)
    marks = sorted([(0, False, 0), *((s.start, False, i) for i, s in enumerate(spans, 1)),
                    *((s.end, True, i) for i, s in enumerate(spans, 1)), (len(text), True, 0)],
                   key=lambda m: (m[0], m[1]))
    stack: list[int] = []
    for (offset, leaving, sid), (nxt, _, _) in zip(marks, marks[1:], strict=False):
        if leaving:
            stack.remove(sid)
        else:
            stack.append(sid)
        if nxt > offset:
            parts = [style_map[k] for k in sorted(stack)]
            combined = sum(parts[1:], parts[0])
            out.append(Segment(text[offset:nxt], style + combined if style else combined))
    out.append(pad)
    return out


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
