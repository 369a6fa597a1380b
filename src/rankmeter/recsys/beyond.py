"""The context that beyond-accuracy metrics read, built from training interactions.

>>> import rankmeter
>>> from rankmeter.beyond import context_from_train
>>> train = {"user": ["u1", "u1", "u2", "u3"], "item": ["a", "b", "a", "a"]}
>>> ctx = context_from_train(train, categories={"a": {"x"}, "b": {"y"}, "c": {"x"}})
>>> ctx["n_users"], ctx["catalog"].to_pylist(), ctx["popularity"][1].tolist()
(3, ['a', 'b'], [1.0, 0.3333333333333333])
>>> r = rankmeter.evaluate({"u2": ["b"]}, {"u2": ["b", "c"]},
...                        ["novelty(cold=one)@2", "catalog_coverage@2", "ild(distance=jaccard)@2"], context=ctx)
>>> {m: round(v, 4) for m, v in r.mean.items()}  # novelty: (log2 3 + log2 3) / 2 (c is cold: 1 user of 3)
{'novelty(cold=one)@2': 1.585, 'catalog_coverage@2': 0.5, 'ild(distance=jaccard)@2': 1.0}
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from ..data import Qrels
from ..data.ids import as_string_array, encode, union_vocab
from ..metrics.beyond import train_items

__all__ = ["context_from_train", "user_item_ids", "CONTEXT_KEYS"]

CONTEXT_KEYS = ("popularity", "popularity_interactions", "n_users", "n_interactions", "catalog", "all_items",
                "features", "categories", "train_items", "test_items")


def user_item_ids(data: Any, user: str | None = None, item: str | None = None) -> tuple[pa.Array, pa.Array]:
    """User and item id columns (as text) of any interaction input, or of a Qrels."""
    if isinstance(data, Qrels):
        return data.query_ids.take(pa.array(data.row_queries())), data.item_ids.take(pa.array(data.items))
    from ..io.interactions import read_interactions

    inter = read_interactions(data, user=user, item=item, rating=False, timestamp=False)
    return as_string_array(inter.table.column(inter.user)), as_string_array(inter.table.column(inter.item))


def context_from_train(
    train: Any,
    *,
    item_features: Any = None,
    categories: Mapping[Any, Iterable[Any]] | None = None,
    catalog: Iterable[Any] | None = None,
    test: Any = None,
    user: str | None = None,
    item: str | None = None,
) -> dict[str, Any]:
    """The evaluation context of the beyond-accuracy metrics, from the training interactions.

    ``train`` (and ``test``) is anything :func:`rankmeter.io.interactions.read_interactions`
    reads (a DataFrame, an Arrow table, a path, a ``{column: values}`` mapping) or a
    :class:`~rankmeter.Qrels` whose queries are users. Returns a dict with

    * ``popularity``: ``(item ids, share of training users who interacted with the item)``;
      a user who interacted with an item several times counts once;
    * ``popularity_interactions``: ``(item ids, share of training rows)``;
    * ``n_users``, ``n_interactions``: training users and rows;
    * ``catalog``: the items that can be recommended: the training items, or ``catalog``;
    * ``all_items``: training and test items, when ``test`` is given;
    * ``train_items``: each user's distinct training items, as ``(user ids, item ids)`` pairs
      (:func:`rankmeter.metrics.beyond.train_items`; ``pop_lift``, ``miscalibration``, ``pop_rsp``);
    * ``test_items``: each user's relevant test items, when ``test`` is given (``pop_reo``,
      ``exposure_gap(target=relevant)``): every test interaction, or of a :class:`~rankmeter.Qrels`
      the items with a grade > 0 (to apply a rating threshold, pass the test rows above it, or
      set ``context["test_items"]`` yourself);
    * ``features``: ``(item ids, matrix)`` from ``item_features`` (a mapping item -> vector,
      an ``(ids, matrix)`` pair, or a pandas DataFrame indexed by item);
    * ``categories``: ``{item id: frozenset of labels}`` from ``categories``.

    Item ids are text, as everywhere in rankmeter (``7`` and ``"7"`` are the same item).
    """
    users, items = user_item_ids(train, user, item)
    n_rows = len(users)
    if n_rows == 0:
        raise ParameterError("context_from_train needs at least one training interaction. Got an empty table instead.")
    ucodes, uvocab = encode(users)
    icodes, ivocab = encode(items)
    n_users, n_items = len(uvocab), len(ivocab)
    pairs = np.unique(ucodes * n_items + icodes)
    users_per_item = np.bincount(pairs % n_items, minlength=n_items)
    rows_per_item = np.bincount(icodes, minlength=n_items)
    ctx: dict[str, Any] = {
        "popularity": (ivocab, users_per_item / n_users),
        "popularity_interactions": (ivocab, rows_per_item / n_rows),
        "n_users": int(n_users),
        "n_interactions": int(n_rows),
        "catalog": ivocab,
    }
    if catalog is not None:
        cat = as_string_array(list(catalog) if not isinstance(catalog, (pa.Array, np.ndarray)) else catalog)
        ctx["catalog"] = union_vocab(cat)
    ctx["train_items"] = train_items(pa.table({"user": users, "item": items}), user="user", item="item")
    if test is not None:
        tusers, titems = user_item_ids(test, user, item)
        ctx["all_items"] = union_vocab(ivocab, titems)
        if isinstance(test, Qrels):  # judged items: the relevant ones only
            keep = pa.array(test.grades > 0)
            tusers, titems = tusers.filter(keep), titems.filter(keep)
        ctx["test_items"] = train_items(pa.table({"user": tusers, "item": titems}), user="user", item="item")
    if item_features is not None:
        ctx["features"] = _features(item_features)
    if categories is not None:
        if not isinstance(categories, Mapping):
            raise ParameterError("The 'categories' parameter of context_from_train must be a mapping item -> set of "
                                 f"labels. Got {type(categories).__name__} instead.")
        ctx["categories"] = {str(k): frozenset([v] if isinstance(v, str) else v) for k, v in categories.items()}
    return ctx


def _features(value: Any) -> tuple[pa.Array, np.ndarray]:
    from ..metrics.beyond import item_matrix

    if type(value).__module__.startswith("pandas") and hasattr(value, "columns"):
        value = (value.index.to_numpy(), value.to_numpy(dtype=np.float64))
    ids, mat = item_matrix(value, "features", "context_from_train")
    return ids, mat
