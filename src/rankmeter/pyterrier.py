"""``rankmeter.pyterrier.Experiment``: PyTerrier's ``pt.Experiment``, computed by rankmeter.

Same signature and same shapes as ``pt.Experiment`` (PyTerrier 1.x): systems are PyTerrier's result
DataFrames (columns ``qid``, ``docno``, ``score``) or transformers (applied to ``topics``), judgments a
DataFrame with ``qid``, ``docno``, ``label``; measures are trec_eval's names (``map``, ``ndcg_cut_10``,
``P_10``) or ir_measures' measures (``nDCG@10``), both read by rankmeter's grammar. It returns a
DataFrame with a ``name`` column and one column per measure (with ``baseline``: ``"m +"``,
``"m -"``, ``"m p-value"``, and with ``correction``: ``"m reject"``, ``"m p-value corrected"``), or
with ``perquery=True`` the long DataFrame ``name, qid, measure, value``; ``dataframe=False`` gives the
dictionaries, ``perquery="both"`` both (``.averages``, ``.perquery``).

As in PyTerrier: the judgments are cut to the topics' queries (``filter_by_topics``); every judged
query counts, a judged query missing from a system's results scores the measure's empty value
(rankmeter's ``queries="qrels"``); a topic without judgments has no value (nan per query, left out of
the means); ``filter_by_qrels`` drops such topics first. The paired test of ``baseline`` is
``scipy.stats.ttest_rel`` (``test="t"``) or ``scipy.stats.wilcoxon`` (``"wilcoxon"``) over the queries,
and ``correction`` a method of ``statsmodels.stats.multitest.multipletests`` (needs statsmodels).
PyTerrier itself is not needed for DataFrames; no Java is started.

>>> import pandas as pd
>>> qrels = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "label": [1, 0, 1]})
>>> topics = pd.DataFrame({"qid": ["1", "2"], "query": ["x", "y"]})
>>> bm25 = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["b", "a", "c"], "score": [2.0, 1.0, 1.0]})
>>> Experiment([bm25], topics, qrels, ["map", "P_1"], names=["BM25"])
   name   map  P_1
0  BM25  0.75  0.5
"""

from __future__ import annotations

import builtins
from typing import Any, Callable, Literal, Mapping, NamedTuple, Sequence

import numpy as np

from ._errors import InputError, MissingExtraError, ParameterError

__all__ = ["Experiment", "EvaluationDataTuple"]


class EvaluationDataTuple(NamedTuple):
    """``perquery="both"``: the means and the per-query values, as PyTerrier returns them."""

    averages: Any
    perquery: Any


_IGNORED = {"verbose": "auto", "validate": "warn", "plan": "linear", "batch_size": None, "save_mode": "warn",
            "save_format": "trec", "precompute_prefix": False}


def _frame(obj: Any, what: str, needed: Sequence[str]) -> Any:
    import pandas as pd

    if not isinstance(obj, pd.DataFrame):
        raise InputError(f"Experiment: expected {what} as a pandas DataFrame with columns {', '.join(needed)}; found "
                         f"{type(obj).__name__}", source=what)
    missing = [c for c in needed if c not in obj.columns]
    if missing:
        raise InputError(f"Experiment: expected {what} with columns {', '.join(needed)}; found "
                         f"{', '.join(map(str, obj.columns))} (no {', '.join(missing)})", source=what)
    return obj


def _results(system: Any, topics: Any, name: str) -> Any:
    """A system's results: the DataFrame itself, or a transformer applied to the topics."""
    import pandas as pd

    if not isinstance(system, pd.DataFrame) and hasattr(system, "transform"):
        system = system.transform(topics)
    return _frame(system, f"the results of {name}", ("qid", "docno", "score"))


def Experiment(  # capitalised: the name of pt.Experiment
    retr_systems: Sequence[Any] | Mapping[str, Any],
    topics: Any,
    qrels: Any,
    eval_metrics: Sequence[Any],
    names: Sequence[str] | None = None,
    perquery: bool | Literal["both"] = False,
    dataframe: bool = True,
    batch_size: int | None = None,
    filter_by_qrels: bool = False,
    filter_by_topics: bool = True,
    baseline: int | str | None = None,
    test: str | Callable[..., Any] = "t",
    correction: str | None = None,
    correction_alpha: float = 0.05,
    highlight: str | None = None,
    round: int | Mapping[str, int] | None = None,  # pt.Experiment's parameter name (shadows round: builtins.round)
    verbose: Any = "auto",
    validate: Any = "warn",
    save_dir: str | None = None,
    save_mode: Any = "warn",
    save_format: Any = "trec",
    precompute_prefix: bool = False,
    plan: Any = "linear",
    **kwargs: Any,
) -> Any:
    """Evaluate and compare systems as ``pt.Experiment`` does, with rankmeter's metrics (see the module)."""
    import pandas as pd

    from .engines.memory import evaluate
    from .io import as_qrels, as_run

    if kwargs:
        raise ParameterError(f"Experiment got unknown keyword arguments: {', '.join(sorted(kwargs))}")
    if highlight is not None or save_dir is not None:
        raise ParameterError("Experiment: highlight and save_dir are PyTerrier's display and caching options, not "
                             "supported here (style the returned DataFrame; save the results yourself)")
    del batch_size, verbose, validate, save_mode, save_format, precompute_prefix, plan  # how, not what: no effect
    if isinstance(retr_systems, Mapping):
        names = list(retr_systems)
        systems = list(retr_systems.values())
        if isinstance(baseline, str):
            if baseline not in names:
                raise ParameterError(f"The 'baseline' parameter of Experiment must be one of the system names "
                                     f"({', '.join(names)}). Got {baseline!r} instead.")
            baseline = names.index(baseline)
    elif isinstance(retr_systems, (list, tuple)):
        systems = list(retr_systems)
        if isinstance(baseline, str):
            raise ParameterError("The 'baseline' parameter of Experiment must be an int when the systems are a list. "
                                 f"Got {baseline!r} instead.")
    else:
        raise ParameterError(f"The 'retr_systems' parameter of Experiment must be a list or a dict of systems. Got "
                             f"{type(retr_systems).__name__} instead.")
    if names is None:
        names = [str(s) for s in systems]  # as PyTerrier names them
    names = [str(n) for n in names]
    if len(names) != len(systems):
        raise ParameterError(f"The 'names' parameter of Experiment must name each of the {len(systems)} systems. "
                             f"Got {len(names)} names instead.")
    if baseline is not None:
        if isinstance(baseline, bool) or not isinstance(baseline, int) or not 0 <= baseline < len(systems):
            raise ParameterError(f"The 'baseline' parameter of Experiment must be an int in [0, {len(systems) - 1}]. "
                                 f"Got {baseline!r} instead.")
        if perquery:
            raise ParameterError("Experiment: baseline tests are reported with the means, not with perquery=True")
    if correction is not None and baseline is None:
        raise ParameterError("Experiment: a multiple testing correction needs a baseline")
    if isinstance(round, Mapping) and perquery:
        raise ParameterError("Experiment: a rounding per measure is for the means only (perquery=False)")
    test_fn = _test_function(test)

    topics = _frame(topics, "topics", ("qid",))
    qrels = _frame(qrels, "qrels", ("qid", "docno", "label"))
    topics = topics.astype({"qid": str})
    qrels = qrels.astype({"qid": str, "docno": str})
    if filter_by_qrels:
        topics = topics[topics["qid"].isin(set(qrels["qid"]))]
    if filter_by_topics:
        qrels = qrels[qrels["qid"].isin(set(topics["qid"]))]
    if (filter_by_qrels or filter_by_topics) and not len(qrels):
        raise InputError("Experiment: the topics and the qrels have no query in common", source="qrels")

    labels = [m if isinstance(m, str) else str(m) for m in eval_metrics]
    if not labels:
        raise ParameterError("Experiment: eval_metrics names no measure")
    q = as_qrels(qrels[["qid", "docno", "label"]], source="qrels", query="qid", item="docno", grade="label")
    judged = list(dict.fromkeys(qrels["qid"]))
    unjudged_topics = [t for t in dict.fromkeys(topics["qid"]) if t not in set(judged)]
    per_system: dict[int, dict[str, dict[str, float]]] = {}
    for i, (name, system) in enumerate(zip(names, systems, strict=True)):
        res = _results(system, topics, name).astype({"qid": str, "docno": str})
        if filter_by_topics:
            res = res[res["qid"].isin(set(topics["qid"]))]
        run = as_run(res[["qid", "docno", "score"]], source=f"results of {name}", query="qid", item="docno",
                     score="score")
        result = evaluate(q, run, labels, queries="qrels")
        values = {m: np.asarray(result.values[m], dtype=np.float64) for m in labels}
        rows = {qid: {m: float(values[m][j]) for m in labels} for j, qid in enumerate(result.queries)}
        for t in unjudged_topics:  # a topic without judgments: no value, as PyTerrier's backfill
            rows[t] = {m: float("nan") for m in labels}
        per_system[i] = rows

    def rounded(measure: str, value: float) -> float:
        if isinstance(round, int):
            return builtins.round(value, round)
        if isinstance(round, Mapping) and measure in round:
            return builtins.round(value, round[measure])
        return value

    def perquery_frame() -> Any:
        rows = [[names[i], qid, m, rounded(m, v)] for i, by_q in per_system.items() for qid, ms in by_q.items()
                for m, v in ms.items()]
        return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"]).sort_values(["name", "qid"],
                                                                                           kind="stable")

    means = {names[i]: {m: _mean([ms[m] for ms in by_q.values()]) for m in labels} for i, by_q in per_system.items()}
    if perquery is True:
        return perquery_frame() if dataframe else per_system
    if not dataframe:
        return {n: {m: rounded(m, v) for m, v in ms.items()} for n, ms in means.items()}
    table = pd.DataFrame([[n] + [rounded(m, means[n][m]) for m in labels] for n in names], columns=["name", *labels])
    if baseline is not None:
        table = _with_tests(table, per_system, labels, baseline, test_fn, correction, correction_alpha)
    return EvaluationDataTuple(table, perquery_frame()) if perquery == "both" else table


def _mean(values: Sequence[float]) -> float:
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    return float(np.mean(v)) if len(v) else float("nan")


def _test_function(test: Any) -> Callable[..., Any]:
    from scipy import stats

    if test == "t":
        return stats.ttest_rel  # type: ignore[no-any-return]  # scipy has no types
    if test == "wilcoxon":
        return stats.wilcoxon  # type: ignore[no-any-return]  # scipy has no types
    if callable(test):
        return test  # type: ignore[no-any-return]  # a callable given by the user
    raise ParameterError(f"The 'test' parameter of Experiment must be 't', 'wilcoxon' or a function. Got {test!r} "
                         "instead.")


def _with_tests(table: Any, per_system: Mapping[int, Mapping[str, Mapping[str, float]]], labels: Sequence[str],
                baseline: int, test_fn: Callable[..., Any], correction: str | None, alpha: float) -> Any:
    """PyTerrier's columns ``m +``, ``m -``, ``m p-value`` (and ``m reject``, ``m p-value corrected``)."""
    base = per_system[baseline]
    qids = list(base)
    extra: dict[str, list[Any]] = {}
    for m in labels:
        b = np.array([base[q][m] for q in qids])
        plus: list[int | None] = []
        minus: list[int | None] = []
        pvals: list[float | None] = []
        for i in range(len(per_system)):
            if i == baseline:
                plus.append(None)
                minus.append(None)
                pvals.append(None)
                continue
            v = np.array([per_system[i][q][m] for q in qids])
            plus.append(int((v > b).sum()))
            minus.append(int((v < b).sum()))
            pvals.append(float(test_fn(v, b)[1]))
        extra[f"{m} +"], extra[f"{m} -"], extra[f"{m} p-value"] = plus, minus, pvals
    for col, values in extra.items():
        table[col] = values
    if correction is not None:
        try:
            from statsmodels.stats.multitest import multipletests
        except ImportError:
            raise MissingExtraError("Experiment(correction=...)", "test", "statsmodels") from None
        for m in labels:
            pcol = f"{m} p-value"
            others = table[pcol].drop(table.index[baseline])
            reject, corrected, _, _ = multipletests(others, alpha=alpha, method=correction)
            at = table.columns.get_loc(pcol)
            table.insert(at + 1, f"{m} reject", np.insert(reject, baseline, False))
            table.insert(at + 2, f"{pcol} corrected", np.insert(corrected, baseline, np.nan))
    return table
