"""Every name a module exports is visible to type checkers (issue 33).

A name loaded on first use (a module ``__getattr__``, :mod:`rankmeter._lazy`) is also
imported under ``if TYPE_CHECKING:``, so that mypy, pyright and IDEs see its real type
rather than the ``Any`` of ``__getattr__``. This finds an exported name that is neither
defined in its module nor declared that way.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "rankmeter"


def _modules_with_lazy_names() -> list[str]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "def __getattr__(" in text.split("\nclass ")[0] or "__getattr__ = " in text:
            rel = path.relative_to(SRC.parent).with_suffix("")
            parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
            out.append(".".join(parts))
    return out


def _visible_names(path: Path) -> set[str]:
    """Names bound at module level, including those imported under ``if TYPE_CHECKING:``."""
    names: set[str] = set()

    def bind(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
            elif isinstance(node, ast.If):
                bind(node.body)
                bind(node.orelse)
            elif isinstance(node, ast.Try):
                bind(node.body)

    bind(ast.parse(path.read_text(encoding="utf-8")).body)
    return names


MODULES = _modules_with_lazy_names()


def test_the_lazy_modules_are_found() -> None:
    assert {"rankmeter", "rankmeter.metrics", "rankmeter.compare", "rankmeter.report"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_every_exported_name_is_visible_to_type_checkers(name: str) -> None:
    module = importlib.import_module(name)
    path = Path(module.__file__ or "")
    missing = sorted(set(getattr(module, "__all__", ())) - _visible_names(path))
    assert not missing, (f"{name} exports {missing} without defining or importing them; import them under "
                         "`if TYPE_CHECKING:` (they are loaded on first use)")
