"""The result of an evaluation: per-query values, means and what was counted."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Result", "Coverage"]


@dataclass(frozen=True)
class Coverage:
    """Which queries (or users) counted, and which did not, with counts.

    Nothing is dropped silently: every query of either input is in exactly one of
    these groups.
    """

    policy: str
    evaluated: int
    missing_from_run: int = 0  # evaluated, scored as an empty ranking
    without_judgments: int = 0  # in the run only: left out
    without_relevant: int = 0  # judged, no relevant item: left out unless the policy keeps them
    without_relevant_kept: bool = False
    not_in_run_left_out: int = 0  # judged but not in the run, left out (policy "run")
    run_rows: int = 0
    run_rows_used: int = 0
    examples: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def notes(self) -> list[str]:
        """Human-readable lines for whatever was not plainly evaluated."""
        out = []

        def ex(key: str) -> str:
            ids = list(self.examples.get(key, ()))
            return f" (e.g. {', '.join(map(str, ids[:3]))})" if ids else ""

        if self.missing_from_run:
            out.append(f"{self.missing_from_run} judged queries have no ranking in the run and score as an "
                       f"empty ranking{ex('missing_from_run')}")
        if self.without_judgments:
            out.append(f"{self.without_judgments} run queries have no judgments and are left out"
                       f"{ex('without_judgments')}")
        if self.without_relevant:
            verb = "are evaluated" if self.without_relevant_kept else "are left out"
            out.append(f"{self.without_relevant} judged queries have no relevant item and {verb}"
                       f"{ex('without_relevant')}")
        if self.not_in_run_left_out:
            out.append(f"{self.not_in_run_left_out} judged queries are not in the run and are left out "
                       f"(queries='run'){ex('not_in_run')}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "evaluated": self.evaluated,
            "missing_from_run": self.missing_from_run,
            "without_judgments": self.without_judgments,
            "without_relevant": self.without_relevant,
            "not_in_run_left_out": self.not_in_run_left_out,
            "run_rows": self.run_rows,
            "run_rows_used": self.run_rows_used,
        }


@dataclass(frozen=True, eq=False)
class Result:
    """Per-query values of each metric, keyed by the metric string as written.

    ``mean`` maps metric -> mean over the evaluated queries; ``per_query`` is a
    pandas DataFrame (one row per query, one column per metric); ``to_dict()`` gives
    plain Python. ``coverage`` says which queries counted.
    """

    queries: Sequence[str]
    values: Mapping[str, np.ndarray]
    metrics: Sequence[Any] = ()
    coverage: Coverage | None = None
    notes: Sequence[str] = ()
    corpus: Mapping[str, float] = field(default_factory=dict)
    index_name: str = "query"

    @property
    def mean(self) -> dict[str, float]:
        """Metric -> aggregate: the mean over queries, or the corpus-level value."""
        out = {m: (float(np.mean(v)) if len(v) else float("nan")) for m, v in self.values.items()}
        out.update(self.corpus)
        if self.metrics:
            order = [m.text for m in self.metrics if m.text in out]
            out = {k: out[k] for k in order + [k for k in out if k not in order]}
        return out

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def per_query(self) -> "pd.DataFrame":
        import pandas as pd

        frame = pd.DataFrame({m: np.asarray(v) for m, v in self.values.items()},
                             index=pd.Index(list(self.queries), name=self.index_name))
        return frame

    def to_dict(self, per_query: bool = True) -> dict[str, Any]:
        """``{"queries": N, "mean": {...}, "per_query": {query: {metric: value}}}`` (corpus-level
        metrics appear in ``mean`` only)."""
        out: dict[str, Any] = {"queries": self.n_queries, "mean": self.mean}
        if per_query:
            names = list(self.values)
            cols = [np.asarray(self.values[m]).tolist() for m in names]
            out["per_query"] = {q: {m: c[i] for m, c in zip(names, cols)} for i, q in enumerate(self.queries)}
        if self.coverage is not None:
            out["coverage"] = self.coverage.to_dict()
        return out

    def __getitem__(self, metric: str) -> float:
        return self.mean[metric]

    def __repr__(self) -> str:
        means = ", ".join(f"{m}={v:.4f}" for m, v in self.mean.items())
        return f"Result({self.n_queries} {self.index_name}s: {means})"
