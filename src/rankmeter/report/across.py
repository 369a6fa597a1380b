"""The report of models compared across data sets (:func:`rankmeter.compare_across`): the means per
data set, Friedman's test with its post-hoc, Demšar's critical-difference diagram, and the
meta-analysis of each model's difference from the baseline.

The critical-difference diagram (Demšar 2006, JMLR 7:1-30, Fig. 1): the models on an axis of mean
ranks (1 = best, on the left), with a bar of length CD; models whose mean ranks differ by less than
CD (Nemenyi) are joined by a thick line: the test cannot tell them apart.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..compare.across import AcrossResult

__all__ = ["cd_diagram", "to_html", "to_markdown"]


def _cliques(ranks: list[tuple[str, float]], cd: float) -> list[tuple[int, int]]:
    """Maximal runs of models (in rank order) whose first and last differ by less than ``cd``."""
    out: list[tuple[int, int]] = []
    for i in range(len(ranks)):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1][1] - ranks[i][1] < cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in out):
            out.append((i, j))
    return out


def cd_diagram(res: "AcrossResult", Figure: Any = None) -> Any:
    """Demšar's critical-difference diagram of ``res.friedman`` as a matplotlib Figure (None without the test).

    >>> import numpy as np
    >>> from rankmeter.stats.across import friedman
    >>> from rankmeter.compare.across import AcrossResult
    >>> fr = friedman(np.array([[0.9, 0.5, 0.4], [0.8, 0.6, 0.3]]), ["a", "b", "c"])
    >>> fig = cd_diagram(AcrossResult("ndcg@10", None, None, {}, fr, {}, {}))
    >>> len(fig.axes)
    1
    """
    fr = res.friedman
    if fr is None:
        return None
    if Figure is None:
        from .html import _mpl

        Figure, _ = _mpl()
    ranks = sorted(fr.mean_ranks.items(), key=lambda kv: (kv[1], kv[0]))
    k = len(ranks)
    fig = Figure(figsize=(7, 1.2 + 0.3 * k))
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xlim(1 - 0.02 * k, k + 0.02 * k)
    ax.set_ylim(0, k + 2)
    ax.set_yticks([])
    for side in ("left", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.xaxis.set_ticks_position("top")
    ax.set_xlabel(f"mean rank over {fr.datasets} data sets (1 = best); CD = {fr.critical_difference:.3f} "
                  f"(Nemenyi, alpha = {fr.alpha:g})")
    ax.xaxis.set_label_position("top")
    half = (k + 1) // 2
    for i, (name, r) in enumerate(ranks):
        left = i < half
        y = k + 1 - (i if left else k - 1 - i) - 1
        x_text = 1 if left else k
        ax.plot([r, r], [k + 1.5, y], color="black", linewidth=0.8)
        ax.plot([r, x_text], [y, y], color="black", linewidth=0.8)
        ax.text(x_text, y, f" {name} ({r:.2f}) " if left else f" ({r:.2f}) {name} ",
                ha="right" if left else "left", va="center", fontsize=9)
    for n, (a, b) in enumerate(_cliques(ranks, fr.critical_difference)):
        yc = k + 1.2 - 0.25 * n
        ax.plot([ranks[a][1] - 0.03, ranks[b][1] + 0.03], [yc, yc], color="black", linewidth=3)
    ax.plot([1, 1 + fr.critical_difference], [k + 1.9, k + 1.9], color="tab:red", linewidth=2)
    ax.text(1 + fr.critical_difference / 2, k + 1.95, "CD", ha="center", va="bottom", fontsize=8, color="tab:red")
    fig.tight_layout()
    return fig


def _rows(res: "AcrossResult", digits: int) -> tuple[list[str], list[list[str]]]:
    models = list(res.means.columns)
    head = ["data set", *models]
    rows = [[str(d), *[f"{res.means.loc[d, m]:.{digits}f}" for m in models]] for d in res.means.index]
    rows.append(["mean", *[f"{res.overall[m]:.{digits}f}" for m in models]])
    if res.friedman is not None:
        rows.append(["mean rank", *[f"{res.friedman.mean_ranks[m]:.2f}" for m in models]])
    return head, rows


def _tests_text(res: "AcrossResult") -> list[str]:
    out = []
    fr = res.friedman
    if fr is not None:
        out.append(f"Friedman chi2 = {fr.statistic:.4g}, p = {fr.p_value:.4g} over {fr.datasets} data sets; "
                   f"post-hoc {fr.posthoc}, critical difference {fr.critical_difference:.3f}")
        for a, b, _p, adj in fr.pairs:
            if adj < fr.alpha:
                out.append(f"{a} and {b} differ (adjusted p = {adj:.4g})")
    for m, meta in res.meta.items():
        out.append(f"{m} - {res.baseline}: {meta.mu:+.4g} [{meta.ci_low:+.4g}, {meta.ci_high:+.4g}] "
                   f"(random effects, tau^2 = {meta.tau2:.3g}, I^2 = {meta.i2:.0%}, {meta.k} data sets)")
    return out + list(res.notes)


def to_markdown(res: "AcrossResult", digits: int = 4) -> str:
    """The means per data set, the mean, the mean ranks and the tests as Markdown."""
    from .tables import markdown_cell

    head, rows = _rows(res, digits)
    lines = [f"## {markdown_cell(res.metric)} across {len(res.means.index)} data sets", "",
             "| " + " | ".join(markdown_cell(h) for h in head) + " |",
             "|---|" + "---:|" * (len(head) - 1)]
    lines += ["| " + " | ".join(markdown_cell(c) for c in r) + " |" for r in rows]
    lines += [""] + [f"- {markdown_cell(t)}" for t in _tests_text(res)]
    return "\n".join(lines) + "\n"


def to_html(res: "AcrossResult", digits: int = 4) -> str:
    """A self-contained HTML section: the table, the tests, and the critical-difference diagram."""
    from .html import _img, _mpl

    head, rows = _rows(res, digits)
    table = ("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
             + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
             + "</table>")
    items = "".join(f"<li>{html.escape(t)}</li>" for t in _tests_text(res))
    figure = ""
    if res.friedman is not None:
        Figure, Canvas = _mpl()
        figure = _img(cd_diagram(res, Figure), "critical-difference diagram", Canvas)
    return (f"<section><h2>{html.escape(res.metric)} across {len(res.means.index)} data sets</h2>{table}"
            f"<ul>{items}</ul>{figure}</section>")
