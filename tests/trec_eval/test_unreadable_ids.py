"""`rankmeter trec_eval` and ids trec_eval cannot read (issue 24 item 13, issue 32 item 1).

trec_eval splits fields at C's blanks and prints every other byte of an id raw. Its output
stays byte-identical for every id it can read (non-ASCII UTF-8, latin-1 bytes, U+00A0 or
U+3000 inside an id); an id holding a blank or a control character (C0 but the blanks, and
DEL) is refused with the file and line, exit 2 and one line, in every route of the command:
the vectorised path, trec_eval's walk, standard input, compressed files and table files.
"""

from __future__ import annotations

import bz2
import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter._errors import InputError
from rankmeter.io.treceval import check_ids, parse_qrels_text, parse_results_text

QRELS = b"q1 0 a 1\nq1 0 b 0\nq2 0 a 1\n"
RUN = b"q1 Q0 a 1 2.0 tag\nq1 Q0 b 2 1.0 tag\nq2 Q0 a 1 1.0 tag\n"


def te(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", *args], cwd=cwd, input=stdin,
                          capture_output=True, timeout=120)


def refused(proc: subprocess.CompletedProcess[bytes], where: str, what: str) -> None:
    """Exit 2, nothing on stdout, one line naming ``where`` (file:line) and quoting ``what`` escaped."""
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, err
    assert proc.stdout == b""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"rankmeter: error: {where}: "), err
    assert what in lines[0] and "rankmeter trec_eval refuses it" in lines[0]
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", err), err  # nothing raw reaches the terminal


# --- TREC text: each route, an ESC id and a BEL id ------------------------------------------------------------------

ESC_RUN = RUN.replace(b"q1 Q0 b 2", b"q1 Q0 b\x1b]0;t\x07\x1b[2J 2")  # line 2: the item id retitles, clears
BEL_QRELS = QRELS.replace(b"q2 0 a 1", b"q\x072 0 a 1")  # line 3: the query id rings
TAG_RUN = RUN.replace(b"q2 Q0 a 1 1.0 tag", b"q2 Q0 a 1 1.0 t\x7fg")  # line 3: DEL in the run id


def _write(path: Path, data: bytes, codec: str) -> Path:
    if codec == "gz":
        path = path.with_name(path.name + ".gz")
        path.write_bytes(gzip.compress(data))
    elif codec == "bz2":
        path = path.with_name(path.name + ".bz2")
        path.write_bytes(bz2.compress(data))
    else:
        path.write_bytes(data)
    return path


ROUTES = [  # (extra options, codec of both files, whether the bad file comes on stdin)
    ([], "", False), (["--path", "walk"], "", False), (["--path", "vector"], "", False), ([], "gz", False),
    ([], "bz2", False), (["--path", "walk"], "bz2", False), ([], "", True), (["--compat", "9.0.8"], "", False),
]


@pytest.mark.parametrize(("extra", "codec", "stdin"), ROUTES)
@pytest.mark.parametrize(("bad", "line", "what"), [
    ("run", 2, r"item id 'b\x1b]0;t\x07\x1b[2J'"), ("qrels", 3, r"query id 'q\x072'"), ("tag", 3, r"run id 't\x7fg'")])
def test_control_character_in_an_id_is_refused_with_its_line(tmp_path: Path, extra: list[str], codec: str,
                                                             stdin: bool, bad: str, line: int, what: str) -> None:
    qrels = _write(tmp_path / "qrels", BEL_QRELS if bad == "qrels" else QRELS, codec)
    run = _write(tmp_path / "run", {"run": ESC_RUN, "tag": TAG_RUN}.get(bad, RUN), codec)
    bad_file = qrels if bad == "qrels" else run
    data = bad_file.read_bytes() if stdin else None
    args = [qrels.name, run.name]
    if stdin:
        args[0 if bad == "qrels" else 1] = "-"
    proc = te(tmp_path, *extra, "-m", "map", *args, stdin=data)
    refused(proc, f"{'<stdin>' if stdin else bad_file.name}:{line}", what)


def test_zscore_route_refuses_a_control_character_too(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_bytes(QRELS)
    (tmp_path / "run").write_bytes(ESC_RUN)
    (tmp_path / "z").write_text("q1 map 0.5 0.1\n")
    refused(te(tmp_path, "-Z", "z", "-m", "map", "qrels", "run"), "run:2", r"item id 'b\x1b]0;t\x07\x1b[2J'")


@pytest.mark.parametrize(("fmt", "measure", "judgments", "what"), [
    ("prefs", "prefs_simp", b"q1 g s a 1\nq1 g s b\x1b 0\n", r"item id 'b\x1b'"),
    ("qrels_jg", "map_avgjg", b"q1 g a 1\nq1\x07 g b 0\n", r"query id 'q1\x07'"),
    ("qrels_prefs", "prefs_simp", b"q1 g a 1\nq1\x07 g b 0\n", r"query id 'q1\x07'"),
])
def test_other_judgment_formats_refuse_a_control_character(tmp_path: Path, fmt: str, measure: str, judgments: bytes,
                                                           what: str) -> None:
    (tmp_path / "qrels").write_bytes(judgments)
    (tmp_path / "run").write_bytes(RUN)
    refused(te(tmp_path, "-R", fmt, "-m", measure, "qrels", "run"), "qrels:2", what)


@pytest.mark.parametrize(("bad", "what"), [(b"q1 Q0 b\x1b 2 1.0 tag\n", r"item id 'b\x1b'"),
                                         (b"q1 Q0 b\n", "expected 6 columns (qid iter docno rank sim run_id)")])
def test_endless_stream_ends_at_its_first_bad_line(tmp_path: Path, bad: bytes, what: str) -> None:
    # the run on stdin is checked block by block as it arrives: the bad line ends the command, whatever follows
    # (issue 32 item 1; a malformed line was left to trec_eval's reader after the whole stream, that is never)
    (tmp_path / "qrels").write_bytes(QRELS)
    head = b"q1 Q0 a 1 2.0 tag\n" + bad
    script = (f"import sys\nout = sys.stdout.buffer\nout.write({head!r})\ni = 0\n"
              "while True:\n    i += 1\n    out.write(b'q2 Q0 d' + str(i).encode() + b' 1 1.0 tag\\n')\n")
    feed = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        proc = subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", "-m", "map", "qrels", "-"],
                              cwd=tmp_path, stdin=feed.stdout, capture_output=True, timeout=30)
    finally:
        feed.kill()
        feed.wait()
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2 and proc.stdout == b"", err
    assert err.startswith("rankmeter: error: <stdin>:2: ") and what in err and len(err.splitlines()) == 1


# --- what is not an id, and ids trec_eval reads: accepted, printed byte for byte -----------------------------------

def test_controls_outside_the_ids_are_accepted(tmp_path: Path) -> None:
    # a comment line (10.0), the iteration field and the columns after the sixth are not ids
    (tmp_path / "qrels").write_bytes(b"# judged \x1b[1m today\n" + QRELS.replace(b"q1 0 a", b"q1 \x07 a"))
    (tmp_path / "run").write_bytes(b"# \x07\n" + RUN.replace(b"2.0 tag", b"2.0 tag \x1b[2J"))
    for path in ("auto", "walk"):
        proc = te(tmp_path, "--path", path, "-m", "map", "qrels", "run")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == b"map                   \tall\t1.0000\n"


# ids trec_eval reads as bytes: non-ASCII UTF-8 (among them characters Python's str.split and str.splitlines break
# at: U+00A0, U+3000, U+0085, U+2028) and latin-1 bytes that are not UTF-8
ODD_QRELS = ("q\u00a0x 0 d\u3000e 1\nq\u00a0x 0 f 0\nq\u00e9\u2028 0 d 1\n".encode() + b"q\xe9\xa0 0 d 1\n")
ODD_RUN = ("q\u00a0x Q0 d\u3000e 1 2.0 r\u0085s\nq\u00a0x Q0 f 2 1.0 r\u0085s\nq\u00e9\u2028 Q0 d 1 1.0 r\u0085s\n"
           .encode() + b"q\xe9\xa0 Q0 x 1 1.0 r\xe9\n")
# trec_eval's lines (%-22s\t%s\t%d), queries in byte order
ODD_OUT = b"".join([
    b"num_ret               \tq\xc2\xa0x\t2\n", b"num_rel_ret           \tq\xc2\xa0x\t1\n",
    b"num_ret               \tq\xc3\xa9\xe2\x80\xa8\t1\n", b"num_rel_ret           \tq\xc3\xa9\xe2\x80\xa8\t1\n",
    b"num_ret               \tq\xe9\xa0\t1\n", b"num_rel_ret           \tq\xe9\xa0\t0\n",
    b"runid                 \tall\tr\xe9\n", b"num_ret               \tall\t4\n", b"num_rel_ret           \tall\t2\n",
])


@pytest.mark.parametrize("latin1", [False, True])
@pytest.mark.parametrize(("extra", "codec", "stdin"), [r for r in ROUTES if "9.0.8" not in r[0]])
def test_ids_trec_eval_reads_print_byte_for_byte(tmp_path: Path, extra: list[str], codec: str, stdin: bool,
                                                 latin1: bool) -> None:
    if latin1 and "vector" in extra:
        pytest.skip("the vectorised path reads UTF-8 only (auto takes the walk for other bytes)")
    qrels, run, out = ODD_QRELS, ODD_RUN, ODD_OUT
    if not latin1:  # the last query's lines (and the run id it gives) left out
        qrels, run = qrels[: qrels.index(b"q\xe9\xa0")], run[: run.index(b"q\xe9\xa0")]
        out = b"".join(x + b"\n" for x in out.split(b"\n") if x and b"\xe9\xa0" not in x)
        out = out.replace(b"r\xe9", "r\u0085s".encode()).replace(b"\t4\n", b"\t3\n")
    qrels_file = _write(tmp_path / "qrels", qrels, codec)
    run_file = _write(tmp_path / "run", run, codec)
    args = [qrels_file.name, "-" if stdin else run_file.name]
    proc = te(tmp_path, *extra, "-q", "-m", "runid", "-m", "num_ret", "-m", "num_rel_ret", *args,
              stdin=run_file.read_bytes() if stdin else None)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == out


def test_walk_reads_ids_with_unicode_blanks_whole() -> None:
    # the walk split with Python's str.split: U+00A0 and U+3000 cut an id in two, U+2028 and U+0085 cut the line
    q = parse_qrels_text("q\u00a0x 0 d\u3000e 1\nq\u2028 0 d\u0085 1\n")
    assert q.judgments == {"q\u00a0x": {"d\u3000e": 1}, "q\u2028": {"d\u0085": 1}}
    r = parse_results_text("q\u00a0x Q0 d\u3000e 1 2.0 r\u0085s\r\nq Q0 d 1 1 t\rq Q0 e 2 0 t\n")
    assert r.docnos == {"q\u00a0x": ["d\u3000e"], "q": ["d", "e"]} and r.run_ids["q\u00a0x"] == "r\u0085s"


# --- table files (the tabular route): blanks too --------------------------------------------------------------------

@pytest.mark.parametrize(("name", "content", "where", "what"), [
    ("run.csv", 'query,item,score\nq1,a,2\nq1,"b c",1\n', "run.csv:3", "item id 'b c'"),
    ("run.csv", "query,item,score\nq1,a,2\nq1,b\x07,1\n", "run.csv:3", r"item id 'b\x07'"),
    ("run.csv", 'query,item,score\nq1,a,2\n"q1\x1b[2J",b,1\n', "run.csv:3", r"query id 'q1\x1b[2J'"),
    ("qrels.csv", 'query,item,grade\nq1,a,1\n"q 2",a,1\n', "qrels.csv:3", "query id 'q 2'"),
    ("qrels.csv", "query,item,grade\nq1,a\x1b,1\n", "qrels.csv:2", r"item id 'a\x1b'"),
])
def test_table_ids_with_blanks_or_controls_are_refused(tmp_path: Path, name: str, content: str, where: str,
                                                       what: str) -> None:
    (tmp_path / name).write_text(content)
    (tmp_path / "qrels").write_bytes(QRELS)
    (tmp_path / "run").write_bytes(RUN)
    args = ["qrels", name] if name.startswith("run") else [name, "run"]
    refused(te(tmp_path, "-m", "map", *args), where, what)


def test_parquet_ids_and_run_file_names(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "qrels").write_bytes(QRELS)
    pq.write_table(pa.table({"query": ["q1", "q1"], "item": ["a", "b\x1b[2J"], "score": [2.0, 1.0]}),
                   tmp_path / "run.parquet")
    refused(te(tmp_path, "-m", "map", "qrels", "run.parquet"), "run.parquet:2", r"item id 'b\x1b[2J'")
    # the run id of a table is its file's name: printed only with runid, so refused only then
    good = pa.table({"query": ["q1", "q1", "q\u00e92"], "item": ["a", "b", "a"], "score": [2.0, 1.0, 1.0]})
    pq.write_table(good, tmp_path / "my run.parquet")
    ok = te(tmp_path, "-m", "map", "qrels", "my run.parquet")
    assert ok.returncode == 0 and ok.stdout == b"map                   \tall\t1.0000\n", ok.stderr
    proc = te(tmp_path, "-m", "runid", "qrels", "my run.parquet")
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().startswith("rankmeter: error: my run.parquet: the run id would be the file's name "
                                           "'my run', which holds a blank")
    pq.write_table(good, tmp_path / "run\u00e9.parquet")  # non-ASCII ids and names pass as they are
    ok = te(tmp_path, "-q", "-m", "runid", "-m", "num_ret", "qrels", "run\u00e9.parquet")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == ("num_ret               \tq1\t2\nrunid                 \tall\trun\u00e9\n"
                         "num_ret               \tall\t2\n").encode()


# --- check_ids against a slow reference -----------------------------------------------------------------------------

CONTROLS = [chr(c) for c in [*range(0, 9), *range(14, 32), 127]]
ID_FIELDS = {"qrels": (0, 2), "run": (0, 2, 5)}


def _reference(lines: list[list[str]], kind: str, comments: bool) -> int | None:
    """The 1-based number of the first line with a control character in one of its id fields, or None."""
    for n, fields in enumerate(lines, start=1):
        if comments and fields[0].startswith("#"):
            continue
        if any(any(c in fields[i] for c in CONTROLS) for i in ID_FIELDS[kind] if i < len(fields)):
            return n
    return None


_field = st.text(alphabet=st.sampled_from([*"ab#\u00e9\u3000\u00a0", *CONTROLS[:3], "\x1b", "\x7f"]), min_size=1,
                 max_size=4)


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(["qrels", "run"]), comments=st.booleans(), as_bytes=st.booleans(),
       ends=st.sampled_from(["\n", "\r\n", "\r"]), blanks=st.sampled_from([" ", "\t", " \v", "\f "]),
       lines=st.lists(st.lists(_field, min_size=1, max_size=8), min_size=1, max_size=6))
def test_check_ids_matches_a_slow_reference(kind: str, comments: bool, as_bytes: bool, ends: str, blanks: str,
                                            lines: list[list[str]]) -> None:
    text = "".join(blanks.join(fields) + ends for fields in lines)
    want = _reference(lines, kind, comments)
    try:
        check_ids(text.encode() if as_bytes else text, kind, "f", comments=comments)
    except InputError as exc:
        assert exc.line == want and exc.source == "f"
    else:
        assert want is None
