"""Golden values of LensKit's top-N metrics (lenskit/metrics/topn.py), made once in a separate environment
(LensKit 0.14 needs pandas < 3, so it cannot run beside rankmeter). The data are seeded and written with the
values.

Made with:

    python3 -m venv /tmp/lkenv
    /tmp/lkenv/bin/python -m pip install --only-binary=:all: "numpy<2" "pandas<3" "lenskit==0.14.4"
    /tmp/lkenv/bin/python scripts/golden_lenskit.py > tests/core/conventions_data/lenskit.json
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
from lenskit.metrics import topn


def main() -> None:
    rng = np.random.default_rng(2614)
    items = [f"i{i}" for i in range(25)]
    reco: dict[str, list[str]] = {}
    truth: dict[str, dict[str, int]] = {}
    for u in range(40):
        user = f"u{u}"
        reco[user] = [str(i) for i in rng.permutation(items)[: int(rng.integers(3, 12))]]  # some shorter than k
        chosen = rng.choice(items, size=int(rng.integers(1, 7)), replace=False)
        truth[user] = {str(i): int(rng.integers(1, 4)) for i in chosen}  # graded ratings
    k = 8
    funcs = {"precision": topn.precision, "recall": topn.recall, "ndcg": topn.ndcg, "recip_rank": topn.recip_rank,
             "hit": topn.hit}
    values: dict[str, dict[str, float]] = {name: {} for name in funcs}
    for user, lst in reco.items():
        recs = pd.DataFrame({"item": lst})
        t = pd.DataFrame({"rating": list(truth[user].values())}, index=pd.Index(list(truth[user]), name="item"))
        for name, f in funcs.items():
            values[name][user] = float(f(recs, t, k=k))
    json.dump({"tool": "lenskit", "version": "0.14.4", "k": k, "reco": reco, "truth": truth, "values": values},
              sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
