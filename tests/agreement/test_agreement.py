"""RBO, tau_AP and Kendall's tau between rankings, against plain-Python references written from the papers."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from rankmeter import InputError, ParameterError
from rankmeter.metrics import kendall_tau_rankings, rbo, tau_ap, tie_groups

# ------------------------------------------------------------------ references (plain Python, from the papers)


def overlap(S, L, d, s):
    """X_d: items in both prefixes; beyond s, all of S (Webber et al., section 4.2)."""
    return len(set(S[: min(d, s)]) & set(L[:d]))


def rbo_ext_eq32(a, b, p):
    """Webber, Moffat, Zobel (TOIS 2010) eq. 32, term by term."""
    S, L = (a, b) if len(a) <= len(b) else (b, a)
    s, l = len(S), len(L)
    X = {d: overlap(S, L, d, s) for d in range(1, l + 1)}
    first = 0.0
    for d in range(1, l + 1):
        first += X[d] / d * p**d
    second = 0.0
    for d in range(s + 1, l + 1):
        second += X[s] * (d - s) / (s * d) * p**d
    return (1 - p) / p * (first + second) + ((X[l] - X[s]) / l + X[s] / s) * p**l


def rbo_min_ref(a, b, p, horizon=900):
    """The lower bound as an explicit (truncated) infinite sum: nothing more overlaps beyond what was seen."""
    S, L = (a, b) if len(a) <= len(b) else (b, a)
    s, l = len(S), len(L)
    total = 0.0
    for d in range(1, horizon):
        X = overlap(S, L, min(d, l), s)
        total += X / d * p**d
    return (1 - p) / p * total


def rbo_max_ref(a, b, p, horizon=900):
    """The upper bound as an explicit best continuation: S takes L's own items in L's order, L takes S's,
    then both continue with the same new items."""
    S, L = (list(a), list(b)) if len(a) <= len(b) else (list(b), list(a))
    only_l = [x for x in L if x not in S]
    only_s = [x for x in S if x not in L]
    S2 = S + only_l
    L2 = L + only_s
    fresh = [f"new{i}" for i in range(horizon)]
    S2 += fresh
    L2 += fresh
    total = 0.0
    for d in range(1, horizon):
        total += len(set(S2[:d]) & set(L2[:d])) / d * p**d
    return (1 - p) / p * total


def tau_ap_ref(ref, other):
    """Yilmaz, Aslam, Robertson (SIGIR 2008), eq. for tau_AP, with C(i) counted pair by pair."""
    n = len(other)
    total = 0.0
    for i in range(1, n):  # 0-based position i = rank i + 1
        c = sum(1 for j in range(i) if ref.index(other[j]) < ref.index(other[i]))
        total += c / i
    return 2 / (n - 1) * total - 1


def untied_orders(ranking):
    """Every way to break the ties of a ranking given with tie groups (tuples)."""
    parts = [list(itertools.permutations(g)) if isinstance(g, tuple) else [(g,)] for g in ranking]
    for combo in itertools.product(*parts):
        yield [x for part in combo for x in part]


def contributions(ranking, variant):
    """{item: function depth -> contribution} from the definitions of Corsi & Urbano."""
    out = {}
    pos = 0
    for g in ranking:
        members = list(g) if isinstance(g, tuple) else [g]
        n = len(members)
        for x in members:
            if variant == "w":
                out[x] = (lambda t: (lambda d: 1.0 if d > t else 0.0))(pos)
            else:
                out[x] = (lambda t, n: (lambda d: min(1.0, max(0.0, (d - t) / n))))(pos, n)
        pos += n
    return out


def rbo_min_ties_ref(a, b, p, variant, horizon=500):
    """Lower bound with ties, from the definitions (no extrapolation): the shorter ranking counts d items
    beyond its end (w, b) and every item agrees as seen."""
    size = lambda r: sum(len(g) if isinstance(g, tuple) else 1 for g in r)  # noqa: E731
    S, L = (a, b) if size(a) <= size(b) else (b, a)
    s, l = size(S), size(L)
    cS, cL = contributions(S, variant), contributions(L, variant)
    total = 0.0
    for d in range(1, horizon):
        dd = min(d, l)
        X = sum(cS[x](dd) * cL[x](dd) for x in cS if x in cL)
        if variant == "a":
            A = X / d
        elif variant == "w":
            nS = sum(f(d) for f in cS.values()) if d <= s else d
            nL = sum(f(dd) for f in cL.values()) if d <= l else d
            A = 2 * X / (nS + nL)
        else:
            qS = sum(f(d) ** 2 for f in cS.values()) if d <= s else d
            qL = sum(f(dd) ** 2 for f in cL.values()) if d <= l else d
            A = X / math.sqrt(qS) / math.sqrt(qL)
        total += A * p**d
    return (1 - p) / p * total


# ------------------------------------------------------------------ the done-when case


def test_rbo_permutations_of_30_items_equal_eq32_by_hand():
    rng = random.Random(7)
    items = [f"d{i}" for i in range(30)]
    for _ in range(20):
        a = items[:]
        b = items[:]
        rng.shuffle(a)
        rng.shuffle(b)
        got = rbo(a, b, p=0.9)
        assert abs(got.ext - rbo_ext_eq32(a, b, 0.9)) <= 1e-12
        assert got.min <= got.ext <= got.max


def test_rbo_hand_worked():
    # A = 0, 1, 1, 1 at depths 1..4; ext = (1-p)/p (p^2 + p^3 + p^4) + p^4
    r = rbo(["a", "b", "c", "d"], ["b", "a", "c", "d"], p=0.9)
    assert r.ext == pytest.approx(0.1 / 0.9 * (0.81 + 0.729 + 0.6561) + 0.6561, abs=1e-15)
    assert float(r) == r.ext and r.res == r.max - r.min
    same = rbo(list("abcde"), list("abcde"), p=0.8)
    assert same.ext == pytest.approx(1.0, abs=1e-15) and same.max == pytest.approx(1.0, abs=1e-12)
    disjoint = rbo(list("abc"), list("xyz"), p=0.8)
    assert disjoint.ext == 0.0 and disjoint.min == 0.0 and disjoint.max > 0


def test_rbo_is_symmetric_for_untied_lists():
    a, b = list("abcdefg"), list("gbaxcy")
    assert rbo(a, b).ext == pytest.approx(rbo(b, a).ext, abs=1e-15)


# ------------------------------------------------------------------ property tests: unequal lengths


lists = st.lists(st.sampled_from([f"i{k}" for k in range(14)]), min_size=1, max_size=12, unique=True)


@settings(max_examples=150, deadline=None)
@given(a=lists, b=lists, p=st.sampled_from([0.5, 0.8, 0.9, 0.95]))
def test_rbo_uneven_against_references(a, b, p):
    r = rbo(a, b, p=p)
    assert abs(r.ext - rbo_ext_eq32(a, b, p)) <= 1e-12
    assert abs(r.min - rbo_min_ref(a, b, p)) <= 1e-9
    assert abs(r.max - rbo_max_ref(a, b, p)) <= 1e-9
    assert r.min - 1e-12 <= r.ext <= r.max + 1e-12
    assert 0 <= r.min and r.max <= 1 + 1e-12


# ------------------------------------------------------------------ property tests: ties


@st.composite
def tied_ranking(draw, pool, max_items=7):
    items = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=max_items, unique=True))
    out, i = [], 0
    while i < len(items):
        n = draw(st.integers(1, 3))
        group = items[i: i + n]
        out.append(group[0] if len(group) == 1 else tuple(group))
        i += n
    return out


POOL = [f"t{k}" for k in range(9)]


@settings(max_examples=80, deadline=None)
@given(a=tied_ranking(POOL), b=tied_ranking(POOL), p=st.sampled_from([0.6, 0.9]))
def test_rbo_a_is_the_mean_over_tie_orders(a, b, p):
    """Corsi & Urbano's 'a' variant: the lower bound is the expected value over random tie orders (any
    lengths); so is the extrapolated value when the rankings have the same number of items."""
    orders_a, orders_b = list(untied_orders(a)), list(untied_orders(b))
    mins = [rbo(x, y, p=p).min for x in orders_a for y in orders_b]
    exts = [rbo(x, y, p=p).ext for x in orders_a for y in orders_b]
    r = rbo(a, b, p=p, ties="a")
    assert r.min == pytest.approx(np.mean(mins), abs=1e-12)
    if len(orders_a[0]) == len(orders_b[0]):
        assert r.ext == pytest.approx(np.mean(exts), abs=1e-12)
    assert r.min - 1e-12 <= r.ext <= r.max + 1e-12


@settings(max_examples=80, deadline=None)
@given(a=tied_ranking(POOL), b=tied_ranking(POOL), p=st.sampled_from([0.6, 0.9]),
       variant=st.sampled_from(["a", "b", "w"]))
def test_rbo_ties_min_against_definitions(a, b, p, variant):
    has_ties = any(isinstance(g, tuple) for g in a + b)
    r = rbo(a, b, p=p, ties=variant)
    if not has_ties:
        assert r.ties is None
    want = rbo_min_ties_ref(a, b, p, variant if has_ties else "w")
    assert r.min == pytest.approx(want, abs=1e-9)
    assert r.min - 1e-12 <= r.ext <= r.max + 1e-12 and 0 <= r.min and r.max <= 1 + 1e-9


def agreements_from_definitions(a, b, variant, depth):
    cS, cL = contributions(a, variant), contributions(b, variant)
    out = []
    for d in range(1, depth + 1):
        X = sum(cS[x](d) * cL[x](d) for x in cS if x in cL)
        if variant == "a":
            out.append(X / d)
        elif variant == "w":
            out.append(2 * X / (sum(f(d) for f in cS.values()) + sum(f(d) for f in cL.values())))
        else:
            out.append(X / math.sqrt(sum(f(d) ** 2 for f in cS.values()))
                       / math.sqrt(sum(f(d) ** 2 for f in cL.values())))
    return out


@settings(max_examples=60, deadline=None)
@given(a=tied_ranking(POOL), seed=st.integers(0, 10**6), p=st.sampled_from([0.6, 0.9]),
       variant=st.sampled_from(["a", "b", "w"]))
def test_rbo_ties_ext_equal_lengths_against_definitions(a, seed, p, variant):
    """Lists of the same length: RBO_ext = (1-p)/p sum_{d<=l} A_d p^d + A_l p^l with each variant's A_d."""
    items = [x for g in a for x in (g if isinstance(g, tuple) else (g,))]
    rng = random.Random(seed)
    others = [x for x in POOL + ["u1", "u2", "u3"] if x not in items]
    pool = items[: rng.randint(0, len(items))] + others
    rng.shuffle(pool)
    b_items = pool[: len(items)]
    assume(len(b_items) == len(items))  # the pool can run short: this test is about lists of equal length
    b, i = [], 0
    while i < len(b_items):
        n = rng.randint(1, 3)
        g = b_items[i: i + n]
        b.append(g[0] if len(g) == 1 else tuple(g))
        i += n
    l = len(items)
    has_ties = any(isinstance(g, tuple) for g in a + b)
    A = agreements_from_definitions(a, b, variant if has_ties else "w", l)
    want = (1 - p) / p * sum(A[d - 1] * p**d for d in range(1, l + 1)) + A[-1] * p**l
    assert rbo(a, b, p=p, ties=variant).ext == pytest.approx(want, abs=1e-12)


def test_rbo_ties_hand_worked():
    # a: depth 2 sees half of b and half of c: X = 1.5, A = 0.75
    r = rbo(["a", ("b", "c")], ["a", "c", "b"], p=0.9, ties="a")
    assert r.ext == pytest.approx(0.1 / 0.9 * (0.9 + 0.81 * 0.75 + 0.729) + 0.729, abs=1e-15)
    # w: the tie is seen whole at depth 2: X_2 = 2 (b, c... c only in L top-2), |S_2| = 3, |L_2| = 2
    w = rbo(["a", ("b", "c")], ["a", "c", "b"], p=0.9, ties="w")
    assert w.min == pytest.approx(rbo_min_ties_ref(["a", ("b", "c")], ["a", "c", "b"], 0.9, "w"), abs=1e-9)
    assert w.ext != r.ext


def test_tie_groups_and_set_input():
    assert tie_groups(["x", "y", "z"], [1, 1, 0]) == [("x", "y"), "z"]
    assert rbo(["a", {"b", "c"}], ["a", "b", "c"], ties="a").ext == \
        rbo(["a", ("c", "b")], ["a", "b", "c"], ties="a").ext


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize("p", [0, 1, -0.1, 1.5, float("nan"), "0.9"])
def test_rbo_refuses_bad_p(p):
    with pytest.raises(ParameterError, match="'p' parameter of rbo"):
        rbo(["a"], ["a"], p=p)


def test_rbo_input_errors():
    with pytest.raises(InputError, match="appears twice in a"):
        rbo(["a", "b", "a"], ["a"])
    with pytest.raises(InputError, match="ranking b is empty"):
        rbo(["a"], [])
    with pytest.raises(InputError, match="not str"):
        rbo("abc", ["a"])
    with pytest.raises(ParameterError, match="'ties' parameter of rbo must be one of a, b, w when"):
        rbo(["a", ("b", "c")], ["a"])
    with pytest.raises(ParameterError, match="'ties' parameter of rbo must be one of a, b, w. Got 'x'"):
        rbo(["a"], ["a"], ties="x")
    with pytest.raises(InputError, match="empty tie group"):
        rbo(["a", ()], ["a"], ties="a")


# ------------------------------------------------------------------ tau_AP


@settings(max_examples=150, deadline=None)
@given(perm=st.permutations(list(range(12))), n=st.integers(2, 12))
def test_tau_ap_against_definition(perm, n):
    ref = [f"d{i}" for i in range(n)]
    other = [f"d{i}" for i in perm if i < n]
    assert tau_ap(ref, other) == pytest.approx(tau_ap_ref(ref, other), abs=1e-12)
    sym = tau_ap(ref, other, symmetric=True)
    assert sym == pytest.approx((tau_ap_ref(ref, other) + tau_ap_ref(other, ref)) / 2, abs=1e-12)


def test_tau_ap_hand_worked_and_bounds():
    assert tau_ap(list("abcd"), list("abcd")) == 1.0
    assert tau_ap(list("abcd"), list("dcba")) == -1.0
    # swap at the top: C = (0, 2, 3) -> 2/3 (0 + 1 + 1) - 1 = 1/3
    assert tau_ap(list("abcd"), list("bacd")) == pytest.approx(1 / 3, abs=1e-15)
    # tau_AP is not symmetric
    assert tau_ap(list("abcde"), list("bcaed")) != tau_ap(list("bcaed"), list("abcde"))


def test_tau_ap_errors():
    with pytest.raises(InputError, match="1 only in other"):
        tau_ap(["a", "b"], ["a", "b", "c"])
    with pytest.raises(InputError, match="tied items"):
        tau_ap(["a", ("b", "c")], ["a", "b", "c"])
    with pytest.raises(InputError, match="at least 2 items"):
        tau_ap(["a"], ["a"])
    with pytest.raises(ParameterError, match="'symmetric' parameter of tau_ap"):
        tau_ap(["a", "b"], ["a", "b"], symmetric="yes")


# ------------------------------------------------------------------ Kendall


@settings(max_examples=100, deadline=None)
@given(a=tied_ranking(POOL, max_items=9), seed=st.integers(0, 10**6))
def test_kendall_rankings_against_scipy(a, seed):
    items = [x for g in a for x in (g if isinstance(g, tuple) else (g,))]
    if len(items) < 2:
        return
    b = items[:]
    random.Random(seed).shuffle(b)
    rank_a = {x: i for i, g in enumerate(a) for x in (g if isinstance(g, tuple) else (g,))}
    want = stats.kendalltau([rank_a[x] for x in items], [b.index(x) for x in items]).statistic
    got = kendall_tau_rankings(a, b)
    assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want, abs=1e-12)


def test_kendall_rankings_errors():
    with pytest.raises(InputError, match="same items"):
        kendall_tau_rankings(["a", "b"], ["a", "c"])
