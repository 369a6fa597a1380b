"""Coverage: how much of the catalogue is recommended to anyone, and how many users are served.

Both are properties of all the lists together (``level="corpus"``): the kernel
returns an :class:`~rankmeter.metrics.beyond._state.ItemState` keyed by item id, which
merges across batches, and ``finalize`` turns it into the value.

>>> import rankmeter
>>> ctx = {"catalog": ["a", "b", "c", "d"]}
>>> run = {"u1": ["a", "b"], "u2": ["b", "c"], "u3": ["x"]}   # x is not in the catalogue
>>> qrels = {"u1": ["a"], "u2": ["d"], "u3": ["x"]}
>>> r = rankmeter.evaluate(qrels, run, ["catalog_coverage@2", "user_coverage(of=relevant)@2"], context=ctx)
>>> r.mean   # {a, b, c} of 4 catalogue items; u1 and u3 get a relevant item, u2 does not
{'catalog_coverage@2': 0.75, 'user_coverage(of=relevant)@2': 0.6666666666666666}
"""

from __future__ import annotations

from typing import Any, Mapping

import pyarrow.compute as pc

from ..._errors import ParameterError
from ..batch import Batch
from ..ranking._common import REL
from ..registry import MetricSpec, Param, register
from ._context import HELPER, ContextExample, id_set, need
from ._state import ItemState, merge_states

_CTX = {"catalog": ["a", "b", "c", "d"], "all_items": ["a", "b", "c", "d", "x", "y"]}
_RUN = {"u1": ["a", "b"], "u2": ["b", "c"], "u3": ["x"]}
_QRELS = {"u1": ["a"], "u2": ["d"], "u3": ["x"], "u4": ["a"]}

_KEY = {"catalog": "catalog", "all_items": "all_items"}


def catalog_coverage_kernel(b: Batch, denominator: str) -> ItemState:
    return ItemState.from_batch(b)


def catalog_ids(context: Mapping[str, Any], key: str, metric: str) -> Any:
    ids = id_set(need(context, key, metric), key, metric)
    if len(ids) == 0:
        raise ParameterError(f"context[{key!r}] of {metric} is empty: the catalogue needs at least one item")
    return ids


def catalog_coverage_finalize(state: ItemState, *, context: Mapping[str, Any], denominator: str) -> float:
    key = _KEY[denominator]
    cat = catalog_ids(context, key, "catalog_coverage")
    covered = int(pc.sum(pc.is_in(state.ids, value_set=cat)).as_py() or 0) if len(state.ids) else 0
    return covered / len(cat)


register(
    MetricSpec(
        name="catalog_coverage",
        family="beyond",
        summary="Share of the catalogue recommended to at least one user in the top k.",
        formula=r"CC@k = \frac{|\bigcup_u L_u^k \cap C|}{|C|}",
        citation=(
            "Ge, Delgado-Battenfeld, Jannach (2010), Beyond accuracy: evaluating recommender systems by coverage "
            "and serendipity, RecSys, doi:10.1145/1864708.1864761 (catalog coverage, evaluation notes); Herlocker, "
            "Konstan, Terveen, Riedl (2004), Evaluating collaborative filtering recommender systems, ACM TOIS "
            "22(1), doi:10.1145/963770.963772."
        ),
        convention=(
            "The denominator C is named: denominator=catalog (default) is context['catalog'], the training items "
            "when built by context_from_train (recmetrics passes its catalogue the same way); "
            "denominator=all_items is context['all_items'], every item of the data set, train and test (RecBole's "
            "ItemCoverage). Recommended items outside C do not count in the numerator, so the value is at most 1. "
            "Users are the evaluated users; Elliot's ItemCoverage reports the count |union L_u^k| instead. "
            f"Needs the context key (from {HELPER})."
        ),
        kernel=catalog_coverage_kernel,
        params=(Param("denominator", str, "catalog", "the item set covered: catalog (training items) or all_items "
                      "(train and test)", choices=("catalog", "all_items")),),
        aliases={"item_coverage": {}, "coverage": {}},
        examples=(
            ContextExample("catalog_coverage@2", _RUN, _QRELS, _CTX, 3 / 4,
                           note="{a, b, c} of the 4 catalogue items; x is outside the catalogue"),
            ContextExample("catalog_coverage(denominator=all_items)@2", _RUN, _QRELS, _CTX, 4 / 6,
                           note="{a, b, c, x} of the 6 items of the data set"),
            ContextExample("catalog_coverage@1", _RUN, _QRELS, _CTX, 2 / 4, note="top 1: {a, b}"),
        ),
        higher_is_better=True,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "needs_context", "judgment_free", "corpus"}),
        level="corpus",
        merge=merge_states,
        finalize=catalog_coverage_finalize,
    )
)


def user_coverage_kernel(b: Batch, of: str, rel: float) -> ItemState:
    if of == "any":
        covered = b.lengths > 0
    else:
        covered = b.seg_sum(b.relevant(rel)) > 0
    return ItemState.from_batch(b, totals={"covered": float(covered.sum()), "users": float(b.n_queries)})


def user_coverage_finalize(state: ItemState, *, context: Mapping[str, Any], of: str, rel: float) -> float:
    users = state.totals["users"]
    return state.totals["covered"] / users if users else float("nan")


register(
    MetricSpec(
        name="user_coverage",
        family="beyond",
        summary="Share of the evaluated users who get any recommendation (or at least one relevant one) in the top k.",
        formula=r"UC@k = \frac{|\{u : |L_u^k| > 0\}|}{|U|} \;\text{ or }\; \frac{|\{u : \exists i \in L_u^k, "
                r"rel_{u,i} \ge rel\}|}{|U|}",
        citation=(
            "Ge, Delgado-Battenfeld, Jannach (2010), RecSys, doi:10.1145/1864708.1864761 (coverage of users); "
            "Herlocker et al. (2004), ACM TOIS 22(1) (prediction coverage)."
        ),
        convention=(
            "U is the set of evaluated users (rankmeter.evaluate's queries policy: by default every test user "
            "with a relevant item; a user missing from the run counts as uncovered). of=any counts users with "
            "a non-empty list; of=relevant counts users with a relevant item in the top k (the hit rate of the "
            "whole population). With no user the value is nan."
        ),
        kernel=user_coverage_kernel,
        examples=(
            ContextExample("user_coverage@2", _RUN, _QRELS, _CTX, 3 / 4,
                           note="u4 is judged but has no list: 3 of 4 users get a list"),
            ContextExample("user_coverage(of=relevant)@2", _RUN, _QRELS, _CTX, 2 / 4,
                           note="u1 (a) and u3 (x) get a relevant item"),
        ),
        params=(Param("of", str, "any", "count users with any recommendation (any) or a relevant one (relevant)",
                      choices=("any", "relevant")), REL),
        higher_is_better=True,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "corpus"}),
        level="corpus",
        merge=merge_states,
        finalize=user_coverage_finalize,
    )
)
