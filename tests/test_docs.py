"""The documentation reads the registry: docs/metrics.md must match it."""

from __future__ import annotations

from pathlib import Path

from rankmeter.metrics.catalogue import render_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_metric_catalogue_is_up_to_date() -> None:
    page = (ROOT / "docs" / "metrics.md").read_text()
    assert page == render_markdown(), "docs/metrics.md is stale: run `rankmeter metrics --markdown > docs/metrics.md`"


def test_readme_quick_start_has_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "make demo" in readme and "make test" in readme
