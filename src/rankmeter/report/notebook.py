"""Rich display in notebooks: compact HTML for ``_repr_html_`` and the report's figures for ``.plot()``.

The results a user looks at in Jupyter (:class:`~rankmeter.result.Result`,
:class:`~rankmeter.compare.Comparison`, :class:`~rankmeter.recsys.result.ExperimentResult`) show a
compact table, their notes and their labels (a :class:`~rankmeter.data.Run`, fused runs included,
and a :class:`~rankmeter.stats.groups.GroupResult` render themselves in their own layers:
:mod:`rankmeter.data.display`). Ids and names are data: they pass the
one escaping rule of the reports (:mod:`rankmeter.report.escape`) and HTML's, so an id such as
``<script>`` is shown, never run. The figures are the HTML report's own (:mod:`rankmeter.report.html`),
returned as matplotlib Figures with an Agg canvas (no pyplot, no display needed).

>>> import rankmeter
>>> r = rankmeter.evaluate({"<q>": ["a"]}, {"<q>": ["a"]}, ["rr"])
>>> "&lt;q&gt;" in result_html(r, per_query=True) and "<q>" not in result_html(r, per_query=True)
True
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .._errors import ParameterError
from .html import _d, _e, _means_table, _mpl, _tests_table, curve_figures, differences_figure, distribution_figure

if TYPE_CHECKING:
    from ..compare import Comparison
    from ..result import Result

__all__ = ["result_html", "comparison_html", "experiment_html", "result_figure", "comparison_figure"]

_STYLE = ('<style>.rankmeter table{border-collapse:collapse}.rankmeter td,.rankmeter th{padding:2px 8px;'
          'text-align:right}.rankmeter .l{text-align:left}.rankmeter .ci,.rankmeter .caption{color:#666;'
          'font-size:0.9em}</style>')
_SHOWN = 10  # rows of the per-query table shown


def _num(v: Any, digits: int = 4) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return _e(v)
    if math.isnan(f):
        return "nan"
    return str(int(f)) if f.is_integer() and abs(f) >= 1 else f"{f:.{digits}f}"


def _notes(notes: Any) -> str:
    notes = list(notes)
    return ('<details><summary>notes (' + str(len(notes)) + ')</summary><ul>'
            + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul></details>") if notes else ""


def _wrap(title: str, body: str) -> str:
    return f'{_STYLE}<div class="rankmeter"><p><strong>{title}</strong></p>{body}</div>'


def result_html(res: "Result", digits: int = 4, per_query: bool = True) -> str:
    """A :class:`~rankmeter.result.Result`: means (sums of counts), the first queries' values, the notes."""
    sums = res.sums if res.counts else {}
    rows = "".join(f'<tr><td class="l">{_d(m)}</td><td>{_num(v, digits)}</td>'
                   + (f"<td>{_num(sums[m], digits)}</td>" if sums else "") + "</tr>" for m, v in res.mean.items())
    head = '<tr><th class="l">metric</th><th>mean</th>' + ("<th>sum</th>" if sums else "") + "</tr>"
    plural = {"query": "queries"}.get(res.index_name, res.index_name + "s")
    body = f"<table><thead>{head}</thead><tbody>{rows}</tbody></table>"
    if per_query and res.values and res.n_queries:
        names = list(res.values)
        shown = list(res.queries)[:_SHOWN]
        cells = "".join(f'<tr><td class="l">{_d(q)}</td>'
                        + "".join(f"<td>{_num(res.values[m][i], digits)}</td>" for m in names) + "</tr>"
                        for i, q in enumerate(shown))
        more = (f'<p class="caption">first {len(shown)} of {res.n_queries} {plural}: '
                "result.per_query has them all</p>" if res.n_queries > len(shown) else "")
        body += (f'<details><summary>per {_e(res.index_name)}</summary><table><thead><tr><th class="l">'
                 f'{_e(res.index_name)}</th>' + "".join(f"<th>{_d(m)}</th>" for m in names)
                 + f"</tr></thead><tbody>{cells}</tbody></table>{more}</details>")
    title = f"Result: {res.n_queries} {_e(res.index_name if res.n_queries == 1 else plural)}"
    return _wrap(title, body + _notes(res.notes))


def comparison_html(cmp: "Comparison", digits: int = 4) -> str:
    """A :class:`~rankmeter.compare.Comparison`: the report's means table (intervals, markers, best in bold),
    its tests table and the notes."""
    body = _means_table(cmp, digits) + "<details><summary>paired tests</summary>" + _tests_table(cmp, digits) \
        + "</details>" + _notes(cmp.notes)
    return _wrap(f"Comparison of {len(cmp.runs)} runs on {cmp.n_queries} {_e(cmp.units)}; baseline "
                 f"{_d(cmp.baseline)}", body)


def experiment_html(x: Any, digits: int = 4) -> str:
    """An :class:`~rankmeter.recsys.result.ExperimentResult`: means per recommender and metric with the markers
    against the baseline, the mode (with the sampled-mode warning), the caption and the notes."""
    names = list(x.results)
    bases = tuple(getattr(x, "baselines", (x.baseline,)))
    head = '<tr><th class="l">metric</th>' + "".join(
        f"<th>{_d(n)}{' (baseline)' if n in bases else ''}</th>" for n in names) + "</tr>"
    means = {n: r.mean for n, r in x.results.items()}
    rows = "".join(f'<tr><td class="l">{_d(m)}</td>'
                   + "".join(f"<td>{_num(means[n].get(m, float('nan')), digits)}{_e(x.marker(m, n))}</td>"
                             for n in names) + "</tr>" for m in x.metrics)
    warn = f"<p><strong>{_e(x.mode)}</strong></p>" if x.sampled else ""
    body = (warn + f"<table><thead>{head}</thead><tbody>{rows}</tbody></table>"
            f'<p class="caption">{_e(x.caption())}</p>' + _notes(x.notes))
    return _wrap(f"Experiment: {len(names)} recommenders, top-{x.k}, {_e(x.mode)}", body)


# --------------------------------------------------------------------------- figures

_FIGURE: list[Any] = []


def _figure_class() -> Any:
    """matplotlib's Figure with a ``_repr_png_``: a notebook shows it as a PNG without pyplot or a backend."""
    if not _FIGURE:
        _mpl()  # matplotlib installed, or the error naming the extra
        from matplotlib.figure import Figure

        class NotebookFigure(Figure):
            """A matplotlib Figure that Jupyter displays (as PNG) without pyplot."""

            def _repr_png_(self) -> bytes:
                import io

                buf = io.BytesIO()
                self.savefig(buf, format="png", dpi=110)
                return buf.getvalue()

        _FIGURE.append(NotebookFigure)
    return _FIGURE[0]


def _canvas(fig: Any) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    return fig


def result_figure(res: "Result", metric: str | None = None) -> Any:
    """The per-query distribution of ``metric`` (default: every per-query metric, side by side) as the HTML
    report draws it: a matplotlib Figure."""
    from .html import plain_figure_text

    names = list(res.values)
    if metric is not None and metric not in res.values:
        raise ParameterError(f"The 'metric' parameter of plot must be one of the result's per-query metrics "
                             f"({', '.join(names) or 'none'}). Got {metric!r} instead.")
    if not names:
        raise ParameterError("plot needs per-query values; this result has corpus-level metrics only")
    chosen = [metric] if metric is not None else names
    plural = {"query": "queries"}.get(res.index_name, res.index_name + "s")
    view = SimpleNamespace(runs=tuple(chosen), scores={m: {"value": np.asarray(res.values[m], dtype=np.float64)}
                                                       for m in chosen},
                           n_queries=res.n_queries, unit=res.index_name, units=plural)
    Figure = _figure_class()
    fig = plain_figure_text(distribution_figure)(cast("Comparison", view), "value", Figure)  # the attributes it reads
    if fig is None:
        fig = Figure(figsize=(5, 3))
        fig.add_subplot().set_title("no per-query value to draw (every value is nan)", fontsize=10)
    return _canvas(fig)


KINDS = ("curves", "differences", "distribution")


def comparison_figure(cmp: "Comparison", kind: str = "differences", metric: str | None = None, *,
                      k_max: int = 100) -> Any:
    """One figure of the comparison's HTML report, as a matplotlib Figure (see :meth:`Comparison.plot`)."""
    from .html import plain_figure_text

    if kind not in KINDS:
        raise ParameterError(f"The 'kind' parameter of plot must be one of {', '.join(KINDS)}. Got {kind!r} instead.")
    if metric is not None and metric not in cmp.metrics and kind != "curves":
        raise ParameterError(f"The 'metric' parameter of plot must be one of the compared metrics "
                             f"({', '.join(cmp.metrics)}). Got {metric!r} instead.")
    Figure = _figure_class()
    m = metric if metric is not None else cmp.metrics[0]
    if kind == "differences":
        if len(cmp.runs) < 2:
            raise ParameterError("plot(kind='differences') needs at least two runs")
        return _canvas(plain_figure_text(differences_figure)(cmp, m, Figure))
    if kind == "distribution":
        fig = plain_figure_text(distribution_figure)(cmp, m, Figure)
        if fig is None:
            raise ParameterError(f"plot(kind='distribution'): no run has a value of {m!r} on any query")
        return _canvas(fig)
    figures = plain_figure_text(curve_figures)(cmp, k_max, None, Figure)
    if not figures:
        why = ("the runs were given as precomputed results, not rankings" if not cmp.has_rankings
               else "none of the metrics takes a cutoff @k")
        raise ParameterError(f"plot(kind='curves') has no metric@k curve to draw: {why}")
    if metric is None:
        return _canvas(next(iter(figures.values()))[0])
    base = metric.split("@")[0].strip()
    for label, (fig, _k) in figures.items():
        if label == metric or label.split("@")[0] == base:
            return _canvas(fig)
    raise ParameterError(f"The 'metric' parameter of plot(kind='curves') must name one of the curves "
                         f"({', '.join(figures)}). Got {metric!r} instead.")
