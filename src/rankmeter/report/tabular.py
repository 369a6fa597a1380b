"""CSV export: long format, one row per mean and one per test."""

from __future__ import annotations

import csv
import io
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..compare import Comparison

COLUMNS = ["kind", "metric", "run", "against", "test", "value", "low", "high", "statistic", "p_value",
           "p_adjusted", "correction", "significant", "effect_size", "n"]


def _v(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return "inf" if x > 0 else "-inf" if x < 0 else ""
    return repr(x) if isinstance(x, float) else x


def _t(x: Any) -> str:
    """A text cell safe for spreadsheets (see :func:`safe_text`)."""
    return safe_text(x)


def safe_text(value: Any) -> str:
    """Text for a CSV cell by the one escaping rule: control characters escaped, a literal backslash doubled,
    and a cell starting with ``= + - @`` prefixed with ``'`` so no spreadsheet reads it as a formula (numbers we
    write are not touched); see :func:`rankmeter.report.escape.csv_cell`.

    >>> safe_text("=HYPERLINK(1)"), safe_text("bm25")
    ("'=HYPERLINK(1)", 'bm25')
    """
    from .escape import csv_cell

    return csv_cell(value)


def to_csv(cmp: "Comparison") -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for m in cmp.metrics:
        for r in cmp.runs:
            lo, hi = cmp.intervals[r][m]
            w.writerow(["mean", _t(m), _t(r), "", "", _v(cmp.means[r][m]), _v(lo), _v(hi), "", "", "", "", "", "",
                        cmp.n_queries])
            if m in getattr(cmp, "counts", ()):  # a count: also its sum over the queries, as the tables show it
                slo, shi = cmp.sum_interval(r, m)
                w.writerow(["sum", _t(m), _t(r), "", "", cmp.sums[r][m], _v(slo), _v(shi), "", "", "", "", "", "",
                            cmp.n_queries])
    for t in cmp.tests:
        w.writerow(["diff", _t(t.metric), _t(t.b), _t(t.a), t.test, _v(t.diff), _v(t.diff_interval[0]),
                    _v(t.diff_interval[1]),
                    _v(t.statistic), _v(t.p_value), _v(t.p_adjusted), t.correction, str(t.significant).lower(),
                    _v(t.effect_size), t.n])
    return buf.getvalue()
