"""The registry's trec family through rankmeter.evaluate, against trec_eval 10.0's outputs (4 decimals)."""

from __future__ import annotations

import re

import pytest

import rankmeter

from ..conftest import shared_file

CASES = [("out.test.aq", "qrels.test", "results.test", "run", 1),
         ("out.test.aqc", "qrels.test", "results.trunc", "qrels", 1),
         ("out.test.aql", "qrels.rel_level", "results.test", "run", 2)]


def metric_for(name: str, level: int) -> str | None:
    L = f"rel={level}"
    fixed = {"infAP": f"infap({L})", "binG": f"bing({L})", "G": "g", "ndcg_rel": "ndcg_rel", "Rndcg": f"rndcg({L})",
             "11pt_avg": f"iprec_avg({L})", "set_relative_P": f"relative_p({L})", "set_map": f"set_map({L})",
             "utility": f"utility({L})", "rbp": "trec_rbp", "rbp_resid": "trec_rbp(residual=true)"}
    if name in fixed:
        return fixed[name]
    m = re.fullmatch(r"(iprec_at_recall|Rprec_mult|relative_P)_([\d.]+)", name)
    if m is None:
        return None
    base, x = m.groups()
    if base == "relative_P":
        return f"relative_p({L})@{x}"
    return f"iprec_at_recall({L},recall={x})" if base == "iprec_at_recall" else f"rprec_mult({L},mult={x})"


@pytest.mark.parametrize("golden,qrels,run,queries,level", CASES, ids=[c[0] for c in CASES])
def test_trec_family_equals_trec_eval(golden: str, qrels: str, run: str, queries: str, level: int) -> None:
    want: dict[tuple[str, str], float] = {}
    for line in shared_file("data", "trec_eval", golden).read_text().splitlines():
        name, q, v = (f.strip() for f in line.split("\t"))
        text = metric_for(name, level)
        if text is not None and q != "all":
            want[(text, q)] = float(v)
    texts = sorted({t for t, _ in want})
    assert len(texts) >= 30
    res = rankmeter.evaluate(shared_file("data", "trec_eval", qrels), shared_file("data", "trec_eval", run), texts,
                             queries=queries)
    row = {q: i for i, q in enumerate(res.queries)}
    for (text, q), v in want.items():
        got = float(res.values[text][row[q]])
        assert abs(got - v) <= 0.5e-4 + 1e-12, f"{text} query {q}: rankmeter {got} vs trec_eval {v}"
