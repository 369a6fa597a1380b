"""`rankmeter trec_eval` where trec_eval's behaviour is easy to get wrong (issue 24): -Z with geometric means,
z-score files, and the input cases docs/trec_eval.md describes. Through the real executable."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest


def te(tmp_path: Path, qrels: str, run: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    return subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", *args, "qrels", "run"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def values(out: str) -> dict[tuple[str, str], str]:
    return {(f[0].strip(), f[1]): f[2] for f in (line.split("\t") for line in out.splitlines())}


# two queries whose relevant item is not retrieved: AP = 0 and bpref = 0, so gm_map's per-query value is log(1e-5)
ZERO_QRELS = "1 0 rel 1\n1 0 a 0\n2 0 rel 1\n2 0 a 0\n"
ZERO_RUN = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 a 1 2.0 r\n"


@pytest.mark.parametrize("compat", ["10.0", "9.0.8"])
def test_zscore_of_gm_map_is_taken_of_its_log(tmp_path: Path, compat: str) -> None:
    # trec_eval (m_gm_map.c, meas_avg.c): each query's value log(max(AP, 1e-5)) becomes its z-score, and the all
    # line is exp of the mean of the z-scores
    (tmp_path / "z").write_text("1 gm_map -6.0 10.0\n2 gm_map -6.0035 10.0\n1 gm_bpref -2.0 4.0\n"
                                "2 gm_bpref -2.0 4.0\n1 map 0.5 0.25\n2 map 0.5 0.25\n")
    proc = te(tmp_path, ZERO_QRELS, ZERO_RUN, "--compat", compat, "-Z", "z", "-m", "gm_map", "-m", "gm_bpref",
              "-m", "map")
    assert proc.returncode == 0, proc.stderr
    got = values(proc.stdout)
    low = math.log(1e-5)
    want = math.exp(((low + 6.0) / 10.0 + (low + 6.0035) / 10.0) / 2)
    assert got[("Zgm_map", "all")] == f"{want:6.4f}" == "0.5763"
    assert got[("Zgm_bpref", "all")] == f"{math.exp((low + 2.0) / 4.0):6.4f}"
    assert got[("Zmap", "all")] == "-2.0000"  # (0 - 0.5) / 0.25 for both queries: arithmetic mean as before


def test_zscore_file_with_a_repeated_line_is_an_error(tmp_path: Path) -> None:
    # trec_eval 10.0 keeps one of the two silently; rankmeter refuses (docs/trec_eval.md, deliberate differences)
    (tmp_path / "z").write_text("1 map 0.5 0.25\n2 map 0.5 0.25\n1 map 0.4 0.2\n")
    proc = te(tmp_path, ZERO_QRELS, ZERO_RUN, "-Z", "z", "-m", "map")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        "rankmeter: error: z:3: query 1, measure map given twice (first on line 1): '1 map 0.4 0.2'"]


# --- docs/trec_eval.md's input cases (issue 24, item 4), each through both of the command's paths ------------------

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 a 1\nq3 0 z 3\n"
RUN = "q1 Q0 a 1 3.0 sysA\nq1 Q0 x 2 2.0 sysA\nq1 Q0 b 3 2.0 sysA\nq1 Q0 c 4 1.0 sysA\nq2 Q0 b 1 1.0 sysA\n"
PATHS = ["auto", "walk"]


@pytest.mark.parametrize("path", PATHS)
def test_judged_query_missing_from_the_run_without_c(tmp_path: Path, path: str) -> None:
    # q3 is judged but not in the run: skipped (as 9.0.8) and said on stderr; trec_eval 10.0 stops (exit code 4),
    # which --bug-compatible reproduces with one line naming the query
    got = te(tmp_path, QRELS, RUN, "--path", path, "-m", "num_q")
    assert got.returncode == 0 and values(got.stdout)[("num_q", "all")] == "2"
    assert "1 judged query without results is not evaluated (q3)" in got.stderr
    bug = te(tmp_path, QRELS, RUN, "--path", path, "--bug-compatible", "-m", "num_q")
    assert bug.returncode == 2 and bug.stdout == ""
    assert bug.stderr.strip().splitlines() == [
        "rankmeter: error: query q3 is judged but has no results: trec_eval 10.0 stops here (exit code 4, "
        "--bug-compatible); without --bug-compatible it is skipped, as 9.0.8 does, and -c counts it"]
    old = te(tmp_path, QRELS, RUN, "--path", path, "--bug-compatible", "--compat", "9.0.8", "-m", "num_q")
    assert old.returncode == 0 and values(old.stdout)[("num_q", "all")] == "2"


@pytest.mark.parametrize("path", PATHS)
def test_c_clean_up_matches_value_names_exactly(tmp_path: Path, path: str) -> None:
    # -c scores q3 on a one-document dummy ranking; trec_eval then zeroes num_ret, utility and rbp_resid by exact
    # name, unj* by prefix, and empties relstring: parameterised names keep the dummy ranking's value
    def q3(*measure: str) -> dict[str, str]:
        proc = te(tmp_path, QRELS, RUN, "--path", path, "-q", "-c", *measure)
        assert proc.returncode == 0, proc.stderr
        return {name: v for (name, qid), v in values(proc.stdout).items() if qid == "q3"}

    assert q3("-m", "utility", "-m", "num_ret", "-m", "relstring") == {"utility": "0.0000", "num_ret": "0",
                                                                       "relstring": "''"}
    # the dummy document is retrieved and not relevant: 2*0 - 1*1 = -1
    assert q3("-m", "utility.2,-1,0,0") == {"utility_2,-1,0,0": "-1.0000"}
    assert q3("-m", "relstring.3") == {"relstring_3": "'-'"}
    assert q3("-m", "rbp_resid") == {"rbp_resid": "0.0000"}
    assert q3("-m", "rbp_resid.p=0.5") == {"rbp_resid_p=0.5": "1.0000"}  # 0.5^1 + (1 - 0.5) * 0.5^0
    assert q3("-m", "unj.3") == {"unj_3": "0.0000"}


@pytest.mark.parametrize("compat", ["10.0", "9.0.8"])
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("qrels", "line", "what"), [
    ("q1 0 a 2\n\nq1 0 b 0\n", 2, "malformed line: blank"),
    ("q1 0 a 2\n   \t\nq1 0 b 0\n", 2, "malformed line: blank"),
    ("q1 0 a 2\nq1 0 b 0\n  # indented\n", 3, "expected 4 columns"),
])
def test_blank_and_indented_hash_lines_in_judgments(tmp_path: Path, path: str, compat: str, qrels: str, line: int,
                                                    what: str) -> None:
    # trec_eval stops on both ("Malformed line"); 10.0 skips as comments only lines that start with '#'
    got = te(tmp_path, qrels, RUN, "--path", path, "--compat", compat, "-m", "map")
    assert got.returncode == 2 and got.stdout == ""
    err = got.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"rankmeter: error: qrels:{line}: {what}")


@pytest.mark.parametrize("path", PATHS)
def test_hexadecimal_score_is_read_as_atof_reads_it(tmp_path: Path, path: str) -> None:
    # glibc's atof reads 0x10 as 16, so a comes first
    run = "q1 Q0 a 1 0x10 r\nq1 Q0 b 2 3 r\nq1 Q0 c 3 2 r\nq1 Q0 d 4 0x1.8p1 r\n"
    got = te(tmp_path, "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq1 0 d 1\n", run, "--path", path, "-q", "-m", "relstring.4")
    # a (16: grade 2), d (3.0, before b by docno: grade 1), b (3: grade 0), c (2: grade 1)
    assert values(got.stdout)[("relstring_4", "q1")] == "'2101'"


@pytest.mark.parametrize("path", PATHS)
def test_nan_score_is_refused_with_its_line(tmp_path: Path, path: str) -> None:
    # trec_eval's order of a nan score depends on its qsort and the line order: rankmeter does not guess it
    got = te(tmp_path, QRELS, "q1 Q0 a 1 3.0 r\nq1 Q0 b 2 nan r\n", "--path", path, "-m", "map")
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.startswith("rankmeter: error: run:2: the score is nan")


@pytest.mark.parametrize("path", PATHS)
def test_908_single_precision_ties_are_said(tmp_path: Path, path: str) -> None:
    # the example: a and b tie in a C float, and b wins by docno (P_1 = 0); 10.0 keeps the doubles (P_1 = 1)
    qrels, run = "1 0 a 1\n1 0 b 0\n", "1 Q0 a 1 1.00000002 r\n1 Q0 b 2 1.00000001 r\n"
    old = te(tmp_path, qrels, run, "--path", path, "--compat", "9.0.8", "-m", "P.1")
    assert values(old.stdout)[("P_1", "all")] == "0.0000"
    assert ("note: run: 1 pair of scores of 1 query differ only beyond single precision: tied, ordered by docno, "
            "as trec_eval 9.0.8 does") in old.stderr
    new = te(tmp_path, qrels, run, "--path", path, "-m", "P.1")
    assert values(new.stdout)[("P_1", "all")] == "1.0000" and "single precision" not in new.stderr


def test_ids_that_are_not_utf8_are_compared_and_printed_as_their_bytes(tmp_path) -> None:
    """latin-1 ids (not UTF-8): trec_eval compares and prints bytes; rankmeter trec_eval did so in output
    but crashed sorting them (str.encode() of a surrogate-escaped id)."""
    import subprocess
    import sys

    (tmp_path / "q").write_bytes(b"q\xe91 0 d1 1\nq\xe91 0 d2 0\nq2 0 d1 1\n")
    (tmp_path / "r").write_bytes(b"q\xe91 Q0 d1 1 2.0 t\nq\xe91 Q0 d2 2 1.0 t\nq2 Q0 d1 1 1.0 t\n")
    for extra in ([], ["-c"], ["-m", "all_trec"]):
        out = subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", "-q", *extra, str(tmp_path / "q"),
                              str(tmp_path / "r")], capture_output=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert b"q\xe91\t" in out.stdout and b"internal error" not in out.stderr
