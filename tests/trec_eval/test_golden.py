"""`rankmeter trec_eval` against trec_eval's own regression outputs, byte for byte.

The commands are those of trec_eval's Makefile (see ../shared/data/README.md), run
through the real executable; 10.0's outputs and, with ``--compat 9.0.8``, 9.0.8's.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import TREC_DATA, shared_file

MEAS_PARAMS = ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
               "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
               "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test", "results.test"]

COMMANDS = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", MEAS_PARAMS),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "{zscores}", "qrels.test", "results.test"]),
]
EXTRA_10 = [
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("generated/302__v10.0__q_all_trec.txt", ["-q", "-m", "all_trec", "qrels-302.test", "results-302.test"]),
    ("out.test.qrels_jg", ["-q", "-R", "qrels_jg", "-m", "qrels_jg", "qrels.123", "results.test"]),
    ("out.test.qrels_jg", ["-q", "-R", "qrels_jg", "-m", "qrels_jg", "qrels.comments.123", "results.test"]),
    ("out.test.prefs", ["-q", "-R", "prefs", "-m", "all_prefs", "prefs.test", "prefs.results.test"]),
    ("out.test.prefs", ["-q", "-R", "prefs", "-m", "all_prefs", "prefs.comment.test", "prefs.results.test"]),
    ("out.test.qrels_prefs", ["-q", "-R", "qrels_prefs", "-m", "all_prefs", "qrels.test", "results.test"]),
]
EXTRA_908 = [
    ("generated/302__v9.0.8__q_all_trec.txt", ["-q", "-m", "all_trec", "qrels-302.test", "results-302.test"]),
    ("generated/comment__v9.0.8__default.txt", ["qrels.comment.test", "results.comment.test"]),
]


def run_trec_eval(args: list[str], cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", *args], cwd=cwd, input=stdin,
                          capture_output=True, timeout=300)


# the measures that take trec_eval's walk whatever the path (-Z, preferences, judgment groups)
WALK_ONLY = ("-Z", "prefs", "qrels_prefs", "qrels_jg")


def _check(expected: str, args: list[str], compat: str, path: str = "auto") -> None:
    base = TREC_DATA if compat == "10.0" else TREC_DATA / "v9.0.8"
    folder = [] if compat == "10.0" or expected.startswith("generated/") else ["v9.0.8"]
    want = shared_file("data", "trec_eval", *folder, *expected.split("/"))
    zscores = str(base / "zscores_file")
    args = [a.replace("{zscores}", zscores) for a in args]
    if path == "vector" and any(a in WALK_ONLY for a in args):
        path = "auto"
    got = run_trec_eval(["--compat", compat, "--path", path, *args], cwd=TREC_DATA)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout.decode() == want.read_text()


@pytest.mark.parametrize("path", ["vector", "walk"])
@pytest.mark.parametrize("expected,args", COMMANDS + EXTRA_10, ids=[f"{c[0]}:{c[1][-2]}" for c in COMMANDS + EXTRA_10])
def test_trec_eval_10(expected: str, args: list[str], path: str) -> None:
    _check(expected, args, "10.0", path)


@pytest.mark.parametrize("path", ["vector", "walk"])
@pytest.mark.parametrize("expected,args", COMMANDS + EXTRA_908, ids=[c[0] for c in COMMANDS + EXTRA_908])
def test_trec_eval_908(expected: str, args: list[str], path: str) -> None:
    _check(expected, args, "9.0.8", path)


@pytest.mark.parametrize("path", ["vector", "walk"])
def test_stdin_and_gzip(tmp_path: Path, path: str) -> None:
    want = shared_file("data", "trec_eval", "out.test").read_text()
    gz = tmp_path / "qrels.gz"
    gz.write_bytes(gzip.compress((TREC_DATA / "qrels.test").read_bytes()))
    got = run_trec_eval(["--path", path, str(gz), "-"], cwd=tmp_path,
                        stdin=gzip.compress((TREC_DATA / "results.test").read_bytes()))
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout.decode() == want


def test_908_reads_comment_lines_as_data() -> None:
    shared_file("data", "trec_eval", "qrels.test.with-comments")
    got = run_trec_eval(["--compat", "9.0.8", "qrels.test.with-comments", "results.test"], cwd=TREC_DATA)
    assert got.returncode == 2
    err = got.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "qrels.test.with-comments:1:" in err[0] and "expected 4 columns" in err[0]


def test_measure_needs_its_judgment_format() -> None:
    shared_file("data", "trec_eval", "qrels.123")
    got = run_trec_eval(["-m", "map_avgjg", "qrels.123", "results.test"], cwd=TREC_DATA)
    assert got.returncode == 2
    assert "map_avgjg cannot be computed from -R qrels" in got.stderr.decode()
    got = run_trec_eval(["-R", "qrels_jg", "-m", "map", "qrels.123", "results.test"], cwd=TREC_DATA)
    assert got.returncode == 2 and "-R qrels_jg" in got.stderr.decode()


def test_table_files_give_the_same_output(tmp_path: Path) -> None:
    import pandas as pd

    want = shared_file("data", "trec_eval", "out.test.aq").read_text()
    q = pd.read_csv(TREC_DATA / "qrels.test", sep=r"\s+", header=None, names=["query", "iter", "item", "grade"])
    r = pd.read_csv(TREC_DATA / "results.test", sep=r"\s+", header=None,
                    names=["query", "q0", "item", "rank", "score", "tag"], dtype={"score": str})
    r["score"] = r["score"].astype(float)
    q[["query", "item", "grade"]].astype({"query": str}).to_csv(tmp_path / "qrels.csv", index=False)
    r[["query", "item", "score"]].astype({"query": str}).to_parquet(tmp_path / "STANDARD.parquet")
    got = run_trec_eval(["-q", "-m", "all_trec", "qrels.csv", "STANDARD.parquet"], cwd=tmp_path)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout.decode() == want
    q = q.astype({"grade": float})
    q.loc[0, "grade"] = 1.5
    q[["query", "item", "grade"]].to_csv(tmp_path / "bad.csv", index=False)
    got = run_trec_eval(["bad.csv", "STANDARD.parquet"], cwd=tmp_path)
    assert got.returncode == 2 and "not a whole number" in got.stderr.decode()
