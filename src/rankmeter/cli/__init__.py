"""Command-line interface (``rankmeter ...``)."""

from ._app import console_main, main

__all__ = ["console_main", "main"]
