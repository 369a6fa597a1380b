"""Kept so that documented imports work (``import rankmeter.spark``): the Spark engine lives in
:mod:`rankmeter.engines.spark`."""

from ..engines.spark import FUNCTIONS, evaluate, evaluate_parquet, local_session, register

__all__ = ["evaluate", "evaluate_parquet", "register", "local_session", "FUNCTIONS"]
