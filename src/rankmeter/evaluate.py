"""Kept so that documented imports work: the in-process evaluator lives in
:mod:`rankmeter.engines.memory` and the core it drives in :mod:`rankmeter.evaluation`."""

from __future__ import annotations

from .engines.memory import evaluate
from .evaluation import align, check_ranking_metrics, compute, duplicate_notes, finalize

__all__ = ["evaluate", "align", "compute", "finalize", "check_ranking_metrics", "duplicate_notes"]
