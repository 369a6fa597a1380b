"""One self-contained HTML page for a comparison.

Self-contained means: CSS inline in a ``<style>`` element, figures as PNG images
embedded in ``data:`` URIs, no script, no external stylesheet, font or image,
and no ``http(s)://`` string anywhere (the PNG "Software" metadata, which names
matplotlib's web site, is left out). The file can be mailed or archived and
opens offline.

Figures (matplotlib, object-oriented API with the Agg canvas: no pyplot, no
global backend switch):

- metric@k curves, k = 1..k_max, one line per run (runs given as rankings);
- per-query differences against the baseline, sorted, as filled bars (the way
  TREC papers show them): above zero the run is higher than the baseline;
  green where that is better, red where worse;
- distributions of per-query scores: a mirrored histogram per run with the mean
  (diamond) and median (bar).
"""

from __future__ import annotations

import base64
import functools
import html
import io
from typing import TYPE_CHECKING, Any, Callable, ParamSpec, TypeVar

import numpy as np

from .._errors import MissingExtraError
from ._common import (
    DOWN,
    UP,
    adjusted_name,
    aggregate_cells,
    counts_text,
    describe,
    diff_metric_label,
    drawn,
    family_text,
    fmt,
    fmt_p,
    fmt_signed,
    legend,
    marker,
    mean_label,
    missing_text,
    no_value_text,
    show_n,
    test_label,
)
from ._layout import DPI, few_ticks, fit, new_figure

if TYPE_CHECKING:
    from ..compare import Comparison

_CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       margin: 0; background: #f6f7f9; color: #1d2330; line-height: 1.45; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; }
h1 { font-size: 1.6rem; margin: 0.2rem 0 0.4rem; }
h2 { font-size: 1.2rem; margin-top: 2.2rem; border-bottom: 2px solid #e3e6ec; padding-bottom: 0.25rem; }
h3 { font-size: 1.0rem; margin: 1.4rem 0 0.4rem; }
p.lead { color: #4a5263; margin-top: 0; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.9rem; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e3e6ec; text-align: right; white-space: nowrap; }
th { background: #f0f2f6; border-bottom: 2px solid #c9ced8; }
td.l, th.l { text-align: left; }
td .ci { color: #6b7385; font-size: 0.85em; }
tr.base td { background: #fafbfc; }
.up { color: #1a7f37; font-weight: 600; }
.down { color: #c62828; font-weight: 600; }
.sig { font-weight: 600; }
.caption { color: #4a5263; font-size: 0.85rem; max-width: 1100px; }
figure { margin: 0.6rem 0 1.2rem; }
.figs { display: flex; flex-wrap: wrap; gap: 0 24px; }
.figs figure { flex: 0 1 540px; }
.figs figure.wide { flex: 1 1 100%; }
figure img { max-width: 100%; height: auto; border: 1px solid #e3e6ec; }
figcaption { color: #4a5263; font-size: 0.85rem; }
dl.settings { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; font-size: 0.9rem; }
dl.settings dt { font-weight: 600; }
dl.settings dd { margin: 0; }
ul.notes li { color: #8a5a00; }
.scroll { overflow-x: auto; }
"""

Progress = Callable[[str, int, int], None]

_SHORT = {"t": "t-test", "wilcoxon": "Wilcoxon", "randomization": "randomisation", "bootstrap": "bootstrap"}


def _mpl() -> tuple[Any, Any]:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtraError("HTML reports", "report", "matplotlib") from None
    return Figure, FigureCanvasAgg


def _img(fig: Any, alt: str, canvas_cls: Any) -> str:
    if not isinstance(fig.canvas, canvas_cls):  # a figure drawn again keeps its canvas (and its renderer)
        canvas_cls(fig)
    buf = io.BytesIO()
    # zlib level 3 instead of Pillow's 6: a third less time to encode, files ~7% larger
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None}, pil_kwargs={"compress_level": 3})
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{data}">'


def _colors(n: int) -> list[Any]:
    from matplotlib import colormaps

    cmap = colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def _e(x: Any) -> str:
    """Prose for HTML: control characters shown escaped (never a raw ESC, BEL or OSC byte), then HTML's escapes."""
    from .terminal import terminal_text

    return html.escape(terminal_text(x))


def _d(x: Any) -> str:
    """Data (a run, metric or group name) for HTML: the one escaping rule (:mod:`rankmeter.report.escape`),
    then HTML's escapes."""
    from .escape import escape

    return html.escape(escape(x))


# --------------------------------------------------------------------------- tables

def _means_table(cmp: "Comparison", digits: int) -> str:
    pct = f"{cmp.settings.confidence * 100:g}%"
    head = "".join(f"<th>{_d(mean_label(cmp, m))} {'&uarr;' if cmp.higher_is_better.get(m, True) else '&darr;'}</th>"
                   for m in cmp.metrics)
    rows = []
    best = {m: set(cmp.best(m)) for m in cmp.metrics}
    for r in cmp.runs:
        cells = []
        for m in cmp.metrics:
            v, lo, hi = aggregate_cells(cmp, r, m, digits)  # a count: its sum
            v = f"<strong>{v}</strong>" if r in best[m] else v
            mk = marker(cmp, m, r)
            sym = f' <span class="up">{UP}</span>' if mk == "up" else \
                f' <span class="down">{DOWN}</span>' if mk == "down" else ""
            cells.append(f'<td>{v} <span class="ci">[{lo}, {hi}]</span>{sym}</td>')
        base = r == cmp.baseline
        label = _d(r) + (' <span class="ci">(baseline)</span>' if base else "")
        rows.append(f'<tr{" class=base" if base else ""}><td class="l">{label}</td>{"".join(cells)}</tr>')
    return (f'<div class="scroll"><table><thead><tr><th class="l">run</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>'
            f'<p class="caption">{_e(legend(cmp))}. <strong>Bold</strong>: best mean. Brackets: {pct} '
            f'{"BCa" if cmp.settings.interval == "bca" else "percentile"} bootstrap interval.'
            + (f" {_e(counts)}." if (counts := counts_text(cmp)) else "") + "</p>")


def _overlap_table(cmp: "Comparison", digits: int) -> str:
    measure = _e(cmp.overlap[0]["measure"])
    rows = "".join(f'<tr><td class="l">{_d(o["a"])}</td><td class="l">{_d(o["b"])}</td>'
                   f'<td>{fmt(o["mean"], digits)}</td><td>{o["queries"]}</td></tr>' for o in cmp.overlap)
    return (f'<div class="scroll"><table><thead><tr><th class="l">run</th><th class="l">against</th>'
            f'<th>mean {measure}</th><th>queries</th></tr></thead><tbody>{rows}</tbody></table></div>'
            '<p class="caption">Extrapolated rank-biased overlap (Webber et al. 2010) of the two runs\' rankings, '
            'averaged over the compared queries both runs have.</p>')


def _tests_table(cmp: "Comparison", digits: int) -> str:
    corr = adjusted_name(cmp)
    pct = f"{cmp.settings.confidence * 100:g}%"
    rows = []
    with_n = show_n(cmp)
    for t in cmp.tests:
        cls = ' class="sig up"' if t.significant and t.better == t.b else \
            ' class="sig down"' if t.significant else ""
        rows.append(
            f'<tr><td class="l">{_d(diff_metric_label(cmp, t.metric))}</td><td class="l">{_d(t.b)} vs {_d(t.a)}</td>'
            f'<td class="l">{_e(_SHORT.get(t.test, t.test))}</td><td{cls}>{fmt_signed(t.diff, digits)}</td>'
            f'<td>[{fmt(t.diff_interval[0], digits)}, {fmt(t.diff_interval[1], digits)}]</td>'
            f'<td>{fmt(t.effect_size, 2)}</td><td>{fmt(t.statistic, 3)}</td><td>{fmt_p(t.p_value)}</td>'
            f'<td{cls}>{fmt_p(t.p_adjusted)}</td>' + (f"<td>{t.n}</td>" if with_n else "")
            + f'<td class="l">{_e(t.method)}</td></tr>')
    nv = no_value_text(cmp)
    return (f'<div class="scroll"><table><thead><tr><th class="l">metric</th><th class="l">b vs a</th>'
            f'<th class="l">test</th><th>diff (b &minus; a)</th><th>{pct} interval</th><th>d<sub>z</sub></th>'
            f'<th>statistic</th><th>p</th><th>p ({_e(corr)})</th>' + ("<th>n</th>" if with_n else "")
            + '<th class="l">method</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>'
            f'<p class="caption">Coloured: adjusted p &lt; {cmp.settings.alpha:g} ({_e(family_text(cmp))}); '
            'green when b is better, red when worse. d<sub>z</sub>: mean difference / standard deviation of the '
            'per-query differences.' + (f" {_e(nv)}" if nv else "") + '</p>')


# --------------------------------------------------------------------------- figures

def _curves(cmp: "Comparison", k_max: int, progress: Progress | None, Figure: Any, Canvas: Any) -> str:
    figures = curve_figures(cmp, k_max, progress, Figure)
    if not figures:
        why = ("the runs were given as precomputed per-query results, not rankings"
               if not cmp.has_rankings else "none of the metrics takes a cutoff @k")
        return f'<p class="caption">No metric@k curves: {_e(why)}.</p>'
    out = []
    for label, (fig, k_max) in figures.items():
        out.append(f"<figure>{_img(fig, f'{label} curves', Canvas)}<figcaption>{_e(label)} for k = 1..{k_max}; "
                   f"dashed: the baseline {_e(cmp.baseline)}.</figcaption></figure>")
    return '<div class="figs">' + "".join(out) + "</div>"


def curve_figures(cmp: "Comparison", k_max: int, progress: Progress | None, Figure: Any) -> dict[str, Any]:
    """The metric@k figures of the report: label -> (matplotlib Figure, the largest k drawn); empty when the
    runs were given as results or no metric takes a cutoff."""
    curves = cmp.curves(k_max, progress=progress)
    if not curves:
        return {}
    colors = _colors(len(cmp.runs))
    out: dict[str, Any] = {}
    k_max = len(next(iter(next(iter(curves.values())).values())))  # bounded by the data (see Comparison.curves)
    ks = np.arange(1, k_max + 1)
    for label, per_run in curves.items():
        fig = new_figure(Figure, None, (6.4, 3.8))  # margins from its text (report._layout.fit)
        ax = fig.add_subplot()
        few_ticks(ax.xaxis, 8, integer=True)
        few_ticks(ax.yaxis)
        for i, r in enumerate(cmp.runs):
            if r in per_run:
                ax.plot(ks, per_run[r], color=colors[i], lw=1.8 if r != cmp.baseline else 2.4,
                        ls="-" if r != cmp.baseline else "--", label=r)
        ax.set_xlabel("k")
        ax.set_ylabel(label)
        ax.set_xlim(1, k_max)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, ncols=2 if len(cmp.runs) > 6 else 1, frameon=False)
        ax.set_title(f"{label}, k = 1..{k_max} (mean over {cmp.n_queries} {cmp.units})", fontsize=10, y=1.0)
        fit(fig)
        out[label] = (fig, k_max)
    return out


_MAX_BARS = 4000


def _bars(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Step outline of sorted bars: bar i spans [i, i+1). Above ``_MAX_BARS`` queries the
    (monotone) sorted values are drawn at ``_MAX_BARS`` evenly spaced ranks, which a figure a
    few hundred pixels wide cannot tell apart from every bar."""
    n = len(d)
    if n > _MAX_BARS:
        pos = np.linspace(0, n - 1, _MAX_BARS).round().astype(np.int64)
        x = np.append(pos, n).astype(np.float64)
        return x, np.append(d[pos], d[-1])
    return np.arange(n + 1, dtype=np.float64), np.append(d, d[-1] if n else 0.0)


def _differences(cmp: "Comparison", metric: str, Figure: Any, Canvas: Any) -> str:
    fig = differences_figure(cmp, metric, Figure)
    return (f"<figure>{_img(fig, f'per-query differences on {metric}', Canvas)}<figcaption>One bar per query: "
            f"the run's {_e(metric)} minus the baseline's, sorted. Green: better than the baseline, "
            "red: worse.</figcaption></figure>")


def differences_figure(cmp: "Comparison", metric: str, Figure: Any) -> Any:
    """The report's per-query differences against the baseline on ``metric``, sorted: a matplotlib Figure."""
    others = [r for r in cmp.runs if r != cmp.baseline]
    base = cmp.scores[cmp.baseline][metric]
    hib = cmp.higher_is_better.get(metric, True)
    ncols = min(3, len(others))
    nrows = (len(others) + ncols - 1) // ncols
    fig = new_figure(Figure, None, (4.4 * ncols, 2.9 * nrows + 0.4))  # margins from its text (report._layout.fit)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
    good, bad = "#2e8b57", "#d0453a"
    for i, r in enumerate(others):
        ax = axes[i // ncols][i % ncols]
        d = cmp.scores[r][metric] - base
        d = np.sort(d[~np.isnan(d)])[::-1]  # a query without a value in either run is not paired
        up, down = int((d > 0).sum()), int((d < 0).sum())
        x, y = _bars(d)
        ax.fill_between(x, np.maximum(y, 0), step="post", color=good if hib else bad, lw=0)
        ax.fill_between(x, np.minimum(y, 0), step="post", color=bad if hib else good, lw=0)
        ax.axhline(0, color="#333", lw=0.6)
        better, worse = (up, down) if hib else (down, up)
        ax.set_title(f"{r}: better on {better}, worse on {worse}, tied on {len(d) - up - down}", fontsize=9, y=1.0)
        ax.set_xlim(0, max(len(d), 1))
        ax.set_xlabel(f"{cmp.units}, sorted by difference", fontsize=8)
        if i % ncols == 0:
            ax.set_ylabel(f"{metric} - {cmp.baseline}", fontsize=8)
        ax.tick_params(labelsize=7)
        few_ticks(ax.xaxis, integer=True)
        few_ticks(ax.yaxis)
    for j in range(len(others), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    fit(fig, fig.suptitle(f"Per-query differences on {metric} against {cmp.baseline}", fontsize=10))
    return fig


def _distribution(cmp: "Comparison", metric: str, Figure: Any, Canvas: Any) -> str:
    fig = distribution_figure(cmp, metric, Figure)
    if fig is None:
        return ""
    wide = ' class="wide"' if len(cmp.runs) > 5 else ""
    return (f"<figure{wide}>{_img(fig, f'distribution of {metric}', Canvas)}<figcaption>Histogram of the per-query "
            f"{_e(metric)} of each run, mirrored; diamond: mean, bar: median.</figcaption></figure>")


def distribution_figure(cmp: "Comparison", metric: str, Figure: Any) -> Any:
    """The report's per-query distribution of ``metric`` in every run (a matplotlib Figure), None without values.
    ``cmp`` needs only ``runs``, ``scores``, ``n_queries``, ``unit`` and ``units``."""
    vals = [v[~np.isnan(v)] for v in (cmp.scores[r][metric] for r in cmp.runs)]  # nan: no value, not drawn
    allv = np.concatenate(vals)
    if not len(allv):
        return None
    lo, hi = float(allv.min()), float(allv.max())
    edges = np.histogram_bin_edges(allv, bins=min(30, max(5, int(np.sqrt(len(vals[0])) + 1))),
                                   range=(lo, hi) if hi > lo else (lo - 0.5, hi + 0.5))
    colors = _colors(len(cmp.runs))
    fig = new_figure(Figure, None, (max(5.0, 1.1 * len(cmp.runs) + 2), 3.8))  # margins: report._layout.fit
    ax = fig.add_subplot()
    few_ticks(ax.yaxis)
    for i, (_run, v) in enumerate(zip(cmp.runs, vals, strict=True)):
        counts, _ = np.histogram(v, bins=edges)
        w = 0.42 * counts / max(counts.max(), 1)
        ax.stairs(i + w, edges, baseline=i - w, orientation="horizontal", fill=True, color=colors[i], alpha=0.75)
        if len(v):
            ax.plot([i], [float(np.mean(v))], marker="D", color="white", mec="black", ms=6, zorder=3)
            med = float(np.median(v))
            ax.plot([i - 0.2, i + 0.2], [med, med], color="black", lw=1.2, zorder=3)
    ax.set_xticks(range(len(cmp.runs)), [str(r) for r in cmp.runs], rotation=30 if len(cmp.runs) > 5 else 0,
                  ha="right" if len(cmp.runs) > 5 else "center", fontsize=8)
    ax.set_ylabel(metric)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(f"Per-{cmp.unit} {metric} ({cmp.n_queries} {cmp.units})", fontsize=10, y=1.0)
    fit(fig)
    return fig


# --------------------------------------------------------------------------- page

def _settings(cmp: "Comparison") -> str:
    s = cmp.settings
    rows = [
        (cmp.units.capitalize(), f"{cmp.n_queries}"),
        ("Runs", ", ".join(cmp.runs)),
        ("Baseline", s.baseline),
        ("Comparisons", "each run against the baseline" if s.pairs == "baseline" else "every pair of runs"),
        ("Tests", "; ".join(test_label(t) for t in s.tests) + " (two-sided, paired by query)"),
        ("Markers", f"{test_label(s.tests[0])}, adjusted p < {s.alpha:g}"),
        ("Correction", f"{adjusted_name(cmp)}: {family_text(cmp)}"),
        ("Intervals", f"{s.confidence * 100:g}% {'BCa' if s.interval == 'bca' else 'percentile'} bootstrap, "
                      f"{s.n_resamples:,} resamples of the {cmp.units} (the same for every run)"),
        ("Randomisation", s.randomization or "not run"),
        ("Seed", f"{s.seed} (SeedSequence spawn: stream 0 sign patterns, stream 1 bootstrap)"),
    ]
    miss = missing_text(cmp)
    if miss:
        rows.append(("Missing", miss))
    body = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in rows)
    return f'<dl class="settings">{body}</dl><p class="caption">{_e(describe(cmp))}</p>'


def _group_section(cmp: "Comparison", views: Any, digits: int, Figure: Any, Canvas: Any) -> str:
    """Per-group means of each run (a table and a bar chart per metric), the gaps, the notes."""
    runs = list(views)
    first = views[runs[0]]
    groups = list(first.groups)
    parts = [f'<p class="caption">{len(groups)} groups of {_e(cmp.units)}; '
             f"sizes: {_e(', '.join(f'{g}: {first.sizes[g]}' for g in groups))}.</p>"]
    if first.notes:
        parts.append('<ul class="notes">' + "".join(f"<li>{_e(n)}</li>" for n in first.notes) + "</ul>")
    colors = _colors(len(runs))
    shown_metrics, left_out = drawn(list(first.means.columns))
    if left_out:
        parts.append(f'<p class="caption">{_e(left_out)}</p>')
    drawn_set = set(shown_metrics)
    parts.append('<div class="figs">')
    counts = set(getattr(first, "counts", ()))  # a count: its sum per group (the gap and tests: of the means)
    sums = {r: views[r].sums for r in runs} if counts else {}
    for m in first.means.columns:
        count = m in counts

        def value(r: str, g: str, m: str = m, count: bool = count) -> float:
            return float(sums[r][g][m]) if count else float(views[r].means.loc[g, m])

        head = "".join(f"<th>{_d(r)}</th>" for r in runs)
        rows = "".join(f'<tr><td class="l">{_d(g)}</td><td>{first.sizes[g]}</td>'
                       + "".join(f"<td>{sums[r][g][m] if count else fmt(value(r, g), digits)}</td>" for r in runs)
                       + "</tr>" for g in groups)
        gap_label = "gap of the means (max - min)" if count else "gap (max - min)"
        gaps = "".join(f'<tr><td class="l">{gap_label}</td><td></td>'
                       + "".join(f"<td>{fmt(float(views[r].gap.loc[m, 'max_minus_min']), digits)}</td>"
                                 for r in runs) + "</tr>" for _ in [0])
        table = (f'<div class="scroll"><table><thead><tr><th class="l">group</th><th>size</th>{head}</tr></thead>'
                 f"<tbody>{rows}{gaps}</tbody></table></div>")
        what = f"{'sum (a count, as trec_eval sums it)' if count else 'mean'} per group of {_e(cmp.units)}"
        if m not in drawn_set:  # past the metrics drawn: the table only
            parts.append(f"<figure><figcaption>{_e(m)}: {what}{table}</figcaption></figure>")
            continue
        fig = new_figure(Figure, Canvas, (max(4.5, 0.9 * len(groups) * max(1, len(runs)) / 2 + 2), 3.4))
        ax = fig.add_subplot()
        few_ticks(ax.yaxis)
        width = 0.8 / max(len(runs), 1)
        x = np.arange(len(groups))
        for i, r in enumerate(runs):
            vals = [value(r, g) for g in groups]
            ax.bar(x + (i - (len(runs) - 1) / 2) * width, vals, width, label=str(r), color=colors[i])
        ax.set_xticks(x, [str(g) for g in groups], fontsize=8)
        shown = f"{m} (sum)" if count else m
        ax.set_ylabel(shown)
        ax.grid(axis="y", alpha=0.3)
        ax.set_title(f"{shown} per group", fontsize=10, y=1.0)
        if len(runs) > 1:
            ax.legend(fontsize=7)
        fit(fig)
        parts.append(f"<figure>{_img(fig, f'{shown} per group', Canvas)}<figcaption>{_e(m)}: "
                     f"{what}{table}</figcaption></figure>")
    parts.append("</div>")
    tests = [(r, row) for r in runs for row in views[r].tests.to_dict(orient="records")]
    if tests:
        body = "".join(f'<tr><td class="l">{_d(r)}</td><td class="l">'
                       f'{_d(row["metric"] + (" (mean)" if row["metric"] in counts else ""))}</td>'
                       f'<td class="l">{_d(row["group"])}</td><td>{row["n"]}</td><td>{fmt(row["diff"], digits)}</td>'
                       f'<td>{fmt(row["p_value"], digits)}</td><td>{fmt(row["p_adjusted"], digits)}</td></tr>'
                       for r, row in tests)
        parts.append('<div class="scroll"><table><thead><tr><th class="l">run</th><th class="l">metric</th>'
                     '<th class="l">group</th><th>n</th><th>diff</th><th>p</th><th>p adjusted</th></tr></thead>'
                     f'<tbody>{body}</tbody></table></div><p class="caption">Paired test of each run against '
                     f"{_e(cmp.baseline)} within each group.</p>")
    return "\n".join(parts)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def plain_figure_text(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``fn`` with the figures' text taken as written: a ``$`` in a run or metric name is not read as
    matplotlib's math (``$x^$`` would fail to parse); matplotlib's settings are restored afterwards."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            import matplotlib
        except ImportError:
            return fn(*args, **kwargs)
        with matplotlib.rc_context({"text.parse_math": False}):
            return fn(*args, **kwargs)

    return wrapper


@plain_figure_text
def to_html(cmp: "Comparison", k_max: int = 100, title: str | None = None, digits: int = 4,
            progress: Progress | None = None, groups: Any = None) -> str:
    Figure, Canvas = _mpl()
    title = title or f"Comparison of {len(cmp.runs)} runs"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body><main>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="lead">{_e(", ".join(cmp.runs))} on {cmp.n_queries} {cmp.units}; baseline '
        f"<strong>{_e(cmp.baseline)}</strong>. Made with rankmeter.</p>",
        "<h2>Means</h2>", _means_table(cmp, digits),
        "<h2>Paired tests</h2>", _tests_table(cmp, digits),
    ]
    if getattr(cmp, "overlap", None):
        parts += ["<h2>Rank overlap</h2>", _overlap_table(cmp, digits)]
    if cmp.notes:
        parts.append('<h2>Notes</h2><ul class="notes">' + "".join(f"<li>{_e(n)}</li>" for n in cmp.notes) + "</ul>")
    if groups:
        parts += ["<h2>Per group</h2>", _group_section(cmp, groups, digits, Figure, Canvas)]
    parts += ["<h2>Metric@k curves</h2>", _curves(cmp, k_max, progress, Figure, Canvas)]
    shown, left_out = drawn(cmp.metrics)
    some = f'<p class="caption">{_e(left_out)}</p>' if left_out else ""
    n_steps = 2 * len(shown)
    step = 0
    if len(cmp.runs) > 1:
        parts.append(f"<h2>Per-query differences against {_e(cmp.baseline)}</h2>{some}")
        for m in shown:
            parts.append(f"<h3>{_e(m)}</h3>" + _differences(cmp, m, Figure, Canvas))
            step += 1
            if progress is not None:
                progress("figures", step, n_steps)
    parts.append(f'<h2>Distributions of per-query scores</h2>{some}<div class="figs">')
    for m in shown:
        parts.append(_distribution(cmp, m, Figure, Canvas))
        step += 1
        if progress is not None:
            progress("figures", step, n_steps)
    parts.append("</div>")
    parts += ["<h2>Test settings</h2>", _settings(cmp), provenance_html(getattr(cmp, "provenance", None)),
              "</main></body></html>"]
    return "\n".join(parts) + "\n"


def provenance_html(record: Any) -> str:
    """The provenance section of a report (:mod:`rankmeter.provenance`): version, date and inputs as a table,
    and the whole record as JSON (HTML-escaped) in ``<pre id="rankmeter-provenance">`` inside a
    ``<details>`` element (no script: a report runs nothing); empty without a record."""
    if record is None:
        return ""
    import json

    d = record.to_dict()
    rows = "".join(
        f"<tr><td>{_d(i['role'])}</td><td>{_d(i.get('path', i.get('kind', '')))}</td>"
        f"<td class=\"num\">{i.get('size', '')}</td>"
        f"<td><code>{_e(i.get('sha256', 'changed since read' if i.get('changed') else ''))}</code></td></tr>"
        for i in d["data"]["inputs"])
    return (f"<h2>Provenance</h2><p>rankmeter {_e(d['implementation']['version'])}, {_e(d['date'])}"
            + (f", {d['platform']['threads']} threads" if "threads" in d["platform"] else "") + "</p>"
            + (f"<table><thead><tr><th>input</th><th>path</th><th>bytes</th><th>SHA-256</th></tr></thead>"
               f"<tbody>{rows}</tbody></table>" if rows else "")
            + "<details><summary>the record (JSON, ir_metadata sections)</summary>"
            + f'<pre id="rankmeter-provenance">{html.escape(json.dumps(d, indent=1))}</pre></details>')
