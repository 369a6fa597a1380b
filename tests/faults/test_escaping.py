"""Output that cannot be misread (issue 24.12-13, 32.6b): one escaping rule, reversible, in every format."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from rankmeter.report.escape import NEEDS_ESCAPE, csv_cell, csv_uncell, escape, line_text, unescape

from ._cli import run, write_trec

TAB, LITERAL = "a\tb", "a\\tb"  # a tab, and the four characters a \ t b
TERMINAL = "x\x1b]0;title\x07\x1b[2J"  # retitles and clears a terminal if written raw
LINK, MATH = "[x](javascript:alert(1))", "$x^2$"
BLANK = "q 1"
IDS = [TAB, LITERAL, TERMINAL, LINK, MATH, BLANK, "plain"]

# --------------------------------------------------------------------------- the rule itself

_UNSAFE = re.compile(f"[{NEEDS_ESCAPE[2:]}]")  # what the rule escapes, but the backslash
text = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40) | \
    st.text(alphabet=st.sampled_from(list("\\ntrxuU0123456789abf\t\n\r \x1b\x07'=-+@\u202e\u200b\udce9é")),
            max_size=20)


def slow_escape(s: str) -> str:
    """The rule written out character by character (the obviously-correct reference)."""
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F or ch == "\xad":
            out.append(f"\\x{ord(ch):02x}")
        elif ch in "\u061c\ufeff" or 0x200B <= ord(ch) <= 0x200F or 0x2028 <= ord(ch) <= 0x202E \
                or 0x2060 <= ord(ch) <= 0x2069 or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


@hsettings(max_examples=300)
@given(text)
def test_the_rule_round_trips_and_matches_its_reference(s: str) -> None:
    e = escape(s)
    assert e == slow_escape(s)
    assert unescape(e) == s
    assert not _UNSAFE.search(e)  # nothing left that a terminal or a line reader would act on
    t = line_text(s)
    assert unescape(t) == s and not re.search(r"\s", t)  # one field of a whitespace-separated line
    c = csv_cell(s)
    assert csv_uncell(c) == s and not c.startswith(("=", "+", "-", "@"))


@hsettings(max_examples=200)
@given(text, text)
def test_two_different_texts_never_print_the_same(a: str, b: str) -> None:
    if a != b:
        assert escape(a) != escape(b) and line_text(a) != line_text(b) and csv_cell(a) != csv_cell(b)


def test_the_two_ids_of_the_issue() -> None:
    assert escape(TAB) == "a\\tb" and escape(LITERAL) == "a\\\\tb"
    with pytest.raises(ValueError):
        unescape("a\\qb")  # the rule never writes it


# --------------------------------------------------------------------------- through the command line


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("escaping")
    q, r = write_trec(d, IDS)
    return {"qrels": q, "run": r, "dir": d}


def _evaluate(files: dict[str, Path], fmt: str) -> str:
    out = run("evaluate", str(files["qrels"]), str(files["run"]), "-m", "P@1", "--per-query", "--format", fmt)
    assert out.returncode == 0, out.stderr
    return out.stdout.decode("utf-8")


def test_csv_rows_are_distinct_and_read_back(files: dict[str, Path]) -> None:
    rows = list(csv.reader(io.StringIO(_evaluate(files, "csv"))))
    assert [csv_uncell(r[0]) for r in rows[1:-1]] == sorted(IDS)
    assert len({r[0] for r in rows}) == len(rows)


def test_trec_lines_have_three_fields_and_read_back(files: dict[str, Path]) -> None:
    lines = _evaluate(files, "trec").splitlines()
    assert all(len(line.split()) == 3 for line in lines)  # a blank in an id no longer splits the line
    assert [unescape(line.split()[1]) for line in lines[:-1]] == sorted(IDS)
    assert "q\\x201" in lines[[unescape(x.split()[1]) for x in lines].index(BLANK)]


def test_table_rows_are_distinct(files: dict[str, Path]) -> None:
    table = _evaluate(files, "table")
    assert " a\\tb " in table and " a\\\\tb " in table
    assert "\x1b" not in table and "\x07" not in table and "x\\x1b]0;title\\x07\\x1b[2J" in table


def test_markdown_neutralises_links_and_math(files: dict[str, Path]) -> None:
    md = _evaluate(files, "markdown")
    assert LINK not in md and "\\[x\\](javascript:alert(1))" in md
    assert MATH not in md and "\\$x^2\\$" in md
    assert "| a\\\\tb |" in md and "| a\\\\\\\\tb |" in md  # rendered: a\tb and a\\tb, the rule's text
    assert "\x1b" not in md


def test_evaluate_html_has_no_raw_terminal_bytes(files: dict[str, Path]) -> None:
    page = _evaluate(files, "html")
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", page)
    assert "x\\x1b]0;title\\x07\\x1b[2J" in page and "a\\\\tb" in page


def test_compare_html_report_has_no_raw_terminal_bytes(files: dict[str, Path]) -> None:
    pytest.importorskip("matplotlib")
    report = files["dir"] / "report.html"
    out = run("compare", str(files["qrels"]), f"{TERMINAL}={files['run']}", f"b={files['run']}", "-m", "P@1",
              "--resamples", "50", "--html", str(report))
    assert out.returncode == 0, out.stderr
    page = report.read_text(encoding="utf-8")
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", page)
    assert "x\\x1b]0;title\\x07\\x1b[2J" in page
    assert b"\x1b" not in out.stdout + out.stderr


def test_compare_html_takes_dollar_signs_in_names_as_text(files: dict[str, Path]) -> None:
    """A run named like matplotlib math (``$x^$`` cannot parse as math) is drawn as written, never a crash."""
    pytest.importorskip("matplotlib")
    report = files["dir"] / "dollars.html"
    out = run("compare", str(files["qrels"]), f"$x^$={files['run']}", f"b_$\\frac={files['run']}", "-m", "P@1",
              "--resamples", "50", "--html", str(report), "--k-max", "3")
    assert out.returncode == 0, out.stderr
    assert "$x^$" in report.read_text(encoding="utf-8")


def test_experiment_print_escapes_names_and_notes(tmp_path: Path) -> None:
    """ExperimentResult.print: rich leaves ESC as it is, so names and notes are escaped before they reach it."""
    from rich.console import Console

    from rankmeter import experiment

    data = tmp_path / "inter.csv"
    data.write_text("user,item,rating,timestamp\n" + "".join(
        f"u{u},i{(u * 7 + j) % 23},{1 + (u + j) % 5},{u * 100 + j}\n" for u in range(30) for j in range(8)))
    res = experiment(str(data), recommenders={"a\x1b[31mb": "popular", "c\\td": "random"}, k=3, metrics=["P@3"],
                     n_resamples=50)
    res = dataclasses.replace(res, notes=(*res.notes, "a note about a\x1b]0;title\x07"))
    console = Console(record=True, width=200, file=io.StringIO())
    res.print(console)
    shown = console.export_text()
    assert "\x1b" not in shown and "a\\x1b[31mb" in shown and "c\\\\td" in shown and "a\\x1b]0;title" in shown
