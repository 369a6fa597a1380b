"""Re-export of :mod:`rankmeter.recsys.beyond` (the context of beyond-accuracy metrics)."""

from __future__ import annotations

from .recsys.beyond import CONTEXT_KEYS, context_from_train

__all__ = ["context_from_train", "CONTEXT_KEYS"]
