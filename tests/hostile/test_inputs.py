"""Hostile inputs through the real executable (issues 24 items 5, 6, 18 and 32 items 1, 4, 5, 6a).

Every case runs ``rankmeter`` in a subprocess (:mod:`tests.hostile._run`) and in at
least three commands or entry points: ``evaluate`` in-process, ``evaluate
--chunk-rows`` (the streaming engine), ``trec_eval``, ``compare``, ``split``,
standard input, and the Python readers. A refused input exits 2 with one line that
names the file and what is wrong; none exits 1, prints a traceback or says
``internal error``; each ends within 5 s of wall time (and 5 CPU seconds) and 3x its
input's size + 300 MB of peak memory.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.feather as feather
import pytest

from rankmeter import InputError
from rankmeter.io import read_qrels, read_run
from rankmeter.io.blocks import open_run_blocks

from ._run import MB, Outcome, env, memory_bound, run, run_fed

RUN = b"q1 Q0 a 1 2.5 t\nq1 Q0 b 2 1.5 t\nq2 Q0 c 1 1 t\nq2 Q0 a 2 0.5 t\n"
QRELS = b"q1 0 a 1\nq1 0 b 0\nq2 0 a 1\nq2 0 c 0\n"


def _zstd(data: bytes) -> bytes:
    return pa.Codec("zstd").compress(data, asbytes=True)  # type: ignore[no-any-return]


COMPRESS = {"gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress, "zstd": _zstd}
SUFFIX = {"gzip": ".gz", "bz2": ".bz2", "xz": ".xz", "zstd": ".zst"}


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    (tmp_path / "run.txt").write_bytes(RUN)
    (tmp_path / "other.txt").write_bytes(RUN.replace(b"2.5", b"0.1"))
    return tmp_path


def routes(d: Path, run_path: str, qrels_path: str | None = None) -> dict[str, list[str]]:
    """The commands a run file goes through."""
    q = qrels_path or str(d / "qrels.txt")
    return {
        "evaluate": ["evaluate", q, run_path, "-m", "map", "-m", "P@1", "--format", "csv"],
        "chunks": ["evaluate", q, run_path, "-m", "map", "-m", "P@1", "--format", "csv", "--chunk-rows", "2"],
        "trec_eval": ["trec_eval", q, run_path, "-m", "map", "-m", "P.1"],
        "compare": ["compare", q, run_path, str(d / "other.txt"), "-m", "map", "--format", "csv"],
    }


# --------------------------------------------------------------------------- compressed runs are read


@pytest.mark.slow
@pytest.mark.parametrize("codec", list(COMPRESS))
def test_compressed_runs_give_the_plain_run_s_output_in_every_route(files: Path, codec: str) -> None:
    packed = files / f"run.txt{SUFFIX[codec]}"
    packed.write_bytes(COMPRESS[codec](RUN))
    disguised = files / f"run-{codec}.data"  # decided by the first bytes, whatever the name
    disguised.write_bytes(COMPRESS[codec](RUN))
    plain = routes(files, str(files / "run.txt"))
    for name, path in (("evaluate", packed), ("chunks", disguised), ("trec_eval", packed)):
        want = run(plain[name])
        assert want.returncode == 0, want.stderr
        got = run(routes(files, str(path))[name])
        got.check_clean()
        assert got.returncode == 0, (name, got.stderr)
        assert got.stdout == want.stdout, (name, path)
        got.check_bounds(path.stat().st_size)
    # standard input, and the Python readers (in-process, block reader)
    got = run(["evaluate", str(files / "qrels.txt"), "-", "-m", "map", "--format", "csv"], stdin=COMPRESS[codec](RUN))
    assert got.returncode == 0 and b"map," in got.stdout, got.stderr
    assert read_run(packed).to_lists() == read_run(files / "run.txt").to_lists()
    assert sum(b.table.num_rows for b in open_run_blocks(disguised).blocks(2)) == 4
    # judgments too
    (files / f"qrels.txt{SUFFIX[codec]}").write_bytes(COMPRESS[codec](QRELS))
    assert read_qrels(files / f"qrels.txt{SUFFIX[codec]}").to_dict() == read_qrels(files / "qrels.txt").to_dict()


def test_compressed_interactions_are_split(tmp_path: Path) -> None:
    data = b"user,item,rating,timestamp\n" + b"".join(b"%d,i%d,%d,%d\n" % (u, i, 1 + (u + i) % 5, u * 10 + i)
                                                      for u in range(6) for i in range(4))
    for codec in ("bz2", "xz", "zstd"):
        path = tmp_path / f"inter-{codec}.bin"  # no telling suffix: the first bytes decide
        path.write_bytes(COMPRESS[codec](data))
        got = run(["split", str(path), "--method", "holdout", "--out", str(tmp_path / f"out-{codec}")])
        got.check_clean()
        assert got.returncode == 0, (codec, got.stderr)


@pytest.mark.slow
def test_feather_and_arrow_ipc_are_table_formats(files: Path) -> None:
    table = pa.table({"query": ["q1", "q1", "q2", "q2"], "item": ["a", "b", "c", "a"], "score": [2.5, 1.5, 1.0, 0.5]})
    feather.write_feather(table, files / "run.feather")
    with pa.ipc.new_stream(files / "run.arrows", table.schema) as w:
        w.write_table(table)
    feather.write_feather(pa.table({"query": ["q1", "q1", "q2", "q2"], "item": ["a", "b", "a", "c"],
                                    "grade": [1, 0, 1, 0]}), files / "qrels.feather")
    want = run(routes(files, str(files / "run.txt"))["evaluate"]).stdout
    for path in ("run.feather", "run.arrows"):
        r = routes(files, str(files / path))
        assert read_run(files / path).to_lists() == read_run(files / "run.txt").to_lists()
        got = run(r["evaluate" if path == "run.feather" else "chunks"])
        assert got.returncode == 0 and got.stdout == want, (path, got.stderr)
        got.check_bounds((files / path).stat().st_size)
    got = run(routes(files, str(files / "run.arrows"), str(files / "qrels.feather"))["evaluate"])
    assert got.returncode == 0 and got.stdout == want, got.stderr
    got = run(routes(files, str(files / "run.feather"))["trec_eval"])
    assert got.returncode == 0 and b"map" in got.stdout, got.stderr
    got = run(["evaluate", str(files / "qrels.txt"), "-", "-m", "map", "-m", "P@1", "--format", "csv"],
              stdin=(files / "run.feather").read_bytes())
    assert got.returncode == 0 and got.stdout == want, got.stderr


# --------------------------------------------------------------------------- refused by their first bytes


def _zip(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(name, data)
    return buf.getvalue()


def _tar(name: str, data: bytes, mode: str = "w") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as t:  # type: ignore[call-overload]
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


REFUSED = {
    "run.zip": (lambda: _zip("run.txt", RUN), ["a ZIP archive; unpack it first"]),
    "run.tar": (lambda: _tar("run.txt", RUN), ["a tar archive; unpack it first"]),
    "run.tgz": (lambda: _tar("run.txt", RUN, "w:gz"), ["a tar archive (gzip-compressed)"]),
    "run16.txt": (lambda: RUN.decode().encode("utf-16"), ["UTF-16 (little-endian) text", "UTF-8"]),
    "run16be.txt": (lambda: RUN.decode().encode("utf-16-be"), ["UTF-16 (big-endian) text"]),
    "run32.txt": (lambda: RUN.decode().encode("utf-32"), ["UTF-32 (little-endian) text"]),
    "run.png": (lambda: b"\x89PNG\r\n\x1a\n" + bytes(100), ["a PNG image"]),
    "noise.bin": (lambda: bytes(range(256)) * 40, ["binary data"]),
    "zeros.bin": (lambda: bytes(5000), ["binary data (nothing but zero bytes)"]),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_archives_binaries_and_wide_encodings_are_refused_by_name(files: Path, name: str) -> None:
    make, words = REFUSED[name]
    path = files / name
    path.write_bytes(make())
    r = routes(files, str(path))
    for route in ("evaluate", "chunks", "trec_eval"):
        run(r[route]).check_refused(name, *words)
    for read in (read_run, read_qrels):
        with pytest.raises(InputError, match=words[0].replace("(", r"\(").replace(")", r"\)")):
            read(path)
    if name in ("run.zip", "run16.txt", "noise.bin"):  # as the judgments, on standard input, in compare
        run(r["compare"]).check_refused(name, *words)
        run(["evaluate", str(path), str(files / "run.txt"), "-m", "map"]).check_refused(name, *words)
        run(["evaluate", str(files / "qrels.txt"), "-", "-m", "map"], stdin=path.read_bytes()).check_refused(
            "<stdin>", *words)


def test_archives_are_refused_by_split(tmp_path: Path) -> None:
    data = b"user,item,rating\n1,a,5\n1,b,3\n2,a,4\n"
    for name, content, word in (("i.zip", _zip("i.csv", data), "ZIP archive"), ("i.tar", _tar("i.csv", data), "tar"),
                                ("i16.csv", data.decode().encode("utf-16"), "UTF-16")):
        (tmp_path / name).write_bytes(content)
        run(["split", str(tmp_path / name), "--method", "holdout", "--out", str(tmp_path / "o")]).check_refused(
            name, word)


@pytest.mark.slow
@pytest.mark.parametrize("codec", list(COMPRESS))
def test_truncated_and_corrupt_compressed_files_exit_2_naming_file_and_codec(files: Path, codec: str) -> None:
    big = b"".join(b"q%d Q0 d%d %d %d t\n" % (i // 50, i, i % 50 + 1, 1000 - i % 50) for i in range(20_000))
    whole = COMPRESS[codec](big)
    cut = files / f"cut{SUFFIX[codec]}"
    cut.write_bytes(whole[: len(whole) // 2])  # today: "Aborted." and exit 130 through --chunk-rows and trec_eval
    bad = bytearray(whole)
    for i in range(len(bad) // 3, len(bad) // 3 + 64):
        bad[i] ^= 0x5A
    broken = files / f"broken{SUFFIX[codec]}"
    broken.write_bytes(bytes(bad))
    r = routes(files, str(cut))
    for route in ("evaluate", "chunks", "trec_eval"):
        out = run(r[route])
        out.check_refused(cut.name, f"truncated {codec} data")
        assert "Aborted" not in out.stderr
    run(["evaluate", str(files / "qrels.txt"), "-", "-m", "map"], stdin=cut.read_bytes()).check_refused(
        "<stdin>", f"truncated {codec} data")
    with pytest.raises(InputError, match="truncated"):
        read_run(cut)
    # corrupt data: the codec's words where it can tell (zstd frames without a checksum cannot: then the
    # garbage it gives is reported as such), never an internal error
    run(routes(files, str(broken))["chunks"]).check_refused(broken.name)


# --------------------------------------------------------------------------- lines without end


def test_a_line_over_the_limit_is_an_error_naming_file_and_line(files: Path) -> None:
    long = files / "long.txt"
    long.write_bytes(RUN + b"x" * (3 * MB) + b"\n" + RUN)
    packed = files / "long.txt.gz"
    packed.write_bytes(gzip.compress(long.read_bytes()))
    for path in (long, packed):
        for args in routes(files, str(path)).values():
            run(args).check_refused(f"{path.name}:5:", "a line longer than 1 MiB")
    run(["evaluate", str(files / "qrels.txt"), "-", "-m", "map"], stdin=long.read_bytes()).check_refused(
        "<stdin>:5:", "a line longer")
    run(["evaluate", str(long), str(files / "run.txt"), "-m", "map"]).check_refused("long.txt:5:")
    # the limit is configurable
    ok = run(routes(files, str(long))["evaluate"], environ=env(RANKMETER_MAX_LINE_BYTES=str(4 * MB)))
    assert "a line longer" not in ok.stderr and ok.returncode == 2  # (the line is then read, and is malformed)
    with pytest.raises(InputError, match="a line longer than"):
        read_run(packed)


@pytest.mark.slow
def test_line_less_file_and_one_long_gzip_line_end_fast(files: Path) -> None:
    flat = files / "flat.txt"
    flat.write_bytes(b"y" * (50 * MB))
    packed = files / "flat.txt.gz"  # one 200 MB line, compressed: reading it once was quadratic
    with gzip.open(packed, "wb", compresslevel=1) as fh:
        for _ in range(200):
            fh.write(b"y" * MB)
    for path, size in ((flat, flat.stat().st_size), (packed, packed.stat().st_size)):
        for args in routes(files, str(path)).values():
            out = run(args)
            out.check_refused(f"{path.name}:1:", "a line longer than")
            assert out.peak < memory_bound(size), f"{out.peak / MB:.0f} MB"


@pytest.mark.parametrize("role", ["run", "qrels"])
def test_dev_zero_ends_at_once(files: Path, role: str) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    q, r = (str(files / "qrels.txt"), "/dev/zero") if role == "run" else ("/dev/zero", str(files / "run.txt"))
    for args in (["evaluate", q, r, "-m", "map"], ["evaluate", q, r, "-m", "map", "--chunk-rows", "10"],
                 ["trec_eval", q, r, "-m", "map"], ["compare", q, f"a={r}", f"b={r}", "-m", "map"]):
        out = run(args, seconds=30)
        out.check_refused("/dev/zero")
        assert out.peak < memory_bound(0), f"{out.peak / MB:.0f} MB"
    out = run(["evaluate", str(files / "qrels.txt"), "-", "-m", "map"], stdin=Path("/dev/zero"), seconds=30)
    out.check_refused("<stdin>", "zero bytes")


# --------------------------------------------------------------------------- streams


YES = "import sys\nline = b'q1 Q0 a 1 1 t\\n' * 4096\nwhile True:\n    sys.stdout.buffer.write(line)\n"
NOISE = "import os, sys\nwhile True:\n    sys.stdout.buffer.write(os.urandom(1 << 16))\n"
VALID = ("import sys\ni = 0\nwhile True:\n"
         "    sys.stdout.buffer.write(''.join(f'q{i + k} Q0 d{j} {j} {10 - j} t\\n' for k in range(2000) "
         "for j in range(5)).encode())\n    i += 2000\n")


def test_endless_repeated_line_ends_with_the_duplicate_error(files: Path) -> None:
    q = str(files / "qrels.txt")
    for args, words in ((["evaluate", q, "-", "-m", "map"], "item 'a' appears twice for query 'q1'"),
                        (["evaluate", q, "-", "-m", "map", "--chunk-rows", "1000"], "item 'a' appears twice"),
                        (["trec_eval", q, "-", "-m", "map"], "item 'a' is listed twice for one query")):
        out = run_fed(args, YES, seconds=20)
        out.check_refused("<stdin>:2:", words)
        assert out.peak < memory_bound(0), f"{args}: {out.peak / MB:.0f} MB"


def test_binary_noise_on_stdin_ends_within_a_second(files: Path) -> None:
    for args in (["evaluate", str(files / "qrels.txt"), "-", "-m", "map"],
                 ["evaluate", str(files / "qrels.txt"), "-", "-m", "map", "--chunk-rows", "10"],
                 ["trec_eval", str(files / "qrels.txt"), "-", "-m", "map"],
                 ["evaluate", "-", str(files / "run.txt"), "-m", "map"]):
        out = run_fed(args, NOISE, seconds=20)
        out.check_refused("<stdin>", "binary data")
        assert out.cpu < 1.0 + 1.0, out.cpu  # (the interpreter's start-up included)


@pytest.mark.slow
def test_a_valid_endless_stream_is_evaluated_as_it_comes_in_bounded_memory(files: Path) -> None:
    out = run_fed(["evaluate", str(files / "qrels.txt"), "-", "-m", "map"], VALID, seconds=6)
    out.check_clean()
    assert out.killed, (out.returncode, out.stderr)  # still working when stopped: it never waited for the end
    assert out.peak < 500 * MB, f"{out.peak / MB:.0f} MB"


def test_an_ungrouped_stream_says_what_to_do(files: Path) -> None:
    out = run(["evaluate", str(files / "qrels.txt"), "-", "-m", "map"],
              stdin=b"q1 Q0 a 1 2 t\nq2 Q0 c 1 1 t\nq1 Q0 b 2 1 t\n")
    out.check_refused("<stdin>", "not grouped by query", "write it to a file")


# --------------------------------------------------------------------------- messages and sizes


def test_messages_quote_at_most_about_200_characters_of_input(files: Path) -> None:
    name = "x" * 120_000
    for args in (["evaluate", str(files / "qrels.txt"), str(files / "run.txt"), "-m", name],
                 ["compare", str(files / "qrels.txt"), str(files / "run.txt"), str(files / "other.txt"), "-m", name],
                 ["evaluate", str(files / "qrels.txt"), str(files / "run.txt"), "-m", f"ndcg@10,{name}"]):
        out = run(args)
        out.check_clean()
        assert out.returncode == 2
        assert len(out.stderr) < 1000, len(out.stderr)
    long_id = b"q" * 150_000
    (files / "wide.txt").write_bytes(long_id + b" Q0 a 1 x t\n")
    out = run(["evaluate", str(files / "qrels.txt"), str(files / "wide.txt"), "-m", "map"])
    out.check_refused("wide.txt:1:")


def test_utf16_and_bom_configs_are_named(tmp_path: Path) -> None:
    cfg = '[data]\ninteractions = "missing.csv"\n'
    (tmp_path / "bom.toml").write_bytes(b"\xef\xbb\xbf" + cfg.encode())
    out = run(["run-experiment", str(tmp_path / "bom.toml")])
    out.check_clean()
    assert "Invalid statement" not in out.stderr and "missing.csv" in out.stderr, out.stderr
    (tmp_path / "u16.toml").write_bytes(cfg.encode("utf-16"))
    run(["run-experiment", str(tmp_path / "u16.toml")]).check_refused("u16.toml", "UTF-16")


@pytest.fixture(scope="module")
def two_million(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int]:
    """2M queries of one judgment and one ranked item each (61 MB of text; the bound is about 490 MB)."""
    d = tmp_path_factory.mktemp("two_million")
    n = 2_000_000
    qrels, run_file = d / "q.txt", d / "r.txt"
    qrels.write_bytes(b"".join(b"%d 0 d 1\n" % i for i in range(n)))
    run_file.write_bytes(b"".join(b"%d Q0 d 1 1 r\n" % i for i in range(n)))
    return qrels, run_file, qrels.stat().st_size + run_file.stat().st_size


def _python_api(qrels: Path, run_file: Path) -> Outcome:
    """``rankmeter.evaluate`` on the two files in a fresh interpreter, measured as :func:`._run.run` measures a
    command (the launcher of :mod:`tests.hostile._run` reports the interpreter's own CPU time and peak)."""
    import subprocess
    import sys
    import tempfile
    import time

    from ._run import _LAUNCHER

    code = (f"import rankmeter; r = rankmeter.evaluate({str(qrels)!r}, {str(run_file)!r}, 'map'); "
            "assert r.coverage.evaluated == 2_000_000, r.coverage")
    with tempfile.TemporaryDirectory() as d:
        report = str(Path(d) / "usage")
        start = time.monotonic()
        p = subprocess.run([sys.executable, "-S", "-c", _LAUNCHER, report, "120", sys.executable, "-c", code],
                           capture_output=True, text=True, env=env(), timeout=150)
        wall = time.monotonic() - start
        cpu, peak_kb = (float(x) for x in Path(report).read_text().split())
        killed = Path(report + ".killed").exists()
    return Outcome(p.returncode, b"", p.stderr, cpu, wall, int(peak_kb) * 1024, killed, 120)


# 2M one-item queries, route by route (issue 32 item 5): each within the memory bound (482 MiB here) and 5 s of
# wall time. Measured on the shared 2-core machine while other jobs ran (peak; CPU seconds, user + system):
# evaluate 327-338 MiB, 2.6 s; --chunk-rows 389-399 MiB, 2.8-3.0 s; trec_eval 406-411 MiB, 2.8-3.1 s; the Python
# API 367-375 MiB, 2.1-2.5 s (before: 421-462, 435-499, 473-504 and 528-552 MiB; trec_eval 5.5-7 s of CPU)
TWO_MILLION_ROUTES = {
    "evaluate": ["evaluate", "{q}", "{r}", "-m", "map", "--format", "csv"],
    "chunks": ["evaluate", "{q}", "{r}", "-m", "map", "--format", "csv", "--chunk-rows", "100000"],
    "trec_eval": ["trec_eval", "{q}", "{r}", "-m", "map"],
    "python": [],
}


@pytest.mark.slow
@pytest.mark.parametrize("route", list(TWO_MILLION_ROUTES))
def test_two_million_one_item_queries_stay_within_the_bounds(two_million: tuple[Path, Path, int], route: str) -> None:
    qrels, run_file, size = two_million
    if route == "python":
        out = _python_api(qrels, run_file)
    else:
        out = run([a.format(q=qrels, r=run_file) for a in TWO_MILLION_ROUTES[route]], seconds=120)
    out.check_clean()  # (no exit 1, traceback or internal error)
    assert out.returncode == 0, out.stderr[-500:]
    assert out.peak < memory_bound(size), f"{route}: {out.peak / MB:.0f} MB for {size / MB:.0f} MB of input"
    out.check_time()  # the time bound as written: 5 s of wall time (and 5 s of its own CPU)


def test_text_that_merely_starts_like_a_magic_number_is_read(tmp_path: Path) -> None:
    # ids that begin as a file signature would: still a TREC run (the signatures are checked whole)
    for first in ("BZh9", "ARROW1", "FEA1x", "GIF8", "ORC1", "PAR"):
        (tmp_path / "run.txt").write_text(f"{first} Q0 a 1 2 t\n{first} Q0 b 2 1 t\n")
        assert read_run(tmp_path / "run.txt").to_lists() == {first: ["a", "b"]}, first
    (tmp_path / "pad.txt").write_text("q" * 253 + " Q0 ustar 1 2 t\n")  # 'ustar' at byte 257, as in a tar header
    assert len(read_run(tmp_path / "pad.txt")) == 1
