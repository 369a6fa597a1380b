"""The report figures' layout (report._layout) and their reuse from metric to metric.

The reports lay their figures out from the text they carry (no constrained layout) and redraw
one figure per kind for every metric. Checked here: after ``fit`` no text leaves the figure or
overlaps its neighbour, however long the names; a figure redrawn for a second metric is the
same picture, byte for byte, as a fresh figure of that metric (nothing of the first metric left:
limits, ticks, titles).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from rankmeter.report import experiment as E
from rankmeter.report._layout import clear, few_ticks, fit, new_figure

LONG = "a rather long recommender name that goes on and on " * 2


def _texts(fig: Any) -> list[tuple[str, Any]]:
    """Every text drawn in ``fig`` (after a draw), with its extent: tick labels in view, axis labels, titles,
    legends, the figure's title."""
    r = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for t in axis.get_major_ticks():
                if t.label1.get_visible() and t.label1.get_text() and lo - 1e-9 <= t.get_loc() <= hi + 1e-9:
                    out.append((f"tick {t.label1.get_text()}", t.label1.get_window_extent(r)))
        for name, text in (("xlabel", ax.xaxis.label), ("ylabel", ax.yaxis.label), ("title", ax.title)):
            if text.get_text():
                out.append((name, text.get_window_extent(r)))
        if ax.get_legend() is not None:
            out.append(("legend", ax.get_legend().get_window_extent(r)))
    for text in fig.texts:
        out.append(("text", text.get_window_extent(r)))
    return out


def _inside(fig: Any) -> None:
    box = fig.bbox
    for name, bb in _texts(fig):
        assert bb.x0 >= box.x0 - 1 and bb.x1 <= box.x1 + 1 and bb.y0 >= box.y0 - 1 and bb.y1 <= box.y1 + 1, \
            (name, bb, box)


def test_fit_keeps_long_titles_labels_and_legends_inside_and_apart() -> None:
    fig = new_figure(Figure, FigureCanvasAgg, (7.0, 4.0))
    grid = fig.subplots(2, 3, squeeze=False, sharey=True)
    for i, ax in enumerate(grid.flat):
        ax.plot(np.arange(1000), np.linspace(-0.3, 1.2, 1000))
        ax.set_title(f"{LONG if i == 0 else 'r'}: better for 871, worse for 127,\ntied for 2 users", y=1.0)
        ax.set_xlabel("users, from most improved to most worsened", fontsize=8)
        few_ticks(ax.xaxis, integer=True)
        few_ticks(ax.yaxis)
    grid[0][0].set_ylabel("ild(distance=jaccard)@10 - itemknn\n(lower is better)")
    fit(fig, fig.suptitle("Per-query differences on a metric with a long name against a baseline"))
    fig.canvas.draw()
    _inside(fig)
    titles = [ax.title.get_window_extent(fig.canvas.get_renderer()) for ax in grid[0]]
    for a, b in zip(titles, titles[1:], strict=False):
        assert a.x1 < b.x0, (a, b)  # neighbouring titles apart
    assert fig.get_size_inches()[0] > 7.0  # the figure grew rather than overlap


def test_fit_keeps_category_labels_apart_and_a_legend_beside() -> None:
    fig = new_figure(Figure, FigureCanvasAgg, (5.6, 3.2))
    ax = fig.add_subplot()
    names = ["low\n(334 users)", "mid\n(333 users)", "high\n(333 users)"]
    for i in range(4):
        ax.bar(np.arange(3) + i * 0.2, [1, 2, 3], 0.2, label=LONG if i == 0 else f"r{i}")
    ax.set_xticks(range(3), names, fontsize=8)
    ax.set_title("ndcg@10: mean per user group", y=1.0)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fit(fig)
    fig.canvas.draw()
    _inside(fig)
    ticks = sorted((bb for name, bb in _texts(fig) if name.startswith("tick") and bb.y1 < ax.bbox.y0),
                   key=lambda bb: bb.x0)
    assert len(ticks) == 3 and all(a.x1 < b.x0 for a, b in zip(ticks, ticks[1:], strict=False))
    legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    assert legend.x0 >= ax.bbox.x1  # beside the bars, never over them


def test_a_cleared_axes_keeps_zero_in_view_when_every_value_ties() -> None:
    """A kept zero line no longer counts in the data limits (through the moved axes' transforms it would be
    1e-17 off zero, and autoscaling would zoom onto that); the caller puts 0 in the limits."""
    fig = new_figure(Figure, FigureCanvasAgg, (4.0, 3.0))
    ax = fig.add_subplot()
    zero = ax.axhline(0, lw=0.6)
    ax.fill_between(np.arange(9.0), np.linspace(1, -1, 9), 0, step="post")
    ax.set_title("first", y=1.0)
    fit(fig)
    fig.canvas.draw()
    clear(ax, keep=[zero])
    assert list(ax.lines) == [zero] and not ax.collections
    ax.fill_between(np.arange(9.0), np.zeros(9), 0, where=np.zeros(9, dtype=bool), step="post")
    ax.update_datalim([(0.0, 0.0)], updatex=False)
    fit(fig)
    lo, hi = ax.get_ylim()
    assert lo < 0 < hi and hi - lo > 0.01, (lo, hi)


def _res(scores: dict[str, dict[str, np.ndarray]]) -> Any:
    runs = list(scores)
    cmp = SimpleNamespace(runs=runs, baseline=runs[0], scores=scores, n_queries=len(scores[runs[0]]["a"]),
                          higher_is_better={"a": True, "b": False, "c": True})
    return SimpleNamespace(comparison=cmp)


@pytest.mark.parametrize("kind", ["differences", "distribution"])
def test_a_figure_redrawn_for_another_metric_equals_a_fresh_one(kind: str) -> None:
    rng = np.random.default_rng(0)
    n = 30
    scores = {name: {"a": rng.random(n) * 3, "b": np.full(n, 0.305), "c": rng.random(n) * 1e-3}
              for name in ("base", LONG, "r3")}
    scores["base"]["b"] = np.full(n, 0.305)
    res = _res(scores)
    draw = E._differences if kind == "differences" else E._distribution
    for metric in ("b", "c"):
        pool: dict[str, Any] = {}
        draw(res, "a", Figure, FigureCanvasAgg, pool)  # another metric first, on the same figure
        again = draw(res, metric, Figure, FigureCanvasAgg, pool)
        fresh = draw(res, metric, Figure, FigureCanvasAgg, {})
        assert again == fresh, metric
