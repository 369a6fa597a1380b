"""Opening an input: a file, ``-`` (standard input), a FIFO or ``/dev/stdin``, compressed or not.

:func:`open_input` is the one way every reader opens what it reads:

- ``-`` is standard input; ``/dev/stdin``, ``<(zcat run.gz)`` and named pipes are
  read as streams (their size on disk says nothing: emptiness is decided by reading),
  as their text arrives: a read hands over what came when the stream pauses for 0.2 s
  (:class:`Timely`), so a reader reports a fault in it without waiting for more;
- the kind of content is decided by its first bytes, whatever the name:
  gzip (``1f 8b``), bz2 (``BZh``), xz (``fd 37 7a 58 5a 00``) and zstd
  (``28 b5 2f fd``) are decompressed on the fly (``run.txt.gz``, ``r.csv.bz2``, a
  compressed stream on stdin); archives (ZIP, tar, 7-Zip, RAR), other binary files
  and text in UTF-16 or UTF-32 are refused with their kind named (:func:`refusal`);
- the first bytes (decompressed) are read ahead once, for format detection
  (:attr:`Input.head`), and given back by :meth:`Input.read_all` and
  :meth:`Input.open`, so a stream is never read twice;
- text is read with a limit on the length of a line (:func:`max_line_bytes`, 1 MiB
  unless ``RANKMETER_MAX_LINE_BYTES`` says otherwise): a longer line is an error
  naming the file and the line, found after reading at most the limit past the
  line's start (``/dev/zero`` as a run ends at once, not after filling the memory);
- a truncated or corrupt compressed input is an :class:`~rankmeter.InputError`
  naming the file and quoting the codec's words.

A regular file can be opened again (:attr:`Input.restartable`); a stream only once.

>>> import tempfile, os, gzip
>>> d = tempfile.mkdtemp(); p = os.path.join(d, "run")
>>> with gzip.open(p, "wb") as f: _ = f.write(b"q Q0 d 1 1 t\\n")
>>> inp = open_input(p)
>>> inp.compressed, inp.codec, inp.head[:4], inp.read_all()
(True, 'gzip', b'q Q0', b'q Q0 d 1 1 t\\n')
>>> _ = open(p, "wb").write(b"PK\\x03\\x04" + bytes(60))
>>> try:
...     open_input(p)
... except InputError as exc:
...     print(exc.message)
a ZIP archive; unpack it first
"""

from __future__ import annotations

import functools
import io
import os
import stat
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterator, cast

if TYPE_CHECKING:
    import mmap

    import pyarrow as pa

from .._errors import InputError

__all__ = ["Input", "open_input", "HEAD_BYTES", "base_name", "MappedSpan", "max_line_bytes", "check_lines",
           "refusal", "LineChecker", "MAX_LINE_ENV", "CODECS", "is_stream", "Timely", "open_timely"]

HEAD_BYTES = 1 << 16
_STDIN_READ = False  # whether "-" was opened before in this process
MAX_LINE_ENV = "RANKMETER_MAX_LINE_BYTES"
_DEFAULT_MAX_LINE = 1 << 20
CODECS = ("gzip", "bz2", "xz", "zstd")  # read, by their first bytes


def base_name(name: str) -> str:
    """The name without a compression suffix, lower case (``r.CSV.gz`` -> ``r.csv``).

    >>> base_name("R.CSV.gz"), base_name("run.txt.zst"), base_name("q.tsv.bz2")
    ('r.csv', 'run.txt', 'q.tsv')
    """
    low = name.lower()
    for suffix in (".gz", ".gzip", ".bz2", ".xz", ".zst", ".zstd"):
        if low.endswith(suffix):
            return low[: -len(suffix)]
    return low


@functools.cache
def _libc() -> Any:
    """The C library's ``memchr`` and ``madvise`` through ctypes, which lets go of Python's GIL for the
    call; None where the process has no such symbols (Windows).

    ``mmap.find`` and ``mmap.madvise`` hold the GIL: a worker scanning a 12 MB range for odd bytes held
    it ~3.5 ms a range, and the other worker's Python (the evaluation) waited. Measured on 2 cores, 10M
    lines: the workers' time off the CPU 0.14 -> 0.09 s, the job 0.91 -> 0.88 s.
    """
    try:
        import ctypes

        lib = ctypes.CDLL(None)
        memchr, madvise = lib.memchr, lib.madvise
    except (ImportError, OSError, AttributeError, TypeError):  # (a Python without ctypes; Windows)
        return None
    memchr.restype = ctypes.c_void_p
    memchr.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
    madvise.restype = ctypes.c_int
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return lib


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
        """Where ``sub`` first occurs from ``start`` on (-1 if nowhere). One byte is looked for by the C
        library's ``memchr``, with Python's GIL let go of (:func:`_libc`)."""
        if start > len(self):
            return -1
        lo = self.start + start
        lib = _libc() if len(sub) == 1 and start >= 0 else None
        if lib is None:
            at = self.mm.find(sub, lo, self.end)
            return at - self.start if at >= 0 else -1
        if lo >= self.end:
            return -1
        view = self._whole()  # (held while the bytes are read: the map cannot be closed meanwhile)
        found = lib.memchr(view.address + lo, sub[0], self.end - lo)
        return found - view.address - self.start if found else -1

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
        if not hasattr(mmap, "MADV_DONTNEED") or self.end <= lo:
            return
        lib = _libc()
        if lib is not None:  # (the GIL let go of while the kernel unmaps the pages)
            view = self._whole()
            if lib.madvise(view.address + lo, self.end - lo, mmap.MADV_DONTNEED) == 0:
                return
        self.mm.madvise(mmap.MADV_DONTNEED, lo, self.end - lo)  # (and its error, if any, raised)

    def arrow(self) -> "pa.Buffer":
        """The bytes as a pyarrow buffer over the mapping (valid while the mapping is)."""
        return self._whole().slice(self.start, len(self))

    def _whole(self) -> "pa.Buffer":
        """A pyarrow buffer over the whole mapping (while it lives, the map cannot be closed)."""
        import pyarrow as pa

        return pa.py_buffer(self.mm)


class _Replay(io.RawIOBase):
    """Bytes already read (``prefix``) followed by the rest of a stream."""

    def __init__(self, prefix: bytes, rest: BinaryIO) -> None:
        self.prefix = memoryview(prefix)
        self.rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]  # bytearray is the only buffer passed here
        if len(self.prefix):
            n = min(len(b), len(self.prefix))
            b[:n] = self.prefix[:n]
            self.prefix = self.prefix[n:]
            return n
        data = getattr(self.rest, "read1", self.rest.read)(len(b))  # (what is there: a stream is not waited on)
        if not data:
            return 0
        b[: len(data)] = data
        return len(data)


def max_line_bytes() -> int:
    """The longest line a text input may have, in bytes: ``RANKMETER_MAX_LINE_BYTES`` (default 1 MiB).

    A longer line is an error: rankmeter's inputs are lines of a few fields, and a
    reader waiting for the end of an endless line (``/dev/zero``) would fill the memory.

    >>> max_line_bytes()
    1048576
    """
    text = os.environ.get(MAX_LINE_ENV)
    if text is None or not text.strip():
        return _DEFAULT_MAX_LINE
    try:
        value = int(text.strip())
    except ValueError:
        value = 0
    if value < 1:
        from .._errors import ParameterError

        raise ParameterError(f"{MAX_LINE_ENV} must be a whole number of bytes >= 1. Got {text[:40]!r} instead.")
    return value


def _size_text(n: int) -> str:
    """``1 MiB (1048576 bytes)``; ``100 bytes``."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit} ({n} bytes)"
    return f"{n} bytes"


def _long_line_error(source: str, line: int, start_text: bytes, limit: int) -> InputError:
    start_text = start_text[:200]
    cut = _eol_after(start_text, 0, len(start_text))
    if cut >= 0:
        start_text = start_text[:cut]
    return InputError(f"a line longer than {_size_text(limit)}: not line-oriented text, or a line too long for a "
                      f"run or judgments (the limit is set by {MAX_LINE_ENV})", source=source, line=line,
                      text=start_text[:200].decode("utf-8", "replace"))


def _count_ends(data: bytes | Any, lo: int, hi: int) -> int:
    """The number of line ends (``\\n``, ``\\r\\n``, ``\\r``) in ``data[lo:hi]``."""
    part = data if (lo == 0 and hi == len(data) and isinstance(data, bytes)) else bytes(data[lo:hi])
    n = part.count(b"\n")
    if b"\r" in part:
        n += part.count(b"\r") - part.count(b"\r\n")
    return n


def _eol_after(data: Any, lo: int, hi: int) -> int:
    """The first line end in ``data[lo:hi]`` (-1: none); ``data`` has ``find`` (bytes, mmap)."""
    a = data.find(b"\n", lo, hi)
    b = data.find(b"\r", lo, a if a >= 0 else hi)
    return int(b if b >= 0 else a)


def _eol_before(data: Any, lo: int, hi: int) -> int:
    """The last line end in ``data[lo:hi]`` (-1: none)."""
    a = data.rfind(b"\n", lo, hi)
    return int(max(a, data.rfind(b"\r", max(a, lo), hi)))


def _first_long(data: Any, start: int, end: int, limit: int) -> tuple[int, int] | None:
    """``(line start, its length so far)`` of the first line in ``data[start:end]`` longer than ``limit``
    (``data[start]`` begins a line), or None.

    Only windows of about ``limit / 2`` bytes are searched for a line end (each holds one
    unless a line is long there), so a large file costs a few thousand ``memchr`` calls.
    """
    h = max(1, (limit + 1) // 2)  # a line of more than ``limit`` bytes holds a whole aligned window
    k = start
    while k < end:
        hi = min(k + h, end)
        if _eol_after(data, k, hi) >= 0:
            k = hi
            continue
        # a window without a line end: measure its line (the search back is bounded by the limit, except
        # when the line is too long anyway)
        eol = _eol_before(data, max(start, k - limit), k)
        line_start = eol + 1 if eol >= 0 else max(start, _eol_before(data, start, k) + 1)
        stop = min(end, line_start + limit + 1)
        after = _eol_after(data, hi, stop) if hi < stop else -1
        line_end = after if after >= 0 else stop
        if line_end - line_start > limit:
            return line_start, line_end - line_start
        k = max(hi, line_end)
    return None


def check_lines(data: bytes | Any, source: str, limit: int | None = None, first_line: int = 1,
                start: int = 0) -> None:
    """Raise InputError when a line of ``data`` (bytes, a memory map) is longer than ``limit``.

    >>> try:
    ...     check_lines(b"a b\\n" + b"x" * 20 + b"\\nc\\n", "f.txt", limit=10)
    ... except InputError as exc:
    ...     print(exc.source, exc.line, exc.message[:30], exc.text[:5])
    f.txt 2 a line longer than 10 bytes: n xxxxx
    """
    limit = max_line_bytes() if limit is None else limit
    n = len(data)
    if n - start <= limit:
        return
    found = _first_long(data, start, n, limit)
    if found is not None:
        at = found[0]
        line = first_line + _count_ends(data, start, at)
        raise _long_line_error(source, line, bytes(data[at:at + 200]), limit)


class LineChecker:
    """The line-length limit over text that arrives in pieces (a stream), in bounded memory and linear time.

    >>> c = LineChecker("<stdin>", limit=8)
    >>> c.feed(b"abc\\nde"); c.feed(b"f\\n"); c.lines
    2
    >>> try:
    ...     c.feed(b"0123456789")
    ... except InputError as exc:
    ...     print(exc.line, exc.text)
    3 0123456789
    """

    def __init__(self, source: str, limit: int | None = None) -> None:
        self.source = source
        self.limit = max_line_bytes() if limit is None else limit
        self.lines = 0  # line ends seen so far
        self.run = 0  # bytes since the last line end
        self.head = b""  # the first bytes of the current line (for the message)
        self.cr = False  # the last piece ended with \r (a \n next ends the same line)

    def feed(self, data: bytes) -> None:
        n = len(data)
        if not n:
            return
        first = _eol_after(data, 0, min(n, self.limit - self.run + 1))
        if first < 0:
            if self.run + n > self.limit:
                raise _long_line_error(self.source, self.lines + 1, self.head + data[:200], self.limit)
            if len(self.head) < 200:
                self.head += data[:200 - len(self.head)]
            self.run += n
            self.cr = False
            return
        found = _first_long(data, first + 1, n, self.limit)
        if found is not None:
            at = found[0]
            line = self.lines + 1 + _count_ends(data, 0, at) - (1 if self.cr and data[:1] == b"\n" else 0)
            raise _long_line_error(self.source, line, data[at:at + 200], self.limit)
        ends = _count_ends(data, 0, n) - (1 if self.cr and data[:1] == b"\n" else 0)
        self.lines += ends
        last = _eol_before(data, 0, n)
        self.run = n - last - 1
        self.head = data[last + 1:last + 201]
        self.cr = data[-1:] == b"\r"


def _codec_of(magic: bytes) -> str | None:
    """The compression of data starting with ``magic`` (its first 10 bytes), or None."""
    if magic[:2] == b"\x1f\x8b":
        return "gzip"
    if magic[:3] == b"BZh" and magic[3:4] in b"123456789" and len(magic) >= 10 and \
            magic[4:10] in (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90"):
        return "bz2"
    if magic[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if magic[:4] == b"\x28\xb5\x2f\xfd":
        return "zstd"
    return None


_KINDS: tuple[tuple[int, bytes, str], ...] = (
    (0, b"PK\x03\x04", "a ZIP archive; unpack it first"),
    (0, b"PK\x05\x06", "a ZIP archive (empty); unpack it first"),
    (0, b"PK\x07\x08", "a ZIP archive; unpack it first"),
    (257, b"ustar\x00", "a tar archive; unpack it first"),  # POSIX
    (257, b"ustar  \x00", "a tar archive; unpack it first"),  # GNU
    (0, b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive; unpack it first"),
    (0, b"Rar!\x1a\x07", "a RAR archive; unpack it first"),
    (0, b"\x04\x22\x4d\x18", "LZ4-compressed data (gzip, bz2, xz and zstd are read); decompress it first"),
    (0, b"\x5d\x00\x00", "LZMA-compressed data (gzip, bz2, xz and zstd are read); decompress it first"),
    (0, b"%PDF-", "a PDF document, not a data file"),
    (0, b"\x89PNG\r\n\x1a\n", "a PNG image, not a data file"),
    (0, b"\xff\xd8\xff", "a JPEG image, not a data file"),
    (0, b"GIF87a", "a GIF image, not a data file"),
    (0, b"GIF89a", "a GIF image, not a data file"),
    (0, b"\x7fELF", "an executable (ELF), not a data file"),
    (0, b"SQLite format 3\x00", "an SQLite database; export the table first (to Parquet, Feather or CSV)"),
    (0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an OLE2 document (.xls, .doc); export it as CSV first"),
    (0, b"\x89HDF\r\n\x1a\n", "an HDF5 file; export the table first (to Parquet, Feather or CSV)"),
    (0, b"\x93NUMPY", "a NumPy array file (.npy); write a table first (Parquet, Feather or CSV)"),
)
_TABLE_MAGIC = (b"PAR1", b"ARROW1\x00\x00", b"FEA1", b"\xff\xff\xff\xff")  # Parquet, Arrow IPC file/Feather, stream


def _encoding_of(head: bytes) -> str | None:
    """UTF-16 or UTF-32 text, by its byte order mark or by the zero bytes of ASCII characters."""
    for bom, name in ((b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"), (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
                      (b"\xff\xfe", "UTF-16 (little-endian)"), (b"\xfe\xff", "UTF-16 (big-endian)")):
        if head.startswith(bom):
            return name
    sample = head[:1024]
    n = len(sample) // 4 * 4
    if n < 8:
        return None
    z = [sample[i:n:4].count(0) * 4 == n for i in range(4)]  # which of the 4 byte lanes are all zero
    if z[1] and z[2] and z[3] and not z[0]:
        return "UTF-32 (little-endian)"
    if z[0] and z[1] and z[2] and not z[3]:
        return "UTF-32 (big-endian)"
    even, odd = sample[0:n:2].count(0) * 2 == n, sample[1:n:2].count(0) * 2 == n
    if odd and not even:
        return "UTF-16 (little-endian)"
    if even and not odd:
        return "UTF-16 (big-endian)"
    return None


def refusal(head: bytes) -> str | None:
    """What is wrong with content starting with ``head`` (decompressed), or None when it may be read.

    Archives and other binary files by their magic bytes; UTF-16/UTF-32 text; other
    binary data (zero bytes in text that is not UTF-8, or nothing but zero bytes).

    >>> refusal(b"q Q0 d 1 1 t\\n") is None, refusal(b"PAR1....") is None
    (True, True)
    >>> refusal(b"\\xff\\xfeq\\x00 \\x000\\x00")
    'UTF-16 (little-endian) text; rankmeter reads UTF-8 text: convert it first (e.g. iconv -f UTF-16 -t UTF-8)'
    >>> refusal(b"x" * 257 + b"ustar\\x0000"), refusal(b"x" * 257 + b"ustar is a word")
    ('a tar archive; unpack it first', None)
    """
    if head.startswith(_TABLE_MAGIC):
        return None
    for at, magic, kind in _KINDS:
        if head[at:at + len(magic)] == magic:
            return kind
    enc = _encoding_of(head)
    if enc is not None:
        short = enc.split(" ")[0]
        return f"{enc} text; rankmeter reads UTF-8 text: convert it first (e.g. iconv -f {short} -t UTF-8)"
    if b"\x00" in head:
        if not head.strip(b"\x00"):
            return "binary data (nothing but zero bytes), not text"
        import codecs

        try:
            codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        except UnicodeDecodeError:
            return "binary data (zero bytes, and not UTF-8 text), not a run or judgments in a format rankmeter reads"
    return None


class _ArrowStream(io.RawIOBase):
    """A pyarrow input stream (zstd decompression) as a Python binary stream."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self.stream.read(len(b))
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.stream.close()
        super().close()


def _decoder(codec: str, raw: BinaryIO) -> BinaryIO:
    """A stream of ``raw`` decompressed by ``codec``."""
    if codec == "gzip":
        import gzip

        # a file object with the BinaryIO methods used (the ignore below)
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if codec == "bz2":
        import bz2

        return bz2.BZ2File(raw, "rb")  # type: ignore[return-value]  # a file object with the BinaryIO methods used
    if codec == "xz":
        import lzma

        return lzma.LZMAFile(raw, "rb")  # type: ignore[return-value]  # a file object with the BinaryIO methods used
    import pyarrow as pa

    stream = pa.CompressedInputStream(pa.PythonFile(raw, mode="r"), "zstd")
    return _ArrowStream(stream)  # type: ignore[return-value]  # a file object with the BinaryIO methods used


def _codec_error(codec: str | None, exc: BaseException, source: str) -> InputError:
    """A reading failure as an InputError: a compressed stream cut short or corrupt, or an I/O error."""
    words = _why(exc)
    if codec is None:
        return InputError(f"cannot read the input ({words})", source=source)
    cut = isinstance(exc, EOFError) or "ended before" in words or "runcated" in words
    if cut:
        return InputError(f"truncated {codec} data: the input ends before the compressed stream does ({words})",
                          source=source)
    return InputError(f"corrupt {codec} data ({words})", source=source)


_READ_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, ValueError)


class _Reader(io.RawIOBase):
    """A stream whose read errors become InputError (naming the codec and the source) and, for text, whose
    lines are checked against the line limit as they pass."""

    def __init__(self, inner: BinaryIO, source: str, codec: str | None, lines: LineChecker | None) -> None:
        self.inner = inner
        self.source = source
        self.codec = codec
        self.lines = lines

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        try:
            data = getattr(self.inner, "read1", self.inner.read)(len(b))  # (what is there: see _Replay)
        except _READ_ERRORS as exc:
            if isinstance(exc, InputError):
                raise
            raise _codec_error(self.codec, exc, self.source) from None
        except Exception as exc:  # noqa: BLE001 (zlib.error, lzma.LZMAError: a codec's own classes)
            raise _codec_error(self.codec, exc, self.source) from None
        if not data:
            return 0
        if self.lines is not None:
            self.lines.feed(data)
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            super().close()


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
    codec: str | None = None  # "gzip", "bz2", "xz", "zstd" (None: not compressed)
    _lines_checked: bool = field(default=False, repr=False)

    @property
    def plain_file(self) -> bool:
        """A regular, uncompressed file: other libraries may read it by its path."""
        return self.restartable and not self.compressed

    def open(self, text: bool = True) -> BinaryIO:
        """A binary stream of the whole content (decompressed), from the first byte.

        ``text``: lines are checked against the line limit as they are read (an InputError
        names the line); read errors of a compressed input are InputErrors too.
        """
        checker = LineChecker(self.name) if text else None
        if self.restartable:
            if self.path is None:
                raise InputError("no path to read again", source=self.name)
            raw: BinaryIO = open(self.path, "rb")
            if self.codec is not None:
                raw = _decoder(self.codec, raw)
            elif checker is None:
                return raw
            return cast(BinaryIO, io.BufferedReader(_Reader(raw, self.name, self.codec, checker),
                                                    buffer_size=1 << 20))
        if self._stream is None:
            raise InputError("a stream can be read only once", source=self.name)
        stream, self._stream = self._stream, None
        replay = cast(BinaryIO, _Replay(self.head, stream))
        return cast(BinaryIO, io.BufferedReader(_Reader(replay, self.name, None, checker), buffer_size=1 << 20))

    def check_lines(self) -> None:
        """For a plain file read by other means (a memory map, pyarrow by path): the line-length limit, checked
        once over the file without reading it all (a few thousand ``memchr`` calls a GB)."""
        if self._lines_checked or not self.plain_file or not self.size or self.size <= max_line_bytes():
            self._lines_checked = True
            return
        import mmap

        assert self.path is not None
        with open(self.path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            check_lines(mm, self.name, start=3 if mm[:3] == b"\xef\xbb\xbf" else 0)
        self._lines_checked = True

    def read_all(self, text: bool = True) -> bytes:
        """The whole content (decompressed); ``text``: with the line-length limit checked."""
        try:
            if self.plain_file:
                assert self.path is not None
                data = self.path.read_bytes()
                if text:
                    check_lines(data, self.name)
                return data
            with self.open(text) as fh:
                return fh.read()
        except (OSError, EOFError) as exc:
            raise InputError(f"cannot read the input ({_why(exc)})", source=self.name) from None


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Standard input (``-``), a pipe or a FIFO (``/dev/stdin``, ``<(...)``): read once, as it arrives.

    >>> is_stream("-"), is_stream(__file__), is_stream("/no/such/file")
    (True, False, False)
    """
    name = os.fspath(path)
    if name == "-":
        return True
    try:
        mode = os.stat(name).st_mode
    except OSError:
        return False  # (the reader says what is wrong with it)
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


class Timely:
    """A stream read as its text arrives: :meth:`read` returns up to ``size`` bytes, early when the stream
    pauses for ``pause`` seconds with text in hand, so that a reader parses what came (and reports a fault in
    it) while a slow or stalled producer sends nothing more.

    A thread reads the stream in pieces (at most ``queued`` of them wait: bounded memory); its errors (a line
    over the limit, a corrupt compressed stream) are raised by :meth:`read` after the text before them.
    :meth:`close` never waits for a read that blocks: the thread, a daemon, ends with the stream or the
    process.

    >>> t = Timely(io.BufferedReader(io.BytesIO(b"a\\nb\\n")))
    >>> t.read(3), t.read(3), t.read(3)
    (b'a\\nb', b'\\n', b'')
    >>> t.close()
    """

    def __init__(self, stream: BinaryIO, pause: float = 0.2, piece: int = 1 << 20, queued: int = 16) -> None:
        import queue
        import threading

        self.stream = stream
        self.pause = pause
        self.pieces: queue.Queue[bytes | BaseException] = queue.Queue(maxsize=queued)
        self.left = b""  # the rest of a piece longer than a read asked for
        self.eof = False
        self.paused = False  # the last read returned early: the stream paused with text in hand
        self.thread = threading.Thread(target=self._pump, args=(piece,), name="rankmeter-stream-reader",
                                       daemon=True)
        self.thread.start()

    def _pump(self, piece: int) -> None:
        read = getattr(self.stream, "read1", self.stream.read)
        try:
            while True:
                data = read(piece)
                self.pieces.put(data)
                if not data:
                    return
        except BaseException as exc:  # noqa: BLE001  (handed to the reader, raised where the text stops)
            self.pieces.put(exc)

    def read(self, size: int) -> bytes:
        import queue

        out = bytearray(self.left[:size])
        self.left = self.left[size:]
        self.paused = False
        while len(out) < size and not self.eof:
            try:
                got = self.pieces.get(timeout=self.pause if out else None)
            except queue.Empty:  # a pause with text in hand: give what came
                self.paused = True
                break
            if isinstance(got, BaseException):
                self.eof = True
                raise got
            if not got:
                self.eof = True
                break
            need = size - len(out)
            out += got[:need]
            self.left = got[need:]
        return bytes(out)

    read1 = read  # (at least a byte unless at the end, as read1 promises; never more than came)

    def had_pause(self) -> bool:
        """Whether the last read returned early, the stream pausing with text in hand."""
        return self.paused

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.thread.is_alive():
            self.stream.close()


@contextmanager
def open_timely(inp: Input) -> Iterator[Timely]:
    """``inp``'s content (:meth:`Input.open`, lines checked) read as its text arrives (:class:`Timely`)."""
    reader = Timely(inp.open())
    try:
        yield reader
    finally:
        reader.close()


def _read_head(stream: BinaryIO, n: int, paused: Callable[[], bool] | None = None) -> bytes:
    """The first ``n`` bytes (fewer at the end, or when ``paused()`` says the stream paused: what came)."""
    out = b""
    while len(out) < n:
        part = stream.read(n - len(out))
        if not part:
            break
        out += part
        if paused is not None and paused():
            break
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
        return _from_stream(fh, name)
    with fh:
        magic = _read_head(fh, 512)
        fh.seek(0)
        codec = _refuse_or_codec(magic, name)
        if codec is not None:
            # _Reader has the BinaryIO methods used (the ignore below)
            head = _read_head(_Reader(_decoder(codec, fh), name, codec, None), HEAD_BYTES)  # type: ignore[arg-type]
        else:
            head = magic + _read_head(fh, HEAD_BYTES - len(magic)) if len(magic) == 512 else magic
    if not head:
        raise InputError("the file is empty", source=name)
    _refuse(head, name, codec)
    return Input(name, head, codec is not None, True, p, st.st_size, codec=codec)


def read_text_file(path: str | os.PathLike[str]) -> str:
    """The whole UTF-8 text of a small input (a JSON or TOML file of parameters, a saved result), read as the
    runs are: a gzip/bz2/xz/zstd copy is decompressed; an archive, UTF-16/UTF-32 text, binary data, an endless
    stream of zero bytes (``/dev/zero``) and text that is not UTF-8 are InputErrors naming the file.

    >>> import tempfile, gzip
    >>> with tempfile.NamedTemporaryFile(suffix=".data") as f:
    ...     _ = f.write(gzip.compress(b'{"a": 1}')); f.flush()
    ...     read_text_file(f.name)
    '{"a": 1}'
    """
    inp = open_input(path)
    data = inp.read_all(text=True)
    try:
        return data[3:].decode("utf-8") if data.startswith(b"\xef\xbb\xbf") else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"expected UTF-8 text; found the byte 0x{data[exc.start]:02x}, which is not UTF-8",
                         source=inp.name, line=line) from None


def _refuse_or_codec(magic: bytes, name: str) -> str | None:
    """The codec of compressed data; an InputError for an archive or other refused content."""
    codec = _codec_of(magic)
    if codec is None and magic:
        _refuse(magic, name, None)
    return codec


def _refuse(head: bytes, name: str, codec: str | None) -> None:
    why = refusal(head)
    if why is not None:
        if codec is not None:  # "a tar archive (gzip-compressed); unpack it first"
            first, sep, rest = why.partition(";")
            why = f"{first} ({codec}-compressed){sep}{rest}"
        raise InputError(why, source=name)


def _from_stream(stream: BinaryIO, name: str) -> Input:
    # read as its text arrives: a pause hands over what came (the first bytes of a stream that stalls, too),
    # so that a fault in it is reported at once rather than when 64 KiB or the end arrive
    timely = Timely(stream)
    paused = timely.had_pause
    try:
        magic = _read_head(cast(BinaryIO, timely), 512, paused)
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read the input ({_why(exc)})", source=name) from None
    codec = _refuse_or_codec(magic, name)
    raw = cast(BinaryIO, io.BufferedReader(cast(Any, _Replay(magic, cast(BinaryIO, timely))), buffer_size=1 << 20))
    if codec is not None:
        raw = _decoder(codec, raw)
    # _Reader has the BinaryIO methods used (the ignore below)
    reader: BinaryIO = _Reader(raw, name, codec, None)  # type: ignore[assignment]
    head = _read_head(reader, HEAD_BYTES, paused)
    if not head:
        raise InputError("the input is empty" if name == "<stdin>" else "the file is empty", source=name)
    _refuse(head, name, codec)
    return Input(name, head, codec is not None, False, None, None, reader, codec=codec)
