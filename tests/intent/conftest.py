"""The Spark session fixture of the engine tests, shared."""

from ..backends.conftest import spark  # noqa: F401
