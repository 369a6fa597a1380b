"""Judgments from ir_datasets: ``irds:DATASET_ID`` wherever a judgments path is accepted.

``read_qrels("irds:msmarco-passage/dev/small")`` (and ``rankmeter evaluate irds:... run.txt``)
loads the dataset's judgments through the ``ir_datasets`` package (the ``irds`` extra:
``pip install 'rankmeter[irds]'``), which downloads and caches them as it always does; rankmeter
reads them from ``dataset.qrels_iter()``. With ``subtopics=True`` the judgments are read by
subtopic, from the ``subtopic_id`` field of the dataset's judgments (TREC Web's diversity
qrels, for instance); a dataset whose judgments have no such field is an error naming it.

:func:`official_measures` gives the measures ir_datasets declares for a dataset
(``documentation()["official_measures"]``, shipped with the package: no download), in
ir_measures' names, which rankmeter's grammar reads (``RR@10``, ``nDCG@10``, ``AP``...):
``-m official`` (``--measures official``) on the command line, ``metrics="official"`` in
:func:`rankmeter.evaluate`. A dataset that declares none makes that an error naming it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._errors import InputError, MissingExtraError, ParameterError

if TYPE_CHECKING:
    from ..data import Qrels

__all__ = ["PREFIX", "is_irds", "load_dataset", "read_irds_qrels", "official_measures", "expand_official"]

PREFIX = "irds:"


def is_irds(value: Any) -> bool:
    """True for ``"irds:DATASET_ID"`` (a string)."""
    return isinstance(value, str) and value.startswith(PREFIX)


def load_dataset(spec: str) -> Any:
    """The ir_datasets dataset named by ``irds:DATASET_ID`` (or ``DATASET_ID``)."""
    dataset_id = spec[len(PREFIX):] if spec.startswith(PREFIX) else spec
    if not dataset_id.strip():
        raise InputError("expected irds:DATASET_ID (e.g. irds:msmarco-passage/dev/small); found no dataset id",
                         source=spec)
    try:
        import ir_datasets
    except ImportError:
        raise MissingExtraError("judgments from ir_datasets (irds:)", "irds", "ir_datasets") from None
    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(f"ir_datasets has no dataset {dataset_id!r} (see ir_datasets' catalogue for the ids)",
                         source=spec) from None


def read_irds_qrels(spec: str, *, subtopics: bool = False, duplicates: str = "error") -> "Qrels":
    """The judgments of the dataset ``irds:DATASET_ID`` as :class:`~rankmeter.data.Qrels` (ids as text, as
    ir_datasets gives them; grades as numbers). ``subtopics=True``: judgments by subtopic (``subtopic_id``)."""
    from .loaders import as_qrels

    ds = load_dataset(spec)
    if not ds.has_qrels():
        raise InputError(f"the ir_datasets dataset {spec[len(PREFIX):]!r} has no judgments (qrels)", source=spec)
    fields = tuple(getattr(ds.qrels_cls(), "_fields", ()))
    if subtopics and "subtopic_id" not in fields:
        raise InputError(f"--subtopics: the judgments of the ir_datasets dataset {spec[len(PREFIX):]!r} have no "
                         f"subtopics (their fields: {', '.join(fields)})", source=spec)
    queries: list[str] = []
    items: list[str] = []
    grades: list[float] = []
    subs: list[str] = []
    for i, row in enumerate(ds.qrels_iter()):
        queries.append(str(row.query_id))
        items.append(str(row.doc_id))
        try:
            grades.append(float(row.relevance))
        except (TypeError, ValueError):
            raise InputError(f"expected a number as the relevance grade; found {row.relevance!r} (judgment {i + 1} "
                             "of the dataset)", source=spec) from None
        if subtopics:
            subs.append(str(row.subtopic_id))
    import pyarrow as pa

    columns: dict[str, Any] = {"query": pa.array(queries, pa.string()), "item": pa.array(items, pa.string()),
                               "grade": pa.array(grades, pa.float64())}
    if subtopics:
        columns["subtopic"] = pa.array(subs, pa.string())
    return as_qrels(pa.table(columns), source=spec, query="query", item="item", grade="grade",
                    duplicates=duplicates, subtopics=subtopics, **({"subtopic": "subtopic"} if subtopics else {}))


def official_measures(spec: str) -> list[str]:
    """The measures ir_datasets declares official for the dataset (its documentation, read offline).

    >>> official_measures("irds:msmarco-passage/dev/small")  # doctest: +SKIP
    ['RR@10']
    """
    ds = load_dataset(spec)
    doc = ds.documentation() if hasattr(ds, "documentation") else {}
    measures = (doc or {}).get("official_measures")
    if not measures:
        raise ParameterError(f"-m official: the ir_datasets dataset {spec[len(PREFIX):]!r} declares no official "
                             "measures; name the metrics instead (e.g. -m ndcg@10)")
    return [str(m) for m in measures]


def expand_official(metrics: Any, qrels: Any) -> Any:
    """``metrics`` with ``"official"`` replaced by the official measures of the judgments ``irds:DATASET_ID``; an
    error when the judgments are not from ir_datasets. Anything else is returned as it is."""
    texts = [metrics] if isinstance(metrics, str) else (list(metrics) if isinstance(metrics, (list, tuple)) else None)
    if texts is None or not any(isinstance(t, str) and t.strip().lower() == "official" for t in texts):
        return metrics
    if not is_irds(qrels):
        raise ParameterError("-m official names the official measures of an ir_datasets dataset: the judgments "
                             f"must be given as irds:DATASET_ID. Got {str(qrels)[:200]!r} instead.")
    out: list[Any] = []
    for t in texts:
        if isinstance(t, str) and t.strip().lower() == "official":
            out += [m for m in official_measures(qrels) if m not in out]
        else:
            out.append(t)
    return out
