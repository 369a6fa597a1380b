"""Miscalibration (Steck 2018): KL divergence of the list's category mix from the user's taste.

p(g|u) is the category distribution of the user's training items, q(g|u) that of the
top-k list; an item with categories G(i) gives each of them 1/|G(i)|.

>>> import rankmeter
>>> ctx = {"categories": {"a": {"x"}, "b": {"y"}, "c": {"x", "y"}},
...        "train_items": {"u": ["a", "c"]}}
>>> # p(x|u) = (1 + 1/2)/2 = .75, p(y|u) = .25; the list [b]: q(y|u) = 1
>>> r = rankmeter.evaluate({"u": ["b"]}, {"u": ["b", "a"]}, "miscalibration@1", context=ctx)
>>> round(r.mean["miscalibration@1"], 6)   # .75 log(.75/(.01*.75)) + .25 log(.25/(.99 + .01*.25))
3.109186
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence, cast

import numpy as np

from ..._errors import ParameterError
from ..batch import Batch
from ..registry import MetricSpec, Param, register
from ._context import HELPER, ContextExample, _check_unique, _ids, batch_vocab, need, positions
from .profiles import PAIRS_HELPER, batch_user_codes, ref_user_items, user_pairs

_CTX = {"categories": {"a": {"x"}, "b": {"y"}, "c": {"x", "y"}, "d": set()},
        "train_items": {"u1": ["a", "c"], "u2": ["b"], "u3": ["d"]}}


def category_matrix(context: Mapping[str, Any] | None, metric: str) -> tuple[Any, Any]:
    """(item ids, sparse item x label matrix with 1/|G(i)| in each of the item's labels)."""
    from scipy import sparse

    raw = need(context, "categories", metric)
    if not isinstance(raw, Mapping):
        raise ParameterError(f"context['categories'] of {metric} must be a mapping item id -> set of labels. "
                             f"Got {type(raw).__name__} instead.")
    keys = list(raw.keys())
    ids = _ids(keys, "categories", metric)
    _check_unique(ids, "categories", metric)
    label_index: dict[Any, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for n, key in enumerate(keys):
        labels = raw[key]
        labels = {labels} if isinstance(labels, (str, bytes)) else set(labels)
        for lab in labels:
            rows.append(n)
            cols.append(label_index.setdefault(lab, len(label_index)))
            vals.append(1.0 / len(labels))
    mat = sparse.csr_matrix((vals, (rows, cols)), shape=(len(keys), max(len(label_index), 1)))
    return ids, mat


def _kl(p: np.ndarray, q: np.ndarray, alpha: float) -> np.ndarray:
    mix = (1 - alpha) * q + alpha * p
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0) / np.where(p > 0, mix, 1.0)), 0.0)
    return cast(np.ndarray, terms.sum(axis=1))


def miscalibration_kernel(b: Batch, alpha: float, weights: str) -> np.ndarray:
    from scipy import sparse

    ids, cmat = category_matrix(b.context, "miscalibration")
    nq = b.n_queries
    # q(g|u): the list's categorised items, weighted 1 or 1/log2(rank+1)
    pos = positions(batch_vocab(b), ids)
    rpos = pos[b.item] if len(b.item) else np.zeros(0, dtype=np.int64)
    has = rpos >= 0
    if len(has):
        has &= np.asarray(cmat.getnnz(axis=1) > 0)[np.maximum(rpos, 0)]
    w = 1.0 / np.log2(b.pos + 1.0) if weights == "rank" else np.ones(len(b.item))
    row_q = np.repeat(np.arange(nq, dtype=np.int64), b.lengths)
    h = sparse.csr_matrix((w[has], (row_q[has], rpos[has])), shape=(nq, cmat.shape[0]))
    qsum = np.asarray((h @ cmat).todense()).reshape(nq, cmat.shape[1])
    wsum = np.bincount(row_q[has], weights=w[has], minlength=nq)[:nq]
    q = np.divide(qsum, wsum[:, None], out=np.zeros_like(qsum), where=wsum[:, None] > 0)
    # p(g|u): the user's distinct categorised training items
    users, items = user_pairs(b.context, "train_items", "miscalibration")
    uc = batch_user_codes(b, users, "miscalibration")
    ip = positions(items, ids) if len(items) else np.zeros(0, dtype=np.int64)
    ok = (uc >= 0) & (ip >= 0)
    if ok.any():
        ok[ok] = np.asarray(cmat.getnnz(axis=1) > 0)[ip[ok]]
    ht = sparse.csr_matrix((np.ones(int(ok.sum())), (uc[ok], ip[ok])), shape=(nq, cmat.shape[0]))
    psum = np.asarray((ht @ cmat).todense()).reshape(nq, cmat.shape[1])
    n_train = np.bincount(uc[ok], minlength=nq)[:nq].astype(np.float64)
    p = np.divide(psum, n_train[:, None], out=np.zeros_like(psum), where=n_train[:, None] > 0)
    out = _kl(p, q, alpha)
    out[n_train == 0] = np.nan
    return out


def miscalibration_reference(ranking: Sequence[str], qrels: Mapping[str, float], k: int | None, *,
                             context: Mapping[str, Any] | None = None, query: str = "", alpha: float = 0.01,
                             weights: str = "uniform") -> float:
    kept = list(ranking if k is None else ranking[:k])
    cats = {str(i): ({c} if isinstance(c, str) else set(c)) for i, c in need(context, "categories", "m").items()}
    train = [i for i in sorted(ref_user_items(context, "train_items", query, "miscalibration")) if cats.get(i)]
    if not train:
        return math.nan
    p: dict[Any, float] = {}
    for i in train:
        for g in cats[i]:
            p[g] = p.get(g, 0.0) + 1.0 / len(cats[i]) / len(train)
    qw: dict[Any, float] = {}
    total_w = 0.0
    for r, i in enumerate(kept, start=1):
        if not cats.get(i):
            continue
        w = 1.0 / math.log2(r + 1) if weights == "rank" else 1.0
        total_w += w
        for g in cats[i]:
            qw[g] = qw.get(g, 0.0) + w / len(cats[i])
    q = {g: v / total_w for g, v in qw.items()} if total_w else {}
    return sum(pg * math.log(pg / ((1 - alpha) * q.get(g, 0.0) + alpha * pg)) for g, pg in p.items() if pg > 0)


register(
    MetricSpec(
        name="miscalibration",
        family="beyond",
        summary="Steck's miscalibration: KL divergence of the top-k list's category mix from the user's profile.",
        formula=r"C_{KL}@k(u) = \sum_g p(g|u) \log \frac{p(g|u)}{(1-\alpha)\, q(g|u) + \alpha\, p(g|u)},\quad "
                r"p(g|i) = \frac{[g \in G(i)]}{|G(i)|}",
        citation=(
            "Steck (2018), Calibrated recommendations, RecSys, doi:10.1145/3240323.3240372; LibRec's calibration "
            "evaluator; Abdollahpouri et al. (2020), RecSys, doi:10.1145/3383313.3418487."
        ),
        convention=(
            "p(g|u) is the mean of p(g|i) over the user's distinct training items that have a category "
            "(context['train_items'], context['categories']); q(g|u) the mean over the list's items with a "
            "category, each weighted 1 (weights=uniform) or, Steck's rank-discounted variant, 1/log2(rank+1) "
            "(weights=rank). Items without a category are left out of both means (so both are distributions). "
            "alpha = 0.01 (Steck) keeps the divergence finite; a list without a categorised item has q = 0 and "
            "scores log(1/alpha) spread over p. Natural logarithm. A user without a categorised training item has "
            "no value: nan in per_query, left out of the mean and counted (Result.by_group reports the count). "
            f"Needs context['categories'] (from {HELPER}) and context['train_items'] (from {PAIRS_HELPER})."
        ),
        kernel=miscalibration_kernel,
        reference=miscalibration_reference,
        params=(
            Param("alpha", float, 0.01, "weight of p(g|u) mixed into q(g|u) (Steck: 0.01)", low=0, high=1,
                  low_open=True, high_open=False),
            Param("weights", str, "uniform", "weight of each list position in q(g|u): uniform, or rank "
                  "(1/log2(rank+1))", choices=("uniform", "rank")),
        ),
        aliases={"calibration_kl": {}, "ckl": {}},
        examples=(
            ContextExample("miscalibration@1", {"u1": ["b", "a"]}, {"u1": ["b"]}, _CTX,
                           .75 * math.log(.75 / (.01 * .75)) + .25 * math.log(.25 / (.99 + .01 * .25)),
                           note="p = (x .75, y .25); q = (y 1)", tol=1e-12),
            ContextExample("miscalibration@2", {"u1": ["c", "a"]}, {"u1": ["b"]}, _CTX, 0.0,
                           note="q = ((1/2 + 1), 1/2)/2 = (x .75, y .25) = p"),
            ContextExample("miscalibration(weights=rank)@2", {"u1": ["c", "a"]}, {"u1": ["b"]}, _CTX,
                           (lambda w2: (lambda qx: .75 * math.log(.75 / (.99 * qx + .0075))
                                        + .25 * math.log(.25 / (.99 * (1 - qx) + .0025)))((.5 + w2) / (1 + w2)))(
                               1 / math.log2(3)),
                           note="weights 1 and 1/log2 3: q(x) = (1/2 + w2)/(1 + w2)", tol=1e-12),
            ContextExample("miscalibration@1", {"u1": ["b"], "u3": ["a"]}, {"u1": ["b"], "u3": ["a"]}, _CTX,
                           .75 * math.log(.75 / (.01 * .75)) + .25 * math.log(.25 / (.99 + .01 * .25)),
                           note="u3's only training item d has no category: left out (nan), the mean is u1's"),
        ),
        higher_is_better=False,
        bounds=(0.0, float("inf")),
        properties=frozenset({"beyond", "needs_context", "judgment_free"}),
    )
)
