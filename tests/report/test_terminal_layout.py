"""The terminal table's own layout equals rich's, segment for segment (issue 32 item 5).

:func:`rankmeter.report.terminal.print_grid` lays a table out itself when every cell fits on
one line (rich's per-cell layout cost 3 s for 20,000 rows). These tests hold that layout
to rich's :class:`rich.table.Table` of the same grid (:meth:`Grid.to_rich`): the same
segments, text and style, so the same characters in the same colours, on terminals of
every width and encoding, and in a file or a pipe; and the same bytes from ``print_grid``
as printing rich's tables part by part.
"""

from __future__ import annotations

import io
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from rankmeter.report.terminal import Grid, _Layout, print_grid

STYLES = ["", "bold", "dim", "green", "bold red", "italic cyan", "on blue", "underline"]
# ids as they come: spaces (inside, leading, trailing), wide and combining characters, markup, escapes
words = st.text(alphabet=st.sampled_from(list("ab z.0-9[]\\/_ ") + ["é", "中", "\u0301", "\u00a0", "\x1b", "\t",
                                                                    "\n", "\u2028", "😀"]), max_size=12)


@st.composite
def texts(draw: Any) -> Any:
    """A cell: a plain value (str, int, float) or a rich Text with a base style and appended styled parts."""
    kind = draw(st.sampled_from(["str", "num", "text"]))
    if kind == "str":
        return draw(words)
    if kind == "num":
        return draw(st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True)))
    t = Text(draw(words), style=draw(st.sampled_from(STYLES)))
    for _ in range(draw(st.integers(0, 3))):
        t.append(draw(words), style=draw(st.sampled_from(STYLES)))
    return t


@st.composite
def grids(draw: Any) -> Grid:
    n = draw(st.integers(1, 4))
    rows = draw(st.lists(st.lists(texts(), min_size=n, max_size=n), max_size=5))
    justify = draw(st.none() | st.lists(st.sampled_from(["left", "right", "center"]), min_size=n, max_size=n))
    styles = draw(st.dictionaries(st.integers(0, n - 1), st.sampled_from(STYLES), max_size=2))
    return Grid(draw(st.lists(words, min_size=n, max_size=n)), rows, title=draw(st.none() | words),
                caption=draw(st.none() | words), keep=draw(st.integers(1, n)), justify=justify, styles=styles)


def console(width: int, terminal: bool, encoding: str = "utf-8") -> Console:
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="backslashreplace")
    return Console(file=out, width=width, force_terminal=terminal, color_system="truecolor" if terminal else None,
                   legacy_windows=False)


def printed(c: Console) -> bytes:
    c.file.flush()
    return c.file.buffer.getvalue()  # type: ignore[attr-defined, no-any-return]


@settings(max_examples=150)
@given(grids(), st.integers(8, 120), st.booleans(), st.sampled_from(["utf-8", "ascii"]))
def test_layout_equals_rich_segment_for_segment(grid: Grid, width: int, terminal: bool, encoding: str) -> None:
    """On a terminal: rich's segments, text and style. In a file (no style is written): rich's text."""
    for cols in ([*range(len(grid.columns))], [len(grid.columns) - 1]):
        c = console(width, terminal, encoding)
        rich_table = list(c.render(grid.to_rich(cols, " (part)"), c.options))
        ours = list(c.render(_Layout(grid).table(cols, " (part)"), c.options))
        if terminal:
            assert ours == rich_table
        else:
            assert "".join(s.text for s in ours) == "".join(s.text for s in rich_table)
            theirs = console(width, terminal, encoding)
            c.print(_Layout(grid).table(cols, " (part)"))
            theirs.print(grid.to_rich(cols, " (part)"))
            assert printed(c) == printed(theirs)


def print_grid_by_rich(grid: Grid, c: Console) -> None:
    """print_grid as it was: rich's table, whole or in parts."""
    if not c.is_terminal:
        before = c.width
        c.width = max(grid.full_width(), before)
        try:
            c.print(grid.to_rich())
        finally:
            c.width = before
        return
    groups = grid.parts(c.width)
    for n, cols in enumerate(groups):
        c.print(grid.to_rich(cols, f" (part {n + 1} of {len(groups)})" if len(groups) > 1 else ""))


@settings(max_examples=60)
@given(grids(), st.integers(8, 120), st.booleans())
def test_print_grid_prints_what_rich_printed(grid: Grid, width: int, terminal: bool) -> None:
    ours, theirs = console(width, terminal), console(width, terminal)
    print_grid(grid, ours)
    print_grid_by_rich(grid, theirs)
    assert printed(ours) == printed(theirs)


def test_the_fast_layout_is_the_one_used() -> None:
    """A table of one-line cells is laid out here, not by rich (else the equality above would test nothing)."""
    grid = Grid(["metric", "mean"], [["ndcg@10", "0.5000"], ["map", Text("0.25", style="bold")]], title="t")
    assert type(_Layout(grid).table([0, 1])).__name__ == "_Lines"
    assert type(_Layout(Grid(["a"], [[Text("x\ny")]])).table([0])).__name__ == "Table"  # two lines: rich lays it out
    c = console(200, True)
    print_grid(grid, c)
    assert "ndcg@10" in printed(c).decode() and "\x1b[1m" in printed(c).decode()
