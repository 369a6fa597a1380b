"""Every worked example of the beyond-accuracy metrics (declared in the registry) is a test."""

from __future__ import annotations

import pytest

import rankmeter
from rankmeter.metrics.beyond._context import ContextExample
from rankmeter.metrics.registry import all_specs

BEYOND = [s for s in all_specs() if s.family == "beyond"]
CASES = [
    pytest.param(spec, ex, id=f"{ex.metric}-{i}")
    for spec in BEYOND
    for i, ex in enumerate(spec.examples)
    if isinstance(ex, ContextExample)
]


@pytest.mark.parametrize("spec,ex", CASES)
def test_worked_example(spec, ex: ContextExample) -> None:
    assert rankmeter.parse_metric(ex.metric).spec is spec
    res = rankmeter.evaluate(dict(ex.qrels), dict(ex.rankings), [ex.metric], context=ex.context,
                             queries=ex.queries)
    assert res.mean[ex.metric] == pytest.approx(ex.value, abs=ex.tol), f"{ex.metric}: {ex.note}"


def test_every_beyond_metric_has_examples() -> None:
    names = {s.name for s in BEYOND}
    assert names == {"novelty", "arp", "ild", "serendipity", "catalog_coverage", "user_coverage",
                     "personalization", "gini", "entropy", "aplt", "aclt", "pop_lift", "pop_rsp", "pop_reo",
                     "miscalibration", "exposure_share", "exposure_gap", "profile_popularity", "ils"}
    for s in BEYOND:
        assert len([e for e in s.examples if isinstance(e, ContextExample)]) >= 2, s.name
        assert "beyond" in s.properties
        assert s.input == "ranking"
        assert s.formula and s.citation and s.convention
