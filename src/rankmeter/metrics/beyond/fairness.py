"""Exposure of item groups (providers, categories, or popularity head and tail), and its gap to a target.

Each ranked row gives its item an exposure by its rank: ``1/log2(rank+1)`` (the DCG
discount, Singh and Joachims 2018) or the RBP weight ``p^(rank-1)``. A group's share is
its items' exposure over all users' top-k lists divided by the exposure of all grouped
items. The gap compares the shares with a target: equal shares, or shares proportional
to the groups' relevant items (Singh and Joachims' disparate exposure by merit).

>>> import rankmeter
>>> ctx = {"item_groups": {"a": "p1", "b": "p1", "c": "p2"}}
>>> run = {"u1": ["a", "c"], "u2": ["b", "a"]}   # exposure p1: 1 + 1 + 1/log2 3, p2: 1/log2 3
>>> r = rankmeter.evaluate(run, run, ["exposure_share(groups=item_groups,group=p2)@2",
...                                   "exposure_gap(groups=item_groups)@2"], context=ctx)
>>> {m: round(v, 6) for m, v in r.mean.items()}
{'exposure_share(groups=item_groups,group=p2)@2': 0.193426, 'exposure_gap(groups=item_groups)@2': 0.306574}
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..._errors import ParameterError
from ..batch import Batch
from ..registry import MetricSpec, Param, register
from ._context import HELPER, ContextExample, positions
from ._state import ItemState, merge_states
from .popbias import HEAD_SHARE, keep_arr
from .profiles import HEAD, PAIRS_HELPER, TAIL, batch_user_codes, head_tail, item_groups, user_pairs

_CTX = {"item_groups": {"a": "p1", "b": "p1", "c": "p2", "d": "p3"},
        "popularity": {"a": .5, "b": .2, "c": .1, "d": .1, "e": .1}, "n_users": 10,
        "test_items": {"u1": ["c"], "u2": ["a", "b"]}}
_RUN = {"u1": ["a", "c"], "u2": ["b", "a"]}
_L3 = 1 / math.log2(3)

_GROUPS = Param("groups", str, "popularity", "the item groups: popularity (short head and long tail of training "
                "popularity) or item_groups (context['item_groups']: providers, categories)",
                choices=("popularity", "item_groups"))
_WEIGHT = Param("weight", str, "log", "exposure of a rank: 1/log2(rank+1) (log) or p^(rank-1) (rbp)",
                choices=("log", "rbp"))
_P = Param("p", float, 0.8, "persistence of weight=rbp", low=0, high=1, low_open=True, high_open=True)


def _row_weights(b: Batch, weight: str, p: float) -> np.ndarray:
    pos = b.pos.astype(np.float64)
    return 1.0 / np.log2(pos + 1.0) if weight == "log" else np.power(p, pos - 1.0)


def _relevant_state(b: Batch, names: tuple[str, ...], metric: str) -> ItemState:
    """Relevant test items of the batch's users, counted per item id."""
    users, items = user_pairs(b.context, "test_items", metric)
    keep = batch_user_codes(b, users, metric) >= 0
    vc = pc.value_counts(items.filter(keep_arr(keep))) if len(items) else None
    if vc is None or len(vc) == 0:
        ids = pa.array([], type=pa.string())
        counts = np.zeros(0)
    else:
        order = pc.sort_indices(vc.field("values"))
        ids = vc.field("values").take(order)
        counts = np.asarray(vc.field("counts").take(order), dtype=np.float64)
    sums = {n: np.zeros(len(ids), dtype=np.int64 if n == "count" else np.float64) for n in names}
    sums["relevant"] = counts
    return ItemState(ids=ids, sums=sums, k=b.k)


def exposure_kernel(b: Batch, groups: str, weight: str, p: float, head_share: float, target: str = "equal",
                    **_: Any) -> ItemState:
    w = _row_weights(b, weight, p)
    if target != "relevant":
        return ItemState.from_batch(b, weights={"exposure": w})
    own = ItemState.from_batch(b, weights={"exposure": w, "relevant": np.zeros(len(w))})
    return own.merge(_relevant_state(b, tuple(own.sums), "exposure_gap(target=relevant)"))


def group_labels(state: ItemState, context: Mapping[str, Any], groups: str, head_share: float,
                 metric: str) -> tuple[list[str], np.ndarray]:
    """The group labels, and the label index of each state item (-1: no group)."""
    if groups == "popularity":
        ids, g = head_tail(context, head_share, metric)
        pos = positions(state.ids, ids) if len(state.ids) else np.zeros(0, dtype=np.int64)
        code = np.where(pos >= 0, g[np.maximum(pos, 0)] if len(g) else -1, -1)
        return ["head", "tail"], np.where((code == HEAD) | (code == TAIL), code, -1)
    ids, labels = item_groups(context, metric)
    names = sorted(set(labels.to_pylist()), key=lambda s: s.encode("utf-8"))
    index = {n: j for j, n in enumerate(names)}
    lab_code = np.array([index[x] for x in labels.to_pylist()], dtype=np.int64)
    pos = positions(state.ids, ids) if len(state.ids) else np.zeros(0, dtype=np.int64)
    return names, np.where(pos >= 0, lab_code[np.maximum(pos, 0)] if len(lab_code) else -1, -1)


def group_sums(state: ItemState, context: Mapping[str, Any], groups: str, head_share: float, name: str,
               metric: str) -> tuple[list[str], np.ndarray]:
    labels, code = group_labels(state, context, groups, head_share, metric)
    has = code >= 0
    return labels, np.bincount(code[has], weights=state.sums[name][has], minlength=len(labels))[:len(labels)]


def _shares(v: np.ndarray) -> np.ndarray:
    total = v.sum()
    return v / total if total > 0 else np.full(len(v), np.nan)


def exposure_share_finalize(state: ItemState, *, context: Mapping[str, Any], groups: str, group: str, weight: str,
                            p: float, head_share: float) -> float:
    labels, e = group_sums(state, context, groups, head_share, "exposure", "exposure_share")
    if group not in labels:
        raise ParameterError(f"The 'group' parameter of exposure_share must be one of the groups "
                             f"{labels[:10]}{' ...' if len(labels) > 10 else ''}. Got {group!r} instead.")
    return float(_shares(e)[labels.index(group)])


def exposure_gap_finalize(state: ItemState, *, context: Mapping[str, Any], groups: str, target: str, weight: str,
                          p: float, head_share: float) -> float:
    labels, e = group_sums(state, context, groups, head_share, "exposure", "exposure_gap")
    if not labels:
        return math.nan
    share = _shares(e)
    if target == "equal":
        want = np.full(len(labels), 1.0 / len(labels))
    else:
        _, r = group_sums(state, context, groups, head_share, "relevant", "exposure_gap")
        want = _shares(r)
    return float(np.max(np.abs(share - want)))


_CONV = (
    "Exposure of a row at rank r: 1/log2(r+1) (weight=log, the DCG discount of Singh and Joachims) or p^(r-1) "
    "(weight=rbp, Moffat and Zobel's patience, p = 0.8). Summed over the evaluated users' top-k lists per item, "
    "then per group: groups=popularity (default) splits the training items into the short head and the long "
    "tail (as aplt: head_share, Elliot's rule; cold items are in neither and left out); groups=item_groups reads "
    "context['item_groups'] (item -> provider or category; every label there is a group, exposed or not; "
    "items without a label are left out). Shares are over the grouped items' exposure; no exposure: nan. ")
_CITE = ("Singh & Joachims (2018), Fairness of exposure in rankings, KDD, doi:10.1145/3219819.3220088; "
         "Biega, Gummadi, Weikum (2018), Equity of attention, SIGIR, doi:10.1145/3209978.3210063; "
         "Diaz et al. (2020), Evaluating stochastic rankings with expected exposure, CIKM, "
         "doi:10.1145/3340531.3411962.")

register(
    MetricSpec(
        name="exposure_share",
        family="beyond",
        summary="Share of the position-weighted exposure in the top-k lists that goes to one item group.",
        formula=r"ES_g@k = \frac{\sum_u \sum_{i \in L_u^k \cap g} w(r_u(i))}{\sum_{g'} \sum_u \sum_{i \in L_u^k "
                r"\cap g'} w(r_u(i))},\quad w(r) = \frac{1}{\log_2(r+1)} \text{ or } p^{r-1}",
        citation=_CITE,
        convention=_CONV + "group names the group (head or tail for groups=popularity; a label of "
                   "context['item_groups'] otherwise). "
                   f"Needs context['popularity'] and context['n_users'] (from {HELPER}) or context['item_groups'].",
        kernel=exposure_kernel,
        params=(_GROUPS, Param("group", str, "tail", "the group whose share is reported (head, tail or a label of "
                               "context['item_groups'])"), _WEIGHT, _P, HEAD_SHARE),
        aliases={"group_exposure": {}},
        examples=(
            ContextExample("exposure_share(groups=item_groups,group=p2)@2", _RUN, _RUN, _CTX,
                           _L3 / (2 + 2 * _L3), note="p1: a, b, a at ranks 1, 1, 2; p2: c at rank 2; p3 none"),
            ContextExample("exposure_share(groups=item_groups,group=p1,weight=rbp,p=0.5)@2", _RUN, _RUN, _CTX,
                           2.5 / 3.0, note="weights 1 and 0.5: p1 1 + 1 + .5, p2 .5"),
            ContextExample("exposure_share@2", _RUN, _RUN, _CTX, 0.0,
                           note="the short head {a, b, c} takes every exposure; tail d, e never shown"),
        ),
        higher_is_better=True,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "needs_context", "judgment_free", "corpus"}),
        level="corpus",
        merge=merge_states,
        finalize=exposure_share_finalize,
    )
)

register(
    MetricSpec(
        name="exposure_gap",
        family="beyond",
        summary="Largest gap between an item group's exposure share and its target share (equal, or by relevance).",
        formula=r"EG@k = \max_g |ES_g@k - T_g|,\quad T_g = \frac{1}{|G|} \text{ or } "
                r"\frac{\sum_u |test(u) \cap g|}{\sum_{g'} \sum_u |test(u) \cap g'|}",
        citation=_CITE,
        convention=_CONV + "target=equal: every group the same share 1/|G|; target=relevant: the groups' share of "
                   "the evaluated users' relevant test items (context['test_items'], Singh and Joachims' merit "
                   "proportional exposure, averaged over users as one ranking of the whole corpus). The gap is the "
                   "largest absolute difference over the groups (0: on target). "
                   f"Needs the context of exposure_share; target=relevant also context['test_items'] "
                   f"(from {PAIRS_HELPER}).",
        kernel=exposure_kernel,
        params=(_GROUPS, Param("target", str, "equal", "the target shares: equal, or relevant (proportional to "
                               "the groups' relevant items)", choices=("equal", "relevant")), _WEIGHT, _P,
                HEAD_SHARE),
        aliases={"disparate_exposure": {}},
        examples=(
            ContextExample("exposure_gap(groups=item_groups)@2", _RUN, _RUN, _CTX, (2 + _L3) / (2 + 2 * _L3) - 1 / 3,
                           note="shares p1 (2 + w)/(2 + 2w), p2 w/(2 + 2w), p3 0 (w = 1/log2 3): p1's gap is largest"),
            ContextExample("exposure_gap(groups=item_groups,target=relevant)@2", _RUN, _RUN, _CTX,
                           (2 + _L3) / (2 + 2 * _L3) - 2 / 3,
                           note="relevant: c (u1), a and b (u2): targets p1 2/3, p2 1/3, p3 0"),
            ContextExample("exposure_gap@1", _RUN, _RUN, _CTX, 0.5, note="head {a, b, c} takes all: |1 - 1/2|"),
        ),
        higher_is_better=False,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "needs_context", "judgment_free", "corpus"}),
        level="corpus",
        merge=merge_states,
        finalize=exposure_gap_finalize,
    )
)
