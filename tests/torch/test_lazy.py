"""rankmeter.torch imports torch only when used, and says which extra to install where torch is absent.

These tests need no torch: they run a fresh Python in which torch cannot be imported.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = "import sys; sys.modules['torch'] = None  # torch cannot be imported\n"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_import_does_not_import_torch() -> None:
    out = _python("import sys, rankmeter.torch as rmt; print('torch' in sys.modules, rmt.__all__)")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("False"), out.stdout


def test_without_torch_the_error_names_the_extra() -> None:
    out = _python(BLOCK + "import rankmeter.torch as rmt\n"
                  "try:\n    rmt.evaluate(None, None, ['ndcg@10'])\n"
                  "except Exception as exc:\n    print(type(exc).__name__, exc)\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("MissingExtraError") and "pip install 'rankmeter[torch]'" in out.stdout, out.stdout


def test_without_torch_the_doctests_skip() -> None:
    out = _python(BLOCK + "import pytest\nraise SystemExit(pytest.main(['-q', '-p', 'no:cacheprovider', "
                  "'--doctest-modules', 'src/rankmeter/torch']))")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "skipped" in out.stdout and "failed" not in out.stdout, out.stdout
