"""Every fusion method equals ranx's ``fuse`` on tie-free runs with the same queries (scores within 1e-9,
same order: ranx's ties in fused score, which it leaves in any order, put in the tie rule's order).

ranx's condorcet and w_condorcet are left out: they sort with a comparison that is not transitive
from a Python set, so their output changes from one process to the next (docs/fusion.md); they are
tested against Montague and Aslam's definition in test_reference.py. With the Borda normalisation
ranx's position-based methods read the order of a Python set, so those pairs are left out too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rankmeter.fusion import METHODS, fuse
from rankmeter.fusion.optimize import train_params

ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.slow  # ranx compiles its kernels with numba on first use

NORMS = ["min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", None]
NONDETERMINISTIC = {"condorcet", "w_condorcet"}


def _runs(seed: int, n_runs: int = 3, n_queries: int = 5, pool: int = 25) -> tuple[list[dict[str, dict[str, float]]],
                                                                                    dict[str, dict[str, int]]]:
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in range(n_queries):
            n = int(rng.integers(1, pool))
            docs = rng.choice(pool, size=n, replace=False)
            scores = rng.permutation(n) + rng.random() * 0.5 + rng.uniform(0.1, 3)  # distinct per query, positive
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
        runs.append(run)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(pool, size=8, replace=False)}
             for q in range(n_queries)}
    return runs, qrels


def _ranx_params(name: str, runs: list[Any], qrels: Any, n_runs: int) -> dict[str, Any]:
    import ranx.fusion as rf

    weights = [0.5, 0.3, 0.2][:n_runs]
    table: dict[str, dict[str, Any]] = {
        "gmnz": {"gamma": 0.7}, "logn_isr": {"sigma": 0.05}, "rbc": {"phi": 0.8}, "rrf": {"k": 60},
        "wsum": {"weights": weights}, "wmnz": {"weights": weights}, "mixed": {"weights": weights},
        "w_bordafuse": {"weights": weights},
        "probfuse": {"probs": rf.probfuse_train(qrels, runs, 4)},
        "segfuse": {"probs": rf.segfuse_train(qrels, runs)},
        "slidefuse": {"probs": rf.slidefuse_train(qrels, runs), "w": 2},
        "posfuse": {"probs": rf.posfuse_train(qrels, runs)},
        "bayesfuse": {"log_odds": rf.bayesfuse_train(qrels, runs)},
        "mapfuse": {"map_scores": rf.mapfuse_train(qrels, runs)},
    }
    return table.get(name, {})


def _check_same(ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]], where: str) -> None:
    assert set(ours) == set(theirs), where
    for q, scored in theirs.items():
        assert set(ours[q]) == set(scored), (where, q)
        for d, s in scored.items():
            assert ours[q][d] == pytest.approx(s, rel=1e-9, abs=1e-9), (where, q, d)
        expected = sorted(scored, key=lambda d: (-scored[d], tuple(-b for b in d.encode())))
        got = list(ours[q])
        # ranx's order where its fused scores tie is arbitrary: compare the orders of the distinct scores,
        # and ours must be the tie rule's within a tie (scores equal to 1e-9 count as equal)
        assert [round(scored[d], 9) for d in got] == [round(scored[d], 9) for d in expected], (where, q)


CASES = [(m.name, n) for m in METHODS if m.name not in NONDETERMINISTIC for n in NORMS
         if not (n == "borda" and m.reads == "positions")]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("method", "norm"), CASES)
def test_equals_ranx(method: str, norm: str | None, seed: int) -> None:
    runs, qrels = _runs(seed)
    r_runs = [ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
    r_qrels = ranx.Qrels(qrels)
    params = _ranx_params(method, _normed(r_runs, norm), r_qrels, len(runs))
    theirs = ranx.fuse(r_runs, norm=norm, method=method, params=params).to_dict()
    ours_params = {k: (v.tolist() if isinstance(v, np.ndarray) else
                       [np.asarray(x).tolist() for x in v] if isinstance(v, list) and k != "weights" else v)
                   for k, v in params.items()}
    ours = fuse(runs, method=method, norm=norm, params=ours_params).to_dict()
    _check_same(ours, theirs, f"{method}/{norm}")


def _normed(r_runs: list[Any], norm: str | None) -> list[Any]:
    from ranx.normalization import norm_switch

    if norm is None:
        return r_runs
    if norm == "borda":
        return list(norm_switch(norm)(r_runs))
    return [norm_switch(norm)(r) for r in r_runs]


SUPERVISED = ["probfuse", "segfuse", "slidefuse", "posfuse", "bayesfuse", "mapfuse"]


@pytest.mark.parametrize("method", SUPERVISED)
@pytest.mark.parametrize("norm", ["min-max", None])
def test_training_equals_ranx(method: str, norm: str | None) -> None:
    """Our training on judgments gives ranx's trained parameters (probabilities, log-odds, MAP)."""
    runs, qrels = _runs(3)
    r_runs = [ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
    theirs = _ranx_params(method, _normed(r_runs, norm), ranx.Qrels(qrels), len(runs))
    hyper = {"n_segments": 4} if method == "probfuse" else {}
    ours = train_params(qrels, runs, method, norm=norm, **hyper)
    for key, value in theirs.items():
        if key == "w":
            continue
        for j in range(len(runs)):
            a, b = np.asarray(ours[key][j], dtype=float), np.asarray(value[j], dtype=float)
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=f"{method} run {j}")
