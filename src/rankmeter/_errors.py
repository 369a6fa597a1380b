"""The exception tree. Every failure rankmeter reports is one of these.

All derive from :class:`RankmeterError`, so callers can catch one class; the
CLI turns them into a one-line message on stderr and exit code 2.
"""

from __future__ import annotations

__all__ = [
    "RankmeterError",
    "InputError",
    "MetricNameError",
    "ParameterError",
    "MissingExtraError",
    "OutputError",
]


QUOTE_LIMIT = 200  # characters of user input a message quotes at most


def clip_quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` with every quoted string and every run without blanks longer than ``limit`` shortened.

    A message may quote user input (a metric name, an id, a line); a 120 KB name is
    quoted by its start and its length, not whole.

    >>> clip_quoted("unknown metric '" + "x" * 300 + "'")[:40]
    "unknown metric 'xxxxxxxxxxxxxxxxxxxxxxxx"
    >>> len(clip_quoted("unknown metric '" + "x" * 300 + "'")) < 260
    True
    >>> clip_quoted("short 'name' stays")
    "short 'name' stays"
    """
    if len(text) <= limit:
        return text
    import re  # (re caches the compiled patterns)

    n = limit + 1
    quoted = re.compile(rf"'([^'\n]{{{n},}})'|\"([^\"\n]{{{n},}})\"")
    word = re.compile(rf"\S{{{n},}}")

    def short(s: str) -> str:
        return s if len(s) <= limit else f"{s[:limit - 20]}...[{len(s)} characters]"

    def one(m: "re.Match[str]") -> str:
        q = "'" if m.group(1) is not None else '"'
        return q + short(m.group(1) if m.group(1) is not None else m.group(2)) + q

    text = quoted.sub(one, text)
    return word.sub(lambda m: short(m.group(0)), text)


class RankmeterError(Exception):
    """Base class of every error rankmeter raises on purpose.

    Its text quotes at most about 200 characters of any user input (:func:`clip_quoted`).
    """

    def __str__(self) -> str:
        return clip_quoted(super().__str__())


class InputError(RankmeterError, ValueError):
    """Bad input data: names the source, the line number and the offending line.

    >>> str(InputError("score is not a number", source="run.txt", line=3, text="q1 Q0 d1 1 x r"))
    "run.txt:3: score is not a number: 'q1 Q0 d1 1 x r'"
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        text: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.text = text
        super().__init__(self._format())

    def _format(self) -> str:
        where = ""
        if self.source is not None:
            where = f"{self.source}:"
            if self.line is not None:
                where += f"{self.line}:"
            where += " "
        elif self.line is not None:
            where = f"line {self.line}: "
        out = f"{where}{self.message}"
        if self.text is not None:
            shown = self.text if len(self.text) <= 200 else self.text[:197] + "..."
            out += f": {shown!r}"
        return out


class MetricNameError(RankmeterError, ValueError):
    """A metric string that does not parse or names no registered metric."""


class ParameterError(RankmeterError, ValueError):
    """A function or metric parameter outside its allowed range.

    Messages follow the form "The 'k' parameter of ndcg must be an int >= 1. Got -1 instead."
    """


class MissingExtraError(RankmeterError, ImportError):
    """An optional feature whose extra is not installed."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        super().__init__(
            f"{feature} needs the optional package {module!r}; "
            f"install it with: pip install 'rankmeter[{extra}]'"
        )
        self.extra = extra
        self.module = module


class OutputError(RankmeterError):
    """An output that could not be written (a full disk, a closed folder): names the file and the cause
    (with the errno's name, in ``errno`` too).

    >>> import errno
    >>> e = OutputError("cannot write /dev/full: No space left on device (ENOSPC)", path="/dev/full",
    ...                 errno=errno.ENOSPC)
    >>> str(e), e.errno == errno.ENOSPC, e.path
    ('cannot write /dev/full: No space left on device (ENOSPC)', True, '/dev/full')
    """

    def __init__(self, message: str, *, path: str | None = None, errno: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.errno = errno
