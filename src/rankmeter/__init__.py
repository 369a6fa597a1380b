"""rankmeter: offline evaluation of rankings and recommendations.

>>> import rankmeter
>>> rankmeter.evaluate({"q": {"a": 1}}, {"q": {"a": 0.9, "b": 0.8}}, "P@1").mean
{'P@1': 1.0}

The core (evaluate, the data model, the readers) loads eagerly; everything else
(comparisons, ratings, splitting, experiments, streaming) loads on first use, so
``import rankmeter`` and the command line stay fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import _startup  # noqa: F401  (first: it acts before numpy loads)
from ._errors import InputError, MetricNameError, MissingExtraError, ParameterError, RankmeterError
from .data import Qrels, Run
from .evaluate import evaluate
from .io import read_qrels, read_run
from .metrics.registry import Metric, parse_metric
from .result import Coverage, Result

# These two modules share their names with their main function; importing them here,
# last, binds the function for good (a later ``import rankmeter.compare`` does not rebind).
# Both are light: the statistics and the experiment's stages load on first use.
# isort: off
from .compare import compare
from .experiment import experiment

# isort: on

if TYPE_CHECKING:  # the names loaded on first use (_LAZY), as type checkers and IDEs should see them
    from . import datasets, judges, metrics, recommenders, split, stats, stochastic
    from .beyond import context_from_train
    from .compare.across import compare_across
    from .compare.comparison import Comparison
    from .compare.explain import explain_diff
    from .engines.stream import evaluate_stream
    from .fusion import fuse, fuse_optimize
    from .io.interactions import Interactions, read_interactions
    from .ratings.evaluate import evaluate_ratings
    from .recsys.result import ExperimentResult

__version__ = "0.1.0"

# name -> (module, attribute or None for the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "Comparison": ("rankmeter.compare.comparison", "Comparison"),
    "ExperimentResult": ("rankmeter.recsys.result", "ExperimentResult"),
    "evaluate_ratings": ("rankmeter.ratings", "evaluate_ratings"),
    "evaluate_stream": ("rankmeter.engines.stream", "evaluate_stream"),
    "read_interactions": ("rankmeter.io.interactions", "read_interactions"),
    "Interactions": ("rankmeter.io.interactions", "Interactions"),
    "context_from_train": ("rankmeter.beyond", "context_from_train"),
    "split": ("rankmeter.split", None),
    "stats": ("rankmeter.stats", None),
    "metrics": ("rankmeter.metrics", None),
    "datasets": ("rankmeter.datasets", None),
    "recommenders": ("rankmeter.recommenders", None),
    "compare_across": ("rankmeter.compare.across", "compare_across"),
    "explain_diff": ("rankmeter.compare.explain", "explain_diff"),
    "judges": ("rankmeter.judges", None),
    "stochastic": ("rankmeter.stochastic", None),
    "fuse": ("rankmeter.fusion", "fuse"),
    "fuse_optimize": ("rankmeter.fusion", "fuse_optimize"),
}

__all__ = [
    "Comparison",
    "Coverage",
    "ExperimentResult",
    "InputError",
    "Interactions",
    "Metric",
    "MetricNameError",
    "MissingExtraError",
    "ParameterError",
    "Qrels",
    "RankmeterError",
    "Result",
    "Run",
    "compare",
    "compare_across",
    "context_from_train",
    "datasets",
    "evaluate",
    "evaluate_ratings",
    "evaluate_stream",
    "experiment",
    "explain_diff",
    "fuse",
    "fuse_optimize",
    "judges",
    "metrics",
    "parse_metric",
    "read_interactions",
    "read_qrels",
    "read_run",
    "recommenders",
    "split",
    "stats",
    "stochastic",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        mod = importlib.import_module(module)
        value = mod if attr is None else getattr(mod, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rankmeter' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
