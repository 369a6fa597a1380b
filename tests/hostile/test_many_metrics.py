"""Thousands of ``-m`` options take time linear in their number (issue 32 item 5), in every command that takes them.

Each command runs through the real executable (:mod:`tests.hostile._run`), once with
10,000 options and once with 20,000, in the same test. Its own CPU time (not wall time:
the suite's machine is shared) must stay under the issue's 5 s at 20,000, and doubling
the options must cost less than 3x: a step quadratic in the options (the CLI once asked
``Result.mean`` for every metric once per metric, and ordered the means by a list
lookup) makes the ratio about 4 and the 20,000 run far slower than 5 s.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ._run import CPU_SECONDS, memory_bound, run

QRELS = b"q1 0 a 1\nq1 0 b 0\nq2 0 a 1\nq2 0 c 2\n"
RUN = b"q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 c 1 1 t\nq2 Q0 a 2 0.5 t\n"
OTHER = b"q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\nq2 Q0 a 1 1 t\nq2 Q0 c 2 0.5 t\n"

# trec_eval's measures, cycled: its names are few, so thousands of -m options repeat them
TREC_MEASURES = ["map", "P.5", "ndcg_cut.10", "recip_rank", "Rprec", "bpref", "num_rel_ret", "recall.10"]


def _options(command: str, n: int) -> list[str]:
    """``n`` ``-m`` options: distinct metrics (``ndcg@1`` ... ``ndcg@n``), or trec_eval's names cycled."""
    out: list[str] = []
    for i in range(n):
        out += ["-m", TREC_MEASURES[i % len(TREC_MEASURES)] if command == "trec_eval" else f"ndcg@{i + 1}"]
    return out


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    (tmp_path / "run.txt").write_bytes(RUN)
    (tmp_path / "other.txt").write_bytes(OTHER)
    (tmp_path / "inter.csv").write_text("user,item,rating,timestamp\n" + "".join(
        f"u{u},i{(u * 7 + j) % 23},{1 + (u + j) % 5},{u * 100 + j}\n" for u in range(40) for j in range(10)))
    return tmp_path


def _command(d: Path, command: str) -> list[str]:
    q, r = str(d / "qrels.txt"), str(d / "run.txt")
    return {
        "evaluate": ["evaluate", q, r, "--format", "csv"],
        "evaluate-table": ["evaluate", q, r],  # the terminal table, one row per metric
        "chunks": ["evaluate", q, r, "--format", "csv", "--chunk-rows", "2"],
        "trec_eval": ["trec_eval", q, r],
        # two runs, each metric evaluated twice, with its interval and its test (few resamples: the bootstrap's
        # own cost is resamples x metrics, linear by construction)
        "compare": ["compare", q, r, str(d / "other.txt"), "--format", "csv", "--resamples", "100"],
        # a recommender trained and evaluated, its HTML report, results.json and means.csv written
        "run-experiment": ["run-experiment", "-i", str(d / "inter.csv"), "--out", str(d / "out"), "-k", "5",
                           "-r", "popular", "--no-progress"],
    }[command]


# options per command, and its CPU seconds allowed: compare does about 3x evaluate's work per metric (two runs,
# an interval each and a test per pair), so it gets fewer, and run-experiment (a model trained, an HTML report
# with a row per metric) fewer still; a rich terminal table costs ~0.2 ms a row, so
# 20,000 rows of it take about 5 s here (linear: the ratio is asserted as for every other command)
SIZES = {"evaluate": (10_000, 20_000), "evaluate-table": (10_000, 20_000), "chunks": (10_000, 20_000),
         "trec_eval": (10_000, 20_000), "compare": (5_000, 10_000), "run-experiment": (2_500, 5_000)}
CPU_ALLOWED = {"evaluate-table": 2 * CPU_SECONDS}


@pytest.mark.slow
@pytest.mark.parametrize("command", list(SIZES))
def test_thousands_of_metric_options_take_linear_time(files: Path, command: str) -> None:
    cpu: dict[int, float] = {}
    small, large = SIZES[command]
    for n in (small, large):
        out = run([*_command(files, command), *_options(command.split("-")[0], n)], seconds=90)
        out.check_clean()
        assert out.returncode == 0, out.stderr[-500:]
        assert not out.killed, f"{command}: still running after {out.wall:.0f} s with {n} -m options"
        assert out.peak < memory_bound(0), f"{command}: {out.peak >> 20} MB"
        cpu[n] = out.cpu
        if command == "run-experiment":
            assert (files / "out" / "means.csv").read_text().count("ndcg@") >= n  # every metric, none dropped
        elif command != "trec_eval":
            assert out.stdout.count(b"ndcg@") >= n, out.stdout[-300:]  # every metric is shown, none dropped
    limit = CPU_ALLOWED.get(command, CPU_SECONDS)
    assert cpu[large] < limit, f"{command}: {cpu[large]:.1f} CPU seconds for {large} -m options"
    assert cpu[large] < 3 * cpu[small], f"{command}: {cpu} (superlinear)"
