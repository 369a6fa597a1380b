"""Large grades: exponential gains and ERR never overflow silently, and no numpy warning reaches the user.

References are exact: gains 2^g - 1 as Python integers and every product in Fractions
(the log discounts enter as the exact value of their float), so a grade of 1024 or
more is checked against the true ratio, not against another float computation.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import InputError, ParameterError


def exact_ndcg_exp(ranking: list[str], qrels: dict[str, int], k: int | None) -> Fraction:
    def disc(i: int) -> Fraction:
        return Fraction(1.0 / math.log2(i + 1))

    def dcg(grades: list[int]) -> Fraction:
        return sum((Fraction(2 ** max(g, 0) - 1) * disc(i) for i, g in enumerate(grades, start=1)), Fraction(0))

    top = ranking if k is None else ranking[:k]
    ideal = sorted(qrels.values(), reverse=True)
    ideal = ideal if k is None else ideal[:k]
    best = dcg(ideal)
    return dcg([qrels.get(d, 0) for d in top]) / best if best else Fraction(0)


def exact_err(ranking: list[str], qrels: dict[str, int], gmax: int) -> Fraction:
    total, stay = Fraction(0), Fraction(1)
    for i, d in enumerate(ranking, start=1):
        r = Fraction(2 ** max(qrels.get(d, 0), 0) - 1, 2**gmax)
        total += stay * r / i
        stay *= 1 - r
    return total


@st.composite
def big_graded(draw):
    items = [f"d{i}" for i in range(draw(st.integers(1, 8)))]
    grades = draw(st.lists(st.integers(0, 1100), min_size=len(items), max_size=len(items)))
    grades[0] = draw(st.integers(1000, 1100))  # a grade beyond 2^1024's reach, always
    qrels = dict(zip(items, grades))
    ranking = draw(st.permutations(items + ["x1", "x2"]))
    k = draw(st.one_of(st.none(), st.integers(1, 6)))
    return qrels, list(ranking), k


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning fails the test
        return fn()


@settings(max_examples=60)
@given(data=big_graded())
def test_ndcg_exp_with_huge_grades_equals_exact_ratio(data) -> None:
    qrels, ranking, k = data
    text = "ndcg(gain=exp)" + (f"@{k}" if k else "")
    got = _quiet(lambda: rankmeter.evaluate({"q": qrels}, {"q": ranking}, [text]).mean[text])
    want = float(exact_ndcg_exp(ranking, qrels, k))
    assert math.isfinite(got)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-300)


@settings(max_examples=60)
@given(data=big_graded())
def test_err_with_huge_grades_equals_exact(data) -> None:
    qrels, ranking, _k = data
    got = _quiet(lambda: rankmeter.evaluate({"q": qrels}, {"q": ranking}, ["err"]).mean["err"])
    want = float(exact_err(ranking, qrels, max(qrels.values())))
    assert math.isfinite(got) and 0 <= got <= 1
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_grade_1024_hand_worked() -> None:
    qrels, run = {"q": {"a": 1024, "b": 3}}, {"q": ["b", "a"]}
    res = _quiet(lambda: rankmeter.evaluate(qrels, run, ["ndcg(gain=exp)", "err"]))
    # ndcg: (7 + (2^1024 - 1)/log2(3)) / (2^1024 - 1 + 7/log2(3)) ~ 1/log2(3)
    assert res.mean["ndcg(gain=exp)"] == pytest.approx(1 / math.log2(3), rel=1e-12)
    # err: R_b ~ 7/2^1024 ~ 0, R_a = 1 - 2^-1024 ~ 1, at rank 2
    assert res.mean["err"] == pytest.approx(0.5, rel=1e-12)


def test_dcg_beyond_float_is_an_error_naming_the_grade() -> None:
    with pytest.raises(InputError, match=r"dcg: a grade of 1024 gives a gain 2\^1024 - 1 beyond the largest float"):
        _quiet(lambda: rankmeter.evaluate({"q": {"a": 1024}}, {"q": ["a"]}, ["dcg(gain=exp)"]))
    # 1023 still fits
    assert _quiet(lambda: rankmeter.evaluate({"q": {"a": 1023}}, {"q": ["a"]}, ["dcg(gain=exp)"]).mean[
        "dcg(gain=exp)"]) == float(2**1023 - 1)


def test_err_max_grade_below_a_judged_grade_is_refused() -> None:
    with pytest.raises(ParameterError, match=r"The 'max_grade' parameter of err must be at least the top judged "
                                             r"grade \(4\), the top of the grade scale. Got 1 instead."):
        rankmeter.evaluate({"q": {"a": 4, "b": 1}}, {"q": ["a", "b"]}, ["err(max_grade=1)"])
    ok = rankmeter.evaluate({"q": {"a": 4, "b": 1}}, {"q": ["a", "b"]}, ["err(max_grade=4)", "err"]).mean
    assert ok["err(max_grade=4)"] == ok["err"] == pytest.approx(15 / 16 + (1 / 16) * (1 / 16) / 2)


def test_cli_grade_1024_no_warning_and_exit_codes(tmp_path) -> None:
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q 0 a 1024\nq 0 b 3\n")
    run.write_text("q Q0 b 1 2 r\nq Q0 a 2 1 r\n")
    ok = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate", str(qrels), str(run), "-m", "err",
                         "-m", "ndcg(gain=exp)", "--format", "json"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    # ("provenance", the record's key, spells "nan" inside)
    assert "Warning" not in ok.stderr and "nan" not in ok.stdout.lower().replace("provenance", "")
    bad = subprocess.run([sys.executable, "-m", "rankmeter", "evaluate", str(qrels), str(run), "-m",
                          "dcg(gain=exp)"], capture_output=True, text=True)
    assert bad.returncode == 2 and "grade of 1024" in bad.stderr and "Traceback" not in bad.stderr
