"""Plain tables of numbers for papers: Markdown, LaTeX (booktabs) and a self-contained HTML page.

What ``rankmeter evaluate --format markdown|latex|html`` prints: the means of one
or more runs (one row per run) with the number of queries, and optionally the
per-query values. Every name is written by the one escaping rule (:mod:`rankmeter.report.escape`),
then escaped for its format (Markdown: its markup, links and math included, and HTML-special
characters; LaTeX: its special characters; HTML: entities).

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
    if isinstance(v, int) and not isinstance(v, bool):  # a count or a count's sum
        return str(v)
    f = float(v)
    if math.isnan(f):
        return "n/a"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return f"{f:.{digits}f}"


_TAG = re.compile(r"<(?=[A-Za-z/!?])")
_ENTITY = re.compile(r"&(?=#?\w+;)")
# what a Markdown renderer would read as markup: backslash escapes, code, emphasis, links and images ([..](..)),
# math ($..$), strikethrough, table cells; an underscore only where it can open or close emphasis (not in "P_10")
_MARKUP = re.compile(r"[\\`*\[\]$|~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def markdown_cell(text: object, prose: bool = False) -> str:
    r"""Text for Markdown (a table cell, a caption): the one escaping rule (:func:`rankmeter.report.escape.escape`;
    ``prose``: control characters only, for sentences), then everything a renderer would read as markup
    backslash-escaped (``|``, ``[x](javascript:...)``, ``$...$``, ``*``, `` ` ``, the rule's own backslashes, so
    the rendered page shows the rule's text), and an HTML tag or entity (``<script>``, ``&amp;``) escaped; prose
    such as ``p < 0.05`` stays as written.

    >>> print(markdown_cell("<script>|x"), markdown_cell("p < 0.05"), markdown_cell("[x](javascript:alert(1))"))
    &lt;script>\|x p < 0.05 \[x\](javascript:alert(1))
    >>> print(markdown_cell("$x$"), markdown_cell("a" + chr(9) + "b"), markdown_cell("a" + chr(92) + "tb"))
    \$x\$ a\\tb a\\\\tb
    """
    from .escape import escape
    from .terminal import terminal_text

    s = _ENTITY.sub("&amp;", terminal_text(text) if prose else escape(text))
    return _MARKUP.sub(lambda m: "\\" + m.group(0), _TAG.sub("&lt;", s))


def _numeric_key(text: str) -> bool:
    return text.isdigit()


def to_markdown(table: Table, digits: int = 4) -> str:
    lines = [f"**{markdown_cell(table.title, prose=True)}**", ""] if table.title else []
    head = [*table.keys, *table.columns]
    lines.append("| " + " | ".join(markdown_cell(h) for h in head) + " |")
    align = ["---:" if all(_numeric_key(str(k[i])) for k, _ in table.rows) and table.rows else "---"
             for i in range(len(table.keys))]
    lines.append("|" + "|".join(align + ["---:"] * len(table.columns)) + "|")
    for keys, values in table.rows:
        lines.append("| " + " | ".join([*(markdown_cell(k) for k in keys), *(_num(v, digits) for v in values)])
                     + " |")
    if table.caption:
        lines += ["", markdown_cell(table.caption, prose=True)]
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
    from .escape import escape
    from .terminal import terminal_text

    def e(x: object) -> str:  # data: the one escaping rule, then HTML's
        return html.escape(escape(x))

    def prose(x: object) -> str:
        return html.escape(terminal_text(x))

    head = "".join(f'<th class="l">{e(k)}</th>' for k in table.keys) + \
        "".join(f"<th>{e(c)}</th>" for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f'<td class="l">{e(k)}</td>' for k in keys)
        + "".join(f"<td>{_num(v, digits)}</td>" for v in values) + "</tr>"
        for keys, values in table.rows)
    out = f"<h2>{prose(table.title)}</h2>" if table.title else ""
    out += f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if table.caption:
        out += f'<p class="caption">{prose(table.caption)}</p>'
    return out


def to_html(tables: Sequence[Table], title: str, digits: int = 4) -> str:
    """One self-contained page (inline CSS, no script, nothing loaded from the network)."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{_prose(title)}</title><style>{_CSS}</style></head><body>",
             f"<h1>{_prose(title)}</h1>", *(_html_table(t, digits) for t in tables), "</body></html>"]
    return "\n".join(parts) + "\n"


def _prose(text: str) -> str:
    from .terminal import terminal_text

    return html.escape(terminal_text(text))
