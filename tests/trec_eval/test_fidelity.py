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
