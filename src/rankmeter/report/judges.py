"""The judges' tables: agreement statistics, the confusion matrix, binary agreement, the queries that
disagree most, and (given runs) each run under both judges, the ranking correlation and the flips.

One list of :class:`~rankmeter.report.tables.Table` feeds every format: the terminal, Markdown,
LaTeX, HTML, and a long CSV (``section, key, column, value``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ._common import diff_metric_label
from .tables import Table

if TYPE_CHECKING:
    from ..judges import Agreement, JudgeComparison

__all__ = ["judge_tables", "long_rows"]


def _frame_rows(frame: Any) -> list[tuple[list[str], list[float]]]:
    """A DataFrame's rows keyed by its index, an integer column's cells as ints (a count prints as ``3``, never
    ``3.0000``), every other cell as a float."""
    import numpy as np

    whole = [np.issubdtype(t, np.integer) for t in frame.dtypes]
    return [([str(k)], [int(v) if w else float(v) for v, w in zip(row, whole, strict=True)])
            for k, row in zip(frame.index, frame.itertuples(index=False, name=None), strict=True)]


def judge_tables(ag: "Agreement", jc: "JudgeComparison | None" = None, *, top: int = 10) -> list[Table]:
    """The tables of a judge comparison (``top``: how many of the most disagreeing queries to list)."""
    names = ag.judges
    pairs = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in ag.pairs.items())
    out = [Table("Agreement", ["statistic"], [([k], [v]) for k, v in ag.summary_rows()], ["value"],
                 caption=f"(query, item) pairs: {pairs}")]
    if len(names) == 2 and ag.pairs.get("both", 0) > 0:
        conf = ag.confusion
        out.append(Table(f"Confusion ({names[0]} in rows, {names[1]} in columns)", [f"{names[0]} grade"],
                         _frame_rows(conf), [str(c) for c in conf.columns]))
        binary = ag.binary()
        out.append(Table("Binary relevance (relevant: grade >= threshold)", ["threshold"],
                         _frame_rows(binary),
                         list(binary.columns)))
        pq = ag.per_query().head(top)
        out.append(Table(f"Queries that disagree most (first {len(pq)})", ["query"],
                         _frame_rows(pq),
                         list(pq.columns)))
    if jc is not None:
        a, b = jc.judges
        # a count's change is a change of its mean over the queries (labelled so), as in compare's tests
        out.append(Table("Runs under both judges", ["metric", "run"],
                         [([diff_metric_label(jc.first, k[0]), *k[1:]], v) for k, v in jc.means_rows()],
                         [f"under {a}", f"under {b}", "change"]))
        out.append(Table("Ordering of the runs", ["metric"],
                         [([m], [jc.tau[m], jc.tau_ap[m], int(max(abs(i - j) for _, i, j in jc.swaps[m]))])
                          for m in jc.metrics], ["kendall tau", "tau_ap", "largest rank move"],
                         caption=f"tau_ap takes the order under {a} as the reference"))
        out.append(Table("Significance decisions that flip", ["metric", "a", "b", f"better under {a}",
                                                              f"better under {b}"],
                         [([f.metric, f.a, f.b, f.better_first or "-", f.better_second or "-"],
                           [f.p_first, f.p_second]) for f in jc.flips],
                         [f"p under {a}", f"p under {b}"],
                         caption=f"{len(jc.flips)} of {jc.decisions} pairwise decisions flip"))
    return out


def long_rows(tables: Sequence[Table]) -> list[tuple[list[str], list[float]]]:
    """Every cell of the tables as (section, key, column) -> value, for one long CSV."""
    rows: list[tuple[list[str], list[float]]] = []
    for t in tables:
        for keys, values in t.rows:
            for col, v in zip(t.columns, values, strict=True):
                rows.append(([t.title, " / ".join(keys), col], [float(v)]))
    return rows
