"""Hostile inputs, names and parameters through the real executable (issues 24 and 32)."""
