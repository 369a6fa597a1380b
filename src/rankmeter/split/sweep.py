"""Ratio sweep: repeat a hold-out over a grid of test fractions and average the metrics."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal, cast

import numpy as np
import pyarrow as pa

from .._errors import InputError, ParameterError, RankmeterError
from ..io.interactions import Interactions, read_interactions
from ._common import Split, SplitSummary, check_choice, check_fraction, check_int

__all__ = ["ratio_sweep", "fraction_grid", "SweepResult", "SweepPoint", "DEFAULT_FRACTIONS"]


def fraction_grid(start: float = 0.2, stop: float = 0.95, step: float = 0.05) -> tuple[float, ...]:
    """Test fractions from ``start`` to ``stop`` inclusive in steps of ``step``, computed in
    decimal so the values are the ones written (0.35, not 0.35000000000000003).

    >>> fraction_grid()
    (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
    >>> fraction_grid(0.1, 0.3, 0.1)
    (0.1, 0.2, 0.3)
    """
    for name, value in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
            raise ParameterError(f"The {name!r} parameter of fraction_grid must be a finite number. Got {value!r} "
                                 "instead.")
    a, b, s = (Decimal(repr(float(v))) for v in (start, stop, step))
    if s <= 0:
        raise ParameterError(f"The 'step' parameter of fraction_grid must be > 0. Got {step!r} instead.")
    if b < a:
        raise ParameterError(f"The 'stop' parameter of fraction_grid must be >= start ({start!r}). Got {stop!r} "
                             "instead.")
    count = int((b - a) / s) + 1
    values = tuple(float(a + s * i) for i in range(count))
    for v in values:
        check_fraction(v, "fractions", "fraction_grid")
    return values


#: 0.2, 0.25, ..., 0.95 (16 fractions).
DEFAULT_FRACTIONS: tuple[float, ...] = fraction_grid()


@dataclass(frozen=True)
class SweepPoint:
    """One split of the sweep: its fraction, repetition, seed, metric means and split counts."""

    fraction: float
    repeat: int
    seed: int | None
    metrics: dict[str, float]
    summary: SplitSummary


@dataclass(frozen=True)
class SweepResult:
    """Metrics over a grid of test fractions.

    ``per_fraction[f]`` is the mean over repetitions at fraction ``f``; ``mean``, ``std``
    (sample standard deviation, ddof=1; NaN for a single fraction), ``min`` and ``max``
    are taken across fractions (each fraction weighs the same). ``points`` holds every
    split with its seed, so any one can be reproduced with :func:`rankmeter.split.holdout`.
    """

    fractions: tuple[float, ...]
    points: tuple[SweepPoint, ...]
    per_fraction: dict[float, dict[str, float]]
    mean: dict[str, float]
    std: dict[str, float]
    min: dict[str, float]
    max: dict[str, float]

    @property
    def metrics(self) -> list[str]:
        return list(self.mean)

    def to_dict(self) -> dict[str, Any]:
        return {
            "fractions": list(self.fractions),
            "per_fraction": {str(f): v for f, v in self.per_fraction.items()},
            "mean": self.mean,
            "std": self.std,
            "min": self.min,
            "max": self.max,
            "points": [
                {"fraction": p.fraction, "repeat": p.repeat, "seed": p.seed, "metrics": p.metrics,
                 "summary": p.summary.to_dict()}
                for p in self.points
            ],
        }

    def to_pandas(self) -> Any:
        """One row per fraction: ``fraction`` and one column per metric."""
        import pandas as pd

        return pd.DataFrame(
            [{"fraction": f, **v} for f, v in self.per_fraction.items()]
        )

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{m}={self.mean[m]:.4f}±{self.std[m]:.4f} [{self.min[m]:.4f}, {self.max[m]:.4f}]"
            for m in self.mean
        )
        return f"SweepResult({len(self.fractions)} fractions: {shown})"


Recommend = Callable[[Any, list[Any]], Any]
Evaluate = Callable[[Any, Any, Any], Any]


def ratio_sweep(
    interactions: Any,
    recommend: Recommend,
    metrics: Any = None,
    *,
    evaluate: Evaluate | None = None,
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    method: Literal["holdout", "temporal"] = "holdout",
    per_user: bool = True,
    repeats: int = 1,
    seed: int | np.random.Generator = 0,
    relevance: str = "binary",
    split_options: Mapping[str, Any] | None = None,
    user: str | None = None,
    item: str | None = None,
    timestamp: str | None = None,
) -> SweepResult:
    """Split at every test fraction, recommend, evaluate, and report the spread.

    For each fraction ``f`` of ``fractions`` (default 0.2, 0.25, ..., 0.95) and each of
    ``repeats`` repetitions:

    1. split with :func:`~rankmeter.split.holdout` (``method="holdout"``, random, seeded)
       or :func:`~rankmeter.split.temporal` (``method="temporal"``, each user's latest
       fraction, or the latest fraction overall with ``per_user=False``), passing
       ``split_options`` (filters, ``small_users``, ``drop_cold_items`` ...);
    2. ``run = recommend(train, test_users)``: ``train`` in the input's kind,
       ``test_users`` the list of user ids that have test rows;
    3. ``evaluate(qrels, run, metrics)`` where ``qrels`` is a
       :class:`~rankmeter.Qrels` of the test rows (user, item, grade 1, or the grade from
       the column named by ``relevance``); ``evaluate`` defaults to
       :func:`rankmeter.evaluate` and may return a mapping or an object whose ``.mean``
       is ``{metric: value}``.

    Each split gets its own seed, drawn from ``seed`` (recorded in ``points``).

    >>> data = {"user": [u for u in "abcd" for _ in range(10)], "item": list(range(40))}
    >>> def recommend(train, users):
    ...     return {u: ["0"] for u in users}
    >>> def count_test(qrels, run, metrics):
    ...     return {"test_rows": float(len(qrels))}
    >>> r = ratio_sweep(data, recommend, evaluate=count_test, fractions=[0.2, 0.5])
    >>> r.per_fraction, r.mean
    ({0.2: {'test_rows': 8.0}, 0.5: {'test_rows': 20.0}}, {'test_rows': 14.0})
    """
    func = "ratio_sweep"
    if not callable(recommend):
        raise ParameterError(f"The 'recommend' parameter of {func} must be callable. Got {recommend!r} instead.")
    check_choice(method, "method", func, ("holdout", "temporal"))
    repeats = check_int(repeats, "repeats", func, 1)
    if method == "temporal" and repeats > 1:
        raise ParameterError(
            f"The 'repeats' parameter of {func} must be 1 with method='temporal': a temporal "
            f"split has no randomness, every repetition would be the same. Got {repeats} instead."
        )
    fractions = tuple(fractions)
    if not fractions:
        raise ParameterError(f"The 'fractions' parameter of {func} must hold at least one fraction.")
    for f in fractions:
        check_fraction(f, "fractions", func)
    if len(set(float(f) for f in fractions)) != len(fractions):
        raise ParameterError(f"The 'fractions' parameter of {func} holds a fraction twice: {list(fractions)}.")
    options = dict(split_options or {})
    reserved = {"test_fraction", "per_user", "seed", "user", "item", "timestamp"} & set(options)
    if reserved:
        raise ParameterError(
            f"The 'split_options' parameter of {func} must not set {sorted(reserved)}; "
            "they are parameters of ratio_sweep itself."
        )
    if evaluate is None:
        evaluate = _default_evaluate()
        if metrics is None:
            raise ParameterError(f"The 'metrics' parameter of {func} is needed with the default evaluate (e.g. "
                                 "'ndcg@10').")
    if isinstance(seed, np.random.Generator):
        seeds = [int(s) for s in seed.integers(0, 2**32, size=len(fractions) * repeats)]
    else:
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise ParameterError(
                f"The 'seed' parameter of {func} must be an int >= 0 or a numpy.random.Generator. "
                f"Got {seed!r} instead."
            )
        seeds = [int(s) for s in np.random.SeedSequence(int(seed)).generate_state(len(fractions) * repeats)]

    need_time = method == "temporal"
    data = read_interactions(
        interactions, user=user, item=item,
        rating=relevance if relevance != "binary" else False,
        timestamp=timestamp if need_time else (timestamp or False),
    )
    from . import holdout as _holdout
    from . import temporal as _temporal

    points: list[SweepPoint] = []
    for i, f in enumerate(fractions):
        for r in range(repeats):
            split_seed = seeds[i * repeats + r] if method == "holdout" else None
            if method == "holdout":
                split = _holdout(data, test_fraction=float(f), per_user=per_user, seed=split_seed, **options)
            else:
                split = _temporal(data, test_fraction=float(f), per_user=per_user, **options)
            qrels, users = _qrels_of(split, data, relevance)
            run = recommend(split.train, users)
            values = _means(evaluate(qrels, run, metrics), func)
            points.append(SweepPoint(float(f), r, split_seed, values, split.summary))

    names: list[str] = []
    for p in points:
        for m in p.metrics:
            if m not in names:
                names.append(m)
    per_fraction: dict[float, dict[str, float]] = {}
    for i, f in enumerate(fractions):
        group = points[i * repeats : (i + 1) * repeats]
        per_fraction[float(f)] = {
            m: float(np.mean([p.metrics.get(m, math.nan) for p in group])) for m in names
        }
    table = {m: np.array([per_fraction[float(f)][m] for f in fractions], dtype=np.float64) for m in names}
    return SweepResult(
        fractions=tuple(float(f) for f in fractions),
        points=tuple(points),
        per_fraction=per_fraction,
        mean={m: float(v.mean()) for m, v in table.items()},
        std={m: float(v.std(ddof=1)) if len(v) > 1 else math.nan for m, v in table.items()},
        min={m: float(v.min()) for m, v in table.items()},
        max={m: float(v.max()) for m, v in table.items()},
    )


def _default_evaluate() -> Evaluate:
    try:
        import rankmeter
    except ImportError as exc:  # pragma: no cover
        raise RankmeterError(f"rankmeter.evaluate cannot be imported ({exc}); pass evaluate=...") from None
    fn = getattr(rankmeter, "evaluate", None)
    if fn is not None and not callable(fn):  # a module
        fn = getattr(fn, "evaluate", None)
    if fn is None:  # pragma: no cover - the evaluator ships with rankmeter
        raise RankmeterError("rankmeter.evaluate is not available; pass evaluate=...")
    return fn  # type: ignore[no-any-return]  # a function found by name


def _means(result: Any, func: str) -> dict[str, float]:
    mean = getattr(result, "mean", result)
    if callable(mean) and not isinstance(mean, Mapping):
        mean = mean()
    if not isinstance(mean, Mapping):
        raise RankmeterError(
            f"{func}: evaluate returned {type(result).__name__}; expected a mapping metric -> value "
            "or an object whose .mean is one"
        )
    return {str(k): float(v) for k, v in mean.items()}


def _qrels_of(split: Split, data: Interactions, relevance: str) -> tuple[Any, list[Any]]:
    from ..data import Qrels

    test = split.table("test")
    users = test.column(data.user)
    items = test.column(data.item)
    if relevance == "binary":
        grades = np.ones(test.num_rows, dtype=np.float64)
    else:
        if relevance not in test.column_names:
            raise InputError(f"no column {relevance!r} for relevance; found {test.column_names}")
        grades = test.column(relevance)
    qrels = Qrels.from_columns(users, items, grades, duplicates="max")
    test_users = _distinct_in_order(users)
    return qrels, test_users


def _distinct_in_order(column: pa.ChunkedArray) -> list[Any]:
    import pyarrow.compute as pc

    return cast("list[Any]", pc.unique(column).to_pylist())
