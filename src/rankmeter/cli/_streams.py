"""The executable's output streams and signals: output faults end in one sentence, or quietly.

:func:`install` (called first by the ``rankmeter`` executable) puts stdout and stderr on
a writer of their file descriptors that turns each output fault into what a
command-line tool should do:

- **Full disk** (``> /dev/full``) or any other failed write to stdout: an
  :class:`~rankmeter._errors.OutputError` naming the file behind stdout and the cause
  (``cannot write stdout (/dev/full): No space left on device (ENOSPC)``), which the
  CLI says in one line, with exit status 2.
- **Closed pipe** (``rankmeter evaluate ... | head -c1``): the process ends quietly, as
  ``cat`` does: the temporary files it was writing are removed and it dies of SIGPIPE
  (the shell shows status 141), with no message.
- **A terminal encoding that cannot show a character** (``PYTHONIOENCODING=ascii``):
  the character is written escaped (``\\xe9``, ``\\u4e2d``, ``\\U0001f600``), the forms of
  the one escaping rule (:mod:`rankmeter.report.escape`), never a crash.
- **Stdout closed from the start** (``>&-``): the descriptor is held by one that refuses
  writes, so no file opened later receives the output, and writing is an OutputError
  (``cannot write stdout (closed when rankmeter started): ... (EBADF)``), exit 2.
- A failed write to stderr is dropped (there is nowhere left to say it), and the exit
  status is 2 rather than 0.

:func:`install` also sets the handlers of SIGTERM and SIGINT: the temporary files being
written are removed (:func:`rankmeter._files.remove_temporaries`) and the process exits
with the signal's usual status, 143 or 130.
"""

from __future__ import annotations

import codecs
import io
import os
import signal
import sys
from typing import Any

from .._errors import OutputError
from .._files import output_error, remove_temporaries

__all__ = ["install", "stderr_failed"]

_STATE = {"stderr_failed": False}


def stderr_failed() -> bool:
    """Whether a write to stderr failed (the exit status is then 2 rather than 0)."""
    return _STATE["stderr_failed"]


def _target(fd: int) -> str:
    """The file behind a descriptor, for a message (``/dev/full``), or '' when it is not a named file."""
    try:
        name = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""
    return name if name.startswith("/") else ""


def die_of_sigpipe() -> None:
    """End the process as ``cat`` does when its reader has gone: temporary files removed, killed by SIGPIPE."""
    remove_temporaries()
    sigpipe = getattr(signal, "SIGPIPE", None)  # none on Windows: the status cat's shell would show there
    if sigpipe is None:
        os._exit(141)
    try:
        signal.signal(sigpipe, signal.SIG_DFL)
        os.kill(os.getpid(), sigpipe)
    finally:
        os._exit(128 + sigpipe)


class _Writer(io.RawIOBase):
    """A file descriptor's writer: a closed pipe ends the process quietly, any other fault is an OutputError
    (stdout) or dropped (stderr); with ``ascii``, bytes beyond ASCII (UTF-8 from writers that chose their own
    encoding) are re-encoded as the rule's escapes."""

    def __init__(self, fd: int, name: str, ascii_only: bool, closed: bool = False) -> None:
        super().__init__()
        self.fd = fd
        self.label = name
        self.closed_at_start = closed
        self.failed = False
        self.decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape") if ascii_only else None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        try:
            return os.isatty(self.fd)
        except OSError:
            return False

    def write(self, b: Any) -> int:
        data = bytes(b)
        if self.failed:
            return len(data)
        out = data
        if self.decoder is not None:
            out = self.decoder.decode(data).encode("ascii", "backslashreplace")
        view = memoryview(out)
        try:
            while view:
                n = os.write(self.fd, view)
                view = view[n:]
        except BrokenPipeError:
            die_of_sigpipe()
        except OSError as exc:
            self.failed = True
            if self.fd == 2:
                _STATE["stderr_failed"] = True
                return len(data)
            where = "closed when rankmeter started" if self.closed_at_start else _target(self.fd)
            raise output_error(self.label if self.closed_at_start else where or self.label, exc,
                               what=f"{self.label} ({where})" if where else self.label) from None
        return len(data)


def _wrap(stream: Any, fd: int, name: str, closed: bool = False) -> Any:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
        ascii_only = codecs.lookup(encoding).name == "ascii"
    except LookupError:
        encoding, utf8, ascii_only = "utf-8", True, False
    raw = _Writer(fd, name, ascii_only, closed)
    buffered = io.BufferedWriter(raw, buffer_size=1 << 16)
    # UTF-8: text as it came (bytes that were not UTF-8 go back out as they were read: trec_eval's output);
    # another encoding: what it cannot show, escaped
    return io.TextIOWrapper(buffered, encoding="utf-8" if utf8 else encoding,
                            errors="surrogateescape" if utf8 else "backslashreplace",
                            line_buffering=bool(getattr(stream, "line_buffering", False)))


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def _on_signal(signum: int, frame: Any) -> None:
    remove_temporaries()
    if signum == signal.SIGINT:
        try:
            os.write(2, b"Interrupted.\n")
        except OSError:
            pass
    os._exit(128 + signum)


def install() -> None:
    """Wrap stdout and stderr (see the module) and handle SIGTERM and SIGINT; for the executable only."""
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        if stream is None and _closed(fd):
            # started with the descriptor closed (`>&-`): hold it with one that refuses writes (EBADF), so no
            # file opened later takes its number and receives the output; writing is then an OutputError
            try:
                held = os.open(os.devnull, os.O_RDONLY)
                if held != fd:
                    os.dup2(held, fd)
                    os.close(held)
            except OSError:
                continue
            setattr(sys, name, _wrap(None, fd, name, closed=True))
            continue
        try:
            if stream is None or stream.fileno() != fd:
                continue
            stream.flush()
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            continue
        setattr(sys, name, _wrap(stream, fd, name))
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            signal.signal(sig, _on_signal)
        except (ValueError, OSError):  # not the main thread
            pass


def flush() -> None:
    """Flush stdout and stderr at the end; an output fault here is said like any other (stdout) or dropped."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OutputError:
        raise
    except (OSError, ValueError):
        pass
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except (OSError, ValueError, OutputError):
        pass
