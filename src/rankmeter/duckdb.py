"""Kept so that documented imports work (``import rankmeter.duckdb``): the DuckDB engine and
SQL functions live in :mod:`rankmeter.engines.duckdb`."""

from .engines.duckdb import FUNCTIONS, evaluate, register

__all__ = ["register", "evaluate", "FUNCTIONS"]
