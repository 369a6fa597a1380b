"""A report draws per-metric figures for the first ``FIGURE_METRICS`` metrics only, says so, and keeps every
metric in its tables (thousands of ``-m`` options drew thousands of figures: minutes; issue 32 item 5)."""

from __future__ import annotations

import numpy as np
import pytest

import rankmeter as rm
from rankmeter.report._common import FIGURE_METRICS
from rankmeter.result import Result

pytest.importorskip("matplotlib")


def test_compare_report_draws_the_first_metrics_and_tables_every_one() -> None:
    rng = np.random.default_rng(0)
    queries = [f"q{i}" for i in range(6)]
    metrics = [f"m{i}" for i in range(FIGURE_METRICS + 3)]
    runs = {r: Result(queries=queries, values={m: rng.random(len(queries)) for m in metrics}) for r in ("a", "b")}
    html = rm.compare(None, runs, metrics, n_resamples=50, seed=0).to_html(k_max=3)
    assert html.count('alt="distribution of ') == FIGURE_METRICS
    assert html.count('alt="per-query differences on ') == FIGURE_METRICS
    assert html.count(f"Figures for the first {FIGURE_METRICS} of {len(metrics)} metrics") == 2
    assert all(f">{m} " in html or f">{m}<" in html for m in metrics)  # every metric in the tables
    few = rm.compare(None, {r: Result(queries=queries, values={m: v.values[m] for m in metrics[:3]})
                            for r, v in runs.items()}, metrics[:3], n_resamples=50, seed=0).to_html(k_max=3)
    assert "Figures for the first" not in few and few.count('alt="distribution of ') == 3
