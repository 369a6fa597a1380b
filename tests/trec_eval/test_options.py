"""`rankmeter trec_eval` options beyond the regression commands, through the real executable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq1 0 d -1\nq2 0 a 1\nq3 0 z 3\n"
RUN = "q1 Q0 a 1 3.0 sysA\nq1 Q0 x 2 2.0 sysA\nq1 Q0 b 3 2.0 sysA\nq1 Q0 c 4 1.0 sysA\nq2 Q0 b 1 1.0 sysA\n"


def te(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", *args, "qrels", "run"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def values(out: str) -> dict[tuple[str, str], str]:
    return {(f[0].strip(), f[1]): f[2] for f in (line.split("\t") for line in out.splitlines())}


def test_per_query_and_no_summary(tmp_path: Path) -> None:
    got = values(te(tmp_path, "-q", "-n", "-m", "P.1,2", "-m", "num_ret").stdout)
    # q1 ranked a (2), x (unjudged), b (0; ties with x broken by docno descending: x before b), c (1)
    assert got == {("num_ret", "q1"): "4", ("P_1", "q1"): "1.0000", ("P_2", "q1"): "0.5000",
                   ("num_ret", "q2"): "1", ("P_1", "q2"): "0.0000", ("P_2", "q2"): "0.0000"}


def test_judged_only_and_max_docs(tmp_path: Path) -> None:
    got = values(te(tmp_path, "-q", "-J", "-m", "P.2", "-m", "num_ret").stdout)
    assert got[("num_ret", "q1")] == "3" and got[("P_2", "q1")] == "0.5000"  # a, b, c: x dropped
    got = values(te(tmp_path, "-q", "-M1", "-m", "num_ret", "-m", "set_P").stdout)
    assert got[("num_ret", "q1")] == "1" and got[("set_P", "q1")] == "1.0000"


def test_complete_counts_missing_queries(tmp_path: Path) -> None:
    got = values(te(tmp_path, "-c", "-q", "-m", "num_q", "-m", "map", "-m", "num_rel").stdout)
    assert got[("num_q", "all")] == "3" and got[("map", "q3")] == "0.0000"
    got908 = values(te(tmp_path, "--compat", "9.0.8", "-c", "-q", "-m", "num_q", "-m", "map").stdout)
    assert ("map", "q3") not in got908 and got908[("num_q", "all")] == "3"
    assert got908[("map", "all")] == got[("map", "all")]


def test_num_rel_all_line_under_c_and_l(tmp_path: Path) -> None:
    # per query at -l2: q1 has 1 relevant item (a), q2 none, q3 one (z): the consistent sum is 2;
    # trec_eval counts every grade > 0 (4) whatever -l says
    assert values(te(tmp_path, "-c", "-l2", "-m", "num_rel").stdout)[("num_rel", "all")] == "2"
    buggy = te(tmp_path, "-c", "-l2", "-m", "num_rel", "--bug-compatible").stdout
    assert values(buggy)[("num_rel", "all")] == "4"


def test_runid_and_relstring(tmp_path: Path) -> None:
    out = te(tmp_path, "-q", "-m", "runid", "-m", "relstring.3").stdout
    assert out.splitlines() == ["relstring_3           \tq1\t'2-0'", "relstring_3           \tq2\t'-'",
                                "runid                 \tall\tsysA"]


def test_errors_are_one_line_exit_2(tmp_path: Path) -> None:
    for args, text in [(("-m", "nope"), "illegal measure 'nope'"), (("-m", "P.0"), "cutoffs must be positive"),
                       (("-m", "rbp", "--compat", "9.0.8"), "trec_eval 9.0.8 has no such measure"),
                       (("-m", "utility.1,2"), "utility needs exactly 4 coefficients")]:
        got = te(tmp_path, *args)
        assert got.returncode == 2, args
        lines = got.stderr.strip().splitlines()
        assert len(lines) == 1 and text in lines[0], (args, got.stderr)


def test_version(tmp_path: Path) -> None:
    got = te(tmp_path, "-v")
    assert got.returncode == 0 and "10.0" in got.stderr


def test_what_trec_eval_skips_is_said_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("# judged by hand\n" + QRELS)
    (tmp_path / "run").write_text(RUN + "q9 Q0 a 1 1.0 sysA\n")
    got = subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", "-m", "map", "qrels", "run"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert got.returncode == 0 and got.stdout.startswith("map")
    err = got.stderr.splitlines()
    assert "rankmeter trec_eval: note: qrels: 1 comment line skipped" in err
    assert "rankmeter trec_eval: note: run: 1 query without judgments is not evaluated (q9)" in err
    assert "rankmeter trec_eval: note: qrels: 1 judged query without results is not evaluated (q3); -c counts it" in err


def test_zero_over_zero_prints_as_trec_eval(tmp_path: Path) -> None:
    # -M0 leaves nothing retrieved: trec_eval's 0.0/0.0 (x86-64's default NaN, printed -nan)
    got = values(te(tmp_path, "-M0", "-m", "iprec_at_recall.0", "-m", "P.5").stdout)
    assert got[("iprec_at_recall_0.00", "all")] == "  -nan" and got[("P_5", "all")] == "0.0000"


def test_query_judged_only_negatively(tmp_path: Path) -> None:
    # trec_eval fails on such a query when it is the first evaluated; rankmeter evaluates it (nothing relevant),
    # and --bug-compatible fails as trec_eval does, with one line naming the query, when it comes first
    (tmp_path / "q").write_text("q1 0 a 1\nq0 0 a -1\nq0 0 b -2\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1.0 s\nq0 Q0 a 1 1.0 s\nq0 Q0 c 2 0.5 s\n")
    run = [sys.executable, "-m", "rankmeter", "trec_eval", "-q", "-m", "num_rel", "-m", "map", "-m", "ndcg_cut.5"]
    got = subprocess.run([*run, "q", "r"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert got.returncode == 0 and values(got.stdout)[("num_rel", "q0")] == "0"
    assert values(got.stdout)[("map", "q0")] == "0.0000" and values(got.stdout)[("ndcg_cut_5", "q0")] == "0.0000"
    bug = subprocess.run([*run, "--bug-compatible", "q", "r"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert bug.returncode == 2 and bug.stdout == ""
    err = bug.stderr.strip().splitlines()
    assert len(err) == 1 and "query q0 is judged only with negative grades" in err[0]
    # evaluated after another query (q9 sorts after q1), trec_eval goes on: so does --bug-compatible
    (tmp_path / "q").write_text("q1 0 a 1\nq9 0 a -1\nq9 0 b -2\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1.0 s\nq9 Q0 a 1 1.0 s\nq9 Q0 c 2 0.5 s\n")
    later = subprocess.run([*run, "--bug-compatible", "q", "r"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120)
    assert later.returncode == 0 and values(later.stdout)[("num_rel", "q9")] == "0"
