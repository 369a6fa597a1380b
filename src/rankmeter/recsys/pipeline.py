"""The recommender evaluation pipeline: data, split, baselines, top-k lists, metrics, comparison, report.

>>> from rankmeter.recsys.pipeline import experiment
>>> from rankmeter.recsys.datasets import synthetic
>>> data = synthetic(n_users=120, n_items=150, seed=1)
>>> res = experiment(data, k=5, n_resamples=200)
>>> list(res.results), res.baseline, res.mode
(['random', 'popular', 'itemknn'], 'itemknn', 'full ranking')
>>> bool(res.means.loc["popular", "ndcg@5"] > res.means.loc["random", "ndcg@5"])
True

Stages
------
1. **load**: :func:`rankmeter.io.interactions.read_interactions` (paths, MovieLens ``u.data``,
   DataFrames, Arrow tables), or a :class:`rankmeter.datasets.SyntheticData` (its item
   features and genres are used for diversity).
2. **split** (with the filters ``min_user_interactions`` / ``min_item_interactions``):
   :mod:`rankmeter.split`. ``split="temporal"`` (default) holds out each user's latest
   ``test_fraction`` (0.2) of interactions; ``"temporal_global"``, ``"holdout"``,
   ``"leave_k_out"``/``"leave_one_out"``, ``"auto"`` (temporal when there are timestamps,
   else a per-user random hold-out), a :class:`rankmeter.split.Split`, a ``(train, test)``
   pair or a callable returning either. Every row is counted in ``result.split``.
3. **fit** and **recommend**: each recommender (reference ones by name: ``random``,
   ``popular``, ``itemknn``; objects with ``fit``/``recommend``; callables
   ``f(train, users, k)``; files of top-k lists) gives top-k lists for the test users with
   a relevant test item, without their training items (``exclude_seen``).
4. **validate**: duplicates, items outside the catalogue, a user's own training items,
   missing, short and long lists are counted per recommender (:class:`Validation`);
   duplicates and unknown items are removed (the first occurrence in rank order is
   kept); training items are kept and counted. A recommender that leaves no usable row
   for any user is an error.
5. **evaluate**: :func:`rankmeter.evaluate` with accuracy, beyond-accuracy, popularity-bias
   and (with categories) calibration metrics (:func:`default_metrics`; context from
   :func:`rankmeter.beyond.context_from_train` and the users' training and relevant test
   items).
6. **compare**: :func:`rankmeter.compare` of the per-user metrics against the best
   reference recommender (``baseline="best"``) with paired tests and corrections; a user
   without a value (nan: no training profile) is left out of that metric's tests, counted.
7. **groups** (``groups=``): every per-user metric per user group (``"activity"``: the
   users' activity terciles), with paired tests against the baseline within each group
   (:attr:`ExperimentResult.groups`).
8. **report**: :meth:`ExperimentResult.print` (terminal), :meth:`ExperimentResult.save`
   (``report.html``, ``results.json``, ``means.csv``).

Sampled mode (``sampled=N``) ranks each user's test items among N sampled negatives
(:mod:`rankmeter.sampled`); every output then carries the label
``sampled (N=..., seed=...): inflates scores vs full ranking``.
"""

from __future__ import annotations

import dataclasses
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence, cast

import numpy as np
import pyarrow as pa

from .._compute import pc_on_first_use as pc
from .._errors import InputError, ParameterError, RankmeterError
from ..data.ids import as_string_array, encode, union_vocab

if TYPE_CHECKING:
    from rich.console import Console

    from .result import ExperimentResult

__all__ = ["experiment", "default_metrics"]

_REFERENCE_TYPES = ("Random", "MostPopular", "ItemKNN")
#: metrics without a value for a user without training items (they read the user's profile)
_PROFILE_METRICS = ("pop_lift", "miscalibration", "profile_popularity")


def default_metrics(k: int, *, features: bool = False, categories: bool = False, cold: bool = False) -> list[str]:
    """Accuracy, beyond-accuracy, popularity-bias and (with categories) calibration metrics at cutoff ``k``.

    Accuracy: nDCG, recall, precision, MAP, MRR. Beyond accuracy: novelty, serendipity,
    ARP, ILD (cosine with item features, Jaccard with categories), catalogue and user
    coverage, personalization, Gini, entropy. Popularity bias (docs/beyond.md): the
    long-tail share ``aplt``, the popularity lift ``pop_lift`` of each list over the user's
    training profile, PopRSP / PopREO over the short head and the long tail and the
    exposure gap of the head and the tail (``exposure_gap``). Calibration (Steck 2018):
    ``miscalibration`` when item categories are given.

    >>> default_metrics(10)[:3]
    ['ndcg@10', 'recall@10', 'P@10']
    >>> default_metrics(5, categories=True)[-6:]
    ['aplt@5', 'pop_lift@5', 'pop_rsp@5', 'pop_reo@5', 'exposure_gap@5', 'miscalibration@5']
    """
    acc = [f"ndcg@{k}", f"recall@{k}", f"P@{k}", f"map@{k}", f"mrr@{k}"]
    beyond = [f"novelty(cold=one)@{k}" if cold else f"novelty@{k}", f"serendipity@{k}", f"arp@{k}"]
    if features:
        beyond.append(f"ild@{k}")
    if categories:
        beyond.append(f"ild(distance=jaccard)@{k}")
    beyond += [f"catalog_coverage@{k}", f"user_coverage@{k}", f"personalization@{k}", f"gini@{k}",
               f"entropy@{k}"]
    bias = [f"aplt@{k}", f"pop_lift@{k}", f"pop_rsp@{k}", f"pop_reo@{k}", f"exposure_gap@{k}"]
    calibration = [f"miscalibration@{k}"] if categories else []
    return acc + beyond + bias + calibration

# --------------------------------------------------------------------------- progress and timing

class _Stages:
    """A progress bar per stage (rich, on stderr) and the time of every stage."""

    def __init__(self, enabled: bool, console: "Console | None" = None) -> None:
        self.timings: dict[str, float] = {}
        self._progress = None
        if enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(TextColumn("{task.description:<28}"), BarColumn(), TaskProgressColumn(),
                                      TimeElapsedColumn(), console=console or Console(stderr=True),
                                      transient=False)
            self._progress.start()

    @contextmanager
    def stage(self, name: str, total: int = 1) -> Iterator[Callable[[int, int], None]]:
        task = self._progress.add_task(name, total=max(total, 1)) if self._progress is not None else None
        t0 = time.perf_counter()

        def update(done: int, of: int) -> None:
            if self._progress is not None and task is not None:
                self._progress.update(task, completed=done, total=max(of, 1))

        try:
            yield update
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - t0
            if self._progress is not None and task is not None:
                t = self._progress.tasks[[x.id for x in self._progress.tasks].index(task)]
                self._progress.update(task, completed=t.total)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()

# --------------------------------------------------------------------------- recommenders

def _named_recommenders(recommenders: Any) -> list[tuple[str, Any]]:
    from .recommenders import make_recommender

    items: list[tuple[str | None, Any, dict[str, Any]]] = []

    def entry(name: str | None, spec: Any) -> tuple[str | None, Any, dict[str, Any]]:
        if not isinstance(spec, Mapping):
            return name, spec, {}
        spec = dict(spec)
        if "lists" in spec:
            return name, spec.pop("lists"), spec
        if "callable" in spec:
            return name, spec.pop("callable"), spec
        if name is None and "type" not in spec:
            raise ParameterError(f"a recommender given as a table needs 'type', 'lists' or 'callable'. Got {spec!r}.")
        return name, spec.pop("type", name), spec

    if isinstance(recommenders, Mapping):
        items += [entry(str(name), spec) for name, spec in recommenders.items()]
    elif isinstance(recommenders, (str, Path)) or callable(recommenders) or hasattr(recommenders, "recommend"):
        items.append((None, recommenders, {}))
    else:
        items += [entry(None, r) for r in recommenders]
    out: list[tuple[str, Any]] = []
    used: set[str] = set()
    for name, spec, params in items:
        rec = make_recommender(spec, params, name=name)
        nm = name or getattr(rec, "name", None) or type(rec).__name__.lower()
        base, n = nm, 2
        while nm in used:
            nm, n = f"{base}_{n}", n + 1
        used.add(nm)
        out.append((nm, rec))
    if not out:
        raise ParameterError("The 'recommenders' parameter of experiment is empty: give at least one recommender.")
    return out


def repeated_pairs(users: pa.Array, items: pa.Array) -> tuple[int, int]:
    """``(pairs occurring more than once, rows beyond the first of each pair)`` of interaction ids.

    >>> repeated_pairs(pa.array(["u", "u", "u", "v"]), pa.array(["a", "a", "a", "a"]))
    (1, 2)
    """
    if len(users) == 0:
        return 0, 0
    uc, _ = encode(users)
    ic, ivocab = encode(items)
    _, counts = np.unique(uc * max(len(ivocab), 1) + ic, return_counts=True)
    return int((counts > 1).sum()), int((counts - 1).sum())


def rows_in_train(users: pa.Array, items: pa.Array, train_users: pa.Array, train_items: pa.Array,
                  train_keys: np.ndarray) -> np.ndarray:
    """Mask of the (user, item) rows whose pair is among the training pairs.

    ``train_keys``: sorted ``user code * len(train_items) + item code`` of the training pairs.

    >>> tu, ti = pa.array(["u", "v"]), pa.array(["a", "b"])
    >>> rows_in_train(pa.array(["u", "u", "w"]), pa.array(["a", "b", "a"]), tu, ti, np.array([0, 3])).tolist()
    [True, False, False]
    """
    if len(users) == 0 or len(train_keys) == 0:
        return np.zeros(len(users), dtype=bool)
    u = np.asarray(pc.fill_null(pc.index_in(users, value_set=train_users), -1).to_numpy(zero_copy_only=False))
    i = np.asarray(pc.fill_null(pc.index_in(items, value_set=train_items), -1).to_numpy(zero_copy_only=False))
    keys = u.astype(np.int64) * max(len(train_items), 1) + i
    at = np.minimum(np.searchsorted(train_keys, keys), len(train_keys) - 1)
    return cast(np.ndarray, (u >= 0) & (i >= 0) & (train_keys[at] == keys))


def _own_code(name: str, rec: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """Call ``rec.fit`` / ``rec.recommend``; an exception from a user's object is reported as theirs."""
    try:
        return getattr(rec, method)(*args, **kwargs)
    except RankmeterError:
        raise
    except Exception as exc:
        if type(rec).__module__.startswith("rankmeter."):
            raise
        raise RankmeterError(f"the recommender {name!r} raised {type(exc).__name__} in {method}(): {exc} "
                             "(an error in its own code, not in rankmeter)") from exc


def _is_reference(rec: Any) -> bool:
    return type(rec).__name__ in _REFERENCE_TYPES and type(rec).__module__.startswith("rankmeter.recsys.recommenders")

def experiment(
    interactions: Any,
    *,
    split: Any = "temporal",
    split_params: Mapping[str, Any] | None = None,
    recommenders: Any = ("random", "popular", "itemknn"),
    metrics: Sequence[str] | None = None,
    k: int = 10,
    relevance: float | None = None,
    min_user_interactions: int = 1,
    min_item_interactions: int = 1,
    item_features: Any = None,
    categories: Any = None,
    catalog: str = "train",
    exclude_seen: bool = True,
    sampled: int | None = None,
    sample_seed: int = 0,
    sampled_correction: str = "none",
    sampled_strategy: str = "uniform",
    sampled_per: str = "user",
    baseline: str | Sequence[str] | None = "best",
    test: str | Sequence[str] = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 2000,
    seed: int = 0,
    groups: Any = None,
    propensities: Any = None,
    user: str | None = None,
    item: str | None = None,
    rating: Any = None,
    timestamp: Any = None,
    progress: bool = False,
    console: "Console | None" = None,
    ties: str = "id",
    convention: str | None = None,
    folds: int | None = None,
    repeats: int | None = None,
    validation_fraction: float | None = None,
    tune_metric: str | None = None,
) -> ExperimentResult:
    """Run the whole recommender evaluation loop (see the module docstring for the stages).

    ``relevance``: with a rating column, the test interactions rated ``>= relevance`` are
    relevant (the others are judged non-relevant); None (default): every test interaction
    is relevant (implicit feedback). ``catalog``: the recommendable items, ``"train"`` (the
    training items, default) or ``"all"`` (every item of the data). ``sampled``: N negatives
    per user for sampled evaluation (``sample_seed``); ``sampled_correction``: ``"none"`` (plain
    sampled metrics, labelled as inflated), ``"bv"``, ``"bias"`` or ``"mle"``: recall@k, ndcg@k and
    precision@k are replaced by estimates of their full-ranking values from the sampled ranks
    (:func:`rankmeter.recsys.sampled.correct`), labelled ``"sampled N=100, corrected (bv)"``, with a
    flip-risk estimate for each comparison (``ExperimentResult.flip_risk``). ``baseline``: ``"best"`` (the
    reference recommender with the best mean on the first per-user metric), a
    recommender name, or None (no comparison). ``test``, ``correction``, ``alpha``,
    ``n_resamples``, ``seed`` go to :func:`rankmeter.compare`; ``seed`` is also the seed of a random
    split (hold-out, leave-k-out without timestamps) unless ``split_params`` gives one. ``groups``: results
    per user group (:attr:`ExperimentResult.groups`): ``"activity"`` (the evaluated users' activity terciles
    ``low``/``mid``/``high`` by their number of distinct training items, see :func:`user_groups`), or a
    mapping user -> group, a two-column table or file (as :meth:`rankmeter.result.Result.by_group` reads).
    ``propensities``: observation propensities per (user, item), read by the unbiased metrics with
    ``propensity=given`` (``snips_recall(propensity=given)@10``): a file or table with user, item and
    propensity columns (:func:`rankmeter.metrics.unbiased.propensities.read_propensities`).
    ``progress``: show a progress bar per stage on stderr. ``ties``: how tied scores (common from
    popularity-like recommenders) are ordered, as in :func:`rankmeter.evaluate`: ``"id"`` (default),
    ``"average"``, ``"optimistic"``, ``"pessimistic"`` or ``"bounds"``; metrics the rule is not
    defined for are refused by name before any work. ``convention``: a tool whose conventions the
    metric names without a ``tool:`` prefix take (:mod:`rankmeter.metrics.conventions`).

    Repeated protocols, several baselines and tuning (:mod:`rankmeter.recsys.protocol`):
    ``split="kfold"`` (``split_params``: ``folds``, ``unit`` ``"interactions"`` or ``"users"`` (strong
    generalisation, fold-in share ``1 - heldout_fraction`` of each test user to training), ``per_user``
    (user-stratified)); ``repeats=N``: the protocol repeated with seeds ``seed .. seed + N - 1`` (k-fold, hold-out,
    leave-k-out, strong); ``folds=``/``repeats=`` are shorthands for ``split_params``. These return a
    :class:`~rankmeter.recsys.repeated.RepeatedResult` (per-fold results, mean, sd and corrected interval across
    folds, the corrected resampled t-test). ``baseline``: a list of names compares every model with each, with one
    correction over the family. A recommender given as a grid (``{"type": "itemknn", "neighbors": [10, 50]}``) is
    tuned on a validation part (``validation_fraction``) by ``tune_metric`` (default: the first per-user metric),
    refitted on train + validation and evaluated once on test (``result.tuning``).
    """
    args = dict(locals())
    from .protocol import is_grid, shorthands

    _params, _n = shorthands(split, split_params, folds, repeats)
    _grids = isinstance(recommenders, Mapping) and any(is_grid(v) for v in recommenders.values()) or (
        isinstance(recommenders, (list, tuple)) and any(is_grid(v) for v in recommenders))
    if (isinstance(split, str) and split.lower() == "kfold") or _n > 1 or _grids or validation_fraction is not None:
        from .repeated import run_protocol

        return run_protocol(args)
    if tune_metric is not None:
        raise ParameterError("The 'tune_metric' parameter of experiment needs a recommender given as a grid (a "
                             "parameter with a list of values) and validation_fraction.")
    # (the stages' modules load here, not with ``import rankmeter``)
    from ..data import Qrels, Run
    from ..evaluate import evaluate
    from ..metrics.registry import parse_metrics
    from .beyond import context_from_train
    from .loading import load_interactions, resolve_categories, resolve_features
    from .recommenders import MatrixRecommender, check_k
    from .result import FULL_RANKING, ExperimentResult
    from .splitting import canonical_table, split_interactions
    from .validation import Validation, validate_recommendations

    k = check_k(k, "experiment")
    from ..evaluation import check_options

    check_options(ties=ties, func="experiment")
    if catalog not in ("train", "all"):
        raise ParameterError(f"The 'catalog' parameter of experiment must be 'train' or 'all'. Got {catalog!r} "
                             "instead.")
    if sampled is not None and (isinstance(sampled, bool) or not isinstance(sampled, (int, np.integer)) or sampled < 1):
        raise ParameterError(f"The 'sampled' parameter of experiment must be an int >= 1 or None. Got {sampled!r} "
                             "instead.")
    from .sampled import CORRECTIONS

    if sampled_correction not in CORRECTIONS:
        raise ParameterError(f"The 'sampled_correction' parameter of experiment must be one of "
                             f"{', '.join(CORRECTIONS)}. Got {sampled_correction!r} instead.")
    if sampled_strategy not in ("uniform", "popularity") or sampled_per not in ("user", "positive"):
        raise ParameterError(f"The 'sampled_strategy' parameter of experiment must be uniform or popularity and "
                             f"'sampled_per' user or positive. Got {sampled_strategy!r} and {sampled_per!r} instead.")
    if sampled_correction != "none" and sampled_strategy != "uniform":
        raise ParameterError("The 'sampled_correction' parameter of experiment needs sampled_strategy='uniform': "
                             "the corrections model uniformly drawn negatives (the sampled rank is binomial)")
    if sampled_correction != "none" and sampled is None:
        raise ParameterError("The 'sampled_correction' parameter of experiment needs sampled=N (it corrects sampled "
                             "metrics); full ranking needs no correction.")
    if groups is not None and isinstance(groups, str) and groups != "activity" and not Path(groups).is_file():
        raise ParameterError(f"The 'groups' parameter of experiment must be 'activity', a mapping user -> group, a "
                             f"two-column table or an existing file. Got {groups!r} instead.")
    if groups is not None and not (isinstance(groups, str) and groups == "activity"):
        from ..compare.groups import read_groups

        read_groups(groups, option="groups")  # a bad groups file fails before the work, not after it
    from ..compare.stages import check_settings

    try:  # the comparison's settings, before any work: refused even when one recommender leaves nothing to compare
        check_settings(test, correction, alpha, 0.95, "bca", n_resamples, seed, "baseline", "metric", None, 20)
    except ParameterError as exc:
        raise ParameterError(str(exc).replace(" of compare ", " of experiment ")) from None
    stages = _Stages(progress, console)
    notes: list[str] = []
    group_views: dict[str, Any] = {}
    group_info: dict[str, Any] = {}
    corrected: dict[str, dict[str, Any]] = {}
    flip_risk: dict[str, dict[str, Any]] = {}
    try:
        # ---------------------------------------------------------------- load
        with stages.stage("load"):
            data, feats0, cats0 = load_interactions(interactions, {"user": user, "item": item, "rating": rating,
                                                       "timestamp": timestamp})
            if feats0 is not None:
                gen = getattr(interactions, "params", {})
                source_text = "generated: " + ", ".join(f"{a}={b}" for a, b in gen.items())
            feats = resolve_features(item_features) if item_features is not None else feats0
            cats = resolve_categories(categories) if categories is not None else cats0
            all_u = as_string_array(data.table.column(data.user))
            all_i = as_string_array(data.table.column(data.item))
            data_info: dict[str, Any] = {
                "source": (source_text if feats0 is not None else None) or data.source or f"<{data.kind} table>",
                "rows": len(data), "users": len(pc.unique(all_u)), "items": len(pc.unique(all_i)),
                "columns": {"user": data.user, "item": data.item, "rating": data.rating, "timestamp": data.timestamp}}
            pairs, extra_rows = repeated_pairs(all_u, all_i)
            data_info["repeated_pairs"] = pairs
            data_info["repeated_rows"] = extra_rows
            if pairs:
                notes.append(f"{pairs} (user, item) pairs occur more than once in the data ({extra_rows} extra rows); "
                             "repeats count once in the training history, the judgments and the checks")
        if relevance is not None and data.rating is None:
            raise ParameterError("The 'relevance' parameter of experiment needs a rating column; the data has none "
                                 f"(columns: {', '.join(data.table.column_names)}).")

        # ---------------------------------------------------------------- split
        with stages.stage("split"):
            filters = {"min_user_interactions": min_user_interactions, "min_item_interactions": min_item_interactions}
            tr_raw, te_raw, split_info = split_interactions(data, split, dict(split_params or {}), filters, seed)
            train = canonical_table(tr_raw, data)
            test_t = canonical_table(te_raw, data)
        if train.num_rows == 0 or test_t.num_rows == 0:
            raise InputError(f"the split left {train.num_rows} training and {test_t.num_rows} test interactions; "
                             "both must be non-empty", source=data_info["source"])

        # judgments: test interactions (graded by the relevance threshold when given)
        if relevance is not None:
            grades = np.asarray(pc.greater_equal(test_t.column("rating"), float(relevance)).to_numpy(
                zero_copy_only=False), dtype=np.float64)
        else:
            grades = np.ones(test_t.num_rows)
        qrels = Qrels.from_columns(test_t.column("user"), test_t.column("item"), grades, duplicates="max")
        positive_users = np.unique(qrels.row_queries()[qrels.grades > 0])
        users = qrels.query_ids.take(pa.array(positive_users, pa.int64()))
        if len(users) == 0:
            raise InputError("no test user has a relevant test interaction"
                             + (f" (rating >= {relevance})" if relevance is not None else ""), source="test")
        left_out = qrels.n_queries - len(users)
        if left_out:
            notes.append(f"{left_out} test users have no relevant test interaction and are not evaluated")

        tu_codes, tu_vocab = encode(train.column("user").combine_chunks())
        ti_codes, ti_vocab = encode(train.column("item").combine_chunks())
        train_keys = np.unique(tu_codes * max(len(ti_vocab), 1) + ti_codes)
        in_train = rows_in_train(test_t.column("user").combine_chunks(), test_t.column("item").combine_chunks(),
                                 tu_vocab, ti_vocab, train_keys)
        split_info = dict(split_info)
        split_info["test_rows_in_train"] = int(in_train.sum())
        if in_train.any():
            n_in, n_test = int(in_train.sum()), test_t.num_rows
            why = ("under exclude_seen (the default) no recommender can return them, which caps recall and every "
                   "other accuracy metric below 1" if exclude_seen else
                   "exclude_seen is off, so the recommenders may return them")
            notes.append(f"{n_in} of {n_test} test interactions ({100 * n_in / n_test:.1f}%) repeat a (user, item) "
                         f"pair of the same user's training data: {why}")
        all_items = union_vocab(ti_vocab, test_t.column("item").combine_chunks())
        cat_ids = ti_vocab if catalog == "train" else all_items
        ctx = context_from_train(train, item_features=feats, categories=cats, test=test_t)
        ctx["catalog"] = cat_ids
        if propensities is not None:  # for the unbiased metrics with propensity=given
            from ..metrics.unbiased.propensities import read_propensities

            ctx["propensity"] = read_propensities(propensities)
        # each user's profile (pop_lift, miscalibration, PopRSP: context_from_train's train_items) and
        # relevant test items (PopREO): those above the relevance threshold
        pos = qrels.grades > 0
        ctx["test_items"] = (qrels.query_ids.take(pa.array(qrels.row_queries()[pos])),
                             qrels.item_ids.take(pa.array(qrels.items[pos])))
        no_profile = len(users) - int(np.isin(np.asarray(users.to_pylist(), dtype=object),
                                              np.asarray(tu_vocab.to_pylist(), dtype=object)).sum())

        candidates = None
        mode = FULL_RANKING
        if sampled is not None:
            from .sampled import sample_candidates

            with stages.stage("sample negatives"):
                ku = pa.concat_arrays([train.column("user").combine_chunks(), test_t.column("user").combine_chunks()])
                ki = pa.concat_arrays([train.column("item").combine_chunks(), test_t.column("item").combine_chunks()])
                pos = qrels.grades > 0
                qu = qrels.query_ids.take(pa.array(qrels.row_queries()[pos]))
                qi = qrels.item_ids.take(pa.array(qrels.items[pos]))
                candidates = sample_candidates(qu, qi, ku, ki, cat_ids, int(sampled), int(sample_seed),
                                               strategy=sampled_strategy, per=sampled_per,
                                               popularity_of=(train.column("user").combine_chunks(),
                                                              train.column("item").combine_chunks()))
            mode = candidates.label
            if sampled_correction != "none":
                from .sampled import corrected_label

                mode = corrected_label(int(sampled), sampled_correction, int(sample_seed))
                if sampled_per == "positive":
                    mode = mode.replace(f"N={sampled}", f"N={sampled} per held-out item")
            if candidates.short_users:
                notes.append(f"{candidates.short_users} users had fewer items to sample negatives from than the "
                             f"protocol asks ({sampled}{' per held-out item' if sampled_per == 'positive' else ''}) "
                             "and got all of them")

        # ---------------------------------------------------------------- metrics
        if metrics is None:
            metric_list = default_metrics(k, features=feats is not None, categories=cats is not None,
                                          cold=catalog == "all" or sampled is not None)
        else:
            if not isinstance(metrics, str) and not (isinstance(metrics, (list, tuple))
                                                     and all(isinstance(m, str) for m in metrics)):
                raise ParameterError("The 'metrics' parameter of experiment must be a metric name or a list of "
                                     f"metric names. Got {metrics!r} instead.")
            metric_list = [metrics] if isinstance(metrics, str) else list(metrics)
        if convention is not None:
            from ..metrics.conventions import with_convention

            metric_list = with_convention(metric_list, convention, func="experiment")
        parsed = parse_metrics(metric_list)
        if ties != "id":
            from ..metrics.ties import check_ties

            check_ties(parsed, ties, func="experiment")
            notes.append(f"ties={ties}: tied scores ordered by the {ties} rule, not by item id "
                         "(rankmeter.evaluate's ties)")
        texts = tuple(m.text for m in parsed)
        profiled = [m.text for m in parsed if m.spec.name in _PROFILE_METRICS]
        if no_profile and profiled:
            notes.append(f"{no_profile} of the {len(users)} test users have no training interaction: the metrics "
                         f"that read the user's training profile ({', '.join(profiled)}) have no value for them "
                         "(nan; left out of the means and of the paired tests, counted)")

        # ---------------------------------------------------------------- recommenders
        named = _named_recommenders(recommenders)
        results: dict[str, Any] = {}
        runs: dict[str, Any] = {}
        validation: dict[str, Validation] = {}
        reference = tuple(n for n, r in named if _is_reference(r))
        correcting = candidates is not None and sampled_correction != "none"
        # every candidate is ranked when correcting, and for the flip risk of plain (uniform) sampled comparisons
        need_full = candidates is not None and (correcting or (
            sampled_strategy == "uniform" and baseline is not None and len(named) > 1))
        risk_method = sampled_correction if correcting else "mle"
        k_rec = int(np.diff(candidates.offsets).max(initial=k)) if need_full and candidates is not None else k
        k_rec = max(k_rec, k)
        for name, rec in named:
            with stages.stage(f"fit {name}"):
                _own_code(name, rec, "fit", train)
            with stages.stage(f"recommend {name}", total=len(users)) as upd:
                if isinstance(rec, MatrixRecommender):
                    parts = []
                    step = 2000
                    for a in range(0, len(users), step):
                        parts.append(rec.recommend(users.slice(a, step), k_rec, exclude_seen=exclude_seen,
                                                   candidates=candidates))
                        upd(min(a + step, len(users)), len(users))
                    table = pa.concat_tables(parts)
                else:
                    from .recommenders import as_recommendation_table

                    raw = _own_code(name, rec, "recommend", users.to_pylist(), k_rec, exclude_seen=exclude_seen,
                                    candidates=candidates)
                    table = as_recommendation_table(raw, source=f"<recommender {name}>")
            full_table = None
            if need_full:
                from .correction import top_k_rows

                full_table, table = table, top_k_rows(table, k)
            with stages.stage(f"evaluate {name}"):
                clean, v = validate_recommendations(table, name=name, users=users, k=k, catalog=cat_ids,
                                                    train_users=tu_vocab, train_items=ti_vocab,
                                                    train_keys=train_keys, candidates=candidates)
                validation[name] = v
                run = Run.from_columns(clean.column("user"), clean.column("item"), clean.column("score"))
                runs[name] = run
                results[name] = dataclasses.replace(evaluate(qrels, run, parsed, context=ctx, ties=ties),
                                                    index_name="user")
            if need_full and candidates is not None:
                from .correction import correct_result

                with stages.stage(f"correct {name}"):
                    fixed, corrected[name] = correct_result(
                        results[name], full_table, qrels, candidates, train, test_t, cat_ids, parsed, risk_method)
                if correcting:
                    results[name] = fixed

        if correcting and corrected:
            done = list(next(iter(corrected.values())))
            rest = [m.text for m in parsed if m.text not in done]
            notes.append(f"corrected ({sampled_correction}) estimates of the full-ranking values: "
                         f"{', '.join(done) or 'none of the metrics'}"
                         + (f"; plain sampled values (inflated vs full ranking): {', '.join(rest)}" if rest else ""))

        # ---------------------------------------------------------------- compare
        query_metrics = [m.text for m in parsed if m.spec.level == "query"]
        base: Any = _pick_baseline(baseline, results, reference, parsed)
        comparison = None
        comparisons: dict[str, Any] = {}
        if isinstance(base, tuple) and len(results) > 1 and query_metrics:
            from .protocol import compare_family

            with stages.stage("compare", total=1):
                comparisons = compare_family(results, query_metrics, base, test=test, correction=correction,
                                             alpha=alpha, n_resamples=n_resamples, seed=seed)
            comparison = comparisons[base[0]]
        elif base is not None and len(results) > 1 and query_metrics:
            from ..compare import compare

            with stages.stage("compare", total=1) as upd:
                comparison = compare(None, results, query_metrics, baseline=base, test=test, correction=correction,
                                     alpha=alpha, n_resamples=n_resamples, seed=seed,
                                     progress=(lambda task, done, total: upd(done, total)) if progress else None)
            comparisons = {base: comparison}
        elif base is not None and len(results) == 1:
            notes.append("a single recommender: nothing to compare")
        if groups is not None:
            with stages.stage("groups"):
                group_views, group_info = _group_results(groups, results, comparison, train, users)
        if need_full and base is not None and len(results) > 1:
            from .correction import flip_risks

            base1 = base[0] if isinstance(base, tuple) else base
            flip_risk = flip_risks(results, corrected, base1, seed=seed)
            how = mode if correcting else "plain sampled values; full-ranking order estimated with the mle correction"
            for metric, per in flip_risk.items():
                for other, fr in per.items():
                    fr["method"] = risk_method
                    notes.append(f"{metric}, {other} vs {base1} ({how}): corrected difference {fr['difference']:+.4f}; "
                                 f"chance the order flips under full ranking ~{100 * fr['flip_risk']:.1f}% "
                                 f"(bootstrap over users, {fr['resamples']} resamples)")
    finally:
        stages.close()

    settings = {"split": split if isinstance(split, str) else type(split).__name__,
                "split_params": dict(split_params or {}), "k": k, "relevance": relevance,
                "min_user_interactions": min_user_interactions, "min_item_interactions": min_item_interactions,
                "catalog": catalog, "exclude_seen": exclude_seen, "sampled": sampled,
                "sample_seed": sample_seed if sampled is not None else None,
                "sampled_correction": sampled_correction if sampled is not None else None,
                "sampled_strategy": sampled_strategy if sampled is not None else None,
                "sampled_per": sampled_per if sampled is not None else None,
                "recommenders": {n: repr(r) for n, r in named}, "test": test, "correction": correction,
                "alpha": alpha, "n_resamples": n_resamples, "seed": seed,
                "groups": groups if groups is None or isinstance(groups, str) else
                (str(groups) if isinstance(groups, Path) else type(groups).__name__)}
    from ..evaluation.threads import resolve_threads
    from ..provenance import Provenance, describe_input

    record = Provenance.create(  # the inputs as given (paths: size and SHA-256), the metrics, every setting, seeds
        inputs=[describe_input("interactions", interactions)]
        + [describe_input(role, v) for role, v in (("item_features", item_features), ("categories", categories),
                                                   ("propensities", propensities)) if v is not None],
        metrics=texts, options={k2: v for k2, v in settings.items() if k2 not in ("seed", "sample_seed")},
        seeds={"seed": seed, "sample_seed": settings.get("sample_seed")}, threads=resolve_threads(None))
    return ExperimentResult(provenance=record,
                            results=results, comparison=comparison, validation=validation, timings=stages.timings,
                            metrics=texts, k=k, baseline=base, mode=mode, data=data_info, split=split_info,
                            notes=tuple(notes), runs=runs, reference=reference, settings=settings, qrels=qrels,
                            context=ctx, flip_risk=flip_risk, groups=group_views, group_info=group_info,
                            comparisons=comparisons)


def user_groups(groups: Any, train: Any, users: Sequence[Any]) -> tuple[dict[str, str], str, list[str]]:
    """``(user -> group, a description, the groups in display order)`` of the experiment's ``groups``.

    ``"activity"``: the evaluated users in terciles of activity, their number of distinct
    training items (0 for a user without one), ordered ascending with ties by user id
    (byte order) and cut into three consecutive groups whose sizes differ by at most one
    (:func:`rankmeter.compare.groups.activity_groups`): ``low``, ``mid``, ``high``. So users
    of the same activity at a tercile border are split by id, the smaller ids in the less
    active group. Anything else is read by :func:`rankmeter.compare.groups.read_groups`.

    >>> train = {"user": ["a", "a", "a", "b", "b", "c"], "item": [1, 2, 3, 1, 2, 1]}
    >>> user_groups("activity", train, ["a", "b", "c"])[0]
    {'c': 'low', 'b': 'mid', 'a': 'high'}
    """
    from ..compare.groups import activity_groups, read_groups

    if isinstance(groups, str) and groups == "activity":
        mapping = activity_groups(train, 3, users=[str(u) for u in users])
        return mapping, ("activity terciles: the evaluated users ordered by their number of distinct training "
                         "items (ties by user id), cut into three groups of equal size"), ["low", "mid", "high"]
    mapping, _ = read_groups(groups, option="groups")
    where = f"the file {groups}" if isinstance(groups, (str, Path)) else "the given groups"
    return mapping, f"user groups from {where}", sorted(set(mapping.values()), key=lambda g: g.encode("utf-8"))


def _group_results(groups: Any, results: Mapping[str, Any], comparison: Any, train: Any,
                   users: pa.Array) -> tuple[dict[str, Any], dict[str, Any]]:
    """Per recommender, its results per user group (with paired tests against the baseline within each group),
    and in ``info["between"][recommender]`` Welch's t-tests between every two groups (unpaired; p-values
    adjusted per metric with the comparison's correction)."""
    from ..compare.groups import by_group, compare_by_group

    mapping, how, order = user_groups(groups, train, users.to_pylist())
    correction = comparison.settings.correction if comparison is not None else "holm"
    test = None
    if comparison is not None:
        test = comparison.settings.tests[0] if comparison.settings.tests[0] != "tukey-hsd" else "t"
        views = compare_by_group(comparison, mapping, test=test)  # the per-user metrics (corpus ones are not split)
    else:
        views = {n: by_group(r, mapping) for n, r in results.items()}
    first = next(iter(views.values()))
    order = [g for g in order if g in first.groups] + [g for g in first.groups if g not in order]
    # every rendering lists the groups in this order (activity: low, mid, high)
    views = {n: dataclasses.replace(v, groups=tuple(order), means=v.means.loc[order],
                                    sizes={g: v.sizes[g] for g in order}) for n, v in views.items()}
    # are the groups served equally? Welch's t-test between every two groups, per recommender and metric
    between = {n: by_group(r, mapping, test="welch", correction=correction).tests for n, r in results.items()}
    info = {"description": how, "order": order, "sizes": {g: first.sizes[g] for g in order},
            "ungrouped": first.ungrouped, "test": test, "between": between, "correction": correction,
            "baseline": comparison.baseline if comparison is not None else None}
    return views, info


def _pick_baseline(baseline: Any, results: Mapping[str, Any], reference: Sequence[str],
                   parsed: Sequence[Any]) -> str | tuple[str, ...] | None:
    if baseline is None:
        return None
    if not isinstance(baseline, str):
        if not isinstance(baseline, (list, tuple)) or not baseline or not all(isinstance(b, str) for b in baseline):
            raise ParameterError(f"The 'baseline' parameter of experiment must be 'best', None, a recommender name "
                                 f"or a list of names. Got {baseline!r} instead.")
        names = [str(_pick_baseline(b, results, reference, parsed)) for b in baseline]
        if len(set(names)) != len(names):
            raise ParameterError(f"The 'baseline' parameter of experiment names a recommender twice: {baseline!r}.")
        return names[0] if len(names) == 1 else tuple(names)
    if baseline != "best":
        if baseline not in results:
            raise ParameterError(f"The 'baseline' parameter of experiment must be 'best', None or one of "
                                 f"{', '.join(results)}. Got {baseline!r} instead.")
        return baseline
    first = next((m for m in parsed if m.spec.level == "query"), None)
    pool = list(reference) or list(results)
    if first is None:
        return pool[0]
    sign = 1.0 if first.spec.higher_is_better else -1.0
    return max(pool, key=lambda n: (sign * results[n].mean[first.text], -pool.index(n)))

