"""Figure layout for the reports: margins from the text the axes carry, without matplotlib's layout engines.

matplotlib's constrained layout measures every axes' tight bounding box twice per figure and
draws the figure once more before saving it; in the experiment report (35 figures) that was
most of the report's time. :func:`fit` measures the same text once (tick labels, axis labels,
titles, an axes' legend beside it, the y axis' offset text) with the renderer that then saves
the figure, so the text layouts it measures are reused when drawing, and sets the subplot
margins and gaps so that nothing is clipped. When the text leaves the axes too little room,
the figure grows instead (never clipped, never overlapping).

Figures of one kind (the same grid, the same names) are reused from metric to metric:
:func:`clear` removes the data artists and keeps the axes, their ticks and the text layouts.

Ticks come from locators with a fixed number of bins (:func:`few_ticks`), so the tick labels
do not depend on the axes' size and one measurement holds after the margins move.
"""

from __future__ import annotations

from typing import Any, Sequence

#: the resolution of every report figure (its text is measured at this resolution)
DPI = 110

#: the space around the text, in points
PAD = 4.0

#: the smallest width or height of an axes, in inches, before the figure grows
MIN_AXES = 1.2


def new_figure(Figure: Any, Canvas: Any, size: tuple[float, float]) -> Any:
    """A figure of ``size`` inches at :data:`DPI` with its Agg canvas attached (one renderer for all its uses)."""
    fig = Figure(figsize=size, dpi=DPI)
    Canvas(fig)
    fig.nominal_size = size  # what fit() returns to before fitting the next contents
    return fig


def few_ticks(axis: Any, bins: int = 6, *, integer: bool = False) -> None:
    """Give ``axis`` a locator of at most ``bins`` intervals (matplotlib's default steps), whatever its length."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(nbins=bins, steps=[1, 2, 2.5, 5, 10], integer=integer, min_n_ticks=2))


def clear(ax: Any, keep: Sequence[Any] = ()) -> None:
    """Remove the data artists of ``ax`` (lines, collections, patches, containers, texts, its legend) except
    ``keep``, and empty its data limits; the axes, its ticks and labels stay.

    The artists kept (a zero line...) are decoration: they no longer count in the data limits (an
    ``axhline``'s limits, recomputed through the moved axes' transforms, would be off zero by rounding,
    1e-17, and autoscaling would zoom onto that); a caller that wants 0 in view says so
    (``ax.update_datalim``)."""
    for container in list(ax.containers):
        container.remove()
    for artist in [*ax.lines, *ax.collections, *ax.patches, *ax.texts]:
        artist.remove()
    legend = ax.get_legend()
    if legend is not None:
        legend.remove()
    ax.relim()
    for artist in keep:
        ax.add_artist(artist)  # drawn as before, outside the data limits


def _in_view(axis: Any, loc: float) -> bool:
    lo, hi = sorted(axis.get_view_interval())
    tol = (hi - lo) * 1e-9
    return bool(lo - tol <= loc <= hi + tol)


def _overhang(ax: Any, renderer: Any) -> tuple[list[float], bool, float]:
    """How far the text of ``ax`` reaches beyond its box (left, right, bottom, top, in pixels), whether a
    centred text (title, x label) is wider than the box (its reach then depends on the box's width), and how
    far the title was lifted above the y axis' offset text (pixels)."""
    box = ax.bbox
    left = right = bottom = top = 0.0

    def reach(bb: Any) -> None:
        nonlocal left, right, bottom, top
        left, right = max(left, box.x0 - bb.x0), max(right, bb.x1 - box.x1)
        bottom, top = max(bottom, box.y0 - bb.y0), max(top, bb.y1 - box.y1)

    offsets = {}
    for axis in (ax.xaxis, ax.yaxis):
        axis.get_majorticklabels()  # places the ticks and sets their labels, as drawing will
        shown = False
        for tick in axis.get_major_ticks():
            if tick.label1.get_visible() and tick.label1.get_text() and _in_view(axis, tick.get_loc()):
                reach(tick.label1.get_window_extent(renderer))
                shown = True
        offsets[axis.axis_name] = axis.get_major_formatter().get_offset() if shown else ""
    points = ax.figure.dpi / 72.0
    ticks_bottom, ticks_left = bottom, left  # the axis labels go beyond the tick labels
    xlabel, ylabel = ax.xaxis.label, ax.yaxis.label
    spills = False
    if xlabel.get_visible() and xlabel.get_text():
        bb = xlabel.get_window_extent(renderer)
        bottom = max(bottom, ticks_bottom + ax.xaxis.labelpad * points + bb.height)
        spill = max(0.0, (bb.width - box.width) / 2)
        left, right, spills = max(left, spill), max(right, spill), spill > 0
    if offsets["x"]:  # below the x tick labels, at the right
        ax.xaxis.offsetText.set_text(offsets["x"])
        bottom += ax.xaxis.offsetText.get_window_extent(renderer).height + PAD * points
    if ylabel.get_visible() and ylabel.get_text():
        bb = ylabel.get_window_extent(renderer)
        left = max(left, ticks_left + ax.yaxis.labelpad * points + bb.width)
        spill = max(0.0, (bb.height - box.height) / 2)
        bottom, top = max(bottom, spill), max(top, spill)
    lift = 0.0
    if offsets["y"]:  # above the axes at the left: the title goes above it
        ax.yaxis.offsetText.set_text(offsets["y"])
        lift = ax.yaxis.offsetText.get_window_extent(renderer).height + PAD * points
        top = max(top, lift)
    if ax.title.get_text():
        ax.title.set_y(1.0 + lift / max(box.height, 1.0))
        bb = ax.title.get_window_extent(renderer)
        reach(bb)
        spills = spills or bb.width > box.width
    legend = ax.get_legend()
    if legend is not None and legend.get_visible():
        reach(legend.get_window_extent(renderer))
    return [left, right, bottom, top], spills, lift


def fit(fig: Any) -> None:
    """Set the subplot margins and gaps of ``fig`` so that the text of its visible axes (one grid, one axes per
    cell) fits, :data:`PAD` points apart; grow the figure where the axes would be smaller than
    :data:`MIN_AXES`. The titles must have been set with ``y=1.0`` (matplotlib then does not move them while
    drawing, which would measure every axis again)."""
    width, height = getattr(fig, "nominal_size", fig.get_size_inches())
    if tuple(fig.get_size_inches()) != (width, height):
        fig.set_size_inches(width, height)
    for _ in range(2):  # a second time only when a centred text wider than its axes moved with the axes' width
        if not _fit_once(fig, width, height):
            break


def _fit_once(fig: Any, width: float, height: float) -> bool:
    axes = [ax for ax in fig.axes if ax.get_visible()]
    if not axes:
        return False
    renderer = fig.canvas.get_renderer()
    nrows, ncols = axes[0].get_subplotspec().get_gridspec().get_geometry()
    cells: dict[tuple[int, int], list[float]] = {}
    lifts: dict[tuple[int, int], float] = {}
    spills = False
    for ax in axes:
        spec = ax.get_subplotspec()
        at = (spec.rowspan.start, spec.colspan.start)
        cells[at], spill, lifts[at] = _overhang(ax, renderer)
        spills = spills or spill
    lifted = []  # the titles of a row at one height: all lifted where one axes has an offset text
    for ax in axes:
        spec = ax.get_subplotspec()
        at = (spec.rowspan.start, spec.colspan.start)
        lift = max(v for k, v in lifts.items() if k[0] == at[0])
        lifted.append(lift)
        if ax.title.get_text() and lift > lifts[at]:
            cells[at][3] += lift - lifts[at]
    pad = PAD * fig.dpi / 72.0

    def most(index: int, row: int | None = None, col: int | None = None) -> float:
        return max((v[index] for (r, c), v in cells.items() if row in (None, r) and col in (None, c)), default=0.0)

    left, right = most(0, col=0) + pad, most(1, col=ncols - 1) + pad
    bottom, top = most(2, row=nrows - 1) + pad, most(3, row=0) + pad
    wgap = max((most(1, col=c) + most(0, col=c + 1) + pad for c in range(ncols - 1)), default=0.0)
    hgap = max((most(2, row=r) + most(3, row=r + 1) + pad for r in range(nrows - 1)), default=0.0)
    least = MIN_AXES * fig.dpi
    w_px = max(width * fig.dpi, left + right + (ncols - 1) * wgap + ncols * least)
    h_px = max(height * fig.dpi, bottom + top + (nrows - 1) * hgap + nrows * least)
    if (w_px, h_px) != (width * fig.dpi, height * fig.dpi):
        fig.set_size_inches(w_px / fig.dpi, h_px / fig.dpi)
    aw = (w_px - left - right - (ncols - 1) * wgap) / ncols
    ah = (h_px - bottom - top - (nrows - 1) * hgap) / nrows
    before = [ax.bbox.width for ax in axes]
    fig.subplots_adjust(left=left / w_px, right=1 - right / w_px, bottom=bottom / h_px, top=1 - top / h_px,
                        wspace=wgap / aw, hspace=hgap / ah)
    for ax, lift in zip(axes, lifted, strict=True):  # the same lift in pixels at the axes' new height
        ax.title.set_y(1.0 + lift / max(ax.bbox.height, 1.0))
    return spills and any(abs(ax.bbox.width - w) > 0.5 for ax, w in zip(axes, before, strict=True))
