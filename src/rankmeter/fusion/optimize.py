"""``fuse_optimize``: weights and parameters tuned on judgments, with k-fold cross-validation over queries.

A search (grid or seeded random) over the method's weights and parameters (RRF's ``k``,
CombGMNZ's ``gamma``, RBC's ``phi``, LogN ISR's ``sigma``, SlideFuse's ``w``, ProbFuse's
number of segments) picks the configuration with the best mean metric on the training
queries. With ``folds=K`` the queries are shuffled (``seed``) into K folds; each fold's
configuration is chosen (and a supervised method trained) on the other folds, and scored
on the fold it never saw: the held-out score. The returned ``params`` are chosen (and
trained) on every query, for :func:`rankmeter.fusion.fuse` (``params=result.params``); their
score, ``score``, is tuned on itself, which is why ``heldout`` is the number to report.

The supervised methods (probfuse, segfuse, slidefuse, posfuse, bayesfuse, mapfuse) are
trained here, on the judgments (relevant: grade >= ``rel``, 1 by default as ranx), as ranx's
``*_train`` functions estimate them (:func:`train_params`).

>>> from rankmeter.fusion import fuse_optimize
>>> qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"b": 1}, "q4": {"a": 1}}
>>> r1 = {q: {"a": 2.0, "b": 1.0} for q in qrels}
>>> r2 = {q: {"b": 2.0, "a": 1.0} for q in qrels}
>>> res = fuse_optimize(qrels, [r1, r2], "wsum", "rr", folds=2, step=0.5)
>>> res.params, res.score, [f.heldout_score for f in res.folds], res.heldout
({'weights': [1.0, 0.0]}, 0.875, [0.75, 0.5], 0.625)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .. import _compute as C
from .._errors import ParameterError
from .._params import check_choice, check_int, check_number
from ..data import Qrels, Run
from ..data.ids import encode_unsorted, positions_or_minus1
from .core import RunsInput, fuse, fused_run, load_runs, resolve
from .frame import Frame, join, normalize
from .methods import BAYES_CUTOFFS, SEGFUSE_BOUNDS
from .spec import FusionMethod, Param

__all__ = ["FoldResult", "OptimizeResult", "fuse_optimize", "train_params"]


@dataclass(frozen=True)
class FoldResult:
    """One fold: the queries held out, the parameters chosen without them, and both scores."""

    fold: int
    queries: tuple[str, ...]
    params: dict[str, Any]
    train_score: float
    heldout_score: float


@dataclass(frozen=True)
class OptimizeResult:
    """What :func:`fuse_optimize` found.

    ``params``: chosen (and trained) on every query, ready for ``fuse(runs, method, params=...)``;
    ``score``: their mean on those same queries (tuned on itself: optimistic); ``folds``: one
    :class:`FoldResult` per fold; ``heldout``: the mean over all queries of each query's value
    under the parameters chosen without it, the cross-validated estimate; ``trials``: every
    configuration tried on all queries, with its mean.
    """

    method: str
    norm: str | None
    metric: str
    params: dict[str, Any]
    score: float
    folds: tuple[FoldResult, ...]
    heldout: float
    trials: tuple[tuple[dict[str, Any], float], ...] = field(repr=False, default=())

    def fuse(self, runs: RunsInput, *, depth: int | None = None) -> Run:
        """Fuse ``runs`` (the same runs, or the same systems on other queries) with the chosen parameters."""
        return fuse(runs, self.method, norm=self.norm, params=self.params, depth=depth)

    def __repr__(self) -> str:
        folds = ", ".join(f"{f.heldout_score:.4f}" for f in self.folds)
        return (f"OptimizeResult({self.method}, {self.metric}: held-out {self.heldout:.4f} (folds: {folds}), "
                f"tuned on all {self.score:.4f}, params={_short(self.params)})")


def _short(params: Mapping[str, Any]) -> str:
    out = {k: (f"<{len(v)} arrays>" if k in ("probs", "log_odds") else v) for k, v in params.items()}
    return repr(out)


# --------------------------------------------------------------------------- judgments and training

@dataclass(frozen=True)
class Judged:
    """The judgments seen from a frame: which candidates are relevant, the relevant count of each frame query,
    and each judged query's frame code (-1: no run retrieved anything for it)."""

    relevant: np.ndarray  # (n candidates,)
    n_relevant: np.ndarray  # (frame queries,)
    query_ids: list[str]  # the judged queries
    codes: np.ndarray  # their frame codes


def judged(frame: Frame, qrels: Qrels, rel: float) -> Judged:
    qmap = positions_or_minus1(C.index_in(qrels.query_ids, frame.query_ids))
    icodes, ivocab = encode_unsorted(frame.items)
    imap = positions_or_minus1(C.index_in(qrels.item_ids, ivocab))
    rows_q = qrels.row_queries()
    is_rel = qrels.grades >= rel
    rq, ri = qmap[rows_q], imap[qrels.items]
    ok = is_rel & (rq >= 0) & (ri >= 0)
    nv = max(len(ivocab), 1)
    relevant = np.isin(frame.query * nv + icodes, rq[ok] * nv + ri[ok])
    per_query = np.bincount(rows_q[is_rel], minlength=qrels.n_queries)
    n_relevant = np.zeros(len(frame.query_ids), dtype=np.int64)
    n_relevant[qmap[qmap >= 0]] = per_query[qmap >= 0]
    return Judged(relevant, n_relevant, qrels.query_ids.to_pylist(), qmap)


def _train(spec: FusionMethod, frame: Frame, j: Judged, train: np.ndarray, hyper: Mapping[str, Any]) -> dict[str, Any]:
    """Train a supervised method on the judged queries ``train`` (a mask over ``j.query_ids``)."""
    n_train = int(train.sum())
    in_train = np.zeros(len(frame.query_ids), dtype=bool)
    in_train[j.codes[train & (j.codes >= 0)]] = True
    cand_train = in_train[frame.query]
    name = spec.name
    out: list[Any] = []
    for k in range(frame.n_runs):
        ret = frame.retrieved[:, k] & cand_train
        hit = ret & j.relevant
        pos0 = frame.pos[:, k] - 1
        lengths = frame.run_len[:, k]
        if name in ("posfuse", "slidefuse"):
            longest = int(lengths[in_train].max()) if in_train.any() else 0
            num = np.bincount(pos0[hit], minlength=longest)[:longest].astype(np.float64)
            den = np.bincount(np.minimum(lengths[in_train], longest), minlength=longest + 1)[::-1].cumsum()[::-1]
            out.append(num / np.maximum(den[1:longest + 1] if longest else den[:0], 1))
        elif name == "probfuse":
            s = int(hyper["n_segments"])
            size = np.maximum(-(-lengths // s), 1)  # ceil(n / S) per query
            q = frame.query[hit]
            seg = pos0[hit] // size[q]
            count = np.minimum(lengths[q], (seg + 1) * size[q]) - seg * size[q]
            out.append(np.bincount(seg, weights=1.0 / count, minlength=s)[:s] / max(n_train, 1))
        elif name == "segfuse":
            seg = np.searchsorted(SEGFUSE_BOUNDS, pos0[hit], side="right") - 1
            inside = seg < len(SEGFUSE_BOUNDS) - 1
            sizes = np.diff(SEGFUSE_BOUNDS).astype(np.float64)
            out.append(np.bincount(seg[inside], weights=1.0 / sizes[seg[inside]], minlength=len(sizes))
                       / max(n_train, 1))
        elif name == "bayesfuse":
            cut = BAYES_CUTOFFS
            b = np.searchsorted(cut, pos0[hit], side="right") - 1
            inside = b < len(cut) - 1
            widths = np.diff(cut).astype(np.float64)
            prec = np.bincount(b[inside], weights=1.0 / widths[b[inside]], minlength=len(widths)) / max(n_train, 1)
            prec = np.where(prec == 0, 0.001, prec)
            neg = np.where(1 - prec == 0, 0.001, 1 - prec)
            out.append(np.repeat(np.log(prec / neg), np.diff(cut).astype(np.int64)))
        else:  # mapfuse: MAP over the training queries (a query without a relevant document: 0, as ranx)
            rows = np.flatnonzero(hit)
            rows = rows[np.lexsort((pos0[rows], frame.query[rows]))]
            q = frame.query[rows]
            first = np.concatenate(([True], q[1:] != q[:-1])) if len(q) else np.zeros(0, dtype=bool)
            start = np.maximum.accumulate(np.where(first, np.arange(len(q)), 0)) if len(q) else q
            nth = np.arange(len(q)) - start + 1
            prec = nth / (pos0[rows] + 1)
            ap = np.bincount(q, weights=prec, minlength=len(frame.query_ids)) / np.maximum(j.n_relevant, 1)
            out.append(float(ap[in_train].sum() / max(n_train, 1)))
    key = "log_odds" if name == "bayesfuse" else ("map_scores" if name == "mapfuse" else "probs")
    if key == "map_scores":
        return {key: out}
    return {key: [np.asarray(a, dtype=np.float64).tolist() for a in out]}


def train_params(qrels: Any, runs: RunsInput, method: str, *, norm: str | None = "min-max", rel: float = 1,
                 **hyper: Any) -> dict[str, Any]:
    """A supervised method's parameters estimated on all of ``qrels``' queries (no search, no folds).

    ``hyper``: the training's own parameters (ProbFuse's ``n_segments``). Relevant: grade >= ``rel``.
    """
    from ..io import as_qrels

    loaded, names = load_runs(runs, func="train_params")
    spec, _, _, _ = resolve(method, len(loaded), names, func="train_params", allow_untrained=True)
    if not spec.needs_training:
        raise ParameterError(f"{spec.name} is not a supervised method: it has nothing to train.")
    frame = normalize(join(loaded, names), norm)
    j = judged(frame, as_qrels(qrels), rel)
    checked = {p.name: p.check(hyper[p.name], spec.name, len(loaded)) for p in spec.hyper if p.name in hyper}
    missing = [p.name for p in spec.hyper if p.name not in checked]
    if missing:
        raise ParameterError(f"train_params for {spec.name} needs {missing[0]}=...")
    return _train(spec, frame, j, np.ones(len(j.query_ids), dtype=bool), checked)


# --------------------------------------------------------------------------- the search

def _simplex(n_runs: int, step: float) -> list[tuple[float, ...]]:
    """Every weight vector with entries on a grid of ``step`` that sums to 1 (ranx's weight grid)."""
    parts = int(round(1 / step))
    if abs(parts * step - 1) > 1e-9:
        raise ParameterError(f"The 'step' parameter of fuse_optimize must divide 1 (0.1, 0.05, 0.25...). Got {step!r} "
                             "instead.")
    out = []
    for combo in itertools.product(range(parts + 1), repeat=n_runs - 1):
        rest = parts - sum(combo)
        if rest >= 0:
            out.append(tuple(round(c / parts, 10) for c in (*combo, rest)))
    return out


def _configs(spec: FusionMethod, n_runs: int, fixed: Mapping[str, Any], grid: Mapping[str, Sequence[Any]] | None,
             search: str, n_trials: int, step: float, rng: np.random.Generator) -> list[dict[str, Any]]:
    dims: list[tuple[str, Param | None, list[Any]]] = []
    values: list[Any]
    grid = dict(grid or {})
    if spec.weighted and "weights" not in fixed:
        values = [tuple(float(x) for x in w) for w in grid.pop("weights")] if "weights" in grid else \
            _simplex(n_runs, step)
        dims.append(("weights", None, values))
    for p in spec.params + spec.hyper:
        if p.name in fixed or p.kind in ("arrays", "vector"):
            continue
        if p.name in grid:
            values = [p.check(v, spec.name, n_runs) for v in grid.pop(p.name)]
        elif p.grid:
            values = list(p.grid)
        else:
            continue
        dims.append((p.name, p, values))
    if grid:
        raise ParameterError(f"fuse_optimize's grid names {sorted(grid)[0]!r}, which {spec.name} does not search "
                             f"(it searches: {', '.join(d[0] for d in dims) or 'nothing'}).")
    if not dims:
        return [{}]
    if search == "grid":
        return [dict(zip([d[0] for d in dims], combo, strict=True)) for combo in
                itertools.product(*[d[2] for d in dims])]
    out = []
    for _ in range(n_trials):
        config: dict[str, Any] = {}
        for name, param, options in dims:
            if name == "weights":
                config[name] = tuple(float(x) for x in rng.dirichlet(np.ones(n_runs)))
            elif param is not None and param.kind == "int":
                config[name] = int(rng.integers(int(min(options)), int(max(options)) + 1))
            elif param is not None and param.kind == "number":
                config[name] = float(rng.uniform(min(options), max(options)))
            else:
                config[name] = options[int(rng.integers(len(options)))]
        out.append(config)
    return out


def fuse_optimize(qrels: Any, runs: RunsInput, method: str, metric: str = "ndcg@10", *,
                  norm: str | None = "min-max", search: str = "grid", grid: Mapping[str, Sequence[Any]] | None = None,
                  step: float = 0.1, n_trials: int = 50, folds: int = 5, seed: int = 0, rel: float = 1,
                  params: Mapping[str, Any] | None = None, depth: int | None = None) -> OptimizeResult:
    """Tune a fusion's weights and parameters on judgments, reporting held-out scores by k-fold cross-validation.

    ``qrels``, ``runs``: as :func:`rankmeter.evaluate` and :func:`rankmeter.fusion.fuse` take them.
    ``method``: a fusion method (its fixed parameters in the name, ``"mnz(count=nonzero)"``, or in
    ``params``). ``metric``: what to maximise (one metric string: ``"ndcg@10"``, ``"map"``...),
    averaged over the judged queries as :func:`rankmeter.evaluate` does. ``search``: ``"grid"``
    (every combination: weights on the simplex with ``step``, the declared grids of the other
    parameters, or ``grid={"k": [...], "weights": [...]}``) or ``"random"`` (``n_trials`` draws:
    weights from a flat Dirichlet, numbers uniform over the grid's range; ``seed``). ``folds``: the
    number of cross-validation folds over queries (shuffled with ``seed``). ``rel``: the lowest
    relevant grade when training a supervised method. ``depth``: the fused run's length.

    The configuration with the highest mean wins; equal means keep the first in search order.
    """
    from ..engines.memory import evaluate
    from ..io import as_qrels

    search = check_choice("search", search, ("grid", "random"), func="fuse_optimize")
    n_trials = check_int("n_trials", n_trials, func="fuse_optimize", low=1)
    seed = check_int("seed", seed, func="fuse_optimize", low=0)
    step = check_number("step", step, func="fuse_optimize", low=0, high=1, low_open=True)
    rel = check_number("rel", rel, func="fuse_optimize")
    folds = check_int("folds", folds, func="fuse_optimize", low=2)
    depth = check_int("depth", depth, func="fuse_optimize", low=1, allow_none=True)
    if not isinstance(metric, str):
        raise ParameterError(f"The 'metric' parameter of fuse_optimize must be one metric string. Got {metric!r} "
                             "instead.")
    q = as_qrels(qrels)
    loaded, names = load_runs(runs, func="fuse_optimize")
    spec, _, fixed, notes = resolve(method, len(loaded), names, params=params, func="fuse_optimize",
                                    allow_untrained=True)
    fixed = {k: v for k, v in fixed.items() if params and k in params or k in _spec_params(method)}
    frame = normalize(join(loaded, names), norm)
    j = judged(frame, q, rel) if spec.needs_training else None
    rng = np.random.default_rng(seed)
    configs = _configs(spec, len(loaded), fixed, grid, search, n_trials, step, rng)

    def values(config: Mapping[str, Any], trained: Mapping[str, Any]) -> tuple[list[str], np.ndarray]:
        merged = {**fixed, **{k: v for k, v in config.items() if spec.param(k) is None or
                              spec.param(k) in spec.params}, **trained}
        _, w, p, _ = resolve(spec.name, len(loaded), names, params=merged, func="fuse_optimize")
        res = evaluate(q, fused_run(frame, spec.kernel(frame, w, p), depth), metric)
        return list(res.queries), np.asarray(next(iter(res.values.values())), dtype=np.float64)

    def trained_for(config: Mapping[str, Any], mask: np.ndarray) -> dict[str, Any]:
        if j is None:
            return {}
        hyper = {p.name: config.get(p.name, fixed.get(p.name)) for p in spec.hyper}
        return _train(spec, frame, j, mask, hyper)

    # per-query values of every configuration, trained on all judged queries (the final choice)
    all_mask = np.ones(len(j.query_ids), dtype=bool) if j is not None else np.zeros(0, dtype=bool)
    table = []
    query_ids: list[str] = []
    for config in configs:
        query_ids, v = values(config, trained_for(config, all_mask))
        table.append(v)
    V = np.vstack(table) if table else np.zeros((0, 0))
    nq = len(query_ids)
    if nq < folds:
        raise ParameterError(f"The 'folds' parameter of fuse_optimize must be at most the number of evaluated "
                             f"queries ({nq}). Got {folds} instead.")
    means = V.mean(axis=1)
    best = int(np.argmax(means))
    chosen = {**_public(configs[best], spec), **trained_for(configs[best], all_mask)}
    order = rng.permutation(nq)
    parts = np.array_split(order, folds)
    held = np.zeros(nq)
    fold_results = []
    index = {qid: i for i, qid in enumerate(query_ids)}
    for f, part in enumerate(parts):
        train = np.ones(nq, dtype=bool)
        train[part] = False
        if j is None:
            F = V
        else:  # train the method without the held-out queries, then score every configuration
            held_ids = {query_ids[i] for i in part}
            mask = np.array([qid not in held_ids for qid in j.query_ids], dtype=bool)
            F = np.vstack([_aligned(values(c, trained_for(c, mask)), index) for c in configs])
        c = int(np.argmax(F[:, train].mean(axis=1)))
        held[part] = F[c, part]
        fold_params = {**_public(configs[c], spec), **(trained_for(configs[c], mask) if j is not None else {})}
        fold_results.append(FoldResult(f, tuple(sorted(query_ids[i] for i in part)), fold_params,
                                       float(F[c, train].mean()), float(F[c, part].mean())))
    trials = tuple((_public(c, spec), float(m)) for c, m in zip(configs, means, strict=True))
    return OptimizeResult(spec.name, norm, metric, {**{k: v for k, v in fixed.items()}, **chosen},
                          float(means[best]), tuple(fold_results), float(held.mean()), trials)


def _spec_params(method: str) -> set[str]:
    from .spec import parse_spec

    return set(parse_spec(method)[1]) if isinstance(method, str) else set()


def _public(config: Mapping[str, Any], spec: FusionMethod) -> dict[str, Any]:
    """A configuration as fuse's params: weights as a list, training-only parameters left out."""
    out: dict[str, Any] = {}
    for k, v in config.items():
        if k == "weights":
            out[k] = [float(x) for x in v]
        elif any(p.name == k for p in spec.params):
            out[k] = v
    return out


def _aligned(got: tuple[list[str], np.ndarray], index: Mapping[str, int]) -> np.ndarray:
    ids, v = got
    out = np.full(len(index), np.nan)
    for qid, x in zip(ids, v, strict=True):
        out[index[qid]] = x
    return out
