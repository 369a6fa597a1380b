"""Parameter checks as data: types and ranges declared once, one message form everywhere.

Every check raises :class:`rankmeter.ParameterError` with the message form of the whole
project (scikit-learn's): ``The 'k' parameter of ndcg must be an int >= 1. Got -1
instead.`` Numbers are always finite and integers always fit in 64 bits (an ``@inf``
or a 23-digit cutoff is a parameter error, not an ``OverflowError`` later).

The metric registry declares each metric parameter as a ``Param`` with a
:class:`Range`; functions outside the metrics (split, stats, compare...) call the
``check_*`` helpers directly::

    n = check_int("n_resamples", n_resamples, func="compare", low=1)

Text forms (metric names on the command line) are read strictly by :func:`parse_int`
and :func:`parse_number`: ASCII digits only, no ``1e1`` for an int, no ``1_0``, no
full-width digits, no ``inf`` / ``nan``.

>>> check_int("k", 10, func="ndcg", low=1)
10
>>> check_int("k", -1, func="ndcg", low=1)
Traceback (most recent call last):
...
rankmeter._errors.ParameterError: The 'k' parameter of ndcg must be an int >= 1. Got -1 instead.
>>> check_number("p", 0.8, func="rbp", low=0, high=1, low_open=True, high_open=True)
0.8
>>> check_number("beta", float("inf"), func="f", low=0, low_open=True)
Traceback (most recent call last):
...
rankmeter._errors.ParameterError: The 'beta' parameter of f must be a finite number > 0. Got inf instead.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from typing import Any, Iterable

from ._errors import ParameterError

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "Range",
    "check_int",
    "check_number",
    "check_choice",
    "check_bool",
    "parse_int",
    "parse_number",
    "parse_bool",
]

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

_INT_TEXT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")


@dataclass(frozen=True)
class Range:
    """An interval of allowed numbers: ``low`` / ``high`` (None: unbounded), each open or closed.

    ``exclude`` lists single values refused inside the interval (a logarithm base is
    ``> 0 and != 1``).

    >>> Range(0, 1, low_open=True, high_open=True).describe()
    'in the range (0, 1)'
    >>> Range(1).describe(), Range(0, low_open=True, exclude=(1,)).describe()
    ('>= 1', '> 0 and != 1')
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    exclude: tuple[float, ...] = ()

    def contains(self, value: float) -> bool:
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        if self.high is not None and (value >= self.high if self.high_open else value > self.high):
            return False
        return value not in self.exclude

    def describe(self) -> str:
        if self.low is not None and self.high is not None:
            text = (f"in the range {'(' if self.low_open else '['}{_num(self.low)}, "
                    f"{_num(self.high)}{')' if self.high_open else ']'}")
        elif self.low is not None:
            text = f"{'>' if self.low_open else '>='} {_num(self.low)}"
        elif self.high is not None:
            text = f"{'<' if self.high_open else '<='} {_num(self.high)}"
        else:
            text = ""
        if self.exclude:
            text += (" and " if text else "") + " and ".join(f"!= {_num(v)}" for v in self.exclude)
        return text


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e16 else repr(v)


def _fail(name: str, func: str | None, expected: str, got: Any) -> ParameterError:
    owner = f" of {func}" if func else ""
    return ParameterError(f"The {name!r} parameter{owner} must be {expected}. Got {_shown(got)} instead.")


_SHOWN_CHARS = 60


def _shown(got: Any) -> str:
    """``repr(got)``, shortened when long: a 5000-digit int or text is named by its size, not printed.

    (Python refuses ``str()`` of an int over 4300 digits, so a huge int is never printed whole.)

    >>> _shown(10**5000), _shown("9" * 5000)
    ('an int of 5001 digits', "'99999999999999999999999999999... (5002 characters)")
    """
    if isinstance(got, int) and not isinstance(got, bool) and got.bit_length() > 200:
        return f"an int of {math.floor(math.log10(abs(got))) + 1} digits"
    text = repr(got)
    if len(text) > _SHOWN_CHARS:
        return f"{text[:_SHOWN_CHARS // 2]}... ({len(text)} characters)"
    return text


def _expected(kind: str, rng: Range | None, *, allow_none: bool = False) -> str:
    text = kind + (f" {rng.describe()}" if rng is not None and rng.describe() else "")
    return text + (" or None" if allow_none else "")


def check_int(name: str, value: Any, *, func: str | None = None, low: int | None = None,
              high: int | None = None, allow_none: bool = False, shown: Any = None, rng: Range | None = None) -> Any:
    """``value`` as a Python int within [low, high] (or ``rng``) and within int64, or a ParameterError.

    bool is refused (``True`` is not a cutoff); an integral numpy integer is accepted.
    ``shown`` is what the message quotes (the user's own text), default ``value``.

    >>> check_int("k", 2**70, func="ndcg", low=1)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'k' parameter of ndcg must be an int >= 1 (at most 9223372036854775807, 64
    bits). Got 1180591620717411303424 instead.
    """
    return _check_int(name, value, func=func, rng=rng or Range(low, high), allow_none=allow_none, shown=shown)


def _check_int(name: str, value: Any, *, func: str | None, rng: Range, allow_none: bool = False,
               shown: Any = None) -> Any:
    got = value if shown is None else shown
    if value is None and allow_none:
        return None
    expected = _expected("an int", rng, allow_none=allow_none)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _fail(name, func, expected, got)
    v = int(value)
    if not INT64_MIN <= v <= INT64_MAX:
        limit = f"at most {INT64_MAX}" if v > 0 else f"at least {INT64_MIN}"
        raise _fail(name, func, f"{expected} ({limit}, 64 bits)", got)
    if not rng.contains(v):
        raise _fail(name, func, expected, got)
    return v


def check_number(name: str, value: Any, *, func: str | None = None, low: float | None = None,
                 high: float | None = None, low_open: bool = False, high_open: bool = False,
                 exclude: tuple[float, ...] = (), allow_none: bool = False, shown: Any = None,
                 rng: Range | None = None) -> Any:
    """``value`` as a finite float within the range, or a ParameterError (nan and inf are refused).

    >>> check_number("rel", float("nan"), func="p")
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'rel' parameter of p must be a finite number. Got nan instead.
    """
    rng = rng or Range(low, high, low_open, high_open, exclude)
    return _check_number(name, value, func=func, rng=rng, allow_none=allow_none, shown=shown)


def _check_number(name: str, value: Any, *, func: str | None, rng: Range, allow_none: bool = False,
                  shown: Any = None) -> Any:
    got = value if shown is None else shown
    if value is None and allow_none:
        return None
    expected = _expected("a finite number", rng, allow_none=allow_none)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _fail(name, func, expected, got)
    try:
        v = float(value)
    except OverflowError:  # an int beyond float's range
        raise _fail(name, func, expected, got) from None
    if not math.isfinite(v) or not rng.contains(v):
        raise _fail(name, func, expected, got)
    return v


def check_choice(name: str, value: Any, choices: Iterable[Any], *, func: str | None = None,
                 shown: Any = None) -> Any:
    """``value`` if it is one of ``choices``, else a ParameterError listing them.

    >>> check_choice("gain", "cubic", ("linear", "exp"), func="ndcg")
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'gain' parameter of ndcg must be one of linear, exp. Got 'cubic' instead.
    """
    options = tuple(choices)
    try:
        ok = value in options
    except TypeError:  # an unhashable value against a set-like
        ok = False
    if not ok or isinstance(value, bool) != any(isinstance(c, bool) for c in options if c == value):
        shown_options = ", ".join(str(c).lower() if isinstance(c, bool) else str(c) for c in options)
        raise _fail(name, func, "one of " + shown_options, value if shown is None else shown)
    return value


def check_bool(name: str, value: Any, *, func: str | None = None, shown: Any = None) -> bool:
    """``value`` if it is a bool (numpy's included), else a ParameterError."""
    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise _fail(name, func, "a boolean (true or false)", value if shown is None else shown)


def parse_int(name: str, text: str, *, func: str | None = None, low: int | None = None,
              high: int | None = None, rng: Range | None = None) -> int:
    """An int written in ASCII digits (``10``, ``-3``), checked like :func:`check_int`.

    >>> parse_int("k", "1e1", func="ndcg", low=1)
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'k' parameter of ndcg must be an int >= 1. Got '1e1' instead.
    >>> parse_int("k", "0", func="ndcg", low=1)
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'k' parameter of ndcg must be an int >= 1. Got 0 instead.
    """
    rng = rng or Range(low, high)
    t = text.strip()
    if not _INT_TEXT.fullmatch(t):
        raise _fail(name, func, _expected("an int", rng), text)
    digits = t.lstrip("+-").lstrip("0") or "0"  # leading zeros dropped: int() refuses over 4300 digits
    if len(digits) > 300:  # far beyond 64 bits: quoted (shortened), not converted
        limit = f"at most {INT64_MAX}" if not t.startswith("-") else f"at least {INT64_MIN}"
        raise _fail(name, func, f"{_expected('an int', rng)} ({limit}, 64 bits)", text)
    return int(_check_int(name, -int(digits) if t.startswith("-") else int(digits), func=func, rng=rng))


def parse_number(name: str, text: str, *, func: str | None = None, rng: Range | None = None) -> float:
    """A finite number written in decimal (``0.8``, ``2``, ``1e-3``), checked like :func:`check_number`.

    >>> parse_number("p", "1_0", func="rbp")
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'p' parameter of rbp must be a finite number. Got '1_0' instead.
    """
    rng = rng or Range()
    t = text.strip()
    if not _NUMBER_TEXT.fullmatch(t):
        raise _fail(name, func, _expected("a finite number", rng), text)
    v = float(t)
    shown = text if "e" in t.lower() or not math.isfinite(v) else None  # 400 digits overflow: quote them
    return float(_check_number(name, v, func=func, rng=rng, shown=shown))


def parse_bool(name: str, text: str, *, func: str | None = None) -> bool:
    """``true``/``false`` (also ``1``/``0``, ``yes``/``no``), any case."""
    t = text.strip().lower()
    if t in _TRUE:
        return True
    if t in _FALSE:
        return False
    raise _fail(name, func, "a boolean (true or false)", text)
