"""Why two specifications of one metric give two numbers: an exact, additive decomposition per query.

Given the same judgments and run, and two spellings of one metric (two conventions such as ``ndcg@10``
and ``sklearn:ndcg@10``, or two parameterisations such as ``ap@10`` and ``ap(norm=k)@10``), the
difference ``b - a`` of each query is split into one part per convention switch. The switches are
applied one at a time on top of the previous ones, from ``a`` to ``b``, in a fixed order:

1. ``ties``: the tie rule (``id``, ``average``, ``optimistic``, ``pessimistic``): ties at the cutoff;
2. ``cutoff``: the cutoff k;
3. each parameter that differs, in the order the metric declares its parameters (``rel``: grades
   treated as binary from another level; ``norm``/``ideal``: normalisation and ideal definition;
   ``gain``, ``discount``, ``mean``...).

Each part is the change of the value when its switch is applied, so the parts add up to ``b - a``
(a telescoping sum, exact up to float rounding: within 1e-12), with no residual column. A sequential
order, rather than Shapley values, is chosen because each part then has a concrete meaning ("the
value after this switch minus before"), and the order above goes from the evaluation protocol (ties,
cutoff) to the formula's details. The queries are those the evaluation counts (``queries=``), the same
for both specifications. Two different metrics (``ndcg`` and ``ap``) are not decomposed: an error says so.

>>> qrels = {"q1": {"a": 1, "b": 0, "c": 2, "d": 1}}
>>> run = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5, "e": 1.0}}
>>> d = explain_diff(qrels, run, "ndcg@2", "sklearn:ndcg@2")
>>> list(d.by_query.columns)
['a', 'b', 'total', 'ties: id -> average']
>>> round(float(d.by_query.loc["q1", "total"]), 6), round(float(d.reasons["ties: id -> average"]), 6)
(-0.014695, -0.014695)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from .._errors import ParameterError
from ..metrics.registry import Metric, parse_metric

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ExplainDiff", "explain_diff"]

_TIES = ("id", "average", "optimistic", "pessimistic")


@dataclass(frozen=True)
class ExplainDiff:
    """The decomposition: ``by_query`` (columns ``a``, ``b``, ``total`` = b - a and one per reason, in
    the order applied), ``reasons`` (the mean of each reason column), ``steps`` (each switch and the
    metric after it, in rankmeter's spelling), ``notes`` (the evaluation's)."""

    a: str
    b: str
    by_query: "pd.DataFrame"
    reasons: "pd.Series"
    steps: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        lines = [f"{self.b} - {self.a} over {len(self.by_query)} queries: mean {self.by_query['total'].mean():+.6f}"]
        for name, value in self.reasons.items():
            lines.append(f"  {name}: {value:+.6f}")
        return "\n".join(lines)


def _spelling(m: Metric, ties: str) -> str:
    return m.canonical.split("[")[0] + ("" if ties == "id" else f" with ties={ties}")


def _steps(ma: Metric, mb: Metric, ties: str) -> list[tuple[str, Metric, str]]:
    """(reason, metric after the switch, its tie rule) for each switch from a to b, in the fixed order."""
    ta, tb = ma.ties or ties, mb.ties or ties
    cur, cur_ties = replace(ma, convention=None, notes=(), ties=None), ta
    out: list[tuple[str, Metric, str]] = []
    if ta != tb:
        cur_ties = tb
        out.append((f"ties: {ta} -> {tb}", cur, cur_ties))
    if ma.k != mb.k:
        cur = replace(cur, k=mb.k)
        out.append((f"cutoff: {_k(ma.k)} -> {_k(mb.k)}", cur, cur_ties))
    for p in ma.spec.params:
        if ma.params[p.name] != mb.params[p.name]:
            cur = replace(cur, params={**cur.params, p.name: mb.params[p.name]})
            out.append((f"{p.name}: {_v(ma.params[p.name])} -> {_v(mb.params[p.name])}", cur, cur_ties))
    return out


def _k(k: int | None) -> str:
    return "none" if k is None else str(k)


def _v(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def explain_diff(qrels: Any, run: Any, a: str | Metric, b: str | Metric, *,
                 queries: str | Sequence[str] = "judged", ties: str = "id", depth: int | None = None,
                 judged_only: bool = False, context: Mapping[str, Any] | None = None) -> ExplainDiff:
    """Per query, ``b - a`` split into the parts each convention switch causes (module docstring).

    ``a`` and ``b``: two spellings of one metric (``"ndcg@10"``, ``"sklearn:ndcg@10"``,
    ``"rectools:ndcg@10"``). ``ties``: the tie rule of a specification without its own (default
    ``"id"``). ``queries``, ``depth``, ``judged_only``, ``context``: as :func:`rankmeter.evaluate`.
    """
    from ..engines.memory import evaluate

    ma, mb = parse_metric(a), parse_metric(b)
    if ma.spec is not mb.spec:
        raise ParameterError(f"explain_diff decomposes two specifications of one metric; {ma.text!r} is "
                             f"{ma.spec.name} and {mb.text!r} is {mb.spec.name}")
    if ma.spec.level != "query":
        raise ParameterError(f"explain_diff decomposes per-query metrics; {ma.spec.name} is corpus-level")
    if ties not in _TIES:
        raise ParameterError(f"The 'ties' parameter of explain_diff must be one of {', '.join(map(repr, _TIES))}. "
                             f"Got {ties!r} instead.")
    steps = _steps(ma, mb, ties)
    start = replace(ma, convention=None, notes=(), ties=ma.ties or ties, text="\0a")
    chain = [start] + [replace(m, ties=t, text=f"\0step{i}") for i, (_, m, t) in enumerate(steps)]
    res = evaluate(qrels, run, chain, queries=queries, depth=depth, judged_only=judged_only, context=context)
    import pandas as pd

    index = pd.Index(list(res.queries), name="query")
    va = np.asarray(res.values["\0a"], dtype=np.float64)
    vb = np.asarray(res.values[chain[-1].text], dtype=np.float64)
    cols: dict[str, np.ndarray] = {"a": va, "b": vb, "total": vb - va}
    prev = va
    for (reason, _, _), m in zip(steps, chain[1:], strict=True):
        now = np.asarray(res.values[m.text], dtype=np.float64)
        cols[reason] = now - prev
        prev = now
    by_query = pd.DataFrame(cols, index=index)
    reasons = by_query[[r for r, _, _ in steps]].mean() if steps else pd.Series(dtype=np.float64)
    notes = tuple(n for n in res.notes if "\0" not in n) + tuple(ma.notes) + tuple(mb.notes)
    return ExplainDiff(a=ma.text, b=mb.text, by_query=by_query, reasons=reasons,
                       steps=tuple((r, _spelling(m, t)) for r, m, t in steps), notes=notes)
