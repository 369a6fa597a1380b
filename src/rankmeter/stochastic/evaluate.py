"""Evaluate a stochastic ranking policy from its sampled rankings: expected exposure, and every metric
averaged over the samples with its spread.

The samples come as a list of runs (one TREC run file per sample, or anything
:func:`rankmeter.read_run` accepts), a ``{sample: run}`` mapping, or one table (a pandas/polars
DataFrame, a pyarrow Table, a CSV or Parquet file) with a sample column named by ``sample=``: the
sample id is then part of each row's key, so a (query, item) pair may appear once per sample. Each
sample's run goes through :func:`rankmeter.evaluate` unchanged (same tie rule, same query rule).

The query rule is evaluate's: by default the judged queries with a relevant item (a grade > 0);
``queries="qrels"`` every judged query; a list of ids exactly those. A query missing from a sample
scores there as an empty ranking, as in :func:`rankmeter.evaluate`.

>>> import rankmeter.stochastic as st
>>> qrels = {"q": {"a": 1, "b": 1}}
>>> res = st.evaluate(qrels, [{"q": ["a", "b"]}, {"q": ["b", "a"]}], ["P@1"], p=0.5)
>>> res.mean
{'P@1': 1.0, 'EE-L': 0.0, 'EE-D': 1.125, 'EE-R': 1.125}
>>> res.spread["P@1"].tolist()
[0.0]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from .._errors import InputError, ParameterError
from .exposure import HIGHER_IS_BETTER, MEASURES, check_patience

if TYPE_CHECKING:
    import pandas as pd

    from ..data import Qrels, Run

__all__ = ["StochasticResult", "evaluate"]


@dataclass(frozen=True)
class StochasticResult:
    """Per-query values over ``queries``: ``values[metric]`` the mean over the samples (and EE-L,
    EE-D, EE-R), ``spread[metric]`` the standard deviation over the samples (ddof 0; 0 with one
    sample); ``sample_means[metric]`` each sample's own aggregate (its :attr:`rankmeter.Result.mean`,
    so corpus-level metrics and geometric means are covered too); ``exposure`` the expected exposure
    per (query, item) as a DataFrame with the target."""

    queries: tuple[str, ...]
    values: dict[str, np.ndarray]
    spread: dict[str, np.ndarray]
    samples: int
    p: float
    exposure: "pd.DataFrame"
    sample_means: dict[str, np.ndarray]
    notes: tuple[str, ...] = ()

    @property
    def mean(self) -> dict[str, float]:
        """Each metric's aggregate averaged over the samples; EE-L, EE-D, EE-R averaged over the queries."""
        out = {m: float(np.mean(v)) for m, v in self.sample_means.items()}
        for m in MEASURES:
            v = self.values[m]
            out[m] = float(np.mean(v)) if len(v) else float("nan")
        return out

    @property
    def per_query(self) -> "pd.DataFrame":
        """One row per query: each metric's mean over the samples, then ``<metric> sd`` columns."""
        import pandas as pd

        cols = {m: v for m, v in self.values.items()}
        cols.update({f"{m} sd": v for m, v in self.spread.items() if m not in MEASURES})
        return pd.DataFrame(cols, index=pd.Index(list(self.queries), name="query"))

    @property
    def higher_is_better(self) -> dict[str, bool]:
        return {m: HIGHER_IS_BETTER.get(m, True) for m in self.values}

    def __repr__(self) -> str:
        means = ", ".join(f"{m}={v:.4f}" for m, v in self.mean.items())
        return f"StochasticResult({len(self.queries)} queries, {self.samples} samples: {means})"


def _samples(samples: Any, sample: str | None, options: dict[str, Any]) -> list[tuple[str, "Run"]]:
    from ..io import as_run
    from ..io.tables import is_frame, read_table_file, to_arrow

    if sample is not None:
        # a file through the one table reader: CSV/TSV, Parquet, Arrow; ids and the sample column kept as text
        table = (to_arrow(samples, "<samples table>") if is_frame(samples)
                 else read_table_file(samples, text_columns=lambda header: [sample]))
        if sample not in table.column_names:
            raise InputError(f"the sample column {sample!r} is not in the table (columns: "
                             f"{', '.join(table.column_names)})")
        import pyarrow.compute as pc

        col = table.column(sample)
        if col.null_count:
            raise InputError(f"the sample column {sample!r} has {col.null_count} missing values")
        ids = pc.unique(col).to_pylist()
        rest = table.drop_columns([sample])
        return [(str(s), as_run(rest.filter(pc.equal(col, s)), source=f"sample {s}", **options)) for s in ids]
    if isinstance(samples, Mapping):
        return [(str(k), as_run(v, source=f"sample {k}", **options)) for k, v in samples.items()]
    if isinstance(samples, (list, tuple)):
        return [(str(i), as_run(v, source=f"sample {i}", **options)) for i, v in enumerate(samples)]
    raise ParameterError("samples must be a list of runs, a {sample: run} mapping, or a table with sample=COLUMN. "
                         f"Got {type(samples).__name__} instead.")


def _target(qrels: "Qrels", p: float) -> "pd.DataFrame":
    """(query, item, target) for every item with a grade > 0 (see :func:`target_exposure`)."""
    t = qrels.to_arrow().to_pandas()
    t = t[t["grade"] > 0]
    if t.empty:
        return t.assign(target=np.zeros(0))[["query", "item", "target"]]
    sizes = t.groupby(["query", "grade"], sort=False).size().rename("m").reset_index()
    sizes = sizes.sort_values(["query", "grade"], ascending=[True, False], kind="stable")
    sizes["before"] = sizes.groupby("query")["m"].cumsum() - sizes["m"]
    sizes["target"] = (p ** sizes["before"] - p ** (sizes["before"] + sizes["m"])) / (sizes["m"] * (1.0 - p))
    return t.merge(sizes[["query", "grade", "target"]], on=["query", "grade"])[["query", "item", "target"]]


def _exposure(runs: Sequence["Run"], p: float) -> "pd.DataFrame":
    """(query, item, exposure): the mean over the samples of p^(rank - 1)."""
    import pandas as pd

    parts = []
    for r in runs:
        t = r.to_arrow()
        parts.append(pd.DataFrame({"query": t.column("query").to_pandas(), "item": t.column("item").to_pandas(),
                                   "w": p ** (t.column("rank").to_numpy().astype(np.float64) - 1.0)}))
    if not parts:
        return pd.DataFrame({"query": [], "item": [], "exposure": []})
    allrows = pd.concat(parts, ignore_index=True)
    e = allrows.groupby(["query", "item"], sort=False)["w"].sum().rename("exposure").reset_index()
    e["exposure"] /= len(runs)
    return e


def evaluate(qrels: Any, samples: Any, metrics: str | Iterable[Any] = (), *, p: float = 0.8,
             sample: str | None = None, queries: Any = "judged", **options: Any) -> StochasticResult:
    """Evaluate the sampled rankings ``samples`` of a stochastic policy (see the module's docstring).

    ``metrics``: any of :func:`rankmeter.evaluate`'s, each averaged over the samples per query (its
    spread is the standard deviation over the samples); EE-L, EE-D and EE-R are always given, with
    the RBP patience ``p`` (default 0.8, as ``rbp``). ``options`` go to :func:`rankmeter.evaluate`
    (``depth``, ``judged_only``...); reading options (``order``, column names) to the run readers.
    """
    import pandas as pd

    from ..evaluate import evaluate as evaluate_run
    from ..io import as_qrels

    p = check_patience(p)
    read_opts: dict[str, Any] = {k: options.pop(k) for k in ("order", "query", "item", "score", "rank", "duplicates")
                                 if k in options}
    q = as_qrels(qrels)
    named = _samples(samples, sample, read_opts)
    if not named:
        raise InputError("no sampled rankings given")
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    results = [evaluate_run(q, r, metrics or ["P@1"], queries=queries, **options) for _, r in named]
    qids = tuple(results[0].queries)
    for (name, _), res in zip(named, results, strict=True):
        if tuple(res.queries) != qids:
            raise InputError(f"sample {name} counts other queries than sample {named[0][0]} (queries='run' "
                             "depends on each sample's queries): pass queries='judged', 'qrels' or a list")
    values: dict[str, np.ndarray] = {}
    spread: dict[str, np.ndarray] = {}
    sample_means = {key: np.array([res.mean[key] for res in results]) for key in (results[0].mean if metrics else {})}
    for key in (results[0].values if metrics else {}):
        stack = np.vstack([np.asarray(res.values[key], dtype=np.float64) for res in results])
        values[key] = stack.mean(axis=0)
        spread[key] = stack.std(axis=0)
    e = _exposure([r for _, r in named], p)
    t = _target(q, p)
    both = e.merge(t, on=["query", "item"], how="outer").fillna({"exposure": 0.0, "target": 0.0})
    both = both[both["query"].isin(set(qids))]
    grouped = both.assign(loss=(both["exposure"] - both["target"]) ** 2, disp=both["exposure"] ** 2,
                          rel=both["exposure"] * both["target"]).groupby("query")[["loss", "disp", "rel"]].sum()
    grouped = grouped.reindex(pd.Index(list(qids)), fill_value=0.0)
    for name, col in zip(MEASURES, ("loss", "disp", "rel"), strict=True):
        values[name] = grouped[col].to_numpy(dtype=np.float64)
        spread[name] = np.zeros(len(qids))
    notes = [f"{len(named)} sampled rankings; exposure under the RBP model with p = {p:g} (unnormalised EE-L, "
             "EE-D, EE-R of Diaz et al. 2020)"]
    notes += list(results[0].notes)
    exposure = both.sort_values(["query", "exposure", "item"], ascending=[True, False, True], kind="stable")
    return StochasticResult(qids, values, spread, len(named), p, exposure.reset_index(drop=True), sample_means,
                            tuple(notes))
