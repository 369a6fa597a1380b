"""The evaluation core: one place for the tie rule's use, the judgment join, query
selection and coverage, ``depth`` and ``judged_only``; engines are its drivers.

- :mod:`~rankmeter.evaluation.selection`: which queries count;
- :mod:`~rankmeter.evaluation.prepare`: judgments joined with ranked rows into a batch;
- :mod:`~rankmeter.evaluation.compute`: kernels over a batch;
- :mod:`~rankmeter.evaluation.partial`: what a chunk contributes and how chunks combine;
- :mod:`~rankmeter.evaluation.core`: :class:`Engine`, all of it prepared once.
"""

from .compute import check_ranking_metrics, compute, finalize
from .core import Engine, check_options, is_int_id_type
from .partial import Accumulator, ChunkOut, duplicate_notes
from .prepare import align
from .selection import POLICIES, QueryPolicy, check_queries

__all__ = ["Accumulator", "ChunkOut", "Engine", "POLICIES", "QueryPolicy", "align", "check_options",
           "check_queries", "check_ranking_metrics", "compute", "duplicate_notes", "finalize", "is_int_id_type"]
