"""Output helpers shared by the commands: tables, JSON, CSV, trec_eval lines, notes on stderr."""

from __future__ import annotations

import csv
import json
import sys
from typing import Any, Mapping, Sequence

import click


def note(message: str) -> None:
    """A line on stderr that does not disturb machine-readable stdout."""
    click.echo(f"rankmeter: note: {message}", err=True)


def write_json(payload: Mapping[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, allow_nan=True) + "\n")


def write_csv(index_name: str, rows: Sequence[tuple[str, Sequence[float]]], columns: Sequence[str]) -> None:
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow([index_name, *columns])
    for key, values in rows:
        w.writerow([key, *[repr(float(v)) for v in values]])


def is_count(metric_name: str) -> bool:
    """Whether the metric is a per-query count (integer output, summed on trec_eval's ``all`` line).

    Read from the registry (``MetricSpec.count``); kept here for the commands that import it.
    """
    from ..metrics.registry import is_count as registry_is_count

    return registry_is_count(metric_name)


def trec_line(metric: str, query: str, value: float, count: bool) -> str:
    shown = f"{int(round(value))}" if count else f"{value:.4f}"
    return f"{metric:<22}\t{query}\t{shown}"


def write_table(title: str, index_name: str, rows: Sequence[tuple[str, Sequence[float]]], columns: Sequence[str],
                caption: str | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title or None, caption=caption, show_lines=False)
    table.add_column(index_name, style="bold")
    for c in columns:
        table.add_column(c, justify="right")
    for key, values in rows:
        table.add_row(str(key), *[_fmt(v) for v in values])
    Console(soft_wrap=False).print(table)


def _fmt(v: float) -> str:
    if v != v:
        return "nan"
    if float(v).is_integer() and abs(v) > 1:
        return f"{int(v)}"
    return f"{v:.4f}"
