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
