"""Markdown report: means table (intervals, markers, best in bold), tests table, settings, notes."""

from __future__ import annotations

from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from ..compare import Comparison


def _cell(text: str, prose: bool = False) -> str:
    """Data (names, ids) by the one escaping rule, or ``prose``; Markdown's markup neutralised in both."""
    from .tables import markdown_cell

    return markdown_cell(text, prose=prose)


def to_markdown(cmp: "Comparison", digits: int = 4) -> str:
    pct = f"{cmp.settings.confidence * 100:g}%"
    lines = [f"## Comparison of {len(cmp.runs)} runs on {cmp.n_queries} {cmp.units}", ""]
    head = ["run"] + [f"{mean_label(cmp, m)} {'↑' if cmp.higher_is_better.get(m, True) else '↓'}"
                      for m in cmp.metrics]
    lines.append("| " + " | ".join(_cell(h) for h in head) + " |")
    lines.append("|" + "---|" + "---:|" * len(cmp.metrics))
    best = {m: set(cmp.best(m)) for m in cmp.metrics}
    for r in cmp.runs:
        row = [_cell(r) + (" (baseline)" if r == cmp.baseline else "")]
        for m in cmp.metrics:
            v, lo, hi = aggregate_cells(cmp, r, m, digits)  # a count: its sum
            v = f"**{v}**" if r in best[m] else v
            mk = marker(cmp, m, r)
            sym = f" {UP}" if mk == "up" else f" {DOWN}" if mk == "down" else ""
            row.append(f"{v} [{lo}, {hi}]{sym}")
        lines.append("| " + " | ".join(row) + " |")
    counts = counts_text(cmp)
    lines += ["", f"{_cell(legend(cmp), True)}. **Bold**: best mean. Brackets: {pct} bootstrap interval."
              + (f" {_cell(counts, True)}." if counts else ""), ""]

    corr = adjusted_name(cmp)
    lines += ["### Paired tests", ""]
    with_n = show_n(cmp)
    lines.append(f"| metric | b vs a | test | diff (b - a) | {pct} interval | d_z | statistic | p | p ({corr}) | "
                 + ("n | " if with_n else "") + "|")
    lines.append("|---|---|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if with_n else "") + "---|")
    for t in cmp.tests:
        sig = "*" if t.significant else ""
        lines.append(
            f"| {_cell(diff_metric_label(cmp, t.metric))} | {_cell(t.b)} vs {_cell(t.a)} | {t.test} | "
            f"{fmt_signed(t.diff, digits)} | "
            f"[{fmt(t.diff_interval[0], digits)}, {fmt(t.diff_interval[1], digits)}] | {fmt(t.effect_size, 2)} | "
            f"{fmt(t.statistic, 3)} | {fmt_p(t.p_value)} | {fmt_p(t.p_adjusted)} | "
            + (f"{t.n} | " if with_n else "") + f"{sig} |")
    lines += ["", f"\\* adjusted p < {cmp.settings.alpha:g}.", "", "### Settings", "", _cell(describe(cmp), True)]
    for extra in (missing_text(cmp), no_value_text(cmp)):
        if extra:
            lines += ["", _cell(extra, True)]
    if cmp.notes:
        lines += ["", "### Notes", ""] + [f"- {_cell(n, True)}" for n in cmp.notes]
    record = getattr(cmp, "provenance", None)
    if record is not None:  # what produced it (rankmeter.provenance): version, date, inputs with SHA-256
        d = record.to_dict()
        lines += ["", "### Provenance", "", _cell(f"rankmeter {d['implementation']['version']}, {d['date']}", True)]
        lines += [f"- {_cell(i['role'])}: {_cell(i.get('path', i.get('kind', '')))}"
                  + (f" ({i['size']} bytes, SHA-256 {i['sha256']})" if "sha256" in i else "")
                  + (" (changed since it was read)" if i.get("changed") else "") for i in d["data"]["inputs"]]
    return "\n".join(lines) + "\n"
