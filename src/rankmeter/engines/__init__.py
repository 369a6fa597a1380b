"""Engines: drivers of the evaluation core (:mod:`rankmeter.evaluation`).

An engine only decides how a run is cut into chunks of whole queries and where the
chunks are evaluated: :mod:`~rankmeter.engines.memory` (in-process),
``rankmeter.stream`` (files larger than memory), ``rankmeter.duckdb`` and
``rankmeter.spark``. Everything that decides a number is in the core.
"""
