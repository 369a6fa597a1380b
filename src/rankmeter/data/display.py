"""HTML for the data layer's own notebook display (:meth:`Run._repr_html_`), and the text rule it uses.

The reports' renderers live in :mod:`rankmeter.report` (``report.notebook`` for the results), which
the data layer may not import. An id is data: :func:`html_text` shows it as Python writes it in a
string literal when it has a backslash or a character that is not printable (``a<TAB>b`` as
``a\\tb``, the four characters ``a\\tb`` as ``a\\\\tb``, so two ids never look the same), then
applies HTML's escapes, so an id such as ``<script>`` is shown and never run.

>>> html_text("<b>"), html_text("a\\tb"), html_text("a\\\\tb")
('&lt;b&gt;', 'a\\\\tb', 'a\\\\\\\\tb')
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np

__all__ = ["html_text", "html_number", "run_html", "SHOWN"]

SHOWN = 10  # queries of a run shown


def html_text(value: Any) -> str:
    """``value`` as text for HTML: escaped as a Python string literal where it could be misread, then HTML-escaped."""
    text = str(value)
    if "\\" in text or not text.isprintable():
        text = repr(text)[1:-1] if "'" not in text else repr(text)[1:-1].replace("\\'", "'")
    return html.escape(text)


def html_number(v: Any, digits: int = 4) -> str:
    """A number as the notebook tables show it: integers as integers, nan as nan, else ``digits`` decimals."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return html_text(v)
    if math.isnan(f):
        return "nan"
    return str(int(f)) if f.is_integer() and abs(f) >= 1 else f"{f:.{digits}f}"


def run_html(run: Any, per_query: int = 5) -> str:
    """A run (a fused run too): its counts and label, the first items of the first queries in rank order with
    their scores, and the reader's notes."""
    offsets = np.asarray(run.offsets)
    n_queries = len(offsets) - 1
    queries = run.query_ids.to_pylist()
    shown = []
    for qi in range(min(n_queries, SHOWN)):
        start, stop = int(offsets[qi]), int(offsets[qi + 1])
        rows = np.arange(start, min(stop, start + per_query))
        items = run.items_at(rows).to_pylist() if len(rows) else []
        scores = np.asarray(run.scores)[rows].tolist() if len(rows) else []
        shown.append(f'<tr><td style="text-align:left">{html_text(queries[qi])}</td><td>{stop - start}</td>'
                     '<td style="text-align:left">'
                     + ", ".join(f"{html_text(i)} ({html_number(s)})" for i, s in zip(items, scores, strict=True))
                     + (", ..." if stop - start > per_query else "") + "</td></tr>")
    label = getattr(run, "label", None)
    title = f"Run: {n_queries} queries, {len(run)} rows" + (f" ({html_text(label)})" if label else "")
    more = f"<p><small>first {len(shown)} of {n_queries} queries</small></p>" if n_queries > len(shown) else ""
    notes = list(getattr(run, "notes", ()))
    body = ('<table><thead><tr><th style="text-align:left">query</th><th>items</th>'
            '<th style="text-align:left">first items (score)</th></tr></thead>'
            f"<tbody>{''.join(shown)}</tbody></table>{more}")
    if notes:
        body += (f"<details><summary>notes ({len(notes)})</summary><ul>"
                 + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul></details>")
    return f'<div class="rankmeter"><p><strong>{title}</strong></p>{body}</div>'
