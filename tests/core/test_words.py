"""Short ids as 8-byte words (rankmeter.data.words): exact, invertible, and ordered as the ids' bytes."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.data.words import id_words, short_id_words, short_ids, word_order, words_text

# ids of 1 to 8 bytes without a zero byte (several bytes a character too), and some that are not short
SHORT = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), min_size=1,
                max_size=8).filter(lambda s: len(s.encode()) <= 8)
ANY = st.one_of(SHORT, st.text(max_size=12))


@settings(max_examples=200)
@given(st.lists(SHORT, max_size=40))
def test_words_are_the_ids_exactly(ids: list[str]) -> None:
    arr = pa.array(ids, type=pa.string())
    assert short_ids(arr)
    words = id_words(arr)
    assert words_text(words).to_pylist() == ids  # the inverse
    for i, a in enumerate(ids):  # one id, one word
        for j, b in enumerate(ids):
            assert (words[i] == words[j]) == (a == b)


@settings(max_examples=200)
@given(st.lists(SHORT, min_size=2, max_size=30))
def test_the_swapped_words_order_as_the_ids_bytes(ids: list[str]) -> None:
    key = word_order(id_words(pa.array(ids, type=pa.string())))
    want = sorted(range(len(ids)), key=lambda i: (ids[i].encode(), i))  # C's strcmp order
    assert np.argsort(key, kind="stable").tolist() == want


@settings(max_examples=200)
@given(st.lists(ANY, max_size=30), st.integers(0, 5))
def test_short_id_words_of_any_ids(ids: list[str], offset: int) -> None:
    arr = pa.array(["pad"] * offset + ids, type=pa.string()).slice(offset)  # (a slice: offsets not from 0)
    words, ok = short_id_words(arr)
    for w, is_short, x in zip(words.tolist(), ok.tolist(), ids, strict=True):
        raw = x.encode()
        assert is_short == (1 <= len(raw) <= 8 and b"\x00" not in raw)
        assert w == (int.from_bytes(raw, "little") if is_short else 0)
    assert short_ids(arr) == bool(ok.all())


def test_a_buffer_ending_in_short_ids_is_read_in_bounds() -> None:
    # the last ids' words are read from a padded copy of the buffer's tail (no byte past its end)
    arr = pa.array(["abcdefgh", "x", "yz"])
    assert id_words(arr).tolist() == [int.from_bytes(b"abcdefgh", "little"), ord("x"), ord("y") | ord("z") << 8]
    out = np.zeros(6, dtype=np.uint64)
    id_words(arr, out[::2])  # (into a strided array: the layout of a row's columns side by side)
    assert out[::2].tolist() == id_words(arr).tolist() and not out[1::2].any()


def test_words_read_in_blocks_across_their_edges(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # id_words reads a block of ids at a time: blocks of 3 ids, ids of every length, the last ones in the
    # buffer's final 8 bytes, a sliced array (offsets not from 0), and a strided output
    import rankmeter.data.words as words_module

    monkeypatch.setattr(words_module, "_BLOCK", 3)
    ids = [("x" * (1 + i % 8))[:-1] + str(i % 10) for i in range(23)]
    arr = pa.array(["skipped"] + ids, type=pa.string()).slice(1)
    want = [int.from_bytes(s.encode(), "little") for s in ids]
    assert id_words(arr).tolist() == want
    out = np.zeros(len(ids), dtype=[("key", "<u8"), ("score", "<f8")])
    id_words(arr, out["key"])
    assert out["key"].tolist() == want and not out["score"].any()
