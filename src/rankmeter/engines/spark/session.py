"""A Spark local-mode session that starts quickly: :func:`local_session`.

Most of a cold Spark start is the JVM loading and verifying thousands of classes. The
JDK can record the classes an application loaded in a *class-data-sharing* archive
(``-XX:ArchiveClassesAtExit``, JDK 13+) and map it at the next start
(``-XX:SharedArchiveFile``). :func:`local_session` does this for Spark: the first
session records the classes it loaded (a session that evaluates records those that
evaluations need) and writes the archive when its JVM exits, a few seconds after the
Python process, once (~150-180 MB in the user cache directory); later sessions map it.
On the project's 2-core machine a session then starts in 5-6 s instead of 7-9 s, and
the first evaluation of a session takes about 1.5 s less (benchmarks/RESULTS-scale.md).

The archive depends on the Java runtime and on Spark's jars: its file name carries a
hash of both, so an upgrade of either starts a new one. A JVM whose archive is cut
short would crash, so a new archive is used only once it has not changed for a
minute and a ``java -version`` run that maps it exits cleanly; until then sessions
start without it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Mapping

from ._common import require_pyspark

_QUIET = "-Xlog:cds=off,cds+dynamic=off"  # no CDS warnings on the user's terminal
_MAGIC = bytes.fromhex("a8ab0bf0")  # a dynamic CDS archive's first bytes (0xf00baba8, little-endian)
_SETTLED_S = 60.0  # an archive not modified for this long is complete (or abandoned)


def local_session(
    cores: int | None = None,
    *,
    memory: str = "2g",
    app_name: str = "rankmeter",
    class_cache: bool | str | os.PathLike[str] = True,
    quick_jit: bool = False,
    log_level: str | None = "ERROR",
    conf: Mapping[str, str] | None = None,
    quiet: bool = True,
) -> Any:
    """A ``SparkSession`` in local mode, tuned to start quickly; returns the session.

    ``cores``: ``local[cores]`` (default: all cores). ``memory``: the driver's heap
    (``spark.driver.memory``). ``class_cache``: keep Spark's classes in a JDK
    class-data-sharing archive (see the module's text); ``True`` puts it in
    ``$XDG_CACHE_HOME/rankmeter`` (default ``~/.cache/rankmeter``), a path puts it
    there, ``False`` turns it off. ``quick_jit``: compile with the JVM's first tier only
    (``-XX:TieredStopAtLevel=1``): starts ~1.5 s sooner here, but work done in the JVM
    (rows converted to Arrow, Spark SQL) runs up to 2x slower; worth it when executors
    read files themselves (:func:`~rankmeter.spark.evaluate_parquet`). ``log_level``:
    Spark's log level (``None`` keeps Spark's). ``conf``: more Spark settings; a
    ``spark.driver.extraJavaOptions`` given here is kept, rankmeter's options follow it.
    ``quiet`` (default): the JVM logs at ``log_level`` from its first line (a log4j2
    configuration of rankmeter's, so Spark's "default log4j profile" and "Setting default
    log level" banner are not printed), and PySpark's ``FutureWarning`` that it "does not
    yet fully support pandas >= 3" is filtered; ``quiet=False`` (or ``log_level=None``)
    leaves both as Spark prints them.

    The web UI and the console progress bar are off, and the executors run this
    Python interpreter (``PYSPARK_PYTHON``, unless set), which has rankmeter. If a
    session is already running in this process, Spark returns it and JVM options
    cannot apply.

    >>> spark = local_session(2)                     # doctest: +SKIP
    >>> rankmeter.spark.evaluate(spark.read.parquet("run.parquet"), qrels, ["ndcg@10"])  # doctest: +SKIP
    """
    require_pyspark()
    from pyspark.sql import SparkSession

    settings = dict(conf or {})
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    java_opts = [settings.pop("spark.driver.extraJavaOptions", "")]
    if quick_jit:
        java_opts.append("-XX:TieredStopAtLevel=1")
    if quiet and log_level:
        import warnings

        warnings.filterwarnings("ignore", message=r"PySpark does not yet fully support pandas",
                                category=FutureWarning)
        log_conf = _log_config(log_level)
        if log_conf is not None and "log4j2.configurationFile" not in java_opts[0]:
            java_opts.append(f"-Dlog4j2.configurationFile={log_conf.as_uri()}")
    if class_cache is not False and SparkSession.getActiveSession() is None:
        where = _cache_dir() if class_cache is True else Path(class_cache)
        java_opts += _class_cache_options(where)
    builder = (SparkSession.builder.master(f"local[{cores or '*'}]").appName(app_name)
               .config("spark.driver.memory", memory)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false"))
    extra = " ".join(o for o in java_opts if o)
    if extra:
        builder = builder.config("spark.driver.extraJavaOptions", extra)
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if log_level:
        spark.sparkContext.setLogLevel(log_level)
    return spark


_LOG4J2 = """# rankmeter: Spark's JVM logs at {level} to stderr from its first line (no default-profile banner)
status = error
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n%ex
rootLogger.level = {level}
rootLogger.appenderRef.stdout.ref = console
# the level of the class that starts the JVM's logging (PySpark's gateway; the shell's), equal to the
# root's: Spark then prints no "Setting default log level" lines
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = {level}
logger.conf.name = org.apache.spark.SparkConf
logger.conf.level = {level}
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = {level}
"""


def _log_config(level: str) -> Path | None:
    """A log4j2 configuration file at ``level`` (written once per level), or None where none can be written."""
    text = _LOG4J2.format(level=level.lower())
    for folder in (_cache_dir(), Path(os.environ.get("TMPDIR", "/tmp"))):
        path = folder / f"spark-log4j2-{level.lower()}.properties"
        try:
            if not path.is_file() or path.read_text() != text:
                folder.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
                tmp.write_text(text)
                os.replace(tmp, path)
            return path
        except OSError:
            continue
    return None


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rankmeter"


def _java() -> str | None:
    """The java Spark's launcher runs: $JAVA_HOME/bin/java, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return os.path.realpath(java) if java and os.path.exists(java) else None


def _archive_key(java: str) -> str:
    """A hash of the Java runtime and of Spark's jars: an archive is valid for these only."""
    import pyspark

    h = hashlib.sha256()
    st = os.stat(java)
    h.update(f"{java}\0{st.st_size}\0{st.st_mtime_ns}\0{pyspark.__version__}".encode())
    jars = Path(pyspark.__file__).parent / "jars"
    if jars.is_dir():
        for jar in sorted(jars.iterdir()):
            h.update(f"\0{jar.name}\0{jar.stat().st_size}".encode())
    return h.hexdigest()[:16]


def _class_cache_options(where: Path) -> list[str]:
    """JVM options: map the archive, or record one at exit, or nothing while another process records one.

    Recordings are ``<stem>.<random>.pending`` files, written by the JVM when it exits;
    one that has not changed for ``_SETTLED_S`` and maps cleanly becomes ``<stem>.jsa``.
    Sessions started at once may each record one: the spares are deleted once one is in place.
    """
    java = _java()
    if java is None:
        return []
    try:
        where.mkdir(parents=True, exist_ok=True)
        stem = f"spark-classes-{_archive_key(java)}"
        final = where / f"{stem}.jsa"
        now = time.time()
        recording = False
        for pending in sorted(where.glob(f"{stem}.*.pending")):
            if now - pending.stat().st_mtime < _SETTLED_S:
                recording = True
            elif not final.exists() and _maps_cleanly(java, pending, where):
                os.replace(pending, final)
            else:  # a spare, or cut short because its JVM died while writing it
                pending.unlink(missing_ok=True)
        if final.exists():
            return [f"-XX:SharedArchiveFile={final}", _QUIET]
        if recording:
            return []
        return [f"-XX:ArchiveClassesAtExit={where / f'{stem}.{uuid.uuid4().hex[:8]}.pending'}", _QUIET]
    except OSError:  # an unwritable cache: start without the archive
        return []


def _maps_cleanly(java: str, archive: Path, where: Path) -> bool:
    """Whether ``archive`` is a dynamic CDS archive and a JVM mapping it exits cleanly (a cut one makes it crash)."""
    with open(archive, "rb") as f:
        if f.read(4) != _MAGIC:
            return False
    try:
        done = subprocess.run([java, f"-XX:SharedArchiveFile={archive}", _QUIET, "-XX:-CreateCoredumpOnCrash",
                               f"-XX:ErrorFile={where / 'hs_err_check.log'}", "-version"],
                              capture_output=True, timeout=60, cwd=where, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    (where / "hs_err_check.log").unlink(missing_ok=True)
    return done.returncode == 0
