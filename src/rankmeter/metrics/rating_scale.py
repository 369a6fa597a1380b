"""The rating scale: r_min and r_max, declared by the user or taken from the data."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .._errors import ParameterError

__all__ = ["Scale", "as_scale"]


@dataclass(frozen=True)
class Scale:
    """A rating scale [min, max] and where it came from.

    ``source`` is ``"declared"`` (given by the user: ratings outside it are an
    error) or ``"data"`` (the smallest and largest true rating of the evaluated
    pairs, used when no scale is declared). NMAE and NRMSE divide by ``range``.

    >>> Scale.parse("1:5")
    Scale(min=1.0, max=5.0, source='declared')
    >>> Scale.parse("0.5:5").range
    4.5
    """

    min: float
    max: float
    source: str = "declared"

    @property
    def range(self) -> float:
        return self.max - self.min

    def to_dict(self) -> dict[str, Any]:
        return {"min": self.min, "max": self.max, "source": self.source}

    def __str__(self) -> str:
        return f"{self.min:g}:{self.max:g} ({self.source})"

    @classmethod
    def parse(cls, value: Any) -> "Scale":
        """A declared scale from ``"MIN:MAX"`` (``"1:5"``, ``"0.5:5"``, ``"-2:2"``), ``(1, 5)`` or a :class:`Scale`.

        The text form is exactly what the help says: two decimal numbers in ASCII digits
        around one colon. ``"1-5"``, ``"1,5"`` and full-width digits are refused, not guessed.

        >>> Scale.parse("1-5")  # doctest: +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        rankmeter._errors.ParameterError: The 'scale' parameter must be MIN:MAX in ASCII digits, e.g. 1:5.
        Got '1-5' instead.
        """
        if isinstance(value, Scale):
            return value
        raw = value
        if isinstance(value, str):
            m = _SCALE_TEXT.fullmatch(value)
            if not m:
                raise ParameterError(f"The 'scale' parameter must be MIN:MAX in ASCII digits, e.g. 1:5. "
                                     f"Got {raw!r} instead.")
            parts: Any = (m.group(1), m.group(2))
        else:
            try:
                parts = tuple(value)
            except TypeError:
                raise ParameterError(
                    f"The 'scale' parameter must be MIN:MAX or a pair (min, max). Got {raw!r} instead.") from None
            if len(parts) != 2:
                raise ParameterError(
                    f"The 'scale' parameter must be a pair (min, max). Got {len(parts)} values instead.")
        try:
            lo, hi = float(parts[0]), float(parts[1])
        except (TypeError, ValueError):
            raise ParameterError(f"The 'scale' parameter must hold two numbers. Got {raw!r} instead.") from None
        if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
            raise ParameterError(
                f"The 'scale' parameter must be MIN:MAX with finite MIN < MAX. Got {raw!r} instead.")
        return cls(lo, hi, "declared")


_NUMBER = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_SCALE_TEXT = re.compile(rf"\s*({_NUMBER})\s*:\s*({_NUMBER})\s*", re.ASCII)


def as_scale(value: Any) -> Scale | None:
    """None stays None (the scale will come from the data); anything else is parsed."""
    return None if value is None else Scale.parse(value)
