"""A drop-in for pytrec_eval: ``import rankmeter.pytrec_eval as pytrec_eval``.

Same API (``RelevanceEvaluator(qrel, measures, relevance_level=1,
judged_docs_only_flag=False)``, ``.evaluate(run)`` returning ``{query: {measure:
value}}``, ``supported_measures``, ``supported_nicknames``, ``parse_qrel``,
``parse_run``), the same measure spellings (``"P.5,10"``, ``"P_5"``,
``"ndcg_cut.10"``, nicknames ``"official"``, ``"all_trec"``, ``"set"``) and the same
values: trec_eval 9.0.8's definitions, as pytrec_eval bundles them. Per query, as
pytrec_eval: the queries of the run that have judgments; ``runid`` and
``relstring`` are 0.0, ``num_q`` is 1.0 and ``gm_map`` / ``gm_bpref`` hold
``log(max(value, 1e-5))`` (the mean of these, exponentiated, is the geometric mean).

Differences (deliberate): a query judged only with negative grades, which crashes
pytrec_eval, is evaluated (it has no relevant item); bad input raises
:class:`rankmeter.InputError` / :class:`ValueError` instead of an ``AssertionError``.

>>> ev = RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"map", "P.1"})
>>> ev.evaluate({"q1": {"d1": 0.5, "d2": 1.5}})
{'q1': {'map': 0.5, 'P_1': 0.0}}
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any, Iterable, Mapping

from ._errors import InputError, ParameterError
from .metrics.trec.engine import MEASURES, MIN_GEO_MEAN, NICKNAMES, Options, form_res_rels

__all__ = [
    "RelevanceEvaluator",
    "supported_measures",
    "supported_nicknames",
    "parse_qrel",
    "parse_run",
    "compute_aggregated_measure",
]

_VERSION = "9.0.8"
_ALL = NICKNAMES[_VERSION]["all_trec"]

#: The measure names pytrec_eval accepts (trec_eval 9.0.8's ``all_trec`` measures).
supported_measures: frozenset[str] = frozenset(_ALL)
#: Nicknames and the measures they stand for.
supported_nicknames: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in NICKNAMES[_VERSION].items()}

_BY_NAME = {m.name: m for m in MEASURES if m.name in supported_measures}
_PARAMS = re.compile(r"([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)$")


def _combine(measures: Iterable[str]) -> dict[str, str | None]:
    """Measure name -> parameter text (None: trec_eval's defaults), pytrec_eval's rules."""
    expanded: set[str] = set()
    if isinstance(measures, str):
        raise ValueError("measures must be a collection of measure names, not one string")
    for m in measures:
        if m in supported_nicknames:
            expanded.update(supported_nicknames[m])
        else:
            expanded.add(m)
    params: dict[str, set[str]] = defaultdict(set)
    for m in sorted(expanded):
        if m in supported_measures:
            params.setdefault(m, set())
            continue
        for base in sorted(supported_measures, key=len, reverse=True):
            if m.startswith(base) and len(m) > len(base) and m[len(base)] in "._":
                tail = _PARAMS.match(m[len(base) + 1:])
                if tail and tail.end() == len(m) - len(base) - 1:
                    params[base].update(tail.group(1).split(","))
                    break
        else:
            raise ValueError(f"unsupported measure {m}")
    return {k: (",".join(sorted(v)) if v else None) for k, v in params.items()}


class RelevanceEvaluator:
    """Evaluate runs against stored judgments, measure for measure as pytrec_eval.

    ``query_relevance``: ``{query: {doc: grade}}`` (grades are ints; negative grades
    mean "in the pool, not judged"); ``measures``: names or nicknames, with
    parameters as ``"P.5,10"`` or ``"P_5"``; ``relevance_level``: lowest relevant
    grade; ``judged_docs_only_flag``: drop unjudged documents first (trec_eval -J).
    """

    def __init__(self, query_relevance: Mapping[str, Mapping[str, int]], measures: Iterable[str],
                 relevance_level: int = 1, judged_docs_only_flag: bool = False) -> None:
        if isinstance(relevance_level, bool) or not isinstance(relevance_level, int) or relevance_level < 1:
            raise ParameterError(f"The 'relevance_level' parameter of RelevanceEvaluator must be an int >= 1 "
                                 f"(as pytrec_eval). Got {relevance_level!r} instead.")
        combined = _combine(measures)
        self._plan = []
        for m in MEASURES:
            if m.name not in combined:
                continue
            text = combined[m.name]
            p = m.parse_params(text) if text is not None else m.default
            # pytrec_eval names single-value measures without their parameters (11pt_avg, set_F)
            self._plan.append((m, p, m.value_names(p, None if m.kind in ("param", "pairs", "string") else text)))
        self._qrels: dict[str, dict[str, int]] = {}
        for q, docs in query_relevance.items():
            if len(docs) == 0:
                continue  # as pytrec_eval: a query without judgments is not evaluated
            if not isinstance(q, str) or not all(isinstance(d, str) for d in docs):
                raise InputError(f"query and document ids must be strings (as pytrec_eval); query {q!r}")
            self._qrels[q] = {d: _grade(g, q, d) for d, g in docs.items()}
        self._opts = Options(level=int(relevance_level), judged_only=bool(judged_docs_only_flag), compat=_VERSION)

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """Per-query values for every run query that has judgments."""
        out: dict[str, dict[str, float]] = {}
        for q, docs in scores.items():
            judged = self._qrels.get(q)
            if judged is None:
                continue
            names = list(docs.keys())
            if not all(type(d) is str for d in names):
                bad = next(d for d in names if type(d) is not str)
                raise InputError(f"document ids must be strings (as pytrec_eval); query {q!r} has {bad!r}")
            rr = form_res_rels(names, [float(s) for s in docs.values()], judged, self._opts)
            values: dict[str, float] = {}
            for m, p, names in self._plan:
                if m.kind == "runid":
                    values["runid"] = 0.0
                    continue
                if m.kind == "string":
                    values[names[0]] = 0.0
                    continue
                v = m.compute(rr, self._opts, p)
                if m.kind == "gm":
                    values[names[0]] = math.log(max(float(v[0]), MIN_GEO_MEAN))
                    continue
                for name, x in zip(names, v):
                    values[name] = float(x)
            out[q] = values
        return out


def _grade(g: Any, q: Any, d: Any) -> int:
    if isinstance(g, bool) or not isinstance(g, (int,)) and not (hasattr(g, "__index__")):
        raise InputError(f"the grade of document {d!r} for query {q!r} must be an int, got {g!r}")
    return int(g)


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """A TREC run (lines ``qid Q0 doc rank score tag``) as ``{qid: {doc: score}}``."""
    run: dict[str, dict[str, float]] = defaultdict(dict)
    for n, line in enumerate(f_run, start=1):
        f = line.split()
        if len(f) != 6:
            raise InputError(f"expected 6 columns (qid Q0 doc rank score tag), found {len(f)}", line=n, text=line)
        if f[2] in run[f[0]]:
            raise InputError(f"document {f[2]!r} listed twice for query {f[0]!r}", line=n, text=line)
        run[f[0]][f[2]] = float(f[4])
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """TREC judgments (lines ``qid 0 doc grade``) as ``{qid: {doc: grade}}``."""
    qrel: dict[str, dict[str, int]] = defaultdict(dict)
    for n, line in enumerate(f_qrel, start=1):
        f = line.split()
        if len(f) != 4:
            raise InputError(f"expected 4 columns (qid 0 doc grade), found {len(f)}", line=n, text=line)
        if f[2] in qrel[f[0]]:
            raise InputError(f"document {f[2]!r} judged twice for query {f[0]!r}", line=n, text=line)
        qrel[f[0]][f[2]] = int(f[3])
    return qrel


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """Aggregate per-query values as pytrec_eval: sum for num_*, exp-mean for gm_*, else the mean."""
    import numpy as np

    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))
