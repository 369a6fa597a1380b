"""Golden values of Microsoft Recommenders' ranking metrics (recommenders/evaluation/python_evaluation.py),
made once in a separate environment (pandas < 3). The functions return means over users; the data are seeded
and written with the values (scores without ties, every user in both frames).

Made with:

    python3 -m venv /tmp/msenv
    /tmp/msenv/bin/python -m pip install --only-binary=:all: "numpy<2" "pandas<3" scikit-learn scipy
    /tmp/msenv/bin/python -m pip install --no-deps recommenders==1.2.1
    /tmp/msenv/bin/python scripts/golden_msrecommenders.py > tests/core/conventions_data/msrecommenders.json
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
import recommenders
from recommenders.evaluation import python_evaluation as E


def main() -> None:
    rng = np.random.default_rng(2615)
    items = [f"i{i}" for i in range(30)]
    true_rows, pred_rows = [], []
    for u in range(40):
        user = f"u{u}"
        for i in rng.choice(items, size=int(rng.integers(1, 8)), replace=False):
            true_rows.append((user, str(i), 1.0))
        for score, i in zip(rng.permutation(30)[:12] + 0.5, rng.permutation(items)[:12], strict=True):
            pred_rows.append((user, str(i), float(score)))
    true_df = pd.DataFrame(true_rows, columns=["userID", "itemID", "rating"])
    pred_df = pd.DataFrame(pred_rows, columns=["userID", "itemID", "prediction"])
    values = {}
    for k in (3, 5, 10):
        for name in ("precision_at_k", "recall_at_k", "ndcg_at_k", "map_at_k", "r_precision_at_k"):
            values[f"{name}@{k}"] = float(getattr(E, name)(true_df, pred_df, k=k))
    json.dump({"tool": "msrecommenders", "version": recommenders.__version__, "true": true_rows, "pred": pred_rows,
               "values": values}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
