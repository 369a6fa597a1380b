"""LaTeX report: a booktabs table, best value per metric in bold, markers explained in the caption.

Needs ``\\usepackage{booktabs}`` in the document; nothing else.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ._common import aggregate_cells, counts_text, family_text, marker, mean_label, no_value_text, test_label

if TYPE_CHECKING:
    from ..compare import Comparison

_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}

UP_TEX, DOWN_TEX = r"$^{\uparrow}$", r"$^{\downarrow}$"


def escape(text: str) -> str:
    """Escape LaTeX's special characters in a run or metric name, after the one escaping rule
    (:func:`rankmeter.report.escape.escape`: control characters shown escaped, a backslash doubled).

    >>> escape("bm25_rm3 & 50%")
    'bm25\\\\_rm3 \\\\& 50\\\\%'
    """
    from .escape import escape as one_rule

    return "".join(_SPECIAL.get(ch, ch) for ch in one_rule(text))


def to_latex(cmp: "Comparison", digits: int = 3, intervals: bool = False, label: str = "tab:comparison") -> str:
    s = cmp.settings
    pct = f"{s.confidence * 100:g}\\%"
    cols = "l" + "r" * len(cmp.metrics)
    best = {m: set(cmp.best(m)) for m in cmp.metrics}
    head = " & ".join(["Run"] + [escape(mean_label(cmp, m)) for m in cmp.metrics]) + r" \\"
    rows = []
    for r in cmp.runs:
        cells = [escape(r)]
        for m in cmp.metrics:
            v, lo, hi = aggregate_cells(cmp, r, m, digits)  # a count: its sum
            v = rf"\textbf{{{v}}}" if r in best[m] else v
            mk = marker(cmp, m, r)
            v += UP_TEX if mk == "up" else DOWN_TEX if mk == "down" else r"\phantom{$^{\uparrow}$}"
            if intervals:
                v += rf" {{\scriptsize [{lo}, {hi}]}}"
            cells.append(v)
        rows.append(" & ".join(cells) + r" \\")
    test = test_label(s.tests[0])
    adj = "$p$" if s.correction == "none" else "adjusted $p$"
    caption = (
        f"Mean of each metric over {cmp.n_queries} {cmp.units}. "
        f"{UP_TEX}/{DOWN_TEX}: significantly better/worse than {escape(cmp.baseline)} "
        f"(two-sided {escape(test)}, {escape(family_text(cmp))}, {adj} $< {s.alpha:g}$). "
        "Best value per metric in bold."
        + (f" Brackets: {pct} {'BCa' if s.interval == 'bca' else 'percentile'} bootstrap interval "
           f"({s.n_resamples:,} resamples)." if intervals else "")
        + (f" {escape(note)}" if (note := no_value_text(cmp)) else "")
        + (f" {escape(counts)}." if (counts := counts_text(cmp)) else "")
    )
    record = getattr(cmp, "provenance", None)
    # what produced it (rankmeter.provenance), as a comment line: the JSON record, every character ASCII
    lines = ([f"% rankmeter provenance: {json.dumps(record.to_dict(), ensure_ascii=True)}"]
             if record is not None else [])
    lines += [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{caption}}}",
        rf"\label{{{label}}}",
        rf"\begin{{tabular}}{{{cols}}}",
        r"\toprule",
        head,
        r"\midrule",
        *rows,
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"
