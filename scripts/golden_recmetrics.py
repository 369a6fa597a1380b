"""Golden values of recmetrics' metrics (recmetrics/metrics.py), made once in a separate environment
(recmetrics 0.1.5 needs pandas < 2; its metrics module is loaded by path, without the plotting module that
its package imports).

Made with:

    python3 -m venv /tmp/msenv
    /tmp/msenv/bin/python -m pip install --only-binary=:all: "numpy<2" "pandas<3" scikit-learn scipy matplotlib
    /tmp/msenv/bin/python -m pip install --no-deps recmetrics==0.1.5
    /tmp/msenv/bin/python scripts/golden_recmetrics.py > tests/core/conventions_data/recmetrics.json
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def _metrics() -> object:
    found = importlib.util.find_spec("recmetrics")  # located, not imported (its __init__ imports plotly)
    path = Path(found.submodule_search_locations[0]) / "metrics.py"  # type: ignore[union-attr,index]
    spec = importlib.util.spec_from_file_location("recmetrics_metrics", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def main() -> None:
    rm = _metrics()
    rng = np.random.default_rng(2617)
    items = [f"i{i}" for i in range(20)]
    users = [f"u{u}" for u in range(25)]
    k = 6
    predicted = [[str(i) for i in rng.permutation(items)[:k]] for _ in users]
    actual = [[str(i) for i in rng.choice(items, size=int(rng.integers(1, 6)), replace=False)] for _ in users]
    train = [(u, str(i)) for u in users for i in rng.choice(items, size=int(rng.integers(3, 9)), replace=False)]
    pop: dict[str, int] = {}
    for _, i in train:
        pop[i] = pop.get(i, 0) + 1
    for lst in predicted:  # recmetrics needs a count for every recommended item
        for i in lst:
            pop.setdefault(i, 1)
    features = pd.DataFrame(rng.integers(0, 2, size=(len(items), 5)), index=items)
    novelty, _ = rm.novelty(predicted, pop, len(users), k)
    values = {"novelty": float(novelty), "mark": float(rm.mark(actual, predicted, k=k)),
              "personalization": float(rm.personalization(predicted)),
              "intra_list_similarity": float(rm.intra_list_similarity(predicted, features))}
    json.dump({"tool": "recmetrics", "version": "0.1.5", "k": k, "users": users, "predicted": predicted,
               "actual": actual, "train": train, "pop": pop, "features": features.values.tolist(), "items": items,
               "values": values}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
