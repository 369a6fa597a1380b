"""Invariance checks for corpus-level ranking metrics (gauc): each against a slow reference built from
the per-query references, on random cases with ties, merged from two halves, in any query order."""

from __future__ import annotations

import math
import zlib
from typing import Any, Callable, Mapping

import numpy as np

import rankmeter
from rankmeter.evaluation import compute
from rankmeter.evaluation.prepare import align
from rankmeter.metrics.ranking.auc import auc_reference
from rankmeter.metrics.registry import MetricSpec

from ..strategies import ranked_items
from .harness_beyond import random_case
from .harness_ranking import close, judged_queries, metric_text, param_cases


def _gauc(qrels: Mapping[str, Mapping[str, float]], run: Mapping[str, Mapping[str, float]], k: int | None,
          rel: float, tied_pairs: str) -> float:
    """Sum over the queries with both classes in their top k of (relevant items x AUC), over the sum of
    their relevant items."""
    num = den = 0.0
    for q in judged_queries(qrels):
        r = run.get(q, {})
        ranking = ranked_items(r)
        kept = ranking if k is None else ranking[:k]
        pos = sum(1 for d in kept if qrels[q].get(d, -1.0) >= 0 and qrels[q].get(d, -1.0) >= rel)
        if pos == 0 or pos == len(kept):
            continue
        auc = auc_reference(ranking, qrels[q], k, rel, tied_pairs=tied_pairs, scores=[r[d] for d in ranking])
        num += pos * auc
        den += pos
    return num / den if den else math.nan


REFERENCES: dict[str, Callable[..., float]] = {"gauc": _gauc}


def _value(text: str, qrels: Any, run: Any) -> float:
    return float(rankmeter.evaluate(qrels, run, [text]).corpus[text])


def check_spec(spec: MetricSpec, n_cases: int = 40, seed: int = 0) -> None:
    assert spec.level == "corpus" and spec.input == "ranking"
    assert spec.name in REFERENCES, f"{spec.name}: no slow corpus reference in harness_ranking_corpus"
    rng = np.random.default_rng([seed, zlib.crc32(spec.name.encode())])
    lo, hi = spec.bounds if spec.bounds is not None else (-math.inf, math.inf)
    for params in param_cases(spec):
        full = {p.name: p.default for p in spec.params}
        full.update(params)
        for _ in range(n_cases):
            qrels, run = random_case(rng)
            k = [None, 1, 3, 5][int(rng.integers(0, 4))]
            text = metric_text(spec, params, k)
            got = _value(text, qrels, run)
            want = REFERENCES[spec.name](qrels, run, k, **full)
            assert close(got, want, 1e-12), f"{text}: kernel {got} != reference {want}"
            assert math.isnan(got) or lo - 1e-12 <= got <= hi + 1e-12, f"{text}: {got} outside {spec.bounds}"
            # the query order does not matter, to the bit
            rev = _value(text, dict(reversed(list(qrels.items()))), dict(reversed(list(run.items()))))
            assert (math.isnan(got) and math.isnan(rev)) or rev == got, f"{text}: {rev} != {got} in another order"
            # two halves' states merged give the whole's value
            qs = judged_queries(qrels)
            if len(qs) > 1:
                from rankmeter.metrics.registry import parse_metric

                m = parse_metric(text)
                state = None
                for part in (qs[: len(qs) // 2], qs[len(qs) // 2:]):
                    sub_q = rankmeter.io.as_qrels({q: qrels[q] for q in part})
                    sub_r = rankmeter.io.as_run({q: run[q] for q in part if q in run} or {"__none__": {"zz": 0.0}})
                    batch, _, _ = align(sub_q, sub_r, "judged", {})
                    _, states = compute(batch, [m])
                    assert spec.merge is not None
                    state = states[text] if state is None else spec.merge(state, states[text])
                assert spec.finalize is not None
                merged = float(spec.finalize(state, context={}, **m.params))
                assert (math.isnan(got) and math.isnan(merged)) or merged == got, f"{text}: merged {merged} != {got}"
