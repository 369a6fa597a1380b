"""The experiment's output folder: checked before the work, never overwritten when it holds other files.

A folder rankmeter writes an experiment into (``[output] dir``, ``--out``) may hold only
files rankmeter wrote there itself, listed in its manifest ``.rankmeter-files.json``
(the report, results.json, means.csv; for ``rankmeter demo`` also the generated data and
config). Anything else in it and the run stops before any work, naming a file: a
config cannot make rankmeter overwrite someone's folder.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> record_files(d, ["report.html"]); (d / "report.html").write_text("x")
1
>>> check_output_folder(d, "--out") == d
True
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from .._errors import InputError
from ..split.output import check_writable_folder

__all__ = ["MANIFEST", "check_output_folder", "record_files", "own_files"]

MANIFEST = ".rankmeter-files.json"


def own_files(folder: Path) -> set[str]:
    """The paths (relative, with ``/``) the manifest of ``folder`` lists; empty without one."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    files = data.get("files") if isinstance(data, dict) else None
    return {str(f) for f in files if isinstance(f, str)} if isinstance(files, list) else set()


def record_files(folder: str | Path, names: Iterable[str]) -> None:
    """Add ``names`` (paths relative to ``folder``) to its manifest."""
    folder = Path(folder)
    files = sorted(own_files(folder) | {str(n).replace("\\", "/") for n in names})
    (folder / MANIFEST).write_text(json.dumps({"written_by": "rankmeter", "files": files}, indent=1) + "\n",
                                   encoding="utf-8")


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
        raise InputError(f"{option}: the folder holds {rel!r}, which rankmeter did not write; rankmeter writes only "
                         "into a new or empty folder, or one holding its own earlier output: choose another",
                         source=str(p))
    return p
