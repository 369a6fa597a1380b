"""rankmeter.spark.local_session's class-data-sharing archive: recorded once, checked, then mapped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import _java_problem

pytestmark = [pytest.mark.xdist_group("spark")]


@pytest.fixture()
def java() -> str:
    pytest.importorskip("pyspark", reason="PySpark is not installed (pip install 'rankmeter[spark]')")
    problem = _java_problem()
    if problem:
        pytest.skip(problem)
    from rankmeter.engines.spark import session

    found = session._java()
    assert found is not None
    return found


def _record(java: str, target: Path) -> None:
    """What Spark's JVM does at exit with -XX:ArchiveClassesAtExit (here for a JVM that only prints its version)."""
    subprocess.run([java, f"-XX:ArchiveClassesAtExit={target}", "-Xlog:cds=off,cds+dynamic=off", "-version"],
                   capture_output=True, check=True, timeout=120)
    assert target.stat().st_size > 0


def _age(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_archive_lifecycle(java: str, tmp_path: Path) -> None:
    from rankmeter.engines.spark.session import _SETTLED_S, _class_cache_options

    opts = _class_cache_options(tmp_path)  # nothing yet: record one at exit
    assert opts[0].startswith("-XX:ArchiveClassesAtExit=") and opts[1].startswith("-Xlog:cds=off")
    pending = Path(opts[0].split("=", 1)[1])
    assert pending.parent == tmp_path and pending.name.endswith(".pending")
    _record(java, pending)
    assert _class_cache_options(tmp_path) == []  # being written (changed under a minute ago): not yet
    _age(pending, _SETTLED_S + 1)
    opts = _class_cache_options(tmp_path)
    final = tmp_path / (pending.name.split(".")[0] + ".jsa")
    assert opts[0] == f"-XX:SharedArchiveFile={final}" and final.exists() and not pending.exists()
    assert _class_cache_options(tmp_path) == opts  # and it stays

    # a spare recording (two first sessions at once) is removed once the archive is in place
    spare = tmp_path / (final.stem + ".spare.pending")
    _record(java, spare)
    _age(spare, _SETTLED_S + 1)
    assert _class_cache_options(tmp_path) == opts and not spare.exists()


def test_a_cut_archive_is_never_used(java: str, tmp_path: Path) -> None:
    """A JVM that died while writing leaves a cut archive, which would crash the next JVM: it is deleted."""
    from rankmeter.engines.spark.session import _SETTLED_S, _class_cache_options, _maps_cleanly

    pending = Path(_class_cache_options(tmp_path)[0].split("=", 1)[1])
    whole = tmp_path / "whole.jsa"
    _record(java, whole)
    assert _maps_cleanly(java, whole, tmp_path)
    for cut in (1000, 5000, whole.stat().st_size // 2):
        pending.write_bytes(whole.read_bytes()[:cut])
        assert not _maps_cleanly(java, pending, tmp_path), cut
    pending.write_bytes(b"not an archive at all" * 100)  # a JVM ignores these; the magic check refuses them
    assert not _maps_cleanly(java, pending, tmp_path)
    _age(pending, _SETTLED_S + 1)
    opts = _class_cache_options(tmp_path)
    assert not pending.exists() and opts[0].startswith("-XX:ArchiveClassesAtExit=")  # a new recording instead
    assert not list(tmp_path.glob("hs_err*")) and not list(Path.cwd().glob("hs_err_check*"))


def test_no_java_or_no_cache_means_no_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rankmeter.engines.spark import session

    monkeypatch.setattr(session, "_java", lambda: None)
    assert session._class_cache_options(tmp_path) == []
    monkeypatch.setattr(session, "_java", lambda: sys.executable)  # any existing file will do for the key
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory should be")
    assert session._class_cache_options(blocked / "cache") == []


@pytest.mark.slow
def test_local_session_records_then_maps_the_archive(java: str, tmp_path: Path) -> None:
    """Two real sessions in fresh processes: the first records the archive at exit, the second maps it."""
    script = (
        "import sys\n"
        "from rankmeter.engines.spark import session\n"
        "session._SETTLED_S = float(sys.argv[2])\n"
        "spark = session.local_session(1, memory='512m', class_cache=sys.argv[1])\n"
        "print('OPTS', spark.sparkContext.getConf().get('spark.driver.extraJavaOptions'))\n"
        "print('COUNT', spark.range(7).count())\n"
    )
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    first = subprocess.run([sys.executable, "-c", script, str(tmp_path), "60"], capture_output=True, text=True,
                           timeout=600, env=env, check=True)
    assert "COUNT 7" in first.stdout and "-XX:ArchiveClassesAtExit=" in first.stdout
    deadline = time.time() + 180  # the JVM writes the archive after the Python process has gone
    pending: list[Path] = []
    while time.time() < deadline:
        pending = list(tmp_path.glob("*.pending"))
        if pending and time.time() - pending[0].stat().st_mtime > 3:
            break
        time.sleep(1)
    assert pending, "the first session wrote no archive"
    second = subprocess.run([sys.executable, "-c", script, str(tmp_path), "2"], capture_output=True, text=True,
                            timeout=600, env=env, check=True)
    assert "COUNT 7" in second.stdout and "-XX:SharedArchiveFile=" in second.stdout
    assert list(tmp_path.glob("*.jsa")) and not list(tmp_path.glob("*.pending"))
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_quiet_log_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The log4j2 file quiet sessions use: the root and the loggers that start Spark's logging at one level."""
    from rankmeter.engines.spark import session

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = session._log_config("ERROR")
    assert path is not None and path.parent == tmp_path / "rankmeter"
    text = path.read_text()
    assert "rootLogger.level = error" in text and "logger.gateway.level = error" in text
    assert session._log_config("ERROR") == path  # written once, found again


@pytest.mark.slow
@pytest.mark.parametrize("quiet", [True, False])
def test_session_start_is_quiet_unless_asked(java: str, tmp_path: Path, quiet: bool) -> None:
    """Issue 24 item 18: no log4j banner (nor the pandas >= 3 FutureWarning) on a quiet session's start."""
    script = ("import sys\nfrom rankmeter.engines.spark import session\n"
              f"spark = session.local_session(1, memory='512m', class_cache=False, quiet={quiet})\n"
              "print('COUNT', spark.range(3).count())\n")
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, XDG_CACHE_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, env=env,
                         check=True)
    assert "COUNT 3" in out.stdout
    noisy = ["Setting default log level", "default log4j profile", "does not yet fully support pandas"]
    if quiet:
        assert not [n for n in noisy if n in out.stderr], out.stderr
    else:
        assert "Setting default log level" in out.stderr
