"""Golden values of RecTools' metrics, made once in a separate environment (RecTools needs numpy < 2 and
pandas < 3, so it cannot run beside rankmeter). The data are seeded and written with the values.

Made with:

    python3 -m venv /tmp/rtenv
    /tmp/rtenv/bin/python -m pip install --only-binary=:all: "numpy<2" "pandas<3" rectools==0.19.0
    /tmp/rtenv/bin/python scripts/golden_rectools.py > tests/core/conventions_data/rectools.json
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
import rectools
from rectools import Columns
from rectools.metrics import (
    MAP,
    MRR,
    NDCG,
    AvgRecPopularity,
    F1Beta,
    HitRate,
    IntraListDiversity,
    PairwiseHammingDistanceCalculator,
    Precision,
    Recall,
)


def main() -> None:
    rng = np.random.default_rng(26)
    users = [f"u{u}" for u in range(40)]
    items = [f"i{i}" for i in range(30)]
    reco, test, train = [], [], []
    for u in users:
        for rank, i in enumerate(rng.permutation(items)[:10], start=1):
            reco.append((u, str(i), rank))
        for i in rng.choice(items, size=int(rng.integers(1, 6)), replace=False):
            test.append((u, str(i)))
        for i in rng.choice(items, size=int(rng.integers(2, 9)), replace=True):  # repeated pairs on purpose
            train.append((u, str(i)))
    features = {i: [int(x) for x in rng.integers(0, 2, size=4)] for i in items}
    reco_df = pd.DataFrame(reco, columns=[Columns.User, Columns.Item, Columns.Rank])
    test_df = pd.DataFrame(test, columns=[Columns.User, Columns.Item])
    train_df = pd.DataFrame(train, columns=[Columns.User, Columns.Item])
    feat_df = pd.DataFrame.from_dict(features, orient="index")
    k = 5
    metrics = {
        "ndcg": NDCG(k=k), "ndcg_achievable": NDCG(k=k, divide_by_achievable=True), "map": MAP(k=k),
        "map_divide_by_k": MAP(k=k, divide_by_k=True), "mrr": MRR(k=k), "precision": Precision(k=k),
        "recall": Recall(k=k), "f1beta": F1Beta(k=k), "hitrate": HitRate(k=k),
    }
    values = {name: {str(u): float(v) for u, v in m.calc_per_user(reco_df, test_df).items()}
              for name, m in metrics.items()}
    ild = IntraListDiversity(k=k, distance_calculator=PairwiseHammingDistanceCalculator(feat_df))
    values["intralistdiversity"] = {str(u): float(v) for u, v in ild.calc_per_user(reco_df).items()}
    pop = AvgRecPopularity(k=k)
    values["avgrecpopularity"] = {str(u): float(v) for u, v in pop.calc_per_user(reco_df, train_df).items()}
    json.dump({"tool": "rectools", "version": rectools.__version__, "k": k,
               "reco": reco, "test": test, "train": train, "features": features, "values": values},
              sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
