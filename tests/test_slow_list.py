"""tests/slow_tests.txt, the measured list of slow tests that make test-fast skips (issue 24 item 19)."""

from __future__ import annotations

from .conftest import ROOT, _listed, _slow_entries


def test_listing_rules() -> None:
    entries = ("tests/a/test_x.py::test_y", "tests/b/test_z.py", "tests/c/")
    assert _listed("tests/a/test_x.py::test_y", entries)
    assert _listed("tests/a/test_x.py::test_y[3]", entries)
    assert not _listed("tests/a/test_x.py::test_y2", entries)
    assert _listed("tests/b/test_z.py::Class::test_q", entries)
    assert _listed("tests/c/test_w.py::test_v", entries)
    assert not _listed("tests/cc/test_w.py::test_v", entries)


def test_every_entry_names_an_existing_file() -> None:
    """A renamed or removed test file would leave its entry matching nothing: the list must follow it."""
    missing = [e for e in _slow_entries() if not (ROOT / e.split("::", 1)[0].split("[", 1)[0]).exists()]
    assert not missing, missing
