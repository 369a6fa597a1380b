"""Concentration of item exposure: the Gini index and the Shannon entropy.

The exposure ``c_i`` of an item is the number of top-k lists that contain it. The
population of items is the catalogue (``context["catalog"]``, unexposed items count
with ``c_i = 0``) together with any recommended item outside it, or only the
recommended items (``items=recommended``).

>>> import rankmeter
>>> run = {"u1": ["a", "b"], "u2": ["a", "c"]}
>>> ctx = {"catalog": ["a", "b", "c", "d"]}
>>> # exposure sorted ascending: d=0, b=1, c=1, a=2 (n=4, total 4)
>>> # Gini = sum_j (2j - n - 1) c_j / (n total) = (-3*0 - 1*1 + 1*1 + 3*2) / 16 = 0.375
>>> # entropy = -(1/2 log2 1/2 + 2 * 1/4 log2 1/4) = 1.5 bits
>>> rankmeter.evaluate(run, run, ["gini@2", "entropy@2"], context=ctx).mean
{'gini@2': 0.375, 'entropy@2': 1.5}
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..batch import Batch
from ..registry import MetricSpec, Param, register
from ._context import HELPER, ContextExample
from ._state import ItemState, merge_states
from .coverage import catalog_ids

# exposure in the examples: a in 2 lists, b and c in 1, d (catalogue) in none
_RUN = {"u1": ["a", "b"], "u2": ["a", "c"]}
_CTX = {"catalog": ["a", "b", "c", "d"]}


def exposure_kernel(b: Batch, **params: Any) -> ItemState:
    return ItemState.from_batch(b)


def population_counts(state: ItemState, context: Mapping[str, Any], items: str, metric: str) -> np.ndarray:
    """Exposure of every item of the population (catalogue items never recommended: 0)."""
    counts = state.sums["count"].astype(np.float64)
    if items == "recommended":
        return counts
    cat = catalog_ids(context, "catalog", metric)
    in_exposed = pc.is_in(cat, value_set=state.ids) if len(state.ids) else pa.array([False] * len(cat))
    n_unexposed = len(cat) - int(pc.sum(in_exposed).as_py() or 0)
    return np.concatenate((np.zeros(n_unexposed), counts))


def gini_finalize(state: ItemState, *, context: Mapping[str, Any], items: str, norm: str) -> float:
    c = np.sort(population_counts(state, context, items, "gini"))
    n = len(c)
    total = c.sum()
    if n == 0 or total == 0:
        return float("nan")
    j = np.arange(1, n + 1, dtype=np.float64)
    g = float(np.sum((2 * j - n - 1) * c) / (n * total))
    if norm == "n-1":
        g = g * n / (n - 1) if n > 1 else 0.0
    return g


_ITEMS = Param("items", str, "catalog", "population: the catalogue plus any recommended item (catalog) or the "
               "recommended items only (recommended)", choices=("catalog", "recommended"))

register(
    MetricSpec(
        name="gini",
        family="beyond",
        summary="Gini index of item exposure in the top-k lists (0: every item equally exposed, 1: one item).",
        formula=r"G@k = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{n \sum_j c_{(j)}},\quad c_{(1)} \le \dots "
                r"\le c_{(n)}",
        citation=(
            "Fleder & Hosanagar (2009), Blockbuster culture's next rise or fall, Management Science 55(5), "
            "doi:10.1287/mnsc.1080.0974; Adomavicius & Kwon (2012), Improving aggregate recommendation "
            "diversity using ranking-based techniques, IEEE TKDE, doi:10.1109/TKDE.2011.15; RecBole's GiniIndex."
        ),
        convention=(
            "c_(j) is the exposure (number of top-k lists containing the item) sorted ascending over the "
            "population: items=catalog (default) is context['catalog'] (unrecommended items count with 0) plus "
            "any recommended item outside it; items=recommended only the items recommended at least once. "
            "norm=n (default, RecBole) has maximum (n-1)/n; norm=n-1 rescales by n/(n-1) so one item taking "
            "all exposure gives 1 (Elliot reports 1 minus this). No exposure at all: nan. "
            f"Needs context['catalog'] for items=catalog (from {HELPER})."
        ),
        kernel=exposure_kernel,
        params=(_ITEMS, Param("norm", str, "n", "divide by n (n) or rescale to a maximum of 1 (n-1)",
                              choices=("n", "n-1"))),
        aliases={"gini_index": {}},
        examples=(
            ContextExample("gini@2", _RUN, _RUN, _CTX, (-3 * 0 - 1 * 1 + 1 * 1 + 3 * 2) / (4 * 4),
                           note="sorted 0,1,1,2: weights 2j-n-1 = -3,-1,1,3"),
            ContextExample("gini(norm=n-1)@2", _RUN, _RUN, _CTX, 0.375 * 4 / 3),
            ContextExample("gini(items=recommended)@2", _RUN, _RUN, _CTX, (-2 * 1 + 0 * 1 + 2 * 2) / (3 * 4),
                           note="d left out: sorted 1,1,2, weights -2,0,2"),
            ContextExample("gini@1", _RUN, _RUN, _CTX, (-3 * 0 - 1 * 0 + 1 * 0 + 3 * 2) / (4 * 2),
                           note="top 1: a twice; sorted 0,0,0,2: (-3-1+1)*0 + 3*2 = 6, / (4*2) = 0.75"),
        ),
        higher_is_better=False,
        bounds=(0.0, 1.0),
        properties=frozenset({"beyond", "needs_context", "judgment_free", "corpus"}),
        level="corpus",
        merge=merge_states,
        finalize=gini_finalize,
    )
)


def entropy_finalize(state: ItemState, *, context: Mapping[str, Any], base: float, normalize: str) -> float:
    c = state.sums["count"].astype(np.float64)
    total = c.sum()
    if total == 0:
        return float("nan")
    p = c / total
    h = float(-np.sum(p * np.log(p)) / np.log(base))
    if normalize == "distinct_count":  # RecBole's ShannonEntropy: over the number of distinct recommended items
        return h / len(c)
    if normalize != "none":
        n = len(population_counts(state, context, normalize, "entropy"))
        return h / (np.log(n) / np.log(base)) if n > 1 else 0.0
    return h


register(
    MetricSpec(
        name="entropy",
        family="beyond",
        summary="Shannon entropy of the item exposure distribution in the top-k lists (higher: spread wider).",
        formula=r"H@k = -\sum_i p_i \log_b p_i,\quad p_i = \frac{c_i}{\sum_j c_j}",
        citation=(
            "Shannon (1948), A mathematical theory of communication; Adomavicius & Kwon (2012), IEEE TKDE, "
            "doi:10.1109/TKDE.2011.15 (entropy-diversity); Elliot's ShannonEntropy."
        ),
        convention=(
            "c_i is the exposure (number of top-k lists containing item i); items never recommended contribute "
            "0. Logarithm base 2 (bits) by default (base=...). normalize=none (default) gives bits; "
            "normalize=catalog divides by log n over the catalogue plus any recommended item outside it "
            "(needs context['catalog']), normalize=recommended by log of the number of recommended items, "
            "normalize=distinct_count by the number of distinct recommended items itself (RecBole's "
            "ShannonEntropy, with base=e: natural logarithm; recbole/evaluator/metrics.py). "
            "No exposure at all: nan."
        ),
        kernel=exposure_kernel,
        params=(
            Param("base", float, 2.0, "logarithm base (e: natural)", low=0, low_open=True, exclude=(1.0,),
                  named={"e": float(np.e)}),
            Param("normalize", str, "none", "divide by the maximum entropy over the catalog or the recommended "
                  "items, or by the number of distinct recommended items (distinct_count)",
                  choices=("none", "catalog", "recommended", "distinct_count")),
        ),
        aliases={"shannon_entropy": {}},
        examples=(
            ContextExample("entropy@2", _RUN, _RUN, _CTX, 1.5, note="p = 1/2, 1/4, 1/4: 1/2*1 + 2*(1/4*2) bits"),
            ContextExample("entropy(normalize=catalog)@2", _RUN, _RUN, _CTX, 1.5 / 2,
                           note="divided by log2 4"),
            ContextExample("entropy(base=2.718281828459045)@2", _RUN, _RUN, _CTX, 1.5 * 0.6931471805599453,
                           tol=1e-9, note="nats"),
            ContextExample("entropy@1", _RUN, _RUN, _CTX, 0.0, note="top 1: a only"),
            ContextExample("entropy(normalize=distinct_count,base=e)@2", _RUN, _RUN, _CTX,
                           1.5 * 0.6931471805599453 / 3, tol=1e-12,
                           note="RecBole: 1.5 bits in nats, over the 3 distinct recommended items"),
        ),
        higher_is_better=True,
        bounds=(0.0, float("inf")),
        properties=frozenset({"beyond", "judgment_free", "corpus"}),
        level="corpus",
        merge=merge_states,
        finalize=entropy_finalize,
    )
)
