"""Readers: TREC text, CSV/TSV, Parquet, DataFrames, pyarrow Tables and plain Python."""

from .loaders import as_qrels, as_run, detect_format, read_qrels, read_run

__all__ = ["read_qrels", "read_run", "as_qrels", "as_run", "detect_format"]
