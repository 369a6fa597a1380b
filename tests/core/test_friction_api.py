"""Issue 24 item 18, the Python API: comma lists of metrics, and an evaluation of nothing is never a silent nan."""

from __future__ import annotations

import math
from typing import Any

import pytest

import rankmeter

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
RUN = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"b": 1.0, "c": 0.5}}


def test_comma_list_accepted_as_on_the_command_line() -> None:
    got = rankmeter.evaluate(QRELS, RUN, "ndcg@10,map").mean
    want = rankmeter.evaluate(QRELS, RUN, ["ndcg@10", "map"]).mean
    assert got == want and list(got) == ["ndcg@10", "map"]
    got = rankmeter.evaluate(QRELS, RUN, ["P.1,2", "f(beta=2,rel=1)@2"]).mean
    assert list(got) == ["P_1", "P_2", "f(beta=2,rel=1)@2"]


def test_empty_judgments_say_why_the_mean_is_nan() -> None:
    r = rankmeter.evaluate({}, {}, ["map"])
    assert math.isnan(r.mean["map"])
    assert "no query was evaluated (the judgments are empty): every per-query metric's mean is undefined (nan)" \
        in r.notes


@pytest.mark.parametrize("qrels,run", [({}, {"q": {"a": 1.0}}), ({"q": {"a": 0}}, {"q": {"a": 1.0}})])
def test_no_query_counts_says_why(qrels: dict[str, Any], run: dict[str, Any]) -> None:
    r = rankmeter.evaluate(qrels, run, ["map"])
    assert any(n.startswith("no query was evaluated (no query counts under queries='judged')") for n in r.notes)


def test_an_evaluation_with_queries_has_no_such_note() -> None:
    assert not any("no query was evaluated" in n for n in rankmeter.evaluate(QRELS, RUN, ["map"]).notes)
