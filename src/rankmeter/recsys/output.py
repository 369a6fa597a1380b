"""The experiment's output folder: checked before the work, never overwritten when it holds other files.

A folder rankmeter writes an experiment into (``[output] dir``, ``--out``) may hold only
files rankmeter wrote there itself, listed in its manifest ``.rankmeter-files.json``
(the report, results.json, means.csv; for ``rankmeter demo`` also the generated data and
config; for ``rankmeter split`` the splits and summary.json). Anything else in it and the
run stops before any work, naming a file: a config cannot make rankmeter overwrite
someone's folder.

Every file is written whole or not at all (:mod:`rankmeter._files`: a temporary name in
the folder, renamed when complete), and the manifest, itself written that way, lists
under ``files`` only complete files. A file about to be written is listed under
``pending`` first (:func:`begin_files`) and moves to ``files`` once complete
(:func:`record_files`), so a run interrupted at any moment leaves only complete files, a
manifest that parses, and nothing a later run into the same folder does not recognise
as rankmeter's own (pending names, temporary files) and replace.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> begin_files(d, ["report.html"]); sorted(own_files(d)), complete_files(d)
(['report.html'], set())
>>> (d / "report.html").write_text("x"); record_files(d, ["report.html"]); complete_files(d)
1
{'report.html'}
>>> check_output_folder(d, "--out") == d
True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from .._errors import InputError
from .._files import is_temporary, remove_stale, write_text
from ..split.output import check_writable_folder

__all__ = ["MANIFEST", "check_output_folder", "record_files", "begin_files", "own_files", "complete_files"]

MANIFEST = ".rankmeter-files.json"


def _listed(folder: Path) -> tuple[set[str], set[str]]:
    """(complete files, pending files) of the manifest of ``folder``; empty without one."""
    try:
        data = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set(), set()
    if not isinstance(data, dict):
        return set(), set()

    def names(key: str) -> set[str]:
        v = data.get(key)
        return {str(f) for f in v if isinstance(f, str)} if isinstance(v, list) else set()

    return names("files"), names("pending") - names("files")


def complete_files(folder: Path) -> set[str]:
    """The complete files (paths relative, with ``/``) the manifest of ``folder`` lists."""
    return _listed(folder)[0]


def own_files(folder: Path) -> set[str]:
    """The paths (relative, with ``/``) the manifest of ``folder`` lists: complete, or pending (written by a run
    that may have been interrupted); empty without one."""
    done, pending = _listed(folder)
    return done | pending


def _write_manifest(folder: Path, files: set[str], pending: set[str]) -> None:
    doc = {"written_by": "rankmeter", "files": sorted(files)}
    if pending - files:
        doc["pending"] = sorted(pending - files)
    write_text(folder / MANIFEST, json.dumps(doc, indent=1) + "\n")


def _norm(names: Iterable[str]) -> set[str]:
    return {str(n).replace("\\", "/") for n in names}


def begin_files(folder: str | Path, names: Iterable[str]) -> None:
    """List ``names`` (paths relative to ``folder``) as pending in its manifest, before they are written."""
    folder = Path(folder)
    done, pending = _listed(folder)
    _write_manifest(folder, done, pending | _norm(names))


def record_files(folder: str | Path, names: Iterable[str]) -> None:
    """List ``names`` (paths relative to ``folder``, now complete) as files in its manifest."""
    folder = Path(folder)
    done, pending = _listed(folder)
    new = _norm(names)
    _write_manifest(folder, done | new, pending - new)


def check_output_folder(path: str | Path, option: str) -> Path:
    """``path`` when it can be written and holds nothing but rankmeter's own files; else an :class:`InputError`."""
    p = check_writable_folder(path, option)
    if not p.is_dir():
        return p
    own = own_files(p) | {MANIFEST}
    for f in sorted(p.rglob("*")):
        rel = f.relative_to(p).as_posix()
        if f.is_dir():
            if any(o.startswith(rel + "/") for o in own):
                continue
        elif rel in own:
            continue
        elif is_temporary(f.name):  # left by an interrupted run (removed unless its process still runs)
            remove_stale(f.parent, f.name[1:].split(".rankmeter-tmp")[0].rsplit(".", 1)[0])
            continue
        raise InputError(f"{option}: the folder holds {rel!r}, which rankmeter did not write; rankmeter writes only "
                         "into a new or empty folder, or one holding its own earlier output: choose another",
                         source=str(p))
    return p
