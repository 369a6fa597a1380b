"""The ``rankmeter`` executable's evaluate and trec_eval load numpy with one OpenBLAS thread (they never call
BLAS, and its idle workers spin at start); every other use keeps the user's or the library's setting."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

threadpoolctl = pytest.importorskip("threadpoolctl")

PROBE = """
import json, os, sys
sys.argv = {argv!r}
import rankmeter, threadpoolctl
blas = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["internal_api"] == "openblas"]
print(json.dumps({{"env": os.environ.get("OPENBLAS_NUM_THREADS"), "threads": blas,
                  "huge": os.environ.get("NUMPY_MADVISE_HUGEPAGE"),
                  "cloudpickle": "cloudpickle" in sys.modules and sys.modules["cloudpickle"] is not None}}))
"""


def probe(argv: list[str], env: dict[str, str] | None = None) -> dict[str, object]:
    environ = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "NUMPY_MADVISE_HUGEPAGE")}
    environ.update(env or {})
    out = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True,
                         env=environ, check=True)
    return dict(json.loads(out.stdout))


@pytest.mark.parametrize("command", ["evaluate", "trec_eval"])
def test_the_executable_s_evaluating_commands_load_one_blas_thread(command: str) -> None:
    got = probe(["/venv/bin/rankmeter", command, "q.txt", "r.txt"])
    threads = got["threads"]
    assert got["env"] == "1" and isinstance(threads, list) and set(threads) <= {1} and got["huge"] == "0"
    assert got["cloudpickle"] is False  # (pyarrow loads it at import when installed: these commands never pickle)


def test_pyarrow_loads_cloudpickle_elsewhere_when_installed() -> None:
    pytest.importorskip("cloudpickle")  # (installed here by scikit-learn's joblib)
    assert probe(["/venv/bin/rankmeter", "run-experiment", "c.toml"])["cloudpickle"] is True
    assert probe(["script.py", "evaluate"])["cloudpickle"] is True


def test_other_commands_and_library_use_keep_blas_threads_and_the_user_s_value_wins() -> None:
    assert probe(["/venv/bin/rankmeter", "run-experiment", "c.toml"])["env"] is None
    assert probe(["/venv/bin/rankmeter", "run-experiment", "c.toml"])["huge"] is None
    assert probe(["script.py", "evaluate"])["env"] is None  # a program that imports rankmeter
    assert probe(["/venv/bin/rankmeter", "evaluate"], {"OPENBLAS_NUM_THREADS": "2"})["env"] == "2"
