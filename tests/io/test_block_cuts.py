"""Blocks of a run file cut anywhere give the rows and line numbers of the whole file (any line ends)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.io.blocks import open_run_blocks

ENDS = st.sampled_from(["\n", "\r\n", "\r"])


@settings(max_examples=60, deadline=None)
@given(ends=st.lists(ENDS, min_size=1, max_size=40), block=st.integers(4, 120), blank=st.booleans())
def test_any_cut_keeps_every_row_and_its_line(tmp_path_factory, ends, block, blank) -> None:
    text, want_lines, line = [], [], 1
    for i, end in enumerate(ends):
        if blank and i % 5 == 2:  # an empty line now and then (after a \r, a \n would join it)
            text.append("\r" if ends[i - 1] == "\r" else end)
            line += 1
        text.append(f"q{i % 3} Q0 d{i} 1 {i % 4}.5 t{end}")
        want_lines.append(line)
        line += 1
    path = tmp_path_factory.mktemp("cuts") / "run.txt"
    path.write_bytes("".join(text).encode())
    src = open_run_blocks(path)
    items = [i for b in src.blocks(1, block_bytes=block) for i in b.table.column("item").to_pylist()]
    assert items == [f"d{i}" for i in range(len(ends))]
    assert [src.line_of(r)[0] for r in range(len(items))] == want_lines


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 30), min_size=1, max_size=12), ends=st.lists(ENDS, min_size=1, max_size=5),
       span=st.integers(8, 400))
def test_query_spans_cover_the_file_and_end_where_queries_end(tmp_path_factory, sizes, ends, span) -> None:
    lines = []
    for q, n in enumerate(sizes):
        for i in range(n):
            lines.append(f"query{q} Q0 d{q}_{i} {i + 1} {n - i} tag{ends[(q + i) % len(ends)]}")
    data = "".join(lines).encode()
    path = tmp_path_factory.mktemp("spans") / "run.txt"
    path.write_bytes(data)
    src = open_run_blocks(path)
    spans = list(src.query_spans(span))
    assert spans[0][0] == 0 and spans[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))  # contiguous, nothing read twice
    starts = {len("".join(lines[:k]).encode()) for k in range(len(lines))}
    firsts = {len("".join(lines[:sum(sizes[:q])]).encode()) for q in range(len(sizes))}  # each query's first line
    for a, _ in spans[1:]:
        assert a in starts and a in firsts  # a range starts at the first line of a query
