"""rankmeter as an ir_measures provider: ``rankmeter.ir_measures.Provider``.

A subclass of ``ir_measures.providers.Provider`` whose ``calc_aggregate`` and ``iter_calc``
give ir_measures' own results on the measures both support (``Provider.SUPPORTED_MEASURES``:
``P``, ``RR``, ``AP``, ``nDCG`` (``dcg=log2``), ``R``, ``Rprec``, ``Bpref`` and ``Success``, with
their cutoffs and ``rel``; not ``Judged``, whose ir_measures provider orders tied scores by docno
ascending where trec_eval and rankmeter order them descending). ir_measures' names are read by
rankmeter's grammar as written (``nDCG@10``, ``P(rel=2)@5``), so the numbers are rankmeter's own
kernels. As in ir_measures (the Evaluator's contract), every judged query counts (rankmeter's
``queries="qrels"``), a judged query missing from the run scores the measure's empty value,
and run queries without judgments are left out.

:func:`register` (opt-in) puts the provider first in ir_measures' default pipeline, so
``ir_measures.calc_aggregate(...)`` and PyTerrier's ``pt.Experiment`` compute the measures it
supports with rankmeter; :func:`unregister` takes it out again.

Needs ir_measures (``pip install 'rankmeter[ir_measures]'``); imported only when used.

>>> import ir_measures
>>> from ir_measures import nDCG, P
>>> qrels = [ir_measures.Qrel("q1", "a", 1), ir_measures.Qrel("q1", "b", 2)]
>>> run = [ir_measures.ScoredDoc("q1", "b", 2.0), ir_measures.ScoredDoc("q1", "c", 1.0)]
>>> {str(m): round(v, 4) for m, v in Provider().calc_aggregate([nDCG@10, P@2], qrels, run).items()}
{'nDCG@10': 0.7602, 'P@2': 0.5}
>>> ir_measures.calc_aggregate([nDCG@10, P@2], qrels, run) == Provider().calc_aggregate([nDCG@10, P@2], qrels, run)
True
"""

from __future__ import annotations

import importlib
from typing import Any, Iterable, Iterator

from ._errors import MissingExtraError

# ir_measures is used as Any: its type information is partial (most of its functions are untyped)
try:
    ir_measures: Any = importlib.import_module("ir_measures")
except ImportError:  # pragma: no cover - the extra is missing
    raise MissingExtraError("rankmeter.ir_measures", "ir_measures", "ir_measures") from None
_m: Any = ir_measures.measures
_base: Any = importlib.import_module("ir_measures.providers.base")
NOT_PROVIDED, Choices, AnyValue = _base.NOT_PROVIDED, _base.Choices, _base.Any

__all__ = ["Provider", "Evaluator", "register", "unregister"]

NAME = "rankmeter"


class Evaluator(ir_measures.providers.Evaluator):  # type: ignore[misc]  # ir_measures is Any here (see above)
    """Scores runs against judgments prepared once (rankmeter's :class:`~rankmeter.data.Qrels`)."""

    def __init__(self, measures: Iterable[Any], qrels: Any) -> None:
        from .io import as_qrels

        measures = list(measures)
        frame = ir_measures.util.QrelsConverter(qrels).as_pd_dataframe()
        self._qrels = as_qrels(frame[["query_id", "doc_id", "relevance"]].astype(
            {"query_id": str, "doc_id": str}), source="ir_measures qrels", query="query_id", item="doc_id",
            grade="relevance")
        super().__init__(measures, {str(q) for q in frame["query_id"].unique()})
        self._names = {str(m): m for m in measures}

    def _iter_calc(self, run: Any) -> Iterator[Any]:
        from .engines.memory import evaluate
        from .io import as_run

        frame = ir_measures.util.RunConverter(run).as_pd_dataframe()
        r = as_run(frame[["query_id", "doc_id", "score"]].astype({"query_id": str, "doc_id": str}),
                   source="ir_measures run", query="query_id", item="doc_id", score="score")
        res = evaluate(self._qrels, r, list(self._names), queries="qrels")
        for name, measure in self._names.items():
            for q, v in zip(res.queries, res.values[name].tolist(), strict=True):
                yield ir_measures.Metric(query_id=q, measure=measure, value=v)


class Provider(ir_measures.providers.Provider):  # type: ignore[misc]  # ir_measures is Any here (see above)
    """rankmeter as an ir_measures provider (``ir_measures.providers.Provider``): see the module's docstring."""

    NAME = NAME
    SUPPORTED_MEASURES = [
        _m._P(cutoff=AnyValue(), rel=AnyValue(), judged_only=Choices(False, NOT_PROVIDED)),
        _m._RR(cutoff=AnyValue(), rel=AnyValue(), judged_only=Choices(False, NOT_PROVIDED)),
        _m._AP(cutoff=AnyValue(), rel=AnyValue(), judged_only=Choices(False, NOT_PROVIDED)),
        _m._nDCG(cutoff=AnyValue(), dcg=Choices("log2"), gains=Choices(NOT_PROVIDED),
                 judged_only=Choices(False, NOT_PROVIDED)),
        _m._R(cutoff=AnyValue(), judged_only=Choices(False, NOT_PROVIDED)),
        _m._Rprec(rel=AnyValue(), judged_only=Choices(False, NOT_PROVIDED)),
        _m._Bpref(rel=AnyValue()),
        _m._Success(cutoff=AnyValue(), rel=AnyValue(), judged_only=Choices(False, NOT_PROVIDED)),
    ]  # not Judged: ir_measures' judged provider orders tied scores by docno ascending, trec_eval's rule descending

    def _evaluator(self, measures: Iterable[Any], qrels: Any) -> Evaluator:
        return Evaluator(measures, qrels)


_REGISTERED: list[Provider] = []


def register() -> Provider:
    """Put a :class:`Provider` first in ir_measures' default pipeline (``ir_measures.DefaultPipeline``) and in its
    registry as ``"rankmeter"``; returns it. Calling it again changes nothing."""
    if _REGISTERED:
        return _REGISTERED[0]
    provider = Provider()
    ir_measures.DefaultPipeline.providers.insert(0, provider)
    ir_measures.providers.registry[NAME] = provider
    _REGISTERED.append(provider)
    return provider


def unregister() -> None:
    """Take the provider that :func:`register` added out of ir_measures' default pipeline and registry."""
    while _REGISTERED:
        provider = _REGISTERED.pop()
        if provider in ir_measures.DefaultPipeline.providers:
            ir_measures.DefaultPipeline.providers.remove(provider)
        if ir_measures.providers.registry.get(NAME) is provider:
            del ir_measures.providers.registry[NAME]
