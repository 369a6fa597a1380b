"""Rank fusion and score normalisation: runs in, one run out (docs/fusion.md).

:func:`fuse` combines runs with any of ranx's 25 fusion methods and six normalisations,
spelled as ranx spells them (with ranx's function names and the literature's names as
aliases), each from its published definition; :func:`fuse_optimize` tunes weights and
parameters on judgments with cross-validation over queries and trains the supervised
methods. The methods are data (:data:`METHODS`, :data:`NORMS`). At scale: :func:`fuse_files`
fuses run files larger than memory chunk by chunk, and :func:`fusion_sql` (:func:`fuse_duckdb`,
:func:`fuse_spark`) writes RRF and the weighted sum as DuckDB / Spark SQL, with the same numbers.

>>> from rankmeter.fusion import fuse
>>> fuse([{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 3.0, "c": 1.0}}], method="rrf").to_lists()
{'q': ['b', 'a', 'c']}
"""

from .core import fuse
from .frame import NORMS
from .methods import METHODS, method_by_name
from .optimize import FoldResult, OptimizeResult, fuse_optimize
from .spec import FusionMethod, Normalization, Param
from .sql import fuse_duckdb, fuse_spark, fusion_sql
from .stream import FuseSummary, fuse_files

fuse.optimize = fuse_optimize  # type: ignore[attr-defined]  # rankmeter.fuse.optimize(...), as the issue spells it

__all__ = [
    "fuse",
    "fuse_optimize",
    "METHODS",
    "NORMS",
    "FusionMethod",
    "Normalization",
    "Param",
    "OptimizeResult",
    "FoldResult",
    "method_by_name",
    "fuse_files",
    "FuseSummary",
    "fusion_sql",
    "fuse_duckdb",
    "fuse_spark",
]
