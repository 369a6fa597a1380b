"""Popularity bias: long-tail share (APLT, ACLT), popularity lift, and PopRSP / PopREO.

The short head and the long tail split the training items by popularity (Elliot's
rule, :func:`rankmeter.metrics.beyond.profiles.head_tail`): ordered by the number of
training users, descending, ties by item id ascending, the short head is the shortest
prefix reaching ``head_share`` (0.8) of all the training users' interactions. Items never
seen in training are *cold*: in neither group.

>>> import rankmeter
>>> ctx = {"popularity": {"a": .5, "b": .2, "c": .1, "d": .1, "e": .1}, "n_users": 10,
...        "train_items": {"u1": ["a", "b"], "u2": ["c", "d"]}}
>>> # counts 5, 2, 1, 1, 1 (total 10): a, b, c reach 8 = 0.8 * 10 (c before d and e: ids ascending)
>>> run = {"u1": ["a", "d", "z"], "u2": ["b", "e", "c"]}   # z is cold
>>> r = rankmeter.evaluate({"u1": ["a"], "u2": ["c"]}, run, ["aplt@3", "aclt@3", "pop_lift@2"], context=ctx)
>>> {m: round(v, 6) for m, v in r.mean.items()}   # pop_lift: u1 (.3 - .35)/.35, u2 (.15 - .1)/.1
{'aplt@3': 0.333333, 'aclt@3': 1.0, 'pop_lift@2': 0.178571}
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence, cast

import numpy as np
import pyarrow as pa

from ... import _compute as C
from ..batch import Batch
from ..registry import MetricSpec, Param, register
from ._context import HELPER, ContextExample, batch_vocab, item_table, need, positions, ref_values
from ._state import ItemState, merge_states
from .profiles import (
    COLD,
    HEAD,
    PAIRS_HELPER,
    TAIL,
    batch_user_codes,
    head_tail,
    ref_head_tail,
    ref_user_items,
    user_pairs,
    vocab_groups,
)

_CTX = {"popularity": {"a": .5, "b": .2, "c": .1, "d": .1, "e": .1}, "n_users": 10,
        "train_items": {"u1": ["a", "b"], "u2": ["c", "d"]},
        "test_items": {"u1": ["a", "e"], "u2": ["c", "d"]}}
_RUN = {"u1": ["a", "d", "z"], "u2": ["b", "e", "c"]}
_QRELS = {"u1": ["a"], "u2": ["c"]}

HEAD_SHARE = Param("head_share", float, 0.8, "share of the training users' interactions the short head reaches "
                   "(Elliot: 0.8)", low=0, high=1, low_open=True)
_HT_CONVENTION = (
    "Short head and long tail: the training items (popularity above 0) ordered by their number of training users, "
    "descending, ties by item id ascending (byte order); the short head is the shortest prefix whose user counts "
    "reach head_share (0.8, Elliot's and Abdollahpouri et al.'s 20/80 split) of the sum over all training items; "
    "every other training item is in the long tail. User counts are popularity x n_users (exact integers; "
    "popularity shares alone when n_users is absent). Items never seen in training (cold) are in neither group "
    "but count in the list length.")


# ----------------------------------------------------------------------------- APLT / ACLT

# the long tail by another rule than the short head's: tail=bottom_share (the least popular share of the
# training items, RecBole's TailPercentage with tail_ratio < 1) or tail=max_count (items with at most
# ``count`` training users or rows, RecBole's tail_ratio >= 1); popularity by users or by rows (pop)
TAIL_RULE = Param("tail", str, "head_share", "the long tail: what the short head (head_share) leaves; the least "
                  "popular share of the training items (bottom_share); items with at most count training users "
                  "or rows (max_count)", choices=("head_share", "bottom_share", "max_count"))
TAIL_SHARE = Param("share", float, 0.1, "tail=bottom_share: share of the training items in the tail (RecBole: 0.1)",
                   low=0, high=1, low_open=True)
TAIL_COUNT = Param("count", float, 1.0, "tail=max_count: the largest popularity count in the tail", low=0)
TAIL_POP = Param("pop", str, "users", "popularity counted in training users (users) or rows (interactions: "
                 "RecBole)", choices=("users", "interactions"))
_TAIL_KEYS = {"users": ("popularity", "n_users"), "interactions": ("popularity_interactions", "n_interactions")}


def _tail_counts(context: Mapping[str, Any] | None, pop: str, metric: str) -> tuple[pa.Array, np.ndarray]:
    """Training items (popularity above 0) and their counts (share x total, exact integers)."""
    key, total = _TAIL_KEYS[pop]
    ids, share = item_table(need(context, key, metric), key, metric)
    seen = share > 0
    n = context.get(total) if context is not None else None
    count = np.rint(share * float(n)) if n else share
    return ids.filter(pa.array(seen)), count[seen]


def tail_groups(context: Mapping[str, Any] | None, metric: str, head_share: float, tail: str, share: float,
                count: float, pop: str) -> tuple[pa.Array, np.ndarray]:
    """Training item ids and their group (HEAD or TAIL) under the tail rule."""
    if tail == "head_share" and pop == "users":
        return head_tail(context, head_share, metric)
    ids, c = _tail_counts(context, pop, metric)
    group = np.full(len(ids), HEAD, dtype=np.int64)
    if not len(ids):
        return ids, group
    if tail == "max_count":
        group[c <= count] = TAIL
    elif tail == "bottom_share":  # count ascending, ties by id ascending (byte order)
        id_rank = np.empty(len(ids), dtype=np.int64)
        id_rank[np.asarray(C.sort_indices(ids))] = np.arange(len(ids))
        order = np.lexsort((id_rank, c))
        group[order[:max(int(len(ids) * share), 1)]] = TAIL
    else:  # the short head by rows
        id_rank = np.empty(len(ids), dtype=np.int64)
        id_rank[np.asarray(C.sort_indices(ids))] = np.arange(len(ids))
        order = np.lexsort((id_rank, -c))
        cum = np.cumsum(c[order])
        group[:] = TAIL
        group[order[:int(np.searchsorted(cum, head_share * cum[-1], side="left")) + 1]] = HEAD
    return ids, group


def _tail_rows(b: Batch, metric: str, head_share: float, tail: str = "head_share", share: float = 0.1,
               count: float = 1.0, pop: str = "users") -> np.ndarray:
    if tail == "head_share" and pop == "users":
        groups = vocab_groups(b, head_share, metric)
    else:
        ids, group = tail_groups(b.context, metric, head_share, tail, share, count, pop)
        at = positions(batch_vocab(b), ids)
        groups = np.where(at >= 0, group[np.maximum(at, 0)] if len(group) else COLD, COLD)
    return groups[b.item] == TAIL if len(b.item) else np.zeros(0, dtype=bool)


def aplt_kernel(b: Batch, head_share: float, tail: str = "head_share", share: float = 0.1, count: float = 1.0,
                pop: str = "users") -> np.ndarray:
    total = b.seg_sum(_tail_rows(b, "aplt", head_share, tail, share, count, pop))
    n = b.lengths.astype(np.float64)
    return cast(np.ndarray, np.divide(total, n, out=np.zeros_like(total), where=n > 0))


def aclt_kernel(b: Batch, head_share: float, tail: str = "head_share", share: float = 0.1, count: float = 1.0,
                pop: str = "users") -> np.ndarray:
    return b.seg_sum(_tail_rows(b, "aclt", head_share, tail, share, count, pop))


def ref_tail(context: Mapping[str, Any] | None, metric: str, head_share: float, tail: str, share: float,
             count: float, pop: str) -> set[str]:
    """Slow path: the long tail as a set of item ids, each rule written out."""
    if tail == "head_share" and pop == "users":
        return ref_head_tail(context, head_share, metric)[1]
    key, total = _TAIL_KEYS[pop]
    table = ref_values(context, key, metric)
    n = context.get(total) if context is not None else None
    counts = {i: (float(round(float(p) * float(n))) if n else float(p)) for i, p in table.items() if float(p) > 0}
    if tail == "max_count":
        return {i for i, c in counts.items() if c <= count}
    if tail == "bottom_share":
        order = sorted(counts, key=lambda i: (counts[i], i.encode("utf-8")))
        return set(order[:max(int(len(order) * share), 1)])
    order = sorted(counts, key=lambda i: (-counts[i], i.encode("utf-8")))
    head: set[str] = set()
    reached = 0.0
    for i in order:
        head.add(i)
        reached += counts[i]
        if reached >= head_share * sum(counts.values()):
            break
    return set(counts) - head


def aplt_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                   context: Mapping[str, Any] | None = None, head_share: float = 0.8, tail: str = "head_share",
                   share: float = 0.1, count: float = 1.0, pop: str = "users") -> float:
    kept = list(ranking if k is None else ranking[:k])
    long_tail = ref_tail(context, "aplt", head_share, tail, share, count, pop)
    return sum(1 for i in kept if i in long_tail) / len(kept) if kept else 0.0


def aclt_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                   context: Mapping[str, Any] | None = None, head_share: float = 0.8, tail: str = "head_share",
                   share: float = 0.1, count: float = 1.0, pop: str = "users") -> float:
    kept = list(ranking if k is None else ranking[:k])
    return float(sum(1 for i in kept if i in ref_tail(context, "aclt", head_share, tail, share, count, pop)))


_TAIL_CONVENTION = (
    " tail=bottom_share: the tail is the int(share x n) (at least 1) least popular training items, count "
    "ascending, ties by id ascending; tail=max_count: the training items with a count <= count (RecBole's "
    "TailPercentage, tail_ratio below / from 1, recbole/evaluator/metrics.py); pop=interactions counts "
    "training rows (popularity_interactions x n_interactions), as RecBole does.")

_HT_CITE = ("Abdollahpouri, Burke, Mobasher (2019), Managing popularity bias in recommender systems with personalized "
            "re-ranking, FLAIRS-32, arXiv:1901.07555 (APLT); Abdollahpouri, Burke, Mobasher (2017), Controlling "
            "popularity bias in learning-to-rank recommendation, RecSys, doi:10.1145/3109859.3109912; Elliot's "
            "APLT and ACLT (Anelli et al. 2021, SIGIR, doi:10.1145/3404835.3463245).")

register(
    MetricSpec(
        name="aplt",
        family="beyond",
        summary="Average percentage of long tail: share of the top-k list in the long tail of training popularity.",
        formula=r"APLT@k(u) = \frac{|L_u^k \cap \Gamma|}{|L_u^k|},\quad \Gamma = \text{long tail}",
        citation=_HT_CITE,
        convention=_HT_CONVENTION + _TAIL_CONVENTION + " Divided by the list's length (a list shorter than k by its "
                   f"length); an empty list scores 0. Needs context['popularity'] and context['n_users'] (from "
                   f"{HELPER}).",
        kernel=aplt_kernel,
        reference=aplt_reference,
        params=(HEAD_SHARE, TAIL_RULE, TAIL_SHARE, TAIL_COUNT, TAIL_POP),
        aliases={"average_percentage_of_long_tail": {}},
        examples=(
            ContextExample("aplt@3", _RUN, _QRELS, _CTX, (1 / 3 + 1 / 3) / 2,
                           note="head {a, b, c} (c before d, e: ids ascending), tail {d, e}, z cold: one tail item "
                                "of 3 in each list"),
            ContextExample("aplt@2", _RUN, _QRELS, _CTX, (1 / 2 + 1 / 2) / 2, note="[a, d] and [b, e]"),
            ContextExample("aplt(head_share=0.5)@3", _RUN, _QRELS, _CTX, (1 / 3 + 3 / 3) / 2,
                           note="head {a} (5 of 10 reaches 0.5): tail b, c, d, e"),
            ContextExample("aplt(tail=bottom_share,share=0.4)@3", _RUN, _QRELS, _CTX, (1 / 3 + 1 / 3) / 2,
                           note="RecBole's TailPercentage: the 2 least popular of 5 items (c, d: counts 1, ties "
                                "by id) are the tail: d for u1, c for u2"),
            ContextExample("aplt(tail=max_count,count=1)@3", _RUN, _QRELS, _CTX, (1 / 3 + 2 / 3) / 2,
                           note="items seen by at most 1 user: c, d, e"),
        ),
        higher_is_better=True,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "needs_context", "judgment_free"}),
    )
)

register(
    MetricSpec(
        name="aclt",
        family="beyond",
        summary="Average coverage of long tail: number of long-tail items in the top-k list.",
        formula=r"ACLT@k(u) = |L_u^k \cap \Gamma|,\quad \Gamma = \text{long tail}",
        citation=_HT_CITE,
        convention=_HT_CONVENTION + _TAIL_CONVENTION + " Averaged over users (Abdollahpouri et al. 2019). "
                   f"Needs context['popularity'] and context['n_users'] (from {HELPER}).",
        kernel=aclt_kernel,
        reference=aclt_reference,
        params=(HEAD_SHARE, TAIL_RULE, TAIL_SHARE, TAIL_COUNT, TAIL_POP),
        aliases={"average_coverage_of_long_tail": {}},
        examples=(
            ContextExample("aclt@3", _RUN, _QRELS, _CTX, 1.0, note="d for u1, e for u2"),
            ContextExample("aclt(head_share=0.5)@3", _RUN, _QRELS, _CTX, (1 + 3) / 2),
        ),
        higher_is_better=True,
        bounds=(0.0, float("inf")),
        properties=frozenset({"beyond", "needs_context", "judgment_free"}),
    )
)


# ----------------------------------------------------------------------------- popularity lift

def train_popularity(b: Batch, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """Sum of popularity over each batch user's distinct training items, and their number."""
    users, items = user_pairs(b.context, "train_items", metric)
    uc = batch_user_codes(b, users, metric)
    ids, pop = item_table(need(b.context, "popularity", metric), "popularity", metric)
    ip = positions(items, ids)
    p = np.where(ip >= 0, pop[np.maximum(ip, 0)], 0.0) if len(ip) else np.zeros(0)
    keep = uc >= 0
    nq = b.n_queries
    return (np.bincount(uc[keep], weights=p[keep], minlength=nq)[:nq],
            np.bincount(uc[keep], minlength=nq)[:nq].astype(np.float64))


def pop_lift_kernel(b: Batch) -> np.ndarray:
    ids, pop = item_table(need(b.context, "popularity", "pop_lift"), "popularity", "pop_lift")
    pos = positions(batch_vocab(b), ids)
    vocab_pop = np.where(pos >= 0, pop[np.maximum(pos, 0)], 0.0) if len(pos) else np.zeros(0)
    rows = vocab_pop[b.item] if len(b.item) else np.zeros(0)
    n = b.lengths.astype(np.float64)
    rec = np.divide(b.seg_sum(rows), n, out=np.full(len(n), np.nan), where=n > 0)
    tr_sum, tr_n = train_popularity(b, "pop_lift")
    train = np.divide(tr_sum, tr_n, out=np.full(len(n), np.nan), where=tr_n > 0)
    out = np.full(len(n), np.nan)
    ok = (n > 0) & (train > 0)
    out[ok] = (rec[ok] - train[ok]) / train[ok]
    return out


def pop_lift_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                       context: Mapping[str, Any] | None = None, query: str = "") -> float:
    kept = list(ranking if k is None else ranking[:k])
    pop = ref_values(context, "popularity", "pop_lift")
    train = ref_user_items(context, "train_items", query, "pop_lift")
    if not kept or not train:
        return math.nan
    rec = sum(float(pop.get(i, 0.0)) for i in kept) / len(kept)
    base = sum(float(pop.get(i, 0.0)) for i in sorted(train)) / len(train)
    return (rec - base) / base if base > 0 else math.nan


register(
    MetricSpec(
        name="pop_lift",
        family="beyond",
        summary="Popularity lift: relative excess of the recommended items' popularity over the user's profile.",
        formula=r"PL@k(u) = \frac{\bar\phi(L_u^k) - \bar\phi(train(u))}{\bar\phi(train(u))},\quad "
                r"\bar\phi(S) = \frac{1}{|S|}\sum_{i \in S} \phi(i)",
        citation=(
            "Abdollahpouri, Mansoury, Burke, Mobasher (2020), The connection between popularity bias, calibration, "
            "and fairness in recommendation, RecSys, doi:10.1145/3383313.3418487 (popularity lift); Abdollahpouri "
            "et al. (2019), The unfairness of popularity bias in recommendation, arXiv:1907.13286 (GAP, Delta GAP)."
        ),
        convention=(
            "phi(i) is the share of training users who interacted with i (context['popularity']; an item absent "
            "from it has 0). The user's profile is their distinct training items (context['train_items']). "
            "Positive: the list is more popular than the user's taste. A user without training items or with an "
            "empty list has no value: nan in per_query, left out of the mean and counted (Result.by_group reports "
            "the count). Delta GAP of a user group (Abdollahpouri et al. 2019) is the same ratio computed on the "
            "group's means of the two terms (arp(pop=share) and profile_popularity: Result.by_group reports it as "
            "delta_gap), which differs from the group's mean of pop_lift. "
            f"Needs context['popularity'] (from {HELPER}) and context['train_items'] (from {PAIRS_HELPER})."
        ),
        kernel=pop_lift_kernel,
        reference=pop_lift_reference,
        aliases={"popularity_lift": {}},
        examples=(
            ContextExample("pop_lift@2", _RUN, _QRELS, _CTX, ((.3 - .35) / .35 + (.15 - .1) / .1) / 2,
                           note="u1: [a, d] mean .3, profile {a, b} .35; u2: [b, e] .15, profile {c, d} .1"),
            ContextExample("pop_lift@3", _RUN, _QRELS, _CTX, ((.2 - .35) / .35 + (.4 / 3 - .1) / .1) / 2,
                           note="z is cold: popularity 0, in the list length"),
        ),
        higher_is_better=False,
        bounds=(-1.0, float("inf")),
        properties=frozenset({"beyond", "needs_context", "judgment_free"}),
    )
)


def profile_popularity_kernel(b: Batch) -> np.ndarray:
    tr_sum, tr_n = train_popularity(b, "profile_popularity")
    return cast(np.ndarray, np.divide(tr_sum, tr_n, out=np.full(len(tr_n), np.nan), where=tr_n > 0))


def profile_popularity_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                                 context: Mapping[str, Any] | None = None, query: str = "") -> float:
    pop = ref_values(context, "popularity", "profile_popularity")
    train = ref_user_items(context, "train_items", query, "profile_popularity")
    return sum(float(pop.get(i, 0.0)) for i in sorted(train)) / len(train) if train else math.nan


register(
    MetricSpec(
        name="profile_popularity",
        family="beyond",
        summary="Mean popularity of the user's training items (the user's taste for popular items, GAP_p).",
        formula=r"\bar\phi(train(u)) = \frac{1}{|train(u)|}\sum_{i \in train(u)} \phi(i)",
        citation=("Abdollahpouri, Mansoury, Burke, Mobasher (2019), The unfairness of popularity bias in "
                  "recommendation, arXiv:1907.13286 (GAP of a user group's profiles)."),
        convention=(
            "phi(i) is the share of training users who interacted with i; the user's distinct training items "
            "(context['train_items']). It does not read the list (no cutoff): next to arp(pop=share) it gives "
            "Delta GAP = (GAP_r - GAP_p) / GAP_p of each user group, which Result.by_group reports (delta_gap). "
            "A user without training items: nan, left out and counted. "
            f"Needs context['popularity'] (from {HELPER}) and context['train_items'] (from {PAIRS_HELPER})."
        ),
        kernel=profile_popularity_kernel,
        reference=profile_popularity_reference,
        cutoff=False,
        aliases={"gap_p": {}},
        examples=(
            ContextExample("profile_popularity", _RUN, _QRELS, _CTX, ((.5 + .2) / 2 + (.1 + .1) / 2) / 2,
                           note="u1 {a, b}, u2 {c, d}"),
            ContextExample("profile_popularity", {"u1": []}, {"u1": ["a"], "u3": ["a"]}, _CTX, .35,
                           note="u3 has no training items: nan, left out of the mean"),
        ),
        higher_is_better=False,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "needs_context", "judgment_free"}),
    )
)


# ----------------------------------------------------------------------------- PopRSP / PopREO

def _std_over_mean(a: float, b: float) -> float:
    vals = np.array([a, b])
    if not np.isfinite(vals).all() or vals.mean() == 0:
        return math.nan
    return float(np.std(vals) / np.mean(vals))


def _pair_groups(context: Mapping[str, Any], items: Any, head_share: float, metric: str) -> np.ndarray:
    ids, group = head_tail(context, head_share, metric)
    pos = positions(items, ids) if len(items) else np.zeros(0, dtype=np.int64)
    return np.where(pos >= 0, group[np.maximum(pos, 0)] if len(group) else COLD, COLD)


def pop_rsp_kernel(b: Batch, head_share: float) -> ItemState:
    groups = vocab_groups(b, head_share, "pop_rsp")
    rg = groups[b.item] if len(b.item) else np.zeros(0, dtype=np.int64)
    _, group = head_tail(b.context, head_share, "pop_rsp")
    n_head, n_tail = int((group == HEAD).sum()), int((group == TAIL).sum())
    users, items = user_pairs(b.context, "train_items", "pop_rsp")
    keep = batch_user_codes(b, users, "pop_rsp") >= 0
    pg = _pair_groups(b.context, items.filter(keep_arr(keep)), head_share, "pop_rsp")
    nq = b.n_queries
    totals = {
        "rec_head": float((rg == HEAD).sum()), "rec_tail": float((rg == TAIL).sum()),
        "den_head": float(nq * n_head - (pg == HEAD).sum()), "den_tail": float(nq * n_tail - (pg == TAIL).sum()),
    }
    return ItemState.from_batch(b, totals=totals)


def keep_arr(mask: np.ndarray) -> Any:
    return pa.array(mask, type=pa.bool_())


def _ratio(state: ItemState, num: str, den: str) -> float:
    d = state.totals[den]
    return state.totals[num] / d if d else math.nan


def pop_rsp_finalize(state: ItemState, *, context: Mapping[str, Any], head_share: float) -> float:
    return _std_over_mean(_ratio(state, "rec_head", "den_head"), _ratio(state, "rec_tail", "den_tail"))


def pop_reo_kernel(b: Batch, head_share: float) -> ItemState:
    groups = vocab_groups(b, head_share, "pop_reo")
    users, items = user_pairs(b.context, "test_items", "pop_reo")
    uc = batch_user_codes(b, users, "pop_reo")
    keep = uc >= 0
    uc, items = uc[keep], items.filter(keep_arr(keep))
    pg = _pair_groups(b.context, items, head_share, "pop_reo")
    # recommended rows that are a relevant test item of their user
    nv = max(len(batch_vocab(b)), 1)
    code = positions(items, batch_vocab(b)) if len(items) else np.zeros(0, dtype=np.int64)
    test_keys = (uc * nv + code)[code >= 0]
    row_q = np.repeat(np.arange(b.n_queries, dtype=np.int64), b.lengths)
    hit = np.isin(row_q * nv + b.item, test_keys) if len(b.item) else np.zeros(0, dtype=bool)
    rg = groups[b.item] if len(b.item) else np.zeros(0, dtype=np.int64)
    totals = {
        "hit_head": float((hit & (rg == HEAD)).sum()), "hit_tail": float((hit & (rg == TAIL)).sum()),
        "rel_head": float((pg == HEAD).sum()), "rel_tail": float((pg == TAIL).sum()),
    }
    return ItemState.from_batch(b, totals=totals)


def pop_reo_finalize(state: ItemState, *, context: Mapping[str, Any], head_share: float) -> float:
    return _std_over_mean(_ratio(state, "hit_head", "rel_head"), _ratio(state, "hit_tail", "rel_tail"))


_ZHU = ("Zhu, Wang, Caverlee (2020), Measuring and mitigating item under-recommendation bias in personalized ranking "
        "systems, SIGIR, doi:10.1145/3397271.3401177 (RSP and REO); Elliot's PopRSP and PopREO over the short head "
        "and the long tail (Anelli et al. 2021).")

register(
    MetricSpec(
        name="pop_rsp",
        family="beyond",
        summary=("Popularity ranking-based statistical parity: spread of the recommendation rate of head and tail "
                 "items."),
        formula=r"PopRSP@k = \frac{\mathrm{std}(P_H, P_T)}{\mathrm{mean}(P_H, P_T)},\quad P_g = "
                r"\frac{\sum_u |L_u^k \cap g|}{\sum_u |g \setminus train(u)|}",
        citation=_ZHU,
        convention=_HT_CONVENTION + " The sums run over the evaluated users (a user without a list recommends "
                   "nothing but counts in the denominators); std is the population standard deviation (numpy's "
                   "default, as Elliot). 0: head and tail items are recommended at the same rate. nan when a "
                   "group is empty or neither is recommended. "
                   f"Needs context['popularity'], context['n_users'] (from {HELPER}) and context['train_items'] "
                   f"(from {PAIRS_HELPER}).",
        kernel=pop_rsp_kernel,
        params=(HEAD_SHARE,),
        aliases={"poprsp": {}},
        examples=(
            ContextExample("pop_rsp@3", _RUN, _QRELS, _CTX, (1 / 3) / (5 / 3),
                           note="head recommended 3 times over (3-2)+(3-1) = 3 unseen head items: P_H = 1; tail 2 "
                                "over 2+1: 2/3; std/mean = (1/6)/(5/6)"),
            ContextExample("pop_rsp@2", _RUN, _QRELS, _CTX, 0.0, note="P_H = 2/3 = P_T"),
        ),
        higher_is_better=False,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "needs_context", "judgment_free", "corpus"}),
        level="corpus",
        merge=merge_states,
        finalize=pop_rsp_finalize,
    )
)

register(
    MetricSpec(
        name="pop_reo",
        family="beyond",
        summary="Popularity ranking-based equal opportunity: spread of the hit rate of relevant head and tail items.",
        formula=r"PopREO@k = \frac{\mathrm{std}(P_H, P_T)}{\mathrm{mean}(P_H, P_T)},\quad P_g = "
                r"\frac{\sum_u |L_u^k \cap g \cap test(u)|}{\sum_u |g \cap test(u)|}",
        citation=_ZHU,
        convention=_HT_CONVENTION + " test(u) is the user's relevant test items, context['test_items'] (a ranked "
                   "list cannot show the relevant items it misses, so they are passed as a context: the same "
                   "interactions as the judgments); the sums run over the evaluated users. Population standard "
                   "deviation, as Elliot. 0: relevant head and tail items are found at the same rate. nan when a "
                   "group has no relevant item or no hit in either. "
                   f"Needs context['popularity'], context['n_users'] (from {HELPER}) and context['test_items'] "
                   f"(from {PAIRS_HELPER} applied to the test interactions).",
        kernel=pop_reo_kernel,
        params=(HEAD_SHARE,),
        aliases={"popreo": {}},
        examples=(
            ContextExample("pop_reo@3", _RUN, _QRELS, _CTX, 1.0,
                           note="head: a (u1) and c (u2) found of 2: P_H = 1; tail: e (u1), d (u2) missed: P_T = 0"),
            ContextExample("pop_reo@1", _RUN, _QRELS, _CTX, 1.0, note="only a is found"),
        ),
        higher_is_better=False,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "needs_context", "judgment_free", "corpus"}),
        level="corpus",
        merge=merge_states,
        finalize=pop_reo_finalize,
    )
)
