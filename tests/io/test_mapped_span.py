"""A range of a memory-mapped file (:class:`MappedSpan`): ``find`` answers as ``bytes.find`` does, and the
scans of one byte and the unmapping run in the C library, not in ``mmap``'s methods, which hold Python's
GIL (a worker scanning its range would stall the other worker's Python)."""

from __future__ import annotations

import mmap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.io import source
from rankmeter.io.source import MappedSpan

TEXT = st.binary(min_size=1, max_size=300) | st.text(alphabet="ab #\t\n\r", min_size=1, max_size=300).map(str.encode)


class _NoMethods(mmap.mmap):
    """A map whose own find and madvise must not be called."""

    def find(self, *args, **kwargs):  # type: ignore[override]
        raise AssertionError("mmap.find called")

    def madvise(self, *args, **kwargs):  # type: ignore[override]
        raise AssertionError("mmap.madvise called")


@pytest.fixture
def mapped(tmp_path):
    maps = []

    def make(data: bytes, kind: type = mmap.mmap) -> mmap.mmap:
        path = tmp_path / f"f{len(maps)}"
        path.write_bytes(data)
        with open(path, "rb") as fh:
            maps.append(kind(fh.fileno(), 0, access=mmap.ACCESS_READ))
        return maps[-1]

    yield make
    for m in maps:
        m.close()


@settings(max_examples=200, deadline=None)
@given(data=TEXT, cut=st.tuples(st.integers(0, 300), st.integers(0, 300)), start=st.integers(0, 320),
       sub=st.sampled_from([b"#", b"\t", b"\n", b"\r", b"a", b"\x00", b"ab", b" #", b""]))
def test_find_equals_bytes_find(tmp_path_factory, data, cut, start, sub) -> None:
    path = tmp_path_factory.mktemp("span") / "f"
    path.write_bytes(data)
    lo, hi = sorted(min(c, len(data)) for c in cut)
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        span = MappedSpan(mm, lo, hi)
        assert span.find(sub, start) == data[lo:hi].find(sub, start)
        assert span[1:].find(sub) == data[lo:hi][1:].find(sub)


@pytest.mark.skipif(source._libc() is None, reason="no C library symbols in this process")
def test_one_byte_is_found_and_pages_let_go_of_without_the_mmap_methods(mapped) -> None:
    data = b"q1 Q0 d1 1 2.5 t\n" * 1000 + b"q2\tQ0 d1 1 2 t\n"
    mm = mapped(data, _NoMethods)
    span = MappedSpan(mm, 4096, len(data))
    assert span.find(b"\t") == data.index(b"\t") - 4096
    assert span.find(b"\r") == -1
    span.release()  # (madvise through the C library: the map's own method raises)
    assert bytes(span[:3]) == data[4096:4099]  # (the pages read again from the page cache)
    with pytest.raises(AssertionError, match="mmap.find"):
        span.find(b"Q0")  # (more than one byte: mmap's own find)


def test_without_the_c_library_the_mmap_methods_answer(mapped, monkeypatch) -> None:
    monkeypatch.setattr(source, "_libc", lambda: None)
    data = b"x" * 5000 + b"#\n"
    span = MappedSpan(mapped(data), 10, len(data))
    assert span.find(b"#") == 4990
    span.release()
    assert span.find(b"\n", 4991) == 4991
