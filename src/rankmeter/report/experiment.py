"""One self-contained HTML page for a recommender experiment (:class:`rankmeter.recsys.result.ExperimentResult`).

The page follows the comparison report (:mod:`rankmeter.report.html`: its stylesheet,
its figure helpers, the same wording of the tests) and adds what an experiment knows:
the mode (with the sampled-mode warning), the data and split counts, every metric
(corpus-level ones included), the checks of each recommender's output, the notes and
the timings. Rows are users, and every table and caption says so.

Layout rules: no table needs horizontal scrolling on a 1400 px window or on paper
(metrics are rows and recommenders columns; the checks table is transposed; cells
wrap), figures keep inside the page when printed (print stylesheet). p-values that
underflow to 0 are written ``< 1e-300``. Per-user difference bars are sorted by
improvement over the baseline, whatever the metric's direction, so the better users
are always on the left.

Figures need matplotlib (``rankmeter[report]``); without it the page has the tables
only and says so.
"""

from __future__ import annotations

import json
import math
import textwrap
from typing import Any, Mapping, Sequence

import numpy as np

from .._errors import MissingExtraError
from ._common import aggregate_cells, diff_metric_label, drawn, fmt, fmt_signed, no_value_text, show_n
from ._common import test_label as _test_label
from ._layout import clear, few_ticks, fit, new_figure
from .html import _CSS, _bars, _colors, _d, _e, _img, _mpl, plain_figure_text

# The result is typed as Any: report/ renders what recsys/ computes and does not import it
# (not even for type checking), so the two packages never import each other.
ExperimentResult = Any

__all__ = ["to_html", "fmt_pvalue"]

#: p-values below this are written "< 1e-300" (a float64 p of exactly 0 is an underflow, not a certainty)
P_FLOOR = 1e-300

_EXTRA_CSS = """
.sampled { background: #fff4d6; border: 2px solid #c98a00; padding: 10px 14px; font-weight: 600; }
table.fit { max-width: 100%; }
table.fit th, table.fit td { white-space: normal; overflow-wrap: break-word; }
table.fit th.num { overflow-wrap: anywhere; }
table.fit td.num, table.fit .nw { white-space: nowrap; }
td .ci { font-weight: normal; }
tr.kind th { background: #e8ecf3; font-size: 0.85rem; text-transform: uppercase; letter-spacing: 0.03em; }
.groups table { font-size: 0.8rem; margin-top: 0.3rem; }
@media print {
  body { background: #fff; }
  main { max-width: none; padding: 0; }
  .scroll { overflow: visible; }
  table { font-size: 0.72rem; }
  th, td { padding: 2px 6px; }
  table.fit td.num .ci { display: block; }
  figure, tr, dl { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  figure img { max-width: 100%; }
}
"""

_SHORT = {"t": "t-test", "wilcoxon": "Wilcoxon", "randomization": "randomisation", "bootstrap": "bootstrap"}


def fmt_pvalue(p: float | None) -> str:
    """A p-value for a report: three decimals, scientific below 0.001, ``< 1e-300`` when it underflows.

    >>> fmt_pvalue(0.04321), fmt_pvalue(2.5e-7), fmt_pvalue(0.0), fmt_pvalue(float("nan"))
    ('0.043', '2.5e-07', '< 1e-300', 'n/a')
    """
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "n/a"
    if p < P_FLOOR:
        return "< 1e-300"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def _value(v: Any, digits: int = 4) -> str:
    """A cell: an int as an integer, a float always with ``digits`` decimals (never ``1`` beside ``0.9000``)."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return str(int(v))
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f):
        return "n/a"
    return fmt(f, digits)


def _dl(rows: Sequence[tuple[Any, Any]]) -> str:
    return '<dl class="settings">' + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in rows) + "</dl>"


def _counts(c: Any) -> str:
    if not isinstance(c, Mapping):
        return ""
    return " / ".join(str(c.get(k, "")) for k in ("rows", "users", "items"))


# --------------------------------------------------------------------------- sections

def _summary(res: ExperimentResult) -> str:
    d, s = res.data, res.split
    rows: list[tuple[str, Any]] = [
        ("Input", d.get("source", "")), ("Interactions", d.get("rows")), ("Users", d.get("users")),
        ("Items", d.get("items"))]
    if d.get("repeated_pairs") is not None:
        rows.append(("Repeated (user, item) pairs", d.get("repeated_pairs")))
    rows += [("Split", s.get("method", "")),
             ("Split parameters", json.dumps(s.get("params", {}), default=str)),
             ("Train rows / users / items", _counts(s.get("train"))),
             ("Test rows / users / items", _counts(s.get("test")))]
    if s.get("test_rows_in_train") is not None:
        rows.append(("Test rows already in the user's train set", s.get("test_rows_in_train")))
    rows += [("Rows dropped by the split", s.get("dropped_rows")), ("Cut-off k", res.k),
             ("Recommenders", ", ".join(res.results)), ("Baseline", _base_text(res.baseline))]
    return "<h2>Experiment</h2>" + _dl([(k, v) for k, v in rows if v is not None]) + _tuning(res)


def _base_text(baseline: Any) -> str:
    """The baseline, or the baselines joined (``baseline=[...]``), or "none"."""
    if not baseline:
        return "none"
    return ", ".join(baseline) if isinstance(baseline, tuple) else str(baseline)


def _tuning(res: Any) -> str:
    """The tuned recommenders: the chosen parameters and every grid point's validation score."""
    tuning = getattr(res, "tuning", None) or {}
    parts = []
    for name, t in tuning.items():
        rows = "".join(f"<tr><td>{_d(json.dumps(sc['params'], default=str))}</td><td class=num>{fmt(sc['value'])}"
                       f"{' (chosen)' if sc['params'] == t['params'] else ''}</td></tr>" for sc in t["scores"])
        parts.append(f"<h3>Tuning of {_d(name)}</h3><p class=caption>Fitted on the training rows without the "
                     f"validation part, scored on the {t['validation_rows']} validation rows (never the test rows) "
                     f"by {_d(t['metric'])}; chosen {_d(json.dumps(t['params'], default=str))}, refitted on train + "
                     f"validation and evaluated once on test.</p><table><thead><tr><th>parameters</th>"
                     f"<th class=num>validation {_d(t['metric'])}</th></tr></thead><tbody>{rows}</tbody></table>")
    return "".join(parts)

def _means(res: ExperimentResult, digits: int) -> str:
    cmp = res.comparison
    names = list(res.results)
    head = "".join(f'<th class="num">{_d(n)}{"<br><span class=ci>(baseline)</span>" if n == res.baseline else ""}'
                   "</th>" for n in names)
    body = []
    first = res.results[names[0]]
    hib_of = _directions(res.metrics)
    kinds = metric_kinds(res.metrics)
    shown = [k for k in KINDS if k in kinds.values()]
    # each recommender's means and sums once, and the compared metrics as a set: asked per metric, thousands of
    # metrics made the table quadratic (issue 32)
    means = {n: res.results[n].mean for n in names}
    sums = {n: res.results[n].sums for n in names} if getattr(first, "counts", ()) else {}
    compared = frozenset(cmp.metrics) if cmp is not None else frozenset()
    for kind in shown:
        if len(shown) > 1:
            body.append(f'<tr class="kind"><th class="l" colspan="{len(names) + 2}">{_e(kind)}</th></tr>')
        for m in [x for x in res.metrics if kinds.get(x) == kind]:
            body.append(_means_row(res, m, names, first, hib_of.get(m), cmp, digits, means, sums, compared))
    caption = [_e(res.caption()) + "."]
    if cmp is not None:
        pct = f"{cmp.settings.confidence * 100:g}%"
        caption.append(f"Brackets: {pct} {'BCa' if cmp.settings.interval == 'bca' else 'percentile'} bootstrap "
                       "interval over the users. &uarr;/&darr;: higher/lower is better.")
    return ('<h2>Means</h2><table class="fit"><thead><tr><th class="l">metric</th><th class="l">level</th>'
            f'{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
            f'<p class="caption">{" ".join(caption)} Corpus-level metrics have one value per recommender and no '
            'test.</p>')


#: the kinds of metric the means table groups its rows by, in this order
KINDS = ("Accuracy", "Beyond accuracy", "Popularity bias and exposure", "Calibration")
_POPULARITY = {"arp", "aplt", "aclt", "pop_lift", "profile_popularity", "pop_rsp", "pop_reo", "exposure_share",
               "exposure_gap"}


def metric_kinds(metrics: Sequence[str]) -> dict[str, str]:
    """Each metric's kind (:data:`KINDS`), from the registry; a name that does not parse is "Accuracy".

    >>> list(metric_kinds(["ndcg@10", "novelty@10", "aplt@10", "miscalibration@10"]).values())
    ['Accuracy', 'Beyond accuracy', 'Popularity bias and exposure', 'Calibration']
    """
    from .._errors import RankmeterError
    from ..metrics.registry import parse_metric

    out = {}
    for m in metrics:
        try:
            spec = parse_metric(m).spec
        except RankmeterError:
            out[m] = KINDS[0]
            continue
        out[m] = ("Calibration" if spec.name == "miscalibration" else KINDS[2] if spec.name in _POPULARITY
                  else KINDS[1] if spec.family == "beyond" else KINDS[0])
    return out


def _means_row(res: ExperimentResult, m: str, names: Sequence[str], first: Any, hib: bool | None, cmp: Any,
               digits: int, means: Mapping[str, Mapping[str, float]], sums: Mapping[str, Mapping[str, float]],
               compared: frozenset[str]) -> str:
    per_user = m in first.values
    arrow = "" if hib is None else (" &uarr;" if hib else " &darr;")
    count = m in getattr(first, "counts", ())  # a count: its sum over the users, and the sum's interval
    cells = []
    for n in names:
        v = sums[n][m] if count else means[n].get(m, float("nan"))
        text = _e(_value(v, digits))
        if cmp is not None and m in compared:
            if count and m in cmp.counts:
                _, lo_text, hi_text = aggregate_cells(cmp, n, m, digits)
            else:
                lo, hi = cmp.intervals[n][m]
                lo_text, hi_text = fmt(lo, digits), fmt(hi, digits)
            text += f' <span class="ci">[{lo_text}, {hi_text}]</span>'
        mk = res.marker(m, n).strip()
        if mk:
            text += f' <span class="{"up" if mk == "▲" else "down"}">{mk}</span>'
        cells.append(f'<td class="num">{text}</td>')
    level = "per user" if per_user else "corpus"
    return (f'<tr><td class="l">{_d(f"{m} (sum)" if count else m)}{arrow}</td><td class="l nw">{level}</td>'
            f'{"".join(cells)}</tr>')


def _directions(metrics: Sequence[str]) -> dict[str, bool]:
    """Whether higher is better, per metric, from the registry (empty when a name does not parse)."""
    from .._errors import RankmeterError
    from ..metrics.registry import parse_metrics

    try:
        return {m.text: bool(m.spec.higher_is_better) for m in parse_metrics(list(metrics))}
    except RankmeterError:
        return {}


def _tests(res: ExperimentResult, digits: int) -> str:
    cmp = res.comparison
    if cmp is None:
        return ""
    from ..stats.correction import correction_name

    corr = correction_name(cmp.settings.correction)
    pct = f"{cmp.settings.confidence * 100:g}%"
    rows = []
    with_n = show_n(cmp)
    several = getattr(res, "comparisons", {})
    comps = list(several.values()) if len(several) > 1 else [cmp]
    seen: set[tuple[str, str, frozenset[str]]] = set()
    tests = []
    for c in comps:  # several baselines: each pair once (the family's adjusted p-values)
        for t in c.tests:
            key = (t.metric, t.test, frozenset((t.a, t.b)))
            if key not in seen:
                seen.add(key)
                tests.append(t)
    for t in tests:
        cls = ' class="num sig up"' if t.significant and t.better == t.b else \
            ' class="num sig down"' if t.significant else ' class="num"'
        n_cell = f'<td class="num">{t.n}</td>' if with_n else ""
        rows.append(
            f'<tr><td class="l">{_d(diff_metric_label(cmp, t.metric))}</td><td class="l">{_d(t.b)} vs {_d(t.a)}</td>'
            f'<td class="l nw">{_e(_SHORT.get(t.test, t.test))}</td><td{cls}>{fmt_signed(t.diff, digits)} '
            f'<span class="ci">[{fmt(t.diff_interval[0], digits)}, {fmt(t.diff_interval[1], digits)}]</span></td>'
            f'<td class="num">{fmt(t.effect_size, 2)}</td><td class="num">{fmt(t.statistic, 3)}</td>'
            f'<td class="num">{_e(fmt_pvalue(t.p_value))}</td><td{cls}>{_e(fmt_pvalue(t.p_adjusted))}</td>'
            f'{n_cell}</tr>')
    nv = no_value_text(cmp)
    return ('<h2>Paired tests</h2><table class="fit"><thead><tr><th class="l">metric</th><th class="l">b vs a</th>'
            f'<th class="l">test</th><th class="num">diff (b &minus; a) [{pct} interval]</th>'
            '<th class="num">d<sub>z</sub></th><th class="num">statistic</th><th class="num">p</th>'
            f'<th class="num">p ({_e(corr)})</th>{"<th class=num>n</th>" if with_n else ""}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>'
            f'<p class="caption">Paired by user over {cmp.n_queries} test users. Coloured: adjusted p &lt; '
            f'{cmp.settings.alpha:g}; green when b is better, red when worse. d<sub>z</sub>: mean difference / '
            'standard deviation of the per-user differences. p-values below 1e-300 underflow double precision '
            'and are written &lt; 1e-300.' + (f" {_e(nv)}" if nv else "")
            + (f" Several baselines: every model against each of {_e(_base_text(res.baseline))}, one {_e(corr)} "
               f"correction over the family of {len(tests)} tests." if len(comps) > 1 else "") + '</p>')


def _checks(res: ExperimentResult) -> str:
    names = list(res.validation)
    if not names:
        return ""
    labels = [("users", "test users asked for"), ("rows", "rows returned"), ("kept_rows", "rows evaluated"),
              ("duplicates", "duplicates removed"), ("unknown_items", "items outside the catalogue (removed)"),
              ("extra_user_rows", "rows for users not asked for (removed)"),
              ("outside_candidates", "outside the sampled candidates (removed)"),
              ("training_items", "the user's own training items (kept)"),
              ("missing_users", "users without a list"), ("short_lists", "lists shorter than k"),
              ("long_lists", "lists longer than k")]
    dicts = {n: res.validation[n].to_dict() for n in names}
    head = "".join(f'<th class="num">{_d(n)}</th>' for n in names)
    body = "".join(f'<tr><td class="l">{_e(label)}</td>'
                   + "".join(f'<td class="num">{dicts[n][key]}</td>' for n in names) + "</tr>"
                   for key, label in labels)
    return ('<h2>Checks of the recommendations</h2><table class="fit"><thead><tr><th class="l">check</th>'
            f'{head}</tr></thead><tbody>{body}</tbody></table>'
            '<p class="caption">Duplicates, items outside the catalogue, users outside the test set and items '
            'outside the sampled candidates are removed before evaluation; training items are kept. A user '
            'without a list scores as an empty list.</p>')


def _notes(res: ExperimentResult) -> str:
    lines = [f"{n}: {p}" for n, v in res.validation.items() for p in v.problems()] + list(res.notes)
    if res.comparison is not None:
        lines += [n for n in res.comparison.notes if n not in lines]
    if not lines:
        return ""
    return '<h2>Notes</h2><ul class="notes">' + "".join(f"<li>{_e(x)}</li>" for x in lines) + "</ul>"


def _settings(res: ExperimentResult) -> str:
    cmp = res.comparison
    if cmp is None:
        return ""
    from ..stats.correction import correction_name
    from ._common import family_text

    s = cmp.settings
    rows = [
        ("Test users", f"{cmp.n_queries}"),
        ("Comparisons", f"each recommender against {s.baseline}" if s.pairs == "baseline" else "every pair"),
        ("Tests", "; ".join(_test_label(t) for t in s.tests) + " (two-sided, paired by user)"),
        ("Markers", f"{_test_label(s.tests[0])}, adjusted p < {s.alpha:g}"),
        ("Correction", f"{correction_name(s.correction)}: {family_text(cmp)}"),
        ("Intervals", f"{s.confidence * 100:g}% {'BCa' if s.interval == 'bca' else 'percentile'} bootstrap, "
                      f"{s.n_resamples:,} resamples of the users (the same for every recommender)"),
        ("Randomisation", s.randomization or "not run"),
        ("Seed", f"{s.seed}"),
    ]
    return "<h2>Test settings</h2>" + _dl(rows)


def _timings(res: ExperimentResult) -> str:
    rows = [(k, f"{v:.3f} s") for k, v in res.timings.items()] + [("total", f"{res.total_seconds:.2f} s")]
    return "<h2>Timings</h2>" + _dl(rows)


# --------------------------------------------------------------------------- figures

def curves(res: ExperimentResult, k_max: int) -> dict[str, dict[str, np.ndarray]]:
    """Mean metric@k over the evaluated users for k = 1..k_max: ``{"ndcg@k": {recommender: array}}``.

    Per-user accuracy metrics that take a cutoff (beyond-accuracy ones, whose value at
    k = 1 says little, are left out), evaluated on each recommender's cleaned lists
    with the experiment's judgments and context. Empty when the result carries no
    judgments (an :class:`ExperimentResult` built by hand).

    The work is bounded by the data: the curves stop at the longest list of the data
    (a recommender's list or a user's judgments), past which a larger k adds no item;
    the arrays are then shorter than ``k_max`` (the report's caption says so).
    """
    import dataclasses

    from ..evaluate import evaluate
    from ..metrics.registry import parse_metrics

    if res.qrels is None or not res.runs:
        return {}
    k_max = min(k_max, _longest_list(res.qrels, res.runs.values()))
    wanted: list[tuple[str, int, Any]] = []
    seen: set[str] = set()
    for m in parse_metrics(list(res.metrics)):
        if not (m.spec.cutoff and m.spec.level == "query") or m.spec.family == "beyond":
            continue
        label = m.text.rsplit("@", 1)[0] + "@k"
        if label in seen:
            continue
        seen.add(label)
        for k in range(1, k_max + 1):
            wanted.append((label, k, dataclasses.replace(m, k=k, text=f"{label[:-2]}@{k}")))
    out: dict[str, dict[str, np.ndarray]] = {}
    if not wanted:
        return out
    users = list(next(iter(res.results.values())).queries)
    for name, run in res.runs.items():
        means = evaluate(res.qrels, run, [w[2] for w in wanted], queries=users, context=res.context).mean
        for label, k, m in wanted:
            out.setdefault(label, {}).setdefault(name, np.zeros(k_max))[k - 1] = means[m.text]
    return out


def _longest_list(qrels: Any, runs: Any) -> int:
    """The most rows any one user has, in the judgments or in any recommender's lists (at least 1)."""
    longest = 1
    for table in (qrels, *runs):
        lengths = np.diff(getattr(table, "offsets", np.zeros(1, dtype=np.int64)))
        if len(lengths):
            longest = max(longest, int(lengths.max()))
    return longest


def _curves(res: ExperimentResult, k_max: int, Figure: Any, Canvas: Any) -> str:
    data = curves(res, k_max)
    if not data:
        why = ("none of the per-user accuracy metrics takes a cutoff @k" if res.qrels is not None
               else "the result carries no judgments")
        return f'<h2>Metric@k curves</h2><p class="caption">No metric@k curves: {_e(why)}.</p>'
    names = list(res.results)
    colors = _colors(len(names))
    asked = k_max
    k_max = len(next(iter(next(iter(data.values())).values())))
    capped = (f" (not {asked} as asked: no list of the data is longer than {k_max})" if k_max < asked else "")
    ks = np.arange(1, k_max + 1)
    n_users = next(iter(res.results.values())).n_queries
    out = []
    fig = new_figure(Figure, Canvas, (5.4, 3.4))  # one figure, redrawn for each metric (report._layout)
    ax = fig.add_subplot()
    ax.set_xlabel("k")
    ax.grid(alpha=0.3)
    few_ticks(ax.xaxis, 8, integer=True)
    few_ticks(ax.yaxis)
    for label, per in data.items():
        clear(ax)
        for i, n in enumerate(names):
            if n in per:
                ax.plot(ks, per[n], color=colors[i], lw=2.4 if n == res.baseline else 1.8,
                        ls="--" if n == res.baseline else "-", marker="o", ms=3, label=n)
        ax.set_ylabel(label)
        ax.set_xlim(1, max(k_max, 2))
        ax.legend(fontsize=8, frameon=False, ncols=2 if len(names) > 6 else 1)
        ax.set_title(f"{label}, k = 1..{k_max} (mean over {n_users} users)", fontsize=10, y=1.0)
        fit(fig)
        base = f"; dashed: the baseline {_e(res.baseline)}" if res.baseline else ""
        out.append(f"<figure>{_img(fig, f'{label} curves', Canvas)}<figcaption>{_e(label)} for k = 1..{k_max}"
                   f"{_e(capped)}, from each recommender's top-{res.k} lists{base}.</figcaption></figure>")
    return '<h2>Metric@k curves</h2><div class="figs">' + "".join(out) + "</div>"


def improvement_order(diff: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Indices that sort per-user differences from the largest improvement to the largest loss.

    An improvement is a positive difference when higher is better and a negative one when
    lower is better; ties keep the users' order.

    >>> improvement_order(np.array([0.5, -1.0, 2.0]), True).tolist()
    [2, 0, 1]
    >>> improvement_order(np.array([0.5, -1.0, 2.0]), False).tolist()
    [1, 0, 2]
    """
    gain = diff if higher_is_better else -diff
    return np.argsort(-gain, kind="stable")


def _differences(res: ExperimentResult, metric: str, Figure: Any, Canvas: Any, pool: dict[str, Any]) -> str:
    """The per-user differences against the baseline on ``metric``: an axes per other recommender. The figure
    is kept in ``pool`` and redrawn for the next metric (the same recommenders, the same grid)."""
    cmp = res.comparison
    others = [r for r in cmp.runs if r != cmp.baseline]
    base = cmp.scores[cmp.baseline][metric]
    hib = cmp.higher_is_better.get(metric, True)
    ncols = min(3, len(others))
    if "differences" not in pool:
        nrows = (len(others) + ncols - 1) // ncols
        fig = new_figure(Figure, Canvas, (3.6 * ncols + 0.6, 2.6 * nrows + 0.5))
        grid = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
        zeros = []
        for i in range(nrows * ncols):
            ax = grid[i // ncols][i % ncols]
            if i >= len(others):
                ax.set_visible(False)
                continue
            zeros.append(ax.axhline(0, color="#333", lw=0.6))
            ax.set_xlabel("users, from most improved to most worsened", fontsize=8)
            ax.tick_params(labelsize=7)
            few_ticks(ax.xaxis, integer=True)
            few_ticks(ax.yaxis)
        pool["differences"] = fig, [grid[i // ncols][i % ncols] for i in range(len(others))], zeros
    fig, axes, zeros = pool["differences"]
    good, bad = "#2e8b57", "#d0453a"
    for i, r in enumerate(others):
        ax = axes[i]
        clear(ax, keep=[zeros[i]])
        diff = cmp.scores[r][metric] - base
        diff = diff[~np.isnan(diff)]  # a user without a value in either recommender is not paired
        d = diff[improvement_order(diff, hib)]
        gain = d if hib else -d
        x, y = _bars(d)
        _, g = _bars(gain)
        ax.fill_between(x, y, 0, where=g > 0, step="post", color=good, lw=0)
        ax.fill_between(x, y, 0, where=g < 0, step="post", color=bad, lw=0)
        ax.update_datalim([(0.0, 0.0)], updatex=False)  # the zero line in view, even when every user ties
        better, worse = int((gain > 0).sum()), int((gain < 0).sum())
        head = textwrap.fill(f"{r}: better for {better}, worse for {worse},", 44)  # a long name on more lines
        ax.set_title(f"{head}\ntied for {len(d) - better - worse} users", fontsize=9, y=1.0)
        ax.set_xlim(0, max(len(d), 1))
        if i % ncols == 0:
            ax.set_ylabel(f"{metric} − {cmp.baseline}" + ("" if hib else "\n(lower is better)"), fontsize=8)
    fit(fig)
    direction = "higher" if hib else "lower"
    return (f"<figure class=\"wide\">{_img(fig, f'per-user differences on {metric}', Canvas)}<figcaption>One bar "
            f"per test user: the recommender's {_e(metric)} minus the baseline's, sorted from the largest "
            f"improvement to the largest loss ({direction} is better). Green: better than the baseline, red: "
            "worse.</figcaption></figure>")


def _distribution(res: ExperimentResult, metric: str, Figure: Any, Canvas: Any, pool: dict[str, Any]) -> str:
    """The per-user distribution of ``metric`` in every recommender; the figure is kept in ``pool`` and redrawn
    for the next metric."""
    cmp = res.comparison
    names = list(cmp.runs)
    vals = [v[~np.isnan(v)] for v in (cmp.scores[r][metric] for r in names)]  # nan: no value, not drawn
    allv = np.concatenate(vals)
    if not len(allv):
        return ""
    lo, hi = float(allv.min()), float(allv.max())
    edges = np.histogram_bin_edges(allv, bins=min(30, max(5, int(np.sqrt(len(vals[0])) + 1))),
                                   range=(lo, hi) if hi > lo else (lo - 0.5, hi + 0.5))
    colors = _colors(len(names))
    if "distribution" not in pool:
        fig = new_figure(Figure, Canvas, (max(4.4, 0.9 * len(names) + 2), 3.4))
        ax = fig.add_subplot()
        ax.set_xticks(range(len(names)), names, rotation=30 if len(names) > 4 else 0,
                      ha="right" if len(names) > 4 else "center", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        few_ticks(ax.yaxis)
        pool["distribution"] = fig, ax
    fig, ax = pool["distribution"]
    clear(ax)
    for i, v in enumerate(vals):
        counts, _ = np.histogram(v, bins=edges)
        w = 0.42 * counts / max(counts.max(), 1)
        ax.stairs(i + w, edges, baseline=i - w, orientation="horizontal", fill=True, color=colors[i], alpha=0.75)
        if len(v):
            ax.plot([i], [float(np.mean(v))], marker="D", color="white", mec="black", ms=6, zorder=3)
            med = float(np.median(v))
            ax.plot([i - 0.2, i + 0.2], [med, med], color="black", lw=1.2, zorder=3)
    ax.set_ylabel(metric)
    ax.set_title(f"Per-user {metric} ({cmp.n_queries} users)", fontsize=10, y=1.0)
    fit(fig)
    return (f"<figure>{_img(fig, f'distribution of {metric}', Canvas)}<figcaption>Histogram of the per-user "
            f"{_e(metric)} of each recommender, mirrored; diamond: mean, bar: median.</figcaption></figure>")


def _group_order(res: ExperimentResult) -> list[str]:
    first = next(iter(res.groups.values()))
    order = [g for g in res.group_info.get("order", []) if g in first.groups]
    return order + [g for g in first.groups if g not in order]


def _groups(res: ExperimentResult, digits: int, Figure: Any, Canvas: Any) -> str:
    """Per user group: sizes, then per metric a bar chart (a bar per recommender in each group) with the
    means, the gap between groups and the paired test against the baseline within each group."""
    if not res.groups:
        return ""
    names = list(res.groups)
    first = res.groups[names[0]]
    order = _group_order(res)
    info = res.group_info
    sizes = ", ".join(f"{g}: {first.sizes[g]}" for g in order)
    parts = ['<h2 id="groups">Per user group</h2>',
             f'<p class="lead">{_e(info.get("description", "user groups"))}. {len(order)} groups of users; '
             f"sizes: {_e(sizes)}.</p>"]
    notes = list(first.notes)
    if notes:
        parts.append('<ul class="notes">' + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>")
    base, test = info.get("baseline"), info.get("test")
    alpha = res.comparison.settings.alpha if res.comparison is not None else 0.05
    colors = _colors(len(names))
    shown, left_out = drawn(list(first.means.columns))
    if left_out:
        parts.append(f'<p class="caption">{_e(left_out)}</p>')
    parts.append('<div class="figs groups">')
    width = 0.8 / max(len(names), 1)
    x = np.arange(len(order))
    if Figure is not None:  # one figure, redrawn for each metric (report._layout)
        fig = new_figure(Figure, Canvas, (5.6, 3.2))
        ax = fig.add_subplot()
        ax.set_xticks(x, [f"{g}\n({first.sizes[g]} users)" for g in order], fontsize=8)
        zero = ax.axhline(0, color="#333", lw=0.6)
        ax.grid(axis="y", alpha=0.3)
        few_ticks(ax.yaxis)
    drawn_set = set(shown)
    for m in first.means.columns:
        if Figure is None or m not in drawn_set:  # no matplotlib, or past the metrics drawn: the tables only
            parts.append(f"<figure><figcaption>{_e(m)}: mean over the users of each group."
                         f"{_group_table(res, m, names, order, base, alpha, digits)}</figcaption></figure>")
            continue
        clear(ax, keep=[zero])
        for i, n in enumerate(names):
            vals = [float(res.groups[n].means.loc[g, m]) for g in order]
            ax.bar(x + (i - (len(names) - 1) / 2) * width, vals, width, label=str(n), color=colors[i])
        ax.set_ylabel(m)
        ax.set_title(f"{m}: mean per user group", fontsize=10, y=1.0)
        # beside the bars, never over them
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.5)
        fit(fig)
        table = _group_table(res, m, names, order, base, alpha, digits)
        parts.append(f"<figure>{_img(fig, f'{m} per user group', Canvas)}<figcaption>{_e(m)}: mean over the "
                     f"users of each group.{table}</figcaption></figure>")
    parts.append("</div>")
    legend = ("▲/▼: significantly better/worse than the baseline " + _e(base) + " within the group (paired "
              f"{_e(_SHORT.get(test, test))}, adjusted p &lt; {alpha:g} over the groups)." if base else "")
    from ..stats.correction import correction_name

    corr = correction_name(info.get("correction", "holm"))
    parts.append(f'<p class="caption">Per-user metrics only (corpus-level ones have one value for all users). '
                 f"{legend} The gap is the highest group mean minus the lowest; \u201cgroups differ?\u201d gives, "
                 f"per recommender, the smallest p of Welch's t-tests between every two groups ({_e(corr)}-adjusted "
                 "per metric) and the two groups it compares.</p>")
    if first.delta_gap is not None:
        cols = list(first.delta_gap.columns)
        head = "".join(f'<th class="num">{_e(n)}: {_e(c)}</th>' for n in names for c in cols)
        body = "".join(f'<tr><td class="l">{_e(g)}</td>'
                       + "".join(f'<td class="num">{_e(_value(res.groups[n].delta_gap.loc[g, c], digits))}</td>'
                                 for n in names for c in cols) + "</tr>" for g in order)
        parts.append('<h3>&Delta;GAP per group</h3><table class="fit"><thead><tr><th class="l">group</th>'
                     f'{head}</tr></thead><tbody>{body}</tbody></table><p class="caption">(GAP<sub>r</sub> &minus; '
                     "GAP<sub>p</sub>) / GAP<sub>p</sub> of Abdollahpouri et al. (2019): the group's mean popularity "
                     "share of the recommended items (arp(pop=share)) against that of the users' training items "
                     "(profile_popularity).</p>")
    return "\n".join(parts)


def _group_table(res: ExperimentResult, m: str, names: Sequence[str], order: Sequence[str], base: str | None,
                 alpha: float, digits: int) -> str:
    """One metric's means per group (rows) and recommender (columns), markers, users without a value, the gap."""
    head = "".join(f'<th class="num">{_d(n)}{" (baseline)" if n == base else ""}</th>' for n in names)
    rows = []
    count = m in getattr(res.groups[names[0]], "counts", ())  # a count: its sum per group, labelled (gap: means)
    sums = {n: res.groups[n].sums for n in names} if count else {}  # (a property made afresh: once, not per cell)
    for g in order:
        cells = []
        for n in names:
            gv = res.groups[n]
            text = _e(_value(sums[n][g][m] if count else gv.means.loc[g, m], digits))
            left = gv.left_out.get(m, {}).get(g, 0)
            if left:
                text += f' <span class="ci">({left} without a value)</span>'
            cells.append(f'<td class="num">{text}{_group_marker(gv, m, g, n, base, alpha)}</td>')
        rows.append(f'<tr><td class="l">{_e(g)}</td>{"".join(cells)}</tr>')
    gaps = "".join(f'<td class="num">{_e(_value(res.groups[n].gap.loc[m, "max_minus_min"], digits))}</td>'
                   for n in names)
    rows.append(f'<tr><td class="l">gap {"of the means " if count else ""}(max &minus; min)</td>{gaps}</tr>')
    between = res.group_info.get("between") or {}
    if between:
        cells = []
        for n in names:
            t = between.get(n)
            t = t[(t["metric"] == m) & t["p_adjusted"].notna()] if t is not None and len(t) else None
            if t is None or t.empty:
                cells.append('<td class="num">n/a</td>')
                continue
            row = t.loc[t["p_adjusted"].idxmin()]
            p = float(row["p_adjusted"])
            cls = ' class="num sig"' if p < alpha else ' class="num"'
            cells.append(f'<td{cls}>{_e(fmt_pvalue(p))}<br><span class="ci">{_e(row["group"])} vs '
                         f'{_e(row["other"])}</span></td>')
        rows.append(f'<tr><td class="l">groups differ? (smallest adjusted p, Welch)</td>{"".join(cells)}</tr>')
    corner = f"group: {_d(m)} (sum)" if count else "group"
    return (f'<table class="fit"><thead><tr><th class="l">{corner}</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _group_marker(gv: Any, metric: str, group: str, name: str, base: str | None, alpha: float) -> str:
    if base is None or name == base or not len(gv.tests):
        return ""
    row = gv.tests[(gv.tests["metric"] == metric) & (gv.tests["group"] == group)]
    if row.empty:
        return ""
    p, diff = float(row["p_adjusted"].iloc[0]), float(row["diff"].iloc[0])
    if not (p < alpha) or diff == 0:
        return ""
    hib = _directions([metric]).get(metric, True)
    return ' <span class="up">▲</span>' if (diff > 0) == hib else ' <span class="down">▼</span>'


# --------------------------------------------------------------------------- page

@plain_figure_text
def to_html(res: ExperimentResult, *, title: str | None = None, k_max: int | None = None, digits: int = 4) -> str:
    """The experiment's report as one self-contained HTML page (see the module docstring).

    ``k_max``: the largest k of the metric@k curves (default: the experiment's k, the
    length of the lists).
    """
    title = title or f"rankmeter experiment: top-{res.k} recommendations ({res.mode})"
    k_max = int(k_max or res.k)
    n_users = next(iter(res.results.values())).n_queries if res.results else 0
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}{_EXTRA_CSS}</style></head><body><main>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="lead">{_e(", ".join(res.results))} on {n_users} test users'
        + (f"; baseline <strong>{_e(_base_text(res.baseline))}</strong>" if res.baseline else "")
        + ". Made with rankmeter.</p>",
    ]
    if res.sampled and "corrected (" in res.mode:
        parts.append(f'<p class="sampled">Sampled evaluation, corrected: {_e(res.mode)}. Each user\'s test items '
                     "are ranked against sampled non-interacted items only; recall@k, ndcg@k and precision@k are "
                     "estimates of their full-ranking values from those sampled ranks (see the notes: which metrics "
                     "were corrected, and the chance that each comparison's order flips under full ranking); the "
                     "other metrics are plain sampled values, higher than with full ranking.</p>")
    elif res.sampled:
        parts.append(f'<p class="sampled">Sampled evaluation: {_e(res.mode)}. Each user\'s test items are ranked '
                     "against sampled non-interacted items only; the scores are higher than with full ranking and "
                     "are not comparable with it.</p>")
    else:
        parts.append(f'<p class="lead">Mode: {_e(res.mode)} (every recommendable item is a candidate).</p>')
    parts += [_summary(res), _means(res, digits), _tests(res, digits), _notes(res), _checks(res)]
    try:
        Figure, Canvas = _mpl()
    except MissingExtraError:
        parts.append('<p class="caption">No figures: matplotlib is not installed '
                     "(pip install 'rankmeter[report]').</p>")
        parts.append(_groups(res, digits, None, None))
    else:
        parts.append(_curves(res, k_max, Figure, Canvas))
        cmp = res.comparison
        pool: dict[str, Any] = {}  # the figures redrawn from metric to metric
        shown, left_out = drawn(cmp.metrics) if cmp is not None else ([], "")
        some = f'<p class="caption">{_e(left_out)}</p>' if left_out else ""
        if cmp is not None and len(cmp.runs) > 1:
            parts.append(f"<h2>Per-user differences against {_e(cmp.baseline)}</h2>{some}")
            for m in shown:
                parts.append(f"<h3>{_e(m)}</h3>" + _differences(res, m, Figure, Canvas, pool))
        parts.append(_groups(res, digits, Figure, Canvas))
        if cmp is not None:
            parts.append(f'<h2>Distributions of per-user scores</h2>{some}<div class="figs">')
            parts += [_distribution(res, m, Figure, Canvas, pool) for m in shown]
            parts.append("</div>")
    from .html import provenance_html

    parts += [_settings(res), _timings(res), provenance_html(getattr(res, "provenance", None)), "</main></body></html>"]
    return "\n".join(p for p in parts if p) + "\n"


@plain_figure_text
def repeated_to_html(res: Any, *, title: str | None = None, digits: int = 4) -> str:
    """The report of a repeated protocol (:class:`rankmeter.recsys.repeated.RepeatedResult`): the protocol,
    the mean ± sd table with the corrected intervals, the per-split points with their mean (a figure per
    per-user metric), the corrected resampled t-tests, the tuning, the notes and every split's means."""
    title = title or f"rankmeter experiment: top-{res.k}, {res.mode}, {len(res.folds)} splits"
    names = list(res.folds[0].results)
    across = res.across
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{_e(title)}</title><style>{_CSS}{_EXTRA_CSS}</style></head><body><main>",
             f"<h1>{_e(title)}</h1>",
             f'<p class="lead">{_e(", ".join(names))}; {_e(res.design.description)}; baseline '
             f"<strong>{_e(_base_text(res.baseline))}</strong>. Made with rankmeter.</p>"]
    head = "".join(f'<th class="num">{_d(n)}</th>' for n in names)
    rows = []
    first_row = {(r.model, r.metric): r for r in across.drop_duplicates(["model", "metric"]).itertuples()}
    for m in res.metrics:
        cells = []
        for n in names:
            r = first_row[(n, m)]
            cells.append(f'<td class="num">{_e(res.cell(n, m, digits) + res.marker(m, n))}<br><span class=ci>'
                         f"[{fmt(r.ci_low, digits)}, {fmt(r.ci_high, digits)}]</span></td>")
        rows.append(f"<tr><td>{_d(m)}</td>{''.join(cells)}</tr>")
    parts.append(f"<h2>Mean ± sd across splits</h2><table><thead><tr><th>metric</th>{head}</tr></thead><tbody>"
                 f"{''.join(rows)}</tbody></table><p class=caption>{_e(res.caption())}; in brackets the corrected "
                 f"95% interval mean ± t(0.975, J-1) sd sqrt(1/J + rho), rho = {res.design.rho:.4g}.</p>")
    if res.tests:
        trs = "".join(f"<tr><td>{_d(t['metric'])}</td><td>{_d(t['model'])}</td><td>{_d(t['baseline'])}</td>"
                      f"<td class=num>{fmt_signed(t['diff'], digits)}</td><td class=num>{fmt(t['statistic'], 3)}</td>"
                      f"<td class=num>{fmt(t['p_value'], 4)}</td><td class=num>{fmt(t['p_adjusted'], 4)}</td>"
                      f"<td>{'yes' if t['significant'] else 'no'}</td></tr>" for t in res.tests)
        parts.append("<h2>Tests across splits</h2><p class=caption>Corrected resampled t-test (Nadeau and Bengio "
                     "2003; Bouckaert and Frank 2004 for k-fold) on the per-split differences of the means "
                     f"(model minus baseline), {len(res.folds) - 1} degrees of freedom, "
                     f"{_e(res.tests[0]['correction'])}"
                     ". Within each split the paired tests over users are in the per-split sections of results.json."
                     "</p><table><thead><tr><th>metric</th><th>model</th><th>baseline</th><th class=num>difference</th>"
                     "<th class=num>t</th><th class=num>p</th><th class=num>adjusted p</th><th>significant</th></tr>"
                     f"</thead><tbody>{trs}</tbody></table>")
    for label, f in zip(res.labels, res.folds, strict=True):
        tuned = _tuning(f)
        if tuned:
            parts.append(f"<h2>Tuning, {_e(label)}</h2>" + tuned)
    per = res.per_fold
    try:
        Figure, Canvas = _mpl()
    except MissingExtraError:
        parts.append('<p class="caption">No figures: matplotlib is not installed '
                     "(pip install 'rankmeter[report]').</p>")
    else:
        colors = _colors(len(names))
        figs = []
        fig = new_figure(Figure, Canvas, (4.2, 2.6))  # one figure, redrawn for each metric (report._layout)
        ax = fig.add_subplot(1, 1, 1)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([str(n) for n in names], fontsize=7, rotation=20)
        few_ticks(ax.yaxis)
        shown, left_out = drawn(res.metrics)
        values = {key: v.to_numpy(dtype=float) for key, v in per.groupby(["model", "metric"], sort=False).value}
        for m in shown:
            clear(ax)
            for i, n in enumerate(names):
                v = values.get((n, m), np.zeros(0))
                ax.scatter(np.full(len(v), i) + np.linspace(-0.15, 0.15, len(v)), v, s=12, color=colors[i], alpha=0.7)
                if np.isfinite(v).any():
                    ax.hlines(np.nanmean(v), i - 0.3, i + 0.3, color="black", lw=2)
            ax.set_title(str(m), fontsize=9, y=1.0)
            fit(fig)
            figs.append(f"<figure>{_img(fig, f'{m} per split', Canvas)}</figure>")
        parts.append("<h2>Per-split values</h2><p class=caption>One point per split; the black bar is the mean over "
                     f"the splits.{' ' + _e(left_out) if left_out else ''}</p><div class=figs>{''.join(figs)}</div>")
    table = per.pivot_table(index=["fold", "model"], columns="metric", values="value", sort=False)
    fold_rows = "".join(f"<tr><td>{_d(fold)}</td><td>{_d(model)}</td>"
                   + "".join(f"<td class=num>{fmt(table.loc[(fold, model), m], digits)}</td>" for m in res.metrics)
                   + "</tr>" for fold, model in table.index)
    parts.append("<h2>Every split's means</h2><table><thead><tr><th>split</th><th>model</th>"
                 + "".join(f"<th class=num>{_d(m)}</th>" for m in res.metrics)
                 + f"</tr></thead><tbody>{fold_rows}</tbody></table>")
    notes = list(res.notes) + [f"{label}: {n}" for label, f in zip(res.labels, res.folds, strict=True)
                               for n in f.notes]
    parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>")
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"
