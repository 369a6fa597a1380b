"""Output folders of the protocols: checked before the work starts, cleared only of rankmeter's own files.

A command that writes a folder of results (``rankmeter split --out``, ``run-experiment``'s
``[output] dir``) calls :func:`check_writable_folder` first, so an uncreatable path
fails at once and not after the whole computation; :func:`own_split_files` lists the
files a previous ``rankmeter split`` wrote there (from its ``summary.json``), which are
the only ones ``--overwrite`` removes.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> check_writable_folder(d / "new" / "out", "--out") == d / "new" / "out"
True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._errors import InputError

__all__ = ["check_writable_folder", "own_split_files", "folder_entries"]


def check_writable_folder(path: str | Path, option: str) -> Path:
    """``path`` as a Path when it is a writable folder or can be created as one; else an :class:`InputError`.

    ``option`` names where the path came from (``--out``, ``[output] dir``), for the message.
    The check is real (a folder is created and a file written, then both removed), so it
    holds for read-only file systems and pseudo-file systems such as ``/proc`` too; nothing
    is left behind.
    """
    import tempfile

    p = Path(path)
    if p.exists() and not p.is_dir():
        raise InputError(f"{option} must be a folder, and this is an existing file", source=str(p))
    created: list[Path] = []
    probe = p.absolute()
    while not probe.exists():
        created.append(probe)
        probe = probe.parent
    try:
        if not probe.is_dir():
            raise InputError(f"{option}: cannot create the folder: {probe} is a file, not a folder", source=str(p))
        for d in reversed(created):
            d.mkdir()
        with tempfile.TemporaryFile(dir=p):
            pass
    except OSError as exc:
        raise InputError(f"{option}: cannot write there ({exc.strerror or exc})", source=str(p)) from None
    finally:
        for d in created:
            try:
                d.rmdir()
            except OSError:
                pass
    return p


def folder_entries(path: Path) -> list[str]:
    """The entries of a folder, sorted (none when it does not exist)."""
    if not path.is_dir():
        return []
    return sorted(e.name for e in path.iterdir())


def own_split_files(folder: Path) -> list[Path]:
    """The files a previous ``rankmeter split`` wrote in ``folder``, read from its ``summary.json``.

    Only the names rankmeter gives (``train``/``test`` with ``.parquet``/``.csv``, inside
    ``fold-N`` folders for k-fold, and ``summary.json``) are returned, whatever the
    summary says, so a tampered summary cannot make ``--overwrite`` delete anything else.
    Empty when there is no readable summary.
    """
    summary = folder / "summary.json"
    try:
        data: Any = json.loads(summary.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    parts = ("train", "test", "validation", "validation_fold_in", "validation_heldout", "test_fold_in", "test_heldout")
    names = {f"{part}.{ext}" for part in parts for ext in ("parquet", "csv")}
    out: list[Path] = []

    def add(files: Any, sub: Path) -> None:
        if isinstance(files, dict):
            for value in files.values():
                name = Path(str(value)).name
                if name in names and (sub / name).is_file():
                    out.append(sub / name)

    add(data.get("files"), folder)
    folds = data.get("folds")
    if isinstance(folds, list):
        for i, fold in enumerate(folds):
            if isinstance(fold, dict):
                add(fold.get("files"), folder / f"fold-{i + 1}")
    out.append(summary)
    return out
