"""Parameters and helpers shared by the ranking families."""

from __future__ import annotations

from typing import Mapping, Sequence

from ..registry import Param

REL = Param(
    "rel",
    float,
    1.0,
    doc="minimum grade that counts as relevant",
)


def top(ranking: Sequence[str], k: int | None) -> list[str]:
    """The first k items (all when k is None)."""
    return list(ranking if k is None else ranking[:k])


def is_rel(qrels: Mapping[str, float], item: str, rel: float) -> bool:
    g = qrels.get(item)
    return g is not None and g >= 0 and g >= rel


def n_relevant(qrels: Mapping[str, float], rel: float) -> int:
    return sum(1 for g in qrels.values() if g >= 0 and g >= rel)
