"""Imports every metric family module so that their ``register`` calls run.

Family packages are discovered, not listed: a new file in ``metrics/ranking/`` (or
any family package below ``metrics/``) registers its metrics by being there.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

_HERE = Path(__file__).parent


def _import_all() -> None:
    for pkg in sorted(p for p in _HERE.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        pkg_name = f"{__package__}.{pkg.name}"
        importlib.import_module(pkg_name)
        for mod in pkgutil.iter_modules([str(pkg)]):
            if not mod.name.startswith("_"):
                importlib.import_module(f"{pkg_name}.{mod.name}")


_import_all()
