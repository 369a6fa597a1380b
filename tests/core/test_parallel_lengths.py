"""Parallel inputs of different lengths get a clear error, never a silent truncation (issue 33).

Every ``zip()`` over parallel sequences in src/rankmeter is ``strict=True`` (ruff B905); where
the sequences come from the user, the edge checks the lengths first and says what it found.
"""

from __future__ import annotations

import pytest

import rankmeter
from rankmeter import ParameterError
from rankmeter.metrics.batch import Batch


def test_batch_from_lists_one_judgment_mapping_per_ranking() -> None:
    with pytest.raises(ParameterError, match="one judgment mapping per ranking. Got 2 rankings and 1 judgment"):
        Batch.from_lists([["a", "b"], ["c"]], [{"a": 1}])


def test_batch_from_lists_one_score_list_per_ranking() -> None:
    with pytest.raises(ParameterError, match="one score list per ranking. Got 2 rankings and 1 score lists"):
        Batch.from_lists([["a", "b"], ["c"]], [{"a": 1}, {"c": 1}], scores=[[1.0, 0.5]])


def test_batch_from_lists_one_score_per_ranked_item() -> None:
    with pytest.raises(ParameterError, match="Ranking 1 has 1 items and 2 scores"):
        Batch.from_lists([["a", "b"], ["c"]], [{"a": 1}, {"c": 1}], scores=[[1.0, 0.5], [2.0, 1.0]])


def test_batch_from_lists_equal_lengths_still_build() -> None:
    b = Batch.from_lists([["a", "b"], ["c"]], [{"a": 1}, {"c": 2}], scores=[[1.0, 0.5], [2.0]])
    assert b.offsets.tolist() == [0, 2, 3]
    assert b.score.tolist() == [1.0, 0.5, 2.0]


@pytest.mark.parametrize("ids, values", [(["a", "b", "c"], [[1, 0], [0, 1]]), (["a", "b"], [[1, 0], [0, 1], [1, 1]])])
def test_context_ids_and_values_of_different_lengths(ids: list[str], values: list[list[int]]) -> None:
    # an (ids, values) pair whose two sides differ: the error names both lengths
    with pytest.raises(ParameterError, match=r"one vector per item: \d ids, values of shape"):
        rankmeter.evaluate({"u": ["a"]}, {"u": ["a", "b"]}, ["ild@2"], context={"features": (ids, values)})
