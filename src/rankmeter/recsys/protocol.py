"""Repeated protocols (k-fold, repeated hold-out), several baselines and tuning on a validation split.

:func:`rankmeter.recsys.pipeline.experiment` hands the work here when ``split="kfold"``,
``repeats`` > 1, a recommender is given as a grid, or ``validation_fraction`` is set:

* **splits** (:func:`make_splits`): one :class:`rankmeter.split.Split` per fold or repeat.
  ``split="kfold"`` deals the interactions into ``folds`` folds (``unit="interactions"``,
  optionally ``per_user=True``: user-stratified) or the users (``unit="users"``: strong
  generalisation, where a fold-in share ``1 - heldout_fraction`` of each test user's
  interactions goes to training, as ``split="strong"`` does); ``repeats=N`` repeats it
  with the seeds ``seed, seed + 1, ...``. A random hold-out or leave-k-out with ``repeats=N``
  is drawn with those seeds too. Each split is evaluated exactly as a single split is
  (:func:`experiment` on the :class:`~rankmeter.split.Split`).
* **across splits** (:class:`~rankmeter.recsys.repeated.RepeatedResult`): per model and metric
  the mean and sd of the ``J`` per-split means and the corrected interval
  ``mean +- t(0.975, J - 1) sd sqrt(1/J + rho)``, ``rho = n_test / n_train`` (k-fold:
  ``1 / (k - 1)``); each model against each baseline by the corrected resampled t-test
  (Nadeau and Bengio 2003; Bouckaert and Frank 2004), :func:`rankmeter.stats.across.corrected_resampled_t`.
* **several baselines** (:func:`compare_family`): each baseline's paired tests over users
  (:func:`rankmeter.compare`) without correction, then one correction over the whole family:
  every (non-baseline model, baseline, metric) test plus each pair of baselines once per metric.
* **tuning** (:func:`tune`): a grid ``{"type": "itemknn", "neighbors": [10, 50, 200]}`` (or
  ``{"callable": f, "alpha": [0.1, 1.0]}``) is fitted on the training part without the
  validation rows, scored on the validation rows by ``tune_metric``, and the best point is
  refitted on train + validation and evaluated once on test. The test rows are never given
  to the tuning step.

>>> expand_grid({"type": "itemknn", "neighbors": [10, 50]})
[{'type': 'itemknn', 'neighbors': 10}, {'type': 'itemknn', 'neighbors': 50}]
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa

from .._errors import ParameterError

__all__ = ["REPEATABLE", "shorthands", "make_splits", "fold_in", "expand_grid", "is_grid", "compare_family",
           "tune", "Design"]

#: the protocols ``repeats`` applies to (a temporal split is the same every time)
REPEATABLE = ("kfold", "holdout", "leave_k_out", "leave_one_out", "strong", "auto")


def shorthands(split: Any, split_params: Mapping[str, Any] | None, folds: Any, repeats: Any) -> tuple[dict[str, Any],
                                                                                                    int]:
    """``(split_params with folds, repeats)``: ``folds=``/``repeats=`` are shorthands for ``split_params``.

    >>> shorthands("kfold", {"folds": 3}, 3, None)
    ({'folds': 3}, 1)
    >>> shorthands("kfold", {"folds": 3}, 5, None)
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'folds' parameter of experiment is 5 but split_params gives folds=3: give one.
    """
    params = dict(split_params or {})
    for key, value in (("folds", folds), ("repeats", repeats)):
        if value is None:
            continue
        if key in params and params[key] != value:
            raise ParameterError(f"The {key!r} parameter of experiment is {value!r} but split_params gives "
                                 f"{key}={params[key]!r}: give one.")
        params[key] = value
    for key in ("folds", "repeats"):
        v = params.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))
                              or v < (2 if key == "folds" else 1)):
            raise ParameterError(f"The {key!r} parameter of experiment must be an int >= {2 if key == 'folds' else 1}. "
                                 f"Got {v!r} instead.")
    n = int(params.pop("repeats", 1))
    name = split.lower() if isinstance(split, str) else None
    if "folds" in params and name != "kfold":
        raise ParameterError(f"The 'folds' parameter of experiment applies to split='kfold' only. Got split={split!r}.")
    if n > 1 and name not in REPEATABLE:
        raise ParameterError(f"The 'repeats' parameter of experiment applies to the random protocols "
                             f"({', '.join(REPEATABLE)}); split={split!r} gives the same split every time.")
    return params, n


@dataclasses.dataclass(frozen=True)
class Design:
    """How the splits were made: labels, ``rho = n_test / n_train`` of the corrected test, a description."""

    labels: tuple[str, ...]
    rho: float
    description: str
    method: str
    folds: int | None = None
    repeats: int = 1


def fold_in(split: Any, heldout_fraction: float, seed: int) -> Any:
    """A user fold of k-fold as strong generalisation: each test user's rows split at random (seeded) into a
    held-out share ``heldout_fraction`` (``round_count``, at least 1 and at most n - 1) that stays in test and
    the fold-in rest moved to training; a test user with one row goes to training whole (counted)."""
    from fractions import Fraction

    from ..split import Counts, Split, round_count

    data = split.data
    users = np.asarray(pa.chunked_array(data.table.column(data.user)).combine_chunks().dictionary_encode()
                       .indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    items = np.asarray(pa.chunked_array(data.table.column(data.item)).combine_chunks().dictionary_encode()
                       .indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    frac = Fraction(str(heldout_fraction)) if not isinstance(heldout_fraction, Fraction) else heldout_fraction
    if not 0 < frac < 1:
        raise ParameterError(f"The 'heldout_fraction' split parameter must be in (0, 1). Got {heldout_fraction!r}.")
    rows = np.flatnonzero(split.test_mask)
    rng = np.random.default_rng([int(seed), 104729])
    rows = rows[rng.permutation(len(rows))]
    rows = rows[np.argsort(users[rows], kind="stable")]
    u = users[rows]
    n_u = np.bincount(u, minlength=int(users.max(initial=-1)) + 1)
    m = round_count(n_u, frac)  # 0 for a user with one row: all of it to training
    starts = np.cumsum(n_u) - n_u
    pos = np.arange(len(rows)) - starts[u]
    held = np.zeros(len(users), dtype=bool)
    held[rows[pos < m[u]]] = True
    train = split.train_mask | (split.test_mask & ~held)
    test = split.test_mask & held

    def counts(mask: np.ndarray) -> Any:
        return Counts(int(mask.sum()), len(np.unique(users[mask])), len(np.unique(items[mask])))

    single = int(((n_u == 1)).sum())
    s = split.summary
    summary = dataclasses.replace(s, params={**s.params, "heldout_fraction": float(heldout_fraction),
                                             "strong_generalisation": True, "single_row_test_users_to_train": single},
                                  train=counts(train), test=counts(test))
    out = Split(data, train, test, summary, cold_users=pa.array([], pa.string()), cold_items=split.cold_items,
                small_users=split.small_users)
    return out


def _protocol(data: Any, name: str, params: Mapping[str, Any], filters: Mapping[str, Any], seed: int,
              validation_fraction: float | None) -> Any:
    from .splitting import protocol_split

    extra = {"validation_fraction": validation_fraction} if validation_fraction is not None else {}
    return protocol_split(data, name, {**params, **extra}, filters, seed)


def make_splits(data: Any, split: Any, params: Mapping[str, Any], filters: Mapping[str, Any], seed: int,
                repeats: int, validation_fraction: float | None = None) -> tuple[list[Any], Design]:
    """The splits of a (repeated) protocol, each a :class:`rankmeter.split.Split`, and their :class:`Design`."""
    from .. import split as S

    params = dict(params)
    name = split.lower() if isinstance(split, str) else None
    if not isinstance(split, str):  # a Split, a pair or a callable: one given split
        return [split], Design(("split",), math.nan, "one given split", "given")
    if name == "auto":
        name = "temporal" if data.timestamp is not None else "holdout"
    base = int(params.pop("seed", seed))
    if name == "kfold":
        k = int(params.pop("folds", 5))
        unit = params.pop("unit", "interactions")
        heldout = params.pop("heldout_fraction", 0.2 if unit == "users" else None)
        if heldout is not None and unit != "users":
            raise ParameterError("The 'heldout_fraction' split parameter applies to kfold with unit='users' (strong "
                                 "generalisation).")
        unknown = [p for p in params if p not in ("per_user", "small_users", "iterate_filters", "drop_cold_items",
                                                  "drop_cold_users")]
        if unknown:
            raise ParameterError(f"The split parameter {unknown[0]!r} does not apply to split='kfold' (its "
                                 "parameters: folds, unit, per_user, heldout_fraction, seed, repeats, small_users).")
        splits, labels = [], []
        for r in range(repeats):
            vf = validation_fraction if unit != "users" else None
            folds = S.kfold(data, folds=k, unit=unit, seed=base + r, **params, **filters,
                            **({"validation_fraction": vf} if vf is not None else {}))
            for f, s in enumerate(folds):
                if unit == "users":
                    s = fold_in(s, heldout, base + r * 1000 + f)
                    if validation_fraction is not None:
                        from ..split.validation import carve

                        s = carve(s, validation_fraction, latest=False, per_user=False, seed=base + r, func="kfold")
                splits.append(s)
                labels.append(f"r{r + 1}f{f + 1}" if repeats > 1 else f"fold {f + 1}")
        how = "over interactions"
        if unit == "users":
            how = ("over users (strong generalisation: each test user's fold-in share "
                   f"{1 - float(heldout):g} of its interactions goes to training, the held-out share "
                   f"{float(heldout):g} is tested)")
        if params.get("per_user") and unit == "interactions":
            how = "over interactions, user-stratified"
        desc = f"{k}-fold cross-validation {how}" + (f", repeated {repeats} times (seeds {base}..{base + repeats - 1})"
                                                    if repeats > 1 else f" (seed {base})")
        return splits, Design(tuple(labels), 1.0 / (k - 1), desc, "kfold", k, repeats)
    if repeats > 1 and (name in ("temporal", "temporal_global") or (
            name in ("leave_k_out", "leave_one_out") and data.timestamp is not None
            and params.get("by", "time") == "time")):
        why = "is temporal on data with timestamps" if split.lower() == "auto" else "holds out by time"
        raise ParameterError(f"The 'repeats' parameter of experiment needs a random protocol: split={split!r} {why}, "
                             "the same split every time (use split='kfold', 'holdout', or by='random').")
    vf = None if name == "strong" else validation_fraction  # strong: carved from its evaluation split below
    splits = [_protocol(data, name or "", params, filters, base + r, vf) for r in range(repeats)]
    if isinstance(splits[0], S.StrongSplit):
        splits = [s.evaluation_split() if validation_fraction is None else
                  _strong_with_validation(s, validation_fraction, base) for s in splits]
    n_test = float(np.mean([s.summary.test.rows for s in splits]))
    n_train = float(np.mean([s.summary.train.rows + (s.summary.validation.rows if s.summary.validation else 0)
                             for s in splits]))
    desc = (f"{name} split repeated {repeats} times (seeds {base}..{base + repeats - 1})" if repeats > 1
            else f"{name} split")
    rep_labels = tuple(f"repeat {r + 1}" for r in range(repeats))
    return splits, Design(rep_labels, n_test / max(n_train, 1.0), desc, name or "", None, repeats)


def _strong_with_validation(s: Any, fraction: float, seed: int) -> Any:
    from ..split.validation import carve

    return carve(s.evaluation_split(), fraction, latest=False, per_user=False, seed=seed, func="strong")


# --------------------------------------------------------------------------- grids and tuning


def is_grid(spec: Any) -> bool:
    """A recommender spec (a mapping) with at least one parameter given as a list of values."""
    if not isinstance(spec, Mapping):
        return False
    return any(isinstance(v, (list, tuple)) and k not in ("lists",) for k, v in spec.items())


def expand_grid(spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every point of a grid spec (the cartesian product of the list-valued parameters, in order)."""
    fixed = {k: v for k, v in spec.items() if not isinstance(v, (list, tuple))}
    axes = [(k, list(v)) for k, v in spec.items() if isinstance(v, (list, tuple))]
    for k, v in axes:
        if not v:
            raise ParameterError(f"The grid of parameter {k!r} is empty: give at least one value.")
    points = []
    for combo in itertools.product(*[v for _, v in axes]):
        point = dict(spec)
        point.update(fixed)
        point.update(dict(zip([k for k, _ in axes], combo, strict=True)))
        points.append(point)
    return points


def point_spec(point: Mapping[str, Any]) -> Any:
    """A grid point as a recommender spec ``experiment`` takes (a callable gets its parameters bound)."""
    point = dict(point)
    if "callable" in point:
        fn = point.pop("callable")
        if isinstance(fn, str):
            from .recommenders import load_callable

            fn = load_callable(fn)
        return functools.partial(fn, **point) if point else fn
    return point


def grid_params(point: Mapping[str, Any], spec: Mapping[str, Any]) -> dict[str, Any]:
    """The tuned parameters of a point (those the grid varies)."""
    return {k: point[k] for k, v in spec.items() if isinstance(v, (list, tuple))}


def tune(interactions: Any, split: Any, name: str, spec: Mapping[str, Any], metric: str,
         run: Any, **kwargs: Any) -> dict[str, Any]:
    """Fit every point of ``spec`` on ``split``'s training rows and score it on its validation rows only.

    ``run`` is :func:`experiment`; the split handed to it has the validation rows as its test part, so
    the test rows are never read. Returns ``{"params", "scores": [{"params", "value"}], "metric", ...}``.
    """
    from ..metrics.registry import parse_metrics
    from ..split import Split

    if split.validation_mask is None:
        raise ParameterError("tuning needs a validation part: give validation_fraction (e.g. 0.1)")
    s = split.summary
    val = Split(split.data, split.train_mask, split.validation_mask,
                dataclasses.replace(s, test=s.validation, validation=None),
                cold_users=pa.array([], pa.string()), cold_items=pa.array([], pa.string()),
                small_users=split.small_users)
    points = expand_grid(spec)
    recs = {f"p{i}": point_spec(p) for i, p in enumerate(points)}
    res = run(interactions, split=val, recommenders=recs, metrics=[metric], baseline=None, **kwargs)
    higher = parse_metrics([metric])[0].spec.higher_is_better
    scores = [float(res.results[f"p{i}"].mean[metric]) for i in range(len(points))]
    key = [(-v if higher else v) if math.isfinite(v) else math.inf for v in scores]
    best = int(np.argmin(key))  # the first best point on ties
    return {"recommender": name, "metric": metric, "params": grid_params(points[best], spec),
            "scores": [{"params": grid_params(p, spec), "value": v} for p, v in zip(points, scores, strict=True)],
            "validation_rows": int(split.validation_mask.sum()), "spec": points[best]}


# --------------------------------------------------------------------------- several baselines


def compare_family(results: Mapping[str, Any], metrics: Sequence[str], baselines: Sequence[str], *, test: Any,
                   correction: str, alpha: float, n_resamples: int, seed: int) -> dict[str, Any]:
    """Per baseline, the :class:`~rankmeter.compare.Comparison` of every model against it, with one correction
    over the whole family (every non-baseline model x baseline x metric test, plus each pair of baselines once
    per metric), per test kind. ``PairTest.correction`` reads e.g. ``"holm (family of 12 tests)"``."""
    from ..compare import compare
    from ..stats.correction import adjust, canonical_correction

    comps = {b: compare(None, results, list(metrics), baseline=b, test=test, correction="none", alpha=alpha,
                        n_resamples=n_resamples, seed=seed) for b in baselines}
    family: dict[tuple[str, str, str, frozenset[str]], float] = {}
    for b in baselines:
        same = comps[b].aliases  # another spelling of a metric: the same test, in the family once
        for t in comps[b].tests:
            if t.test == "tukey-hsd":
                continue
            key = (t.test, same.get(t.metric, t.metric), "", frozenset((t.a, t.b)))
            family.setdefault(key, t.p_value)
    keys = list(family)
    by_test: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        by_test.setdefault(key[0], []).append(i)
    adjusted: dict[Any, float] = {}
    sizes: dict[str, int] = {}
    method = canonical_correction(correction)
    for tname, idx in by_test.items():
        p = np.array([family[keys[i]] for i in idx], dtype=np.float64)
        finite = np.isfinite(p)
        adj = np.full(len(p), np.nan)
        if finite.any():
            adj[finite] = adjust(p[finite], method)
        sizes[tname] = int(finite.sum())
        for i, a in zip(idx, adj, strict=True):
            adjusted[keys[i]] = float(a)
    for b in baselines:
        comp = comps[b]
        new = []
        for t in comp.tests:
            key = (t.test, comp.aliases.get(t.metric, t.metric), "", frozenset((t.a, t.b)))
            if key not in adjusted:
                new.append(t)
                continue
            pa_ = adjusted[key]
            sig = bool(math.isfinite(pa_) and pa_ < alpha)
            higher = comp.higher_is_better.get(t.metric, True)
            better = None
            if sig:
                better = t.b if (t.diff > 0) == higher else t.a
            new.append(dataclasses.replace(t, p_adjusted=pa_, significant=sig, better=better,
                                           correction=f"{method} (family of {sizes[t.test]} tests)"))
        comp.tests = new
        comp.settings = dataclasses.replace(comp.settings, correction=method)
        comp.notes.append(f"several baselines ({', '.join(baselines)}): one {method} correction over the family of "
                          + ", ".join(f"{n} {t} tests" for t, n in sizes.items())
                          + " (every model x baseline x metric, each pair of baselines once)")
    return comps
