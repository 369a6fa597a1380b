"""What the popularity-bias, calibration and fairness metrics read: users' items, head and tail.

Two context keys hold interactions of users (not facts about items):

* ``train_items``: each user's training items (pop_lift, miscalibration, pop_rsp);
* ``test_items``: each user's relevant test items (pop_reo, ``exposure_gap(target=relevant)``).

Either is a mapping ``{user: iterable of item ids}`` or a pair ``(user ids, item ids)``
of parallel arrays, one row per interaction; :func:`train_items` builds the pair from
any interaction input. A user who interacted with an item several times counts once.

The short head and the long tail (Abdollahpouri et al. 2019, Elliot's convention)
split the training items (``context["popularity"]`` above 0): ordered by the number of
training users, descending, ties by item id ascending (byte order of the UTF-8 text),
the short head is the shortest prefix whose user counts reach ``head_share`` of the
total; every other training item is in the long tail; items never seen in training
are *cold*, in neither group.

>>> ctx = {"popularity": {"a": 0.6, "b": 0.2, "c": 0.2}, "n_users": 5}
>>> ids, group = head_tail(ctx, 0.8, "aplt")
>>> dict(zip(ids.to_pylist(), group.tolist()))   # counts 3, 1, 1: a + b reach 4 = 0.8 * 5
{'a': 0, 'b': 0, 'c': 1}
>>> users, items = train_items({"user": ["u1", "u1", "u2", "u1"], "item": ["a", "b", "a", "a"]})
>>> list(zip(users.to_pylist(), items.to_pylist()))
[('u1', 'a'), ('u1', 'b'), ('u2', 'a')]
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..._errors import ParameterError
from ._context import _ids, batch_vocab, item_table, need, positions

__all__ = ["train_items", "HEAD", "TAIL", "COLD", "head_tail", "item_groups", "user_pairs", "batch_users",
           "batch_user_codes", "PAIRS_HELPER"]

HEAD, TAIL, COLD = 0, 1, 2
PAIRS_HELPER = "rankmeter.metrics.beyond.train_items(train)"


def train_items(data: Any, *, user: str | None = None, item: str | None = None) -> tuple[pa.Array, pa.Array]:
    """The distinct (user, item) pairs of interactions, as two parallel string arrays.

    ``data`` is anything :func:`rankmeter.io.interactions.read_interactions` reads (a
    DataFrame, an Arrow table, a path, a ``{column: values}`` mapping) or a
    :class:`~rankmeter.Qrels` whose queries are users. Put the result of the training
    interactions in ``context["train_items"]`` (next to
    :func:`rankmeter.beyond.context_from_train`'s keys), that of the test interactions
    in ``context["test_items"]``. Pairs are sorted by user, then item.

    >>> u, i = train_items({"user": [2, 1, 1], "item": ["x", "y", "y"]})
    >>> u.to_pylist(), i.to_pylist()
    (['1', '2'], ['y', 'x'])
    """
    from ...data import Qrels
    from ...data.ids import as_string_array

    if isinstance(data, Qrels):
        users = data.query_ids.take(pa.array(data.row_queries()))
        items = data.item_ids.take(pa.array(data.items))
    else:
        from ...io.interactions import read_interactions

        inter = read_interactions(data, user=user, item=item, rating=False, timestamp=False)
        users = as_string_array(inter.table.column(inter.user))
        items = as_string_array(inter.table.column(inter.item))
    return _distinct(users, items)


def _distinct(users: pa.Array, items: pa.Array) -> tuple[pa.Array, pa.Array]:
    t = pa.table({"u": users, "i": items}).group_by(["u", "i"]).aggregate([])
    t = t.sort_by([("u", "ascending"), ("i", "ascending")])
    return t.column("u").combine_chunks(), t.column("i").combine_chunks()


def user_pairs(context: Mapping[str, Any] | None, key: str, metric: str) -> tuple[pa.Array, pa.Array]:
    """``context[key]`` (a mapping user -> items, or a (users, items) pair) as distinct pairs."""
    if context is None or context.get(key) is None:
        what = "each user's training items" if key == "train_items" else "each user's relevant test items"
        raise ParameterError(
            f"{metric} needs context[{key!r}] ({what}); build it with {PAIRS_HELPER} next to "
            f"rankmeter.beyond.context_from_train(train, ...) and pass it as rankmeter.evaluate(..., context=ctx)")
    value = context[key]
    if isinstance(value, Mapping):
        users: list[Any] = []
        items: list[Any] = []
        for u, its in value.items():
            if isinstance(its, (str, bytes)):
                its = [its]
            its = list(its)
            users += [u] * len(its)
            items += its
    elif isinstance(value, tuple) and len(value) == 2:
        users, items = value
    else:
        raise ParameterError(f"context[{key!r}] of {metric} must be a mapping user -> item ids or a (user ids, "
                             f"item ids) pair. Got {type(value).__name__} instead.")
    u, i = _ids(users, key, metric), _ids(items, key, metric)
    if len(u) != len(i):
        raise ParameterError(f"context[{key!r}] of {metric}: {len(u)} user ids but {len(i)} item ids")
    return _distinct(u, i)


def batch_users(batch: Any, metric: str) -> pa.Array:
    """The user (query) ids of a batch, in its order: set by rankmeter.evaluate in every engine."""
    ids = batch.context.get("query_ids")
    if ids is None or len(ids) != batch.n_queries:
        raise ParameterError(f"{metric} needs the users' ids to find their training items, which "
                             "rankmeter.evaluate passes to the metrics; this entry point cannot know them")
    return ids


def batch_user_codes(batch: Any, users: pa.Array, metric: str) -> np.ndarray:
    """Position of every pair user among the batch's users (-1: not evaluated in this batch)."""
    return positions(users, batch_users(batch, metric)) if len(users) else np.zeros(0, dtype=np.int64)


def head_tail(context: Mapping[str, Any] | None, head_share: float, metric: str) -> tuple[pa.Array, np.ndarray]:
    """Training item ids and their group (HEAD or TAIL) by Elliot's short-head rule."""
    ids, pop = item_table(need(context, "popularity", metric), "popularity", metric)
    seen = pop > 0
    ids, pop = ids.filter(pa.array(seen)), pop[seen]
    if len(ids) == 0:
        return ids, np.zeros(0, dtype=np.int64)
    n_users = context.get("n_users") if context is not None else None
    weight = np.rint(pop * float(n_users)) if n_users else pop  # user counts are exact integers
    id_rank = np.empty(len(ids), dtype=np.int64)
    id_rank[np.asarray(pc.sort_indices(ids))] = np.arange(len(ids))  # byte order of the ids
    order = np.lexsort((id_rank, -weight))
    cum = np.cumsum(weight[order])
    n_head = int(np.searchsorted(cum, head_share * cum[-1], side="left")) + 1
    group = np.full(len(ids), TAIL, dtype=np.int64)
    group[order[:n_head]] = HEAD
    return ids, group


def vocab_groups(batch: Any, head_share: float, metric: str) -> np.ndarray:
    """HEAD, TAIL or COLD for every code of the batch's item vocabulary."""
    ids, group = head_tail(batch.context, head_share, metric)
    pos = positions(batch_vocab(batch), ids)
    return np.where(pos >= 0, group[np.maximum(pos, 0)] if len(group) else COLD, COLD)


def item_groups(context: Mapping[str, Any] | None, metric: str) -> tuple[pa.Array, pa.Array]:
    """``context["item_groups"]`` (item id -> group label: provider, category) as (ids, labels)."""
    value = need(context, "item_groups", metric)
    if isinstance(value, tuple) and len(value) == 2:
        ids, labels = value
    elif isinstance(value, Mapping):
        ids, labels = list(value.keys()), list(value.values())
    elif type(value).__module__.startswith("pandas") and hasattr(value, "index"):
        ids, labels = value.index.to_numpy(), value.to_numpy()
    else:
        raise ParameterError(f"context['item_groups'] of {metric} must be a mapping item -> group label or an "
                             f"(ids, labels) pair. Got {type(value).__name__} instead.")
    ids = _ids(ids, "item_groups", metric)
    labels = _ids(labels, "item_groups", metric)
    if len(ids) != len(labels):
        raise ParameterError(f"context['item_groups'] of {metric}: {len(ids)} item ids but {len(labels)} labels")
    if len(pc.unique(ids)) != len(ids):
        raise ParameterError(f"context['item_groups'] of {metric} gives some item more than one group")
    return ids, labels


# ----------------------------------------------------------------------------- slow paths (references)

def ref_head_tail(context: Mapping[str, Any] | None, head_share: float, metric: str) -> tuple[set[str], set[str]]:
    """Slow path: (short head, long tail) as sets of item ids, by the rule written out in a loop."""
    from ._context import ref_values

    pop = ref_values(context, "popularity", metric)
    n_users = context.get("n_users") if context is not None else None
    count = {i: (float(round(float(p) * float(n_users))) if n_users else float(p)) for i, p in pop.items()
             if float(p) > 0}
    order = sorted(count, key=lambda i: (-count[i], i.encode("utf-8")))
    target = head_share * sum(count[i] for i in order)
    head: set[str] = set()
    reached = 0.0
    for i in order:
        head.add(i)
        reached += count[i]
        if reached >= target:
            break
    return head, set(count) - head


def ref_user_items(context: Mapping[str, Any] | None, key: str, user: str, metric: str) -> set[str]:
    """Slow path: the set of items of one user in ``context[key]``."""
    if context is None or context.get(key) is None:
        user_pairs(context, key, metric)  # raises the message
    value = context[key]  # type: ignore[index]  # None raised above
    if isinstance(value, Mapping):
        out: set[str] = set()
        for u, its in value.items():
            if str(u) == user:
                out |= {str(its)} if isinstance(its, str) else {str(i) for i in its}
        return out
    users, items = value
    users = users.to_pylist() if hasattr(users, "to_pylist") else list(users)
    items = items.to_pylist() if hasattr(items, "to_pylist") else list(items)
    return {str(i) for u, i in zip(users, items, strict=True) if str(u) == user}
