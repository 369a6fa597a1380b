"""Python API misuse raises rankmeter's errors with the usual message, checked up front (#12.10)."""

from __future__ import annotations

import pytest

import rankmeter
from rankmeter._errors import InputError, MetricNameError, ParameterError

QRELS = {"q": {"a": 1}}
RUN = {"q": {"a": 1.0, "b": 0.5}}


@pytest.mark.parametrize("kwargs,error,match", [
    ({"queries": 5}, ParameterError, "'queries' parameter of evaluate"),
    ({"queries": "all"}, ParameterError, "'queries' parameter of evaluate"),
    ({"context": "junk"}, ParameterError, "'context' parameter of evaluate"),
    ({"duplicates": "bogus"}, ParameterError, "'duplicates' parameter of evaluate"),  # no duplicate in the data
    ({"order": "random"}, ParameterError, "'order' parameter of evaluate"),
    ({"depth": 0}, ParameterError, "'depth' parameter of evaluate"),
])
def test_bad_keywords_are_refused_up_front(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        rankmeter.evaluate(QRELS, RUN, ["map"], **kwargs)


def test_no_metrics() -> None:
    with pytest.raises(MetricNameError, match="no metric"):
        rankmeter.evaluate(QRELS, RUN, None)  # type: ignore[arg-type]


def test_a_score_beyond_float64_is_an_input_error() -> None:
    with pytest.raises(InputError):
        rankmeter.evaluate(QRELS, {"q": {"a": 10**400}}, ["map"])


def test_streaming_checks_its_keywords_before_reading(tmp_path) -> None:
    run = tmp_path / "r.txt"
    run.write_text("q Q0 a 1 1 t\n")
    for kwargs, name in (({"duplicates": "bogus"}, "duplicates"), ({"context": 3}, "context"),
                         ({"tmp_dir": tmp_path / "nope"}, "tmp_dir"), ({"chunk_rows": 0}, "chunk_rows")):
        with pytest.raises(ParameterError, match=f"'{name}' parameter"):
            rankmeter.evaluate_stream(QRELS, run, ["map"], **kwargs)


def test_clip_without_scale_is_refused() -> None:
    with pytest.raises(ParameterError, match="'clip' parameter"):
        rankmeter.evaluate_ratings([3.0, 1.0], [2.0, 1.5], ["mae"], clip=True)


def test_swapped_inputs_get_a_note() -> None:
    big = {f"q{i}": {f"d{j}": 1 for j in range(20)} for i in range(10)}
    res = rankmeter.evaluate(big, {"q1": {"d1": 1.0}}, ["map"])
    assert any("QRELS" in n and "swapped" in n for n in res.notes)


def test_cli_clip_without_scale_exits_2(tmp_path) -> None:
    import subprocess
    import sys

    (tmp_path / "t.csv").write_text("user,item,rating\nu,a,3\n")
    (tmp_path / "p.csv").write_text("user,item,prediction\nu,a,2.5\n")
    out = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate-ratings", str(tmp_path / "t.csv"),
                          str(tmp_path / "p.csv"), "--clip"], capture_output=True, text=True)
    assert out.returncode == 2 and "--clip" in out.stderr and "--scale" in out.stderr
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr
