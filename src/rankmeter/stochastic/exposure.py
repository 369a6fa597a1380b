"""Expected exposure of a stochastic ranking policy (Diaz, Mitra, Ekstrand, Biega and Carterette,
"Evaluating Stochastic Rankings with Expected Exposure", CIKM 2020, doi:10.1145/3340531.3411962).

A policy samples a ranking per request; ``n`` sampled rankings of a query stand for it. Under the
RBP browsing model with patience ``p``, the exposure of item ``d`` in one ranking is ``p^(rank - 1)``
(0 when not ranked), and its *expected exposure* ``e_d`` is the mean over the samples. The *target*
``e*`` is the exposure an ideal policy gives: one that ranks the items by grade, shuffling each grade's
items uniformly. For the ``m`` items of one grade after ``b`` items of better grades::

    e*_d = (p^b - p^(b + m)) / (m (1 - p))

Items with a grade <= 0, and unjudged items, have target 0 (the ideal policy's remaining exposure is
spread over an unbounded corpus). The three measures, unnormalised, as the paper defines them::

    EE-L = ||e - e*||^2        (loss: lower is better)
    EE-D = e . e               (disparity: lower is fairer)
    EE-R = e . e*              (relevance: higher is better)

so that ``EE-L = EE-D - 2 EE-R + e* . e*``. (The authors' tool ``expeval`` normalises by default and
uses a GERR browsing model by default; these are the unnormalised RBP values under the names above.)

>>> e = expected_exposure([["a", "b"], ["b", "a"]], p=0.5)
>>> e
{'a': 0.75, 'b': 0.75}
>>> t = target_exposure({"a": 1, "b": 1, "c": 0}, p=0.5)
>>> t
{'a': 0.75, 'b': 0.75}
>>> ee_measures(e, t)
{'EE-L': 0.0, 'EE-D': 1.125, 'EE-R': 1.125}
"""

from __future__ import annotations

from typing import Mapping, Sequence

from .._errors import ParameterError

__all__ = ["MEASURES", "check_patience", "ee_measures", "expected_exposure", "target_exposure"]

MEASURES = ("EE-L", "EE-D", "EE-R")
HIGHER_IS_BETTER = {"EE-L": False, "EE-D": False, "EE-R": True}


def check_patience(p: float) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 < float(p) < 1.0:
        raise ParameterError(f"The 'p' parameter of expected exposure must be a float in (0, 1). Got {p!r} instead.")
    return float(p)


def expected_exposure(rankings: Sequence[Sequence[str]], *, p: float) -> dict[str, float]:
    """The mean over ``rankings`` (each best first) of every ranked item's ``p^(rank - 1)``."""
    p = check_patience(p)
    if not rankings:
        return {}
    total: dict[str, float] = {}
    for ranking in rankings:
        w = 1.0
        for item in ranking:
            total[item] = total.get(item, 0.0) + w
            w *= p
    n = len(rankings)
    return {item: v / n for item, v in total.items()}


def target_exposure(grades: Mapping[str, float], *, p: float) -> dict[str, float]:
    """The ideal policy's exposure of every item with a grade > 0 (see the module's formula)."""
    p = check_patience(p)
    levels = sorted({g for g in grades.values() if g > 0}, reverse=True)
    out: dict[str, float] = {}
    before = 0
    for g in levels:
        items = [d for d, x in grades.items() if x == g]
        m = len(items)
        share = (p**before - p ** (before + m)) / (m * (1.0 - p))
        for d in items:
            out[d] = share
        before += m
    return out


def ee_measures(exposure: Mapping[str, float], target: Mapping[str, float]) -> dict[str, float]:
    """EE-L, EE-D and EE-R of one query from its expected and target exposures."""
    items = set(exposure) | set(target)
    loss = sum((exposure.get(d, 0.0) - target.get(d, 0.0)) ** 2 for d in items)
    disparity = sum(v * v for v in exposure.values())
    relevance = sum(v * target.get(d, 0.0) for d, v in exposure.items())
    return {"EE-L": loss, "EE-D": disparity, "EE-R": relevance}
