"""rankmeter on Apache Spark: whole-run evaluation on a cluster, and Apache Hivemall's SQL functions.

:func:`evaluate` takes Spark DataFrames of a run and of judgments and returns the
:class:`~rankmeter.result.Result` of :func:`rankmeter.evaluate`, the same numbers to
the last bit:

1. the judgments (small) are collected once and broadcast to the executors;
2. the run is hash-partitioned by query and sorted by query within each partition
   (``repartition(query).sortWithinPartitions(query)``), so every query's rows reach
   one Python worker, contiguously; with ``grouped=True`` (a run already grouped by
   query) there is no shuffle;
3. ``mapInArrow`` streams each partition's Arrow batches to rankmeter's chunk
   engine (:mod:`rankmeter.evaluation`), the same kernels as the local engine; rows are
   ranked by rankmeter's tie rule (score descending, then item id descending,
   comparing bytes), never by the order Spark delivers them;
4. only per-query values (and a few counts, and the states of corpus-level metrics)
   come back to the driver.

A ``run_df`` that is nothing but a scan of Parquet files (``spark.read.parquet(...)``,
possibly with some of its columns selected) skips the JVM's rows altogether: the
executors read the files' row groups with pyarrow, as :func:`evaluate_parquet` does.

Works with Spark's local mode out of the box (:func:`local_session` starts one
quickly) and with any cluster a SparkSession points to, provided rankmeter is
installed on the executors.

:func:`register` adds the SQL functions of Apache Hivemall's documentation
(``precision``, ``recall``, ``average_precision``, ``auc``, ``mrr``, ``ndcg`` binary or
graded, ``hit_rate``) and ``rankmeter_metric(name, rec, truth)`` /
``rankmeter_metric_graded(name, rec, truth, grades)`` to Spark SQL, as vectorised
Arrow UDFs.

Modules: :mod:`.evaluation` (the two evaluate functions), :mod:`._tasks` (what the
executors run), :mod:`.sql` (the SQL functions), :mod:`.session` (:func:`local_session`).
"""

from __future__ import annotations

from .evaluation import evaluate, evaluate_parquet
from .session import local_session
from .sql import FUNCTIONS, register

__all__ = ["evaluate", "evaluate_parquet", "register", "local_session", "FUNCTIONS"]
