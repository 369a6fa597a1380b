"""Checks shared by the ranking-input metrics: a kernel against its reference, and invariances.

``cases(spec)`` lists the parameter settings a metric is checked with: the default,
every choice of every choice-parameter, and a non-default value of numeric ones.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Mapping

import numpy as np

import rankmeter
from rankmeter.metrics.registry import MetricSpec

from ..strategies import ranked_items


def param_cases(spec: MetricSpec) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{}]
    for p in spec.params:
        if p.choices:
            out += [{p.name: c} for c in p.choices if c != p.default]
        elif p.type is bool:
            out.append({p.name: not p.default})
        elif p.name == "rel":
            out.append({"rel": 2.0})
        elif p.type is float and p.default is not None:
            out.append({p.name: round(float(p.default) * 0.5 + 0.05, 3)})
    return out


def metric_text(spec: MetricSpec, params: Mapping[str, Any], k: int | None) -> str:
    inner = ",".join(f"{k_}={str(v).lower() if isinstance(v, bool) else v}" for k_, v in params.items())
    text = spec.name + (f"({inner})" if inner else "")
    if k is not None and spec.cutoff:
        text += f"@{k}"
    return text


def judged_queries(qrels: Mapping[str, Mapping[str, float]]) -> list[str]:
    return sorted(q for q, j in qrels.items() if any(g > 0 for g in j.values()))


def reference_values(spec: MetricSpec, params: Mapping[str, Any], k: int | None,
                     qrels: Mapping[str, Mapping[str, float]], run: Mapping[str, Mapping[str, float]],
                     context: Mapping[str, Any] | None = None) -> dict[str, float]:
    """The reference implementation over the default ("judged") query set."""
    assert spec.reference is not None
    full = {p.name: p.default for p in spec.params}
    full.update(params)
    ctx = {"max_grade": max(g for j in qrels.values() for g in j.values())}
    if context:
        ctx.update(context)
    takes_context = "context" in inspect.signature(spec.reference).parameters
    out = {}
    for q in judged_queries(qrels):
        ranking = ranked_items(run.get(q, {}))
        kw = dict(full)
        if takes_context:
            kw["context"] = ctx
        if "query" in inspect.signature(spec.reference).parameters:  # per-user metrics read the user's profile
            kw["query"] = q
        if "scores" in inspect.signature(spec.reference).parameters:  # tie-aware references read the scores
            kw["scores"] = [run.get(q, {})[d] for d in ranking]
        out[q] = spec.reference(ranking, qrels[q], k if spec.cutoff else None, **kw)
    return out


def kernel_values(spec: MetricSpec, params: Mapping[str, Any], k: int | None, qrels: Any, run: Any,
                  context: Mapping[str, Any] | None = None) -> dict[str, float]:
    text = metric_text(spec, params, k)
    res = rankmeter.evaluate(qrels, run, [text], context=context)
    return dict(zip(res.queries, res.values[text].tolist()))


def close(a: float, b: float, tol: float = 1e-12) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol) or (np.isnan(a) and np.isnan(b))
