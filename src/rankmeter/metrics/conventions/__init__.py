"""Other tools' conventions as data: ``tool:name@k`` names a metric as that tool computes it.

Each tool has one table (``metrics/conventions/<tool>.py``): its metric names, rankmeter's spelling with
the parameters that reproduce it, the tie rule it needs, what differs from rankmeter's default, what
cannot be reproduced exactly (said in the result's notes, never hidden) and the source read. A tool's
number never gets a kernel of its own: every name resolves to a registry metric.

>>> from rankmeter.metrics.registry import parse_metric
>>> m = parse_metric("sklearn:ndcg@10")
>>> m.canonical, m.ties, m.text
('ndcg@10[ties=average]', 'average', 'sklearn:ndcg@10')
>>> parse_metric("rectools:map_divide_by_k@5").canonical
'ap(norm=k)@5'

``convention=`` on :func:`rankmeter.evaluate` only prefixes the names that have no prefix; results stay
keyed by the string written (:func:`with_convention`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from ..._errors import MetricNameError, ParameterError
from ..registry import Metric, parse_metric

__all__ = ["Entry", "Tool", "TOOLS", "get_tool", "parse_convention", "with_convention"]

# the tools with a table, in the order docs/conventions.md lists them
TOOLS = ("trec_eval", "pytrec_eval", "ir_measures", "ranx", "sklearn", "torchmetrics", "recbole", "rectools",
         "cornac", "msrecommenders", "implicit", "recmetrics", "lenskit", "elliot")


@dataclass(frozen=True)
class Entry:
    """One of a tool's metric names.

    ``metric``: rankmeter's spelling without the cutoff (``ndcg(ideal=k)``); ``ties``: the tie rule that
    reproduces the tool (None: the evaluation's, by default the id rule); ``cutoff``: the tool's name takes
    ``@k`` ("optional"), needs it ("required") or reads whole rankings ("none"); ``differs``: what differs
    from rankmeter's default spelling; ``cannot``: what cannot be reproduced exactly (in the notes);
    ``source``: the file (and line or function) read.
    """

    metric: str
    source: str
    ties: str | None = None
    cutoff: str = "optional"
    differs: str = ""
    cannot: str = ""


@dataclass(frozen=True)
class Tool:
    """A tool's convention: its names (``entries``, lower case), and ``passthrough``: every name rankmeter's
    own grammar reads is that tool's metric as it is (trec_eval and the tools built on it)."""

    name: str
    title: str
    version: str
    repository: str
    entries: Mapping[str, Entry] = field(default_factory=dict)
    passthrough: bool = False
    passthrough_note: str = ""  # said for a name read through the passthrough (e.g. ranx's arbitrary ties)
    notes: tuple[str, ...] = ()  # said once for any of the tool's metrics (query policy, versions)


def get_tool(name: str) -> Tool:
    """A tool's table by name (case-insensitive)."""
    key = name.strip().lower().replace("-", "_")
    key = {"scikit_learn": "sklearn", "ms_recommenders": "msrecommenders", "recommenders": "msrecommenders"}.get(
        key, key)
    if key not in TOOLS:
        raise MetricNameError(f"unknown tool {name!r} in a metric name: expected one of {', '.join(TOOLS)} "
                              "(tool:metric@k, e.g. sklearn:ndcg@10)")
    module = importlib.import_module(f"{__name__}.{key}")
    tool: Tool = module.TOOL
    return tool


def _split(rest: str, text: str) -> tuple[str, str | None]:
    """(the name with any parameters, the cutoff text or None)."""
    at = rest.rfind("@")
    if at < 0:
        return rest.strip(), None
    return rest[:at].strip(), rest[at + 1:].strip()


def parse_convention(text: str) -> Metric:
    """A ``tool:name@k`` metric: rankmeter's metric with the tool's parameters, tie rule and notes.

    >>> parse_convention("cornac:ncrr@10").canonical
    'ndcg(discount=reciprocal)@10'
    >>> parse_convention("trec_eval:P_10").canonical
    'p@10'
    """
    tool_name, rest = text.split(":", 1)
    tool = get_tool(tool_name)
    name, k = _split(rest, text)
    entry = tool.entries.get(name.lower())
    notes: list[str] = []
    if entry is None:
        if not tool.passthrough:
            names = ", ".join(sorted(tool.entries))
            raise MetricNameError(f"{tool.title} has no metric {name!r} in rankmeter's table of its conventions, in "
                                  f"{text!r}; its names: {names} (docs/conventions.md)")
        base = parse_metric(rest)
        if tool.passthrough_note:
            notes.append(f"{text}: {tool.passthrough_note}")
        notes += [f"{text}: {n}" for n in tool.notes]
        return replace(base, text=text.strip(), convention=tool.name, notes=tuple(notes))
    if entry.cutoff == "required" and k is None:
        raise MetricNameError(f"{tool.title}'s {name} needs a cutoff, e.g. {tool.name}:{name}@10, in {text!r}")
    if entry.cutoff == "none" and k is not None:
        raise MetricNameError(f"{tool.title}'s {name} reads whole rankings and takes no cutoff @k, in {text!r}")
    base = parse_metric(entry.metric + (f"@{k}" if k is not None else ""))
    if entry.cannot:
        notes.append(f"{text}: {entry.cannot}")
    notes += [f"{text}: {n}" for n in tool.notes]
    return replace(base, text=text.strip(), convention=tool.name, ties=entry.ties, notes=tuple(notes))


def with_convention(metrics: Any, convention: str | None, *, func: str = "evaluate") -> Any:
    """The metrics with ``convention:`` put before every name that has no tool prefix, each keyed by the
    string written (``ndcg@10`` under ``convention="sklearn"`` is sklearn's, keyed ``ndcg@10``).

    >>> [m.text + " = " + m.canonical for m in with_convention(["ndcg@10", "average_precision"], "sklearn")]
    ['ndcg@10 = ndcg@10[ties=average]', 'average_precision = ap']
    """
    if convention is None:
        return metrics
    if not isinstance(convention, str) or convention.strip().lower().replace("-", "_") not in (
            *TOOLS, "scikit_learn", "ms_recommenders", "recommenders"):
        raise ParameterError(f"The 'convention' parameter of {func} must be one of {', '.join(TOOLS)} or None. "
                             f"Got {convention!r} instead.")
    items: Sequence[Any] = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    out: list[Any] = []
    for item in items:
        if isinstance(item, Metric) or not isinstance(item, str) or ":" in item:
            out.append(item)
            continue
        from ..registry import split_metric_list

        for part in split_metric_list(item):
            m = parse_convention(f"{convention}:{part.strip()}")
            out.append(replace(m, text=part.strip()))
    return out
