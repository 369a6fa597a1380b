"""Running the real ``rankmeter`` executable for the fault tests, with the checks every fault test makes.

Every case is held to the issue's bounds as written: it ends within :data:`WALL_BOUND` (5 s) of wall time,
measured around the command, within :data:`CPU_SECONDS` of its own CPU time, and within 3x its input's size
+ 300 MB of peak resident memory. The command is started by the hostile tests' launcher
(:data:`tests.hostile._run.LAUNCHER`), which reaps it with ``wait4``: its own CPU time and peak memory, not
those of every child the test process had.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..hostile._run import LAUNCHER, MB, WALL_BOUND, memory_bound

#: the issue's "within 5 s": of wall time (asserted) and of the command's own CPU time
CPU_SECONDS = 5.0
#: the limit after which a hung command is killed (a hang then fails the wall-time bound)
WALL_SECONDS = 120


def env(**extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "RANKMETER_DEBUG")}
    out.update(extra)
    return out


def clean(stderr: str) -> None:
    """What no fault may give: an internal error or a traceback."""
    assert "internal error" not in stderr, stderr
    assert "Traceback" not in stderr, stderr


def input_bytes(args: tuple[str, ...], cwd: Path | None = None) -> int:
    """The size of every argument that names an existing file (``name=path`` runs too): the input's size."""
    total = 0
    for a in args:
        for text in {a, a.split("=", 1)[-1]}:
            path = Path(text) if cwd is None or Path(text).is_absolute() else cwd / text
            try:
                if path.is_file():
                    total += path.stat().st_size
            except (OSError, ValueError):  # a name too long for the system, a NUL: not a file
                pass
    return total


@contextmanager
def launch(*args: str, cwd: Path | None = None, **popen: Any) -> Iterator[subprocess.Popen[bytes]]:
    """``python -m rankmeter *args`` started (``popen``: subprocess.Popen's arguments), for the test to talk to;
    once the block ends and the command has ended, its wall time, CPU time and peak memory are checked."""
    with tempfile.TemporaryDirectory() as d:
        report = os.path.join(d, "usage")
        start = time.monotonic()
        p = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER, report, str(WALL_SECONDS), sys.executable, "-m",
                              "rankmeter", *args], cwd=cwd, **popen)
        try:
            yield p
            p.wait(timeout=WALL_SECONDS + 30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        wall = time.monotonic() - start
        cpu, peak_kb = (float(x) for x in open(report).read().split())
        killed = os.path.exists(report + ".killed")
    assert not killed, f"{args}: still running after {WALL_SECONDS} s"
    assert wall < WALL_BOUND, f"{args}: {wall:.1f} s of wall time (bound {WALL_BOUND:g} s)"
    assert cpu < CPU_SECONDS, f"{args}: {cpu:.1f} CPU seconds (bound {CPU_SECONDS:g})"
    size = input_bytes(args, cwd)
    assert peak_kb * 1024 < memory_bound(size), f"{args}: {peak_kb / 1024:.0f} MB for {size / MB:.1f} MB of input"


def run(*args: str, stdout: Any = subprocess.PIPE, stderr: Any = subprocess.PIPE,
        environ: dict[str, str] | None = None, cwd: Path | None = None,
        preexec: Callable[[], None] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The executable (``python -m rankmeter``, which is ``console_main``) on ``args``: bytes out, checked clean
    (no traceback, no internal error, never exit 1) and within the bounds (:func:`launch`)."""
    with launch(*args, stdout=stdout, stderr=stderr, env=environ or env(), cwd=cwd, preexec_fn=preexec) as p:
        out, err = p.communicate(timeout=WALL_SECONDS + 30)
    done = subprocess.CompletedProcess(p.args, p.returncode, out, err or b"")
    clean(done.stderr.decode("utf-8", "replace"))
    assert done.returncode != 1, done.stderr
    return done


def write_trec(folder: Path, ids: list[str]) -> tuple[Path, Path]:
    """Judgments and a run (CSV with a header, so an id may hold anything) with one query per id."""
    import csv

    q, r = folder / "qrels.csv", folder / "run.csv"
    with q.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["query", "item", "grade"])
        for qid in ids:
            w.writerows([[qid, "d1", 1], [qid, "d2", 0]])
    with r.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["query", "item", "score"])
        for i, qid in enumerate(ids):
            w.writerows([[qid, "d1", 2 if i % 2 else 1], [qid, "d2", 1 if i % 2 else 2]])
    return q, r
