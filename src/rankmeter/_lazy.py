"""Names of a module loaded on first use (PEP 562), so that ``import rankmeter`` stays light.

>>> import types
>>> mod = types.ModuleType("m")
>>> mod.__getattr__ = lazy_names("os.path", {"join": "os.path"})
>>> mod.__getattr__("join")("a", "b")
'a/b'
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping

__all__ = ["lazy_names"]


def lazy_names(module: str, homes: Mapping[str, str], anchor: str | None = None) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``module``, giving each name of ``homes`` (name -> module, relative to the
    package ``anchor``, by default ``module`` itself, when it starts with a dot) from its module, imported
    on the name's first use; other names raise AttributeError."""

    def __getattr__(name: str) -> Any:
        if name in homes:
            return getattr(importlib.import_module(homes[name], anchor or module), name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
