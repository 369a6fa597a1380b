"""A drop-in for pytrec_eval: ``import rankmeter.pytrec_eval as pytrec_eval``.

Same API (``RelevanceEvaluator(qrel, measures, relevance_level=1,
judged_docs_only_flag=False)``, ``.evaluate(run)`` returning ``{query: {measure:
value}}``, ``supported_measures``, ``supported_nicknames``, ``parse_qrel``,
``parse_run``), the same measure spellings (``"P.5,10"``, ``"P_5"``,
``"ndcg_cut.10"``, nicknames ``"official"``, ``"all_trec"``, ``"set"``) and the same
values: trec_eval 9.0.8's definitions, as pytrec_eval bundles them, scores included:
9.0.8 holds a score as a C ``float``, so scores are rounded to single precision before
ranking (scores that differ beyond it tie, and the tie goes by docno). Per query, as
pytrec_eval: the queries of the run that have judgments; ``runid`` and
``relstring`` are 0.0, ``num_q`` is 1.0 and ``gm_map`` / ``gm_bpref`` hold
``log(max(value, 1e-5))`` (the mean of these, exponentiated, is the geometric mean).
The errors pytrec_eval raises as ``TypeError`` are ``TypeError`` here too (and
:class:`rankmeter.InputError` / :class:`rankmeter.ParameterError`).

Differences (deliberate): a query judged only with negative grades and an empty ranking,
which crash pytrec_eval, are evaluated; a ``nan`` score, whose place in trec_eval's
order depends on its sort routine, is an :class:`rankmeter.InputError`; bad input raises
rankmeter's errors instead of an ``AssertionError`` (``parse_qrel``, ``parse_run``).
See docs/trec_eval.md.

>>> ev = RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"map", "P.1"})
>>> ev.evaluate({"q1": {"d1": 0.5, "d2": 1.5}})
{'q1': {'map': 0.5, 'P_1': 0.0}}
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ._errors import InputError, ParameterError
from .metrics.trec.engine import (
    MEASURES,
    MIN_GEO_MEAN,
    NICKNAMES,
    Options,
    form_res_rels,
    stored_scores,
    trec_relstring,
)

__all__ = [
    "RelevanceEvaluator",
    "supported_measures",
    "supported_nicknames",
    "parse_qrel",
    "parse_run",
    "compute_aggregated_measure",
]

_VERSION = "9.0.8"
_ALL = NICKNAMES[_VERSION]["all_trec"]

#: The measure names pytrec_eval accepts (trec_eval 9.0.8's ``all_trec`` measures).
supported_measures: frozenset[str] = frozenset(_ALL)
#: Nicknames and the measures they stand for.
supported_nicknames: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in NICKNAMES[_VERSION].items()}

# pytrec_eval's parameter pattern after a measure's name and a '.' or '_', matched at the start of the rest
# (re.match): what follows the last number it takes is not read
_PARAMS = re.compile(r"[._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)")


class _TypeInputError(InputError, TypeError):
    """Input pytrec_eval refuses with a ``TypeError`` (ids, grades, scores, the run's shape): both a
    :class:`rankmeter.InputError` and a ``TypeError``, so code written for either catches it."""


class _TypeParameterError(ParameterError, TypeError):
    """A parameter pytrec_eval refuses with a ``TypeError``: both a :class:`rankmeter.ParameterError` and a
    ``TypeError``."""


def _combine(measures: Iterable[str]) -> dict[str, str | None]:
    """Measure name -> parameter text (None: trec_eval's defaults), pytrec_eval's rules.

    As pytrec_eval (``_combine_measures``): the parameters of every spelling of a measure
    are pooled as a set of texts and sorted as text; a name is a supported measure, or
    one followed by ``.`` or ``_`` and numbers, the rest of the name after the last
    number being ignored (``utility.2,-1,0,0`` is utility with the one coefficient
    ``2``). Where something is ignored, a ``RuntimeWarning`` says so.

    >>> _combine(["P.5", "P_10", "map", "ndcg_cut"])
    {'P': '10,5', 'map': None, 'ndcg_cut': None}
    """
    expanded: set[str] = set()
    if isinstance(measures, str):
        raise ValueError("measures must be a collection of measure names, not one string")
    for m in measures:
        if m in supported_nicknames:
            expanded.update(supported_nicknames[m])
        else:
            expanded.add(m)
    params: dict[str, set[str]] = defaultdict(set)
    for m in sorted(expanded):
        if m in supported_measures:
            params.setdefault(m, set())
            continue
        for base in sorted(supported_measures, key=len, reverse=True):
            tail = _PARAMS.match(m, len(base)) if m.startswith(base) else None
            if tail:
                params[base].update(tail.group(1).split(","))
                if tail.end() < len(m):
                    import warnings

                    warnings.warn(f"measure {m!r}: pytrec_eval reads it as {base}.{tail.group(1)} and ignores "
                                  f"{m[tail.end():]!r}; so does rankmeter.pytrec_eval", RuntimeWarning, stacklevel=3)
                break
        else:
            raise ValueError(f"unsupported measure {m}")
    return {k: (",".join(sorted(v)) if v else None) for k, v in params.items()}


_C_INT = 1 << 31


def _c_int(value: Any, name: str) -> int:
    """An argument pytrec_eval reads as a C ``int`` (format ``i``): an int (or bool) within 32 bits, else TypeError."""
    if isinstance(value, float) or not hasattr(value, "__index__") or not -_C_INT <= int(value) < _C_INT:
        raise _TypeParameterError(f"The '{name}' parameter of RelevanceEvaluator must be an int within 32 bits "
                                  f"(as pytrec_eval). Got {value!r} instead.")
    return int(value)


class RelevanceEvaluator:
    """Evaluate runs against stored judgments, measure for measure as pytrec_eval.

    ``query_relevance``: ``{query: {doc: grade}}`` (grades are ints; negative grades
    mean "in the pool, not judged"); ``measures``: names or nicknames, with
    parameters as ``"P.5,10"`` or ``"P_5"``; ``relevance_level``: lowest relevant
    grade; ``judged_docs_only_flag``: drop unjudged documents first (trec_eval -J).
    """

    def __init__(self, query_relevance: Mapping[str, Mapping[str, int]], measures: Iterable[str],
                 relevance_level: int = 1, judged_docs_only_flag: bool = False) -> None:
        level = _c_int(relevance_level, "relevance_level")
        if level == 0:
            raise _TypeParameterError("The 'relevance_level' parameter of RelevanceEvaluator must be an int >= 1 "
                                      "(or < 0, which pytrec_eval reads as 2**32 plus it). Got 0 instead.")
        if level < 0:
            # pytrec_eval writes the C int into the low half of a long that holds 1: -1 becomes 2**32 - 1
            level += 1 << 32
        judged_only = _c_int(judged_docs_only_flag, "judged_docs_only_flag") != 0
        combined = _combine(measures)
        self._plan: list[tuple[Any, Any, list[str]]] = []
        for m in MEASURES:
            if m.name not in combined:
                continue
            text = combined[m.name]
            p = m.parse_params(text) if text is not None else m.default
            # pytrec_eval names single-value measures without their parameters (11pt_avg, set_F)
            names = m.value_names(p, None if m.kind in ("param", "pairs", "string") else text)
            if m.name == "utility" and len(p) != 4:
                import warnings

                warnings.warn(f"utility.{text}: trec_eval's utility needs 4 coefficients; as pytrec_eval, its value "
                              "is 0.0 for every query", RuntimeWarning, stacklevel=2)
                self._plan.append((m, None, names))  # (no parameters: 0.0)
                continue
            self._plan.append((m, p, names))
        if not isinstance(query_relevance, Mapping):
            raise _TypeInputError(f"query_relevance must be a dict {{query: {{doc: grade}}}} (as pytrec_eval), "
                                  f"got {type(query_relevance).__name__}")
        self._qrels: dict[str, dict[str, int]] = {}
        for q, docs in query_relevance.items():
            if len(docs) == 0:
                continue  # as pytrec_eval: a query without judgments is not evaluated
            if not isinstance(q, str):
                raise _TypeInputError(f"query ids must be strings (as pytrec_eval), got {q!r}")
            if not isinstance(docs, Mapping):
                raise _TypeInputError(f"the judgments of query {q!r} must be a dict {{doc: grade}} (as pytrec_eval), "
                                      f"got {type(docs).__name__}")
            bad = next((d for d in docs if not isinstance(d, str)), None)
            if bad is not None:
                raise _TypeInputError(f"document ids must be strings (as pytrec_eval); query {q!r} has {bad!r}")
            self._qrels[q] = {d: _grade(g, q, d) for d, g in docs.items()}
        self._opts = Options(level=level, judged_only=judged_only, compat=_VERSION)
        self._path = "auto"  # "engine": trec_eval's walk for every query (tests compare both paths)
        self._qrels_obj: Any = None
        self._walk: list[Any] = []
        self._texts: list[str] | None = None
        self._order = [n for m, _, names in self._plan
                       for n in (["runid"] if m.kind == "runid" else names)]
        # the judgments as columns and the evaluation core's engine, made here once (as pytrec_eval
        # converts the judgments in its constructor); the walk's evaluator needs neither
        self._prepared: TrecPlan | None = None
        if self._qrels:
            self._prepared = trec_plan(self._qrels_table(), self._vector_plan(), self._opts)

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """Per-query values for every run query that has judgments.

        The run's dicts become columns in one pass; every measure with an exact registry
        twin is computed by the vectorised kernels over all queries at once
        (:func:`trec_columns`), the rest by trec_eval's walk.
        """
        if not scores:
            return {}  # as pytrec_eval, whatever the type of the empty value
        if not isinstance(scores, Mapping):
            raise _TypeInputError(f"the run must be a dict {{query: {{doc: score}}}} (as pytrec_eval), "
                                  f"got {type(scores).__name__}")
        for q, docs in scores.items():
            if not isinstance(q, str):
                raise _TypeInputError(f"query ids must be strings (as pytrec_eval), got {q!r}")
            if not isinstance(docs, Mapping):
                raise _TypeInputError(f"the scores of query {q!r} must be a dict {{doc: score}} (as pytrec_eval), "
                                      f"got {type(docs).__name__}")
        wanted = [q for q in scores if q in self._qrels]
        if len(wanted) < len(scores):  # queries without judgments are not evaluated, but typed as pytrec_eval types
            for q, docs in scores.items():
                if q not in self._qrels:
                    for d, x in docs.items():
                        if not isinstance(d, str):
                            raise _TypeInputError(f"document ids must be strings (as pytrec_eval); query {q!r} has "
                                                  f"{d!r}")
                        if not isinstance(x, (int, float)) and not hasattr(x, "__float__"):
                            _score(x, q, d)
        if not self._plan:
            return {q: {} for q in wanted}  # no measure: every evaluated query, with no value (as pytrec_eval)
        fast = [q for q in wanted if len(scores[q]) > 0]
        vectorised = self._vectorised(scores, fast) if self._path != "engine" and fast else {}
        out: dict[str, dict[str, float]] = {}
        for q in wanted:
            out[q] = vectorised[q] if q in vectorised else self._one(q, scores[q])
        return out

    def _one(self, q: str, docs: Mapping[str, float]) -> dict[str, float]:
        """One query through trec_eval's walk (the engine)."""
        names = list(docs.keys())
        if not all(isinstance(d, str) for d in names):
            bad = next(d for d in names if not isinstance(d, str))
            raise _TypeInputError(f"document ids must be strings (as pytrec_eval); query {q!r} has {bad!r}")
        sims = [_score(s, q, d) for d, s in docs.items()]
        rr = form_res_rels(names, sims, self._qrels[q], self._opts)
        values: dict[str, float] = {}
        for m, p, names_ in self._plan:
            if m.kind == "runid":
                values["runid"] = 0.0
                continue
            if m.kind == "string" or p is None:
                values[names_[0]] = 0.0
                continue
            v = m.compute(rr, self._opts, p)
            if m.kind == "gm":
                values[names_[0]] = math.log(max(float(v[0]), MIN_GEO_MEAN))
                continue
            for name, x in zip(names_, v, strict=True):
                values[name] = float(x)
        return values

    def _vectorised(self, scores: Mapping[str, Mapping[str, float]], queries: list[str]) -> dict[str, dict[str, float]]:
        """Every query with results at once: columns built from the dicts in one pass, then :func:`trec_columns`."""
        import operator
        from itertools import chain

        import numpy as np
        import pyarrow as pa

        from . import _compute as C
        from .data.ids import ints

        lens = np.fromiter((len(scores[q]) for q in queries), dtype=np.int64, count=len(queries))
        n = int(lens.sum())
        items = list(chain.from_iterable(scores[q] for q in queries))
        item_col = _string_array(items)
        try:
            # unary + refuses text, which numpy would parse: a score is a number, as pytrec_eval requires
            values = np.fromiter(map(operator.pos, chain.from_iterable(scores[q].values() for q in queries)),
                                 dtype=np.float64, count=n)
        except (TypeError, ValueError):
            for q in queries:
                for d, x in scores[q].items():
                    _score(x, q, d)
            raise
        values = stored_scores(values, _VERSION)  # a C float, as in trec_eval 9.0.8: ties beyond its precision
        if not bool(np.isfinite(values).all()):
            # +-inf (and nan, which it refuses) go through trec_eval's walk, which orders infinite scores as
            # trec_eval does; the evaluation core takes finite scores only
            codes = np.repeat(np.arange(len(queries), dtype=np.int64), lens)
            odd = set(np.unique(codes[~np.isfinite(values)]).tolist())
            rest = [q for i, q in enumerate(queries) if i not in odd]
            return self._vectorised(scores, rest) if rest else {}
        codes = np.repeat(np.arange(len(queries), dtype=np.int32), lens)
        # rows by query, then score descending: two cheap sorts (a radix sort of the query codes), so that
        # the evaluation core only orders the ties (by item id, its tie rule)
        perm = None
        if n and bool(np.all(lens == lens[0])):  # every query as long: one row-wise sort of a matrix
            width = int(lens[0])
            perm = (np.argsort(-values.reshape(-1, width), axis=1)
                    + np.arange(0, n, width, dtype=np.int64)[:, None]).ravel()
        elif len(queries) < 1 << 16 and n:
            by_score = np.argsort(-values)
            perm = by_score[np.argsort(codes[by_score].astype(np.uint16), kind="stable")]
        if perm is not None:
            codes, values = codes[perm], values[perm]
            item_col = C.take(item_col, ints(perm))
        table = pa.table({"query": pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(queries, pa.string())),
                          "item": item_col, "score": values})
        plan = self._vector_plan()
        if self._prepared is None:
            self._prepared = trec_plan(self._qrels_table(), plan, self._opts)
        tc = trec_columns(self._qrels_table(), table, plan, self._opts, strings=False, prepared=self._prepared)
        # what took which path (tests): the measures trec_eval's walk computed for every query
        self._walk = [x for x in plan if x[0].name in tc.walked_measures]
        self._texts = [name for name in tc.columns if all(name not in names for _, _, names in self._walk)]
        for m, p, names in self._plan:
            if m.kind == "string" or p is None:
                tc.columns[names[0]] = np.zeros(len(tc.queries))
        tc.columns["runid"] = np.zeros(len(tc.queries))
        order = self._order
        rows = np.column_stack([tc.columns[name] for name in order]).tolist()
        return {q: dict(zip(order, row, strict=True)) for q, row in zip(tc.queries, rows, strict=True)}

    def _vector_plan(self) -> list[Any]:
        return [x for x in self._plan if x[0].kind != "string" and x[1] is not None]

    def _qrels_table(self) -> Any:
        if self._qrels_obj is None:
            from .data import Qrels

            q = [qid for qid, docs in self._qrels.items() for _ in docs]
            d = [doc for docs in self._qrels.values() for doc in docs]
            g = [float(x) for docs in self._qrels.values() for x in docs.values()]
            self._qrels_obj = Qrels.from_columns(q, d, g)
        return self._qrels_obj


def _string_array(items: list[Any]) -> Any:
    """An Arrow string array of document ids, cut from one joined buffer (ids must be text).

    The ids are joined with NUL bytes, which UTF-8 never uses inside a character, so
    the NUL positions give the offsets (an id holding a NUL itself: Arrow converts the list).

    >>> _string_array(["d1", "", "é"]).to_pylist()
    ['d1', '', 'é']
    """
    import numpy as np
    import pyarrow as pa

    n = len(items)
    try:
        data = np.frombuffer("\0".join(items).encode("utf-8"), dtype=np.uint8)
    except TypeError:
        bad = next(d for d in items if not isinstance(d, str))
        raise _TypeInputError(f"document ids must be strings (as pytrec_eval), got {bad!r}") from None
    except UnicodeEncodeError:
        bad = next(d for d in items if not _encodes(d))
        raise InputError(f"document id {bad!r} is not valid Unicode text (a lone surrogate)") from None
    sep = np.flatnonzero(data == 0)
    if len(sep) != max(n - 1, 0):
        return pa.array(items, pa.string())
    width = np.int32 if len(data) < 2**31 else np.int64
    offsets = np.empty(n + 1, dtype=width)
    offsets[0] = 0
    offsets[1:n] = sep - np.arange(n - 1)  # each id's end, less the separators before it
    offsets[n] = len(data) - (n - 1) if n else 0
    kept = np.delete(data, sep) if len(sep) else data
    kind = pa.string() if width is np.int32 else pa.large_string()
    return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(offsets), pa.py_buffer(kept)])


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _grade(g: Any, q: Any, d: Any) -> int:
    """A grade as pytrec_eval takes it: an int (a bool is one); a float or text is a TypeError."""
    if not hasattr(g, "__index__"):
        raise _TypeInputError(f"the grade of document {d!r} for query {q!r} must be an int (as pytrec_eval), "
                              f"got {g!r}")
    return int(g)


def _score(x: Any, q: Any, d: Any) -> float:
    """A score as pytrec_eval takes it: an int or a float (+-inf included); nan has no place in an order.

    >>> _score(float("-inf"), "q", "d")
    -inf
    >>> _score("1.5", "q", "d")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankmeter.pytrec_eval._TypeInputError: the score of document 'd' for query 'q' must be an int or a float ...
    """
    import operator

    try:
        v = float(operator.pos(x))  # as the vectorised path reads a score: a number, never text
    except TypeError:
        raise _TypeInputError(f"the score of document {d!r} for query {q!r} must be an int or a float "
                              f"(as pytrec_eval), got {x!r}") from None
    if v != v:
        raise InputError(f"the score of document {d!r} for query {q!r} is nan: it has no place in a ranking "
                         "(trec_eval's order of nan scores depends on its sort routine; rankmeter refuses them)")
    return v


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """A TREC run (lines ``qid Q0 doc rank score tag``) as ``{qid: {doc: score}}``."""
    run: dict[str, dict[str, float]] = defaultdict(dict)
    for n, line in enumerate(f_run, start=1):
        f = line.split()
        if len(f) != 6:
            raise InputError(f"expected 6 columns (qid Q0 doc rank score tag), found {len(f)}", line=n, text=line)
        if f[2] in run[f[0]]:
            raise InputError(f"document {f[2]!r} listed twice for query {f[0]!r}", line=n, text=line)
        run[f[0]][f[2]] = float(f[4])
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """TREC judgments (lines ``qid 0 doc grade``) as ``{qid: {doc: grade}}``."""
    qrel: dict[str, dict[str, int]] = defaultdict(dict)
    for n, line in enumerate(f_qrel, start=1):
        f = line.split()
        if len(f) != 4:
            raise InputError(f"expected 4 columns (qid 0 doc grade), found {len(f)}", line=n, text=line)
        if f[2] in qrel[f[0]]:
            raise InputError(f"document {f[2]!r} judged twice for query {f[0]!r}", line=n, text=line)
        qrel[f[0]][f[2]] = int(f[3])
    return qrel


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """Aggregate per-query values as pytrec_eval: sum for num_*, exp-mean for gm_*, else the mean."""
    import numpy as np

    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


# --- trec_eval's measures over every query at once (shared with the ``rankmeter trec_eval`` command) ----

@dataclass
class TrecColumns:
    """Per-query values of trec_eval measures, one column per value name.

    ``queries``: the evaluated query ids (the run's queries that have judgments, in the
    run's order); ``columns``: value name -> float64 array (``relstring`` values:
    a list of str); ``walked``: how many queries went through trec_eval's walk for
    every measure (empty rankings, queries judged only with negative grades), and
    ``walked_measures`` the measures computed by the walk for every query.
    """

    queries: Any  # list[str], or an Arrow string array (trec_columns(arrow_ids=True))
    columns: dict[str, Any]
    walked: int = 0
    walked_measures: tuple[str, ...] = ()


def near_rounding(x: Any, digits: int = 4) -> Any:
    """Where a value lies so close to halfway between two printed values (``%.4f``) that a few
    units in the last place, such as a sum taken in another order, could change its last digit.

    >>> import numpy as np
    >>> near_rounding(np.array([0.12345, 0.1234, 0.5, 0.00125]))
    array([ True, False, False,  True])
    """
    import numpy as np

    # |y - floor(y) - 0.5| < 1e-7 + 1e-11 y, in two temporaries of 64k values (2M queries at once: two of 16 MB)
    x = np.asarray(x, dtype=np.float64)
    out = np.empty(x.shape, dtype=bool)
    flat, into = x.reshape(-1), out.reshape(-1)
    block = 1 << 16
    for i in range(0, len(flat), block):
        y = np.abs(flat[i:i + block])
        y *= 10.0 ** digits
        with np.errstate(invalid="ignore"):
            d = np.floor(y)
            np.subtract(y, d, out=d)
            d -= 0.5
            np.abs(d, out=d)
            y *= 1e-11
            y += 1e-7
            np.less(d, y, out=into[i:i + block])
    return out


@dataclass
class TrecPlan:
    """How :func:`trec_columns` computes a plan: the evaluation core's engine and which value comes from where."""

    engine: Any
    specs: list[tuple[str, str, str]]  # (value name, registry metric text, how)
    summed: list[str]  # value names of SUMMED measures
    walk: list[tuple[Any, tuple[Any, ...], list[str]]]  # measures computed by trec_eval's walk
    relstring: list[tuple[str, int]]  # (value name, length)


def trec_plan(qrels: Any, plan: Sequence[tuple[Any, tuple[Any, ...], list[str]]], opts: Options) -> TrecPlan:
    """The registry twin of each measure of ``plan`` and the engine that computes them (see :func:`trec_columns`)."""
    from ._errors import RankmeterError
    from .evaluation import Engine
    from .metrics.registry import parse_metric
    from .metrics.trec.vector import CONSTANT, SUMMED, registry_texts

    specs: list[tuple[str, str, str]] = []  # (value name, registry text, how)
    summed: list[str] = []  # value names of SUMMED measures
    walk: list[tuple[Any, tuple[Any, ...], list[str]]] = []
    relstring: list[tuple[str, int]] = []
    for m, p, names in plan:
        if m.kind == "string":
            relstring.append((names[0], int(p[0]) if p else 10))
            continue
        texts = registry_texts(m, p, opts)
        if texts is not None:
            try:
                for text, how in texts:
                    if how not in CONSTANT:
                        parse_metric(text)
            except RankmeterError:  # a parameter the registry does not take (e.g. rel=-1)
                texts = None
        if texts is None:
            walk.append((m, p, names))
            continue
        specs.extend((name, text, how) for name, (text, how) in zip(names, texts, strict=True))
        if m.name in SUMMED:
            summed.extend(names)
    wanted = sorted({t for _, t, how in specs if how not in CONSTANT} | {"num_ret"})
    engine = Engine(qrels, wanted, queries="run", depth=opts.max_docs, judged_only=opts.judged_only)
    return TrecPlan(engine, specs, summed, walk, relstring)


def trec_columns(qrels: Any, table: Any, plan: Sequence[tuple[Any, tuple[Any, ...], list[str]]], opts: Options, *,
                 strings: bool = True, zero_on: Sequence[str] = (), printed: bool = False,
                 prepared: "TrecPlan | None" = None, arrow_ids: bool = False) -> TrecColumns:
    """trec_eval's per-query values of ``plan`` for the run ``table`` (columns query, item, score).

    ``plan``: (:class:`~rankmeter.metrics.trec.engine.TrecMeasure`, parameters, value
    names) in output order. Each measure with an exact registry twin
    (:func:`~rankmeter.metrics.trec.vector.registry_texts`) is computed by the
    evaluation core's vectorised kernels over every query at once, with ``-M`` /
    ``-J`` as its ``depth`` / ``judged_only``; the others, and every measure of the
    few queries whose ranking is empty after ``-J`` or whose judgments are all
    negative, by trec_eval's walk. ``strings``: compute relstring (else ''). Queries
    of ``zero_on`` are trec_eval 10.0's ``-c`` stand-ins: their num_ret, utility,
    rbp_resid and unj are 0 and their relstring empty. ``printed``: the values will be
    printed with 4 decimals (the trec_eval command): a value of a summed measure
    (:data:`~rankmeter.metrics.trec.vector.SUMMED`) within a few units in the last place
    of halfway between two printed values is taken from trec_eval's walk
    (:func:`near_rounding`), whose sums run in trec_eval's order, so the digits printed
    are trec_eval's. ``prepared``: the :func:`trec_plan` of these judgments, plan and
    options, made once for several runs. ``arrow_ids``: the result's ``queries`` stay an
    Arrow string array (no Python string per query: 2M queries take about 130 MB as a list).

    >>> from rankmeter.data import Qrels
    >>> from rankmeter.metrics.trec.engine import expand_selection
    >>> import pyarrow as pa
    >>> ms, _ = expand_selection(["map", "P.2", "relstring"])
    >>> plan = [(m, m.default if m.name != "P" else (2,), m.value_names((2,), None)) for m in ms]
    >>> q = Qrels.from_columns(["1", "1"], ["a", "b"], [1, 0])
    >>> t = pa.table({"query": ["1", "1", "1"], "item": ["a", "x", "b"], "score": [3.0, 2.0, 1.0]})
    >>> out = trec_columns(q, t, plan, Options())
    >>> out.queries, out.columns["map"].tolist(), out.columns["P_2"].tolist(), out.columns["relstring"]
    (['1'], [1.0], [0.5], ['1-0'])
    """
    import numpy as np
    import pyarrow as pa

    from . import _compute as C
    from .data.ids import as_string_array, ints, positions_or_minus1
    from .engines.memory import evaluate_table_in_chunks
    from .metrics.trec.vector import CONSTANT, LOG

    prep = prepared if prepared is not None else trec_plan(qrels, plan, opts)
    engine, specs, summed, walk, relstring = prep.engine, prep.specs, prep.summed, prep.walk, prep.relstring
    out = evaluate_table_in_chunks(engine, table)  # (chunks of whole queries, on both cores)
    if table.num_rows >= C.MILLIONS:
        C.release_memory()  # (the chunks' temporaries, kept by the allocators)
    # the ids stay an Arrow array; Python strings are made only for the queries that need them
    qarr = as_string_array(pa.array(out.queries, pa.string()) if isinstance(out.queries, list) else out.queries)
    n = len(qarr)
    values = out.values
    del out  # (the chunks' other outputs: 2M queries' codes, 16 MB)
    cols: dict[str, Any] = {}
    taken: set[int] = set()  # (a metric's values array becomes a column, copied for a second column: two
    # spellings of one metric share one array)
    for name, text, how in specs:
        if how in CONSTANT:
            cols[name] = np.full(n, CONSTANT[how])
        elif how == LOG:
            cols[name] = np.array([math.log(x) for x in np.maximum(values[text], MIN_GEO_MEAN).tolist()])
        else:
            own = np.asarray(values[text], dtype=np.float64)
            cols[name] = own.copy() if id(own) in taken or not own.flags.writeable else own
            taken.add(id(own))
    num_ret = values["num_ret"]
    del values  # (the metrics no column reads: the coverage's judged share, 16 MB for 2M queries)
    # queries whose every measure goes through the walk: empty rankings, judgments all negative
    codes = engine.codes(qarr)  # (Engine.codes looks an Arrow array up a block at a time)
    # the judged queries whose every grade is negative (highest grade < 0): by one reduceat over the rows
    # where every query has one (as from Qrels.from_columns), else row by row
    offs = qrels.offsets
    if len(qrels.grades) and bool((offs[1:] > offs[:-1]).all()):
        negative = np.maximum.reduceat(qrels.grades, offs[:-1]) < 0
    else:
        top = np.full(qrels.n_queries, -np.inf)
        if len(qrels.grades):
            np.maximum.at(top, qrels.row_queries(), qrels.grades)
        negative = top < 0
        del top
    odd = (num_ret == 0) | negative[codes]
    del negative
    if printed:  # a value the last printed digit of which could depend on the order of a sum: the walk's
        for name in summed:
            odd |= near_rounding(cols[name])
    patch = np.flatnonzero(odd)
    patched = set(patch.tolist())
    every = [x for x in plan if x[0].kind not in ("string", "runid", "num_q")]
    rows = range(n) if walk else patch.tolist()
    if len(rows):
        some = (qarr.to_pylist() if len(rows) == n else C.take(qarr, ints(np.asarray(rows, dtype=np.int64)))
                .to_pylist())
        lists = _query_lists(table, some)
        for i, qid in zip(rows, some, strict=True):
            rr = form_res_rels(*lists.get(qid, ([], [])), _judgments_of(qrels, int(codes[i])), opts)
            for m, p, names in (every if i in patched else walk):
                v = m.compute(rr, opts, p)
                if m.kind == "gm":
                    v = [math.log(max(float(v[0]), MIN_GEO_MEAN))]
                for name, x in zip(names, v, strict=True):
                    cols.setdefault(name, np.zeros(n))[i] = float(x)
    for name, length in relstring:
        cols[name] = _relstrings(qrels, table, qarr.to_pylist(), codes, length, opts) if strings else [""] * n
    if zero_on:  # (one lookup for all: a set per query was quadratic in the number of stand-ins)
        zero = np.flatnonzero(positions_or_minus1(C.index_in(qarr, pa.array(list(zero_on), pa.string()))) >= 0)
        if len(zero):
            for m, _, names in plan:
                for name in names:
                    if m.kind == "string":
                        if name == "relstring":
                            for i in zero.tolist():
                                cols[name][i] = ""
                    elif bogus_cleared(name):
                        cols[name][zero] = 0.0
    return TrecColumns(qarr if arrow_ids else qarr.to_pylist(), cols, walked=len(patch),
                       walked_measures=tuple(m.name for m, _, _ in walk))


def bogus_cleared(name: str) -> bool:
    """Whether trec_eval 10.0's ``-c`` clean-up zeroes the value ``name`` of a query missing from the run.

    trec_eval.c compares the printed value names exactly (``num_ret``, ``utility``,
    ``rbp_resid``; ``relstring`` is emptied) and ``unj`` by its first three letters, so a
    parameterised ``utility_2,-1,0,0`` or ``rbp_resid_p=0.5`` keeps its value on the dummy
    ranking, while ``unj_5`` is zeroed.

    >>> [bogus_cleared(n) for n in ("num_ret", "utility", "utility_2,-1,0,0", "unj_5", "rbp_resid_p=0.5")]
    [True, True, False, True, False]
    """
    return name in ("num_ret", "utility", "rbp_resid") or name.startswith("unj")


def _query_lists(table: Any, queries: Sequence[str]) -> dict[str, tuple[list[str], list[float]]]:
    """The rows of some queries as {query: (items, scores)}, in the table's order."""
    import numpy as np
    import pyarrow as pa

    from . import _compute as C
    from .data.ids import as_string_array, ints, positions_or_minus1

    if not queries:
        return {}
    if len(queries) == table.num_rows or len(queries) * 2 > table.num_rows:
        sub = table
    else:
        hit = positions_or_minus1(C.index_in(as_string_array(table.column("query")), pa.array(list(queries),
                                                                                             pa.string())))
        sub = C.take(table, ints(np.flatnonzero(hit >= 0)))
    out: dict[str, tuple[list[str], list[float]]] = {}
    want = set(queries)
    for q, d, s in zip(sub.column("query").to_pylist(), sub.column("item").to_pylist(),
                       sub.column("score").to_pylist(), strict=True):
        if q in want:
            docs, sims = out.setdefault(q, ([], []))
            docs.append(d)
            sims.append(float(s))
    return out


def _judgments_of(qrels: Any, code: int) -> dict[str, int]:
    """One query's judgments as {item: grade} (grades as trec_eval's integers)."""
    from . import _compute as C
    from .data.ids import ints

    a, b = int(qrels.offsets[code]), int(qrels.offsets[code + 1])
    items = C.take(qrels.item_ids, ints(qrels.items[a:b])).to_pylist()
    return dict(zip(items, (int(g) for g in qrels.grades[a:b].tolist()), strict=True))


def _relstrings(qrels: Any, table: Any, queries: list[str], codes: Any, length: int, opts: Options) -> list[str]:
    """trec_eval's relstring of every query: the top ``length`` items' grades as characters.

    Digits for judged grades 0-9 (``>`` above 9), ``-`` for an item not in the judgments,
    ``.`` for one judged with a negative grade; ``-M`` cuts the ranking first. Under
    ``-J`` trec_eval's walk computes it.
    """
    import numpy as np
    import pyarrow as pa

    from . import _compute as C
    from .data.ids import as_string_array, ints, to_numpy
    from .data.order import rank_order

    n = len(queries)
    k = max(length, 0) if opts.max_docs is None else max(min(length, opts.max_docs), 0)
    if k == 0 or n == 0:
        return [""] * n
    if opts.judged_only:
        lists = _query_lists(table, queries)
        return [trec_relstring(form_res_rels(*lists.get(q, ([], [])), _judgments_of(qrels, int(c)), opts), length)
                for q, c in zip(queries, codes.tolist(), strict=True)]
    qcol = as_string_array(table.column("query"))
    items = as_string_array(table.column("item"))
    enc = C.dictionary_encode(qcol)
    qcodes = to_numpy(enc.indices).astype(np.int64)
    score = np.ascontiguousarray(to_numpy(table.column("score")), dtype=np.float64)
    perm, _ = rank_order(qcodes, score, items)  # the tie rule (rankmeter.data.order), as the kernels see it
    if perm is None:
        perm = np.arange(len(qcodes))
    qsorted = qcodes[perm]
    starts = np.flatnonzero(np.concatenate(([True], qsorted[1:] != qsorted[:-1])))
    lens = np.diff(np.concatenate((starts, [len(qsorted)])))
    pos = np.arange(len(qsorted)) - np.repeat(starts, lens)
    rows = perm[pos < k]
    top = pa.table({"q": C.take(qcol, ints(rows)), "item": C.take(items, ints(rows))})
    rowq = qrels.row_queries()
    jt = pa.table({"q": C.take(qrels.query_ids, ints(rowq)), "item": C.take(qrels.item_ids, ints(qrels.items)),
                   "grade": qrels.grades})
    top = top.append_column("row", pa.array(np.arange(top.num_rows, dtype=np.int64)))
    j = top.select(["q", "item", "row"]).join(jt, ["q", "item"], join_type="inner", use_threads=True)
    grade = np.full(top.num_rows, np.nan)
    grade[to_numpy(j.column("row"))] = to_numpy(j.column("grade"))
    chars = np.full(top.num_rows, "-", dtype="<U1")
    ok = ~np.isnan(grade)
    g = np.where(ok, grade, 0.0).astype(np.int64)
    digit = ok & (g >= 0) & (g <= 9)
    chars[digit] = np.array(list("0123456789"))[g[digit]]
    chars[ok & (g > 9)] = ">"
    chars[ok & (g < 0)] = "."
    tq = top.column("q").to_pylist()
    text = chars.tolist()
    got: dict[str, str] = {}
    a = 0
    for b in range(1, len(tq) + 1):
        if b == len(tq) or tq[b] != tq[a]:
            got[tq[a]] = "".join(text[a:b])
            a = b
    return [got.get(q, "") for q in queries]
