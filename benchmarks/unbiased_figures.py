"""The figures of docs/unbiased.md: corrected sampled metrics and SNIPS, measured on generated data.

Run: ``PYTHONPATH=src python benchmarks/unbiased_figures.py`` (about a minute on 2 cores).
It prints two Markdown tables, copied into docs/unbiased.md:

1. ``movielens100k_like(0)``, the experiment's default split (temporal, per user, 20%),
   recommenders popular and item-kNN: recall@10 and ndcg@10 under full ranking, plain
   sampled (N=100) and the corrected estimates (bv, mle), with each estimate's error
   against full ranking and the factor by which it cuts the plain sampled error.
2. ``biased_feedback(seed=0)`` (known propensities): recall@10, ndcg@10, precision@10 and
   RBP against every relevant item not in train (full information), and the plain, IPS and
   SNIPS (per-user and corpus normaliser) estimates from the observed test items only,
   computed by ``rankmeter.evaluate`` with the generator's propensities per (user, item).
"""

from __future__ import annotations

import numpy as np

import rankmeter
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
    """Full information vs the estimates from the observed test items, with the registry's metrics
    (propensities given per (user, item): the generator's exact ones)."""
    d = rankmeter.datasets.biased_feedback(seed=seed)
    truth, observed = _by_user(d.truth), _by_user(d.test)
    users = sorted(u for u in observed if u in truth)
    pairs = {(u, i): d.propensity[i] for u in users for i in observed[u]}
    lines = ["| recommender | metric | full information | plain | IPS | SNIPS (per user) | SNIPS (corpus) |",
             "|---|---|---|---|---|---|---|"]
    scaled: dict[tuple[str, str], tuple[float, float, float]] = {}
    for name, rec in (("popular", MostPopular()), ("itemknn", ItemKNN())):
        rec.fit(d.train)
        top = rec.recommend(users, 10)
        run: dict[str, list[str]] = {}
        for u, i in zip(top.column("user").to_pylist(), top.column("item").to_pylist()):
            run.setdefault(str(u), []).append(str(i))
        plain_names = METRICS + ["precision@10", "rbp"]
        full = rankmeter.evaluate({u: {i: 1 for i in truth[u]} for u in users}, run, plain_names)
        texts = {}
        for m in plain_names:
            base, _, k = m.partition("@")
            cut = f"@{k}" if k else ""
            texts[m] = [m] + [f"{pre}{base}{suf}(propensity=given){cut}"
                              for pre, suf in (("ips_", ""), ("snips_", ""), ("snips_", "_corpus"))]
        est = rankmeter.evaluate({u: {i: 1 for i in observed[u]} for u in users}, run,
                                 [t for ts in texts.values() for t in ts], context={"propensity": pairs})
        share = np.array([len(observed[u]) / len(truth[u]) for u in full.queries])
        for m in plain_names:
            f = full.mean[m]
            vals = [est.mean[t] for t in texts[m]]
            lines.append(f"| {name} | {m} | {f:.3f} | " + " | ".join(f"{v:.3f} ({v - f:+.3f})" for v in vals) + " |")
            if m in ("precision@10", "rbp"):  # what the self-normalised precision and RBP estimate
                scaled[(name, m)] = (float(np.mean(full.values[m] * share)), vals[2], vals[3])
    lines += ["", "| recommender | metric | full information x observed share | SNIPS (per user) | SNIPS (corpus) |",
              "|---|---|---|---|---|"]
    lines += [f"| {n} | {m} | {t:.3f} | {a:.3f} | {b:.3f} |" for (n, m), (t, a, b) in scaled.items()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(sampled_table())
    print()
    print(snips_table())
