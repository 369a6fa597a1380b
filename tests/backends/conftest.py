"""One Spark local-mode session for the Spark tests of a test process (the JVM starts once)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Iterator

import pytest


def _java_problem() -> str | None:
    java = shutil.which("java") or (os.path.join(os.environ["JAVA_HOME"], "bin", "java")
                                    if os.environ.get("JAVA_HOME") else None)
    if not java or not os.path.exists(java):
        return "no Java runtime (install one, e.g. apt-get install default-jre-headless; .ci/run does)"
    try:
        subprocess.run([java, "-version"], capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"java -version failed: {exc}"
    return None


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    pytest.importorskip("pyspark", reason="PySpark is not installed (pip install 'rankmeter[spark]')")
    problem = _java_problem()
    if problem:
        pytest.skip(problem)
    # the executors' Python must be this one (it has rankmeter and its dependencies)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    import rankmeter.spark

    session = rankmeter.spark.local_session(2, memory="1g", app_name="rankmeter-tests", conf={
        "spark.sql.shuffle.partitions": "4",
        "spark.default.parallelism": "2",
        "spark.sql.session.timeZone": "UTC",
    })
    yield session
    session.stop()
