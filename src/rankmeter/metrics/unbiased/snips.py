"""Self-normalised inverse propensity scoring (SNIPS) of recall@k and nDCG@k, per user, from mappings.

SNIPS needs the weights of *every* observed relevant item of a user, retrieved or not,
which a ranking kernel of the registry does not see (a batch carries the judged grades,
not the judged items); so it is a function here, not a registry metric. For each user
``u`` with observed relevant items ``S_u`` and weights ``w_i = 1 / max(p_i, clip)``:

* ``recall@k``: ``sum_{i in S_u, rank_i <= k} w_i / sum_{i in S_u} w_i``;
* ``ndcg@k``: ``sum_{i in S_u, rank_i <= k} w_i / log2(rank_i + 1) / IDCG(min(k, n_u))`` with
  ``n_u = sum_{i in S_u} w_i``, the self-normalised estimate of the number of relevant items
  (``IDCG`` of a fractional count interpolates linearly between whole counts);

``estimator="ips"`` gives the registry's ``ips_recall`` / ``ips_ndcg`` (divide by
``|S_u|``, no rescaling) and ``"plain"`` the unweighted metric. References: Swaminathan &
Joachims (2015), The self-normalized estimator for counterfactual learning, NeurIPS;
Schnabel et al. (2016), ICML; Yang et al. (2018), RecSys.

>>> est = snips({"u": {"a", "b"}}, {"u": ["a", "c", "b"]}, {"a": 0.5, "b": 0.25, "c": 1.0}, "recall@2")
>>> est["u"]   # a found (w 2), b missed (w 4)
0.3333333333333333
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

from ..._errors import InputError, ParameterError

__all__ = ["snips"]


def snips(relevant: Mapping[Any, Iterable[Any]], run: Mapping[Any, Sequence[Any]], propensity: Mapping[Any, float],
          metric: str = "recall@10", estimator: str = "snips", clip: float = 0.0) -> dict[Any, float]:
    """Per-user SNIPS (or IPS, or plain) estimate of ``recall@k`` or ``ndcg@k``; users of ``relevant``
    with at least one relevant item, in its order (a user missing from ``run`` has an empty list)."""
    name, _, cut = metric.partition("@")
    if name not in ("recall", "ndcg") or not cut.isdigit() or int(cut) < 1:
        raise ParameterError(f"The 'metric' parameter of snips must be recall@k or ndcg@k. Got {metric!r} instead.")
    if estimator not in ("snips", "ips", "plain"):
        raise ParameterError(f"The 'estimator' parameter of snips must be snips, ips or plain. Got {estimator!r}.")
    if not 0.0 <= clip <= 1.0:
        raise ParameterError(f"The 'clip' parameter of snips must be in [0, 1]. Got {clip!r} instead.")
    k = int(cut)
    out: dict[Any, float] = {}
    for user, items in relevant.items():
        rel = set(items)
        if not rel:
            continue
        w: dict[Any, float] = {}
        for i in rel:
            if estimator == "plain":
                w[i] = 1.0
                continue
            if i not in propensity:
                raise InputError(f"snips: relevant item {i!r} of user {user!r} has no propensity", source="propensity")
            p = max(float(propensity[i]), clip)
            if p <= 0:
                raise InputError(f"snips: relevant item {i!r} has propensity 0; set clip > 0", source="propensity")
            w[i] = 1.0 / p
        top = list(run.get(user, ()))[:k]
        total = sum(w.values())
        scale = len(rel) / total if estimator == "snips" else 1.0
        if name == "recall":
            out[user] = sum(w[i] for i in top if i in rel) * scale / len(rel)
        else:
            dcg = sum(w[i] / math.log2(r + 2) for r, i in enumerate(top) if i in rel)
            # snips: the number of relevant items is estimated by the sum of the weights (the weighted
            # DCG over the ideal DCG of that many items); ips and plain: the observed count
            n_rel = total if estimator == "snips" else float(len(rel))
            ideal = _ideal(n_rel, k)
            out[user] = dcg / ideal
    return out


def _ideal(n: float, k: int) -> float:
    """Ideal DCG of ``n`` relevant items at cut-off ``k``; a fractional ``n`` interpolates linearly."""
    m = min(float(n), float(k))
    whole = int(math.floor(m))
    value = sum(1 / math.log2(j + 2) for j in range(whole))
    if m > whole:
        value += (m - whole) / math.log2(whole + 2)
    return value
