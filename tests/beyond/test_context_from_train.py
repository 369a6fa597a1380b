"""Issue 24 item 15: context_from_train builds everything derivable, so the profile metrics work from it alone."""

from __future__ import annotations

from typing import Any

import pytest

import rankmeter
from rankmeter.beyond import CONTEXT_KEYS, context_from_train
from rankmeter.io.loaders import as_qrels
from rankmeter.metrics.beyond import train_items

TRAIN = {"user": ["u1", "u1", "u1", "u2", "u2", "u3", "u3", "u4", "u1"],
         "item": ["a", "b", "c", "a", "d", "a", "b", "a", "a"]}  # u1-a twice: one pair
TEST = {"user": ["u1", "u2", "u3", "u4"], "item": ["d", "b", "e", "c"]}
CATS = {"a": {"x"}, "b": {"y"}, "c": {"x", "y"}, "d": {"z"}, "e": {"z"}}
RUN = {"u1": ["d", "e", "b"], "u2": ["b", "c", "e"], "u3": ["e", "a", "d"], "u4": ["c", "d", "a"]}
QRELS = {u: [i] for u, i in zip(TEST["user"], TEST["item"], strict=True)}
METRICS = ["pop_lift@3", "miscalibration@3", "pop_rsp@3", "pop_reo@3", "exposure_gap(target=relevant)@3"]


def _pairs(p: tuple[Any, Any]) -> list[tuple[str, str]]:
    return list(zip(p[0].to_pylist(), p[1].to_pylist(), strict=True))


def test_profiles_built() -> None:
    ctx = context_from_train(TRAIN, test=TEST, categories=CATS)
    assert _pairs(ctx["train_items"]) == [("u1", "a"), ("u1", "b"), ("u1", "c"), ("u2", "a"), ("u2", "d"),
                                          ("u3", "a"), ("u3", "b"), ("u4", "a")]
    assert _pairs(ctx["test_items"]) == [("u1", "d"), ("u2", "b"), ("u3", "e"), ("u4", "c")]
    assert {"train_items", "test_items"} <= set(CONTEXT_KEYS)
    assert "test_items" not in context_from_train(TRAIN)  # nothing to build it from


def test_profile_metrics_work_from_it_alone_and_agree_with_the_manual_merge() -> None:
    ctx = context_from_train(TRAIN, test=TEST, categories=CATS)
    got = rankmeter.evaluate(QRELS, RUN, METRICS, context=ctx).mean
    manual = dict(context_from_train(TRAIN, categories=CATS), all_items=ctx["all_items"],
                  train_items=train_items(TRAIN), test_items=train_items(TEST))
    want = rankmeter.evaluate(QRELS, RUN, METRICS, context=manual).mean
    assert got == pytest.approx(want, nan_ok=True)
    assert got["pop_lift@3"] == pytest.approx(want["pop_lift@3"]) and got["miscalibration@3"] > 0


def test_judged_test_keeps_relevant_items_only() -> None:
    test = as_qrels({"u1": {"d": 1, "a": 0}, "u2": {"b": 2}})
    ctx = context_from_train(TRAIN, test=test)
    assert _pairs(ctx["test_items"]) == [("u1", "d"), ("u2", "b")]
    assert sorted(ctx["all_items"].to_pylist()) == ["a", "b", "c", "d"]
