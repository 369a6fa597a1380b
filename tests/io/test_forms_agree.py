"""The same odd data in every form gives the same Qrels and Run (in-process readers and block readers)."""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.io import as_qrels, as_run
from rankmeter.io.blocks import open_run_blocks

ODD_IDS = ["007", "7", "1.0", "1", "1e3", "1000", "2024-01-01", "2024-01-01T10:00:00", "#x", "a\u00a0b", "-1",
           "NaN", "nan", "null", "NULL", "TRUE", "0x10", "1_000", "é", "d#1", "100000000000000000001",
           "100000000000000000002", "a\u2028b", "00", "+1", ".5"]
ids = st.one_of(st.sampled_from(ODD_IDS),
                st.text(alphabet="ab01.-#\u00a0é_", min_size=1, max_size=4).filter(lambda s: not s.isspace()))
SCORES = [0.5, 1.0, 2.0, -1.0, 1000.0, 0.25, 1e-3]


@st.composite
def datasets(draw):  # type: ignore[no-untyped-def]
    pairs = draw(st.lists(st.tuples(ids, ids), min_size=1, max_size=25, unique=True))
    rows = [(q, d, draw(st.sampled_from(SCORES)), draw(st.integers(-2, 4))) for q, d in pairs]
    return rows, draw(st.booleans()), draw(st.booleans())


def _csv_text(header: list[str], rows: list[tuple], sep: str) -> str:
    out = io.StringIO()
    w = csv.writer(out, delimiter=sep, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return out.getvalue()


def _fmt(x: float) -> str:
    return repr(float(x))


@settings(max_examples=40)
@given(datasets())
def test_every_form_gives_the_same_judgments_and_run(data) -> None:  # type: ignore[no-untyped-def]
    rows, bom, seven = data
    b = "\ufeff" if bom else ""
    hash_queries = any(q.startswith("#") for q, *_ in rows)
    comments = not hash_queries  # '#'-led query ids are data only when comments are read as data
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        comment = "" if hash_queries else "# a comment line\n"
        tag = " tag extra" if seven else " tag"
        qsep = "\t" if seven else " "
        (d / "qrels.txt").write_text(b + comment + "".join(f"{q}{qsep}0 {i} {g}\n" for q, i, _, g in rows),
                                     encoding="utf-8")
        gap = "  " if bom else " "  # one blank: the file may be read by pyarrow from its path
        (d / "run.txt").write_text(b + comment + "".join(f"{q} Q0{gap}{i} {n} {_fmt(s)}{tag}\n"
                                                         for n, (q, i, s, _) in enumerate(rows)), encoding="utf-8")
        for sep, name in ((",", "csv"), ("\t", "tsv")):
            (d / f"qrels.{name}").write_text(b + _csv_text(["query", "item", "grade"],
                                                           [(q, i, g) for q, i, _, g in rows], sep), encoding="utf-8")
            (d / f"run.{name}").write_text(b + _csv_text(["query", "item", "score"],
                                                         [(q, i, _fmt(s)) for q, i, s, _ in rows], sep),
                                           encoding="utf-8")
        qdf = pd.DataFrame({"query": [r[0] for r in rows], "item": [r[1] for r in rows],
                            "grade": [r[3] for r in rows]})
        rdf = pd.DataFrame({"query": [r[0] for r in rows], "item": [r[1] for r in rows],
                            "score": [r[2] for r in rows]})
        pq.write_table(pa.Table.from_pandas(qdf, preserve_index=False), d / "qrels.parquet")
        pq.write_table(pa.Table.from_pandas(rdf, preserve_index=False), d / "run.parquet")
        qdict: dict = {}
        rdict: dict = {}
        for q, i, s, g in rows:
            qdict.setdefault(q, {})[i] = g
            rdict.setdefault(q, {})[i] = s

        trec_q = as_qrels(str(d / "qrels.txt"), comments=comments)
        want_q = trec_q.to_dict()
        assert want_q == {q: {i: float(g) for i, g in items.items()} for q, items in qdict.items()}
        assert trec_q.comment_lines == (0 if hash_queries else 1)
        for form in (d / "qrels.csv", d / "qrels.tsv", d / "qrels.parquet", qdf, pl.from_pandas(qdf), qdict):
            got = as_qrels(form if not isinstance(form, Path) else str(form))
            assert got.to_dict() == want_q, form if isinstance(form, Path) else type(form)

        want_r = as_run(str(d / "run.txt"), comments=comments).to_lists()
        assert {q: sorted(v) for q, v in want_r.items()} == {q: sorted(v) for q, v in rdict.items()}
        for form in (d / "run.csv", d / "run.tsv", d / "run.parquet", rdf, pl.from_pandas(rdf), rdict):
            got = as_run(form if not isinstance(form, Path) else str(form))
            assert got.to_lists() == want_r, form if isinstance(form, Path) else type(form)

        # the block readers give the same rows, in file order
        for name in ("run.txt", "run.csv", "run.tsv", "run.parquet"):
            src = open_run_blocks(d / name, comments=comments)
            t = pa.concat_tables([blk.table for blk in src.blocks(4, block_bytes=64)])
            assert t.column("query").to_pylist() == [r[0] for r in rows], name
            assert t.column("item").to_pylist() == [r[1] for r in rows], name
            assert t.column("score").to_pylist() == [r[2] for r in rows], name
