"""rankmeter: offline evaluation of rankings and recommendations.

>>> import rankmeter
>>> rankmeter.evaluate({"q": {"a": 1}}, {"q": {"a": 0.9, "b": 0.8}}, "P@1").mean
{'P@1': 1.0}
"""

from ._errors import InputError, MetricNameError, MissingExtraError, ParameterError, RankmeterError
from .data import Qrels, Run
from .evaluate import evaluate
from .io import read_qrels, read_run
from .metrics.registry import Metric, parse_metric
from .result import Coverage, Result

__version__ = "0.1.0"

__all__ = [
    "Coverage",
    "InputError",
    "Metric",
    "MetricNameError",
    "MissingExtraError",
    "ParameterError",
    "Qrels",
    "RankmeterError",
    "Result",
    "Run",
    "evaluate",
    "parse_metric",
    "read_qrels",
    "read_run",
]
