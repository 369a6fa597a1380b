"""``fuse``: runs in, one run out (see docs/fusion.md).

The runs are joined once over the union of their queries (:mod:`rankmeter.fusion.frame`),
normalised per run and query, fused by a method's vectorised kernel
(:mod:`rankmeter.fusion.methods`), and the fused scores are ranked by the tie rule (score
descending, ties by item id descending by bytes), so the fused run is the same whatever the
input's row order or thread count.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

import numpy as np

from .. import _compute as C
from .._errors import ParameterError
from .._params import check_int
from ..data import Run
from ..data.ids import ints
from .frame import Frame, join, normalize
from .methods import method_by_name
from .spec import FusionMethod, parse_spec

__all__ = ["fuse", "load_runs", "resolve", "fused_run"]

RunsInput = Sequence[Any] | Mapping[str, Any]


def load_runs(runs: RunsInput, *, func: str = "fuse", **options: Any) -> tuple[list[Run], tuple[str, ...]]:
    """The runs as :class:`Run` objects with their names (a dict's keys, else run1, run2...)."""
    from ..io import as_run

    if isinstance(runs, Mapping):
        names = tuple(str(n) for n in runs.keys())
        objs = list(runs.values())
    elif isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence):
        raise ParameterError(f"The 'runs' parameter of {func} must be a list of runs or a dict of names to runs. "
                             f"Got {type(runs).__name__} instead.")
    else:
        objs = list(runs)
        names = _names(objs)
    if not objs:
        raise ParameterError(f"The 'runs' parameter of {func} must hold at least one run. Got none instead.")
    if len(set(names)) != len(names):
        raise ParameterError(f"The 'runs' parameter of {func} names a run twice: {sorted(names)}.")
    return [as_run(o, source=n, **options) for o, n in zip(objs, names, strict=True)], names


def _names(objs: list[Any]) -> tuple[str, ...]:
    """Runs of a list are named by their file names without extension (paths), else run1, run2..."""
    import os

    names = [os.path.splitext(os.path.basename(os.fspath(o)))[0] if isinstance(o, (str, os.PathLike)) else ""
             for o in objs]
    out = [n or f"run{i + 1}" for i, n in enumerate(names)]
    return tuple(out) if len(set(out)) == len(out) else tuple(f"run{i + 1}" for i in range(len(objs)))


def resolve(method: str, n_runs: int, names: Sequence[str], *, weights: Any = None, k: Any = None,
            params: Mapping[str, Any] | None = None, func: str = "fuse",
            allow_untrained: bool = False) -> tuple[FusionMethod, np.ndarray, dict[str, Any], list[str]]:
    """The method, the weights, every parameter checked (defaults filled), and notes on what was assumed."""
    if not isinstance(method, str):
        raise ParameterError(f"The 'method' parameter of {func} must be a method name such as 'rrf'. "
                             f"Got {method!r} instead.")
    name, text = parse_spec(method)
    spec = method_by_name(name)
    given: dict[str, Any] = dict(text)
    for key, value in (params or {}).items():
        if key in given:
            raise ParameterError(f"The {key!r} parameter of {spec.name} is given twice (in {method!r} and in params).")
        given[key] = value
    if k is not None:
        if spec.name != "rrf":
            raise ParameterError(f"The 'k' parameter of {func} is reciprocal rank fusion's constant; {spec.name} has "
                                 "no k. Leave it out.")
        if "k" in given:
            raise ParameterError("The 'k' parameter of rrf is given twice (k= and in the method or params).")
        given["k"] = k
    if "weights" in given:
        if weights is not None:
            raise ParameterError(f"The 'weights' parameter of {spec.name} is given twice (weights= and in params).")
        weights = given.pop("weights")
    notes: list[str] = []
    known = {p.name: p for p in spec.params}
    unknown = sorted(set(given) - set(known))
    if unknown:
        allowed = ", ".join(known) or "none"
        raise ParameterError(f"{spec.name} takes no parameter {unknown[0]!r} (its parameters: {allowed}"
                             f"{'; weights=' if spec.weighted else ''}).")
    out: dict[str, Any] = {}
    for p in spec.params:
        if p.name in given:
            out[p.name] = p.check(given[p.name], spec.name, n_runs)
        elif p.default is not None:
            out[p.name] = p.default
        elif spec.needs_training and not allow_untrained:
            raise ParameterError(f"{spec.name} is a supervised method: its {p.name!r} come from judgments. Train it "
                                 f"with rankmeter.fusion.fuse_optimize(qrels, runs, {spec.name!r}, metric) and pass "
                                 "the result's params to fuse(..., params=...) (command line: rankmeter fuse "
                                 "--optimize QRELS, or --params FILE).")
        elif not allow_untrained:
            raise ParameterError(f"{spec.name} needs its {p.name!r} parameter ({p.doc}): fuse(..., "
                                 f"params={{{p.name!r}: ...}}), or tune it with rankmeter.fusion.fuse_optimize.")
    w = _weights(spec, weights, n_runs, names, func, notes)
    return spec, w, out, notes


def _weights(spec: FusionMethod, weights: Any, n_runs: int, names: Sequence[str], func: str,
             notes: list[str]) -> np.ndarray:
    if weights is None:
        if spec.weighted:
            notes.append(f"{spec.name}: no weights given, each run weighs 1")
        return np.ones(n_runs)
    if not spec.weighted:
        raise ParameterError(f"The 'weights' parameter of {func} applies to the weighted methods (wsum, wmnz, mixed, "
                             f"w_bordafuse, w_condorcet); {spec.name} takes none. Leave it out.")
    if isinstance(weights, Mapping):
        extra = sorted(set(map(str, weights)) - set(names))
        if extra:
            raise ParameterError(f"The 'weights' parameter of {func} names {extra[0]!r}, which is not a run "
                                 f"(runs: {', '.join(names)}).")
        weights = [weights.get(n, None) for n in names]
        if any(v is None for v in weights):
            lacking = [n for n, v in zip(names, weights, strict=True) if v is None]
            raise ParameterError(f"The 'weights' parameter of {func} gives no weight to run {lacking[0]!r}.")
    try:
        w = np.asarray(list(weights), dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"The 'weights' parameter of {func} must be one finite number per run. Got {weights!r} "
                             "instead.") from None
    if w.ndim != 1 or len(w) != n_runs or not bool(np.isfinite(w).all()):
        raise ParameterError(f"The 'weights' parameter of {func} must be one finite number per run ({n_runs} runs). "
                             f"Got {weights!r} instead.")
    return w


def fused_run(frame: Frame, scores: np.ndarray, depth: int | None = None, notes: Sequence[str] = ()) -> Run:
    """The fused scores as a Run ranked by the tie rule, each query cut to ``depth``."""
    queries = C.take(frame.query_ids, ints(frame.query))
    run = Run.from_columns(queries, frame.items, scores)
    if depth is not None and bool((run.lengths() > depth).any()):
        within = np.arange(len(run)) - np.repeat(run.offsets[:-1], run.lengths())
        keep = np.flatnonzero(within < depth)
        table = run.to_arrow()
        run = Run.from_columns(C.take(table.column("query"), ints(keep)), C.take(table.column("item"), ints(keep)),
                               run.scores[keep])
    lacking = [f"run {n!r} has no document for {c} of the {len(frame.query_ids)} queries: fused from the other runs "
               "there" for n, c in frame.missing_queries()]
    return replace(run, notes=tuple(notes) + tuple(lacking))


def fuse(runs: RunsInput, method: str = "rrf", *, norm: str | None = "min-max", weights: Any = None,
         k: float | None = None, depth: int | None = None, params: Mapping[str, Any] | None = None,
         duplicates: str = "error") -> Run:
    """Fuse runs into one run (rank fusion, score normalisation and combination).

    ``runs``: a list of runs, or a dict of names to runs; each anything
    :func:`rankmeter.read_run` or the loaders accept (a path, a DataFrame, a dict, a
    :class:`~rankmeter.Run`). ``method``: one of :data:`rankmeter.fusion.METHODS`, spelled as
    ranx's ``fuse(method=...)`` (``rrf``, ``sum``, ``mnz``, ``anz``, ``max``, ``min``, ``med``,
    ``gmnz``, ``isr``, ``log_isr``, ``logn_isr``, ``wsum``, ``wmnz``, ``mixed``, ``rbc``,
    ``bordafuse``, ``w_bordafuse``, ``condorcet``, ``w_condorcet``, ``probfuse``, ``segfuse``,
    ``slidefuse``, ``posfuse``, ``bayesfuse``, ``mapfuse``), by ranx's function name
    (``comb_sum``...) or the literature's (``combmnz``...), optionally with parameters
    (``"mnz(count=nonzero)"``). ``norm``: how each run's scores are normalised per query first
    (``min-max`` as ranx, ``min-max-inverted``, ``max``, ``sum``, ``zmuv``, ``rank``,
    ``borda``, or None). ``weights``: one per run (a list, or a dict by run name) for the
    weighted methods. ``k``: RRF's constant (60, Cormack et al. and ranx). ``depth``: the
    fused run's length per query (default: every document). ``params``: the method's other
    parameters, or those :func:`rankmeter.fusion.fuse_optimize` trained (the supervised
    methods need them).

    Queries are the union of the runs' queries (a run without a query contributes to it as
    if it retrieved nothing; ``run.notes`` counts them, and carries the inputs' own notes, such
    as duplicate rows dropped by ``duplicates``). Ties in fused score are ordered by
    the tie rule (item id descending), so the result does not depend on the input's order.

    >>> import rankmeter
    >>> bm25 = {"q1": {"d1": 12.0, "d2": 9.5, "d3": 7.0}}
    >>> dense = {"q1": {"d3": 0.91, "d4": 0.88, "d1": 0.52}}
    >>> rankmeter.fuse({"bm25": bm25, "dense": dense}, method="rrf").to_lists()  # d3 ties d1, d4 ties d2: id rule
    {'q1': ['d3', 'd1', 'd4', 'd2']}
    >>> rankmeter.fuse([bm25, dense], method="wsum", weights=[0.3, 0.7], depth=2).to_dict()
    {'q1': {'d3': 0.7, 'd4': 0.6461538461538461}}
    """
    loaded, names = load_runs(runs, duplicates=duplicates)
    spec, w, p, notes = resolve(method, len(loaded), names, weights=weights, k=k, params=params)
    notes = [f"{name}: {line}" for name, r in zip(names, loaded, strict=True) for line in r.notes] + [
        f"{name}: {r.dropped} duplicate (query, item) rows were removed by the duplicates policy"
        for name, r in zip(names, loaded, strict=True) if r.dropped] + notes
    depth = check_int("depth", depth, func="fuse", low=1, allow_none=True)
    frame = normalize(join(loaded, names), norm)
    return fused_run(frame, spec.kernel(frame, w, p), depth, notes)
