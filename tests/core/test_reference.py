"""Property tests: every ranking kernel equals its slow reference on random data.

Random judgments and runs have score ties, graded and negative grades, unjudged
items, and queries missing from either side.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.metrics.registry import all_specs

from ..invariance.harness_ranking import close, kernel_values, param_cases, reference_values
from ..strategies import qrels_and_run

SPECS = [s for s in all_specs() if s.input == "ranking" and s.level == "query" and s.reference is not None
         and "needs_context" not in s.properties]
CASES = [pytest.param(s, p, id=f"{s.name}{p or ''}") for s in SPECS for p in param_cases(s)]


@pytest.mark.parametrize("spec,params", CASES)
@settings(max_examples=60)
@given(data=qrels_and_run(), k=st.sampled_from([None, 1, 3, 20]))
def test_kernel_equals_reference(spec, params, data, k) -> None:
    qrels, run = data
    got = kernel_values(spec, params, k if spec.cutoff else None, qrels, run)
    want = reference_values(spec, params, k if spec.cutoff else None, qrels, run)
    assert set(got) == set(want)
    for q in want:
        assert close(got[q], want[q]), f"{spec.name}{params}@{k} query {q}: kernel {got[q]} != reference {want[q]}"


@settings(max_examples=30)
@given(data=qrels_and_run(float_grades=True))
def test_float_grades(data) -> None:
    for s in SPECS:
        for p in param_cases(s):
            qrels, run = data
            got = kernel_values(s, p, 5 if s.cutoff else None, qrels, run)
            want = reference_values(s, p, 5 if s.cutoff else None, qrels, run)
            for q in want:
                assert close(got[q], want[q]), f"{s.name}{p} query {q}: {got[q]} != {want[q]}"
