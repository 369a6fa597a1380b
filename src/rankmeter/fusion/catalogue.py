"""The docs' tables of fusion methods and normalisations, written from :data:`METHODS` and :data:`NORMS`.

``docs/fusion.md`` holds :func:`markdown` between two markers; a test keeps them equal.

>>> markdown().splitlines()[0]
'| method | aliases | reads | trained | parameters | a document the run did not retrieve | reference |'
"""

from __future__ import annotations

from .frame import NORMS
from .methods import METHODS
from .spec import FusionMethod

__all__ = ["markdown"]


def _params(m: FusionMethod) -> str:
    out = [p.name + (f"={p.default}" if p.default is not None else "") for p in m.params]
    if m.weighted:
        out.insert(0, "weights")
    return ", ".join(out) or "-"


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{a}`" for a in names) or "-"


def markdown() -> str:
    """The methods' table, then the normalisations' table (Markdown)."""
    lines = ["| method | aliases | reads | trained | parameters | a document the run did not retrieve | reference |",
             "|---|---|---|---|---|---|---|"]
    for m in METHODS:
        lines.append(f"| `{m.name}` | {_names(m.aliases)} | {m.reads} | {'yes' if m.needs_training else 'no'} | "
                     f"{_params(m)} | {m.missing} | {m.reference} |")
    lines += ["", "| norm | aliases | formula (per run and query) | a document the run did not retrieve | reference |",
              "|---|---|---|---|---|"]
    for n in NORMS:
        lines.append(f"| `{n.name}` | {_names(n.aliases)} | {n.formula} | {n.missing} | {n.reference or '-'} |")
    return "\n".join(lines) + "\n"
