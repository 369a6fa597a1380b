"""Shared wording and formatting for every report format."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..compare import Comparison

UP, DOWN = "▲", "▼"

#: the most metrics a report draws a figure for, section by section. Every metric stays in the report's
#: tables; thousands of ``-m`` options would otherwise draw thousands of figures (minutes of work).
FIGURE_METRICS = 20


def drawn(metrics: Sequence[str], limit: int = FIGURE_METRICS) -> tuple[list[str], str]:
    """The metrics a report draws figures for (the first ``limit``) and the sentence that says so when some are
    left out (else ``""``).

    >>> drawn(["a", "b", "c"], limit=2)
    (['a', 'b'], 'Figures for the first 2 of 3 metrics; the tables hold every metric.')
    >>> drawn(["a"])
    (['a'], '')
    """
    metrics = list(metrics)
    if len(metrics) <= limit:
        return metrics, ""
    return metrics[:limit], f"Figures for the first {limit} of {len(metrics)} metrics; the tables hold every metric."


def fmt(v: float, digits: int = 4) -> str:
    """A number with ``digits`` decimals; infinities spelled out."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    out = f"{v:.{digits}f}"
    return "0." + "0" * digits if out == "-0." + "0" * digits else out


def fmt_signed(v: float, digits: int = 4) -> str:
    s = fmt(v, digits)
    return s if s.startswith("-") or s in ("n/a", "inf") else "+" + s


def fmt_p(p: float) -> str:
    """p-values: three decimals, or scientific below 0.001."""
    if p is None or math.isnan(p):
        return "n/a"
    if p == 0:
        return "0"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def test_label(key: str) -> str:
    from ..stats.tests import TEST_NAMES

    return TEST_NAMES.get(key, key)


def is_count(cmp: "Comparison", metric: str) -> bool:
    """Whether ``metric`` is a count (``num_ret``, ``num_rel_ret``...: the registry's ``count=True``)."""
    return metric in getattr(cmp, "counts", ())


def mean_label(cmp: "Comparison", metric: str) -> str:
    """A metric's name over its aggregate in a means table: ``num_ret (sum)`` for a count."""
    return f"{metric} (sum)" if is_count(cmp, metric) else metric


def diff_metric_label(cmp: "Comparison", metric: str) -> str:
    """A metric's name in a tests table: ``num_ret (mean)`` for a count, whose difference is of the per-query
    means (as every test's), not of the sums the means table shows."""
    return f"{metric} (mean)" if is_count(cmp, metric) else metric


def aggregate_cells(cmp: "Comparison", run: str, metric: str, digits: int = 4) -> tuple[str, str, str]:
    """``(value, low, high)`` as a means table shows them: the mean and its interval, or for a count its sum (an
    integer, as trec_eval's ``all`` line) and the sum's interval rounded outward to whole counts.

    >>> from rankmeter.compare import compare
    >>> c = compare({"q1": ["a"], "q2": ["b"]}, {"A": {"q1": ["a", "x"], "q2": ["b"]}, "B": {"q1": ["a"], "q2": []}},
    ...             ["num_ret", "rr"], n_resamples=50)
    >>> aggregate_cells(c, "A", "num_ret"), aggregate_cells(c, "A", "rr")
    (('3', '2', '4'), ('1.0000', '1.0000', '1.0000'))
    """
    if is_count(cmp, metric):
        lo, hi = cmp.sum_interval(run, metric)
        whole = [str(math.floor(lo + 1e-9)) if math.isfinite(lo) else fmt(lo, digits),
                 str(math.ceil(hi - 1e-9)) if math.isfinite(hi) else fmt(hi, digits)]
        return str(cmp.sums[run][metric]), whole[0], whole[1]
    lo, hi = cmp.intervals[run][metric]
    return fmt(cmp.means[run][metric], digits), fmt(lo, digits), fmt(hi, digits)


def counts_text(cmp: "Comparison") -> str | None:
    """What a reader of a table with counts must know: how they are aggregated and what their tests compare."""
    counts = [m for m in cmp.metrics if is_count(cmp, m)]
    if not counts:
        return None
    return (f"Counts ({', '.join(counts)}) are shown by their sum over the {cmp.units} (sum), as trec_eval does, "
            "with the interval rounded outward to whole counts; their tests compare the per-query means (mean), "
            "as for every metric")


def marker(cmp: "Comparison", metric: str, run: str) -> str | None:
    """``"up"`` / ``"down"`` if ``run`` is significantly better / worse than the baseline on ``metric``."""
    t = cmp.against_baseline(metric, run)
    if t is None or not t.significant or t.better is None:
        return None
    return "up" if t.better == run else "down"


def only_tukey(cmp: "Comparison") -> bool:
    """True when every test is the randomised Tukey HSD (familywise p-values, never corrected again)."""
    return all(t == "tukey-hsd" for t in cmp.settings.tests)


def adjusted_name(cmp: "Comparison") -> str:
    """The adjusted p-value's label: the correction's name, or "familywise" for Tukey HSD alone."""
    from ..stats.correction import correction_name

    return "familywise" if only_tukey(cmp) else correction_name(cmp.settings.correction)


def legend(cmp: "Comparison", up: str = UP, down: str = DOWN) -> str:
    """What the markers mean."""
    from ..stats.correction import correction_name

    s = cmp.settings
    corr = correction_name(s.correction)
    adj = "p" if s.correction == "none" else f"{corr}-adjusted p"
    if s.tests[0] == "tukey-hsd":
        adj = "familywise p"
    return (f"{up}/{down}: significantly better/worse than {cmp.baseline} "
            f"({test_label(s.tests[0])}, {adj} < {s.alpha:g})")


def family_text(cmp: "Comparison") -> str:

    s = cmp.settings
    tukey = "Tukey HSD p-values familywise over all pairs of runs within each metric (not corrected again)"
    if only_tukey(cmp):
        return tukey
    text = _family_text(cmp)
    return f"{text}; {tukey}" if "tukey-hsd" in s.tests else text


def _family_text(cmp: "Comparison") -> str:
    from ..stats.correction import correction_name

    s = cmp.settings
    n_pairs = len({(t.a, t.b) for t in cmp.tests})
    size = s.family_size(n_pairs, len(cmp.metrics) - len(getattr(cmp, "aliases", {})))  # an alias: no new test
    if s.correction == "none":
        return "no multiple-testing correction"
    plural = "comparison" if size == 1 else "comparisons"
    if s.family == "metric":
        return f"{correction_name(s.correction)} correction within each metric and test ({size} {plural} each)"
    return f"{correction_name(s.correction)} correction over all metrics ({size} {plural} per test)"


def describe(cmp: "Comparison") -> str:
    """The settings in one paragraph."""
    s = cmp.settings
    tests = ", ".join(test_label(t) for t in s.tests)
    against = f"each run against {s.baseline}" if s.pairs == "baseline" else "every pair of runs"
    parts = [
        f"{len(cmp.runs)} runs on {cmp.n_queries} {cmp.units} ({_queries_text(s.queries)}).",
        f"Two-sided paired tests ({tests}) of {against}; {family_text(cmp)};"
        f" significant when the adjusted p < {s.alpha:g}.",
        f"Intervals: {s.confidence * 100:g}% {'BCa' if s.interval == 'bca' else 'percentile'} bootstrap, "
        f"{s.n_resamples:,} resamples of the {cmp.units} (seed {s.seed}).",
    ]
    if s.randomization:
        seed = f", seed {s.seed}"
        parts.append(f"Randomisation test: {s.randomization}{seed}, p = (count + 1) / (B + 1)."
                     if not s.randomization.startswith("exact") else
                     f"Randomisation test: {s.randomization}, p = count / 2^n.")
    if len(s.tests) > 1:
        parts.append(f"Markers use the {test_label(s.tests[0])}.")
    return " ".join(parts)


def _queries_text(policy: str) -> str:
    return {
        "judged": "every judged query with a relevant item; a query missing from a run scores 0 there",
        "qrels": "every judged query; a query missing from a run scores 0 there",
        "common": "judged queries present in every run",
        "results": "the rows common to every precomputed result",
        "given": "the given query list",
    }.get(policy, policy)


def missing_text(cmp: "Comparison") -> str | None:
    parts = [f"{r}: {n}" for r, n in cmp.missing.items() if n]
    if not parts:
        return None
    return "Queries without a ranking (scored as empty): " + ", ".join(parts) + "."


def no_value_text(cmp: "Comparison") -> str | None:
    """The counts of per-query values missing (nan) per metric and run, or None when every value is there.

    Those queries are left out of the run's mean and of the paired tests of the metric (their
    ``n`` is in the tests table).
    """
    nv = getattr(cmp, "no_value", None) or {}
    if not nv:
        return None
    parts = [f"{m}: " + ", ".join(f"{r} {n}" for r, n in per.items()) for m, per in nv.items()]
    return (f"{cmp.units.capitalize()} without a value (nan), left out of the means and of the paired tests "
            f"(n: the {cmp.units} tested): " + "; ".join(parts) + ".")


def show_n(cmp: "Comparison") -> bool:
    """Whether the tests tables need an ``n`` column: some test uses fewer than every compared query."""
    return any(t.n != cmp.n_queries for t in cmp.tests)
