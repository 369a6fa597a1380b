"""Invariance harness of the beyond-accuracy metrics (family ``beyond``, tag ``needs_context``).

``make_context(qrels, run)`` builds a context for dict inputs: every item's facts
(popularity, features, categories) are a function of the item id alone (a CRC32 of
it), so a context built for a subset of the data agrees with one built for the whole.
``check_spec(spec)`` checks one metric on random data, for every parameter case:

* query-level metrics: the kernel equals the spec's slow ``reference`` on every query;
  a query's value does not depend on the other queries of the batch;
* corpus-level metrics: the value equals a slow reference over all lists written here
  (``CORPUS_REFERENCES``), and the state of a batch split in two, merged (by item id,
  the two halves having different item vocabularies), finalises to the same value;
* both: invariance to query order and to a renaming of the items (context renamed
  alike), inputs and context not mutated, values within the declared bounds,
  judgment-free metrics ignore the grades, and a missing context key is a
  ParameterError naming the key and ``context_from_train``.
"""

from __future__ import annotations

import copy
import itertools
import math
import zlib
from typing import Any, Callable, Mapping, Sequence

import numpy as np

import rankmeter
from rankmeter._errors import ParameterError
from rankmeter.evaluate import align, compute
from rankmeter.metrics.registry import MetricSpec, parse_metric

from ..strategies import ITEMS, ranked_items
from .harness_ranking import close, judged_queries, metric_text, param_cases, reference_values

N_CASES = 25
EXTRA_CATALOG = ["zz_never_recommended", "zz_other"]
LABELS = ["x", "y", "z", "w"]


def _h(item: str, salt: str) -> int:
    return zlib.crc32(f"{salt}:{item}".encode())


def make_context(qrels: Mapping[str, Mapping[str, float]], run: Mapping[str, Any]) -> dict[str, Any]:
    """A context covering every item of ``qrels``, ``run`` and the strategies' item pool.

    Popularity: the item is seen by 1..10 of 10 training users; interaction share from
    1..7 interactions out of 40; features: 3-d vectors with small integer entries (some
    zero vectors); categories: subsets of 4 labels (some empty).
    """
    items = set(ITEMS)
    for j in qrels.values():
        items |= set(j)
    for r in run.values():
        items |= set(r)
    items = sorted(items)
    n_users = 10
    ctx: dict[str, Any] = {
        "popularity": {i: (1 + _h(i, "pop") % n_users) / n_users for i in items},
        "popularity_interactions": {i: (1 + _h(i, "int") % 7) / 40 for i in items},
        "n_users": n_users,
        "n_interactions": 40,
        "features": {i: [float(_h(i, f"f{d}") % 3 - 1) for d in range(3)] for i in items},
        "categories": {i: frozenset(lab for b, lab in enumerate(LABELS) if (_h(i, "cat") >> b) & 1) for i in items},
        "catalog": items + EXTRA_CATALOG,
        "all_items": items + EXTRA_CATALOG + ["zz_test_only"],
        # observation propensities of the unbiased family (propensity=given): 0.1 .. 1.0
        "propensity": {i: (1 + _h(i, "prop") % 10) / 10 for i in items},
        "item_groups": {i: LABELS[_h(i, "grp") % len(LABELS)] for i in items},
    }
    # each user's training items (a quarter of the users have none: left out, nan) and relevant test items
    users = sorted(set(qrels) | set(run))
    ctx["train_items"] = {u: [i for i in items if _h(u + i, "train") % 3 == 0] for u in users if _h(u, "u") % 4}
    ctx["test_items"] = {u: [i for i, g in j.items() if g >= 1] for u, j in qrels.items()}
    return ctx


# ----------------------------------------------------------------------------- slow corpus references

def _lists(qrels: Mapping[str, Mapping[str, float]], run: Mapping[str, Any], k: int | None) -> list[list[str]]:
    out = []
    for q in judged_queries(qrels):
        r = run.get(q, {})
        items = ranked_items(r) if isinstance(r, Mapping) else list(r)
        out.append(items if k is None else items[:k])
    return out


def _catalog_coverage(lists, qrels, k, ctx, denominator):
    cat = set(ctx["catalog" if denominator == "catalog" else "all_items"])
    seen = {i for lst in lists for i in lst}
    return len(seen & cat) / len(cat)


def _user_coverage(lists, qrels, k, ctx, of, rel):
    qs = judged_queries(qrels)
    if not lists:
        return math.nan
    if of == "any":
        return sum(1 for lst in lists if lst) / len(lists)
    hits = 0
    for q, lst in zip(qs, lists):
        if any(qrels[q].get(i, -1) >= rel and qrels[q].get(i, -1) >= 0 for i in lst):
            hits += 1
    return hits / len(lists)


def _personalization(lists, qrels, k, ctx, norm):
    nonempty = [set(lst) for lst in lists if lst]
    if len(nonempty) < 2:
        return math.nan
    kk = k if k is not None else max(len(lst) for lst in nonempty)
    sims = []
    for a, b in itertools.permutations(nonempty, 2):
        inter = len(a & b)
        sims.append(inter / kk if norm == "k" else inter / math.sqrt(len(a) * len(b)))
    return 1 - sum(sims) / len(sims)


def _exposure(lists, ctx, items):
    counts: dict[str, int] = {}
    for lst in lists:
        for i in lst:
            counts[i] = counts.get(i, 0) + 1
    if items == "catalog":
        for i in ctx["catalog"]:
            counts.setdefault(i, 0)
    return list(counts.values())


def _gini(lists, qrels, k, ctx, items, norm):
    c = _exposure(lists, ctx, items)
    n, total = len(c), sum(c)
    if n == 0 or total == 0:
        return math.nan
    # mean absolute difference form (independent of the sorted-weights form of the kernel)
    g = sum(abs(a - b) for a in c for b in c) / (2 * n * total)
    return g * n / (n - 1) if norm == "n-1" and n > 1 else (0.0 if norm == "n-1" else g)


def _entropy(lists, qrels, k, ctx, base, normalize):
    c = [x for x in _exposure(lists, ctx, "recommended") if x > 0]
    total = sum(c)
    if total == 0:
        return math.nan
    h = -sum(x / total * math.log(x / total, base) for x in c)
    if normalize == "distinct_count":  # RecBole: over the number of distinct recommended items
        return h / len(c)
    if normalize != "none":
        n = len(_exposure(lists, ctx, normalize))
        return h / math.log(n, base) if n > 1 else 0.0
    return h


def _head_tail(ctx, head_share):
    """Elliot's short head, written out: user counts descending, ties by id ascending, until head_share."""
    counts = {i: round(p * ctx["n_users"]) for i, p in ctx["popularity"].items() if p > 0}
    order = sorted(counts, key=lambda i: (-counts[i], i.encode()))
    head, reached, total = set(), 0, sum(counts.values())
    for i in order:
        if reached >= head_share * total:
            break
        head.add(i)
        reached += counts[i]
    return head, set(counts) - head


def _items_of(ctx, key, user):
    return set(ctx.get(key, {}).get(user, []))


def _spread(a, b):
    if math.isnan(a) or math.isnan(b) or a + b == 0:
        return math.nan
    return abs(a - b) / (a + b)  # population std over mean of two values


def _pop_rsp(lists, qrels, k, ctx, head_share):
    head, tail = _head_tail(ctx, head_share)
    rh = rt = dh = dt = 0
    for u, lst in zip(judged_queries(qrels), lists):
        seen = _items_of(ctx, "train_items", u)
        rh += sum(i in head for i in lst)
        rt += sum(i in tail for i in lst)
        dh += len(head - seen)
        dt += len(tail - seen)
    return _spread(rh / dh if dh else math.nan, rt / dt if dt else math.nan)


def _pop_reo(lists, qrels, k, ctx, head_share):
    head, tail = _head_tail(ctx, head_share)
    hh = ht = nh = nt = 0
    for u, lst in zip(judged_queries(qrels), lists):
        rel = _items_of(ctx, "test_items", u)
        hh += sum(i in head and i in rel for i in lst)
        ht += sum(i in tail and i in rel for i in lst)
        nh += len(head & rel)
        nt += len(tail & rel)
    return _spread(hh / nh if nh else math.nan, ht / nt if nt else math.nan)


def _group_exposure(lists, ctx, groups, weight, p, head_share):
    if groups == "popularity":
        head, tail = _head_tail(ctx, head_share)
        names = ["head", "tail"]
        label = {**{i: "head" for i in head}, **{i: "tail" for i in tail}}
    else:
        label = dict(ctx["item_groups"])
        names = sorted(set(label.values()))
    exp = {n: 0.0 for n in names}
    for lst in lists:
        for r, i in enumerate(lst, start=1):
            if i in label:
                exp[label[i]] += 1 / math.log2(r + 1) if weight == "log" else p ** (r - 1)
    total = sum(exp.values())
    return names, label, {n: (v / total if total > 0 else math.nan) for n, v in exp.items()}


def _exposure_share(lists, qrels, k, ctx, groups, group, weight, p, head_share):
    _, _, share = _group_exposure(lists, ctx, groups, weight, p, head_share)
    return share[group]


def _exposure_gap(lists, qrels, k, ctx, groups, target, weight, p, head_share):
    names, label, share = _group_exposure(lists, ctx, groups, weight, p, head_share)
    if target == "equal":
        want = {n: 1 / len(names) for n in names}
    else:
        rel = {n: 0 for n in names}
        for u in judged_queries(qrels):
            for i in _items_of(ctx, "test_items", u):
                if i in label:
                    rel[label[i]] += 1
        total = sum(rel.values())
        want = {n: (v / total if total else math.nan) for n, v in rel.items()}
    gaps = [abs(share[n] - want[n]) for n in names]
    return math.nan if not gaps or any(math.isnan(g) for g in gaps) else max(gaps)


def _snips_corpus(measure: str) -> Callable[..., float]:
    """The unbiased family's corpus-normalised SNIPS: its slow reference over the judged users' lists."""
    from rankmeter.metrics.unbiased.snips import corpus_reference

    def ref(lists, qrels, k, ctx, **params):
        qs = judged_queries(qrels)
        return corpus_reference(measure, dict(zip(qs, lists)), {q: qrels[q] for q in qs}, k, context=ctx, **params)
    return ref


CORPUS_REFERENCES: dict[str, Callable[..., float]] = {
    **{f"snips_{m}_corpus": _snips_corpus(m) for m in ("recall", "precision", "ndcg", "rbp")},
    "pop_rsp": _pop_rsp,
    "pop_reo": _pop_reo,
    "exposure_share": _exposure_share,
    "exposure_gap": _exposure_gap,
    "catalog_coverage": _catalog_coverage,
    "user_coverage": _user_coverage,
    "personalization": _personalization,
    "gini": _gini,
    "entropy": _entropy,
}


# ----------------------------------------------------------------------------- random data

def random_case(rng: np.random.Generator) -> tuple[dict, dict]:
    """({q: {item: grade}}, {q: {item: score}}), with ties, negative grades, missing queries."""
    queries = [f"q{i}" for i in range(int(rng.integers(1, 7)))]
    qrels: dict[str, dict[str, float]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in queries:
        side = rng.choice(["both", "both", "both", "qrels", "run"])
        if side in ("both", "qrels"):
            n = int(rng.integers(1, 7))
            qrels[q] = {str(i): float(rng.choice([-1, 0, 1, 1, 2])) for i in rng.choice(ITEMS, n, replace=False)}
        if side in ("both", "run"):
            n = int(rng.integers(0, 11))
            if n:
                run[q] = {str(i): float(rng.choice([0.0, 0.5, 1.0, 2.0, 3.5]))
                          for i in rng.choice(ITEMS, n, replace=False)}
    if not any(g > 0 for j in qrels.values() for g in j.values()):
        qrels[queries[0]] = {ITEMS[0]: 1.0}
    return qrels, run


def _cases(spec: MetricSpec) -> list[dict[str, Any]]:
    out = param_cases(spec)
    if spec.name == "serendipity":
        out.append({"pm": 1})
    if spec.name == "exposure_share":  # a label of item_groups, not the default "tail"
        out = [c if c.get("groups") != "item_groups" else {"groups": "item_groups", "group": "y"} for c in out]
    return out


# the short head breaks popularity ties by item id ascending: renamed ids keep their byte order for these
HEAD_TAIL = {"aplt", "aclt", "pop_rsp", "pop_reo", "exposure_share", "exposure_gap"}


def _value(text: str, qrels: Any, run: Any, ctx: Any) -> tuple[list[str], np.ndarray | float]:
    res = rankmeter.evaluate(qrels, run, [text], context=ctx)
    m = parse_metric(text)
    if m.spec.level == "corpus":
        return list(res.queries), res.corpus[text]
    return list(res.queries), res.values[text]


def _same(a: Any, b: Any) -> bool:
    a_arr, b_arr = np.atleast_1d(np.asarray(a, dtype=float)), np.atleast_1d(np.asarray(b, dtype=float))
    return a_arr.shape == b_arr.shape and all(close(float(x), float(y), 1e-9) for x, y in zip(a_arr, b_arr))


def _rename(qrels: dict, run: dict, ctx: dict, f: Callable[[str], str]) -> tuple[dict, dict, dict]:
    q2 = {q: {f(i): g for i, g in j.items()} for q, j in qrels.items()}
    r2 = {q: {f(i): s for i, s in r.items()} for q, r in run.items()}
    c2: dict[str, Any] = {}
    for key, v in ctx.items():
        if key in ("train_items", "test_items"):  # user -> items: the users keep their ids
            c2[key] = {u: [f(i) for i in its] for u, its in v.items()}
        elif isinstance(v, Mapping):
            c2[key] = {f(i): x for i, x in v.items()}
        elif isinstance(v, list):
            c2[key] = [f(i) for i in v]
        else:
            c2[key] = v
    return q2, r2, c2


def _split_merge(spec: MetricSpec, text: str, qrels: dict, run: dict, ctx: dict) -> float | None:
    """Corpus value from two batches (different item vocabularies), merged by item id."""
    qs = judged_queries(qrels)
    if len(qs) < 2:
        return None
    halves = [qs[: len(qs) // 2], qs[len(qs) // 2:]]
    m = parse_metric(text)
    state = None
    for part in halves:
        sub_q = rankmeter.io.as_qrels({q: qrels[q] for q in part})
        sub_r = rankmeter.io.as_run({q: run[q] for q in part if q in run} or {"__none__": {"zz_none": 0.0}})
        batch, _, _ = align(sub_q, sub_r, "judged", ctx)
        _, states = compute(batch, [m])
        state = states[text] if state is None else spec.merge(state, states[text])
    full_ctx = dict(ctx)
    return float(spec.finalize(state, context=full_ctx, **m.params))


def _check_missing_context(spec: MetricSpec, text: str, params: Mapping[str, Any], qrels: dict, run: dict) -> None:
    """Without a context: a clear ParameterError (naming the key and the helper), or a value when the
    metric (with these parameters) needs none; a ``needs_context`` metric with default parameters must need one."""
    try:
        rankmeter.evaluate(qrels, run, [text])
    except ParameterError as exc:
        msg = str(exc)
        if spec.family == "beyond":
            assert "context[" in msg and "context_from_train" in msg, f"{text}: unclear missing-context error: {msg}"
        else:  # other families tagged needs_context (decision's tn) name their own context keys
            assert "context" in msg, f"{text}: unclear missing-context error: {msg}"
        return
    assert not ("needs_context" in spec.properties and not params), \
        f"{text}: tagged needs_context but evaluates without a context"


def check_spec(spec: MetricSpec, n_cases: int = N_CASES, seed: int = 0) -> None:
    """Run every check on ``n_cases`` random cases per parameter setting; AssertionError on failure."""
    assert spec.family == "beyond" or "needs_context" in spec.properties
    if spec.level == "corpus":
        assert spec.name in CORPUS_REFERENCES, f"{spec.name}: no slow corpus reference in harness_beyond"
    rng = np.random.default_rng([seed, zlib.crc32(spec.name.encode())])
    lo, hi = spec.bounds if spec.bounds is not None else (-math.inf, math.inf)
    for params in _cases(spec):
        for _ in range(n_cases):
            qrels, run = random_case(rng)
            ctx = make_context(qrels, run)
            k = [None, 1, 3, 5][int(rng.integers(0, 4))]
            text = metric_text(spec, params, k)
            before = (copy.deepcopy(qrels), copy.deepcopy(run), copy.deepcopy(ctx))
            qs, got = _value(text, qrels, run, ctx)
            assert (qrels, run, ctx) == before, f"{text}: an input or the context was modified"
            full = {p.name: p.default for p in spec.params}
            full.update(params)
            if spec.level == "query":
                want = reference_values(spec, params, k, qrels, run, context=ctx)
                assert qs == list(want), f"{text}: queries {qs} != {list(want)}"
                for q, v in zip(qs, got):
                    assert close(float(v), want[q], 1e-9), f"{text} {q}: kernel {v} != reference {want[q]}"
                    assert math.isnan(v) or lo - 1e-12 <= v <= hi + 1e-12, f"{text} {q}: {v} outside {spec.bounds}"
                # a query's value does not depend on the other queries of the batch
                if len(qs) > 1:
                    one = qs[int(rng.integers(0, len(qs)))]
                    _, alone = _value(text, {one: qrels[one]}, {one: run[one]} if one in run else {}, ctx)
                    assert close(float(alone[0]), float(got[qs.index(one)]), 1e-9), f"{text}: {one} depends on batch"
            else:
                ref = CORPUS_REFERENCES[spec.name]
                want = ref(_lists(qrels, run, k), qrels, k, ctx, **full)
                assert close(float(got), float(want), 1e-9), f"{text}: kernel {got} != reference {want}"
                assert math.isnan(got) or lo - 1e-12 <= got <= hi + 1e-12, f"{text}: {got} outside {spec.bounds}"
                merged = _split_merge(spec, text, qrels, run, ctx)
                if merged is not None:
                    assert close(merged, float(got), 1e-9), f"{text}: merged state {merged} != whole {got}"
            # query order
            rq = dict(reversed(list(qrels.items())))
            rr = dict(reversed(list(run.items())))
            qs2, got2 = _value(text, rq, rr, ctx)
            if spec.level == "query":
                got2 = np.asarray(got2)[[qs2.index(q) for q in qs]]
            assert _same(got, got2), f"{text}: depends on query order"
            # item renaming (order-reversing, so ties and the vocabulary order change), context renamed alike
            if spec.name in HEAD_TAIL:
                q3, r3, c3 = _rename(qrels, run, ctx, lambda i: "r~" + i)
            else:
                q3, r3, c3 = _rename(qrels, run, ctx, lambda i: "r" + "".join(chr(255 - ord(ch)) for ch in i))
            if spec.name not in ("serendipity",):  # serendipity's primitive list breaks popularity ties by id
                _, got3 = _value(text, q3, r3, c3)
                if "score_ties_matter" not in spec.properties and _no_ties(run):
                    assert _same(got, got3), f"{text}: depends on item ids"
            # judgment-free metrics ignore the grades (same judged queries)
            if "judgment_free" in spec.properties:
                q4 = {q: {i: (1.0 if g > 0 else g) for i, g in j.items()} for q, j in qrels.items()}
                _, got4 = _value(text, q4, run, ctx)
                assert _same(got, got4), f"{text}: depends on the grades"
            _check_missing_context(spec, text, params, qrels, run)


def _no_ties(run: Mapping[str, Mapping[str, float]]) -> bool:
    return all(len(set(r.values())) == len(r) for r in run.values())


def reference_of(spec: MetricSpec) -> Callable[..., float] | None:
    """The slow reference of a spec: its own (query level) or this harness's (corpus level)."""
    return spec.reference if spec.level == "query" else CORPUS_REFERENCES.get(spec.name)


__all__: Sequence[str] = ["make_context", "check_spec", "CORPUS_REFERENCES", "random_case", "reference_of"]
