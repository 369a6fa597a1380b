"""Opening an input: a file, ``-`` (standard input), a FIFO or ``/dev/stdin``, gzip-compressed or not.

:func:`open_input` is the one way every reader opens what it reads:

- ``-`` is standard input; ``/dev/stdin``, ``<(zcat run.gz)`` and named pipes are
  read as streams (their size on disk says nothing: emptiness is decided by reading);
- gzip is recognised by its magic bytes (``1f 8b``), whatever the name, and
  decompressed on the fly (``run.txt.gz``, ``r.csv.gz``, a gzip stream on stdin);
- the first bytes (decompressed) are read ahead once, for format detection
  (:attr:`Input.head`), and given back by :meth:`Input.read_all` and
  :meth:`Input.open`, so a stream is never read twice.

A regular file can be opened again (:attr:`Input.restartable`); a stream only once.

>>> import tempfile, os, gzip
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "run")
>>> with gzip.open(p, "wb") as f: _ = f.write(b"q Q0 d 1 1 t\\n")
>>> inp = open_input(p)
>>> inp.compressed, inp.head[:4], inp.read_all()
(True, b'q Q0', b'q Q0 d 1 1 t\\n')
"""

from __future__ import annotations

import io
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    import mmap

    import pyarrow as pa

from .._errors import InputError

__all__ = ["Input", "open_input", "HEAD_BYTES", "base_name", "MappedSpan"]

HEAD_BYTES = 1 << 16
_STDIN_READ = False  # whether "-" was opened before in this process
_GZIP = b"\x1f\x8b"


def base_name(name: str) -> str:
    """The name without a compression suffix, lower case (``r.CSV.gz`` -> ``r.csv``)."""
    low = name.lower()
    for suffix in (".gz", ".gzip"):
        if low.endswith(suffix):
            return low[: -len(suffix)]
    return low


class MappedSpan:
    """Bytes ``start:end`` of a memory-mapped file, read in place: no copy into the process's memory.

    It answers what the TREC parser asks of a block (``len``, ``find``, ``startswith``,
    slices, ``bytes()``) and gives pyarrow its bytes without a copy (:meth:`arrow`).
    Reading a range of a large file this way saves copying it out of the page cache and
    faulting in fresh memory for the copy.

    >>> import mmap, tempfile
    >>> with tempfile.TemporaryFile() as fh:
    ...     _ = fh.write(b"q1 Q0 d1 1 2 t\\nq2 Q0 d1 1 2 t\\n"); fh.flush()
    ...     span = MappedSpan(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ), 15, 30)
    ...     len(span), span.find(b"d1"), bytes(span[:2]), span.startswith(b"q2")
    (15, 6, b'q2', True)
    """

    def __init__(self, mm: "mmap.mmap", start: int, end: int) -> None:
        self.mm, self.start, self.end = mm, start, end

    def __len__(self) -> int:
        return self.end - self.start

    def find(self, sub: bytes, start: int = 0) -> int:
        at = self.mm.find(sub, self.start + start, self.end)
        return at - self.start if at >= 0 else -1

    def startswith(self, prefix: bytes) -> bool:
        return self.mm[self.start:min(self.start + len(prefix), self.end)] == prefix

    def __getitem__(self, key: slice) -> "MappedSpan":
        lo, hi, step = key.indices(len(self))
        assert step == 1
        return MappedSpan(self.mm, self.start + lo, self.start + max(lo, hi))

    def __bytes__(self) -> bytes:
        return self.mm[self.start:self.end]

    def release(self) -> None:
        """Unmap the pages of this range from the process (they stay in the page cache; the range can
        still be read, from the cache): the process's memory does not grow with the file."""
        import mmap

        lo = self.start // mmap.PAGESIZE * mmap.PAGESIZE  # (the kernel rounds the end up to a page)
        if hasattr(mmap, "MADV_DONTNEED") and self.end > lo:
            self.mm.madvise(mmap.MADV_DONTNEED, lo, self.end - lo)

    def arrow(self) -> "pa.Buffer":
        """The bytes as a pyarrow buffer over the mapping (valid while the mapping is)."""
        import pyarrow as pa

        return pa.py_buffer(self.mm).slice(self.start, len(self))


class _Replay(io.RawIOBase):
    """Bytes already read (``prefix``) followed by the rest of a stream."""

    def __init__(self, prefix: bytes, rest: BinaryIO) -> None:
        self.prefix = memoryview(prefix)
        self.rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        if len(self.prefix):
            n = min(len(b), len(self.prefix))
            b[:n] = self.prefix[:n]
            self.prefix = self.prefix[n:]
            return n
        data = self.rest.read(len(b))
        if not data:
            return 0
        b[: len(data)] = data
        return len(data)


@dataclass(eq=False)
class Input:
    """An opened input: its name, its first bytes, and how to read it all."""

    name: str  # for messages: the path as given, or "<stdin>"
    head: bytes  # the first bytes (decompressed), at most HEAD_BYTES
    compressed: bool
    restartable: bool  # a regular file: open() may be called again
    path: Path | None = None
    size: int | None = None  # bytes on disk (regular files)
    _stream: BinaryIO | None = field(default=None, repr=False)  # the stream after ``head`` (single use)

    @property
    def plain_file(self) -> bool:
        """A regular, uncompressed file: other libraries may read it by its path."""
        return self.restartable and not self.compressed

    def open(self) -> BinaryIO:
        """A binary stream of the whole content (decompressed), from the first byte."""
        if self.restartable:
            assert self.path is not None
            raw: BinaryIO = open(self.path, "rb")
            if self.compressed:
                import gzip

                return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
            return raw
        if self._stream is None:
            raise InputError("a stream can be read only once", source=self.name)
        stream, self._stream = self._stream, None
        return io.BufferedReader(_Replay(self.head, stream), buffer_size=1 << 20)  # type: ignore[arg-type]

    def read_all(self) -> bytes:
        """The whole content (decompressed)."""
        try:
            if self.plain_file:
                assert self.path is not None
                return self.path.read_bytes()
            with self.open() as fh:
                return fh.read()
        except (OSError, EOFError) as exc:
            raise InputError(f"cannot read the input ({_why(exc)})", source=self.name) from None


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _read_head(stream: BinaryIO, n: int) -> bytes:
    out = b""
    while len(out) < n:
        part = stream.read(n - len(out))
        if not part:
            break
        out += part
    return out


def open_input(path: str | os.PathLike[str]) -> Input:
    """Open ``path`` (``-`` for standard input), detect gzip, and read its first bytes.

    Raises InputError: no such file, a directory, permission denied, empty input.
    """
    global _STDIN_READ
    name = os.fspath(path)
    if name == "-":
        again, _STDIN_READ = _STDIN_READ, True
        try:
            return _from_stream(sys.stdin.buffer, "<stdin>")
        except InputError as exc:
            if again and "empty" in exc.message:
                raise InputError("the input is empty: standard input was read already (only one input can be '-')",
                                 source="<stdin>") from None
            raise
    p = Path(name)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise InputError("no such file", source=name) from None
    except PermissionError:
        raise InputError("permission denied", source=name) from None
    except OSError as exc:
        raise InputError(f"cannot open the file ({_why(exc)})", source=name) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a directory, not a file", source=name)
    try:
        fh = open(p, "rb")
    except PermissionError:
        raise InputError("permission denied", source=name) from None
    except OSError as exc:
        raise InputError(f"cannot open the file ({_why(exc)})", source=name) from None
    if not stat.S_ISREG(st.st_mode):  # a pipe, a FIFO, /dev/stdin: read it once, as a stream
        return _from_stream(fh, name)  # type: ignore[arg-type]
    with fh:
        magic = fh.read(2)
        fh.seek(0)
        compressed = magic == _GZIP
        if compressed:
            import gzip

            try:
                with gzip.GzipFile(fileobj=fh, mode="rb") as gz:
                    head = _read_head(gz, HEAD_BYTES)  # type: ignore[arg-type]
            except (OSError, EOFError) as exc:
                raise InputError(f"not valid gzip data ({_why(exc)})", source=name) from None
        else:
            head = _read_head(fh, HEAD_BYTES)
    if not head:
        raise InputError("the file is empty", source=name)
    return Input(name, head, compressed, True, p, st.st_size)


def _from_stream(stream: BinaryIO, name: str) -> Input:
    try:
        magic = _read_head(stream, 2)
        compressed = magic == _GZIP
        raw: BinaryIO = io.BufferedReader(_Replay(magic, stream), buffer_size=1 << 20)  # type: ignore[arg-type]
        if compressed:
            import gzip

            raw = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
        head = _read_head(raw, HEAD_BYTES)
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read the input ({_why(exc)})", source=name) from None
    if not head:
        raise InputError("the input is empty" if name == "<stdin>" else "the file is empty", source=name)
    return Input(name, head, compressed, False, None, None, raw)
