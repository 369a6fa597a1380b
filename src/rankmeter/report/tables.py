"""Plain tables of numbers for papers: Markdown, LaTeX (booktabs) and a self-contained HTML page.

What ``rankmeter evaluate --format markdown|latex|html`` prints: the means of one
or more runs (one row per run) with the number of queries, and optionally the
per-query values. Every name is escaped for its format (Markdown: ``|`` and
HTML-special characters; LaTeX: its special characters; HTML: entities).

>>> t = Table("Means", ["run", "queries"], [(["bm25", "50"], [0.31, 0.2])], ["ndcg@10", "map"])
>>> print(to_markdown(t))
**Means**
<BLANKLINE>
| run | queries | ndcg@10 | map |
|---|---:|---:|---:|
| bm25 | 50 | 0.3100 | 0.2000 |
<BLANKLINE>
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from typing import Sequence

from .latex import escape as latex_escape

__all__ = ["Table", "to_markdown", "to_latex", "to_html", "markdown_cell"]


@dataclass
class Table:
    """A title, the key columns (text), rows of (keys, numbers), the number columns, a caption."""

    title: str
    keys: Sequence[str]
    rows: Sequence[tuple[Sequence[str], Sequence[float]]]
    columns: Sequence[str]
    caption: str = ""


def _num(v: float, digits: int) -> str:
    f = float(v)
    if math.isnan(f):
        return "n/a"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return f"{f:.{digits}f}"


_TAG = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY = re.compile(r"&(?=#?\w+;)")


def markdown_cell(text: object) -> str:
    """Text for a Markdown table cell: ``|`` escaped, anything a renderer would read as an HTML tag or
    entity (``<script>``, ``&amp;``) escaped, one line; prose such as ``p < 0.05`` stays as written.

    >>> markdown_cell("<script>|x"), markdown_cell("p < 0.05")
    ('&lt;script>\\\\|x', 'p < 0.05')
    """
    from .terminal import terminal_text

    s = _ENTITY.sub("&amp;", terminal_text(text))
    s = _TAG.sub("&lt;", s).replace("|", "\\|")
    return " ".join(s.splitlines()) if "\n" in s or "\r" in s else s


def _numeric_key(text: str) -> bool:
    return text.isdigit()


def to_markdown(table: Table, digits: int = 4) -> str:
    lines = [f"**{markdown_cell(table.title)}**", ""] if table.title else []
    head = [*table.keys, *table.columns]
    lines.append("| " + " | ".join(markdown_cell(h) for h in head) + " |")
    align = ["---:" if all(_numeric_key(str(k[i])) for k, _ in table.rows) and table.rows else "---"
             for i in range(len(table.keys))]
    lines.append("|" + "|".join(align + ["---:"] * len(table.columns)) + "|")
    for keys, values in table.rows:
        lines.append("| " + " | ".join([*(markdown_cell(k) for k in keys), *(_num(v, digits) for v in values)])
                     + " |")
    if table.caption:
        lines += ["", markdown_cell(table.caption)]
    return "\n".join(lines) + "\n"


def to_latex(table: Table, digits: int = 4, label: str = "tab:results") -> str:
    cols = "l" * len(table.keys) + "r" * len(table.columns)
    lines = [r"\begin{table}[t]", r"\centering"]
    caption = " ".join(x for x in (table.title + "." if table.title else "", table.caption) if x)
    if caption:
        lines.append(rf"\caption{{{latex_escape(caption)}}}")
    lines += [rf"\label{{{label}}}", rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
              " & ".join(latex_escape(h) for h in [*table.keys, *table.columns]) + r" \\", r"\midrule"]
    for keys, values in table.rows:
        lines.append(" & ".join([*(latex_escape(k) for k in keys), *(_num(v, digits) for v in values)]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; margin: 24px; color: #1d2330; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.9rem; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e3e6ec; text-align: right; }
th { background: #f0f2f6; border-bottom: 2px solid #c9ced8; }
td.l, th.l { text-align: left; overflow-wrap: anywhere; }
p.caption { color: #4a5263; font-size: 0.85rem; }
"""


def _html_table(table: Table, digits: int) -> str:
    e = html.escape
    head = "".join(f'<th class="l">{e(str(k))}</th>' for k in table.keys) + \
        "".join(f"<th>{e(str(c))}</th>" for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f'<td class="l">{e(str(k))}</td>' for k in keys)
        + "".join(f"<td>{_num(v, digits)}</td>" for v in values) + "</tr>"
        for keys, values in table.rows)
    out = f"<h2>{e(table.title)}</h2>" if table.title else ""
    out += f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if table.caption:
        out += f'<p class="caption">{e(table.caption)}</p>'
    return out


def to_html(tables: Sequence[Table], title: str, digits: int = 4) -> str:
    """One self-contained page (inline CSS, no script, nothing loaded from the network)."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>", *(_html_table(t, digits) for t in tables), "</body></html>"]
    return "\n".join(parts) + "\n"
