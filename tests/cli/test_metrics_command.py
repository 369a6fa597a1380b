"""``rankmeter metrics`` and the registry's facts as the CLI shows them, through the real executable."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from rankmeter.metrics.registry import all_specs


def run_cli(*args: str, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankmeter", *args], capture_output=True, text=True, **kw)


def test_unknown_family_is_an_error_listing_the_families() -> None:
    out = run_cli("metrics", "--family", "nosuchfamily")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "rankmeter: error: --family 'nosuchfamily' is not a metric family; the families are "
        + ", ".join(sorted({s.family for s in all_specs()}))]
    ok = run_cli("metrics", "--family", "decision")
    assert ok.returncode == 0 and "tn@k" in ok.stdout and "ndcg" not in ok.stdout


@pytest.mark.parametrize("name,shown", [("P_10", "P_10 is p@10"), ("P.10", "P.10 is p@10"), ("map_cut.100", "ap@100"),
                                        ("recip_rank", "rr (ranking)"), ("nDCG(dcg='exp-log2')@10", "ndcg(gain=exp)@10"),
                                        ("set_P", "p(norm=retrieved)"), ("num_nonrel_judged_ret", "a count")])
def test_every_name_evaluate_accepts(name, shown) -> None:
    out = run_cli("metrics", name)
    assert out.returncode == 0, out.stderr
    assert shown in out.stdout


def test_unknown_metric_suggests() -> None:
    out = run_cli("metrics", "ndgc")
    assert out.returncode == 2 and "did you mean ndcg" in out.stderr


@pytest.mark.parametrize("name,text", [("rbp", r"[rel_i \ge rel]"), ("success", r"[\exists i \le k : rel_i \ge rel]"),
                                       ("rbp", "[rbp, rbp + residual]"),
                                       ("tn", "context={'catalog': [ids]}")])
def test_bracketed_text_is_printed_as_written(name, text) -> None:
    out = run_cli("metrics", name, env={**__import__("os").environ, "COLUMNS": "400"})
    assert out.returncode == 0, out.stderr
    assert text in out.stdout


def test_closed_pipe_exits_cleanly() -> None:
    for args in (("metrics", "ndcg"), ("metrics",)):
        p = subprocess.Popen([sys.executable, "-m", "rankmeter", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        assert p.stdout is not None
        p.stdout.readline()
        p.stdout.close()  # like `| head -1`
        err = p.stderr.read() if p.stderr else ""
        # as `cat` does: done before the reader left (0), or ended quietly by SIGPIPE (the shell's 141; issue 32.2)
        assert p.wait() in (0, -signal.SIGPIPE), err
        assert "Traceback" not in err and "error" not in err and err == ""


def test_trec_format_prints_counts_as_integers_and_sums_them(tmp_path) -> None:
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 1\n")
    run.write_text("q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 x 3 1 r\nq2 Q0 c 1 3 r\nq2 Q0 y 2 2 r\n")
    out = run_cli("evaluate", str(qrels), str(run), "-m", "tp@2", "-m", "fp@2", "-m", "fn@2",
                  "-m", "num_nonrel_judged_ret", "-m", "num_ret", "--format", "trec", "--per-query")
    assert out.returncode == 0, out.stderr
    rows = {tuple(line.split()[:2]): line.split()[2] for line in out.stdout.splitlines()}
    # q1: top 2 = a (rel), b (judged 0); q2: c (rel), y (unjudged)
    assert rows[("tp@2", "q1")] == "1" and rows[("tp@2", "all")] == "2"
    assert rows[("fp@2", "q1")] == "1" and rows[("fp@2", "all")] == "2"
    assert rows[("fn@2", "q2")] == "1" and rows[("fn@2", "all")] == "1"
    assert rows[("num_nonrel_judged_ret", "q1")] == "1" and rows[("num_nonrel_judged_ret", "all")] == "1"
    assert rows[("num_ret", "all")] == "5"
