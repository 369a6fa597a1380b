"""The Spark local-mode session of tests/backends, for the Spark agreement tests of the beyond metrics."""

from __future__ import annotations

from ..backends.conftest import spark  # noqa: F401  (the session-scoped fixture; skips without Java/PySpark)
