"""Compare runs: per-query scores on one query set, paired tests, intervals, reports.

>>> qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 2}, "q4": {"e": 1}}
>>> runs = {"bm25": {"q1": ["a", "x", "b"], "q2": ["y", "c"], "q3": ["z", "d"], "q4": ["w", "e"]},
...         "dense": {"q1": ["a", "b"], "q2": ["c"], "q3": ["d"], "q4": ["e"]}}
>>> cmp = compare(qrels, runs, ["P@1", "ndcg@3"], test="randomization")
>>> cmp.means["dense"]["P@1"], cmp.means["bm25"]["P@1"]
(1.0, 0.25)
>>> t = cmp.test("P@1", "bm25", "dense")
>>> t.diff, t.p_value, t.method          # 4 queries: all 16 sign patterns enumerated
(0.75, 0.25, 'exact (16 sign patterns)')

What is compared
----------------
Every run is evaluated on the *same* query list (``queries="judged"``: every
judged query with a relevant item, as :func:`rankmeter.evaluate`); a query
missing from a run scores as an empty ranking there, and the number of such
queries is reported per run. Precomputed :class:`~rankmeter.result.Result`
objects (e.g. from ``evaluate_ratings``) cannot be re-scored on queries they lack,
so they are aligned on the queries common to all inputs and the left-out
queries are counted in ``notes``.

Tests, intervals, corrections
-----------------------------
See :mod:`rankmeter.stats.tests`. Every mean and every difference gets a
bootstrap interval (BCa by default) from ``n_resamples`` resamples of the
queries, the same resamples for every run (the paired design). The tests of
one metric with one test form a family (``family="metric"``, default) that the
correction (Holm by default) adjusts; ``family="all"`` makes every metric's
comparisons one family. One ``seed`` drives everything through
``numpy.random.SeedSequence(seed).spawn(2)``: stream 0 draws the randomisation
sign patterns, stream 1 the bootstrap resamples.

The stages are functions of :mod:`rankmeter.compare.stages`; the value returned
is a :class:`~rankmeter.compare.comparison.Comparison`, rendered by
:mod:`rankmeter.report`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names
from .api import compare

if TYPE_CHECKING:  # the names loaded on first use, as type checkers see them
    from ..stats.tests import TEST_NAMES, TESTS
    from .comparison import Comparison, PairTest, Settings

__all__ = ["compare", "Comparison", "PairTest", "Settings", "TESTS", "TEST_NAMES"]

# loaded on first use: the statistics are not needed until a comparison is made
__getattr__ = lazy_names(__name__, {"Comparison": ".comparison", "PairTest": ".comparison",
                                    "Settings": ".comparison", "TESTS": "..stats.tests",
                                    "TEST_NAMES": "..stats.tests"})
