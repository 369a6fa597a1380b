"""The real ``rankmeter`` executable on a hostile input, measured: exit status, CPU and wall time, peak memory.

The child is reaped with ``os.wait4``, which gives *its own* resource usage (peak
resident memory, CPU seconds), not that of every child the test process ever had.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

#: the issue's bound: every case ends within 5 s (CPU seconds of the child: the suite's machine is shared,
#: so its wall time is only bounded loosely, against a hang) ...
CPU_SECONDS = 5.0
WALL_SECONDS = 60.0
#: ... and within 3x the input's size + 300 MB of peak memory
MB = 1 << 20


def memory_bound(input_bytes: int) -> int:
    return 3 * input_bytes + 300 * MB


@dataclass
class Outcome:
    returncode: int
    stdout: bytes
    stderr: str
    cpu: float  # seconds of CPU (user + system) of the child
    wall: float
    peak: int  # bytes of peak resident memory of the child
    killed: bool  # still running when its time was up

    def check_clean(self) -> None:
        """What no hostile input may give: exit 1, an internal error or a traceback."""
        assert self.returncode != 1, self.stderr
        assert "internal error" not in self.stderr, self.stderr
        assert "Traceback" not in self.stderr, self.stderr

    def check_refused(self, *words: str) -> None:
        """Exit 2 with one line naming what is wrong, within the time bound."""
        self.check_clean()
        assert not self.killed, f"still running after {self.wall:.1f} s"
        assert self.returncode == 2, (self.returncode, self.stderr)
        lines = [x for x in self.stderr.splitlines() if x.startswith("rankmeter: error:")]
        assert len(lines) == 1, self.stderr
        for w in words:
            assert w in lines[0], (w, lines[0])
        assert len(lines[0]) < 1000, lines[0][:300]
        assert self.cpu < CPU_SECONDS, f"{self.cpu:.1f} CPU seconds"


def env(**extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "RANKMETER_DEBUG",
                                                             "RANKMETER_MAX_LINE_BYTES")}
    out.update(extra)
    return out


def run(args: list[str], *, stdin: bytes | Path | IO[Any] | None = None, seconds: float = WALL_SECONDS,
        environ: dict[str, str] | None = None) -> Outcome:
    """Run ``python -m rankmeter *args``; kill it after ``seconds`` of wall time."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as feed:
        source: Any = subprocess.DEVNULL
        if isinstance(stdin, bytes):
            feed.write(stdin)
            feed.seek(0)
            source = feed
        elif isinstance(stdin, Path):
            source = open(stdin, "rb")
        elif stdin is not None:
            source = stdin
        start = time.monotonic()
        p = subprocess.Popen([sys.executable, "-m", "rankmeter", *args], stdin=source, stdout=out, stderr=err,
                             env=environ or env())
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            p.kill()

        timer = threading.Timer(seconds, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
            if isinstance(stdin, Path):
                source.close()
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return Outcome(p.returncode, out.read(), err.read().decode("utf-8", "replace"),
                       usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss * 1024, killed.is_set())


def run_fed(args: list[str], generator: str, *, seconds: float) -> Outcome:
    """``args`` with standard input fed by a Python ``generator`` program (an endless stream, say)."""
    gen = subprocess.Popen([sys.executable, "-c", generator], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert gen.stdout is not None
        return run(args, stdin=gen.stdout, seconds=seconds)
    finally:
        gen.kill()
        gen.wait()
        if gen.stdout is not None:
            gen.stdout.close()
