"""The real ``rankmeter`` executable on a hostile input, measured: exit status, CPU and wall time, peak memory.

The child is reaped with ``os.wait4``, which gives *its own* resource usage (peak
resident memory, CPU seconds), not that of every child the test process ever had.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
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
        with tempfile.TemporaryDirectory() as d:
            report = os.path.join(d, "usage")
            p = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCHER, report, str(seconds), sys.executable, "-m",
                                  "rankmeter", *args], stdin=source, stdout=out, stderr=err, env=environ or env())
            try:
                code = p.wait(timeout=seconds + 30)
            finally:
                if p.poll() is None:
                    p.kill()
                if isinstance(stdin, Path):
                    source.close()
            cpu, peak_kb = (float(x) for x in open(report).read().split())
            killed = os.path.exists(report + ".killed")
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return Outcome(code, out.read(), err.read().decode("utf-8", "replace"), cpu, wall, int(peak_kb) * 1024, killed)


# A small launcher between pytest and the command: Linux records a process's memory high-water mark from
# before its exec (the forked copy of the parent), so a child forked from a large pytest worker would report
# the worker's peak. The launcher (a bare interpreter of a few MB) spawns the command, kills it after its
# time, and writes the command's own CPU seconds and peak resident memory (wait4) to a file.
_LAUNCHER = """
import os, signal, sys
report, seconds, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
pid = os.posix_spawn(cmd[0], cmd, os.environ)
def stop(*_):
    open(report + ".killed", "w").close()
    os.kill(pid, signal.SIGKILL)
signal.signal(signal.SIGALRM, stop)
signal.setitimer(signal.ITIMER_REAL, seconds)
_, status, ru = os.wait4(pid, 0)
signal.setitimer(signal.ITIMER_REAL, 0)
with open(report, "w") as f:
    f.write(f"{ru.ru_utime + ru.ru_stime} {ru.ru_maxrss}")
code = os.waitstatus_to_exitcode(status)
if code < 0:  # die of the same signal (SIGKILL's handler cannot be set, and needs none)
    if -code != signal.SIGKILL:
        signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
"""


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
