"""string_signature against its definition, written plainly: equal to it on every string (short, long, any UTF-8)."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.data.ids import string_signature

M1, M2, M3 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x27D4EB2F165667C5


def reference(text: str) -> int:
    """``head * M1 + tail * M2 + length * M3`` mod 2^64: head = the first 8 bytes, tail = the last 8 (the whole
    string when shorter, zero-padded), read little-endian."""
    b = text.encode()
    head = int.from_bytes(b[:8], "little")
    tail = int.from_bytes(b[max(len(b) - 8, 0):][:8], "little")
    return (head * M1 + tail * M2 + len(b) * M3) % (1 << 64)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=24), max_size=60), st.booleans())
def test_signature_is_its_definition(texts: list[str], short_only: bool) -> None:
    if short_only:  # blocks whose strings all fit in 8 bytes take the one-word way
        texts = [t.encode()[:8].decode(errors="ignore") for t in texts]
    got = string_signature(pa.array(texts, pa.string())).tolist()
    assert got == [reference(t) for t in texts]


def test_a_long_buffer_of_short_ids_and_its_last_strings() -> None:
    # more than one block, and strings in the buffer's last 8 bytes (read from a padded copy)
    texts = [f"D{i}" for i in range(300_000)] + ["", "a", "abcdefghij"]
    got = string_signature(pa.array(texts), block=1 << 16).tolist()
    assert got[-3:] == [reference(t) for t in texts[-3:]]
    assert got[::9973] == [reference(t) for t in texts[::9973]]
