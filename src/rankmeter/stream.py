"""Kept so that documented imports work: streaming lives in :mod:`rankmeter.engines.stream`."""

from .engines.stream import DEFAULT_CHUNK_ROWS, evaluate_batches, evaluate_stream

__all__ = ["evaluate_stream", "evaluate_batches", "DEFAULT_CHUNK_ROWS"]
