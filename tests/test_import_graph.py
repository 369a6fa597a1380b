"""The layers stay as drawn: no import cycles between packages, no private imports across them.

A *package* here is a top-level part of rankmeter: a sub-package (``data``, ``io``,
``metrics``, ``evaluation``, ``engines``, ...) or a top-level module. The root's
private modules (``_errors``, ``_compute``, ``_params``, ``_lazy``, ``_files``) are the shared foundation and
may be imported anywhere; any other private module (``_name``) or private name
(``_name``) is imported only from inside its own package. Imports under
``if TYPE_CHECKING:`` are for the type checker only and are not counted.

Compatibility modules that only re-export another package's public names
(``rankmeter.evaluate``, ``rankmeter.stream``, ``rankmeter.duckdb``, ``rankmeter.spark``...)
are leaves: they import, nothing imports them from inside the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "rankmeter"
FOUNDATION = {"_errors", "_compute", "_params", "_version", "_lazy", "_files", "_startup"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                for n in ast.walk(sub):
                    if hasattr(n, "lineno"):
                        lines.add(n.lineno)
    return lines


def _imports() -> list[tuple[str, str, list[str], int]]:
    """(importing module, imported module, imported names, line) for every rankmeter import."""
    out = []
    for path in SRC.rglob("*.py"):
        mod = _module_name(path)
        is_pkg = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_lines(tree)
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".")
                    base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.startswith("rankmeter"):
                    names = [a.name for a in node.names]
                    if not node.module:  # from . import x: the names are modules
                        out += [(mod, f"{target}.{n}", [], node.lineno) for n in names]
                    else:
                        out.append((mod, target, names, node.lineno))
            elif isinstance(node, ast.Import):
                out += [(mod, a.name, [], node.lineno) for a in node.names if a.name.startswith("rankmeter")]
    return out


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


SHIMS = {"evaluate", "stream", "duckdb", "spark", "experiment", "sampled", "datasets", "beyond", "recommenders"}


def test_no_private_imports_across_packages() -> None:
    problems = []
    for src, target, names, line in _imports():
        sp, tp = _package(src), _package(target)
        if sp == tp or tp in FOUNDATION:
            continue
        private_module = [p for p in target.split(".")[2:] + ([tp] if tp.startswith("_") else []) if p.startswith("_")
                          and p != "__init__"]
        private_names = [n for n in names if n.startswith("_")]
        if private_module or private_names:
            problems.append(f"{src}:{line} imports {target} {private_names or ''}")
    assert not problems, "private imports across packages:\n" + "\n".join(sorted(problems))


def test_no_import_cycles_between_packages() -> None:
    graph: dict[str, set[str]] = {}
    for src, target, _names, _line in _imports():
        sp, tp = _package(src), _package(target)
        if not sp or not tp or sp == tp or tp in FOUNDATION or sp in SHIMS or sp == "__init__":
            continue
        graph.setdefault(sp, set()).add(tp)
    cycles = []
    for start in graph:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == start:
                    cycles.append(" -> ".join(path + [start]))
                elif nxt not in path and len(path) < 8:
                    stack.append((nxt, path + [nxt]))
    unique = sorted({" -> ".join(sorted(set(c.split(" -> ")))) for c in cycles})
    assert not unique, "import cycles between packages:\n" + "\n".join(cycles[:20])


def test_the_graph_is_read() -> None:
    """The test above reads real imports (a test that cannot fail is a defect)."""
    edges = {(_package(s), _package(t)) for s, t, _n, _l in _imports()}
    assert ("evaluation", "metrics") in edges and ("engines", "evaluation") in edges
