"""Results per group of queries (users) for a :class:`~rankmeter.compare.comparison.Comparison`.

The per-result view lives in :mod:`rankmeter.stats.groups` (``Result.by_group``); this module
applies it to every run of a comparison, with the comparison's paired test against its baseline.
"""

from __future__ import annotations

from typing import Any

from ..stats.groups import GroupResult, activity_groups, by_group, read_groups

__all__ = ["GroupResult", "activity_groups", "by_group", "compare_by_group", "read_groups"]


def compare_by_group(cmp: Any, groups: Any, *, test: str | None = None,
                     option: str = "groups") -> dict[str, GroupResult]:
    """Per run of a :class:`~rankmeter.compare.comparison.Comparison`: its :class:`GroupResult`, with the
    comparison's first paired test (or ``test``) of the run against the baseline within each group.

    >>> from rankmeter.compare import compare
    >>> qrels = {"q1": ["a"], "q2": ["b"], "q3": ["c"], "q4": ["d"]}
    >>> runs = {"A": {"q1": ["a"], "q2": ["b"], "q3": ["x"], "q4": ["x"]}, "B": {q: ["x"] for q in qrels}}
    >>> views = compare_by_group(compare(qrels, runs, ["rr"]), {"q1": "g1", "q2": "g1", "q3": "g2", "q4": "g2"})
    >>> views["A"].means["rr"].to_dict(), views["A"].tests.empty, len(views["B"].tests)  # A is the baseline
    ({'g1': 1.0, 'g2': 0.0}, True, 2)
    """
    from ..result import Result

    s = cmp.settings
    test = test or s.tests[0]
    base = Result(queries=list(cmp.queries), values=cmp.scores[s.baseline], index_name=cmp.unit)
    out: dict[str, GroupResult] = {}
    counts = tuple(getattr(cmp, "counts", ()))  # shown by their sum per group
    for run in cmp.runs:
        res = Result(queries=list(cmp.queries), values=cmp.scores[run], index_name=cmp.unit)
        if run == s.baseline:
            out[run] = by_group(res, groups, option=option, counts=counts)
        else:
            out[run] = by_group(res, groups, test=test, against=base, option=option, against_name=s.baseline,
                                correction=s.correction, n_resamples=s.n_resamples, seed=s.seed,
                                aliases=getattr(cmp, "aliases", {}),  # a second spelling: tested once
                                counts=counts)
    return out
