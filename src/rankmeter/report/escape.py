"""The one escaping rule of every output: control characters shown escaped, a literal backslash doubled.

Every text that comes from the data (ids, run and recommender names, metric names as
the user wrote them) is written through :func:`escape` wherever it can be misread: the
terminal tables, CSV cells, ``--format trec`` lines, Markdown, LaTeX and HTML. The rule:

=====================================================  ==============================
character                                              written
=====================================================  ==============================
backslash ``\\``                                       ``\\\\`` (doubled)
newline, carriage return, tab                          ``\\n``, ``\\r``, ``\\t``
other C0 controls, DEL, C1 controls                    ``\\xHH``
invisible and reordering characters (bidirectional     ``\\uHHHH``
overrides and isolates, zero-width characters, line
and paragraph separators, BOM, soft hyphen), lone
surrogates (bytes that were not UTF-8)
=====================================================  ==============================

The rule is reversible: :func:`unescape` gives the original text back, so two
different ids never print the same (``a<TAB>b`` prints ``a\\tb``, the four characters
``a\\tb`` print ``a\\\\tb``). A writer may escape more characters in the same forms,
and :func:`unescape` reads them all: a TREC line escapes blanks (``\\x20``), since a
blank would split the line into more fields (:func:`line_text`); a terminal that
cannot show a character gets it as ``\\xHH``, ``\\uHHHH`` or ``\\UHHHHHHHH``
(the executable's output streams do that). JSON needs none of this: its strings are
escaped by JSON itself (``\\u001b``, ``\\\\``), and rankmeter writes them ASCII-only.

>>> escape("a\\tb"), escape("a\\\\tb")
('a\\\\tb', 'a\\\\\\\\tb')
>>> unescape(escape("q\\x1b]0;title\\x07")) == "q\\x1b]0;title\\x07"
True
>>> line_text("query one")
'query\\\\x20one'
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["escape", "unescape", "line_text", "csv_cell", "csv_uncell", "encodable", "NEEDS_ESCAPE"]

#: what the rule escapes: the backslash, C0 controls, DEL, C1 controls, the soft hyphen, zero-width and
#: reordering characters (U+061C, U+200B-U+200F, U+2028-U+202E, U+2060-U+2069), the BOM, lone surrogates
NEEDS_ESCAPE = "\\\\\x00-\x1f\x7f-\x9f\xad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff"
_PLAIN = re.compile(f"[{NEEDS_ESCAPE}]")
_LINE = re.compile(f"[{NEEDS_ESCAPE}\\s]")
_NAMED = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNNAMED = {"\\": "\\", "n": "\n", "r": "\r", "t": "\t"}
_SEQUENCE = re.compile(r"\\(?:([\\nrt])|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.|$))", re.S)


def char_escape(ch: str) -> str:
    """One character in the rule's form: ``\\\\``, ``\\n``, ``\\r``, ``\\t``, ``\\xHH``, ``\\uHHHH``
    or ``\\UHHHHHHHH``."""
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _sub(m: re.Match[str]) -> str:
    return char_escape(m.group(0))


def escape(value: Any) -> str:
    """``str(value)`` by the one rule: backslash doubled, controls and invisible characters escaped.

    >>> escape("q\\x1b[2J"), escape("C:\\\\runs"), escape("bm25")
    ('q\\\\x1b[2J', 'C:\\\\\\\\runs', 'bm25')
    """
    return _PLAIN.sub(_sub, str(value))


def line_text(value: Any) -> str:
    """:func:`escape`, with every blank (any whitespace) escaped too: one field of a whitespace-separated
    line (``--format trec``), which no id can split or end.

    >>> line_text("a b\\u00a0c")
    'a\\\\x20b\\\\xa0c'
    """
    return _LINE.sub(_sub, str(value))


def unescape(text: str) -> str:
    """The text :func:`escape` (or :func:`line_text`, or an output stream's escape) was given.

    A backslash followed by anything but the rule's forms is an error (:class:`ValueError`):
    the rule never writes one.

    >>> unescape("a\\\\tb"), unescape("a\\\\\\\\tb"), unescape("q\\\\x20\\\\u00e9")
    ('a\\tb', 'a\\\\tb', 'q é')
    """

    def one(m: re.Match[str]) -> str:
        named, x2, u4, u8, bad = m.groups()
        if named is not None:
            return _UNNAMED[named]
        if bad is not None:
            raise ValueError(f"not an escape of rankmeter's rule at {m.start()} in {text[:200]!r}")
        return chr(int(x2 or u4 or u8, 16))

    return _SEQUENCE.sub(one, text)


_FORMULA = ("=", "+", "-", "@")


def csv_cell(value: Any) -> str:
    """A CSV text cell: :func:`escape`, and a cell that a spreadsheet would read as a formula (starting
    with ``= + - @``) prefixed with ``'``; an id's own leading ``'`` is written ``\\x27``, so the cell
    reads back exactly (:func:`csv_uncell`).

    >>> csv_cell("=HYPERLINK(1)"), csv_cell("'=x"), csv_cell("a\\tb")
    ("'=HYPERLINK(1)", '\\\\x27=x', 'a\\\\tb')
    """
    s = escape(value)
    if s.startswith("'"):
        return "\\x27" + s[1:]
    if s.startswith(_FORMULA):
        return "'" + s
    return s


def csv_uncell(cell: str) -> str:
    """The text :func:`csv_cell` was given.

    >>> csv_uncell("'=HYPERLINK(1)"), csv_uncell("\\\\x27=x")
    ('=HYPERLINK(1)', "'=x")
    """
    return unescape(cell[1:] if cell.startswith("'") else cell)


def encodable(text: str, encoding: str | None) -> str:
    """``text`` with what ``encoding`` cannot write escaped in the rule's forms (``\\xe9``, ``\\u4e2d``): for a
    terminal whose encoding is narrow (``PYTHONIOENCODING=ascii``), before a table measures its columns.

    >>> print(encodable("caf\u00e9 \u4e2d", "ascii"), encodable("caf\u00e9", "utf-8"))
    caf\xe9 \u4e2d café
    """
    if text.isascii() or not encoding:
        return text
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:
        return text
