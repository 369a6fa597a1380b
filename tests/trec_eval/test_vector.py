"""The vectorised trec_eval path (registry kernels over every query) against trec_eval's walk, byte for byte."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankmeter._errors import RankmeterError
from rankmeter.cli.trec_eval import _slow_lines, fast_lines
from rankmeter.metrics.trec.engine import Options, expand_selection
from rankmeter.metrics.trec.measures import _seg_scan
from rankmeter.pytrec_eval import near_rounding

from .test_pytrec_eval import judgments_and_run

MEASURE_SETS = [
    ["all_trec"],
    ["all_trec", "relstring.20"],
    ["official", "P.1,3", "ndcg_cut.2,4", "map_cut.3", "unj.2", "rbp.p=0.5", "rbp_resid.p=0.7"],
    ["set", "utility.2,-1,-1,1", "iprec_at_recall.0.25,0.5", "Rprec_mult.0.5,1.5", "11pt_avg"],
    ["ndcg.1=3,2=9", "11pt_avg..25,.5", "G", "Rndcg", "ndcg_rel", "binG", "infAP", "bpref"],
]


def _files(tmp: Path, qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> tuple[str, str]:
    q = tmp / "qrels"
    r = tmp / "run"
    q.write_text("".join(f"{qid} 0 {d} {g}\n" for qid, docs in qrels.items() for d, g in docs.items()))
    r.write_text("".join(f"{qid} Q0 {d} {i} {s!r} tag{qid}\n" for qid, docs in run.items()
                         for i, (d, s) in enumerate(docs.items(), start=1)))
    return str(q), str(r)


def _lines(fn: Any, *args: Any, **kw: Any) -> Any:
    try:
        return fn(*args, **kw)
    except RankmeterError as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(judgments_and_run(), st.sampled_from(MEASURE_SETS), st.sampled_from(["10.0", "9.0.8"]), st.booleans(),
       st.booleans(), st.booleans(), st.sampled_from([None, 1, 3, 7]), st.integers(1, 2), st.sampled_from([0, 50]))
def test_vectorised_output_is_the_walks(tmp_path: Path, data: tuple, measures: list[str], compat: str, q_flag: bool,
                                        complete: bool, judged_only: bool, max_docs: int | None, level: int,
                                        num_docs: int) -> None:
    qrels, run = data
    if compat == "9.0.8":
        measures = [m for m in measures if not m.startswith(("rbp", "unj"))] or ["official"]
    qpath, rpath = _files(tmp_path, qrels, run)
    selected, params = expand_selection(measures, compat)
    opts = Options(level=level, num_docs_in_coll=num_docs, judged_only=judged_only, max_docs=max_docs, compat=compat)
    kw = dict(query_flag=q_flag, complete=complete, summary=True, bug_compatible=False)
    walk = _lines(_slow_lines, qpath, rpath, selected, params, opts, rel_format="qrels", zscore_file=None,
                  stdin=None, **kw)
    fast = _lines(fast_lines, qpath, rpath, selected, params, opts, **kw)
    if isinstance(walk, tuple) and isinstance(walk[0], str):  # the walk refuses: the command says why
        assert fast is None or fast == walk
        return
    if fast is None:  # a mean at a rounding boundary: the command prints the walk's lines
        return
    assert "".join(fast[0]) == "".join(walk[0])
    assert fast[1] == walk[1]  # the notes on stderr


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=6), st.booleans(), st.booleans(), st.booleans(),
       st.integers(0, 2**31))
def test_segment_scan_is_sequential_per_segment(lengths: list[int], whole: bool, maximum: bool, reverse: bool,
                                                 seed: int) -> None:
    rng = np.random.default_rng(seed)
    off = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    v = rng.integers(-3, 5, int(off[-1])).astype(float) if whole else rng.random(int(off[-1]))
    op = np.maximum if maximum else np.add
    got = _seg_scan(v, off, op, reverse=reverse)
    for a, b in zip(off[:-1], off[1:]):
        seg = v[a:b][::-1] if reverse else v[a:b]
        want = op.accumulate(seg)[::-1] if reverse else op.accumulate(seg)
        assert np.array_equal(got[a:b], want)


def test_near_rounding() -> None:
    assert near_rounding(np.array([0.12345, 0.123450000001, 1234.56785])).all()
    assert not near_rounding(np.array([0.1234, 0.12346, 0.5, np.nan])).any()


def te(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("option,value", [("-M", "-3"), ("-N", "-1"), ("-l", "-1"), ("-m", "rbp.p=2"),
                                          ("-m", "rbp_resid.p=0")])
def test_nonsense_option_values_are_refused(tmp_path: Path, option: str, value: str) -> None:
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 x\n")
    got = te(tmp_path, option, value, "q", "r")
    assert got.returncode == 2 and got.stdout == ""
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and (option in lines[0] or option == "-m") and value in lines[0], got.stderr


def test_vector_path_reads_what_trec_eval_reads(tmp_path: Path) -> None:
    # a grade written 2e1 is 2 for trec_eval's atol (20 for a float parser); a score 5.0x is 5.0 for atof:
    # the command gives trec_eval's numbers (its own readers then), the same as the walk
    (tmp_path / "q").write_text("1 0 a 2e1\n1 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 5.0x x\n1 Q0 b 2 4 x\n")
    auto = te(tmp_path, "-q", "-m", "ndcg", "-m", "num_rel", "q", "r")
    walk = te(tmp_path, "--path", "walk", "-q", "-m", "ndcg", "-m", "num_rel", "q", "r")
    assert auto.returncode == 0 and auto.stdout == walk.stdout
    assert te(tmp_path, "--path", "vector", "-m", "ndcg", "q", "r").returncode == 2
