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

__all__ = ["Entry", "Tool", "TOOLS", "get_tool", "parse_convention", "render_markdown", "with_convention"]

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


_INTRO = """# Other tools' numbers, on purpose: tie rules, conventions, explain-diff

<!-- generated by rankmeter.metrics.conventions.render_markdown(); tests/core/test_conventions.py checks it -->

rankmeter gives one documented number per metric. The numbers people compare against were made by other
tools, with other conventions. This page lists, per tool, each of its metric names, the rankmeter spelling
that reproduces it, what differs from rankmeter's default, and the source read. A tool's name is written
`tool:name@k` (`sklearn:ndcg@10`, `rectools:map@10`); `convention="sklearn"` on `rankmeter.evaluate`,
`compare` and `experiment` (`--convention` on the command line) only puts the prefix before the names that
have none, and results stay keyed by the string written. Unprefixed names always keep rankmeter's meaning.
What a convention cannot reproduce exactly (an arbitrary tie order, float32 arithmetic, a different query
set) is said in the result's notes.

```python
import rankmeter

qrels = {"q1": {"a": 1, "b": 0, "c": 2, "d": 1}}
run = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5, "e": 1.0}}   # four items tied at 1.0
res = rankmeter.evaluate(qrels, run, ["ndcg@2", "sklearn:ndcg@2", "rectools:ndcg@2"])
print(res.mean)                      # the id rule, tie-averaged (scikit-learn), an ideal of k items (RecTools)
d = rankmeter.explain_diff(qrels, run, "ndcg@2", "sklearn:ndcg@2")
print(d.by_query)                    # a, b, total and one column per reason
```

## Tied scores: `ties=`

`evaluate(..., ties=...)` (`--ties`; also `compare`, `experiment`, the streaming, DuckDB and Spark engines,
with identical numbers; the SQL functions take ranked lists, which have no tied scores):

{ties_table}

The registry declares which rules each metric supports (`docs/metrics.md`, "tie rules"); any other metric
with a rule is refused by name. `rbo`'s own `ties=a|b|w` is unrelated and keeps its meaning.

## `explain-diff`

`rankmeter explain-diff QRELS RUN -a ndcg@10 -b sklearn:ndcg@10` (`rankmeter.explain_diff`) splits, per
query, the difference b - a of two specifications of one metric into one part per convention switch,
applied one at a time in a fixed order: the tie rule, the cutoff, then each parameter that differs, in the
order the metric declares them. Each part is the change that switch makes on top of the previous ones, so
the parts add up to b - a (no residual column). A sequence is chosen over Shapley values because each part
is then one concrete evaluation; `by_query` has the columns `a`, `b`, `total` and one per reason,
`reasons` their means.
"""


_RULES = (
    ("`id`", "default, trec_eval's rule: equal scores ordered by item id descending"),
    ("`average`", "the expected value over the orders of each tied group, in closed form (McSherry and Najork, "
                  "ECIR 2008, doi:10.1007/978-3-540-78646-7_38), as scikit-learn's `ndcg_score` and torchmetrics; "
                  "for p, r, f, hits, success, dcg, ndcg, rbp, ap and rr"),
    ("`optimistic` / `pessimistic`", "each tied group sorted by grade descending / ascending (then by the id "
                                     "rule): the largest / smallest value over the orders, for the metrics that "
                                     "never fall when a better-graded item moves up (those above and rprec, err)"),
    ("`bounds`", "the id rule's values, and `result.tie_bounds[metric]`: a DataFrame indexed like `per_query` "
                 "with columns `low` and `high`; the notes count the queries whose value depends on the order of "
                 "their ties"),
)


def render_markdown() -> str:
    """docs/conventions.md: the introduction, then one table per tool, from the tables themselves."""
    table = ["| rule | meaning |", "|---|---|"] + [f"| {rule} | {meaning} |" for rule, meaning in _RULES]
    lines = [_INTRO.replace("{ties_table}", "\n".join(table)).rstrip(), ""]
    for name in TOOLS:
        tool = get_tool(name)
        lines += [f"## {tool.title} (`{tool.name}:`)", "",
                  f"Version read: {tool.version}; source: `{tool.repository}`. "
                  + ((get_module_doc(name) or "").replace("\n", " ").strip()), ""]
        if tool.passthrough:
            lines += ["Every name rankmeter's grammar reads is this tool's metric as it is"
                      + (f" ({tool.passthrough_note})" if tool.passthrough_note else "") + ".", ""]
        for note in tool.notes:
            lines += [f"- {note}"]
        if tool.notes:
            lines.append("")
        if tool.entries:
            lines += ["| name | rankmeter | ties | cutoff | what differs | cannot be reproduced | source |",
                      "|---|---|---|---|---|---|---|"]
            for key, e in tool.entries.items():
                lines.append(f"| `{tool.name}:{key}` | `{e.metric}` | {e.ties or 'id'} | {e.cutoff} | "
                             f"{e.differs or '-'} | {e.cannot or '-'} | `{e.source}` |")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def get_module_doc(name: str) -> str | None:
    return importlib.import_module(f"{__name__}.{name}").__doc__
