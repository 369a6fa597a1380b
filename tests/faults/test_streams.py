"""Streams are parsed as they arrive, in bounded memory (issue 32 item 1), in every command that reads one.

A run, judgments or interactions given as ``-`` (or a pipe, or a FIFO) are read block by
block, whatever follows:

- **(a)** an endless *valid* stream is still being worked on when it is killed after 5 s,
  and its peak memory stays under 3x the input consumed + 300 MB;
- **(b)** binary noise on standard input, from the first byte or after a valid start,
  ends the command with exit 2 and one line naming ``<stdin>`` (and the line, when the
  noise follows valid lines) within about a second of CPU;
- **(c)** an endless repetition of one line, where a repeat is forbidden (a run's item
  twice for a query, a judgment twice), ends with the duplicate's error at ``<stdin>:2``.

The commands: ``evaluate`` (the run on a stream, and the judgments on a stream),
``compare`` (a run, and the judgments), ``trec_eval`` (the run, and the judgments), ``fuse`` and ``pool``
(which need the whole run: kept as rows, not text) and ``split`` (the interactions,
which hold no forbidden repeat: (a) and (b) only). None ends with exit 1,
a traceback or ``internal error``. Each case runs the real executable through
:mod:`tests.hostile._run`, which measures the command's own CPU time and peak memory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ..hostile._run import MB, Outcome, memory_bound, run

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="measures the child's peak memory with wait4 (Linux)")

RUN = b"q1 Q0 a 1 2.5 t\nq1 Q0 b 2 1.5 t\nq2 Q0 c 1 1 t\nq2 Q0 a 2 0.5 t\n"
QRELS = b"q1 0 a 1\nq1 0 b 0\nq2 0 a 1\nq2 0 c 0\n"
INTERACTIONS = b"user,item,rating,timestamp\n1,10,4,100\n1,11,3,101\n2,10,5,102\n2,12,1,103\n3,11,2,104\n"

# Endless generators: each writes its output forever and keeps the number of bytes written in the file named by
# its first argument (what the command consumed is at most that, and at least that less the pipe's buffer).
_COUNT = "import sys\ncount = sys.argv[1]\nn = 0\n"
_WRITE_AT_TOP = ("sys.stdout.buffer.write(b)\nsys.stdout.buffer.flush()\nn += len(b)\n"
                 "with open(count, 'w') as f:\n    f.write(str(n))\n")
_WRITE = "".join("    " + x + "\n" for x in _WRITE_AT_TOP.splitlines())  # (in a loop)
#: a valid run: 2000 new queries of 5 items a write, grouped by query
VALID_RUN = (_COUNT + "i = 0\nwhile True:\n"
             "    b = ''.join(f'q{i + k} Q0 d{j} {j} {10 - j} t\\n' for k in range(2000) for j in range(5)).encode()\n"
             "    i += 2000\n" + _WRITE)
#: valid judgments: 2000 new queries of 5 judged items a write
VALID_QRELS = (_COUNT + "i = 0\nwhile True:\n"
               "    b = ''.join(f'q{i + k} 0 d{j} {j % 2}\\n' for k in range(2000) for j in range(5)).encode()\n"
               "    i += 2000\n" + _WRITE)
#: valid interactions (a CSV header, then user,item,rating,timestamp)
VALID_INTERACTIONS = (_COUNT + "sys.stdout.buffer.write(b'user,item,rating,timestamp\\n')\ni = 0\nwhile True:\n"
                      "    b = ''.join(f'{i + k},{k % 97},3,{i + k}\\n' for k in range(10000)).encode()\n"
                      "    i += 10000\n" + _WRITE)
#: random bytes
NOISE = _COUNT + "import os\nwhile True:\n    b = os.urandom(1 << 16)\n" + _WRITE
#: ~2.4 MB of valid lines (more than the 64 KiB read ahead for the format), then random bytes
PREFIX = {
    "run": "''.join(f'q{i} Q0 d{j} {j} 1 t\\n' for i in range(20000) for j in range(5))",
    "qrels": "''.join(f'q{i} 0 d{j} 1\\n' for i in range(40000) for j in range(5))",
    "interactions": "'user,item,rating,timestamp\\n' + ''.join(f'{i},{i % 7},3,{i}\\n' for i in range(200000))",
}


def _noise_after(kind: str) -> str:
    return (_COUNT + f"import os\nb = ({PREFIX[kind]}).encode()\n" + _WRITE_AT_TOP
            + "while True:\n    b = os.urandom(1 << 16)\n" + _WRITE)


def _repeat(line: str) -> str:
    return _COUNT + f"while True:\n    b = {(line + chr(10)).encode()!r} * 4096\n" + _WRITE


def fed(args: list[str], generator: str, *, seconds: float) -> tuple[Outcome, int]:
    """``args`` with standard input fed by an endless ``generator``; the outcome and the bytes it wrote."""
    with tempfile.TemporaryDirectory() as d:
        count = os.path.join(d, "count")
        gen = subprocess.Popen([sys.executable, "-c", generator, count], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
        try:
            assert gen.stdout is not None
            out = run(args, stdin=gen.stdout, seconds=seconds)
        finally:
            gen.kill()
            gen.wait()
            if gen.stdout is not None:
                gen.stdout.close()
        written = int(open(count).read() or 0) if os.path.exists(count) else 0
    return out, written


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    (tmp_path / "run.txt").write_bytes(RUN)
    (tmp_path / "interactions.csv").write_bytes(INTERACTIONS)
    return tmp_path


def _run_commands(d: Path) -> dict[str, list[str]]:
    """Commands with the run on standard input."""
    q, r = str(d / "qrels.txt"), str(d / "run.txt")
    return {
        "evaluate": ["evaluate", q, "-", "-m", "map", "-m", "P@1"],
        "compare": ["compare", q, "-", r, "-m", "map", "--resamples", "100", "--format", "csv"],
        "trec_eval": ["trec_eval", q, "-", "-m", "map"],
        # commands that need the whole run (read_run): parsed and checked as it arrives, kept as rows
        "fuse": ["fuse", "-", f"other={r}"],
        "pool": ["pool", "-", r, "--depth", "5"],
    }


def _qrels_commands(d: Path) -> dict[str, list[str]]:
    """Commands with the judgments on standard input."""
    r = str(d / "run.txt")
    return {
        "evaluate-qrels": ["evaluate", "-", r, "-m", "map"],
        "compare-qrels": ["compare", "-", r, f"other={r}", "-m", "map", "--resamples", "100", "--format", "csv"],
        "trec_eval-qrels": ["trec_eval", "-", r, "-m", "map"],
    }


def _split(d: Path) -> list[str]:
    return ["split", "-", "--method", "holdout", "--out", str(d / "out")]


# ------------------------------------------------------------------ (a) endless valid streams, bounded memory


def _endless_cases(d: Path) -> dict[str, tuple[list[str], str]]:
    cases = {name: (args, VALID_RUN) for name, args in _run_commands(d).items()}
    cases.update({name: (args, VALID_QRELS) for name, args in _qrels_commands(d).items()})
    cases["split"] = (_split(d), VALID_INTERACTIONS)
    return cases


@pytest.mark.slow
@pytest.mark.parametrize("name", ["evaluate", "compare", "trec_eval", "fuse", "evaluate-qrels", "compare-qrels",
                                  "trec_eval-qrels", "split"])
def test_an_endless_valid_stream_is_read_as_it_arrives_in_bounded_memory(files: Path, name: str) -> None:
    args, generator = _endless_cases(files)[name]
    out, written = fed(args, generator, seconds=5)
    out.check_clean()
    assert out.killed, (name, out.returncode, out.stderr[-500:])  # still at work: it never waited for the end
    consumed = max(written - MB, 0)  # (at most the pipe's buffer and one write were not read yet)
    assert consumed > 0, (name, written)
    assert out.peak < memory_bound(consumed), (
        f"{name}: {out.peak / MB:.0f} MB peak after {consumed / MB:.0f} MB consumed")


# ------------------------------------------------------------------ (b) binary noise


def _noise_cases(d: Path) -> dict[str, tuple[list[str], str]]:
    cases = {name: (args, "run") for name, args in _run_commands(d).items()}
    cases.update({name: (args, "qrels") for name, args in _qrels_commands(d).items()})
    cases["split"] = (_split(d), "interactions")
    return cases


@pytest.mark.parametrize("name", ["evaluate", "compare", "trec_eval", "fuse", "pool", "evaluate-qrels",
                                  "compare-qrels", "trec_eval-qrels", "split"])
def test_binary_noise_on_stdin_ends_at_once(files: Path, name: str) -> None:
    args, _ = _noise_cases(files)[name]
    out, _ = fed(args, NOISE, seconds=30)
    out.check_refused("<stdin>", "binary data")
    assert out.cpu < 2.0, f"{name}: {out.cpu:.1f} CPU seconds"  # (the interpreter's start-up included)


@pytest.mark.parametrize("name", ["evaluate", "compare", "trec_eval", "fuse", "pool", "evaluate-qrels",
                                  "compare-qrels", "trec_eval-qrels", "split"])
def test_binary_noise_after_valid_lines_ends_at_its_line(files: Path, name: str) -> None:
    args, kind = _noise_cases(files)[name]
    out, _ = fed(args, _noise_after(kind), seconds=30)
    out.check_refused("<stdin>:")
    line = [x for x in out.stderr.splitlines() if x.startswith("rankmeter: error:")][0]
    at = int(line.split("<stdin>:", 1)[1].split(":", 1)[0])
    valid = {"run": 100_000, "qrels": 200_000, "interactions": 200_001}[kind]
    assert valid < at <= valid + 200_000, (name, line[:200])  # a line of the noise, in the block that holds it
    assert out.cpu < 4.0, f"{name}: {out.cpu:.1f} CPU seconds"


# ------------------------------------------------------------------ (c) an endless repeated line


@pytest.mark.parametrize("name", ["evaluate", "compare", "trec_eval", "fuse", "pool", "evaluate-qrels",
                                  "compare-qrels", "trec_eval-qrels"])
def test_an_endless_repeated_line_ends_with_the_duplicate_error(files: Path, name: str) -> None:
    commands = {**_run_commands(files), **_qrels_commands(files)}
    line, words = (("q1 0 a 1", "item 'a' is judged twice for query 'q1'" if name.startswith("trec_eval") else
                    "duplicate judgment for query 'q1', item 'a'") if name.endswith("-qrels") else
                   ("q1 Q0 a 1 1 t", "listed twice" if name == "trec_eval" else "item 'a' appears twice"))
    out, _ = fed(commands[name], _repeat(line), seconds=30)
    out.check_refused("<stdin>:2:", words)
    assert out.cpu < 3.0, f"{name}: {out.cpu:.1f} CPU seconds"
    assert out.peak < memory_bound(0), f"{name}: {out.peak / MB:.0f} MB"


@pytest.mark.parametrize("command", ["evaluate", "trec_eval"])
def test_a_judgment_repeated_blocks_later_is_found_as_it_arrives(files: Path, command: str) -> None:
    """The first judgment and its repeat ~8 MB apart (two blocks): the error names the repeat's line at once,
    though the stream goes on."""
    gen = (_COUNT + "b = b'q1 0 a 1\\n' + ''.join(f'q{i} 0 d 1\\n' for i in range(2, 700002)).encode() "
           "+ b'q1 0 a 0\\n'\n" + _WRITE_AT_TOP + "i = 0\n"
           + "while True:\n    b = b''.join(b'z%d 0 d 1\\n' % (i + k) for k in range(1000))\n    i += 1000\n" + _WRITE)
    out, _ = fed([command, "-", str(files / "run.txt"), "-m", "map"], gen, seconds=30)
    out.check_refused("<stdin>:700002:", "item 'a' is judged twice for query 'q1'" if command == "trec_eval" else
                      "duplicate judgment for query 'q1', item 'a'")


# ------------------------------------------------------------------ a fault, then a stall


#: a fault in the first lines, then a producer that stays silent (and keeps the stream open)
_STALL = {
    "run": "b'q1 Q0 a 1 1 t\\nq1 Q0 b 2 1 t\\nq1 x\\n'",
    "repeat": "b'q1 Q0 a 1 1 t\\nq1 Q0 a 2 1 t\\n'",
    "qrels": "b'q1 0 a 1\\nq1 0 a 1\\n'",
    "interactions": "b'user,item\\n1,2\\n\\x00\\x01\\n'",
}


@pytest.mark.parametrize("name, kind", [("evaluate", "run"), ("compare", "run"), ("evaluate", "repeat"),
                                        ("compare", "repeat"), ("trec_eval", "run"),
                                        ("trec_eval", "repeat"), ("fuse", "repeat"), ("evaluate-qrels", "qrels"),
                                        ("trec_eval-qrels", "qrels"), ("split", "interactions")])
def test_a_fault_before_a_stall_is_reported_at_once(files: Path, name: str, kind: str) -> None:
    """What came is parsed when the stream pauses: the command does not wait for a full block or the end."""
    args = {**_run_commands(files), **_qrels_commands(files), "split": _split(files)}[name]
    gen = _COUNT + f"import time\nb = {_STALL[kind]}\n" + _WRITE_AT_TOP + "time.sleep(120)\n"
    out, _ = fed(args, gen, seconds=30)
    out.check_refused("<stdin>:")
    assert out.wall < 20, f"{name}: {out.wall:.1f} s"


# ------------------------------------------------------------------ what a stream cannot do


def test_compare_refuses_what_needs_a_streamed_runs_rankings(files: Path) -> None:
    q, r = str(files / "qrels.txt"), str(files / "run.txt")
    for extra, words in ((["--overlap"], "--overlap"), (["--html", str(files / "r.html")], "--html")):
        out = run(["compare", q, "-", r, "-m", "map", *extra], stdin=RUN)
        out.check_refused(words, "is a stream", "write it to a file")
        assert not (files / "r.html").exists()


def test_a_streamed_run_compares_as_the_same_file(files: Path) -> None:
    """compare with a run on standard input gives the file's output, for every query rule."""
    (files / "qrels3.txt").write_bytes(QRELS + b"q3 0 x 1\n")
    q, r = str(files / "qrels3.txt"), str(files / "run.txt")
    for queries in ("judged", "qrels", "common"):
        args = ["-m", "map", "-m", "P@1", "--queries", queries, "--resamples", "200", "--format", "csv"]
        piped = run(["compare", q, "a=-", f"b={r}", *args], stdin=RUN)
        filed = run(["compare", q, f"a={r}", f"b={r}", *args])
        assert piped.returncode == filed.returncode == 0, (piped.stderr, filed.stderr)
        assert piped.stdout == filed.stdout, queries
        assert piped.stderr == filed.stderr, queries
