"""Which queries count: the query policies, checked in one place.

``"judged"`` (default): every judged query with at least one item of positive
grade; a judged query missing from the run scores as an empty ranking, because
dropping it would inflate the mean. ``"run"``: the queries present in both
(trec_eval's default). ``"qrels"``: every judged query, even without a relevant item
(trec_eval ``-c``). A list of query ids evaluates exactly those. Run queries without
judgments are always left out, and every group is counted in ``result.coverage``.
"""

from __future__ import annotations

from typing import Any, Literal

from .._errors import ParameterError

__all__ = ["QueryPolicy", "POLICIES", "check_queries", "requested_ids"]

QueryPolicy = Literal["judged", "run", "qrels"]
POLICIES = ("judged", "run", "qrels")


def check_queries(queries: Any) -> None:
    """Refuse anything but a policy name or a list of query ids.

    >>> check_queries("qrels")
    >>> check_queries(5)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'queries' parameter of evaluate must be 'judged', 'run', 'qrels' or a list
    of query ids. Got 5 instead.
    """
    if isinstance(queries, str):
        if queries in POLICIES:
            return
    elif isinstance(queries, (list, tuple, set, frozenset)) or type(queries).__name__ in ("ndarray", "Series", "Index"):
        if all(isinstance(q, (str, int)) and not isinstance(q, bool) for q in queries):
            return
    raise ParameterError(
        "The 'queries' parameter of evaluate must be 'judged', 'run', 'qrels' or a list of query ids. "
        f"Got {queries!r} instead.")


def requested_ids(queries: Any) -> list[str] | None:
    """The query ids of a list policy as text (None for a named policy)."""
    check_queries(queries)
    return None if isinstance(queries, str) else [str(q) for q in queries]
