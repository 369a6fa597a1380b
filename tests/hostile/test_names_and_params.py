"""Hostile metric names, parameters, sizes and configurations through the real CLI (issue 24, items 7 and 8).

Each case runs the ``rankmeter`` executable in a subprocess and must end in a clean
error or a bounded answer: exit 0 or 2, no traceback, no ``internal error``, within
5 s of wall time (the time of the command itself, measured around the subprocess).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

HUGE = "9" * 5000  # beyond Python's 4300-digit limit of int(text)
LIMIT_S = 5.0


def run_cli(*args: str, cwd: Path | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, timeout=120,
                         cwd=cwd)
    took = time.perf_counter() - start
    assert "internal error" not in out.stderr, out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    return out, took


def refused(*args: str, cwd: Path | None = None) -> str:
    """Run a command that must be refused: exit 2, one ``rankmeter: error:`` line (or click's usage error)."""
    out, took = run_cli(*args, cwd=cwd)
    assert out.returncode == 2, (out.returncode, out.stdout[-500:], out.stderr[-500:])
    assert took < LIMIT_S, f"{took:.1f} s"
    assert len(out.stderr) < 2000, out.stderr[:300]  # a 5000-digit value is not echoed whole
    return out.stderr


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    r = tmp_path / "run.txt"
    r.write_text("1 Q0 a 1 1.0 r\n1 Q0 b 2 0.5 r\n")
    s = tmp_path / "run2.txt"
    s.write_text("1 Q0 b 1 1.0 s\n1 Q0 a 2 0.5 s\n")
    return {"qrels": q, "run": r, "run2": s}


@pytest.mark.parametrize("metric", [f"P@{HUGE}", f"ndcg@{HUGE}", f"P(rel={HUGE})@3", f"rbp(p={HUGE})",
                                    f"ndcg@-{HUGE}", f"P@{'0' * 5000}1{'9' * 30}"])
def test_huge_integers_in_metric_names(files: dict[str, Path], metric: str) -> None:
    err = refused("evaluate", str(files["qrels"]), str(files["run"]), "-m", metric)
    assert "rankmeter: error: The '" in err and ("characters)" in err or "Got 1999999999999999999999999999999 " in err)


@pytest.mark.parametrize("measure", ["ndcg.1=3,2=nan", "ndcg.1=3,2=inf", "ndcg.1=3,2=-inf", "ndcg_rel.2=1e999",
                                     "iprec_at_recall.nan", "iprec_at_recall.inf"])
def test_non_finite_trec_eval_parameters(files: dict[str, Path], measure: str) -> None:
    err = refused("trec_eval", "-m", measure, str(files["qrels"]), str(files["run"]))
    assert f"-m {measure}" in err and "finite" in err


@pytest.mark.parametrize("measure", [f"P.{HUGE}", f"success.{HUGE}"])
def test_huge_trec_eval_cutoff_saturates_as_c(files: dict[str, Path], measure: str) -> None:
    """trec_eval reads cutoffs with C's atol, which saturates at LONG_MAX: so does rankmeter, no crash."""
    out, took = run_cli("trec_eval", "-m", measure, str(files["qrels"]), str(files["run"]))
    assert out.returncode == 0, out.stderr
    assert f"_{2**63 - 1}" in out.stdout and took < LIMIT_S


@pytest.mark.parametrize("nesting", ["[" * 3000 + "]" * 3000, "{ a = " * 3000 + "1" + " }" * 3000])
def test_deeply_nested_config(tmp_path: Path, nesting: str) -> None:
    cfg = tmp_path / "deep.toml"
    cfg.write_text(f"x = {nesting}\n")
    err = refused("run-experiment", str(cfg), "--out", str(tmp_path / "out"))
    assert "deep.toml" in err and "nested too deeply" in err


def test_huge_k_in_config(tmp_path: Path) -> None:
    """k = 99999999999999999 on 30 users x 40 items: the report's curves stop at the data's longest list."""
    cfg = tmp_path / "big.toml"
    cfg.write_text("[data]\ngenerate = { users = 30, items = 40, seed = 0 }\n"
                   "[evaluation]\nk = 99999999999999999\nmetrics = [\"ndcg@99999999999999999\"]\n"
                   "[recommenders]\npopular = {}\nrandom = { seed = 0 }\n")
    out, took = run_cli("run-experiment", str(cfg), "--out", str(tmp_path / "out"), "--no-progress")
    assert out.returncode == 0, out.stderr
    assert took < LIMIT_S, f"{took:.1f} s"  # the whole experiment, fits and report included (~1 s here)
    html = (tmp_path / "out" / "report.html").read_text()
    assert "(not 99999999999999999 as asked: no list of the data is longer than" in html


def test_huge_k_max_in_compare_html(files: dict[str, Path], tmp_path: Path) -> None:
    """--k-max 100000 on one query of two items: the curves stop at k = 2, and a note says so."""
    html = tmp_path / "report.html"
    out, took = run_cli("compare", str(files["qrels"]), str(files["run"]), str(files["run2"]), "-m", "ndcg@10",
                        "--html", str(html), "--k-max", "100000", "--no-progress")
    assert out.returncode == 0, out.stderr
    assert took < LIMIT_S, f"{took:.1f} s"  # matplotlib's import and the figures included (~1 s here)
    assert "metric@k curves stop at k = 2" in out.stderr and "not at the 100000 asked for" in out.stderr
    assert "for k = 1..2;" in html.read_text()


BIG = "99999999999999999999"  # beyond 64 bits, within Python's int()
OPTION_CASES = [
    ("evaluate", "QRELS", "RUN", "-m", "map", "--depth", HUGE),
    ("evaluate", "QRELS", "RUN", "-m", "map", "--depth", BIG),
    ("compare", "QRELS", "RUN", "RUN2", "-m", "map", "--resamples", BIG),
    ("compare", "QRELS", "RUN", "RUN2", "-m", "map", "--k-max", HUGE, "--html", "OUT.html"),
    ("trec_eval", "-M", HUGE, "QRELS", "RUN"),
    ("run-experiment", "CONFIG", "-k", BIG, "-r", "popular", "--out", "OUT"),
    ("run-experiment", "CONFIG", "-k", HUGE, "-r", "popular", "--out", "OUT"),
    ("split", "INTER", "--method", "kfold", "--folds", BIG, "--out", "OUT"),
    ("split", "INTER", "--method", "leave-k-out", "--k", HUGE, "--out", "OUT"),
]


@pytest.mark.parametrize("args", OPTION_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(OPTION_CASES)])
def test_huge_integers_in_options(files: dict[str, Path], tmp_path: Path, args: tuple[str, ...]) -> None:
    cfg = tmp_path / "small.toml"
    cfg.write_text("[data]\ngenerate = { users = 20, items = 30, seed = 0 }\n")
    inter = tmp_path / "inter.csv"
    inter.write_text("user,item\nu1,a\nu1,b\nu2,a\nu2,c\n")
    where = {"QRELS": files["qrels"], "RUN": files["run"], "RUN2": files["run2"], "CONFIG": cfg, "INTER": inter,
             "OUT": tmp_path / "out", "OUT.html": tmp_path / "out.html"}
    err = refused(*[str(where.get(a, a)) for a in args])
    assert "rankmeter: error:" in err or "Error: Invalid value" in err


@pytest.mark.parametrize("option", ["-M", "-l", "-N"])
def test_trec_eval_counts_beyond_64_bits_end_cleanly(files: dict[str, Path], option: str) -> None:
    out, took = run_cli("trec_eval", option, BIG, "-m", "map", "-m", "utility", str(files["qrels"]),
                        str(files["run"]))
    assert out.returncode in (0, 2) and took < LIMIT_S, (out.returncode, f"{took:.1f} s")
