"""The nouns of the domain: judgments (:class:`Qrels`) and rankings (:class:`Run`)."""

from .table import RowError
from .qrels import Qrels
from .run import Run

__all__ = ["Qrels", "Run", "RowError"]
