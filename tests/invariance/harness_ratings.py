"""Invariance checks for rating metrics (``spec.input == "ratings"``), run by test_registry.py.

``check_spec(spec)`` runs, for every parameter setting of the spec, on seeded random
data with ties, several users and items, and groups of one pair:

- the kernel against the spec's slow ``reference`` for every user, and the
  aggregate against the reference over all pairs (per=pair) or the mean of the
  per-user / per-item references (per=user, per=item);
- invariance under row order (users and items shuffled) and under any relabelling
  of user and item ids;
- every input form giving the same values: one pandas / polars / arrow table,
  two tables joined on (user, item), nested dicts, aligned arrays, CSV and Parquet
  files;
- bounds, inputs left unchanged.
"""

from __future__ import annotations

import copy
import math
import tempfile
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

import rankmeter.ratings as R
from rankmeter.metrics.registry import MetricSpec
from rankmeter.metrics.rating_costs import ASYMMETRIC_LIKE_COSTS
from rankmeter.metrics.rating_scale import Scale

TOL = 1e-9


def param_cases(spec: MetricSpec) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{}]
    for p in spec.params:
        if p.choices:
            out += [{p.name: c} for c in p.choices if c != p.default]
        elif p.type is bool:
            out.append({p.name: not p.default})
        elif p.name == "rel":
            out.append({"rel": 3.0})
    return out


def metric_text(spec: MetricSpec, params: Mapping[str, Any]) -> str:
    inner = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in params.items())
    return spec.name + (f"({inner})" if inner else "")


def _close(a: float, b: float) -> bool:
    if (a is None or (isinstance(a, float) and math.isnan(a))) and (b is None or (isinstance(b, float) and math.isnan(b))):
        return True
    return math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)


def random_frame(seed: int, spec: MetricSpec, params: Mapping[str, Any]) -> pd.DataFrame:
    """Users with 1 to 9 pairs, true ratings with ties, predictions with ties.

    Ids are numbers written as text (so that MovieLens-style headerless files hold them too).
    """
    rng = np.random.default_rng(seed)
    rows = []
    n_users = int(rng.integers(1, 7))
    items = [str(100 + j) for j in range(12)]
    cost = "needs_cost" in spec.properties
    for u in range(n_users):
        k = int(rng.integers(1, 10))
        chosen = rng.choice(items, size=min(k, len(items)), replace=False)
        for it in chosen:
            if cost:
                t = float(rng.integers(1, 4))
                p = float(rng.integers(1, 4)) if params.get("snap", "exact") == "exact" else float(
                    np.round(rng.uniform(0.5, 3.5), 1))
            else:
                t = float(rng.integers(1, 6))
                p = float(np.round(rng.uniform(0.5, 5.5) * 2) / 2)  # halves: ties, some outside 1..5
            rows.append((str(7 + 3 * u), str(it), t, p))
    return pd.DataFrame(rows, columns=["user", "item", "rating", "prediction"])


def _kwargs(spec: MetricSpec, declared: bool) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    if "needs_cost" in spec.properties:
        kw["cost"] = ASYMMETRIC_LIKE_COSTS
    if declared:
        kw["scale"] = (0, 6) if "needs_cost" not in spec.properties else (1, 3)
    return kw


def _context(spec: MetricSpec, frame: pd.DataFrame, declared: bool) -> dict[str, Any]:
    ctx: dict[str, Any] = {}
    if "needs_cost" in spec.properties:
        ctx["cost"] = R.CostMatrix.from_any(ASYMMETRIC_LIKE_COSTS)
    if declared:
        lo, hi = ((0, 6) if "needs_cost" not in spec.properties else (1, 3))
        ctx["scale"] = Scale(lo, hi, "declared")
    else:
        ctx["scale"] = Scale(float(frame.rating.min()), float(frame.rating.max()), "data")
    return ctx


def _by_user(res: Any, text: str) -> dict[str, float]:
    return dict(zip(res.queries, np.asarray(res.values[text]).tolist()))


def _same(a: Mapping[str, float], b: Mapping[str, float], what: str) -> None:
    assert a.keys() == b.keys(), f"{what}: groups differ {sorted(a)} vs {sorted(b)}"
    for key in a:
        assert _close(a[key], b[key]), f"{what}: {key}: {a[key]} != {b[key]}"


def _check_reference(spec: MetricSpec, params: Mapping[str, Any], frame: pd.DataFrame, res: Any, text: str,
                     ctx: Mapping[str, Any]) -> None:
    assert spec.reference is not None, f"{spec.name} has no reference"
    full = {p.name: p.default for p in spec.params}
    full.update(params)
    got = _by_user(res, text)
    for u, g in frame.groupby("user", sort=True):
        want = spec.reference(g.rating.tolist(), g.prediction.tolist(), context=ctx, **full)
        assert _close(got[u], want), f"{text} user {u}: kernel {got[u]} != reference {want}"
    per = full.get("per", "pair")
    if per == "pair":
        want = spec.reference(frame.rating.tolist(), frame.prediction.tolist(), context=ctx, **full)
    else:
        vals = [spec.reference(g.rating.tolist(), g.prediction.tolist(), context=ctx, **full)
                for _, g in frame.groupby(per, sort=True)]
        vals = [v for v in vals if not math.isnan(v)]
        want = sum(vals) / len(vals) if vals else math.nan
    assert _close(res.mean[text], want), f"{text}: aggregate {res.mean[text]} != reference {want}"


def _forms(frame: pd.DataFrame, tmp: Path) -> list[tuple[Any, Any, dict[str, Any]]]:
    truth = frame[["user", "item", "rating"]]
    preds = frame[["user", "item", "prediction"]].sample(frac=1.0, random_state=3)
    nested_t: dict[str, dict[str, float]] = {}
    nested_p: dict[str, dict[str, float]] = {}
    for u, i, t, p in frame.itertuples(index=False):
        nested_t.setdefault(u, {})[i] = t
        nested_p.setdefault(u, {})[i] = p
    frame.to_csv(tmp / "both.csv", index=False)
    truth.to_csv(tmp / "truth.tsv", index=False, sep="\t")
    pq.write_table(pa.Table.from_pandas(preds, preserve_index=False), tmp / "preds.parquet")
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp / "both.parquet")
    # MovieLens u.data style: headerless user item rating timestamp
    (tmp / "u.data").write_text("".join(f"{u}\t{i}\t{t:g}\t0\n" for u, i, t, _ in frame.itertuples(index=False)))
    import polars as pl

    return [
        (frame, None, {}),
        (pa.Table.from_pandas(frame, preserve_index=False), None, {}),
        (pl.from_pandas(frame), None, {}),
        (truth, preds, {}),
        (nested_t, nested_p, {}),
        (frame.rating.to_numpy(), frame.prediction.to_numpy(), {"users": frame.user.tolist(),
                                                                "items": frame.item.tolist()}),
        (str(tmp / "both.csv"), None, {}),
        (tmp / "both.parquet", None, {}),
        (tmp / "truth.tsv", tmp / "preds.parquet", {}),
        (tmp / "u.data", preds, {}),
        ({c: frame[c].tolist() for c in frame.columns}, None, {}),
    ]


def check_spec(spec: MetricSpec) -> None:
    assert spec.input == "ratings"
    assert spec.family and spec.summary and spec.formula and spec.citation
    assert not spec.cutoff, "rating metrics take no cutoff"
    assert spec.param("per") is not None, "every rating metric has the per parameter"
    lo, hi = spec.bounds if spec.bounds is not None else (-np.inf, np.inf)
    for params in param_cases(spec):
        text = metric_text(spec, params)
        for seed in range(6):
            frame = random_frame(seed * 31 + len(text), spec, params)
            declared = bool(seed % 2) or spec.name in ("nmae", "nrmse") and frame.rating.nunique() < 2
            kw = _kwargs(spec, declared)
            before = frame.copy()
            res = R.evaluate_ratings(frame, None, [text], **kw)
            pd.testing.assert_frame_equal(frame, before)  # inputs unchanged
            ctx = _context(spec, frame, declared)
            _check_reference(spec, params, frame, res, text, ctx)
            # bounds
            for u, v in _by_user(res, text).items():
                if math.isnan(v):
                    assert "undefined_nan" in spec.properties, f"{text} user {u}: NaN"
                    continue
                assert lo - 1e-12 <= v <= hi + 1e-12, f"{text} user {u}: {v} outside [{lo}, {hi}]"
            # row order
            shuffled = frame.sample(frac=1.0, random_state=seed)
            res2 = R.evaluate_ratings(shuffled, None, [text], **kw)
            _same(_by_user(res, text), _by_user(res2, text), f"{text} row order")
            assert _close(res.mean[text], res2.mean[text]), f"{text} row order: mean"
            # id relabelling (any bijection, order not kept)
            umap = {u: f"user-{(hash(u) * 7919) % 997:03d}-{u[::-1]}" for u in frame.user.unique()}
            imap = {i: f"{(hash(i) * 104729) % 991:03d}/{i}" for i in frame.item.unique()}
            relab = frame.assign(user=frame.user.map(umap), item=frame.item.map(imap))
            res3 = R.evaluate_ratings(relab, None, [text], **kw)
            _same({umap[u]: v for u, v in _by_user(res, text).items()}, _by_user(res3, text), f"{text} relabel")
            assert _close(res.mean[text], res3.mean[text]), f"{text} relabel: mean"
            # input forms
            if seed < 2:
                with tempfile.TemporaryDirectory() as d:
                    for truth, preds, extra in _forms(frame, Path(d)):
                        keep = copy.deepcopy(truth) if isinstance(truth, dict) else None
                        r = R.evaluate_ratings(truth, preds, [text], **kw, **extra)
                        if keep is not None:
                            assert truth == keep
                        _same(_by_user(res, text), _by_user(r, text), f"{text} form {type(truth).__name__}")
                        assert _close(res.mean[text], r.mean[text]), f"{text} form {type(truth).__name__}: mean"
