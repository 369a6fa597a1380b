"""Reference recommenders, small and deterministic, to give an experiment baselines to beat.

* :class:`Random`: a random order per user (seeded);
* :class:`MostPopular`: the items with the most training users;
* :class:`ItemKNN`: item-based k-nearest neighbours, cosine on the binary user-item matrix;
* :class:`UserKNN`: user-based k-nearest neighbours, cosine on the binary user-item matrix;
* :class:`EASE`: Steck's closed-form linear item-item model;
* :class:`ALS`: implicit-feedback matrix factorisation by alternating least squares (Hu et al. 2008).

Each is fitted on training interactions (anything
:func:`rankmeter.io.interactions.read_interactions` reads) and returns, for the users
asked for, an Arrow table ``user, item, score`` with at most ``k`` rows per user, best
first, never a user's training items unless ``exclude_seen=False``. Ties: score
descending, then item id descending (the rule :class:`rankmeter.Run` applies).

User-supplied recommenders: :class:`TopKLists` (a file or table of lists) and
:class:`CallableRecommender` (a function ``f(train, users, k)``); :func:`make_recommender`
builds any of them from a name, an object, a callable or a path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..._errors import ParameterError
from ._base import MatrixRecommender, Recommender, check_k, topk_rows
from .als import ALS
from .ease import EASE
from .itemknn import ItemKNN
from .lists import CallableRecommender, TopKLists, as_recommendation_table, load_callable, read_topk_lists
from .popular import MostPopular
from .random import Random
from .userknn import UserKNN

__all__ = [
    "Recommender",
    "MatrixRecommender",
    "Random",
    "MostPopular",
    "ItemKNN",
    "UserKNN",
    "EASE",
    "ALS",
    "TopKLists",
    "CallableRecommender",
    "make_recommender",
    "read_topk_lists",
    "as_recommendation_table",
    "topk_rows",
    "check_k",
    "is_callable_ref",
    "load_callable",
    "REFERENCE",
]

#: name -> class of the reference recommenders (aliases included)
REFERENCE: dict[str, type[MatrixRecommender]] = {
    "random": Random,
    "popular": MostPopular,
    "most_popular": MostPopular,
    "mostpop": MostPopular,
    "itemknn": ItemKNN,
    "item_knn": ItemKNN,
    "userknn": UserKNN,
    "user_knn": UserKNN,
    "ease": EASE,
    "als": ALS,
    "mf": ALS,
}


def is_callable_ref(spec: Any) -> bool:
    """``"module:function"`` or ``"file.py:function"`` (a Windows drive letter is not one).

    >>> is_callable_ref("mypkg.recs:top_items"), is_callable_ref("C:lists.csv"), is_callable_ref("lists.csv")
    (True, False, False)
    """
    if not isinstance(spec, str) or ":" not in spec:
        return False
    head, _, tail = spec.rpartition(":")
    return bool(head) and tail.isidentifier() and len(head) > 1


def make_recommender(spec: Any, params: Mapping[str, Any] | None = None, *, name: str | None = None) -> Recommender:
    """A recommender from a reference name (``"random"``, ``"popular"``, ``"itemknn"``), an object
    with ``fit``/``recommend``, a callable ``f(train, users, k)``, a path to a file of top-k
    lists, or ``"module:function"``.

    >>> make_recommender("itemknn", {"neighbors": 20})
    ItemKNN(neighbors=20)
    """
    params = dict(params or {})
    if isinstance(spec, Recommender) or (hasattr(spec, "fit") and hasattr(spec, "recommend")):
        if params:
            raise ParameterError(f"parameters {sorted(params)} given for a recommender object {spec!r}")
        return spec  # type: ignore[no-any-return]  # an object with fit and recommend
    is_path = isinstance(spec, Path) or (isinstance(spec, str) and (Path(spec).suffix or "/" in spec)
                                         and not is_callable_ref(spec))
    if (is_path or is_callable_ref(spec) or (callable(spec) and not isinstance(spec, str))) and params:
        raise ParameterError(f"parameters {sorted(params)} given for the recommender {spec!r}, which takes none")
    if is_path:
        return TopKLists(spec, name=name)
    if is_callable_ref(spec):
        return CallableRecommender(load_callable(spec), name=name or spec.rpartition(":")[2])
    if isinstance(spec, str):
        key = spec.lower().replace("-", "_")
        if key not in REFERENCE:
            raise ParameterError(f"unknown recommender {spec!r}: the reference ones are random, popular, itemknn; "
                                 "or give an object with fit/recommend, a callable, a file of top-k lists or "
                                 "'module:function'")
        cls = REFERENCE[key]
        try:
            return cls(**params)
        except TypeError as exc:
            raise ParameterError(f"bad parameters for recommender {spec!r}: {exc}") from None
    if callable(spec):
        return CallableRecommender(spec, name=name)
    raise ParameterError(f"cannot use a {type(spec).__name__} as a recommender")
