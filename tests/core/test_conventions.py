"""Named conventions of other tools (``tool:name@k``, ``convention=``): the tables, the grammar, and golden
values from the tools that install beside rankmeter (scikit-learn, ranx)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter._errors import MetricNameError, ParameterError
from rankmeter.metrics.conventions import TOOLS, get_tool, with_convention
from rankmeter.metrics.registry import parse_metric


@pytest.mark.parametrize("tool", TOOLS)
def test_every_entry_is_a_registry_metric_with_a_source(tool: str) -> None:
    t = get_tool(tool)
    assert t.name == tool and t.title and t.repository
    assert t.entries or t.passthrough
    for name, entry in t.entries.items():
        assert name == name.lower()
        assert entry.source, f"{tool}:{name} cites no source"
        assert entry.cutoff in ("optional", "required", "none")
        k = "" if entry.cutoff == "none" else "@10"
        m = parse_metric(f"{tool}:{name}{k}")
        assert m.convention == tool and m.text == f"{tool}:{name}{k}"
        assert m.canonical.startswith(parse_metric(entry.metric + k).canonical)
        if entry.cannot:
            assert any(entry.cannot in n for n in m.notes)


def test_grammar_and_errors() -> None:
    assert parse_metric("sklearn:ndcg@10").ties == "average"
    assert parse_metric("rectools:ndcg@10").canonical == "ndcg(ideal=k)@10"
    assert parse_metric("trec_eval:P_10").canonical == "p@10"
    assert parse_metric("ir_measures:nDCG@10").canonical == "ndcg@10"
    assert parse_metric("ranx:rbp").canonical == "rbp(gain=grade)"
    assert parse_metric("rbp").canonical == "rbp"  # unprefixed names keep rankmeter's meaning
    with pytest.raises(MetricNameError, match="unknown tool 'foo'"):
        parse_metric("foo:ndcg@10")
    with pytest.raises(MetricNameError, match="RecTools's ndcg needs a cutoff"):
        parse_metric("rectools:ndcg")
    with pytest.raises(MetricNameError, match="reads whole rankings and takes no cutoff"):
        parse_metric("cornac:auc@10")
    with pytest.raises(MetricNameError, match="scikit-learn has no metric 'p'"):
        parse_metric("sklearn:p@10")
    with pytest.raises(ParameterError, match="'convention' parameter of evaluate"):
        rankmeter.evaluate({"q": {"a": 1}}, {"q": ["a"]}, "ndcg", convention="nope")


def test_convention_prefixes_unprefixed_names_and_keeps_the_keys() -> None:
    qrels = {"q1": {"a": 1, "b": 0, "c": 2, "d": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5, "e": 1.0}}
    res = rankmeter.evaluate(qrels, run, ["ndcg@2", "cornac:ncrr@2"], convention="sklearn")
    assert list(res.mean) == ["ndcg@2", "cornac:ncrr@2"]
    assert res.mean["ndcg@2"] == rankmeter.evaluate(qrels, run, "ndcg@2", ties="average").mean["ndcg@2"]
    assert res.mean["ndcg@2"] != rankmeter.evaluate(qrels, run, "ndcg@2").mean["ndcg@2"]
    assert [m.text for m in with_convention("ndcg@10,dcg@5", "sklearn")] == ["ndcg@10", "dcg@5"]
    # a convention's tie rule is its own: the evaluation's ties= does not change it
    both = rankmeter.evaluate(qrels, run, ["sklearn:ndcg@2", "ndcg@2"], ties="pessimistic")
    assert both.mean["sklearn:ndcg@2"] == res.mean["ndcg@2"]
    assert both.mean["ndcg@2"] == rankmeter.evaluate(qrels, run, "ndcg@2", ties="pessimistic").mean["ndcg@2"]
    # what cannot be reproduced is said
    assert any(n.startswith("sklearn:ndcg@2: scikit-learn builds the ideal") for n in both.notes)


def _tied_data(seed: int, n_queries: int = 30, ties: bool = True) -> tuple[dict, dict, dict, dict]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    truth, pred = {}, {}
    for q in range(n_queries):
        n = int(rng.integers(3, 10))
        grades = rng.integers(0, 4, size=n)
        grades[0] = max(grades[0], 1)
        grades[1] = 0
        scores = (rng.integers(0, 3, size=n).astype(float) if ties else rng.permutation(n).astype(float) + 0.5)
        items = [f"d{j}" for j in range(n)]
        qrels[f"q{q}"] = dict(zip(items, (int(g) for g in grades), strict=True))
        run[f"q{q}"] = dict(zip(items, (float(s) for s in scores), strict=True))
        truth[f"q{q}"], pred[f"q{q}"] = grades, scores
    return qrels, run, truth, pred


def test_sklearn_golden() -> None:
    sk = pytest.importorskip("sklearn.metrics")
    qrels, run, truth, pred = _tied_data(5)
    res = rankmeter.evaluate(qrels, run, ["ndcg@3", "dcg@4", "ndcg", "roc_auc"], convention="sklearn")
    for i, q in enumerate(res.queries):
        y, s = [truth[q]], [pred[q]]
        assert res.values["ndcg@3"][i] == pytest.approx(sk.ndcg_score(y, s, k=3), abs=1e-12)
        assert res.values["dcg@4"][i] == pytest.approx(sk.dcg_score(y, s, k=4), abs=1e-12)
        assert res.values["ndcg"][i] == pytest.approx(sk.ndcg_score(y, s), abs=1e-12)
        assert res.values["roc_auc"][i] == pytest.approx(sk.roc_auc_score(truth[q] > 0, pred[q]), abs=1e-12)
    # average_precision: equal on tie-free runs that score every judged item
    qrels, run, truth, pred = _tied_data(6, ties=False)
    res = rankmeter.evaluate(qrels, run, ["sklearn:average_precision"])
    for i, q in enumerate(res.queries):
        want = sk.average_precision_score(truth[q] >= 1, pred[q])
        assert res.values["sklearn:average_precision"][i] == pytest.approx(want, abs=1e-12)


@pytest.mark.slow
def test_ranx_golden_on_tie_free_runs() -> None:
    ranx = pytest.importorskip("ranx")
    qrels, run, _, _ = _tied_data(9, ties=False)
    names = ["ndcg@5", "ndcg_burges@5", "map@5", "mrr@5", "precision@3", "recall@5", "hit_rate@2", "rbp.8"]
    ours = ["ranx:ndcg@5", "ranx:ndcg_burges@5", "ranx:map@5", "ranx:mrr@5", "ranx:precision@3", "ranx:recall@5",
            "ranx:hit_rate@2", "ranx:rbp(p=0.8)"]
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names[:-1] + ["rbp.8"], return_mean=False)
    res = rankmeter.evaluate(qrels, run, ours[:-1] + ["rbp(p=0.8,gain=grade)"])
    for name, mine in zip(names, ours[:-1] + ["rbp(p=0.8,gain=grade)"], strict=True):
        want = np.asarray(theirs[name], dtype=float)
        order = sorted(qrels)  # ranx keeps the qrels' query order
        got = np.array([res.values[mine][res.queries.index(q)] for q in order])
        np.testing.assert_allclose(got, want, atol=1e-12, err_msg=name)


def test_cli_convention(tmp_path: Path) -> None:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq1 0 d 1\n")
    r.write_text("q1 Q0 a 1 1.0 s\nq1 Q0 b 2 1.0 s\nq1 Q0 c 3 1.0 s\nq1 Q0 d 4 0.5 s\nq1 Q0 e 5 1.0 s\n")
    out = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate", str(q), str(r), "-m", "ndcg@2",
                          "--convention", "sklearn", "--format", "json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    want = rankmeter.evaluate({"q1": {"a": 1, "b": 0, "c": 2, "d": 1}},
                              {"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5, "e": 1.0}}, "sklearn:ndcg@2")
    assert f'"ndcg@2": {want.mean["sklearn:ndcg@2"]}' in out.stdout
    bad = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate", str(q), str(r), "-m", "sklearn:p@2"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "scikit-learn has no metric 'p'" in bad.stderr


@pytest.mark.slow  # importing torch takes seconds
def test_torchmetrics_golden() -> None:
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.functional.retrieval")
    funcs = {"ndcg@3": retrieval.retrieval_normalized_dcg, "precision@3": retrieval.retrieval_precision,
             "recall@3": retrieval.retrieval_recall, "map@3": retrieval.retrieval_average_precision,
             "mrr@3": retrieval.retrieval_reciprocal_rank, "hit_rate@3": retrieval.retrieval_hit_rate,
             "auroc@3": retrieval.retrieval_auroc}
    for ties in (False, True):
        qrels, run, truth, pred = _tied_data(12, ties=ties)
        if ties:  # positive scores (torchmetrics >= 1.8 never counts an item scored <= 0 as relevant)
            run = {q: {d: s + 1.0 for d, s in r.items()} for q, r in run.items()}
            pred = {q: p + 1.0 for q, p in pred.items()}
        names = ["ndcg@3"] if ties else list(funcs)  # with ties, only nDCG is defined (the others: topk order)
        res = rankmeter.evaluate(qrels, run, names, convention="torchmetrics")
        for name in names:
            for i, q in enumerate(res.queries):
                target = torch.tensor(truth[q]) if name.startswith("ndcg") else torch.tensor(truth[q] >= 1)
                want = float(funcs[name](torch.tensor(pred[q], dtype=torch.float64), target, top_k=3))
                # torchmetrics computes in float32
                assert abs(res.values[name][i] - want) <= 2e-7, (name, ties, q, res.values[name][i], want)


def test_cornac_golden() -> None:
    metrics = pytest.importorskip("cornac.metrics")
    for ties in (False, True):
        qrels, run, truth, pred = _tied_data(13, ties=ties)
        qrels = {q: {d: int(g >= 1) for d, g in j.items()} for q, j in qrels.items()}  # Cornac: positives only
        names = ["auc"] if ties else ["ndcg@5", "ncrr@9", "precision@3", "recall@5", "fmeasure@4", "hitratio@2",
                                      "mrr", "auc", "map"]
        res = rankmeter.evaluate(qrels, run, names, convention="cornac")
        for i, q in enumerate(res.queries):
            pos = np.flatnonzero(truth[q] >= 1)
            rank = np.argsort(-pred[q], kind="stable")
            idx = np.arange(len(pred[q]))
            for name in names:
                base, _, k = name.partition("@")
                kk = int(k) if k else -1
                cls = {"ndcg": metrics.NDCG, "ncrr": metrics.NCRR, "precision": metrics.Precision,
                       "recall": metrics.Recall, "fmeasure": metrics.FMeasure, "hitratio": metrics.HitRatio}.get(base)
                if cls is not None:
                    want = cls(k=kk).compute(gt_pos=pos, pd_rank=rank)
                elif base == "mrr":
                    want = metrics.MRR().compute(gt_pos=pos, pd_rank=rank)
                elif base == "auc":
                    want = metrics.AUC().compute(item_indices=idx, pd_scores=pred[q], gt_pos=pos)
                else:
                    want = metrics.MAP().compute(item_indices=idx, pd_scores=pred[q], gt_pos=pos)
                assert abs(res.values[name][i] - want) <= 1e-12, (name, ties, q, res.values[name][i], want)


def test_implicit_golden() -> None:
    evaluation = pytest.importorskip("implicit.evaluation")
    from scipy import sparse

    rng = np.random.default_rng(3)
    n_users, n_items = 25, 15
    recs = {u: rng.permutation(n_items)[:8].astype(np.int32) for u in range(n_users)}
    test = sparse.lil_matrix((n_users, n_items))
    for u in range(n_users):
        for i in rng.choice(n_items, size=int(rng.integers(1, 5)), replace=False):
            test[u, i] = 1
    test = test.tocsr()

    class Lists:  # a "model" that recommends the fixed lists
        def recommend(self, userid, user_items, N=10, **_):
            users = np.atleast_1d(userid)
            ids = np.stack([recs[int(u)][:N] for u in users]).astype(np.int32)
            return ids, np.tile(np.arange(N, 0, -1, dtype=np.float32), (len(users), 1))

    theirs = evaluation.ranking_metrics_at_k(Lists(), sparse.csr_matrix((n_users, n_items)), test, K=5,
                                             show_progress=False)
    qrels = {f"u{u}": {f"i{i}": 1 for i in test[u].indices} for u in range(n_users)}
    run = {f"u{u}": [f"i{i}" for i in recs[u]] for u in range(n_users)}
    ours = rankmeter.evaluate(qrels, run, ["precision@5", "map@5", "ndcg@5"], convention="implicit").mean
    for name in ("precision", "map", "ndcg"):
        assert abs(ours[f"{name}@5"] - theirs[name]) <= 1e-12, (name, ours, theirs)


def test_docs_page_is_generated_from_the_tables() -> None:
    from rankmeter.metrics.conventions import render_markdown

    page = Path(__file__).resolve().parents[2] / "docs" / "conventions.md"
    assert page.read_text(encoding="utf-8") == render_markdown(), (
        "docs/conventions.md is stale: python -c 'from rankmeter.metrics.conventions import render_markdown; "
        "print(render_markdown(), end=\"\")' > docs/conventions.md")


def test_rectools_golden_from_fixture() -> None:
    """RecTools cannot run beside rankmeter (numpy < 2, pandas < 3): its values were made once by
    scripts/golden_rectools.py in a separate environment (the command is in the script)."""
    import json

    from rankmeter.beyond import context_from_train

    data = json.loads((Path(__file__).parent / "conventions_data" / "rectools.json").read_text())
    k = data["k"]
    run: dict[str, list[str]] = {}
    for u, i, _rank in sorted(data["reco"], key=lambda r: (r[0], r[2])):
        run.setdefault(u, []).append(i)
    qrels: dict[str, dict[str, int]] = {}
    for u, i in data["test"]:
        qrels.setdefault(u, {})[i] = 1
    ctx = dict(context_from_train({"user": [u for u, _ in data["train"]], "item": [i for _, i in data["train"]]}))
    ctx["features"] = data["features"]
    names = list(data["values"])
    res = rankmeter.evaluate(qrels, run, [f"{n}@{k}" for n in names], convention="rectools", context=ctx)
    for n in names:
        got = dict(zip(res.queries, res.values[f"{n}@{k}"].tolist(), strict=True))
        want = data["values"][n]
        common = sorted(set(got) & set(want))
        assert len(common) >= 30, (n, len(common))
        for u in common:
            assert abs(got[u] - want[u]) <= 1e-12, (n, u, got[u], want[u])


def test_ir_measures_golden_with_ties() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(21)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(30):
        n = int(rng.integers(3, 12))
        qrels[f"q{q}"] = {f"d{j}": int(rng.integers(0, 3)) for j in range(n) if rng.random() < 0.7}
        run[f"q{q}"] = {f"d{j}": float(rng.integers(0, 3)) for j in range(n)}  # many ties
    names = ["nDCG@5", "P@3", "AP", "RR", "R@5", "Rprec", "Success@3", "nDCG", "AP@5", "P(rel=2)@5"]
    measures = [ir_measures.parse_measure(n) for n in names]
    theirs: dict[str, dict[str, float]] = {}
    for m in ir_measures.iter_calc(measures, qrels, run):
        theirs.setdefault(str(m.measure), {})[m.query_id] = m.value
    res = rankmeter.evaluate(qrels, run, [f"ir_measures:{n}" for n in names], queries="run")
    for name, m in zip(names, measures, strict=True):
        for q, v in theirs[str(m)].items():
            assert abs(res.values[f"ir_measures:{name}"][res.queries.index(q)] - v) <= 1e-12, (name, q)


def test_lenskit_golden_from_fixture() -> None:
    """LensKit 0.14 needs pandas < 3: its values were made once by scripts/golden_lenskit.py in a separate
    environment (the command is in the script)."""
    import json

    data = json.loads((Path(__file__).parent / "conventions_data" / "lenskit.json").read_text())
    k = data["k"]
    names = list(data["values"])
    res = rankmeter.evaluate(data["truth"], data["reco"], [f"{n}@{k}" for n in names], convention="lenskit")
    for n in names:
        got = dict(zip(res.queries, res.values[f"{n}@{k}"].tolist(), strict=True))
        assert set(got) == set(data["values"][n])
        for u, want in data["values"][n].items():
            assert abs(got[u] - want) <= 1e-12, (n, u, got[u], want)


def test_msrecommenders_golden_from_fixture() -> None:
    """MS Recommenders needs pandas < 3: its means were made once by scripts/golden_msrecommenders.py in a
    separate environment (the command is in the script)."""
    import json

    data = json.loads((Path(__file__).parent / "conventions_data" / "msrecommenders.json").read_text())
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for u, i, g in data["true"]:
        qrels.setdefault(u, {})[i] = int(g)
    for u, i, s in data["pred"]:
        run.setdefault(u, {})[i] = s
    names = list(data["values"])
    res = rankmeter.evaluate(qrels, run, names, convention="msrecommenders")
    for name in names:
        assert abs(res.mean[name] - data["values"][name]) <= 1e-12, (name, res.mean[name], data["values"][name])


def test_recbole_golden_from_fixture() -> None:
    """RecBole 1.2.1 needs numpy < 1.24: its values were made once by scripts/golden_recbole.py in a separate
    environment (the command is in the script), rounded by RecBole to 15 places."""
    import json

    from rankmeter.beyond import context_from_train

    data = json.loads((Path(__file__).parent / "conventions_data" / "recbole.json").read_text())
    n_users, n_items = len(data["free"]), len(data["free"][0])
    items = [f"i{i}" for i in range(n_items)]
    qrels = {f"u{u}": {f"i{i}": 1 for i in range(n_items) if data["positives"][u][i]} for u in range(n_users)}
    runs = {kind: {f"u{u}": {f"i{i}": data[kind][u][i] for i in range(n_items)} for u in range(n_users)}
            for kind in ("free", "tied")}
    ctx = dict(context_from_train({"user": [u for u, _ in data["train"]], "item": [i for _, i in data["train"]]}))
    ctx["catalog"] = ctx["all_items"] = items
    for key, want in data["values"].items():
        text = f"recbole:{key}"
        run = runs["tied" if key == "gauc" else "free"]  # GAUC on tied scores (average ranks)
        got = rankmeter.evaluate(qrels, run, text, context=ctx).mean[text]
        assert abs(got - want) <= 1e-12, (key, got, want)


def test_recmetrics_golden_from_fixture() -> None:
    """recmetrics 0.1.5 needs pandas < 2: its values were made once by scripts/golden_recmetrics.py in a
    separate environment (the command is in the script)."""
    import json

    data = json.loads((Path(__file__).parent / "conventions_data" / "recmetrics.json").read_text())
    k, users = data["k"], data["users"]
    run = dict(zip(users, data["predicted"], strict=True))
    qrels = {u: {i: 1 for i in a} for u, a in zip(users, data["actual"], strict=True)}
    ctx = {"popularity": {i: c / len(users) for i, c in data["pop"].items()}, "n_users": len(users),
           "features": dict(zip(data["items"], data["features"], strict=True))}
    names = list(data["values"])
    res = rankmeter.evaluate(qrels, run, [f"{n}@{k}" for n in names], context=ctx, convention="recmetrics")
    for n in names:
        assert abs(res.mean[f"{n}@{k}"] - data["values"][n]) <= 1e-12, (n, res.mean[f"{n}@{k}"], data["values"][n])
