"""SNIPS registry metrics and per-(user, item) propensities: the formulas read literally, errors, the CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter._errors import InputError, ParameterError
from rankmeter.metrics.unbiased.propensities import read_propensities
from rankmeter.metrics.unbiased.snips import snips

ITEMS = [f"i{n}" for n in range(10)]


@st.composite
def judged_runs(draw, per_pair: bool):
    """Users with graded judgments (some non-relevant, some negative), rankings, and propensities per item or
    per (user, item)."""
    qrels, run, prop = {}, {}, {}
    item_prop = {i: draw(st.floats(0.01, 1.0)) for i in ITEMS}
    for u in range(draw(st.integers(1, 5))):
        user = f"u{u}"
        judged = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=7, unique=True))
        grades = draw(st.lists(st.sampled_from([-1, 0, 1, 1, 2, 3]), min_size=len(judged), max_size=len(judged)))
        qrels[user] = dict(zip(judged, grades))
        run[user] = list(draw(st.permutations(ITEMS)))[: draw(st.integers(0, 10))]
        if per_pair:
            for i in ITEMS:
                prop[(user, i)] = draw(st.floats(0.01, 1.0))
    if not per_pair:
        prop = item_prop
    return qrels, run, prop


def _formulas(qrels, run, prop, user, k, clip, rel, p=0.8):
    """IPS and SNIPS recall, precision, nDCG and RBP of one user, read literally from the formulas."""
    def pr(i):
        return prop[(user, i)] if (user, i) in prop else prop[i]

    S = [i for i, g in qrels[user].items() if g >= rel and g >= 0]
    w = {i: 1 / max(pr(i), clip) for i in S}
    top = run.get(user, [])[:k]
    hits = [(r + 1, i) for r, i in enumerate(top) if i in w]
    H = sum(w[i] for _, i in hits)
    dcg = sum(w[i] / math.log2(r + 1) for r, i in hits)
    rbp = (1 - p) * sum(w[i] * p ** (r - 1) for r, i in hits)
    n = sum(w.values())
    s = n / len(S) if S else 0.0

    def idcg(m):  # fractional count: linear between whole counts
        m = min(m, k)
        whole = int(math.floor(m))
        return sum(1 / math.log2(j + 2) for j in range(whole)) + (m - whole) / math.log2(whole + 2)

    return {
        "ips_recall": H / len(S) if S else 0.0,
        "ips_precision": H / k,
        "ips_ndcg": dcg / idcg(len(S)) if S else 0.0,
        "ips_rbp": rbp,
        "snips_recall": H / n if S else 0.0,
        "snips_precision": H / k / s if S else 0.0,
        "snips_ndcg": dcg / idcg(n) if S else 0.0,
        "snips_rbp": rbp / s if S else 0.0,
        "_dcg": dcg, "_n": n, "_count": len(S), "_idcg": idcg,
    }


NAMES = ["ips_recall", "ips_precision", "ips_ndcg", "ips_rbp", "snips_recall", "snips_precision", "snips_ndcg",
         "snips_rbp"]


@settings(max_examples=60, deadline=None)
@given(st.booleans().flatmap(judged_runs), st.sampled_from([1, 3, 5]), st.sampled_from([0.0, 0.3]),
       st.sampled_from([1.0, 2.0]))
def test_ips_and_snips_equal_the_formula_per_user(data, k, clip, rel) -> None:
    """Every user's IPS and SNIPS values, per item or per (user, item) propensities, equal the formulas."""
    qrels, run, prop = data
    texts = {n: f"{n}(propensity=given,clip={clip},rel={rel})@{k}" for n in NAMES}
    res = rankmeter.evaluate(qrels, run, list(texts.values()), context={"propensity": prop}, queries="qrels")
    per_user = []
    for row, user in enumerate(res.queries):
        want = _formulas(qrels, run, prop, user, k, clip, rel)
        per_user.append(want)
        for n, t in texts.items():
            assert res.values[t][row] == pytest.approx(want[n], rel=1e-12, abs=1e-12), (n, user)
    # the corpus normaliser: s = all users' weights over all users' observed relevant items
    corpus = {m: f"snips_{m}_corpus(propensity=given,clip={clip},rel={rel})@{k}"
              for m in ("recall", "precision", "ndcg", "rbp")}
    got = rankmeter.evaluate(qrels, run, list(corpus.values()), context={"propensity": prop}, queries="qrels").corpus
    total = sum(w["_count"] for w in per_user)
    s = sum(w["_n"] for w in per_user) / total if total else 0.0
    mean = {m: sum(w[f"ips_{m}"] for w in per_user) / len(per_user) for m in ("recall", "precision", "rbp")}
    want_c = {m: (mean[m] / s if s else 0.0) for m in mean}
    want_c["ndcg"] = sum((w["_dcg"] / w["_idcg"](w["_count"] * s) if s and w["_count"] else 0.0)
                         for w in per_user) / len(per_user)
    for m, t in corpus.items():
        assert got[t] == pytest.approx(want_c[m], rel=1e-12, abs=1e-12), m


def test_pair_forms_agree_and_differ_from_per_item() -> None:
    qrels = {"u": {"a": 1, "b": 1}, "v": {"a": 1}}
    run = {"u": ["a", "x"], "v": ["a"]}
    pairs = {("u", "a"): 0.5, ("u", "b"): 0.25, ("v", "a"): 1.0}
    forms = [pairs,
             {"query": ["u", "u", "v"], "item": ["a", "b", "a"], "propensity": [0.5, 0.25, 1.0]},
             pa.table({"user": ["u", "u", "v"], "item": ["a", "b", "a"], "propensity": [0.5, 0.25, 1.0]}),
             read_propensities(pa.table({"user": ["u", "u", "v"], "item": ["a", "b", "a"], "p": [0.5, 0.25, 1.0]}),
                               propensity="p")]
    t = "snips_recall(propensity=given)@1"
    got = [rankmeter.evaluate(qrels, run, [t], context={"propensity": f}).values[t].tolist() for f in forms]
    assert all(g == [2 / 6, 1.0] for g in got)
    # the same item with another propensity for another user: per item, v's "a" would weigh 2 as well
    per_item = rankmeter.evaluate(qrels, run, ["ips_recall(propensity=given)@1"], context={"propensity": {
        "a": 0.5, "b": 0.25}}).values["ips_recall(propensity=given)@1"].tolist()
    by_pair = rankmeter.evaluate(qrels, run, ["ips_recall(propensity=given)@1"], context={"propensity": pairs}
                                 ).values["ips_recall(propensity=given)@1"].tolist()
    assert per_item == [1.0, 2.0] and by_pair == [1.0, 1.0]


def test_missing_and_bad_propensities_are_clear_errors() -> None:
    qrels = {"u": {"a": 1, "b": 1}}
    run = {"u": ["a"]}
    # snips needs every judged relevant item, retrieved or not; ips only the retrieved ones
    with pytest.raises(InputError, match=r"1 judged relevant items .*\('u', 'b'\)"):
        rankmeter.evaluate(qrels, run, ["snips_recall(propensity=given)@5"], context={"propensity": {("u", "a"): .5}})
    assert rankmeter.evaluate(qrels, run, ["ips_recall(propensity=given)@5"],
                              context={"propensity": {("u", "a"): .5}}).mean["ips_recall(propensity=given)@5"] == 1.0
    with pytest.raises(InputError, match=r"judged relevant items .*context\['propensity'\].*'b'"):
        rankmeter.evaluate(qrels, run, ["snips_ndcg(propensity=given)@5"], context={"propensity": {"a": .5}})
    with pytest.raises(InputError, match="more than one propensity"):
        rankmeter.evaluate(qrels, run, ["snips_recall(propensity=given)@5"], context={"propensity": {
            "query": ["u", "u", "u"], "item": ["a", "b", "b"], "propensity": [.5, .5, .4]}})
    with pytest.raises(InputError, match="not a probability"):
        rankmeter.evaluate(qrels, run, ["snips_recall(propensity=given)@5"],
                           context={"propensity": {("u", "a"): 1.5, ("u", "b"): .5}})
    with pytest.raises(InputError, match="clip"):
        rankmeter.evaluate(qrels, run, ["snips_recall(propensity=given)@5"],
                           context={"propensity": {("u", "a"): 0.0, ("u", "b"): .5}})
    assert rankmeter.evaluate(qrels, run, ["snips_recall(propensity=given,clip=0.5)@5"], context={"propensity": {
        ("u", "a"): 0.0, ("u", "b"): .5}}).mean["snips_recall(propensity=given,clip=0.5)@5"] == 0.5
    with pytest.raises(ParameterError, match="without a item column"):
        rankmeter.evaluate(qrels, run, ["snips_recall(propensity=given)@5"],
                           context={"propensity": pa.table({"user": ["u"], "x": ["a"], "propensity": [.5]})})
    # the position model gives no propensity to an item that was not ranked: not offered for SNIPS
    with pytest.raises(ParameterError, match="'propensity' parameter"):
        rankmeter.parse_metric("snips_recall(propensity=position)@5")


def test_snips_function_equals_the_registry_metrics() -> None:
    d = rankmeter.datasets.biased_feedback(n_users=60, n_items=80, seed=3)
    rel: dict[str, set[str]] = {}
    for u, i in zip(d.test.column("user").to_pylist(), d.test.column("item").to_pylist()):
        rel.setdefault(str(u), set()).add(str(i))
    rng = np.random.default_rng(0)
    run = {u: [str(i) for i in rng.permutation(80)[:15] + 1] for u in rel}
    qrels = {u: {i: 1 for i in s} for u, s in rel.items()}
    for m in ("recall@10", "ndcg@10"):
        t = f"snips_{m.replace('@', '(propensity=given)@')}"
        res = rankmeter.evaluate(qrels, run, [t], context={"propensity": d.propensity})
        fn = snips(rel, run, d.propensity, m)
        assert res.values[t].tolist() == pytest.approx([fn[u] for u in res.queries], rel=1e-12)


def _by_user(table) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for u, i in zip(table.column("user").to_pylist(), table.column("item").to_pylist()):
        out.setdefault(str(u), set()).add(str(i))
    return out


@pytest.mark.parametrize("rec", ["popular", "itemknn"])
def test_done_when_snips_registry_metrics_beat_the_plain_estimate(rec) -> None:
    """On biased_feedback(seed=0), snips_recall@10 and snips_ndcg@10 are closer to the full-information values
    than recall@10 and ndcg@10 on the observed test items (the figures of docs/unbiased.md)."""
    from rankmeter.recsys.recommenders import ItemKNN, MostPopular

    d = rankmeter.datasets.biased_feedback(seed=0)
    truth, observed = _by_user(d.truth), _by_user(d.test)
    users = sorted(u for u in observed if u in truth)
    model = {"popular": MostPopular, "itemknn": ItemKNN}[rec]()
    model.fit(d.train)
    top = model.recommend(users, 10)
    run: dict[str, list[str]] = {}
    for u, i in zip(top.column("user").to_pylist(), top.column("item").to_pylist()):
        run.setdefault(str(u), []).append(str(i))
    full = rankmeter.evaluate({u: {i: 1 for i in truth[u]} for u in users}, run, ["recall@10", "ndcg@10"])
    # per-(user, item) propensities: the generator's per-item ones, given for every (user, item) pair
    pairs = {(u, i): d.propensity[i] for u in users for i in observed[u]}
    est = rankmeter.evaluate({u: {i: 1 for i in observed[u]} for u in users}, run,
                             ["recall@10", "ndcg@10", "snips_recall(propensity=given)@10",
                              "snips_ndcg(propensity=given)@10", "snips_recall_corpus(propensity=given)@10",
                              "snips_ndcg_corpus(propensity=given)@10"], context={"propensity": pairs})
    for m in ("recall@10", "ndcg@10"):
        name, k = m.split("@")
        for sn_name in (f"snips_{name}(propensity=given)@{k}", f"snips_{name}_corpus(propensity=given)@{k}"):
            sn = est.mean[sn_name]
            assert abs(sn - full.mean[m]) < abs(est.mean[m] - full.mean[m]), (sn_name, full.mean[m], est.mean[m], sn)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rankmeter", *args], cwd=cwd, capture_output=True, text=True)


def test_cli_reads_a_propensity_file_and_labels_the_values(tmp_path: Path) -> None:
    (tmp_path / "q.csv").write_text("user,item,grade\nu1,a,1\nu1,b,1\nu2,d,1\n")
    (tmp_path / "r.csv").write_text("user,item,score\nu1,a,3\nu1,c,2\nu1,b,1\nu2,x,2\nu2,d,1\n")
    (tmp_path / "p.csv").write_text("user,item,propensity\nu1,a,0.5\nu1,b,0.25\nu1,c,1\nu2,d,0.5\n")
    ms = "snips_recall(propensity=given)@2,ips_recall(propensity=given)@2,recall@2"
    out = _cli("evaluate", "q.csv", "r.csv", "-m", ms, "--propensity", "p.csv", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    mean = json.loads(out.stdout)["mean"]
    assert mean == {"snips_recall(propensity=given)@2": pytest.approx((2 / 6 + 1) / 2),
                    "ips_recall(propensity=given)@2": 1.5, "recall@2": 0.75}
    table = _cli("evaluate", "q.csv", "r.csv", "-m", ms, "--propensity", "p.csv", cwd=tmp_path)
    assert "snips_recall(propensity=given)@2" in table.stdout and "ips_recall(propensity=given)@2" in table.stdout
    streamed = _cli("evaluate", "q.csv", "r.csv", "-m", ms, "--propensity", "p.csv", "--format", "json",
                    "--chunk-rows", "2", cwd=tmp_path)
    assert json.loads(streamed.stdout)["mean"] == mean
    # a bad file: one line on stderr naming file and line, exit code 2
    (tmp_path / "bad.csv").write_text("user,item,propensity\nu1,a,0.5\nu2,d,1.5\n")
    bad = _cli("evaluate", "q.csv", "r.csv", "-m", ms, "--propensity", "bad.csv", cwd=tmp_path)
    assert bad.returncode == 2 and "bad.csv:3:" in bad.stderr and "Traceback" not in bad.stderr
    # a judged relevant pair without a propensity: the error names it
    (tmp_path / "short.csv").write_text("user,item,propensity\nu1,a,0.5\nu2,d,0.5\n")
    short = _cli("evaluate", "q.csv", "r.csv", "-m", ms, "--propensity", "short.csv", cwd=tmp_path)
    assert short.returncode == 2 and "('u1', 'b')" in short.stderr and short.stderr.count("\n") == 1
    unused = _cli("evaluate", "q.csv", "r.csv", "-m", "recall@2", "--propensity", "p.csv", cwd=tmp_path)
    assert unused.returncode == 0 and "no metric asked for it" in unused.stderr
    # the popularity model needs training data, which this command does not read: said before any work
    for m in ("snips_recall@2", "ips_ndcg(clip=0.1)@2", "psp@2"):
        pop = _cli("evaluate", "q.csv", "r.csv", "-m", m, cwd=tmp_path)
        assert pop.returncode == 2 and "--propensity FILE and propensity=given" in pop.stderr, pop.stderr
        assert pop.stderr.count("\n") == 1 and "Traceback" not in pop.stderr


def test_experiment_labels_ips_and_snips_in_every_output() -> None:
    from rankmeter.recsys.pipeline import experiment

    d = rankmeter.datasets.biased_feedback(n_users=80, n_items=100, seed=1)
    data = pa.concat_tables([d.train, d.test])
    names = ["recall@10", "snips_recall@10", "ips_ndcg(clip=0.1)@10", "snips_ndcg(exponent=0.7)@10"]
    res = experiment(data, split="holdout", recommenders=("popular", "itemknn"), metrics=names, n_resamples=20)
    payload = json.loads(res.to_json())
    assert payload["metrics"] == names
    assert set(names) <= set(res.to_csv().splitlines()[0].split(","))
    html = res.to_html()
    assert all(n in html for n in names)
    rows = [line.split(",") for line in res.to_csv().splitlines()]
    popular = dict(zip(rows[0], next(r for r in rows if r[0] == "popular")))
    assert float(popular["snips_recall@10"]) != float(popular["recall@10"])
    # the report's text table names them too
    from rich.console import Console

    console = Console(record=True, width=200)
    console.print(res.table())
    text = console.export_text()
    assert all(n in text for n in names)


@settings(max_examples=40, deadline=None)
@given(st.booleans().flatmap(judged_runs), st.booleans())
def test_the_batch_carries_the_judged_items_in_grade_order(data, same_vocab) -> None:
    """align() gives each judgment's item code in qrel_grade's order (only when item codes are built)."""
    from rankmeter.data import Qrels, Run
    from rankmeter.data.ids import as_string_array
    from rankmeter.evaluation.prepare import align

    qrels, run, _ = data
    rows = [(u, i, float(g)) for u, j in qrels.items() for i, g in j.items()]
    q = Qrels.from_columns([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    if same_vocab:  # the run retrieves exactly the judged items: the vocabularies coincide
        run = {u: list(j) for u, j in qrels.items()}
    rr = [(u, i, -float(n)) for u, lst in run.items() for n, i in enumerate(lst)]
    r = Run.from_columns([x[0] for x in rr], [x[1] for x in rr], [x[2] for x in rr])
    batch, qids, _cov = align(q, r, "qrels", items=True)
    vocab = as_string_array(batch.context["item_ids"]).to_pylist()
    for n, user in enumerate(qids.to_pylist()):
        lo, hi = batch.qrel_offsets[n], batch.qrel_offsets[n + 1]
        got = [(vocab[c], g) for c, g in zip(batch.qrel_item[lo:hi].tolist(), batch.qrel_grade[lo:hi].tolist())]
        assert sorted(got) == sorted(qrels.get(user, {}).items())
        assert [g for _, g in got] == sorted((g for _, g in got), reverse=True)
    assert align(q, r, "qrels", items=False)[0].qrel_item is None


def test_a_per_item_mapping_of_items_named_like_columns_stays_per_item() -> None:
    ctx = {"propensity": {"query": 0.5, "item": 0.25, "propensity": 1.0}}
    res = rankmeter.evaluate({"u": {"query": 1, "item": 1}}, {"u": ["query"]}, ["snips_recall(propensity=given)@1"],
                             context=ctx)
    assert res.mean["snips_recall(propensity=given)@1"] == pytest.approx(2 / (2 + 4))
