"""The experiment's corrected sampled mode: sampled ranks from each recommender's candidate ranking,
corrected estimates of the full-ranking metrics, and the risk that an order flips under full ranking."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .sampled import Candidates, correct

__all__ = ["top_k_rows", "sampled_ranks", "correct_result", "flip_risks", "CORRECTABLE"]

CORRECTABLE = ("r", "ndcg", "p")


def top_k_rows(table: pa.Table, k: int) -> pa.Table:
    """The first ``k`` rows of each user in rank order (score descending, ties by item id descending)."""
    if table.num_rows == 0:
        return table
    order = pc.sort_indices(table, sort_keys=[("user", "ascending"), ("score", "descending"),
                                              ("item", "descending")])
    t = table.take(order)
    u = t.column("user").to_numpy(zero_copy_only=False)
    starts = np.concatenate(([True], u[1:] != u[:-1]))
    group_start = np.maximum.accumulate(np.where(starts, np.arange(len(u)), 0))
    return t.filter(pa.array(np.arange(len(u)) - group_start < k))


def sampled_ranks(full_table: pa.Table, users: Sequence[str], relevant: Mapping[str, set[str]],
                  candidates: Candidates, known: Mapping[str, set[str]],
                  catalog: set[str]) -> tuple[list[list[int]], list[list[int]], list[int], list[int], int]:
    """Per user: the sampled rank of each relevant item (1 + negatives listed above it), the number of other
    relevant items above it, the number of items it competes with under full ranking (itself included),
    the negatives drawn; and the count of relevant items the recommender did not rank."""
    if full_table.num_rows:  # rows outside the user's candidates do not count (the validation counts them)
        inside = candidates.pair_mask(full_table.column("user").combine_chunks(),
                                      full_table.column("item").combine_chunks())
        full_table = full_table.filter(pa.array(inside))
    t = full_table.take(pc.sort_indices(full_table, sort_keys=[("user", "ascending"), ("score", "descending"),
                                                               ("item", "descending")]))
    lists: dict[str, list[str]] = {}
    for u, i in zip(t.column("user").to_pylist(), t.column("item").to_pylist(), strict=True):
        lists.setdefault(u, []).append(i)
    cpos = {u: n for n, u in enumerate(candidates.users.to_pylist())}
    ranks: list[list[int]] = []
    above: list[list[int]] = []
    n_items: list[int] = []
    n_neg: list[int] = []
    unranked = 0
    for u in users:
        rel = relevant.get(u, set())
        negs = int(candidates.negatives[cpos[u]]) if u in cpos else 0
        r_u, a_u = [], []
        seen_neg = seen_pos = 0
        found = set()
        for i in dict.fromkeys(lists.get(u, [])):  # a repeated item counts once, at its first rank
            if i in rel:
                r_u.append(seen_neg + 1)
                a_u.append(seen_pos)
                seen_pos += 1
                found.add(i)
            else:
                seen_neg += 1
        for _ in rel - found:  # not ranked: below every candidate
            unranked += 1
            r_u.append(negs + 1)
            a_u.append(seen_pos)
        pool = len(catalog) - len(known.get(u, set()) & catalog)
        ranks.append(r_u)
        above.append(a_u)
        n_items.append(max(pool, negs) + 1)
        n_neg.append(negs)
    return ranks, above, n_items, n_neg, unranked


def correct_result(result: Any, full_table: pa.Table, qrels: Any, candidates: Candidates, train: pa.Table,
                   test: pa.Table, catalog: pa.Array, parsed: Sequence[Any],
                   method: str) -> tuple[Any, dict[str, np.ndarray]]:
    """The result with recall@k / ndcg@k / precision@k replaced by corrected estimates (labelled in its notes),
    and the corrected per-user values by metric."""
    users = [str(q) for q in (result.queries.to_pylist() if hasattr(result.queries, "to_pylist")
                              else result.queries)]
    pos = qrels.grades > 0
    qu = qrels.query_ids.take(pa.array(qrels.row_queries()[pos])).to_pylist()
    qi = qrels.item_ids.take(pa.array(qrels.items[pos])).to_pylist()
    relevant: dict[str, set[str]] = {}
    for u, i in zip(qu, qi, strict=True):
        relevant.setdefault(u, set()).add(i)
    known: dict[str, set[str]] = {}
    for tab in (train, test):
        for u, i in zip(tab.column("user").to_pylist(), tab.column("item").to_pylist(), strict=True):
            known.setdefault(u, set()).add(i)
    cat = set(catalog.to_pylist())
    ranks, above, n_items, n_neg, unranked = sampled_ranks(full_table, users, relevant, candidates, known, cat)
    values = dict(result.values)
    out: dict[str, np.ndarray] = {}
    notes = list(result.notes)
    for m in parsed:
        if m.spec.name not in CORRECTABLE or m.k is None or m.spec.level != "query":
            continue
        defaults = {p.name: p.default for p in m.spec.params}
        if any(defaults.get(key) != v for key, v in m.params.items()):
            continue
        est = correct(ranks, n_items, n_neg, metric=m.text, method=method, above=above)
        values[m.text] = est.per_user
        out[m.text] = est.per_user
        notes.append(f"{m.text}: {est.label} (an estimate of the full-ranking value)")
    others = [m.text for m in parsed if m.text not in out and m.spec.level == "query"]
    if others:
        notes.append(f"not corrected (plain sampled values, inflated vs full ranking): {', '.join(others)}")
    if unranked:
        notes.append(f"{unranked} relevant test items were not ranked by the recommender; their sampled rank is "
                     "taken as below every candidate")
    return dataclasses.replace(result, values=values, notes=tuple(notes)), out


def flip_risks(results: Mapping[str, Any], corrected: Mapping[str, Mapping[str, np.ndarray]], base: str, *,
               seed: int = 0, resamples: int = 2000) -> dict[str, dict[str, Any]]:
    """For each corrected metric and recommender: the corrected mean difference to ``base`` and the share of
    bootstrap resamples of the users (paired) in which the difference has the other sign (ties: half)."""
    rng = np.random.default_rng(seed)
    out: dict[str, dict[str, Any]] = {}
    base_q = [str(q) for q in results[base].queries]
    for metric, base_v in corrected.get(base, {}).items():
        per: dict[str, Any] = {}
        for name, vals in corrected.items():
            if name == base or metric not in vals:
                continue
            where = {str(q): n for n, q in enumerate(results[name].queries)}
            d = vals[metric][[where[q] for q in base_q]] - base_v
            n = len(d)
            if n == 0:
                continue
            point = float(d.mean())
            boot = d[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
            flips = np.sign(boot) != np.sign(point)
            risk = float(flips.mean()) if point != 0 else 0.5
            per[name] = {"difference": point, "flip_risk": risk, "resamples": resamples}
        out[metric] = per
    return out
