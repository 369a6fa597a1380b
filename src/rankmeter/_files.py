"""Files written whole or not at all, and output faults in one clear sentence.

Every file rankmeter writes (reports, ``results.json``, ``means.csv``, split outputs,
saved results, manifests) goes through :func:`atomic_path` (or :func:`write_text`,
:func:`write_bytes`, :func:`atomic_open`): it is written under a temporary name in the
same folder (``.NAME.PID-RANDOM.rankmeter-tmp``) and renamed to its name when complete,
so a reader never sees half a file. If the writing fails, the temporary file is
removed and the failure becomes an :class:`~rankmeter._errors.OutputError` naming the
file and the cause (``No space left on device (ENOSPC)``). A target that is not a
regular file (``/dev/full``, ``/dev/stdout``, a FIFO) cannot be replaced: it is written
directly, with the same errors.

The temporary files being written are registered, so that the command line's signal
handler can remove them before it exits (:func:`remove_temporaries`); a temporary file
left by a process that died without cleaning up (``kill -9``) is recognised by its
name and removed by the next write into the same folder (:func:`remove_stale`).

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> write_text(d / "a.txt", "whole\\n")
>>> sorted(p.name for p in d.iterdir()), (d / "a.txt").read_text()
(['a.txt'], 'whole\\n')
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import threading
from contextlib import contextmanager
from json.encoder import encode_basestring_ascii
from pathlib import Path
from typing import IO, Any, Iterator

from ._errors import OutputError

__all__ = ["atomic_path", "atomic_open", "write_text", "write_bytes", "output_error", "is_temporary",
           "remove_stale", "remove_temporaries", "TEMP_SUFFIX", "json_text"]

TEMP_SUFFIX = ".rankmeter-tmp"
_LOCK = threading.Lock()
_WRITING: set[str] = set()  # temporary files being written by this process


def output_error(path: str | os.PathLike[str], exc: OSError, what: str = "") -> OutputError:
    """An :class:`OutputError` naming ``path`` and the cause, with the errno's name (``ENOSPC``).

    >>> str(output_error("/dev/full", OSError(errno.ENOSPC, "No space left on device")))
    'cannot write /dev/full: No space left on device (ENOSPC)'
    """
    code = errno.errorcode.get(exc.errno or 0, "")
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OutputError(f"cannot write {what or os.fspath(path)}: {reason}" + (f" ({code})" if code else ""),
                       path=os.fspath(path), errno=exc.errno)


def is_temporary(name: str) -> bool:
    """Whether a file name is one of rankmeter's temporary names (``.NAME.PID-RANDOM.rankmeter-tmp``)."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def _pid_of(name: str) -> int | None:
    try:
        return int(name[: -len(TEMP_SUFFIX)].rsplit(".", 1)[1].split("-", 1)[0])
    except (IndexError, ValueError):
        return None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def remove_stale(folder: str | os.PathLike[str], name: str | None = None) -> list[str]:
    """Remove the temporary files that dead processes left in ``folder`` (for the file ``name`` only, when
    given); the names removed. A live process's temporary files are left alone."""
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for e in entries:
        if not is_temporary(e.name) or (name is not None and not e.name.startswith(f".{name}.")):
            continue
        pid = _pid_of(e.name)
        if pid is not None and _alive(pid):
            continue
        try:
            os.unlink(e.path)
            removed.append(e.name)
        except OSError:
            pass
    return removed


def remove_temporaries() -> None:
    """Remove every temporary file this process is writing (the signal handler calls it before exiting)."""
    for p in list(_WRITING):
        try:
            os.unlink(p)
        except OSError:
            pass


@contextmanager
def atomic_path(path: str | os.PathLike[str], what: str = "") -> Iterator[Path]:
    """A temporary path to write the whole of ``path`` to; renamed to ``path`` when the block ends without error.

    On an error the temporary file is removed; an :class:`OSError` (full disk, no permission) becomes an
    :class:`OutputError` naming ``path`` (or ``what``). A ``path`` that exists and is not a regular file
    (``/dev/full``, a FIFO) is given as it is: it cannot be replaced.
    """
    target = Path(path)
    real = Path(os.path.realpath(target))
    if target.exists() and not real.is_file():
        try:
            yield target
        except OSError as exc:
            raise output_error(target, exc, what) from None
        return
    final = real if target.exists() else target
    remove_stale(final.parent, final.name)
    tmp = final.with_name(f".{final.name}.{os.getpid()}-{os.urandom(4).hex()}{TEMP_SUFFIX}")
    with _LOCK:
        _WRITING.add(str(tmp))
    try:
        yield tmp
        if final.exists():
            try:
                os.chmod(tmp, stat.S_IMODE(os.stat(final).st_mode))
            except OSError:
                pass
        os.replace(tmp, final)
    except OSError as exc:
        raise output_error(target, exc, what) from None
    finally:
        with _LOCK:
            _WRITING.discard(str(tmp))
        try:
            os.unlink(tmp)
        except OSError:
            pass


@contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8",
                newline: str | None = None, what: str = "") -> Iterator[IO[Any]]:
    """``open(path, mode)`` on a temporary name, renamed to ``path`` once closed without error (``"w"`` or
    ``"wb"``); see :func:`atomic_path`."""
    binary = "b" in mode
    with atomic_path(path, what) as tmp:
        with open(tmp, mode, encoding=None if binary else encoding,
                  newline=None if binary else newline) as fh:
            yield fh


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8", what: str = "") -> None:
    """Write ``text`` to ``path`` whole or not at all (:func:`atomic_path`)."""
    with atomic_open(path, "w", encoding=encoding, newline="", what=what) as fh:
        fh.write(text)


def write_bytes(path: str | os.PathLike[str], data: bytes, what: str = "") -> None:
    """Write ``data`` to ``path`` whole or not at all (:func:`atomic_path`)."""
    with atomic_open(path, "wb", what=what) as fh:
        fh.write(data)


def json_text(obj: Any, indent: int | None = 2) -> str:
    """``json.dumps(obj, indent=indent, allow_nan=False)``, the same text, made faster.

    With an indent, :mod:`json` encodes in Python, one value at a time: a results file with
    the per-user values of 20,000 metrics (800,000 numbers) took seconds and a list of
    millions of small strings. Here each list or map whose values are all plain (text,
    numbers, booleans, null) is encoded in one call of json's C encoder, with the indented
    separator as its item separator; the rest is laid out as :mod:`json` lays it out.
    ``tests/core/test_json_text.py`` holds the two equal.

    >>> json_text({"a": [1, 2.5], "b": {"c": None}, "d": []}) == json.dumps(
    ...     {"a": [1, 2.5], "b": {"c": None}, "d": []}, indent=2, allow_nan=False)
    True
    """
    if indent is None or indent < 1:  # json's own compact forms
        return json.dumps(obj, indent=indent, allow_nan=False)
    out: list[str] = []
    _json_into(obj, 0, indent, out)
    return "".join(out)


_PLAIN = (str, int, float, type(None))  # (bool is an int)


def _scalar(o: Any) -> str | None:
    """json's text of a key or a leaf of the exact built-in types, without a call of :func:`json.dumps` per value
    (its set-up costs more than the value: 20,000 metrics' results hold hundreds of thousands); else None."""
    t = type(o)
    if t is str:
        return encode_basestring_ascii(o)
    if t is float:
        if o != o or o in (math.inf, -math.inf):
            return None  # (json's own error: allow_nan=False)
        return float.__repr__(o)
    if t is int:
        return int.__repr__(o)
    if t is bool:
        return "true" if o else "false"
    if o is None:
        return "null"
    return None


def _member(head: str, v: Any, level: int, indent: int, out: list[str]) -> None:
    """``head`` (a separator, and a key) then the value ``v``: a plain one written at once, without a call per
    value, else laid out at ``level``."""
    text = _scalar(v)
    if text is not None:
        out.append(head + text)
    else:
        out.append(head)
        _json_into(v, level, indent, out)


def _json_into(o: Any, level: int, indent: int, out: list[str]) -> None:
    inner = "\n" + " " * (indent * (level + 1))
    if isinstance(o, dict):
        if not o:
            out.append("{}")
        elif not all(isinstance(k, str) for k in o):  # json's own key conversions: json's own layout, shifted
            out.append(json.dumps(o, indent=indent, allow_nan=False).replace("\n", "\n" + " " * (indent * level)))
        elif all(isinstance(v, _PLAIN) for v in o.values()):
            body = json.dumps(o, allow_nan=False, separators=("," + inner, ": "))
            out.append("{" + inner + body[1:-1] + inner[:-indent] + "}")
        else:
            sep = "{" + inner
            for k, v in o.items():
                _member(sep + encode_basestring_ascii(k) + ": ", v, level + 1, indent, out)  # (keys: text, checked)
                sep = "," + inner
            out.append(inner[:-indent] + "}")
    elif isinstance(o, (list, tuple)):
        if not o:
            out.append("[]")
        elif all(isinstance(v, _PLAIN) for v in o):
            body = json.dumps(o, allow_nan=False, separators=("," + inner, ": "))
            out.append("[" + inner + body[1:-1] + inner[:-indent] + "]")
        else:
            sep = "[" + inner
            for v in o:
                _member(sep, v, level + 1, indent, out)
                sep = "," + inner
            out.append(inner[:-indent] + "]")
    else:
        text = _scalar(o)
        out.append(text if text is not None else
                   json.dumps(o, indent=indent, allow_nan=False).replace("\n", "\n" + " " * (indent * level)))
