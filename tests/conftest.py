"""Shared fixtures: where ../shared is, and skipping cleanly when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("RANKMETER_SHARED", ROOT.parent / "shared"))
TREC_DATA = SHARED / "data" / "trec_eval"
IRM_DATA = SHARED / "data" / "ir_measures"
SEEDS = SHARED / "seeds"

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=100)
settings.load_profile("ci" if os.environ.get("CI") else "default")


# Tests measured slow (make test-fast skips them; make test runs everything): tests/slow_tests.txt lists
# node ids, modules or folders, each with the CPU seconds measured, so the list is data, not guesses.
SLOW_LIST = Path(__file__).with_name("slow_tests.txt")


def _slow_entries() -> tuple[str, ...]:
    if not SLOW_LIST.is_file():
        return ()
    lines = (line.split("#", 1)[0].strip() for line in SLOW_LIST.read_text(encoding="utf-8").splitlines())
    return tuple(line for line in lines if line)


def _listed(nodeid: str, entries: tuple[str, ...]) -> bool:
    """Whether a test is listed: its own id, its module or class (``path.py``, ``path.py::Class``), its
    function over every parameter (``path.py::test_x``), or a folder (``tests/cli/``)."""
    for e in entries:
        if nodeid == e or (e.endswith("/") and nodeid.startswith(e)) or nodeid.startswith((e + "::", e + "[")):
            return True
    return False


@pytest.hookimpl(tryfirst=True)  # before -m "not slow" deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    entries = _slow_entries()
    if not entries:
        return
    slow = pytest.mark.slow
    for item in items:
        if _listed(item.nodeid, entries):
            item.add_marker(slow)


def shared_file(*parts: str) -> Path:
    """A file under ../shared, or skip the test when it is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available (../shared/data is absent)")
    return path


@pytest.fixture
def trec_data() -> Path:
    if not TREC_DATA.exists():
        pytest.skip("../shared/data/trec_eval is not available")
    return TREC_DATA


@pytest.fixture(autouse=True)
def _one_instant(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every result made in a test's process is dated the same instant. ``equals`` compares the provenance,
    date included (a saved result read back is equal to itself), so two evaluations compared to show that
    their numbers agree failed whenever a second ended between them (about 1 run in 4 of
    tests/compare/test_resample_blocks.py, whose comparisons take ~0.2 s)."""
    from rankmeter import provenance

    monkeypatch.setattr(provenance, "_now", lambda: "2026-01-01T00:00:00+00:00")
