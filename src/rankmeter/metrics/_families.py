"""Imports every metric family module so that their ``register`` calls run.

Family packages are discovered, not listed: a new file in ``metrics/ranking/`` (or
any family package below ``metrics/``) registers its metrics by being there.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

_HERE = Path(__file__).parent


def import_family(name: str) -> None:
    """Import one family package and all its public modules."""
    pkg = _HERE / name
    pkg_name = f"{__package__}.{name}"
    importlib.import_module(pkg_name)
    for mod in pkgutil.iter_modules([str(pkg)]):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{pkg_name}.{mod.name}")


def family_names() -> list[str]:
    return sorted(p.name for p in _HERE.iterdir() if p.is_dir() and (p / "__init__.py").exists())


def import_all() -> None:
    for name in family_names():
        import_family(name)
