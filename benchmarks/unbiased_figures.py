"""The figures of docs/unbiased.md: corrected sampled metrics and SNIPS, measured on generated data.

Run: ``PYTHONPATH=src python benchmarks/unbiased_figures.py`` (about a minute on 2 cores).
It prints two Markdown tables, copied into docs/unbiased.md:

1. ``movielens100k_like(0)``, the experiment's default split (temporal, per user, 20%),
   recommenders popular and item-kNN: recall@10 and ndcg@10 under full ranking, plain
   sampled (N=100) and the corrected estimates (bv, mle), with each estimate's error
   against full ranking and the factor by which it cuts the plain sampled error.
2. ``biased_feedback(seed=0)`` (known propensities): recall@10 and ndcg@10 against every
   relevant item not in train (full information), and the plain, IPS and SNIPS estimates
   from the observed test items only.
"""

from __future__ import annotations

import numpy as np

import rankmeter
from rankmeter.metrics.unbiased.snips import snips
from rankmeter.recsys.pipeline import experiment
from rankmeter.recsys.recommenders import ItemKNN, MostPopular

METRICS = ["recall@10", "ndcg@10"]
RECS = ("popular", "itemknn")


def sampled_table() -> str:
    data = rankmeter.datasets.movielens100k_like(0)
    full = experiment(data, recommenders=RECS, metrics=METRICS)
    runs = {"sampled N=100": experiment(data, recommenders=RECS, metrics=METRICS, sampled=100)}
    for c in ("bv", "mle"):
        runs[f"corrected ({c})"] = experiment(data, recommenders=RECS, metrics=METRICS, sampled=100,
                                              sampled_correction=c)
    lines = ["| recommender | metric | full ranking | " + " | ".join(runs) + " | error cut (bv) | error cut (mle) |",
             "|---|---|---|" + "---|" * (len(runs) + 2)]
    for name in RECS:
        for m in METRICS:
            truth = full.results[name].mean[m]
            vals = {k: r.results[name].mean[m] for k, r in runs.items()}
            plain_err = abs(vals["sampled N=100"] - truth)
            cells = [f"{v:.3f} ({v - truth:+.3f})" for v in vals.values()]
            cuts = [f"{plain_err / max(abs(vals[f'corrected ({c})'] - truth), 1e-12):.1f}x" for c in ("bv", "mle")]
            lines.append(f"| {name} | {m} | {truth:.3f} | " + " | ".join(cells) + " | " + " | ".join(cuts) + " |")
    order = []
    for m in METRICS:
        f = full.results["itemknn"].mean[m] > full.results["popular"].mean[m]
        for k, r in runs.items():
            same = (r.results["itemknn"].mean[m] > r.results["popular"].mean[m]) == f
            order.append(f"{m} {k}: {'same order as full ranking' if same else 'ORDER FLIPPED'}")
    risk = runs["corrected (mle)"].flip_risk
    extra = [f"flip risk (mle, bootstrap over users): " + "; ".join(
        f"{m} {o} vs {runs['corrected (mle)'].baseline}: {v['flip_risk']:.3f}" for m, per in risk.items()
        for o, v in per.items())]
    return "\n".join(lines + [""] + order + extra)


def _by_user(table) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for u, i in zip(table.column("user").to_pylist(), table.column("item").to_pylist()):
        out.setdefault(str(u), set()).add(str(i))
    return out


def snips_table(seed: int = 0) -> str:
    d = rankmeter.datasets.biased_feedback(seed=seed)
    truth, observed = _by_user(d.truth), _by_user(d.test)
    users = [u for u in observed if u in truth]
    lines = ["| recommender | metric | full information | plain | IPS | SNIPS |", "|---|---|---|---|---|---|"]
    for name, rec in (("popular", MostPopular()), ("itemknn", ItemKNN())):
        rec.fit(d.train)
        top = rec.recommend(users, 10)
        run: dict[str, list[str]] = {}
        for u, i in zip(top.column("user").to_pylist(), top.column("item").to_pylist()):
            run.setdefault(str(u), []).append(str(i))
        for m in METRICS:
            full = np.mean(list(snips({u: truth[u] for u in users}, run, d.propensity, m, "plain").values()))
            vals = [np.mean(list(snips({u: observed[u] for u in users}, run, d.propensity, m, e).values()))
                    for e in ("plain", "ips", "snips")]
            lines.append(f"| {name} | {m} | {full:.3f} | " + " | ".join(f"{v:.3f} ({v - full:+.3f})" for v in vals)
                         + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(sampled_table())
    print()
    print(snips_table())
