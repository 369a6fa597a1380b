"""C's number parsing, as trec_eval reads its files and measure parameters (``atol``, ``atof``)."""

from __future__ import annotations

import re

__all__ = ["atol", "atof"]

_LONG_MAX = 2**63 - 1
_LONG_MIN = -(2**63)
_INT = re.compile(r"\s*([+-]?\d+)")
_FLOAT = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf(?:inity)?|nan))", re.I)


def atol(text: str) -> int:
    """C's ``atol``: the leading integer of the text, 0 when there is none.

    An integer beyond 64 bits saturates, as glibc's ``atol`` (``strtol``) does.

    >>> atol("23.4"), atol("x"), atol(" -7"), atol("9" * 5000)
    (23, 0, -7, 9223372036854775807)
    """
    m = _INT.match(text)
    if not m:
        return 0
    digits = m.group(1)
    if len(digits.lstrip("+-").lstrip("0")) > 19:  # C's strtol saturates (and int() refuses 4300+ digits)
        return _LONG_MIN if digits.startswith("-") else _LONG_MAX
    return min(max(int(digits), _LONG_MIN), _LONG_MAX)


_HEX = re.compile(r"\s*([+-]?)(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?)")


def atof(text: str) -> float:
    """C's ``atof``: the leading number of the text, 0.0 when there is none.

    As glibc's ``strtod``, a hexadecimal number is read too (``0x10`` is 16,
    ``0x1.8p1`` is 3), and a number beyond the double range is +-inf.

    >>> atof(".25"), atof("5.0x"), atof(""), atof("nan"), atof("0x10"), atof("-0x1.8p1"), atof("0x"), atof("1e999")
    (0.25, 5.0, 0.0, nan, 16.0, -3.0, 0.0, inf)
    """
    h = _HEX.match(text)
    if h:
        try:
            value = float.fromhex(h.group(2))
        except OverflowError:
            value = float("inf")
        return -value if h.group(1) == "-" else value
    m = _FLOAT.match(text)
    return float(m.group(1)) if m else 0.0
