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
    """A figure of ``size`` inches at :data:`DPI` with its canvas attached (one renderer for all its uses;
    ``Canvas`` None: matplotlib's Agg canvas)."""
    fig = Figure(figsize=size, dpi=DPI)
    if Canvas is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg as Canvas
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


class _Cell:
    """What the text of one axes needs around its box. Each side holds terms ``(c, f)``: a text reaching
    ``c - f * size`` pixels beyond that side of a box ``size`` pixels wide (or high), ``f`` being where the
    text is anchored along the box (a tick label in the middle of the axis reaches out only when it is wider
    than half the box; a y tick label at the left edge always reaches by its width: ``f = 0``). Also:
    ``min_w``, the width under which its horizontal x tick labels would overlap; ``lift``, the title's lift
    above the y axis' offset text; ``ticks_left``/``ticks_bottom``, the reach of the y/x tick labels (the
    axis labels go beyond them)."""

    def __init__(self) -> None:
        self.terms: dict[str, list[tuple[float, float]]] = {"left": [], "right": [], "bottom": [], "top": []}
        self.min_w = self.lift = self.title_top = 0.0
        self.titled = False
        self.ticks_left = self.ticks_bottom = 0.0

    def add(self, box: Any, bb: Any, fx: float, fy: float) -> None:
        """A text of extent ``bb`` anchored at ``(fx, fy)`` of ``box`` (fractions of its width and height)."""
        x, y = box.x0 + fx * box.width, box.y0 + fy * box.height
        self.terms["left"].append((x - bb.x0, fx))
        self.terms["right"].append((bb.x1 - x, 1.0 - fx))
        self.terms["bottom"].append((y - bb.y0, fy))
        self.terms["top"].append((bb.y1 - y, 1.0 - fy))

    def fixed(self, side: str, reach: float) -> None:
        self.terms[side].append((reach, 0.0))


def _reach(terms: list[tuple[float, float]], size: float) -> float:
    return max([0.0] + [c - f * size for c, f in terms])


def _envelope(terms: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The terms that can matter: those reaching out at all (``c > 0``) and not outdone by another for every
    size (one reaching further, ``c`` larger, and shrinking no faster, ``f`` smaller)."""
    out: list[tuple[float, float]] = []
    for c, f in sorted((t for t in terms if t[0] > 0), key=lambda t: (t[1], -t[0])):
        if not out or c > out[-1][0]:  # by f ascending: kept only if it reaches further than all before it
            out.append((c, f))
    return out


def _fraction(ax: Any, axis: Any, loc: float) -> float:
    """Where ``loc`` lies along ``axis`` as a fraction of the axes' box."""
    box = ax.bbox
    if axis is ax.xaxis:
        return float((ax.transData.transform((loc, 0.0))[0] - box.x0) / max(box.width, 1.0))
    return float((ax.transData.transform((0.0, loc))[1] - box.y0) / max(box.height, 1.0))


def _measure(ax: Any, renderer: Any) -> _Cell:
    """The :class:`_Cell` of ``ax``: its ticks are placed and their labels set (as drawing will) and measured
    with ``renderer``, and so are its axis labels, title and legend."""
    box = ax.bbox
    cell = _Cell()
    points = ax.figure.dpi / 72.0
    pad = PAD * points
    offsets = {}
    for axis in (ax.xaxis, ax.yaxis):
        axis.get_majorticklabels()  # places the ticks and sets their labels, as drawing will
        shown = []
        for tick in axis.get_major_ticks():
            if tick.label1.get_visible() and tick.label1.get_text() and _in_view(axis, tick.get_loc()):
                bb = tick.label1.get_window_extent(renderer)
                f = min(1.0, max(0.0, _fraction(ax, axis, tick.get_loc())))
                shown.append((tick, bb, f))
                if axis is ax.xaxis:  # where matplotlib puts an axis label: beyond its own axis' tick labels
                    cell.add(box, bb, f, 0.0)
                    cell.ticks_bottom = max(cell.ticks_bottom, box.y0 - bb.y0)
                else:
                    cell.add(box, bb, 0.0, f)
                    cell.ticks_left = max(cell.ticks_left, box.x0 - bb.x0)
        offsets[axis.axis_name] = axis.get_major_formatter().get_offset() if shown else ""
        if axis is ax.xaxis and len(shown) > 1 and all(t.label1.get_rotation() == 0 for t, _, _ in shown):
            shown.sort(key=lambda t: t[2])  # neighbours apart by half their widths, whatever the axes' width
            for (_, a, fa), (_, b, fb) in zip(shown, shown[1:], strict=False):
                if fb > fa:
                    cell.min_w = max(cell.min_w, ((a.width + b.width) / 2 + pad) / (fb - fa))
    bottom = cell.ticks_bottom
    xlabel, ylabel = ax.xaxis.label, ax.yaxis.label
    if xlabel.get_visible() and xlabel.get_text():
        bb = xlabel.get_window_extent(renderer)
        bottom = cell.ticks_bottom + ax.xaxis.labelpad * points + bb.height
        cell.terms["left"].append((bb.width / 2, 0.5))
        cell.terms["right"].append((bb.width / 2, 0.5))
    if offsets["x"]:  # below the x tick labels, at the right
        ax.xaxis.offsetText.set_text(offsets["x"])
        bottom += ax.xaxis.offsetText.get_window_extent(renderer).height + pad
    cell.fixed("bottom", bottom)
    if ylabel.get_visible() and ylabel.get_text():
        bb = ylabel.get_window_extent(renderer)
        cell.fixed("left", cell.ticks_left + ax.yaxis.labelpad * points + bb.width)
        cell.terms["bottom"].append((bb.height / 2, 0.5))
        cell.terms["top"].append((bb.height / 2, 0.5))
    if offsets["y"]:  # above the axes at the left: the title goes above it
        ax.yaxis.offsetText.set_text(offsets["y"])
        cell.lift = ax.yaxis.offsetText.get_window_extent(renderer).height + pad
        cell.fixed("top", cell.lift)
    if ax.title.get_text():
        cell.titled = True
        ax.title.set_y(1.0 + cell.lift / max(box.height, 1.0))
        bb = ax.title.get_window_extent(renderer)
        cell.title_top = bb.y1 - box.y1
        cell.fixed("top", cell.title_top)
        cell.terms["left"].append((bb.width / 2, 0.5))
        cell.terms["right"].append((bb.width / 2, 0.5))
    legend = ax.get_legend()
    if legend is not None and legend.get_visible():
        bb = legend.get_window_extent(renderer)  # anchored by its top left corner (beside the axes: at (1, 1))
        fx = min(1.0, max(0.0, (bb.x0 - box.x0) / max(box.width, 1.0)))
        fy = min(1.0, max(0.0, (bb.y1 - box.y0) / max(box.height, 1.0)))
        cell.add(box, bb, fx, fy)
    return cell


def _solve(size: float, n: int, low: list[list[tuple[float, float]]], high: list[list[tuple[float, float]]],
           least: float, pad: float) -> tuple[float, float, float, float]:
    """One direction of the grid: ``n`` boxes in a row, the text of box ``i`` reaching before it by the terms
    ``low[i]`` and after it by ``high[i]`` (see :class:`_Cell`). Returns the figure's size (``size``, or
    more where the boxes would be smaller than ``least``), the margin before the first box, the gap between
    two boxes and the box size: the largest box for which everything fits, ``pad`` apart."""

    low, high = [_envelope(t) for t in low], [_envelope(t) for t in high]

    def layout(box: float) -> tuple[float, float, float]:
        first = _reach(low[0], box) + pad
        last = _reach(high[-1], box) + pad
        gap = max((_reach(high[i], box) + _reach(low[i + 1], box) + pad for i in range(n - 1)), default=0.0)
        return first, last, gap

    def total(box: float) -> float:
        first, last, gap = layout(box)
        return first + last + n * box + (n - 1) * gap

    if total(least) >= size:  # too little room: the figure grows to the smallest box
        size, box = total(least), least
    else:  # the largest box that fits: on a grid of candidates, then between the best and the next one
        steps = 64
        grid = [least + (size - least) * i / steps for i in range(steps + 1)]
        best = max(i for i, b in enumerate(grid) if total(b) <= size)
        lo, hi = grid[best], grid[min(best + 1, steps)]
        for _ in range(30):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if total(mid) <= size else (lo, mid)
        box = lo
    first, _, gap = layout(box)
    return size, first, gap, box


def fit(fig: Any, suptitle: Any = None) -> None:
    """Set the subplot margins and gaps of ``fig`` so that the text of its visible axes (one grid, one axes per
    cell) fits, :data:`PAD` points apart; grow the figure where the axes would be smaller than
    :data:`MIN_AXES` or than their x tick labels need. The titles must have been set with ``y=1.0``
    (matplotlib then does not move them while drawing, which would measure every axis again).
    ``suptitle``: the figure's title (the Text ``fig.suptitle`` returned), put above the grid."""
    width, height = getattr(fig, "nominal_size", fig.get_size_inches())
    if tuple(fig.get_size_inches()) != (width, height):
        fig.set_size_inches(width, height)
    axes = [ax for ax in fig.axes if ax.get_visible()]
    if not axes:
        return
    renderer = fig.canvas.get_renderer()
    above = suptitle.get_window_extent(renderer) if suptitle is not None and suptitle.get_text() else None
    nrows, ncols = axes[0].get_subplotspec().get_gridspec().get_geometry()
    at = [(ax.get_subplotspec().rowspan.start, ax.get_subplotspec().colspan.start) for ax in axes]
    cells = {where: _measure(ax, renderer) for ax, where in zip(axes, at, strict=True)}
    lift = {r: max(c.lift for (row, _), c in cells.items() if row == r) for r in range(nrows)}
    for (r, _), c in cells.items():  # the titles of a row at one height: above any offset text of the row
        if c.titled and lift[r] > c.lift:
            c.fixed("top", c.title_top + lift[r] - c.lift)

    def terms(side: str, row: int | None = None, col: int | None = None) -> list[tuple[float, float]]:
        return [t for (r, k), c in cells.items() if row in (None, r) and col in (None, k) for t in c.terms[side]]

    dpi = fig.dpi
    pad = PAD * dpi / 72.0
    tops = [terms("top", row=r) for r in range(nrows)]
    if above is not None:  # the figure's title above the first row, as wide as it needs
        tops[0] = [(c + above.height + pad, f) for c, f in tops[0]] + [(above.height + pad, 0.0)]
        width = max(width, (above.width + 2 * pad) / dpi)
    least_w = max([MIN_AXES * dpi] + [c.min_w for c in cells.values()])
    w_px, left, wgap, aw = _solve(width * dpi, ncols, [terms("left", col=c) for c in range(ncols)],
                                  [terms("right", col=c) for c in range(ncols)], least_w, pad)
    # rows from the top: the title reaches up (before), the x labels down (after)
    h_px, top, hgap, ah = _solve(height * dpi, nrows, tops, [terms("bottom", row=r) for r in range(nrows)],
                                 MIN_AXES * dpi, pad)
    if (w_px, h_px) != (width * dpi, height * dpi):
        fig.set_size_inches(w_px / dpi, h_px / dpi)
    fig.subplots_adjust(left=left / w_px, right=(left + ncols * aw + (ncols - 1) * wgap) / w_px,
                        top=1 - top / h_px, bottom=1 - (top + nrows * ah + (nrows - 1) * hgap) / h_px,
                        wspace=wgap / aw, hspace=hgap / ah)
    if above is not None:
        suptitle.set_y(1 - pad / h_px)  # its top PAD below the figure's edge (matplotlib's is 2% of the height)
        suptitle.set_verticalalignment("top")
    points = dpi / 72.0
    for ax, where in zip(axes, at, strict=True):
        box, cell = ax.bbox, cells[where]
        ax.title.set_y(1.0 + lift[where[0]] / max(box.height, 1.0))  # the same lift in pixels at the new height
        # the axis labels where matplotlib would put them (beyond the tick labels by labelpad), said once here:
        # while drawing, it would otherwise measure the tick labels of the axes again to place them
        ax.xaxis.set_label_coords(0.5, -(cell.ticks_bottom + ax.xaxis.labelpad * points) / max(box.height, 1.0))
        ax.yaxis.set_label_coords(-(cell.ticks_left + ax.yaxis.labelpad * points) / max(box.width, 1.0), 0.5)
