"""trec_eval's names in `rankmeter evaluate`: they parse, mean trec_eval's measures, and `--format trec` prints them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rankmeter.metrics.registry import parse_metric, trec_output_name

from ..conftest import shared_file


def _evaluate(*args: str) -> subprocess.CompletedProcess[str]:
    where = shared_file("data", "trec_eval", "qrels.test").parent  # (skips when ../shared is absent)
    return subprocess.run([sys.executable, "-m", "rankmeter", "evaluate", "qrels.test", "results.test",
                           "--queries", "run", "--format", "trec", *args], cwd=where, capture_output=True,
                          text=True, timeout=300)


def _golden_all(name: str) -> dict[str, str]:
    out = {}
    for line in shared_file("data", "trec_eval", name).read_text().splitlines(keepends=True):
        m, q, _ = line.split("\t")
        if q == "all":
            out[m.strip()] = line
    return out


def test_every_trec_eval_name_prints_trec_evals_line() -> None:
    # every measure trec_eval 10.0 prints for -m all_trec, requested by the name it prints: rankmeter's
    # `all` line is trec_eval's, byte for byte (rbp: rankmeter's own RBP keeps the name, see below)
    want = _golden_all("out.test.a")
    names = [n for n in want if n not in ("runid", "relstring", "rbp")]
    got = _evaluate(*[a for n in names for a in ("-m", n)])
    assert got.returncode == 0, got.stderr
    lines = {line.split("\t")[0].strip(): line + "\n" for line in got.stdout.splitlines()}
    for n in names:
        assert lines.get(n) == want[n], n


@pytest.mark.parametrize("typed,printed", [
    ("ndcg@10", "ndcg_cut_10"), ("ndcg_cut.10", "ndcg_cut_10"), ("iprec_at_recall(recall=0.1)", "iprec_at_recall_0.10"),
    ("rprec_mult(mult=0.2)", "Rprec_mult_0.20"), ("iprec_avg", "11pt_avg"), ("trec_rbp", "rbp"),
    ("trec_rbp(residual=true)", "rbp_resid"), ("unj@5", "unj_5"), ("gm_ap", "gm_map"), ("ap", "map"),
    ("P(rel=2)@10", "P(rel=2)@10"), ("rbp", "rbp(rel=1,p=0.8,residual=false,gain=binary)"),
])
def test_format_trec_prints_trec_evals_name(typed: str, printed: str) -> None:
    got = _evaluate("-m", typed)
    assert got.returncode == 0, got.stderr
    assert got.stdout.split("\t")[0].strip() == printed


def test_trec_eval_names_parse() -> None:
    assert parse_metric("iprec_at_recall_0.10").canonical == "iprec_at_recall(recall=0.1)"
    assert parse_metric("Rprec_mult_0.20").canonical == "rprec_mult(mult=0.2)"
    assert parse_metric("Rprec_mult.1.5").canonical == "rprec_mult(mult=1.5)"
    assert parse_metric("11pt_avg").canonical == "iprec_avg"
    assert parse_metric("unj_5").canonical == "unj@5"
    assert trec_output_name("iprec_at_recall(recall=0.1,round=9.0.8)") is None  # 9.0.8's convention: not 10.0's


def test_rbp_resid_is_trec_evals_and_rankmeters_residual_keeps_its_name() -> None:
    # trec_eval's name means trec_eval's measure; rankmeter's own residual is rbp(residual=true)
    assert parse_metric("rbp_resid").canonical == "trec_rbp(residual=true)"
    assert parse_metric("rbp(residual=true)").spec.name == "rbp"
    want = _golden_all("out.test.a")
    got = _evaluate("-m", "rbp_resid", "-m", "rbp(residual=true)")
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines(keepends=True)
    assert lines[0] == want["rbp_resid"]
    assert lines[1].startswith("rbp(residual=true)    \tall\t0.0068")


def test_trec_eval_names_that_are_also_rankmeter_names_mean_trec_evals_measure() -> None:
    # every trec_eval measure name (and printed value name) that parses resolves to a metric whose
    # trec_eval name is that name, but for rbp: rankmeter's documented RBP (docs/trec_eval.md)
    want = _golden_all("out.test.a")
    for name in want:
        if name in ("runid", "relstring", "rbp"):
            continue
        assert trec_output_name(parse_metric(name)) == name, name
    assert trec_output_name(parse_metric("rbp")) is None
