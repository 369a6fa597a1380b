"""trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``), one query at a time.

Judgments are preferences: lines ``(jg, jsg, rel_level, docno)``. Within a judgment
sub-group (JSG) every document is preferred to the documents of lower
``rel_level``; a judgment group (JG) joins its sub-groups (with the transitive
preferences they imply) and must be consistent. :func:`form_prefs_counts` counts,
per JG, the preferences fulfilled and possible among retrieved documents ("ret"),
with exactly one of the two retrieved ("imp") and with neither ("notoccur"), and
the pair counts summed over the JGs; the measures read those counts
(trec_eval's ``form_prefs_counts.c`` and ``m_prefs_*.c``).

>>> rp = form_prefs_counts(["a", "b"], [2.0, 1.0], [("0", "0", 1.0, "a"), ("0", "0", 0.0, "b")])
>>> rp.jgs[0].ful_ret, rp.jgs[0].poss_ret
(1, 1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..._errors import InputError

__all__ = ["PrefJG", "ResultsPrefs", "form_prefs_counts", "PREFS_MEASURES"]


@dataclass
class PrefJG:
    """Counts of one judgment group, and its preferences (equivalence classes or a matrix)."""

    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    ecs: list[tuple[float, list[int]]] = field(default_factory=list)  # (rel_level, docid ranks)
    pa: np.ndarray | None = None  # preference matrix over docid ranks
    rel_array: np.ndarray | None = None


@dataclass
class ResultsPrefs:
    jgs: list[PrefJG]
    num_judged: int
    num_judged_ret: int
    counts: np.ndarray  # pair counts over all JGs


def _key(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")  # ids that were not UTF-8: their bytes, as trec_eval compares


def form_prefs_counts(docnos: Sequence[str], sims: Sequence[float], prefs: Sequence[tuple[str, str, float, str]],
                      max_docs: int | None = None) -> ResultsPrefs:
    """Preferences of one query joined with its ranked results (trec_eval's form_prefs_counts)."""
    # results: by score descending, ties by docno ascending (this routine's own tie rule)
    order = sorted(range(len(docnos)), key=lambda i: (-sims[i], _key(docnos[i])))
    if max_docs is not None:
        order = order[: max(max_docs, 0)]
    ranked = [docnos[i] for i in order]
    if len(set(ranked)) != len(ranked):
        dup = next(d for d in ranked if ranked.count(d) > 1)
        raise InputError(f"item {dup!r} is listed twice for one query (trec_eval refuses duplicate docs)")
    judged = {p[3] for p in prefs}
    ret_judged = [d for d in ranked if d in judged]
    docid = {d: n for n, d in enumerate(ret_judged)}
    njr = len(ret_judged)
    for d in sorted(judged - set(ret_judged), key=_key):
        docid[d] = len(docid)
    nj = len(docid)
    lines = sorted(((jg, jsg, lvl, docid[d], d) for jg, jsg, lvl, d in prefs),
                   key=lambda t: (_key(t[0]), _key(t[1]), -t[2], t[3]))
    counts = np.zeros((nj, nj), dtype=np.int64)
    jgs: list[PrefJG] = []
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and lines[end][0] == lines[start][0]:
            end += 1
        group = lines[start:end]
        n_jsg = len({t[1] for t in group})
        jg = _form_pa(group, nj, njr, counts) if n_jsg > 1 else _form_ec(group, njr, counts)
        jgs.append(jg)
        start = end
    return ResultsPrefs(jgs, nj, njr, counts)


def _form_ec(group: Sequence[tuple[str, str, float, int, str]], njr: int, counts: np.ndarray) -> PrefJG:
    jg = PrefJG()
    for _, _, lvl, rank, _ in group:
        if not jg.ecs or jg.ecs[-1][0] != lvl:
            jg.ecs.append((lvl, []))
        jg.ecs[-1][1].append(rank)
    for e1, (lvl1, ranks1) in enumerate(jg.ecs):
        n_ret = sum(1 for r in ranks1 if r < njr)
        if lvl1 > 0.0:
            jg.num_rel_ret += n_ret
            jg.num_rel += len(ranks1)
        else:
            jg.num_nonrel_ret += n_ret
            jg.num_nonrel += len(ranks1)
        for _, ranks2 in jg.ecs[e1 + 1:]:
            for r1 in ranks1:
                for r2 in ranks2:
                    counts[r1, r2] += 1
                    if r1 == r2:
                        raise InputError(f"a document ({group[0][4]!r} group) has two rel_levels in one "
                                         f"judgment sub-group (trec_eval refuses it)")
                    if r1 < r2:
                        if r2 < njr:
                            jg.ful_ret += 1
                        elif r1 < njr:
                            jg.ful_imp += 1
                        else:
                            jg.notoccur += 1
                    else:
                        if r1 < njr:
                            jg.poss_ret += 1
                        elif r2 < njr:
                            jg.poss_imp += 1
                        else:
                            jg.notoccur += 1
    jg.poss_ret += jg.ful_ret
    jg.poss_imp += jg.ful_imp
    return jg


def _form_pa(group: Sequence[tuple[str, str, float, int, str]], nj: int, njr: int, counts: np.ndarray) -> PrefJG:
    jg = PrefJG()
    rel = np.full(nj, -1.0)
    a = np.zeros((nj, nj), dtype=bool)
    n = len(group)
    for i, (_, jsg, lvl, rank, docno) in enumerate(group):
        if (rel[rank] > 0.0 and lvl == 0.0) or (rel[rank] == 0.0 and lvl > 0.0):
            raise InputError(f"document {docno!r} has both 0 and non-0 rel_level in one judgment group")
        rel[rank] = lvl
        j = i + 1
        while j < n and group[j][1] == jsg and group[j][2] == lvl:
            j += 1
        while j < n and group[j][1] == jsg:
            a[rank, group[j][3]] = True
            j += 1
    # transitive preferences: the closure of (a | identity)
    m = a | np.eye(nj, dtype=bool)
    while True:
        nxt = (m.astype(np.int64) @ m.astype(np.int64)) > 0
        if (nxt == m).all():
            break
        m = nxt
    np.fill_diagonal(m, False)
    if (m & m.T).any():
        i, j = np.argwhere(m & m.T)[0]
        raise InputError(f"inconsistent preferences in one judgment group (internal ranks {i} and {j})")
    jg.pa, jg.rel_array = m, rel
    jg.num_rel_ret = int(np.count_nonzero(rel[:njr] > 0.0))
    jg.num_nonrel_ret = int(np.count_nonzero(rel[:njr] == 0.0))
    jg.num_rel = jg.num_rel_ret + int(np.count_nonzero(rel[njr:] > 0.0))
    jg.num_nonrel = jg.num_nonrel_ret + int(np.count_nonzero(rel[njr:] == 0.0))
    counts += m
    upper = np.triu(np.ones((njr, njr), dtype=bool), 1)
    rr = m[:njr, :njr]
    jg.ful_ret = int(np.count_nonzero(rr & upper))
    jg.poss_ret = int(np.count_nonzero(rr & upper.T))
    jg.ful_imp = int(np.count_nonzero(m[:njr, njr:]))
    jg.poss_imp = int(np.count_nonzero(m[njr:, :njr]))
    jg.notoccur = int(np.count_nonzero(m[njr:, njr:]))
    jg.poss_ret += jg.ful_ret
    jg.poss_imp += jg.ful_imp
    return jg


def _div(a: float, b: float) -> float:
    if b == 0:
        return -math.nan if a == 0 else math.copysign(math.inf, a)  # 0/0: x86-64's -nan
    return a / b


def _ratio_sum(rp: ResultsPrefs, ful: Any, poss: Any) -> float:
    f = sum(ful(j) for j in rp.jgs)
    p = sum(poss(j) for j in rp.jgs)
    return f / p if p else 0.0


def _avg_jg(rp: ResultsPrefs, ful: Any, poss: Any) -> float:
    total = 0.0
    for j in rp.jgs:
        p = poss(j)
        if p:
            total += ful(j) / p
    return total / len(rp.jgs) if total > 0.0 else 0.0


def _pair(rp: ResultsPrefs, areas: str) -> float:
    c = rp.counts
    njr, nj = rp.num_judged_ret, rp.num_judged
    total, pairs = 0.0, 0

    def block(rows: range, cols_of: Any, add: bool) -> None:
        nonlocal total, pairs
        for i in rows:
            for j in cols_of(i):
                if c[i, j] or c[j, i]:
                    pairs += 1
                    if add:
                        total += float(c[i, j]) / float(c[i, j] + c[j, i])

    block(range(njr), lambda i: range(i + 1, njr), True)
    if areas in ("imp", "all"):
        block(range(njr), lambda i: range(njr, nj), True)
    if areas == "all":
        block(range(njr, nj), lambda i: range(i + 1, nj), False)
    return total / pairs if pairs else 0.0


def _full(j: PrefJG) -> int:
    return j.ful_ret + j.ful_imp


def _poss_all(j: PrefJG) -> int:
    return j.poss_ret + j.poss_imp + j.notoccur


def _recalc(jg: PrefJG, njr: int, retrieved_only: bool) -> tuple[int, int]:
    """Preference counts keeping only the first R non-relevant documents (trec_eval's recalculate)."""
    ful = poss = 0
    if jg.ecs:
        last = jg.ecs[-1][1]
        keep = jg.num_rel_ret if retrieved_only else jg.num_rel
        new_nonrel = last[:keep]

        def ranks(lst: list[int]) -> list[int]:
            if not retrieved_only:
                return lst
            out = []
            for r in lst:
                if r >= njr:
                    break
                out.append(r)
            return out

        for e1 in range(len(jg.ecs)):
            for e2 in range(e1 + 1, len(jg.ecs) - 1):
                for r1 in ranks(jg.ecs[e1][1]):
                    for r2 in ranks(jg.ecs[e2][1]):
                        if r1 < r2 and (retrieved_only or r1 < njr):
                            ful += 1
                        else:
                            poss += 1
        for e1 in range(len(jg.ecs)):
            for r1 in ranks(jg.ecs[e1][1]):
                for r2 in ranks(new_nonrel):
                    if r1 < r2 and (retrieved_only or r1 < njr):
                        ful += 1
                    else:
                        poss += 1
        return ful, poss + ful
    assert jg.pa is not None and jg.rel_array is not None
    a, rel = jg.pa, jg.rel_array
    nj = len(rel)
    limit = njr if retrieved_only else nj
    seen = 0
    first = limit
    for i in range(limit):
        if rel[i] == 0.0:
            seen += 1
            if seen == jg.num_rel + 1:
                first = i
                break
    kept = np.ones(nj, dtype=bool)
    kept[first:] = rel[first:] != 0.0
    m = a & kept[:, None] & kept[None, :]
    upper = np.triu(np.ones((njr, njr), dtype=bool), 1)
    ful += int(np.count_nonzero(m[:njr, :njr] & upper))
    poss += int(np.count_nonzero(m[:njr, :njr] & upper.T))
    if not retrieved_only:
        ful += int(np.count_nonzero(m[:njr, njr:]))
        poss += int(np.count_nonzero(m[njr:, :njr])) + int(np.count_nonzero(m[njr:, njr:]))
    return ful, poss + ful


def _avgjg_rnonrel(rp: ResultsPrefs, retrieved_only: bool) -> float:
    total = 0.0
    for j in rp.jgs:
        R, N = (j.num_rel_ret, j.num_nonrel_ret) if retrieved_only else (j.num_rel, j.num_nonrel)
        if R >= N:
            if retrieved_only:
                ful = j.ful_ret + j.num_rel_ret * (R - N)
                poss = j.poss_ret + j.num_rel * (R - N)
            else:
                ful = j.ful_ret + j.ful_imp + j.num_rel_ret * (R - N)
                poss = j.poss_ret + j.poss_imp + j.notoccur + j.num_rel * (R - N)
        else:
            ful, poss = _recalc(j, rp.num_judged_ret, retrieved_only)
        total += _div(float(ful), float(poss))
    return total / len(rp.jgs) if total > 0.0 else 0.0


#: name -> (kind, calculation over a ResultsPrefs), in trec_eval's order
PREFS_MEASURES: dict[str, tuple[str, Any]] = {
    "prefs_num_prefs_poss": ("long", lambda rp: sum(_poss_all(j) for j in rp.jgs)),
    "prefs_num_prefs_ful": ("long", lambda rp: sum(_full(j) for j in rp.jgs)),
    "prefs_num_prefs_ful_ret": ("long", lambda rp: sum(j.ful_ret for j in rp.jgs)),
    "prefs_simp": ("float", lambda rp: _ratio_sum(rp, _full, _poss_all)),
    "prefs_pair": ("float", lambda rp: _pair(rp, "all")),
    "prefs_avgjg": ("float", lambda rp: _avg_jg(rp, _full, _poss_all)),
    "prefs_avgjg_Rnonrel": ("float", lambda rp: _avgjg_rnonrel(rp, False)),
    "prefs_simp_ret": ("float", lambda rp: _ratio_sum(rp, lambda j: j.ful_ret, lambda j: j.poss_ret)),
    "prefs_pair_ret": ("float", lambda rp: _pair(rp, "ret")),
    "prefs_avgjg_ret": ("float", lambda rp: _avg_jg(rp, lambda j: j.ful_ret, lambda j: j.poss_ret)),
    "prefs_avgjg_Rnonrel_ret": ("float", lambda rp: _avgjg_rnonrel(rp, True)),
    "prefs_simp_imp": ("float", lambda rp: _ratio_sum(rp, _full, lambda j: j.poss_ret + j.poss_imp)),
    "prefs_pair_imp": ("float", lambda rp: _pair(rp, "imp")),
    "prefs_avgjg_imp": ("float", lambda rp: _avg_jg(rp, _full, lambda j: j.poss_ret + j.poss_imp)),
}
