"""The metric registry and the metric-name parser.

A metric is declared once, as a :class:`MetricSpec` passed to :func:`register`, in
the module of its family (``metrics/ranking/precision.py`` ...). The parser, the
CLI's ``rankmeter metrics`` listing, the documentation and the registry-wide
invariance tests all read the registry; adding a metric touches one file.

Names
-----
The grammar is ``name(param=value,...)@k``, case-insensitive: ``ndcg@10``,
``ndcg(gain=exp)@10``, ``ap(norm=min)@5``, ``rbp(p=0.8)``. Also accepted, so people
keep their habits: trec_eval names (``P_10``, ``P.10``, ``ndcg_cut.10``,
``map_cut.100``, ``recip_rank``, ``Rprec``, ``map``), ir_measures names (``P@10``,
``nDCG(dcg='exp-log2')@10``, ``RBP(p=0.8)``, ``AP(rel=2)@100``) and ranx names
(``precision@10``, ``mrr@10``, ``hit_rate@10``, ``ndcg_burges@10``). Results are keyed
by the string the user wrote.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, NamedTuple

from .._errors import MetricNameError, ParameterError

__all__ = [
    "Param",
    "Example",
    "MetricSpec",
    "Metric",
    "register",
    "get_spec",
    "all_specs",
    "parse_metric",
    "parse_metrics",
    "parse_metric_list",
    "split_metric_list",
    "MetricList",
]


@dataclass(frozen=True)
class Param:
    """A metric parameter: its type, default, allowed values and meaning."""

    name: str
    type: type
    default: Any
    doc: str = ""
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], bool] | None = None
    rule: str = ""  # human-readable range, e.g. "in (0, 1)"

    def coerce(self, value: Any, metric: str) -> Any:
        raw = value
        if isinstance(value, str):
            value = value.strip().strip("'\"")
        try:
            if self.type is bool and isinstance(value, str):
                if value.lower() in ("true", "1", "yes"):
                    value = True
                elif value.lower() in ("false", "0", "no"):
                    value = False
                else:
                    raise ValueError(value)
            elif self.type is int:
                f = float(value)
                if f != int(f):
                    raise ValueError(value)
                value = int(f)
            elif self.type is float:
                value = float(value)
            elif self.type is str:
                value = str(value).lower()
            elif value is None:
                pass
        except (TypeError, ValueError):
            raise ParameterError(
                f"The {self.name!r} parameter of {metric} must be {_type_name(self.type)}"
                f"{' ' + self.rule if self.rule else ''}. Got {raw!r} instead."
            ) from None
        if self.choices is not None and value not in self.choices:
            raise ParameterError(
                f"The {self.name!r} parameter of {metric} must be one of "
                f"{', '.join(map(str, self.choices))}. Got {raw!r} instead."
            )
        if self.check is not None and value is not None and not self.check(value):
            raise ParameterError(
                f"The {self.name!r} parameter of {metric} must be {_type_name(self.type)} "
                f"{self.rule}. Got {raw!r} instead."
            )
        return value


def _type_name(t: type) -> str:
    return {int: "an int", float: "a number", str: "a string", bool: "a boolean"}.get(t, t.__name__)


@dataclass(frozen=True)
class Example:
    """A worked example: one ranking (best first) and its judgments, and the value.

    Used by the docs and run as a test for every metric of the ranking family.
    """

    ranking: tuple[str, ...]
    qrels: Mapping[str, float]
    value: float
    k: int | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""
    tol: float = 1e-12  # the seeds print some values rounded; those examples say so


@dataclass(frozen=True)
class MetricSpec:
    """Everything about one metric, declared in one place.

    ``kernel(batch, **params)`` returns one value per query of a
    :class:`rankmeter.metrics.batch.Batch` already cut at the cutoff.
    ``reference(ranking, qrels, k, **params)`` is the slow, obviously-correct
    definition for one query (a list of item ids, best first, and a dict item ->
    grade), against which property tests check the kernel.
    """

    name: str
    family: str
    summary: str
    formula: str
    citation: str
    kernel: Callable[..., Any]
    reference: Callable[..., float] | None = None
    params: tuple[Param, ...] = ()
    aliases: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    param_aliases: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    examples: tuple[Any, ...] = ()
    cutoff: bool = True
    higher_is_better: bool = True
    bounds: tuple[float, float] | None = (0.0, 1.0)
    convention: str = ""
    properties: frozenset[str] = frozenset()
    trec_name: str | None = None
    # Facts the front-ends and engines read (never kept in side tables):
    # ``count``: a count per query (num_ret, tp...), printed as an integer and summed,
    # not averaged, on trec_eval's ``all`` line; ``aggregate``: how per-query values
    # combine into the summary ("mean", "gmean" with trec_eval's floor, "sum");
    # ``sql_name``: the function name in DuckDB / Spark SQL, None when there is none.
    count: bool = False
    aggregate: str = "mean"
    sql_name: str | None = None
    # What the kernel reads: "ranking" (a Batch of ranked lists with judgments) or
    # "ratings" (predicted vs true ratings, see rankmeter.ratings). evaluate() takes
    # ranking metrics only and says which entry point a metric needs.
    input: str = "ranking"
    # Whether the kernel reads item codes or the item vocabulary (batch.item,
    # context["item_ids"]). Kernels that do not (they read grades, scores, positions and
    # the judgment arrays) let the streaming and Spark engines skip building item codes.
    reads_items: bool = True
    # "query": the kernel returns one value per query and the mean aggregates.
    # "corpus": the metric is a property of all lists together (catalogue coverage,
    # Gini of exposure): the kernel returns a mergeable *state* for the batch,
    # ``merge(a, b)`` combines the states of two batches (streaming, Spark) and
    # ``finalize(state, context)`` gives the value.
    level: str = "query"
    merge: Callable[[Any, Any], Any] | None = None
    finalize: Callable[..., float] | None = None

    def __post_init__(self) -> None:
        if self.level not in ("query", "corpus"):
            raise ValueError(f"{self.name}: level must be 'query' or 'corpus'")
        if self.level == "corpus" and (self.merge is None or self.finalize is None):
            raise ValueError(f"{self.name}: a corpus-level metric needs merge and finalize")

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None


@dataclass(frozen=True)
class Metric:
    """A parsed metric: a spec with its parameter values and cutoff.

    ``text`` is what the user wrote (results are keyed by it); ``canonical`` is the
    normalised name, e.g. ``ndcg(gain=exp)@10``.
    """

    spec: MetricSpec
    params: Mapping[str, Any]
    k: int | None
    text: str

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def canonical(self) -> str:
        changed = [
            f"{p.name}={_fmt(self.params[p.name])}"
            for p in self.spec.params
            if self.params[p.name] != p.default
        ]
        out = self.spec.name + (f"({','.join(changed)})" if changed else "")
        return out + (f"@{self.k}" if self.k is not None else "")

    def __hash__(self) -> int:
        return hash(self.canonical)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Metric) and other.canonical == self.canonical

    def __repr__(self) -> str:
        return f"Metric({self.canonical!r})"


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return format(v, "g")
    return str(v)


_REGISTRY: dict[str, MetricSpec] = {}
_ALIASES: dict[str, tuple[str, Mapping[str, Any]]] = {}
_LOADED = False
_RANKING_LOADED = False


def register(spec: MetricSpec) -> MetricSpec:
    """Add a metric to the registry (called at import of its family module)."""
    key = spec.name.lower()
    if key in _REGISTRY or key in _ALIASES:
        raise RuntimeError(f"metric name {spec.name!r} registered twice")
    _REGISTRY[key] = spec
    for alias, preset in spec.aliases.items():
        a = alias.lower()
        if a in _REGISTRY or (a in _ALIASES and _ALIASES[a][0] != key):
            raise RuntimeError(f"alias {alias!r} of {spec.name!r} is taken")
        for pname in preset:
            if spec.param(pname) is None:
                raise RuntimeError(f"alias {alias!r} presets unknown parameter {pname!r}")
        _ALIASES[a] = (key, dict(preset))
    return spec


def _load() -> None:
    """Import every family module (their ``register`` calls fill the registry)."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        from . import _families

        _families.import_all()


def _load_ranking() -> None:
    """Import the ranking family only: enough for the common names, and faster at start-up.

    Any name it does not know triggers the full :func:`_load` before failing.
    """
    global _RANKING_LOADED
    if not _RANKING_LOADED and not _LOADED:
        _RANKING_LOADED = True
        from . import _families

        _families.import_family("ranking")


def _known(name: str) -> bool:
    return name in _REGISTRY or name in _ALIASES


def all_specs() -> list[MetricSpec]:
    """Every registered metric, sorted by family then name."""
    _load()
    return sorted(_REGISTRY.values(), key=lambda s: (s.family, s.name))


def get_spec(name: str) -> MetricSpec:
    _load()
    key = name.lower()
    if key in _REGISTRY:
        return _REGISTRY[key]
    if key in _ALIASES:
        return _REGISTRY[_ALIASES[key][0]]
    raise MetricNameError(_unknown(name))


def _unknown(name: str) -> str:
    names = sorted(set(_REGISTRY) | set(_ALIASES))
    close = difflib.get_close_matches(name.lower(), names, n=4, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `rankmeter metrics` lists them"
    return f"unknown metric {name!r}{hint}"


# trec_eval measure names -> (rankmeter name, preset params); the cutoff follows
# as ``name_10`` / ``name.10``.
_TREC: dict[str, tuple[str, dict[str, Any]]] = {
    "p": ("p", {}),
    "recall": ("r", {}),
    "ndcg_cut": ("ndcg", {}),
    "map_cut": ("ap", {}),
    "success": ("success", {}),
    "recip_rank": ("rr", {}),
    "rprec": ("rprec", {}),
    "map": ("ap", {}),
    "ndcg": ("ndcg", {}),
    "bpref": ("bpref", {}),
    "num_ret": ("num_ret", {}),
    "num_rel": ("num_rel", {}),
    "num_rel_ret": ("num_rel_ret", {}),
    "set_p": ("p", {"norm": "retrieved"}),
    "set_recall": ("r", {}),
    "rbp": ("rbp", {}),
    "rbp_resid": ("rbp", {"residual": True}),
}

_GRAMMAR = re.compile(
    r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_\-]*?)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<k>[^\s@]+))?\s*$"
)
_TREC_FORM = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z_]*?)[._](?P<k>\d+)\s*$")


def parse_metric(text: str | Metric) -> Metric:
    """Parse one metric string.

    >>> parse_metric("nDCG(dcg='exp-log2')@10").canonical
    'ndcg(gain=exp)@10'
    >>> parse_metric("P_10").canonical, parse_metric("map_cut.100").canonical
    ('p@10', 'ap@100')
    """
    if isinstance(text, Metric):
        return text
    if not isinstance(text, str):
        raise MetricNameError(f"a metric name must be a string, got {type(text).__name__}")
    _load_ranking()
    trec = _TREC_FORM.match(text)
    head = _GRAMMAR.match(text)
    if not ((trec and trec.group("name").lower() in _TREC) or (head and (_known(head.group("name").lower())
                                                                        or head.group("name").lower() in _TREC))):
        _load()
    m = _TREC_FORM.match(text)
    if m and m.group("name").lower() in _TREC:
        base, preset = _TREC[m.group("name").lower()]
        return _build(text, base, preset, {}, m.group("k"))
    m = _GRAMMAR.match(text)
    if not m:
        raise MetricNameError(
            f"cannot parse metric {text!r}: expected name(param=value,...)@k, e.g. ndcg(gain=exp)@10"
        )
    name = m.group("name").lower()
    params = _parse_params(text, m.group("params"))
    if name in _REGISTRY:
        base, preset = name, {}
    elif name in _ALIASES:
        base, preset = _ALIASES[name]
    elif name in _TREC and m.group("k") is None:
        base, preset = _TREC[name]
    else:
        raise MetricNameError(_unknown(m.group("name")))
    return _build(text, base, preset, params, m.group("k"))


def _parse_params(text: str, raw: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if raw is None or not raw.strip():
        return out
    for part in raw.split(","):
        if "=" not in part:
            raise MetricNameError(f"cannot parse metric {text!r}: parameter {part.strip()!r} is not name=value")
        key, value = part.split("=", 1)
        key = key.strip().lower()
        if key in out:
            raise MetricNameError(f"cannot parse metric {text!r}: parameter {key!r} given twice")
        out[key] = value.strip()
    return out


def _build(
    text: str, base: str, preset: Mapping[str, Any], given: Mapping[str, str], k: str | None
) -> Metric:
    spec = _REGISTRY[base]
    values: dict[str, Any] = {p.name: p.default for p in spec.params}
    values.update(preset)
    for key, raw in given.items():
        if key in spec.param_aliases:
            mapping = spec.param_aliases[key]
            v = raw.strip().strip("'\"").lower()
            if v not in mapping:
                raise ParameterError(
                    f"The {key!r} parameter of {spec.name} must be one of {', '.join(mapping)}. Got {raw!r} instead."
                )
            values.update(mapping[v])
            continue
        p = spec.param(key)
        if p is None:
            allowed = ", ".join(p.name for p in spec.params) or "none"
            raise MetricNameError(
                f"metric {spec.name} has no parameter {key!r} (parameters: {allowed}) in {text!r}"
            )
        values[key] = p.coerce(raw, spec.name)
    cutoff: int | None = None
    if k is not None:
        if not spec.cutoff:
            raise MetricNameError(f"metric {spec.name} takes no cutoff @k, in {text!r}")
        try:
            f = float(k)
            if f != int(f):
                raise ValueError
            cutoff = int(f)
        except ValueError:
            raise ParameterError(f"The 'k' parameter of {spec.name} must be an int >= 1. Got {k!r} instead.") from None
        if cutoff < 1:
            raise ParameterError(f"The 'k' parameter of {spec.name} must be an int >= 1. Got {cutoff} instead.")
    return Metric(spec=spec, params=values, k=cutoff, text=text.strip() if isinstance(text, str) else text)


def parse_metrics(metrics: str | Metric | Any) -> list[Metric]:
    """Parse one metric or an iterable of them; duplicates (same text) are an error."""
    items = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    if not items:
        raise MetricNameError("no metric given")
    out = [parse_metric(m) for m in items]
    seen: set[str] = set()
    for m in out:
        if m.text in seen:
            raise MetricNameError(f"metric {m.text!r} given twice")
        seen.add(m.text)
    return out


class MetricList(NamedTuple):
    """Parsed metrics of a metric list, and what the parser did that the user should hear."""

    metrics: list[Metric]
    notes: tuple[str, ...]


def split_metric_list(text: str) -> list[str]:
    """Split one metric-list text on its top-level commas.

    Commas inside parentheses or quotes stay (``f(beta=2,rel=2)@10`` is one metric).
    trec_eval's comma forms list more cutoffs of the metric before them: a part that is
    a bare number continues the previous one (``P.5,10`` gives ``P_5`` and ``P_10``,
    ``ndcg_cut.5,10`` gives ``ndcg_cut_5`` and ``ndcg_cut_10``, ``ndcg@5,10`` gives
    ``ndcg@5`` and ``ndcg@10``).

    >>> split_metric_list("ndcg@10,map, f(beta=2,rel=2)@10")
    ['ndcg@10', 'map', 'f(beta=2,rel=2)@10']
    >>> split_metric_list("P.5,10,ndcg_cut.5,10")
    ['P_5', 'P_10', 'ndcg_cut_5', 'ndcg_cut_10']
    """
    parts: list[str] = []
    depth, quote, cur = 0, "", []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur).strip())
    if len(parts) == 1:
        return [p for p in parts if p]
    out: list[str] = []
    stem: tuple[str, str] | None = None  # (text before the cutoff, separator) of the last metric with a cutoff
    for i, part in enumerate(parts):
        if not part:
            raise MetricNameError(f"empty metric in the list {text!r} (two commas, or a comma at an end)")
        if _DIGITS.fullmatch(part) and stem is not None:
            out.append(stem[0] + stem[1] + part)
            continue
        stem = None
        m = _TREC_FORM.match(part)
        if m and m.group("name").lower() in _trec_names() and i + 1 < len(parts) and _DIGITS.fullmatch(parts[i + 1]):
            stem = (m.group("name"), "_")
            out.append(f"{m.group('name')}_{m.group('k')}")
            continue
        at = part.rfind("@")
        if at > 0 and _DIGITS.fullmatch(part[at + 1:].strip()):
            stem = (part[:at].rstrip(), "@")
        out.append(part)
    return out


_DIGITS = re.compile(r"[0-9]+", re.ASCII)


def _trec_names() -> Mapping[str, Any]:
    _load_ranking()
    return _TREC


def parse_metric_list(texts: str | Metric | Iterable[str | Metric]) -> MetricList:
    """Parse the metrics of a command line (``-m ndcg@10,map -m P.5,10``): one syntax for every command.

    Each text is split by :func:`split_metric_list`. A metric given twice (the same
    text, or another spelling of the same metric: ``P_10`` and ``p@10``) is evaluated
    once, under its first spelling, and a note says so.

    >>> ms, notes = parse_metric_list(["ndcg@10,map", "P.5,10", "p@10"])
    >>> [m.text for m in ms]
    ['ndcg@10', 'map', 'P_5', 'P_10']
    >>> notes
    ("metric 'p@10' is the same as 'P_10' (p@10): evaluated once, as 'P_10'",)
    """
    items = [texts] if isinstance(texts, (str, Metric)) else list(texts)
    out: list[Metric] = []
    notes: list[str] = []
    first: dict[str, Metric] = {}
    for item in items:
        for piece in ([item] if isinstance(item, Metric) else split_metric_list(_as_text(item))):
            m = parse_metric(piece)
            seen = first.get(m.canonical)
            if seen is None:
                first[m.canonical] = m
                out.append(m)
            elif seen.text == m.text:
                notes.append(f"metric {m.text!r} given twice: evaluated once")
            else:
                notes.append(f"metric {m.text!r} is the same as {seen.text!r} ({m.canonical}): evaluated once, "
                             f"as {seen.text!r}")
    if not out:
        raise MetricNameError("no metric given")
    return MetricList(out, tuple(dict.fromkeys(notes)))


def _as_text(item: Any) -> str:
    if not isinstance(item, str):
        raise MetricNameError(f"a metric name must be a string, got {type(item).__name__}")
    return item
