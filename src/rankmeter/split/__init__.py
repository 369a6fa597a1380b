"""Splitting protocols: hold-out, temporal, leave-k-out, k-fold, strong generalisation, and the ratio sweep.

Every splitter takes interaction data in any form
:func:`rankmeter.io.interactions.read_interactions` accepts (pandas, polars, pyarrow,
CSV/TSV/Parquet/MovieLens files), returns train and test in the input's own kind with
every input column, and a summary that counts every row: filtered, too small for the
protocol, cold-start. Randomness comes only from ``seed``. See ``docs/split.md``.

>>> from rankmeter.split import holdout
>>> data = {"user": ["a", "a", "a", "b", "b"], "item": [1, 2, 3, 1, 2]}
>>> train, test = holdout(data, test_fraction=0.4, per_user=True, seed=0)
>>> train.num_rows, test.num_rows
(3, 2)
"""

from ._common import (
    Cold,
    Counts,
    Folds,
    FoldsSummary,
    SmallUsers,
    Split,
    SplitSummary,
    read_input,
    round_count,
)
from .holdout import holdout
from .kfold import kfold
from .leave_k_out import leave_k_out
from .strong import StrongSplit, StrongSummary, strong
from .sweep import DEFAULT_FRACTIONS, SweepPoint, SweepResult, fraction_grid, ratio_sweep
from .temporal import temporal

__all__ = [
    "holdout",
    "temporal",
    "leave_k_out",
    "kfold",
    "strong",
    "StrongSplit",
    "StrongSummary",
    "ratio_sweep",
    "fraction_grid",
    "DEFAULT_FRACTIONS",
    "Split",
    "Folds",
    "SplitSummary",
    "FoldsSummary",
    "Counts",
    "SmallUsers",
    "Cold",
    "SweepResult",
    "SweepPoint",
    "round_count",
    "read_input",
]
