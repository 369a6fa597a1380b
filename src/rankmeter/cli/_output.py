"""Output helpers shared by the commands: tables, JSON, CSV, trec_eval lines, notes on stderr.

Everything that comes from the data is made safe for where it goes, by the one escaping
rule (:mod:`rankmeter.report.escape`: control characters escaped, a literal backslash
doubled) in tables, CSV cells and ``--format trec`` lines (where a blank is escaped too),
spreadsheet formulas neutralised in CSV text cells, NaN written as JSON null, JSON
written ASCII-only.
"""

from __future__ import annotations

import csv
import math
import sys
from typing import Any, Mapping, Sequence

import click

from ..report.terminal import terminal_text

# the running command's options (set by the app): notes say parameters the way the user wrote them
OPTIONS: dict[str, str] = {}


def note(message: str) -> None:
    """A line on stderr that does not disturb machine-readable stdout (control characters escaped)."""
    from ._options import cli_spelling

    click.echo(f"rankmeter: note: {terminal_text(cli_spelling(message, OPTIONS))}", err=True)


def json_safe(value: Any) -> Any:
    """NaN and infinities as JSON null, recursively (JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


_UNDEFINED = {"json": "written as null", "csv": "written as an empty cell", "trec": "written as nan"}


def undefined_means(means: Mapping[str, float], unit: str = "query", fmt: str = "json") -> list[str]:
    """Notes for the metrics whose mean is undefined (no query qualifies), saying how ``fmt`` writes it."""
    bad = [m for m, v in means.items() if isinstance(v, float) and math.isnan(v)]
    units = "queries" if unit == "query" else unit + "s"
    how = _UNDEFINED.get(fmt, "shown as nan" if fmt == "table" else "shown as n/a")
    return [f"{m}: no {unit} has a value (0 {units} qualify), so its mean is undefined: {how}" for m in bad]


def write_json(payload: Mapping[str, Any]) -> None:
    from .._files import json_text

    sys.stdout.write(json_text(json_safe(payload)) + "\n")


def csv_text(value: Any) -> str:
    """A text cell by the one rule, safe for spreadsheets (:func:`rankmeter.report.escape.csv_cell`)."""
    from ..report.escape import csv_cell

    return csv_cell(value)


def csv_number(v: Any) -> str:
    """A number as we write it (never quoted as text): ``repr`` of the float (an int as an int), ``nan`` as empty."""
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    f = float(v)
    if math.isnan(f):
        return ""
    return repr(f)


def write_csv(index_names: Sequence[str], rows: Sequence[tuple[Sequence[str], Sequence[float]]],
              columns: Sequence[str]) -> None:
    """Rows of (text keys, numbers): keys and headers made spreadsheet-safe, numbers as numbers."""
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow([csv_text(c) for c in [*index_names, *columns]])
    for keys, values in rows:
        w.writerow([*[csv_text(k) for k in keys], *[csv_number(v) for v in values]])


def is_count(metric_name: str) -> bool:
    """Whether the metric is a per-query count (integer output, summed on trec_eval's ``all`` line).

    Read from the registry (``MetricSpec.count``); kept here for the commands that import it.
    """
    from ..metrics.registry import is_count as registry_is_count

    return registry_is_count(metric_name)


def line_safe(text: Any) -> str:
    r"""An id for a whitespace-separated line (``--format trec``) by the one rule, with blanks escaped too
    (``\x20``): an id can never start a line of its own or add a field (:func:`rankmeter.report.escape.line_text`).

    >>> print(line_safe("q 1"), line_safe("a\tb"), line_safe(r"a\tb"))
    q\x201 a\tb a\\tb
    """
    from ..report.escape import line_text

    return line_text(text)


def trec_line(metric: str, query: str, value: float, count: bool) -> str:
    if value != value:
        shown = "nan"
    else:
        shown = f"{int(round(value))}" if count else f"{value:.4f}"
    return f"{line_safe(metric):<22}\t{line_safe(query)}\t{shown}"


def write_table(title: str, index_names: Sequence[str], rows: Sequence[tuple[Sequence[str], Sequence[float]]],
                columns: Sequence[str], caption: str | None = None) -> None:
    """A terminal table (never cut, data-derived text escaped) of numbers keyed by text."""
    from rich.console import Console

    from ..report.terminal import Grid, print_grid

    grid = Grid([*index_names, *columns], [[*keys, *[fmt_number(v) for v in values]] for keys, values in rows],
                title=title or None, caption=caption, keep=len(index_names))
    print_grid(grid, Console())


def fmt_number(v: float) -> str:
    """A table cell: an int (a count, a count's sum) as an integer, any float with 4 decimals (a mean of 2 is
    ``2.0000`` beside ``1.5000``: one format per kind of number, never by the value).

    >>> fmt_number(3), fmt_number(2.0), fmt_number(0.5), fmt_number(float("nan"))
    ('3', '2.0000', '0.5000', 'nan')
    """
    if isinstance(v, int) and not isinstance(v, bool):  # a count, or a count's sum: an integer always
        return str(v)
    if v != v:
        return "nan"
    return f"{v:.4f}"
