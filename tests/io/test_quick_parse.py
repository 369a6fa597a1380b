"""The quick TREC parse reads what the normalising parse reads, or hands the text over to it.

Text made of ids, numbers, doubled or edge blanks, tabs, empty lines, ``#`` lines and
missing fields: whenever the quick parse gives a table, the normalising parse gives the
same table; when the normalising parse refuses the text, the quick parse gives nothing.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter._errors import InputError
from rankmeter.io import trec

FIELD = st.sampled_from(["q1", "q2", "Q0", "d1", "d2", "é", "文", "#q", "1", "2.5", "-1", "t", "x"])
SEP = st.sampled_from([" ", " ", " ", "  ", "\t"])
LINE = st.tuples(st.lists(st.tuples(FIELD, SEP), min_size=3, max_size=7), st.sampled_from(["", " "]),
                 st.sampled_from(["", " "]))


def _text(lines) -> bytes:
    out = []
    for fields, lead, trail in lines:
        out.append(lead + "".join(f + s for f, s in fields)[:-1] + trail if fields else "")
    return ("\n".join(out) + "\n").encode()


def _slow(data: bytes, kind: str, comments: bool, monkeypatch) -> pa.Table | None:
    with monkeypatch.context() as m:
        m.setattr(trec, "_quick", lambda *a, **k: None)
        try:
            return trec.parse_trec(data, kind, "t.txt", comments=comments, empty_ok=True).table
        except InputError:
            return None


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(st.one_of(LINE, st.just(((), "", ""))), min_size=1, max_size=6),
       kind=st.sampled_from(["run", "qrels"]), comments=st.booleans())
def test_the_quick_parse_agrees_or_steps_aside(lines, kind, comments) -> None:
    data = _text(lines)
    quick = trec._quick(data, kind, comments, False, threads=False)
    if quick is None:
        return
    with pytest.MonkeyPatch.context() as mp:
        slow = _slow(data, kind, comments, mp)
    assert slow is not None, data  # the quick parse never accepts what the full parse refuses
    assert quick.equals(slow), data


def test_plain_ascii_text_is_read_three_columns_as_text() -> None:
    table = trec._quick(b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\n", "run", True, False, threads=False)
    assert table.schema.names == ["query", "item", "score"]
    assert table.schema.types == [pa.string(), pa.string(), pa.float64()]
    assert table.column("item").to_pylist() == ["d1", "d2"]


def test_bytes_that_are_not_utf8_are_never_labelled_text() -> None:
    assert trec._quick(b"q1 Q0 d\xff 1 2.5 t\n", "run", True, False, threads=False) is None
    with pytest.raises(InputError, match="not UTF-8"):
        trec.parse_trec(b"q1 Q0 d\xff 1 2.5 t\n", "run", "t.txt")


def test_a_worker_range_is_parsed_into_one_chunk_per_column() -> None:
    # a range of several MB, parsed without Arrow's threads (as a range worker does): one block,
    # so the engine finds columns of one chunk and has nothing to copy together
    data = b"".join(b"q%d Q0 d%d %d %d.5 t\n" % (i // 100, i, i % 100 + 1, 100 - i % 100) for i in range(150_000))
    assert len(data) > 3 << 20
    table = trec._quick(data, "run", True, False, threads=False)
    assert table.num_rows == 150_000
    assert [table.column(c).num_chunks for c in table.column_names] == [1, 1, 1]
