"""Small synthetic judgments and runs for the comparison tests."""

from __future__ import annotations

import numpy as np
import pytest


def make_data(n_queries: int = 40, n_docs: int = 60, seed: int = 0, boosts=(0.0, 0.8, 0.4)):
    rng = np.random.default_rng(seed)
    qrels = {}
    for i in range(n_queries):
        docs = rng.choice(n_docs, 25, replace=False)
        grades = rng.integers(0, 3, 25)
        grades[0] = max(grades[0], 1)  # at least one relevant item
        qrels[f"q{i:03d}"] = {f"d{j}": int(g) for j, g in zip(docs, grades)}
    runs = {}
    for s, boost in enumerate(boosts):
        run = {}
        for i in range(n_queries):
            q = f"q{i:03d}"
            items = rng.choice(n_docs, 30, replace=False)
            rel = np.array([qrels[q].get(f"d{j}", 0) for j in items])
            score = rng.random(30) + boost * rel
            run[q] = {f"d{j}": float(v) for j, v in zip(items, score)}
        runs[f"sys{s}"] = run
    return qrels, runs


@pytest.fixture(scope="session")
def data():
    return make_data()
