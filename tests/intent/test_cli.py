"""``--subtopics`` through the real executable: evaluate (in memory and streaming) and compare."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pyndeval = pytest.importorskip("pyndeval")

QRELS = "1 1 A 1\n1 2 B 1\n1 2 D 1\n1 3 C 1\n2 1 X 0\n2 2 Y 2\n2 2 X 1\n"
RUN = "1 Q0 A 1 9.3 r\n1 Q0 D 2 8.4 r\n1 Q0 E 3 8.1 r\n1 Q0 B 4 7.6 r\n2 Q0 Y 1 1.0 r\n2 Q0 X 2 1.0 r\n"
RUN2 = "1 Q0 B 1 3 s\n1 Q0 C 2 2 s\n1 Q0 A 3 1 s\n2 Q0 X 1 1.0 s\n"
METRICS = "alpha-nDCG@20,ERR-IA@20,nERR-IA@20,alpha-DCG@20,NRBP,nNRBP,P-IA@20,MAP-IA,strec@20"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    (tmp_path / "s.txt").write_text(RUN2)
    return {"qrels": tmp_path / "q.txt", "run": tmp_path / "r.txt", "run2": tmp_path / "s.txt"}


def _ndeval(run_text: str) -> dict[str, dict[str, float]]:
    qrels = [tuple(line.split()) for line in QRELS.splitlines()]
    run = []
    for line in run_text.splitlines():
        q, _, d, _, s, _ = line.split()
        run.append((q, d, float(s)))
    # ties (Y and X of query 2) in ndeval -traditional's order: docno descending, then given to pyndeval untied
    run = sorted(run, key=lambda r: (r[0], -r[2], tuple(-b for b in r[1].encode())))
    run = [(q, d, float(-n)) for n, (q, d, _) in enumerate(run)]
    return pyndeval.ndeval([(q, s, d, int(g)) for q, s, d, g in qrels], run, measures=METRICS.split(","))


@pytest.mark.parametrize("extra", [[], ["--chunk-rows", "2"]])
def test_evaluate_subtopics_equals_ndeval(files: dict[str, Path], extra: list[str]) -> None:
    out = run_cli("evaluate", "--subtopics", str(files["qrels"]), str(files["run"]), "-m", METRICS, "--per-query",
                  "--format", "json", *extra)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    want = _ndeval(RUN)
    per_query = got["per_query"]
    for q in want:
        for m in METRICS.split(","):
            assert per_query[q][m] == pytest.approx(want[q][m], abs=1e-6), (q, m)
    assert "judgments by subtopic: 7 rows, 6 (query, item) pairs" in out.stderr


def test_without_subtopics_one_line_and_exit_2(files: dict[str, Path]) -> None:
    out = run_cli("evaluate", str(files["qrels"]), str(files["run"]), "-m", "alpha-nDCG@20")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().splitlines() == [
        f"rankmeter: error: {files['qrels']}:7: duplicate judgment for query '2', item 'X' (1 duplicate rows in all; "
        "choose a policy with --duplicates max|first|last); if these are judgments by subtopic (query subtopic item "
        "grade, as ndeval reads them), read them with --subtopics: '2 2 X 1'"]
    # judgments that happen not to repeat an item: the metric says what it needs
    (files["qrels"].parent / "plain.txt").write_text("1 0 A 1\n")
    out = run_cli("evaluate", str(files["qrels"].parent / "plain.txt"), str(files["run"]), "-m", "alpha-nDCG@20")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1] == (
        "rankmeter: error: qrels: intent-aware metrics need judgments by subtopic (query subtopic item grade, as "
        "ndeval reads them): read the judgments with --subtopics")


def test_subtopic_column_and_compare(files: dict[str, Path], tmp_path: Path) -> None:
    csv = tmp_path / "q.csv"
    csv.write_text("topic,aspect,docno,rel\n" + "".join(",".join(line.split()) + "\n" for line in QRELS.splitlines()))
    a = run_cli("evaluate", "--subtopic-column", "aspect", str(csv), str(files["run"]), "-m", METRICS,
                "--format", "json")
    b = run_cli("evaluate", "--subtopics", str(files["qrels"]), str(files["run"]), "-m", METRICS, "--format", "json")
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert json.loads(a.stdout)["mean"] == json.loads(b.stdout)["mean"]
    out = run_cli("compare", "--subtopics", str(files["qrels"]), str(files["run"]), str(files["run2"]), "-m",
                  "alpha-nDCG@20,strec@20", "--resamples", "200", "--format", "json")
    assert out.returncode == 0, out.stderr
    assert "alpha-nDCG@20" in out.stdout and "strec@20" in out.stdout
