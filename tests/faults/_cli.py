"""Running the real ``rankmeter`` executable for the fault tests, with the checks every fault test makes."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: the CPU seconds a fault case may take (the issue's "within 5 s"); wall time is only bounded loosely (a hang),
#: since the machine the suite runs on may be shared
CPU_SECONDS = 5.0
WALL_SECONDS = 120


def env(**extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "RANKMETER_DEBUG")}
    out.update(extra)
    return out


def cpu_of_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def clean(stderr: str) -> None:
    """What no fault may give: an internal error or a traceback."""
    assert "internal error" not in stderr, stderr
    assert "Traceback" not in stderr, stderr


def run(*args: str, stdout: Any = subprocess.PIPE, environ: dict[str, str] | None = None,
        cwd: Path | None = None, preexec: Callable[[], None] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The executable (``python -m rankmeter``, which is ``console_main``) on ``args``: bytes out, checked clean,
    within the CPU bound."""
    before = cpu_of_children()
    out = subprocess.run([sys.executable, "-m", "rankmeter", *args], stdout=stdout, stderr=subprocess.PIPE,
                         env=environ or env(), cwd=cwd, timeout=WALL_SECONDS, preexec_fn=preexec)
    clean(out.stderr.decode("utf-8", "replace"))
    assert out.returncode != 1, out.stderr
    assert cpu_of_children() - before < CPU_SECONDS, f"{args}: over {CPU_SECONDS} CPU seconds"
    return out


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
