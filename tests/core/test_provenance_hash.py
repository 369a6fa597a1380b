"""The inputs' SHA-256, computed in the background while a command evaluates (provenance.hash_ahead)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from rankmeter import provenance as P


def test_a_digest_computed_ahead_is_the_file_s_sha256(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"
    data = b"q1 Q0 a 1 2 t\n" * 300_000  # several of the hasher's blocks
    path.write_bytes(data)
    P.hash_ahead(str(path), "-", tmp_path / "missing.txt", {"not": "a path"})  # streams and objects left alone
    got = P.describe_input("run", str(path)).hashed()
    assert got.sha256 == hashlib.sha256(data).hexdigest() and got.size == len(data) and not got.changed
    # a second record of the same file takes the digest already known
    assert P.describe_input("run", path).hashed().sha256 == got.sha256


def test_a_file_changed_after_it_was_read_says_so_and_has_no_hash(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"q1 0 a 1\n" * 1000)
    record = P.describe_input("qrels", str(path))
    P.hash_ahead(path)
    path.write_bytes(b"q1 0 a 1\n" * 1001)  # another size: not what was read
    got = record.hashed()
    assert got.changed and got.sha256 is None


def test_the_recorded_version_is_the_package_s() -> None:
    import rankmeter

    assert P.Provenance.create().to_dict()["implementation"]["version"] == rankmeter.__version__
