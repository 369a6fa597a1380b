"""Saved results read back equal (Result, Comparison, ExperimentResult), with the provenance record in every
saved file and report; `rankmeter compare` accepts saved results."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter._errors import InputError
from rankmeter.compare import Comparison, compare
from rankmeter.provenance import Provenance
from rankmeter.result import Result

METRICS = ["ndcg@5", "P@3", "map", "rr", "num_ret", "gm_map", "recall@10"]
BOUNDED = ["ndcg@5", "P@3", "map", "rr"]  # declared for ties="bounds" and unjudged="bounds"


@st.composite
def evaluations(draw: Any) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    n_q = draw(st.integers(1, 6))
    ids = st.sampled_from(["a", "b", "c", "d", "e", "f", "<x>", "é", "q\t1"])
    qrels = {f"q{i}": draw(st.dictionaries(ids, st.integers(0, 2), max_size=5)) for i in range(n_q)}
    run = {f"q{i}": draw(st.dictionaries(ids, st.sampled_from([0.0, 0.5, 1.0, 2.0]), max_size=6))
           for i in range(draw(st.integers(0, n_q + 1)))}
    return {q: j for q, j in qrels.items() if j}, {q: r for q, r in run.items() if r}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=evaluations(), options=st.sampled_from([{}, {"queries": "qrels"}, {"depth": 2}, {"ties": "bounds"},
                                                     {"unjudged": "bounds"}, {"judged_only": True}]))
def test_result_round_trip(data: Any, options: dict[str, Any]) -> None:
    qrels, run = data
    if not qrels:
        qrels = {"q0": {"a": 1}}
    bounded = options.get("ties") == "bounds" or options.get("unjudged") == "bounds"
    res = rankmeter.evaluate(qrels, run, BOUNDED if bounded else METRICS, **options)
    back = Result.load(res.to_json())
    assert back.equals(res) and res.equals(back)
    assert back.mean.keys() == res.mean.keys()
    assert np.array_equal(list(back.mean.values()), list(res.mean.values()), equal_nan=True)
    assert back.provenance == res.provenance and back.provenance is not None
    for key, value in options.items():
        assert back.provenance.options[key] == value


def test_equals_can_fail() -> None:
    """equals() tells results apart (a test that cannot fail is a defect)."""
    a = rankmeter.evaluate({"q": ["a"]}, {"q": ["a", "b"]}, ["P@1", "rr"])
    b = rankmeter.evaluate({"q": ["a"]}, {"q": ["b", "a"]}, ["P@1", "rr"])
    assert not a.equals(b) and not Result.load(a.to_json()).equals(b)
    c = Comparison.load(compare({"q": ["a"], "r": ["b"]}, {"A": {"q": ["a"]}, "B": {"r": ["b"]}}, ["rr"],
                                n_resamples=50).to_json())
    d = compare({"q": ["a"], "r": ["b"]}, {"A": {"q": ["a"]}, "B": {"q": ["b"]}}, ["rr"], n_resamples=50)
    assert not c.equals(d)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=evaluations(), seed=st.integers(0, 10), test=st.sampled_from(["t", "wilcoxon", "randomization"]))
def test_comparison_round_trip(data: Any, seed: int, test: str) -> None:
    qrels, run = data
    qrels = {**qrels, "q0": {**qrels.get("q0", {}), "a": 1}}  # a query with a relevant item to compare on
    other = {q: dict(reversed(list(r.items()))) for q, r in run.items()}
    cmp = compare(qrels, {"A": run, "B": other, "C <b>": {}}, ["ndcg@5", "P@3", "rr"], test=test, seed=seed,
                  n_resamples=50)
    for text in (cmp.to_json(), cmp.to_json(details=True)):
        back = Comparison.load(text)
        assert back.equals(cmp) and cmp.equals(back)
        assert back.provenance.seeds == {"seed": seed}
    assert Comparison.load(json.loads(cmp.to_json())).means == cmp.means


def test_loaders_refuse_other_json(tmp_path: Path) -> None:
    res = rankmeter.evaluate({"q": ["a"]}, {"q": ["a"]}, ["rr"])
    (tmp_path / "r.json").write_text(res.to_json())
    with pytest.raises(InputError, match="expected a comparison saved by rankmeter"):
        Comparison.load(tmp_path / "r.json")
    (tmp_path / "x.json").write_text("[1, 2]")
    with pytest.raises(InputError, match="expected a JSON object"):
        Result.load(tmp_path / "x.json")
    (tmp_path / "y.json").write_text("{oops")
    with pytest.raises(InputError, match="not JSON"):
        Result.load(tmp_path / "y.json")


def _trec(tmp_path: Path) -> tuple[Path, Path, Path]:
    rng = np.random.default_rng(3)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(12) for d in range(8)))
    runs = []
    for name in ("bm25", "dense"):
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"q{q} Q0 d{d} {r} {10 - r} {name}\n" for q in range(12)
                             for r, d in enumerate(rng.permutation(10))))
        runs.append(p)
    return qrels, runs[0], runs[1]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_provenance_names_the_files_with_their_hashes(tmp_path: Path) -> None:
    qrels, bm25, dense = _trec(tmp_path)
    res = rankmeter.evaluate(str(qrels), str(bm25), ["ndcg@10", "map"], depth=5)
    saved = json.loads(res.save(tmp_path / "bm25.json").read_text())["provenance"]
    assert saved["implementation"] == {"software": "rankmeter", "version": rankmeter.__version__}
    assert saved["data"]["inputs"] == [
        {"role": "qrels", "path": str(qrels.resolve()), "size": qrels.stat().st_size, "sha256": _sha(qrels)},
        {"role": "run", "path": str(bm25.resolve()), "size": bm25.stat().st_size, "sha256": _sha(bm25)}]
    assert saved["method"]["metrics"] == ["ndcg@10", "map"] and saved["method"]["options"]["depth"] == 5
    assert "unjudged_grade" not in saved["method"]["options"]  # an option not used is left out, not null
    assert saved["platform"]["threads"] >= 1 and re.match(r"\d{4}-\d\d-\d\dT", saved["date"])
    # a file changed after it was read is not hashed as if it were the input
    res2 = rankmeter.evaluate(str(qrels), str(dense), ["map"])
    dense.write_text(dense.read_text() + "q0 Q0 extra 99 0.1 dense\n")
    inputs = res2.provenance.to_dict()["data"]["inputs"]
    assert inputs[1]["changed"] is True and "sha256" not in inputs[1]


@pytest.mark.slow
def test_every_saved_file_and_report_carries_the_record(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    qrels, bm25, dense = _trec(tmp_path)
    cmp = compare(str(qrels), {"bm25": str(bm25), "dense": str(dense)}, ["ndcg@10", "P@5"], n_resamples=100, seed=4)
    record = json.loads(cmp.to_json())["provenance"]
    assert [i["role"] for i in record["data"]["inputs"]] == ["qrels", "run:bm25", "run:dense"]
    assert record["data"]["inputs"][2]["sha256"] == _sha(dense)
    assert record["method"]["seeds"] == {"seed": 4} and record["method"]["options"]["n_resamples"] == 100
    assert Comparison.load(cmp.save(tmp_path / "cmp.json")).equals(cmp)
    page = cmp.to_html(k_max=5)
    shown = re.search(r'<pre id="rankmeter-provenance">(.*?)</pre>', page, re.S)
    assert shown is not None
    import html

    assert json.loads(html.unescape(shown.group(1)))["data"] == record["data"]
    assert f"SHA-256 {_sha(dense)}" in cmp.to_markdown() and "### Provenance" in cmp.to_markdown()
    first = cmp.to_latex().splitlines()[0]
    assert first.startswith("% rankmeter provenance: ")
    assert json.loads(first.split(": ", 1)[1])["data"] == record["data"]


@pytest.mark.slow
def test_experiment_saves_and_loads_back(tmp_path: Path) -> None:
    from rankmeter.datasets import synthetic
    from rankmeter.experiment import ExperimentResult, experiment

    res = experiment(synthetic(n_users=40, n_items=60, seed=5), k=5, n_resamples=50,
                     recommenders=("random", "popular"), seed=9)
    paths = res.save(tmp_path / "out")
    back = ExperimentResult.load(tmp_path / "out")
    assert back.equals(res) and ExperimentResult.load(paths["json"]).equals(res)
    assert back.means.equals(res.means)
    saved = json.loads(paths["json"].read_text())
    assert saved["provenance"]["method"]["seeds"]["seed"] == 9
    assert saved["provenance"]["data"]["inputs"][0]["role"] == "interactions"
    assert 'id="rankmeter-provenance"' in paths["report"].read_text()
    assert not back.equals(experiment(synthetic(n_users=40, n_items=60, seed=5), k=5, n_resamples=50,
                                      recommenders=("random", "popular"), seed=10))


def _cli(*args: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankmeter", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.slow
def test_compare_cli_accepts_saved_results(tmp_path: Path) -> None:
    qrels, bm25, dense = _trec(tmp_path)
    a = rankmeter.evaluate(str(qrels), str(bm25), ["ndcg@10", "P@5"]).save(tmp_path / "bm25.json")
    b = rankmeter.evaluate(str(qrels), str(dense), ["ndcg@10", "P@5"]).save(tmp_path / "dense.json")
    from_files = _cli("compare", qrels, f"bm25={bm25}", f"dense={dense}", "-m", "ndcg@10,P@5", "--format", "json",
                      "--resamples", "200")
    from_saved = _cli("compare", a, b, "-m", "ndcg@10,P@5", "--format", "json", "--resamples", "200")
    assert from_files.returncode == 0, from_files.stderr
    assert from_saved.returncode == 0, from_saved.stderr
    x, y = json.loads(from_files.stdout), json.loads(from_saved.stdout)
    assert x["means"] == y["means"] and x["tests"] == y["tests"]
    roles = [i["role"] for i in y["provenance"]["data"]["inputs"]]
    assert roles[:2] == ["run:bm25", "run:dense"] and "bm25/run" in roles and "dense/qrels" in roles
    # rankmeter evaluate --format json --per-query writes the same saved form, with the files' record
    cli_saved = tmp_path / "bm25-cli.json"
    out = _cli("evaluate", qrels, bm25, "-m", "ndcg@10,P@5", "--format", "json", "--per-query")
    assert out.returncode == 0, out.stderr
    cli_saved.write_text(out.stdout)
    assert Result.load(cli_saved).mean == Result.load(a).mean
    assert json.loads(out.stdout)["provenance"]["data"]["inputs"][1]["sha256"] == _sha(bm25)
    via_cli = _cli("compare", cli_saved, b, "-m", "ndcg@10,P@5", "--format", "json", "--resamples", "200")
    assert via_cli.returncode == 0, via_cli.stderr
    assert json.loads(via_cli.stdout)["means"]["bm25-cli"] == x["means"]["bm25"]
    mixed = _cli("compare", qrels, a, f"dense={dense}", "-m", "ndcg@10,P@5", "--format", "json", "--resamples", "200")
    assert mixed.returncode == 0, mixed.stderr
    assert json.loads(mixed.stdout)["means"] == x["means"]


def test_provenance_round_trips_through_its_dict() -> None:
    p = Provenance.create(metrics=["map"], options={"depth": 3, "queries": ["q1", "q2"]}, seeds={"seed": 1},
                          threads=2)
    assert Provenance.from_dict(json.loads(json.dumps(p.to_dict()))) == p
    assert Provenance.from_dict({**p.to_dict(), "date": "2000-01-01T00:00:00+00:00"}) != p


def test_the_recorded_version_is_the_installed_distribution_s() -> None:
    # provenance reads rankmeter.__version__ (fast); it must be what pip installed
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("rankmeter")
    except PackageNotFoundError:  # pragma: no cover - a source tree that is not installed
        pytest.skip("rankmeter is not installed")
    assert rankmeter.__version__ == installed
