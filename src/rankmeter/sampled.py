"""Re-export of :mod:`rankmeter.recsys.sampled` (sampled-negative evaluation)."""

from __future__ import annotations

from .recsys.sampled import Candidates, label, restrict, sample_negatives

__all__ = ["Candidates", "sample_negatives", "label", "restrict"]
