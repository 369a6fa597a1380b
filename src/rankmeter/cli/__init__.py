"""Command-line interface (``rankmeter ...``)."""

from ._app import main

__all__ = ["main"]
