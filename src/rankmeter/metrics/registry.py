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
by the string the user wrote. The grammar is strict: cutoffs in ASCII digits within 64
bits, numbers finite, quotes in pairs.

Every fact about a metric is on its spec, nowhere else: trec_eval names
(``trec_names``, read by the parser and by :func:`trec_output_name`), whether it is a
count (``count``, :func:`is_count`), its aggregation, its SQL function names
(``sql_name``, :func:`sql_functions`) and its parameters' types and ranges
(:class:`Param`, checked by :mod:`rankmeter._params`).

Lists: :func:`parse_metric_list` is the command line's syntax (``-m ndcg@10,map``,
trec_eval's ``P.5,10``; a metric given twice is evaluated once, with a note).
:func:`parse_metrics` is the Python API's (one metric per item; the same text twice is
an error, two spellings of one metric are both kept under their own keys).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, NamedTuple

from .. import _params
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
    "TrecName",
    "families",
    "sql_functions",
    "trec_output_name",
    "is_count",
    "parse_metric_list",
    "split_metric_list",
    "MetricList",
]


@dataclass(frozen=True)
class Param:
    """A metric parameter: its type, default, allowed values and meaning, declared as data.

    The allowed values are declared, never checked by hand: ``choices`` for a word,
    ``low`` / ``high`` (open or closed) and ``exclude`` for a number. Every number is
    finite and every int fits in 64 bits, whatever the range says. The message of a
    refused value is built from the declaration, in one form:
    ``The 'p' parameter of rbp must be a finite number in the range (0, 1). Got 1.5 instead.``
    ``check`` (with ``rule``, its description) is only for a rule a range cannot express.

    >>> Param("p", float, 0.8, low=0, high=1, low_open=True, high_open=True).expected
    'a finite number in the range (0, 1)'
    >>> Param("p", float, 0.8, low=0, high=1, low_open=True,
    ...       high_open=True).coerce("1.5", "rbp")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'p' parameter of rbp must be a finite number in the range (0, 1).
    Got 1.5 instead.
    """

    name: str
    type: type
    default: Any
    doc: str = ""
    choices: tuple[Any, ...] | None = None
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    exclude: tuple[float, ...] = ()
    check: Callable[[Any], bool] | None = None
    rule: str = ""
    # words that name a number in a metric name (``entropy(base=e)``): word -> value
    named: Mapping[str, Any] = field(default_factory=dict)

    @property
    def range(self) -> _params.Range:
        return _params.Range(self.low, self.high, self.low_open, self.high_open, self.exclude)

    @property
    def expected(self) -> str:
        """What a value must be, in words (the first half of the error message)."""
        if self.choices is not None:
            return "one of " + ", ".join(map(_fmt, self.choices))
        kind = {int: "an int", float: "a finite number", str: "a string", bool: "a boolean (true or false)"}.get(
            self.type, self.type.__name__)
        rng = self.range.describe() if self.type in (int, float) else ""
        text = kind + (f" {rng}" if rng else "") + (f" {self.rule}" if self.rule else "")
        return text

    def coerce(self, value: Any, metric: str) -> Any:
        """The value of this parameter from its text in a metric name, or from a Python value.

        Text is read strictly: ASCII decimal digits for numbers (no ``1_0``, ``inf``,
        ``nan``), ``true``/``false`` for booleans, a string in balanced quotes or none.
        """
        func = metric
        if value is None and self.default is None:
            return None
        if isinstance(value, str) and self.named and _unquote(value, self.name, metric).lower() in self.named:
            value = self.named[_unquote(value, self.name, metric).lower()]
        if isinstance(value, str):
            text = _unquote(value, self.name, metric)
            if self.type is int:
                out: Any = _params.parse_int(self.name, text, func=func, rng=self.range)
            elif self.type is float:
                out = _params.parse_number(self.name, text, func=func, rng=self.range)
            elif self.type is bool:
                out = _params.parse_bool(self.name, text, func=func)
            else:
                out = text.lower()
        elif self.type is int:
            out = _params.check_int(self.name, value, func=func, rng=self.range)
        elif self.type is float:
            out = _params.check_number(self.name, value, func=func, rng=self.range)
        elif self.type is bool:
            out = _params.check_bool(self.name, value, func=func)
        elif self.type is str:
            if not isinstance(value, str):
                raise ParameterError(f"The {self.name!r} parameter of {metric} must be {self.expected}. "
                                     f"Got {value!r} instead.")
            out = value.lower()
        else:
            out = value
        if self.choices is not None and out not in self.choices:
            raise ParameterError(f"The {self.name!r} parameter of {metric} must be {self.expected}. "
                                 f"Got {value!r} instead.")
        if self.check is not None and not self.check(out):
            raise ParameterError(f"The {self.name!r} parameter of {metric} must be {self.expected}. "
                                 f"Got {value!r} instead.")
        return out


def _unquote(value: str, name: str, metric: str) -> str:
    """The text of a parameter value without its quotes; quotes must pair up."""
    text = value.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
    else:
        inner = text
    if "'" in inner or '"' in inner:
        raise ParameterError(f"The {name!r} parameter of {metric} has an unbalanced quote. Got {value!r} instead.")
    return inner


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
    tol: float = 1e-12  # some sources print values rounded; those examples say so


@dataclass(frozen=True)
class TrecName:
    """A trec_eval name of a metric.

    ``name`` as trec_eval prints it (``P``, ``set_P``, ``map``, ``recip_rank``);
    ``preset``: the parameters the name implies (``set_P`` is ``p(norm=retrieved)``);
    ``cutoff``: trec_eval gives this measure a cutoff, printed ``name_k`` (``P_10``,
    ``ndcg_cut_10``). The parser reads ``name``, ``name_k`` and ``name.k``, any case.
    ``param``: the (float) parameter trec_eval prints after the name with two decimals
    (``iprec_at_recall_0.10`` is ``iprec_at_recall(recall=0.1)``); the parser reads
    ``name_x`` and ``name.x``.
    """

    name: str
    preset: Mapping[str, Any] = field(default_factory=dict)
    cutoff: bool = False
    param: str | None = None


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
    # trec_eval's names of this metric (``P`` with a cutoff printed ``P_10``, ``set_P``
    # presetting norm=retrieved...): the parser accepts them (``P_10``, ``P.10``) and
    # trec_output_name() prints them. ``trec_name`` alone (no ``trec_names``) declares one
    # name without a cutoff; with ``trec_names``, ``trec_name`` defaults to the first.
    trec_names: tuple[TrecName, ...] = ()
    # Facts the front-ends and engines read (never kept in side tables):
    # ``count``: a count per query (num_ret, tp...), printed as an integer and summed,
    # not averaged, on trec_eval's ``all`` line; ``aggregate``: how per-query values
    # combine into the summary ("mean", "gmean" with trec_eval's floor, "sum");
    # ``sql_name``: the function name in DuckDB / Spark SQL, None when there is none;
    # ``sql_aliases``: other SQL names of the same function (Apache Hivemall's spellings).
    count: bool = False
    aggregate: str = "mean"
    sql_name: str | None = None
    sql_aliases: tuple[str, ...] = ()
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
    # Tied scores (rankmeter.metrics.ties): the tie rules besides the id rule that this metric
    # supports. "average" needs ``tie_average(view, **params)``, a closed form reading a
    # TieView; "optimistic" and "pessimistic" need a value that never falls when a
    # better-graded item moves up. ``ties_except``: parameter values with which a rule is not
    # defined, e.g. ``{"average": {"norm": ("retrieved",)}}``.
    ties: frozenset[str] = frozenset()
    tie_average: Callable[..., Any] | None = None
    ties_except: Mapping[str, Mapping[str, tuple[Any, ...]]] = field(default_factory=dict)
    # Unjudged items (rankmeter.metrics.unjudged): ``unjudged_bounds`` declares that the metric's
    # extremes over every completion of the judgments are found by a pass over the number of items
    # made relevant (its value never falls when a relevant item swaps with a non-relevant one above
    # it, and its ideal depends only on how many are relevant); ``unjudged_except``: parameter values
    # with which that does not hold, e.g. ``{"residual": (True,)}``.
    unjudged_bounds: bool = False
    unjudged_except: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    # ``mean=pooled`` (a parameter of p and r): ``pooled_weight(batch, **params)`` gives each query's
    # denominator, and the summary is sum(value x weight) / sum(weight), a ratio of sums over queries
    pooled_weight: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        if self.level not in ("query", "corpus"):
            raise ValueError(f"{self.name}: level must be 'query' or 'corpus'")
        if self.level == "corpus" and (self.merge is None or self.finalize is None):
            raise ValueError(f"{self.name}: a corpus-level metric needs merge and finalize")
        if self.aggregate not in ("mean", "gmean", "sum"):
            raise ValueError(f"{self.name}: aggregate must be 'mean', 'gmean' or 'sum'")
        if self.trec_name is not None and not self.trec_names:
            object.__setattr__(self, "trec_names", (TrecName(self.trec_name),))
        elif self.trec_names and self.trec_name is None:
            object.__setattr__(self, "trec_name", self.trec_names[0].name)
        if self.sql_aliases and self.sql_name is None:
            raise ValueError(f"{self.name}: sql_aliases without a sql_name")
        if not self.ties <= {"average", "optimistic", "pessimistic"}:
            raise ValueError(f"{self.name}: ties must be a subset of average, optimistic, pessimistic")
        if ("average" in self.ties) != (self.tie_average is not None):
            raise ValueError(f"{self.name}: ties='average' and a tie_average kernel go together")

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
    # a tool's convention (``sklearn:ndcg@10``, rankmeter.metrics.conventions): the tool, the tie rule
    # that reproduces it (None: the evaluation's), and what the result's notes must say
    convention: str | None = None
    ties: str | None = None
    notes: tuple[str, ...] = ()

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
        out += f"@{self.k}" if self.k is not None else ""
        return out + (f"[ties={self.ties}]" if self.ties else "")

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
        text = repr(v)  # shortest text that reads back as the same float
        return text[:-2] if text.endswith(".0") else text
    return str(v)


_REGISTRY: dict[str, MetricSpec] = {}
_ALIASES: dict[str, tuple[str, Mapping[str, Any]]] = {}
# trec_eval names (lower case) -> (metric key, preset, takes a cutoff), from the specs' trec_names
_TREC: dict[str, tuple[str, Mapping[str, Any], bool]] = {}
# trec_eval names with a printed parameter (lower case) -> (metric key, preset, parameter name)
_TREC_PARAM: dict[str, tuple[str, Mapping[str, Any], str]] = {}
# SQL function names (lower case) -> metric key, from the specs' sql_name and sql_aliases
_SQL: dict[str, str] = {}
_LOADED = False
_RANKING_LOADED = False


def register(spec: MetricSpec) -> MetricSpec:
    """Add a metric to the registry (called at import of its family module).

    Every name the spec declares (its name, aliases, trec_eval names, SQL names) is
    checked against the names already taken, so two metrics never claim one name.
    """
    key = spec.name.lower()
    if key in _REGISTRY or key in _ALIASES:
        raise RuntimeError(f"metric name {spec.name!r} registered twice")
    _PARSED.clear()
    for alias, preset in spec.aliases.items():
        a = alias.lower()
        if a in _REGISTRY or a == key or (a in _ALIASES and _ALIASES[a][0] != key):
            raise RuntimeError(f"alias {alias!r} of {spec.name!r} is taken")
        _check_preset(spec, f"alias {alias!r}", preset)
    for t in spec.trec_names:
        tk = t.name.lower()
        if tk in _TREC and _TREC[tk][0] != key:
            raise RuntimeError(f"trec_eval name {t.name!r} of {spec.name!r} is taken by {_TREC[tk][0]!r}")
        _check_preset(spec, f"trec_eval name {t.name!r}", t.preset)
        if t.cutoff and not spec.cutoff:
            raise RuntimeError(f"trec_eval name {t.name!r} takes a cutoff but {spec.name!r} does not")
        if t.param is not None and ((p := spec.param(t.param)) is None or p.type is not float):
            raise RuntimeError(f"trec_eval name {t.name!r} of {spec.name!r} prints parameter {t.param!r}, "
                               "which is not a float parameter of it")
    sql = [spec.sql_name, *spec.sql_aliases] if spec.sql_name else []
    for name in sql:
        if name.lower() in _SQL:
            raise RuntimeError(f"SQL name {name!r} of {spec.name!r} is taken by {_SQL[name.lower()]!r}")
    for p in spec.params:
        if p.default is not None:
            p.coerce(p.default, spec.name)  # a default outside its own declared range is a bug
    _REGISTRY[key] = spec
    for alias, preset in spec.aliases.items():
        _ALIASES[alias.lower()] = (key, dict(preset))
    for t in spec.trec_names:
        if t.param is not None:
            _TREC_PARAM[t.name.lower()] = (key, dict(t.preset), t.param)
        else:
            _TREC[t.name.lower()] = (key, dict(t.preset), t.cutoff)
    for name in sql:
        _SQL[name.lower()] = key
    return spec


def _check_preset(spec: MetricSpec, what: str, preset: Mapping[str, Any]) -> None:
    for pname, value in preset.items():
        p = spec.param(pname)
        if p is None:
            raise RuntimeError(f"{what} of {spec.name!r} presets unknown parameter {pname!r}")
        p.coerce(value, spec.name)


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


def all_specs() -> list[MetricSpec]:
    """Every registered metric, sorted by family then name."""
    _load()
    return sorted(_REGISTRY.values(), key=lambda s: (s.family, s.name))


def families() -> list[str]:
    """The names of the metric families, sorted.

    >>> "ranking" in families()
    True
    """
    return sorted({s.family for s in all_specs()})


def get_spec(name: str) -> MetricSpec:
    """The spec of a metric by name, alias or trec_eval name (``ndcg``, ``map``, ``recip_rank``)."""
    _load()
    key = name.lower()
    if key in _REGISTRY:
        return _REGISTRY[key]
    if key in _ALIASES:
        return _REGISTRY[_ALIASES[key][0]]
    if key in _TREC:
        return _REGISTRY[_TREC[key][0]]
    raise MetricNameError(_unknown(name))


def _unknown(name: str) -> str:
    import difflib  # (an error's hint only: not loaded by every start, ~1 ms)

    names = sorted(set(_REGISTRY) | set(_ALIASES) | set(_TREC))
    close = difflib.get_close_matches(name.lower(), names, n=4, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `rankmeter metrics` lists them"
    return f"unknown metric {name!r}{hint}"


def sql_functions() -> dict[str, str]:
    """SQL function name -> metric name, for the DuckDB and Spark SQL functions (read from the specs).

    >>> sql_functions()["average_precision"]
    'ap'
    """
    _load()
    out: dict[str, str] = {}
    for spec in sorted(_REGISTRY.values(), key=lambda s: s.name):
        for name in ([spec.sql_name, *spec.sql_aliases] if spec.sql_name else []):
            out[name] = spec.name
    return out


def trec_output_name(metric: str | Metric) -> str | None:
    """The name trec_eval prints for this metric (``P_10``, ``ndcg_cut_10``, ``map``), or None.

    None when trec_eval has no measure with these parameters and cutoff
    (``ndcg(gain=exp)``; ``p(rel=2)@10``, which trec_eval computes only for a whole
    run under ``-l 2``, and prints without the level).

    >>> [trec_output_name(t) for t in ("p@10", "ndcg@10", "ap", "rr", "set_P", "ndcg(gain=exp)@10")]
    ['P_10', 'ndcg_cut_10', 'map', 'recip_rank', 'set_P', None]
    >>> trec_output_name("iprec_at_recall(recall=0.1)"), trec_output_name("11pt_avg")
    ('iprec_at_recall_0.10', '11pt_avg')
    """
    m = parse_metric(metric)
    if m.ties not in (None, "id"):  # another tool's tie rule (sklearn:ndcg@10): not trec_eval's measure
        return None
    for t in m.spec.trec_names:
        want = {p.name: p.default for p in m.spec.params}
        want.update(t.preset)
        if t.param is not None:
            del want[t.param]
        if any(m.params[n] != v for n, v in want.items()):
            continue
        if t.param is not None:
            if m.k is None:
                return f"{t.name}_{float(m.params[t.param]):3.2f}"[:len(t.name) + 9]  # trec_eval's buffer
            continue
        if t.cutoff and m.k is not None:
            return f"{t.name}_{m.k}"
        if not t.cutoff and m.k is None:
            return t.name
    return None


def is_count(metric: str | Metric) -> bool:
    """Whether a metric is a per-query count (printed as an integer, summed on trec_eval's ``all`` line).

    >>> is_count("num_ret"), is_count("tp@10"), is_count("ndcg@10")
    (True, True, False)
    """
    return parse_metric(metric).spec.count


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*", re.ASCII)
_TOOL_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_]*:", re.ASCII)
_TREC_FORM = re.compile(r"(?P<name>[A-Za-z][A-Za-z_]*?)[._](?P<k>[0-9]+)", re.ASCII)
# trec_eval's names with a printed parameter (iprec_at_recall_0.10, Rprec_mult_0.20), and its
# names that do not start with a letter (11pt_avg)
_TREC_PARAM_FORM = re.compile(r"(?P<name>[A-Za-z][A-Za-z_]*?)[._](?P<x>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)


def _lookup(name: str) -> tuple[str, Mapping[str, Any]] | None:
    """(metric key, preset) of a name, alias or trec_eval name; loads every family when needed."""
    key = name.lower()
    for attempt in range(2):
        if key in _REGISTRY:
            return key, {}
        if key in _ALIASES:
            return _ALIASES[key]
        if key in _TREC:
            return _TREC[key][0], _TREC[key][1]
        if attempt == 0 and not _LOADED:
            _load()
    return None


def parse_metric(text: str | Metric) -> Metric:
    """Parse one metric string.

    The grammar is strict: ``name(param=value,...)@k``, ASCII letters and digits, a
    cutoff written in ASCII digits (no ``1e1``, ``1_0`` or full-width digits), quotes
    in pairs; or a trec_eval form ``name_k`` / ``name.k``.

    >>> parse_metric("nDCG(dcg='exp-log2')@10").canonical
    'ndcg(gain=exp)@10'
    >>> parse_metric("P_10").canonical, parse_metric("map_cut.100").canonical
    ('p@10', 'ap@100')
    """
    if isinstance(text, Metric):
        return text
    if not isinstance(text, str):
        raise MetricNameError(f"a metric name must be a string, got {type(text).__name__}")
    known = _PARSED.get(text)
    if known is not None:
        return known
    parsed = _parse_metric(text)
    if len(_PARSED) < _PARSED_MAX:
        _PARSED[text] = parsed
    return parsed


# texts already parsed: a metric (a frozen value) is parsed once, not once per module that reads the list
# (run-experiment parsed each of 20,000 -m options six times, issue 32); register() empties it
_PARSED: dict[str, Metric] = {}
_PARSED_MAX = 1 << 17


def _parse_metric(text: str) -> Metric:
    _load_ranking()
    stripped = text.strip()
    if _TOOL_PREFIX.match(stripped):  # another tool's name: sklearn:ndcg@10 (rankmeter.metrics.conventions)
        from .conventions import parse_convention

        return parse_convention(stripped)
    trec = _trec_param_form(text, stripped)
    if trec is not None:
        return trec
    m = _TREC_FORM.fullmatch(stripped)
    if m and _is_trec(m.group("name")):
        base, preset = _TREC[m.group("name").lower()][:2]
        return _build(text, base, preset, {}, m.group("k"))
    name, raw_params, k = _split_metric_text(text)
    found = _lookup(name)
    if found is None:
        raise MetricNameError(_unknown(name))
    base, preset = found
    return _build(text, base, preset, _parse_params(text, raw_params), k)


def _trec_param_form(text: str, stripped: str) -> Metric | None:
    """``iprec_at_recall_0.10`` / ``Rprec_mult.0.2`` (a trec_eval name and its printed parameter) and
    trec_eval names that are not rankmeter-style names (``11pt_avg``), or None."""
    m = _TREC_PARAM_FORM.fullmatch(stripped)
    if m is None and not stripped[:1].isdigit():
        return None
    if not _LOADED:
        _load()
    if m is not None and m.group("name").lower() in _TREC_PARAM:
        base, preset, pname = _TREC_PARAM[m.group("name").lower()]
        return _build(text, base, {**preset, pname: float(m.group("x"))}, {}, None)
    if m is None and stripped.lower() in _TREC:
        base, preset = _TREC[stripped.lower()][:2]
        return _build(text, base, preset, {}, None)
    return None


def _cannot(text: str, why: str) -> MetricNameError:
    return MetricNameError(f"cannot parse metric {text!r}: {why}; expected name(param=value,...)@k, "
                           "e.g. ndcg(gain=exp)@10")


def _split_metric_text(text: str) -> tuple[str, str | None, str | None]:
    """(name, the text inside the parentheses or None, the cutoff text or None)."""
    t = text.strip()
    m = _NAME.match(t)
    if not m:
        raise _cannot(text, "a metric name starts with an ASCII letter")
    name, i = m.group(), m.end()
    while i < len(t) and t[i] in " \t":
        i += 1
    raw_params: str | None = None
    if i < len(t) and t[i] == "(":
        j, quote = i + 1, ""
        while j < len(t):
            ch = t[j]
            if quote:
                if ch == quote:
                    quote = ""
            elif ch in "'\"":
                quote = ch
            elif ch == "(":
                raise _cannot(text, "parentheses inside the parameters")
            elif ch == ")":
                break
            j += 1
        if quote:
            raise _cannot(text, f"unbalanced quote {quote}")
        if j >= len(t):
            raise _cannot(text, "missing ')'")
        raw_params, i = t[i + 1:j], j + 1
        while i < len(t) and t[i] in " \t":
            i += 1
    k: str | None = None
    if i < len(t) and t[i] == "@":
        k, i = t[i + 1:].strip(" \t"), len(t)
        if not k:
            raise _cannot(text, "nothing after '@'")
    if i != len(t):
        raise _cannot(text, f"unexpected {t[i:]!r}")
    return name, raw_params, k


def _parse_params(text: str, raw: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if raw is None or not raw.strip():
        return out
    parts: list[str] = []
    cur: list[str] = []
    quote = ""
    for ch in raw:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == ",":
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    for part in parts:
        if "=" not in part:
            raise MetricNameError(f"cannot parse metric {text!r}: parameter {part.strip()!r} is not name=value")
        key, value = part.split("=", 1)
        key = key.strip().lower()
        if not _NAME.fullmatch(key):
            raise MetricNameError(f"cannot parse metric {text!r}: {key!r} is not a parameter name")
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
            v = _unquote(raw, key, spec.name).lower()
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
        cutoff = _params.parse_int("k", k, func=spec.name, low=1)
    return Metric(spec=spec, params=values, k=cutoff, text=text.strip())


def parse_metrics(metrics: str | Metric | Any) -> list[Metric]:
    """Parse one metric or an iterable of them (the Python API's form).

    A text may be a comma list, as on the command line (``"ndcg@10,map"``, ``"P.5,10"``:
    :func:`split_metric_list`); each of its metrics is then keyed by its own part
    (``ndcg@10``, ``map``; ``P_5``, ``P_10``). The same text twice is an error, because
    results are keyed by the text; two spellings of one metric (``P_10``, ``p@10``) are
    both kept, under their own keys, as the caller asked.

    >>> [m.text for m in parse_metrics("ndcg@10,map")], [m.text for m in parse_metrics(["P.5,10", "rr"])]
    (['ndcg@10', 'map'], ['P_5', 'P_10', 'rr'])
    """
    items = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    if not items:
        raise MetricNameError("no metric given")
    expanded: list[Any] = []
    for m in items:
        parts = split_metric_list(m) if isinstance(m, str) and "," in m else [m]
        expanded += parts if len(parts) > 1 else [m]
    out = [parse_metric(m) for m in expanded]
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
    cur: list[str] = []
    depth, quote = 0, ""
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
        if m and _is_trec(m.group("name")) and i + 1 < len(parts) and _DIGITS.fullmatch(parts[i + 1]):
            stem = (m.group("name"), "_")
            out.append(f"{m.group('name')}_{m.group('k')}")
            continue
        at = part.rfind("@")
        if at > 0 and _DIGITS.fullmatch(part[at + 1:].strip()):
            stem = (part[:at].rstrip(), "@")
        out.append(part)
    return out


_DIGITS = re.compile(r"[0-9]+", re.ASCII)


def _is_trec(name: str) -> bool:
    _load_ranking()
    return _lookup(name) is not None and name.lower() in _TREC


def parse_metric_list(texts: str | Metric | Iterable[str | Metric], *, spellings: bool = False) -> MetricList:
    """Parse the metrics of a command line (``-m ndcg@10,map -m P.5,10``): one syntax for every command.

    Each text is split by :func:`split_metric_list`. A metric given twice (the same
    text, or another spelling of the same metric: ``P_10`` and ``p@10``) is evaluated
    once, under its first spelling, and a note says so. With ``spellings=True`` (where
    results are keyed by the text the user wrote: ``rankmeter evaluate``) another
    spelling is kept as its own key, computed once (the evaluation core shares the
    values of one canonical metric), and the note says so.

    >>> ms, notes = parse_metric_list(["ndcg@10,map", "P.5,10", "p@10"])
    >>> [m.text for m in ms]
    ['ndcg@10', 'map', 'P_5', 'P_10']
    >>> notes
    ("metric 'p@10' is the same as 'P_10' (p@10): evaluated once, as 'P_10'",)
    >>> ms, notes = parse_metric_list(["hit_rate@10", "success@10"], spellings=True)
    >>> [m.text for m in ms], notes
    (['hit_rate@10', 'success@10'], ("metric 'success@10' is the same as 'hit_rate@10' (success@10): computed once, \
shown under both names",))
    """
    items = [texts] if isinstance(texts, (str, Metric)) else list(texts)
    out: list[Metric] = []
    notes: list[str] = []
    first: dict[str, Metric] = {}
    kept: set[str] = set()  # the texts in out (a set: thousands of metrics)
    for item in items:
        for piece in ([item] if isinstance(item, Metric) else split_metric_list(_as_text(item))):
            m = parse_metric(piece)
            seen = first.get(m.canonical)
            if seen is None:
                first[m.canonical] = m
                out.append(m)
                kept.add(m.text)
            elif seen.text == m.text or m.text in kept:
                notes.append(f"metric {m.text!r} given twice: evaluated once")
            elif spellings:
                out.append(m)
                kept.add(m.text)
                notes.append(f"metric {m.text!r} is the same as {seen.text!r} ({m.canonical}): computed once, "
                             "shown under both names")
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
