"""Bad input to rankmeter.torch gets one clear error: what was expected, what was found, where."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

import rankmeter.torch as rmt  # noqa: E402
from rankmeter._errors import InputError, ParameterError  # noqa: E402

S = torch.tensor([[0.9, 0.5, 0.1], [0.2, 0.8, 0.4]])
R = torch.tensor([[1, 0, 0], [0, 1, 0]])


@pytest.mark.parametrize("kwargs,error,words", [
    (dict(relevant=torch.ones((2, 4))), InputError, "relevant has shape (2, 4) but scores have shape (2, 3)"),
    (dict(exclude=torch.zeros((3, 3), dtype=torch.bool)), InputError, "exclude has shape (3, 3)"),
    (dict(exclude=torch.zeros((2, 3))), InputError, "a dense exclude must be a boolean mask"),
    (dict(item_ids=["a", "b"]), InputError, "item_ids has 2 ids for the 3 columns of scores"),
    (dict(item_ids=["a", "b", "a"]), InputError, "item_ids lists 'a' more than once"),
    (dict(item_ids=[1, 2, 3]), ParameterError, "must hold text ids (str)"),
    (dict(user_ids=["u"]), InputError, "user_ids has 1 ids for the 2 rows of scores"),
    (dict(scores=torch.tensor([[0.9, float("nan"), 0.1], [float("nan"), 0.8, 0.4]])), InputError,
     "scores hold 2 NaN values in cells that are not excluded"),
    (dict(scores=torch.tensor([[0.9, float("inf"), 0.1], [0.2, 0.8, 0.4]])), InputError, "infinite values"),
    (dict(scores=torch.tensor([[1, 2, 3], [4, 5, 6]])), InputError, "scores must be a floating tensor"),
    (dict(scores=torch.ones(3)), InputError, "scores must be a 2-D tensor"),
    (dict(scores=[[0.1, 0.2, 0.3]]), ParameterError, "must be a torch.Tensor"),
    (dict(metrics=["bpref"]), ParameterError, "metric 'bpref' is not available in rankmeter.torch.evaluate"),
    (dict(metrics=["ndcg@x"]), ParameterError, "The 'k' parameter of ndcg"),
    (dict(metrics=["arp@2"]), Exception, "popularity"),
    (dict(metrics=["catalog_coverage@2"]), Exception, "context['catalog']"),
    (dict(ties="mean"), ParameterError, "The 'ties' parameter of rankmeter.torch.evaluate must be one of"),
    (dict(metrics=["auc@2"], ties="average"), ParameterError, "auc"),
    (dict(selection="fast"), ParameterError, "The 'selection' parameter"),
    (dict(selection="key", scores=S.double()), ParameterError, "needs scores of at most 32 bits"),
    (dict(relevant=(torch.tensor([0, 5]), torch.tensor([0, 1]))), InputError, "outside the 2 x 3 score matrix"),
    (dict(relevant=(torch.tensor([0, 0]), torch.tensor([1, 1]))), InputError, "judges 1 cells more than once"),
    (dict(relevant=[[0]]), InputError, "relevant has 1 per-user entries for the 2 rows"),
    (dict(relevant=torch.tensor([[float("nan"), 0, 0], [0, 1, 0]])), InputError, "not finite"),
    (dict(exclude="all"), ParameterError, "The 'exclude' parameter must be"),
])
def test_clear_errors(kwargs: dict[str, Any], error: type[Exception], words: str) -> None:
    args = dict(scores=S, relevant=R, metrics=["ndcg@2"])
    args.update(kwargs)
    scores, relevant, metrics = args.pop("scores"), args.pop("relevant"), args.pop("metrics")
    with pytest.raises(error) as exc:
        rmt.evaluate(scores, relevant, metrics, **args)
    assert words in str(exc.value)


def test_nan_in_an_excluded_cell_is_fine() -> None:
    scores = torch.tensor([[0.9, float("nan"), 0.1]])
    r = rmt.evaluate(scores, torch.tensor([[1, 0, 0]]), ["P@1"], exclude=torch.tensor([[False, True, False]]))
    assert r.values["P@1"].tolist() == [1.0]


def test_two_devices() -> None:
    meta = torch.zeros((2, 3), dtype=torch.bool, device="meta")
    with pytest.raises(InputError, match="exclude is on meta while scores are on cpu"):
        rmt.evaluate(S, R, ["P@1"], exclude=meta)
    with pytest.raises(InputError, match="relevant is on meta while scores are on cpu"):
        rmt.evaluate(S, R.to("meta"), ["P@1"])
    with pytest.raises(InputError, match="item_emb is on meta while user_emb are on cpu"):
        rmt.topk(S, S.to("meta"), 1)


def test_evaluator_errors() -> None:
    ev = rmt.Evaluator(["P@1"])
    with pytest.raises(ParameterError, match="no batch was given"):
        ev.compute()
    ev.update(S, R)
    with pytest.raises(InputError, match="scores have 2 columns, earlier batches had 3"):
        ev.update(S[:, :2], R[:, :2])
    with pytest.raises(ParameterError, match="give user_ids for every batch or for none"):
        ev.update(S, R, user_ids=["a", "b"])
    ev2 = rmt.Evaluator(["P@1"])
    ev2.update(S, R, user_ids=["a", "b"])
    ev2.update(S, R, user_ids=["c", "a"])
    with pytest.raises(InputError, match="user id 'a' is given for two rows"):
        ev2.compute()


def test_topk_errors() -> None:
    u, i = torch.ones((2, 4)), torch.ones((3, 4))
    with pytest.raises(InputError, match="user_emb has 4 dimensions and item_emb 3"):
        rmt.topk(u, torch.ones((3, 3)), 2)
    with pytest.raises(ParameterError, match="The 'k' parameter of rankmeter.torch.topk must be an int >= 1"):
        rmt.topk(u, i, 0)
    with pytest.raises(ParameterError, match="'similarity' parameter"):
        rmt.topk(u, i, 1, similarity="l2")
    with pytest.raises(InputError, match="give both one dtype"):
        rmt.topk(u, i.double(), 1)
    with pytest.raises(InputError, match="not finite"):
        rmt.topk(torch.full((2, 4), float("nan")), i, 1)


def test_missing_context_fails_at_the_first_update() -> None:
    ev = rmt.Evaluator(["catalog_coverage@2"])
    with pytest.raises(ParameterError, match=r"context\['catalog'\]"):
        ev.update(S, R)


@pytest.mark.parametrize("selection", ["key", "margin"])
def test_minus_infinity_in_a_top_k_is_refused_unless_hidden(selection: str) -> None:
    scores = torch.tensor([[0.9, float("-inf"), 0.1], [0.2, 0.8, 0.4]])
    with pytest.raises(InputError, match="scores hold 1 infinite values among the selected top 3"):
        rmt.evaluate(scores, R, ["P@3"], selection=selection)
    hidden = rmt.evaluate(scores, R, ["P@3"], exclude=[[1], []], selection=selection)
    assert hidden.values["P@3"].tolist() == [1 / 3, 1 / 3]
    below = rmt.evaluate(scores, R, ["P@1"], selection=selection)  # below the top k + 1: never ranked
    assert below.values["P@1"].tolist() == [1.0, 1.0]


def test_numpy_matrices_are_dense_grades_and_masks() -> None:
    import numpy as np

    got = rmt.evaluate(S, R.numpy(), ["ndcg@2", "P@1"], exclude=np.array([[False, False, False], [False, True, False]]))
    want = rmt.evaluate(S, R, ["ndcg@2", "P@1"], exclude=torch.tensor([[False, False, False], [False, True, False]]))
    assert got.queries == want.queries and all((got.values[m] == want.values[m]).all() for m in want.values)
    assert got.queries == ["0"] and got.values["P@1"].tolist() == [1.0]  # user 1: its relevant item is hidden
