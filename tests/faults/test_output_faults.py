"""Output faults (issue 32.2), each in at least three commands: a full disk, a closed pipe, an ASCII-only terminal.

None may end with exit 1, a traceback or ``internal error``, nor take over 5 s of wall time or of CPU time, nor
more than the memory bound (all checked by ``run`` and ``launch``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rankmeter.report.escape import unescape

from ..hostile._run import WALL_BOUND
from ._cli import clean, env, launch, run, write_trec

pytestmark = pytest.mark.skipif(not Path("/dev/full").exists() or sys.platform != "linux",
                                reason="needs Linux's /dev/full")

IDS = ["q1", "q2", "qé3", "q中4", "q😀5"]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    q, r = write_trec(tmp_path, IDS)
    trec_q, trec_r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    trec_q.write_text("".join(f"{qid} 0 d1 1\n{qid} 0 d2 0\n" for qid in IDS), encoding="utf-8")
    trec_r.write_text("".join(f"{qid} Q0 d2 1 2 r\n{qid} Q0 d1 2 1 r\n" for qid in IDS), encoding="utf-8")
    return {"qrels": q, "run": r, "trec_qrels": trec_q, "trec_run": trec_r, "dir": tmp_path}


def _commands(f: dict[str, Path]) -> dict[str, list[str]]:
    return {
        "evaluate": ["evaluate", str(f["qrels"]), str(f["run"]), "-m", "P@1", "--per-query"],
        "evaluate-trec": ["evaluate", str(f["qrels"]), str(f["run"]), "-m", "P@1", "--per-query", "--format", "trec"],
        "evaluate-csv": ["evaluate", str(f["qrels"]), str(f["run"]), "-m", "P@1", "--per-query", "--format", "csv"],
        "trec_eval": ["trec_eval", "-q", str(f["trec_qrels"]), str(f["trec_run"])],
        "compare": ["compare", str(f["qrels"]), f"bm25é={f['run']}", f"b😀={f['run']}", "-m", "P@1", "--resamples",
                    "50"],
        "metrics": ["metrics"],
    }


# --------------------------------------------------------------------------- full disk


@pytest.mark.parametrize("name", ["evaluate", "evaluate-csv", "trec_eval", "compare", "metrics"])
def test_full_disk_behind_stdout_is_one_message_and_exit_2(files: dict[str, Path], name: str) -> None:
    with open("/dev/full", "wb") as full:
        out = run(*_commands(files)[name], stdout=full)
    err = out.stderr.decode()
    assert out.returncode == 2, err
    lines = [line for line in err.splitlines() if "error" in line]
    assert lines == ["rankmeter: error: cannot write stdout (/dev/full): No space left on device (ENOSPC)"], err


def test_full_disk_as_the_html_report_names_the_file(files: dict[str, Path]) -> None:
    pytest.importorskip("matplotlib")
    out = run(*_commands(files)["compare"], "--html", "/dev/full")
    err = out.stderr.decode()
    assert out.returncode == 2 and "rankmeter: error: cannot write /dev/full: No space left on device (ENOSPC)" in err


def test_full_disk_as_an_output_file_leaves_nothing_behind(tmp_path: Path) -> None:
    """The atomic writer: a failed write (here: /dev/full as the file) is one OutputError naming the file; a file
    being written whole goes to a temporary name, which a failure removes."""
    from rankmeter._errors import OutputError
    from rankmeter._files import atomic_open, write_text

    with pytest.raises(OutputError, match=r"^cannot write /dev/full: No space left on device \(ENOSPC\)$"):
        write_text("/dev/full", "x" * 100_000)
    target = tmp_path / "report.html"
    target.write_text("old, complete")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as fh:
            fh.write("half")
            raise RuntimeError("interrupted")
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"] and target.read_text() == "old, complete"


@pytest.mark.parametrize("name", ["evaluate", "trec_eval", "metrics"])
def test_stdout_closed_from_the_start_is_one_message_and_exit_2(files: dict[str, Path], name: str) -> None:
    """``rankmeter ... >&-``: no file opened later may take descriptor 1 and receive the output."""
    out = run(*_commands(files)[name], stdout=None, preexec=lambda: os.close(1))
    err = out.stderr.decode()
    assert out.returncode == 2, err
    assert "rankmeter: error: cannot write stdout (closed when rankmeter started): Bad file descriptor (EBADF)" in err


@pytest.mark.parametrize("name", ["evaluate", "trec_eval", "metrics"])
def test_stderr_that_cannot_be_written_is_exit_2_and_stdout_whole(files: dict[str, Path], name: str) -> None:
    with open("/dev/full", "wb") as full:
        p = run(*_commands(files)[name], stderr=full)
    assert p.returncode in (0, 2)  # 2 when it had something to say on stderr
    assert p.stdout  # the output itself is written whole
    if name == "evaluate":
        assert p.returncode == 2  # it has a note to say (the judgment coverage)


# --------------------------------------------------------------------------- closed pipe


@pytest.mark.parametrize("name", ["evaluate", "evaluate-trec", "trec_eval", "compare", "metrics"])
def test_closed_pipe_ends_quietly_by_sigpipe(files: dict[str, Path], name: str) -> None:
    """Like ``cat ... | head -c1`` once the reader is gone: no message, and death by SIGPIPE (the shell's 141)."""
    with launch(*_commands(files)[name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env()) as p:
        assert p.stdout is not None and p.stderr is not None
        p.stdout.close()  # the reader leaves before anything is written
        err = p.stderr.read().decode()
        assert p.wait(timeout=120) == -signal.SIGPIPE, err
    clean(err)
    assert "error" not in err and "Broken pipe" not in err, err


def test_closed_pipe_in_a_shell_is_status_141(tmp_path: Path) -> None:
    """``rankmeter evaluate ... | head -c1`` with more output than a pipe holds: status 141, nothing said."""
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_text("".join(f"q{i} 0 d1 1\n" for i in range(6000)))
    r.write_text("".join(f"q{i} Q0 d1 1 1 r\n" for i in range(6000)))  # 6000 lines of output, ~200 KB
    start = time.monotonic()
    out = subprocess.run(["bash", "-c", f"'{sys.executable}' -m rankmeter evaluate '{q}' '{r}' -m P@1 --per-query "
                                        "--format trec 2>err.txt | head -c1 >/dev/null; echo ${PIPESTATUS[0]}"],
                         capture_output=True, text=True, timeout=120, env=env(), cwd=tmp_path)
    assert time.monotonic() - start < WALL_BOUND  # (the pipeline's wall time, the shell included)
    assert out.stdout.strip() == "141"
    err = (tmp_path / "err.txt").read_text()
    clean(err)
    assert "error" not in err and "Broken pipe" not in err, err


# --------------------------------------------------------------------------- a narrow terminal encoding


@pytest.mark.parametrize("name", ["evaluate", "evaluate-trec", "evaluate-csv", "trec_eval", "compare", "metrics"])
def test_ascii_terminal_gets_escapes_never_a_crash(files: dict[str, Path], name: str) -> None:
    out = run(*_commands(files)[name], environ=env(PYTHONIOENCODING="ascii"))
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode("ascii")  # nothing beyond ASCII
    out.stderr.decode("ascii")
    if name == "compare":
        assert "bm25\\xe9" in text and "b\\U0001f600" in text
    elif name != "metrics":
        assert "q\\xe93" in text and "q\\u4e2d4" in text and "q\\U0001f6005" in text


def test_ascii_terminal_rows_read_back_by_the_rule(files: dict[str, Path]) -> None:
    """The escapes of an ASCII terminal are the rule's: the CSV's ids read back exactly."""
    import csv
    import io

    from rankmeter.report.escape import csv_uncell

    out = run(*_commands(files)["evaluate-csv"], environ=env(PYTHONIOENCODING="ascii"))
    rows = list(csv.reader(io.StringIO(out.stdout.decode("ascii"))))
    assert [csv_uncell(r[0]) for r in rows[1:-1]] == IDS
    trec = run(*_commands(files)["evaluate-trec"], environ=env(PYTHONIOENCODING="ascii")).stdout.decode("ascii")
    assert [unescape(line.split("\t")[1]) for line in trec.splitlines()][:-1] == IDS


def test_ascii_terminal_error_message_is_escaped(files: dict[str, Path]) -> None:
    missing = files["dir"] / "nowhere-é.txt"
    out = run("evaluate", str(files["qrels"]), str(missing), "-m", "P@1", environ=env(PYTHONIOENCODING="ascii"))
    assert out.returncode == 2
    err = out.stderr.decode("ascii")
    assert "nowhere-\\xe9.txt" in err and err.count("rankmeter: error:") == 1


def test_truncated_gzip_is_not_taken_for_ctrl_c(files: dict[str, Path], tmp_path: Path) -> None:
    """A compressed input that ends early is an error (exit 2), never "Aborted." with 130."""
    import gzip

    data = gzip.compress(files["trec_run"].read_bytes() * 50)
    (tmp_path / "cut.txt.gz").write_bytes(data[: len(data) // 2])
    for args in (["trec_eval", str(files["trec_qrels"]), str(tmp_path / "cut.txt.gz")],
                 ["evaluate", str(files["trec_qrels"]), str(tmp_path / "cut.txt.gz"), "-m", "P@1"]):
        out = run(*args)
        err = out.stderr.decode()
        assert out.returncode == 2 and "Aborted" not in err, err


# --------------------------------------------------------------------------- an output file that cannot be written


def _limited(limit: int) -> Callable[[], None]:
    import resource

    def set_limit() -> None:  # files may grow to ``limit`` bytes: a write beyond fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return set_limit


@pytest.mark.parametrize("name", ["run-experiment", "split", "compare-html"])
def test_an_output_file_that_cannot_grow_is_one_message_and_leaves_complete_files(tmp_path: Path, name: str) -> None:
    """An output file the system refuses to grow (EFBIG, as ENOSPC on a full disk): one message naming the file
    and the cause, exit 2; no temporary file left, and the manifest lists only files that are there and complete."""
    import json

    from rankmeter.recsys.output import MANIFEST, complete_files

    if name != "split":
        pytest.importorskip("matplotlib")
    data = tmp_path / "inter.csv"
    data.write_text("user,item,rating,timestamp\n" + "".join(
        f"u{u},i{(u * 7 + j) % 23},{1 + (u + j) % 5},{u * 100 + j}\n" for u in range(40) for j in range(10)))
    out = tmp_path / "out"
    q, r = write_trec(tmp_path, [f"q{i}" for i in range(20)])
    args = {"run-experiment": ["run-experiment", "-i", str(data), "--out", str(out), "-k", "5", "-r", "popular",
                               "-r", "random", "--no-progress"],
            "split": ["split", str(data), "--out", str(out), "--method", "holdout"],
            "compare-html": ["compare", str(q), f"a={r}", f"b={r}", "-m", "P@1", "--resamples", "50", "--html",
                             str(out / "report.html"), "--k-max", "3"]}[name]
    out.mkdir()
    p = run(*args, preexec=_limited(3000))  # (the launcher's own report is a few bytes: under the limit)
    err = p.stderr.decode()
    clean(err)
    assert p.returncode == 2, err
    assert f"rankmeter: error: cannot write {out}/" in err and "File too large (EFBIG)" in err, err
    files = {x.relative_to(out).as_posix() for x in out.rglob("*") if x.is_file()}
    assert not [f for f in files if f.endswith(".rankmeter-tmp")], files
    if MANIFEST in files:
        json.loads((out / MANIFEST).read_text())
        assert complete_files(out) <= files
