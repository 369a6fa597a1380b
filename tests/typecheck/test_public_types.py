"""The public API as a user's type checker sees it (issue 33).

mypy, strict and with the project's configuration, checks ``public_api.py``: calls of
``evaluate``, ``Result``, ``compare``, ``experiment``, the splitters, the readers,
``rankmeter.torch`` and the lazily loaded names, each wrapped in ``assert_type``. A public
annotation that changes, or becomes ``Any``, fails the check. The control test shows that
the same run reports an ``Any`` where a type is asserted, so the check cannot pass vacuously.
"""

from __future__ import annotations

from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def _mypy(target: Path, cache: Path) -> tuple[str, int]:
    out, err, status = api.run([str(target), "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache),
                                "--no-error-summary", "--show-error-codes", "--hide-error-context"])
    return out + err, status


@pytest.mark.slow
def test_public_api_types_as_users_see_them(tmp_path_factory: pytest.TempPathFactory) -> None:
    text, status = _mypy(HERE / "public_api.py", tmp_path_factory.mktemp("mypy-cache"))
    assert status == 0, "the public API's types changed (or became Any):\n" + text


@pytest.mark.slow
def test_an_any_where_a_type_is_asserted_is_reported(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import Any, assert_type\n\n\n"
                     "def loose() -> Any:\n    return 1\n\n\n"
                     "assert_type(loose(), int)\n", encoding="utf-8")
    text, status = _mypy(probe, tmp_path / "cache")
    assert status == 1
    assert 'Expression is of type "Any", not "int"  [assert-type]' in text
