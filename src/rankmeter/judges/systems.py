"""Does the systems' order survive a change of judge? The same runs compared under two judgments.

Each run is evaluated and compared (every pair of runs, the same test and correction) once under
each judge. Per metric the result gives each run's mean under both, Kendall's tau and tau_AP
between the two orderings of the runs (the first judge's as the reference for tau_AP; Voorhees
2000, doi:10.1016/S0306-4573(00)00010-8, reads tau >= 0.9 as "the same ranking"), the runs whose
rank moves most, and each pairwise significance decision that flips: significant under one judge
and not under the other, or significant in opposite directions.

>>> a = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
>>> b = {"q1": {"d1": 0, "d2": 1}, "q2": {"d3": 1}}
>>> runs = {"x": {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}},
...         "y": {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d3": 1.0}}}
>>> jc = compare_judges(a, b, runs, ["P@1"], names=("human", "llm"))
>>> jc.means["P@1"]
{'x': (1.0, 0.5), 'y': (0.5, 1.0)}
>>> jc.swaps["P@1"][0]
('x', 1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from .._errors import ParameterError

if TYPE_CHECKING:
    from ..compare.comparison import Comparison, PairTest

__all__ = ["JudgeComparison", "compare_judges"]


@dataclass(frozen=True)
class Flip:
    """A pairwise decision that changes with the judge: ``better`` under each judge (None: not significant)."""

    metric: str
    a: str
    b: str
    better_first: str | None
    better_second: str | None
    p_first: float
    p_second: float


@dataclass(frozen=True)
class JudgeComparison:
    """The runs under two judges: :func:`compare_judges` builds it.

    ``means[metric][run] = (mean under the first judge, mean under the second)``;
    ``tau[metric]`` and ``tau_ap[metric]`` compare the two orderings of the runs;
    ``swaps[metric]`` lists ``(run, rank under the first, rank under the second)``, the largest
    moves first; ``flips`` the pairwise significance decisions that change; ``decisions`` how many
    pairwise decisions were compared; ``first`` and ``second`` the two comparisons themselves.
    """

    judges: tuple[str, str]
    metrics: tuple[str, ...]
    means: dict[str, dict[str, tuple[float, float]]]
    tau: dict[str, float]
    tau_ap: dict[str, float]
    swaps: dict[str, list[tuple[str, int, int]]]
    flips: list[Flip]
    decisions: int
    first: "Comparison" = field(repr=False)
    second: "Comparison" = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (NaN as None)."""
        def num(x: float) -> float | None:
            return None if x != x else float(x)

        return {
            "judges": list(self.judges),
            "metrics": {m: {"means": {r: [num(v[0]), num(v[1])] for r, v in self.means[m].items()},
                            "tau": num(self.tau[m]), "tau_ap": num(self.tau_ap[m]),
                            "swaps": [{"run": r, "rank_first": i, "rank_second": j} for r, i, j in self.swaps[m]]}
                        for m in self.metrics},
            "decisions": self.decisions,
            "flips": [{"metric": f.metric, "a": f.a, "b": f.b, "better_first": f.better_first,
                       "better_second": f.better_second, "p_first": num(f.p_first), "p_second": num(f.p_second)}
                      for f in self.flips],
        }

    def means_rows(self) -> list[tuple[list[str], list[float]]]:
        """Table rows: (metric, run) -> mean under each judge and the change."""
        return [([m, r], [v[0], v[1], v[1] - v[0]]) for m in self.metrics for r, v in self.means[m].items()]

    def __repr__(self) -> str:
        taus = ", ".join(f"{m}: tau {self.tau[m]:.3f}" for m in self.metrics)
        return (f"JudgeComparison({self.judges[0]} vs {self.judges[1]}, {len(next(iter(self.means.values())))} runs; "
                f"{taus}; {len(self.flips)} of {self.decisions} decisions flip)")


def _ranks(means: Mapping[str, float], higher: bool) -> dict[str, int]:
    """1 = best; equal means share the better rank (competition ranking), ties in name order."""
    order = sorted(means, key=lambda r: ((-means[r] if higher else means[r]), r))
    ranks: dict[str, int] = {}
    for pos, r in enumerate(order, start=1):
        prev = order[pos - 2] if pos > 1 else None
        ranks[r] = ranks[prev] if prev is not None and means[prev] == means[r] else pos
    return ranks


def compare_judges(a: Any, b: Any, runs: Mapping[str, Any] | Sequence[Any], metrics: str | Iterable[Any], *,
                   names: Sequence[str] = ("a", "b"), test: str = "t", correction: str = "holm",
                   alpha: float = 0.05, **options: Any) -> JudgeComparison:
    """Compare ``runs`` under judgments ``a`` and under judgments ``b`` (see the module's docstring).

    ``options`` go to :func:`rankmeter.compare` unchanged for both judges (``queries``, ``depth``,
    ``seed``...); every pair of runs is tested (``pairs="all"``).
    """
    from ..compare import compare
    from ..compare.many import ranking_correlation

    if len(names) != 2 or names[0] == names[1]:
        raise ParameterError(f"The 'names' parameter of compare_judges must be two different names. Got {names!r}.")
    if "pairs" in options:
        raise ParameterError("compare_judges tests every pair of runs: leave out 'pairs'")
    first = compare(a, runs, metrics, test=test, correction=correction, alpha=alpha, pairs="all", **options)
    second = compare(b, runs, metrics, test=test, correction=correction, alpha=alpha, pairs="all", **options)
    if len(first.runs) < 2:
        raise ParameterError("compare_judges needs at least two runs")
    means: dict[str, dict[str, tuple[float, float]]] = {}
    tau: dict[str, float] = {}
    tau_ap: dict[str, float] = {}
    swaps: dict[str, list[tuple[str, int, int]]] = {}
    for m in first.metrics:
        means[m] = {r: (first.means[r][m], second.means[r][m]) for r in first.runs}
        corr = ranking_correlation(first, second, m, m)
        tau[m], tau_ap[m] = corr.tau, corr.tau_ap
        higher = first.higher_is_better.get(m, True)
        ra = _ranks({r: v[0] for r, v in means[m].items()}, higher)
        rb = _ranks({r: v[1] for r, v in means[m].items()}, higher)
        moves = [(r, ra[r], rb[r]) for r in first.runs]
        swaps[m] = sorted(moves, key=lambda t: (-abs(t[1] - t[2]), t[1], t[0]))
    flips, decisions = _flips(first.tests, second.tests, test)
    return JudgeComparison((str(names[0]), str(names[1])), tuple(first.metrics), means, tau, tau_ap, swaps, flips,
                           decisions, first, second)


def _flips(ta: Sequence["PairTest"], tb: Sequence["PairTest"], test: str) -> tuple[list[Flip], int]:
    other = {(t.metric, t.a, t.b): t for t in tb if t.test == test}
    flips: list[Flip] = []
    n = 0
    for t in ta:
        if t.test != test:
            continue
        u = other.get((t.metric, t.a, t.b))
        if u is None:
            continue
        n += 1
        if t.better != u.better:
            flips.append(Flip(t.metric, t.a, t.b, t.better, u.better, t.p_adjusted, u.p_adjusted))
    return flips, n
