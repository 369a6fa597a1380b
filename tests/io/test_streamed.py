"""Readers of a stream (``rankmeter.io.streamed``) against the whole-text readers, on every cut into blocks.

A stream is parsed block by block; what it gives must not depend on where the blocks
are cut: the same judgments or run as the reader of the whole text, and, for a
repeated judgment, the same line. Blocks here are a few dozen bytes, so that a query,
a duplicate and its first occurrence fall into every arrangement of blocks.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter import InputError
from rankmeter.io.source import Input, Timely
from rankmeter.io.streamed import read_stream_checked, read_trec_qrels_stream, read_trec_run_stream
from rankmeter.io.trec import parse_trec_qrels_bytes, parse_trec_run_bytes


def _stream(data: bytes) -> Input:
    return Input("<stdin>", b"", False, False, None, None, io.BytesIO(data))


_ids = st.sampled_from(["q1", "q2", "q3", "007", "7", "é"])
_items = st.sampled_from(["a", "b", "c", "d1", "D1", "x y"[:1]])
_qrels_lines = st.lists(st.tuples(_ids, _items, st.integers(0, 3)), min_size=1, max_size=30)


def _qrels_text(lines: list[tuple[str, str, int]], comment: bool) -> bytes:
    body = "".join(f"{q} 0 {d} {g}\n" for q, d, g in lines)
    return (("# judged\n" if comment else "") + body).encode()


@settings(max_examples=60, deadline=None)
@given(lines=_qrels_lines, block=st.integers(8, 120), comment=st.booleans())
def test_judgments_on_a_stream_are_the_files_whatever_the_blocks(lines: list[tuple[str, str, int]], block: int,
                                                                 comment: bool) -> None:
    data = _qrels_text(lines, comment)
    try:
        whole = parse_trec_qrels_bytes(data, "<stdin>")
    except InputError as exc:
        with pytest.raises(InputError) as got:
            read_trec_qrels_stream(_stream(data), block_bytes=block)
        assert (got.value.line, got.value.message.split(" (")[0]) == (exc.line, exc.message.split(" (")[0])
        return
    streamed = read_trec_qrels_stream(_stream(data), block_bytes=block)
    assert streamed.to_dict() == whole.to_dict()
    assert streamed.notes == whole.notes


@settings(max_examples=40, deadline=None)
@given(lines=_qrels_lines, block=st.integers(8, 120), policy=st.sampled_from(["max", "first", "last"]))
def test_a_duplicates_policy_gives_the_files_judgments(lines: list[tuple[str, str, int]], block: int,
                                                        policy: str) -> None:
    data = _qrels_text(lines, False)
    whole = parse_trec_qrels_bytes(data, "<stdin>", duplicates=policy)
    assert read_trec_qrels_stream(_stream(data), block_bytes=block, duplicates=policy).to_dict() == whole.to_dict()


_run_rows = st.lists(st.tuples(_ids, _items, st.integers(0, 9)), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(rows=_run_rows, block=st.integers(8, 120), grouped=st.booleans())
def test_a_run_on_a_stream_is_the_files_whatever_the_blocks(rows: list[tuple[str, str, int]], block: int,
                                                            grouped: bool) -> None:
    if grouped:
        rows = sorted(rows, key=lambda r: r[0])
    data = "".join(f"{q} Q0 {d} {i + 1} {s} t\n" for i, (q, d, s) in enumerate(rows)).encode()
    try:
        whole = parse_trec_run_bytes(data, "<stdin>")
    except InputError:
        with pytest.raises(InputError, match="twice"):
            read_trec_run_stream(_stream(data), block_bytes=block)
        return
    assert read_trec_run_stream(_stream(data), block_bytes=block).to_dict() == whole.to_dict()


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=400).map(lambda b: b.replace(b"\x00", b"")), block=st.integers(4, 100))
def test_a_checked_stream_keeps_its_text_exactly(data: bytes, block: int) -> None:
    assert read_stream_checked(_stream(data), block_bytes=block) == data


@settings(max_examples=30, deadline=None)
@given(data=st.binary(max_size=3000), sizes=st.lists(st.integers(1, 700), min_size=1, max_size=20))
def test_timely_gives_the_bytes_in_order(data: bytes, sizes: list[int]) -> None:
    t = Timely(io.BufferedReader(io.BytesIO(data)), piece=97)
    out = b""
    for n in sizes * (len(data) // max(min(sizes), 1) + 2):
        part = t.read(n)
        assert len(part) <= n
        if not part:
            break
        out += part
    assert out == data
    t.close()
