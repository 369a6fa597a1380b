"""Ranking metrics, binary and graded: one module per family, each registering its metrics."""
