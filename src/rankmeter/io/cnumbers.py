"""C's number parsing, as trec_eval reads its files and measure parameters (``atol``, ``atof``)."""

from __future__ import annotations

import re

__all__ = ["atol", "atof"]

_INT = re.compile(r"\s*([+-]?\d+)")
_FLOAT = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf(?:inity)?|nan))", re.I)


def atol(text: str) -> int:
    """C's ``atol``: the leading integer of the text, 0 when there is none.

    >>> atol("23.4"), atol("x"), atol(" -7")
    (23, 0, -7)
    """
    m = _INT.match(text)
    return int(m.group(1)) if m else 0


def atof(text: str) -> float:
    """C's ``atof``: the leading number of the text, 0.0 when there is none.

    >>> atof(".25"), atof("5.0x"), atof(""), atof("nan")
    (0.25, 5.0, 0.0, nan)
    """
    m = _FLOAT.match(text)
    return float(m.group(1)) if m else 0.0
