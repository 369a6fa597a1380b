"""Reading judgments by subtopic: every form, the notes, the duplicate policy, the errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankmeter
from rankmeter import InputError, ParameterError
from rankmeter.data import Qrels
from rankmeter.io import as_qrels

NDEVAL = "# diversity qrels\n1 1 A 1\n1 2 B 1\n1 2 D 1\n1 3 C 1\n1 3 A 0\n2 1 X 2\n2 2 X 1\n"
SUBS = {"1": {"1": {"A": 1.0}, "2": {"B": 1.0, "D": 1.0}, "3": {"C": 1.0, "A": 0.0}},
        "2": {"1": {"X": 2.0}, "2": {"X": 1.0}}}


def _subs(q: Qrels) -> dict:
    d = q.subtopics.to_dict(q)
    return {qq: {s: dict(sorted(js.items())) for s, js in per.items()} for qq, per in d.items()}


def _want() -> dict:
    return {q: {s: dict(sorted(js.items())) for s, js in per.items()} for q, per in SUBS.items()}


def test_trec_text(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(NDEVAL)
    q = rankmeter.read_qrels(path, subtopics=True)
    assert _subs(q) == _want()
    # every other metric: the highest grade over the subtopics
    assert q.to_dict() == {"1": {"A": 1.0, "B": 1.0, "D": 1.0, "C": 1.0}, "2": {"X": 2.0}}
    assert q.comment_lines == 1 and q.dropped == 0
    assert q.notes[0] == ("judgments by subtopic: 7 rows, 5 (query, item) pairs, 5 (query, subtopic) pairs; metrics "
                          "that are not intent-aware see each item's highest grade over its subtopics (2 items judged "
                          "under several subtopics)")
    assert "1 comment line" in q.notes[-1]
    gz = tmp_path / "qrels.txt.gz"
    gz.write_bytes(gzip.compress(NDEVAL.encode()))
    assert _subs(rankmeter.read_qrels(gz, subtopics=True)) == _want()


def test_tables_and_dicts(tmp_path: Path) -> None:
    rows = [(q, s, i, g) for q, per in SUBS.items() for s, js in per.items() for i, g in js.items()]
    frame = pd.DataFrame(rows, columns=["query_id", "subtopic", "doc_id", "relevance"])
    frame.to_csv(tmp_path / "q.csv", index=False)
    frame.to_csv(tmp_path / "q.tsv", index=False, sep="\t")
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "q.parquet")
    for form in (tmp_path / "q.csv", tmp_path / "q.tsv", tmp_path / "q.parquet"):
        assert _subs(rankmeter.read_qrels(form, subtopics=True)) == _want(), form
    assert _subs(as_qrels(frame, subtopics=True)) == _want()
    assert _subs(as_qrels(SUBS, subtopics=True)) == _want()
    # a column of another name, named: subtopic= implies subtopics=True
    frame.rename(columns={"subtopic": "nugget"}).to_csv(tmp_path / "n.csv", index=False)
    assert _subs(rankmeter.read_qrels(tmp_path / "n.csv", subtopic="nugget")) == _want()
    # integer subtopic ids are their decimal text
    ints = pd.DataFrame({"query": ["1", "1"], "subtopic": [1, 2], "item": ["A", "B"], "grade": [1, 1]})
    assert as_qrels(ints, subtopics=True).subtopics.subtopic_ids.to_pylist() == ["1", "2"]


def test_duplicates_follow_the_policy(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("1 1 A 1\n1 2 A 0\n1 1 A 2\n")
    with pytest.raises(InputError, match=r"q.txt:3: duplicate judgment for query '1', subtopic '1', item 'A' "
                                         r"\(1 duplicate rows in all; choose a policy with duplicates="):
        rankmeter.read_qrels(path, subtopics=True)
    q = rankmeter.read_qrels(path, subtopics=True, duplicates="max")
    assert q.dropped == 1 and q.subtopics.to_dict(q) == {"1": {"1": {"A": 2.0}, "2": {"A": 0.0}}}
    q = rankmeter.read_qrels(path, subtopics=True, duplicates="first")
    assert q.subtopics.to_dict(q) == {"1": {"1": {"A": 1.0}, "2": {"A": 0.0}}} and q.to_dict() == {"1": {"A": 1.0}}


def test_repeated_items_without_subtopics_hint_at_them(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text(NDEVAL)
    with pytest.raises(InputError, match=r"q.txt:6: duplicate judgment .*read them with subtopics=True"):
        rankmeter.read_qrels(path)
    pd.DataFrame({"topic": ["1", "1"], "aspect": ["a", "b"], "doc": ["A", "A"], "rel": [1, 0]}).to_csv(
        tmp_path / "q.csv", index=False)
    with pytest.raises(InputError, match=r"column 'aspect'; .*subtopics=True"):
        rankmeter.read_qrels(tmp_path / "q.csv")
    assert _subs(rankmeter.read_qrels(tmp_path / "q.csv", subtopics=True)) == {"1": {"a": {"A": 1.0}, "b": {"A": 0.0}}}


def test_errors(tmp_path: Path) -> None:
    pd.DataFrame({"query": ["1"], "item": ["A"], "grade": [1]}).to_csv(tmp_path / "plain.csv", index=False)
    with pytest.raises(InputError, match="subtopic"):
        rankmeter.read_qrels(tmp_path / "plain.csv", subtopics=True)
    with pytest.raises(ParameterError, match="The 'subtopics' parameter must be True or False. Got 'yes' instead."):
        rankmeter.read_qrels(tmp_path / "plain.csv", subtopics="yes")
    with pytest.raises(InputError, match=r"query '1', subtopic 'A' must be a dict item -> grade \(judgments by "
                                         r"subtopic are \{query: \{subtopic: \{item: grade\}\}\}\), got int"):
        as_qrels({"1": {"A": 1}}, subtopics=True)
    with pytest.raises(InputError, match=r"query '1' must be a dict subtopic -> \{item: grade\}, got list"):
        as_qrels({"1": ["A"]}, subtopics=True)
    (tmp_path / "bad.txt").write_text("1 1 A 1\n1 2 B x\n")
    with pytest.raises(InputError, match=r"bad.txt:2: .*not a number"):
        rankmeter.read_qrels(tmp_path / "bad.txt", subtopics=True)
    (tmp_path / "five.txt").write_text("1 1 A 1 extra\n")
    with pytest.raises(InputError, match="five.txt"):
        rankmeter.read_qrels(tmp_path / "five.txt", subtopics=True)


def test_a_single_subtopic_everywhere_is_noted() -> None:
    q = Qrels.from_subtopic_columns(["1", "2"], ["0", "0"], ["A", "B"], [1, 1])
    assert any("every query has a single subtopic" in n for n in q.notes)
    q = Qrels.from_subtopic_columns(["1", "1"], ["0", "1"], ["A", "B"], [1, 1])
    assert not any("single subtopic" in n for n in q.notes)


def test_notes_reach_the_result(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(NDEVAL)
    res = rankmeter.evaluate(rankmeter.read_qrels(path, subtopics=True), {"1": ["A", "B"], "2": ["X"]},
                             ["alpha-nDCG@5", "ndcg@5"])
    assert any(n.startswith("judgments by subtopic: 7 rows") for n in res.notes)


def test_trec_text_with_odd_blanks_and_line_ends(tmp_path: Path) -> None:
    """The subtopic column follows the TREC parser's rules: BOM, \\r\\n and \\r, tabs, \\v, \\f, blank and comment
    lines; with comments=False a '#' query is data."""
    odd = (b"\xef\xbb\xbf# comment\r\n1\t1  A 1\r\n\r\n 1\x0b2\x0cB 1\r1 2 D 1\n   \n# another\n1 3 C\t1\n1 3 A 0\n"
           b"2 1 X 2\n2 2 X 1")
    path = tmp_path / "odd.txt"
    path.write_bytes(odd)
    q = rankmeter.read_qrels(path, subtopics=True)
    assert _subs(q) == _want() and q.comment_lines == 2
    path.write_bytes(b"#q 1 A 1\n#q 2 A 0\n")
    q = rankmeter.read_qrels(path, subtopics=True, comments=False)
    assert q.subtopics.to_dict(q) == {"#q": {"1": {"A": 1.0}, "2": {"A": 0.0}}}
