"""The entry of :mod:`rankmeter.compare`: :func:`compare`, which runs the stages of
:mod:`rankmeter.compare.stages` in order. Kept apart and light, so that ``import rankmeter``
(and the command line) does not load the statistics until a comparison is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from .._errors import ParameterError

if TYPE_CHECKING:
    from .comparison import Comparison, ProgressFn

__all__ = ["compare"]


def compare(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    metrics: str | Iterable[Any] | None = None,
    *,
    baseline: str | None = None,
    test: str | Sequence[str] = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: Any = 0,
    pairs: str = "baseline",
    queries: str | Sequence[str] = "judged",
    family: str = "metric",
    interval: str = "bca",
    exact_max_n: int = 20,
    progress: ProgressFn | None = None,
    depth: int | None = None,
    judged_only: bool = False,
    overlap: bool | float = False,
    ties: str = "id",
    convention: str | None = None,
    unjudged: str = "ignore",
    unjudged_grade: float | None = None,
) -> Comparison:
    """Evaluate several runs on one query set and compare them with paired tests.

    ``runs``: ``{name: run}`` or a list (names: file stems for paths, else
    ``run1, run2, ...``); a run is anything :func:`rankmeter.evaluate` accepts, or
    a precomputed :class:`~rankmeter.result.Result` (then ``qrels`` may be None
    and ``metrics`` None means every metric the results share).
    ``baseline``: the run the others are tested against and the markers refer to
    (default: the first run). ``pairs``: ``"baseline"`` (each run against the
    baseline) or ``"all"`` (every pair). ``test``: ``"t"``, ``"wilcoxon"``,
    ``"randomization"``, ``"bootstrap"``, ``"tukey-hsd"`` (randomised Tukey HSD over
    all the runs, blocked on topics: familywise p-values, not corrected again) or a
    list (the first one gives the markers). ``correction``: ``"holm"``, ``"bonferroni"``, ``"bh"``, ``"none"``,
    applied per metric and test (``family="metric"``) or over all metrics
    (``family="all"``). ``confidence`` and ``interval`` (``"bca"`` or
    ``"percentile"``) set the bootstrap intervals; ``n_resamples`` is the number
    of bootstrap resamples and of random sign patterns (refused up front when
    the bootstrap would not fit in the machine's memory); ``seed`` makes both
    reproducible. ``queries``: ``"judged"`` (judged queries with a relevant item),
    ``"qrels"`` (every judged query), ``"common"`` (judged queries present in every
    run) or a list of ids. ``progress(task, done, total)`` is called during long work.
    ``depth`` and ``judged_only``: as :func:`rankmeter.evaluate` (trec_eval ``-M``, ``-J``).
    ``ties``: the tie rule, as :func:`rankmeter.evaluate` (``"id"``, ``"average"``,
    ``"optimistic"``, ``"pessimistic"``; ``"bounds"`` is :func:`rankmeter.evaluate`'s only).
    ``unjudged="bounds"`` (``unjudged_grade``): each run's metrics over every completion of the judgments,
    as :func:`rankmeter.evaluate`; a compared pair whose intervals of the mean overlap is marked unresolved
    by the judgments (``Comparison.unresolved``, and a note).
    ``convention``: a tool whose conventions the metric names without a ``tool:`` prefix take
    (:mod:`rankmeter.metrics.conventions`), as :func:`rankmeter.evaluate`.
    ``overlap``: True (p = 0.9) or a persistence ``p`` in (0, 1) adds the mean
    extrapolated RBO between the rankings of each compared pair of runs over the
    compared queries both have (``Comparison.overlap``; runs given as rankings only).

    Metrics are keyed by the text written. Two spellings of one metric (``hit_rate@10`` and
    ``success@10``, ``P@10`` and ``p@10``) are computed and tested once and shown under each
    spelling with the same means, intervals and tests: an alias is the same test, so the
    multiple-testing family counts it once (``Comparison.aliases``, and a note).

    Precomputed results whose own aggregate is not the mean of their per-row
    values (``mae`` of :func:`rankmeter.evaluate_ratings` is over all pairs) are
    compared on the mean of the per-row values, labelled so: ``mae (mean over users)``.
    """
    from ..evaluation import check_options
    from ..result import Result
    from ..stats import resampling as R
    from . import stages as S
    from .comparison import Comparison, Settings

    check_options(depth=depth, judged_only=judged_only, func="compare", ties=ties)
    if metrics is not None:
        from ..io.irds import expand_official

        metrics = expand_official(metrics, qrels)  # "official": the measures of the judgments' ir_datasets dataset
    if ties == "bounds":
        raise ParameterError("The 'ties' parameter of compare must be 'id', 'average', 'optimistic' or 'pessimistic' "
                             "(a comparison tests one value per query; rankmeter.evaluate(..., ties='bounds') gives "
                             "the bounds). Got 'bounds' instead.")
    rbo_p = S._overlap_p(overlap)
    plan = S.check_settings(test, correction, alpha, confidence, interval, n_resamples, seed, pairs, family, queries,
                          exact_max_n)
    gen_flip, gen_boot, gen_nan = R.streams(seed, 3)
    items = S.name_runs(runs)
    names = [n for n, _ in items]
    if baseline is None:
        baseline = names[0]
    elif baseline not in names:
        raise ParameterError(f"The 'baseline' parameter of compare must be one of the run names "
                             f"({', '.join(names)}). Got {baseline!r} instead.")
    ranked = [(n, r) for n, r in items if not isinstance(r, Result)]
    given = [(n, r) for n, r in items if isinstance(r, Result)]

    if convention is not None and metrics is not None:
        from ..metrics.conventions import with_convention

        metrics = with_convention(metrics, convention, func="compare")
    metric_texts, metric_objs = S.resolve_metrics(metrics, ranked, given)
    # two spellings of one metric (hit_rate@10, success@10): computed and tested once, under the first
    # spelling, then shown under each (the same statistics); the multiple-testing family counts it once
    aliases = S.metric_aliases(metric_texts, metric_objs)
    shown_texts, metric_texts = metric_texts, [m for m in metric_texts if m not in aliases]
    counts = S.count_metrics(shown_texts, metric_objs)  # shown by their sum in the tables
    n_pairs = len(S._run_pairs(len(names), names.index(baseline), pairs)) * len(metric_texts)
    R.check_memory(plan.n_resamples, len(names) * len(metric_texts), n_pairs, name="compare")

    ev = S.Evaluated(missing={n: 0 for n in names})
    if ranked:
        S.evaluate_runs(qrels, ranked, metric_objs, queries, progress, ev, depth=depth, judged_only=judged_only,
                        ties=ties, unjudged=unjudged, unjudged_grade=unjudged_grade)
    elif unjudged != "ignore":
        raise ParameterError("unjudged='bounds' needs the runs as rankings (with judgments), not evaluated results")
    elif not isinstance(queries, str):
        ev.master = [str(x) for x in queries]
    labels = S.collect_results(given, metric_texts, ev)
    final = S.align(given, ev)
    scores = S.score_matrix(names, metric_texts, final, ev)

    hib = S.directions(metric_texts, metric_objs, given)

    lay = S.layout(scores, names, metric_texts, baseline, pairs)
    rs = S.resample(lay, plan, gen_boot, progress)
    results, flip_method = S.pair_tests(lay, plan, rs, gen_flip, progress)
    units = {getattr(r, "index_name", "query") for _, r in given}
    unit = units.pop() if (not ranked and len(units) == 1) else "query"
    nan_notes, no_value = S.nan_pairing(lay, plan, rs, results, names, metric_texts, final, unit, gen_nan)
    tests_out = S.correct(lay, plan, rs, results, names, metric_texts, hib)
    notes = ev.notes + nan_notes + S.degenerate_notes(lay, plan, rs, results, names, metric_texts)
    column = {m: mi for mi, m in enumerate(metric_texts)}  # a metric's column in the layout (an alias: its first)
    if aliases:
        column = {m: column[aliases.get(m, m)] for m in shown_texts}
        scores, hib, tests_out, no_value = S.spread_aliases(aliases, shown_texts, scores, hib, tests_out, no_value)
        notes += [f"metric {a!r} is the same as {m!r}: computed and tested once, shown under both names with the "
                  f"same statistics (the multiple-testing family counts it once)" for a, m in aliases.items()]
        labels.update(S.alias_labels(aliases, labels))
        metric_texts = shown_texts

    if labels:
        # the shown name of a relabelled metric, everywhere: scores, means, tests
        shown = [labels.get(m, m) for m in metric_texts]
        column = {labels.get(m, m): c for m, c in column.items()}
        aliases = {labels.get(a, a): labels.get(m, m) for a, m in aliases.items()}
        counts = tuple(labels.get(m, m) for m in counts)
        scores = {n: {labels.get(m, m): v for m, v in s.items()} for n, s in scores.items()}
        hib = {labels.get(m, m): v for m, v in hib.items()}
        import dataclasses

        tests_out = [dataclasses.replace(t, metric=labels.get(t.metric, t.metric)) for t in tests_out]
        notes.append("; ".join(f"{labels[m]}: the mean of the per-{S._unit(given)} values of {m!r}, not the "
                               f"result's own {m} over all pairs" for m in metric_texts if m in labels))
        no_value = {labels.get(m, m): v for m, v in no_value.items()}
        metric_texts = shown

    Rn = len(names)
    settings = Settings(
        tests=plan.tests, correction=plan.correction, family=family, alpha=plan.alpha, confidence=plan.confidence,
        interval=interval, n_resamples=plan.n_resamples,
        seed=seed if isinstance(seed, (int, np.integer, type(None))) else repr(seed),
        pairs=pairs, baseline=baseline,
        queries=("results" if not ranked else queries) if isinstance(queries, str) else "given",
        exact_max_n=plan.exact_max_n, randomization=flip_method)
    means = {n: {m: float(lay.means[column[m] * Rn + ri]) for m in metric_texts} for ri, n in enumerate(names)}
    ivs = {n: {m: (float(rs.lo[column[m] * Rn + ri]), float(rs.hi[column[m] * Rn + ri])) for m in metric_texts}
           for ri, n in enumerate(names)}
    sims = S.rank_overlap(ev, names, S._run_pairs(Rn, names.index(baseline), pairs), final, rbo_p, notes) \
        if rbo_p is not None else []
    unresolved, unresolved_notes = S.unresolved_pairs(tests_out, ev.bounds)
    record = _provenance(qrels, items, metric_texts, seed, threads=None, options={
        "queries": queries if isinstance(queries, str) else list(queries), "depth": depth,
        "judged_only": judged_only, "ties": ties, "convention": convention, "unjudged": unjudged,
        "unjudged_grade": unjudged_grade, "tests": list(plan.tests), "correction": plan.correction,
        "alpha": plan.alpha, "confidence": plan.confidence, "interval": interval,
        "n_resamples": plan.n_resamples, "pairs": pairs, "family": family, "baseline": baseline})
    return Comparison(
        provenance=record,
        runs=tuple(names), metrics=tuple(metric_texts), queries=tuple(final), scores=scores, means=means,
        intervals=ivs, tests=tests_out, settings=settings, notes=notes + unresolved_notes, missing=ev.missing,
        higher_is_better=hib, unit=unit, overlap=sims, no_value=no_value, _sources=ev.sources,
        unjudged_bounds=ev.bounds, unresolved=unresolved, aliases=aliases,
        counts=counts)


def _provenance(qrels: Any, items: Sequence[tuple[str, Any]], metrics: Sequence[str], seed: Any, *,
                threads: int | None, options: dict[str, Any]) -> Any:
    """The comparison's record: the judgments and each run as given; a run given as a saved or computed
    result brings the inputs its own record names (roles ``NAME/qrels``, ``NAME/run``)."""
    from ..evaluation.threads import resolve_threads
    from ..provenance import Provenance, describe_input

    inputs = [describe_input("qrels", qrels)] if qrels is not None else []
    inner = []
    for name, run in items:
        own = getattr(run, "provenance", None)
        if own is not None:
            inner.append((name, own))
        inputs.append(describe_input(f"run:{name}", run))
    record = Provenance.create(inputs=inputs, metrics=metrics, options=options,
                               seeds={"seed": seed if isinstance(seed, (int, np.integer, type(None))) else repr(seed)},
                               threads=threads if threads is not None else resolve_threads(None))
    for name, own in inner:
        record = record.merged(own, prefix=f"{name}/")
    return record
