"""Golden values of RecBole's evaluator metrics (recbole/evaluator/metrics.py), made once in a separate
environment (RecBole 1.2.1 uses numpy's np.float, removed in numpy 1.24, so it cannot run beside rankmeter).
The metrics are RecBole's own classes; their inputs are built here as RecBole's Collector builds them
(``rec.topk``: the positive flags of each user's top k and the number of positives; ``rec.meanrank``: the sum
of the positives' average ranks, with a padding column scored -inf as RecBole pads; ``rec.items``: the top-k
item ids; ``data.count_items``: training interactions per item), with ``metric_decimal_place=15`` (RecBole
rounds to 4 places by default).

Made with:

    python3 -m venv /tmp/rbenv
    /tmp/rbenv/bin/python -m pip install --only-binary=:all: numpy==1.23.5 "pandas<2.1" "scipy<1.12" \\
        torch==2.13.0 colorlog colorama pyyaml tqdm texttable tabulate tensorboard thop "scikit-learn<1.4"
    /tmp/rbenv/bin/python -m pip install --no-deps recbole==1.2.1
    /tmp/rbenv/bin/python scripts/golden_recbole.py > tests/core/conventions_data/recbole.json
"""

from __future__ import annotations

import json
import sys
from collections import Counter

import numpy as np
import recbole
import torch
from recbole.evaluator import metrics as M
from recbole.evaluator.collector import Collector


class _Data:
    def __init__(self, values: dict) -> None:
        self.values = values

    def get(self, key: str) -> object:  # RecBole's DataStruct.get
        return self.values[key]


class _Device:
    device = "cpu"


def main() -> None:
    rng = np.random.default_rng(2616)
    n_users, n_items, ks = 30, 20, (5, 10)
    # scores over every item; the top-k metrics read tie-free scores, GAUC reads tied ones
    free = np.stack([rng.permutation(n_items) + 0.5 for _ in range(n_users)]).astype(np.float64)
    tied = rng.integers(0, 4, size=(n_users, n_items)).astype(np.float64)
    pos = np.zeros((n_users, n_items), dtype=np.float64)
    for u in range(n_users):
        pos[u, rng.choice(n_items, size=int(rng.integers(1, 6)), replace=False)] = 1.0
    train = [(f"u{u}", f"i{int(i)}") for u in range(n_users) for i in rng.integers(0, n_items, size=6)]
    config = {"topk": list(ks), "metric_decimal_place": 15, "tail_ratio": 0.1}

    scores = torch.tensor(free)
    top = torch.topk(scores, max(ks), dim=-1).indices
    pos_i = torch.tensor(pos.astype(np.int64))  # integer flags, as RecBole's collector makes them
    rec_topk = torch.cat((torch.gather(pos_i, 1, top), pos_i.sum(dim=1, keepdim=True)), dim=1)
    pos_t = torch.tensor(pos)
    count_items = Counter(int(i[1:]) for _, i in train)
    data = _Data({"rec.topk": rec_topk, "rec.items": top, "data.count_items": count_items,
                  "data.num_items": n_items})
    values: dict[str, float] = {}
    for cls in (M.Hit, M.MRR, M.Recall, M.Precision, M.NDCG, M.MAP):
        values.update(cls(config).calculate_metric(data))
    for cls in (M.ShannonEntropy, M.TailPercentage, M.AveragePopularity, M.GiniIndex, M.ItemCoverage):
        values.update(cls(config).calculate_metric(data))

    padded = torch.cat((torch.tensor(tied), torch.full((n_users, 1), -np.inf)), dim=1)
    desc_scores, desc_index = torch.sort(padded, dim=-1, descending=True)
    pos_pad = torch.cat((pos_t, torch.zeros((n_users, 1), dtype=pos_t.dtype)), dim=1)
    pos_index = torch.gather(pos_pad, 1, desc_index)
    avg_rank = Collector._average_rank(_Device(), desc_scores)
    pos_rank_sum = torch.where(pos_index == 1, avg_rank, torch.zeros_like(avg_rank)).sum(dim=-1, keepdim=True)
    meanrank = torch.cat((pos_rank_sum, desc_scores.argmin(dim=1, keepdim=True), pos_t.sum(1, keepdim=True)), 1)
    values.update(M.GAUC(config).calculate_metric(_Data({"rec.meanrank": meanrank})))

    json.dump({"tool": "recbole", "version": recbole.__version__, "free": free.tolist(), "tied": tied.tolist(),
               "positives": pos.astype(int).tolist(), "train": train, "values": values},
              sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
