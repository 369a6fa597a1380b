"""Reports of a comparison: terminal (rich), Markdown, LaTeX, CSV, HTML.

Each function takes a :class:`rankmeter.compare.Comparison` (any value with its
attributes: the reports never import :mod:`rankmeter.compare`) and returns text
or a rich renderable; the Comparison's ``to_*`` methods call them. HTML needs
matplotlib (imported lazily). :mod:`rankmeter.report.terminal` also holds the one
table renderer every command prints with (:func:`~rankmeter.report.terminal.print_grid`)
and the one function that makes data-derived text safe for a terminal
(:func:`~rankmeter.report.terminal.terminal_text`).
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:  # the renderers loaded on first use, as type checkers see them
    from ._common import describe
    from .html import to_html
    from .latex import to_latex
    from .markdown import to_markdown
    from .tabular import to_csv
    from .terminal import Grid, means_table, print_comparison, print_grid, terminal_text, tests_table

__all__ = ["describe", "to_html", "to_latex", "to_markdown", "to_csv", "means_table", "tests_table",
           "print_comparison", "Grid", "print_grid", "terminal_text"]

# each renderer loads on first use (the command line prints through the terminal one only)
__getattr__ = lazy_names(__name__, {
    "describe": "._common", "to_html": ".html", "to_latex": ".latex", "to_markdown": ".markdown",
    "to_csv": ".tabular", "means_table": ".terminal", "tests_table": ".terminal", "print_comparison": ".terminal",
    "Grid": ".terminal", "print_grid": ".terminal", "terminal_text": ".terminal"})


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
