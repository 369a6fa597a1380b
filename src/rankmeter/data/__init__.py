"""The nouns of the domain: judgments (:class:`Qrels`) and rankings (:class:`Run`)."""

from .qrels import Qrels
from .run import Run
from .table import RowError

__all__ = ["Qrels", "Run", "RowError"]
