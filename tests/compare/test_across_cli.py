"""`rankmeter compare-across` over saved experiment results equals compare_across on the loaded results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rankmeter
from rankmeter.compare.across import compare_across
from rankmeter.datasets import movielens100k_like
from rankmeter.recsys.result import ExperimentResult


@pytest.mark.slow
def test_cli_over_saved_experiments(tmp_path: Path) -> None:
    dirs = {}
    for seed in (1, 2):
        data = movielens100k_like(seed, n_users=60, n_items=120, n_ratings=1500, min_per_user=10).interactions
        res = rankmeter.experiment(data, split="temporal", recommenders=["random", "popular", "itemknn"],
                                   metrics=["ndcg@10"], k=10, n_resamples=100, seed=seed)
        res.save(tmp_path / f"d{seed}")
        dirs[f"d{seed}"] = tmp_path / f"d{seed}"
    args = [f"{n}={p}" for n, p in dirs.items()]
    out = subprocess.run([sys.executable, "-m", "rankmeter", "compare-across", *args, "-m", "ndcg@10", "--baseline",
                          "popular", "--format", "json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    direct = compare_across({n: ExperimentResult.load(p) for n, p in dirs.items()}, "ndcg@10", baseline="popular")
    assert doc["friedman"]["statistic"] == pytest.approx(direct.friedman.statistic)
    assert doc["meta"]["itemknn"]["mu"] == pytest.approx(direct.meta["itemknn"].mu)
    md = subprocess.run([sys.executable, "-m", "rankmeter", "compare-across", *args, "-m", "ndcg@10"],
                        capture_output=True, text=True, timeout=120)
    assert md.returncode == 0 and "| mean rank |" in md.stdout
    bad = subprocess.run([sys.executable, "-m", "rankmeter", "compare-across", "nope", "-m", "ndcg@10"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "NAME=PATH" in bad.stderr
