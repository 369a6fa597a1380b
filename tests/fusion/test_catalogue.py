"""docs/fusion.md's tables are the registry's (rankmeter.fusion.catalogue.markdown)."""

from __future__ import annotations

from pathlib import Path

from rankmeter.fusion import METHODS
from rankmeter.fusion.catalogue import markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "fusion.md"


def test_the_docs_tables_are_the_registry_s() -> None:
    text = DOC.read_text(encoding="utf-8")
    inside = text.split("<!-- fusion-catalogue: begin -->\n", 1)[1].split("<!-- fusion-catalogue: end -->", 1)[0]
    assert inside == markdown(), "regenerate: python -c 'from rankmeter.fusion.catalogue import markdown; " \
                                 "print(markdown(), end=\"\")'"


def test_every_ranx_method_is_declared() -> None:
    ranx_names = {"rrf", "sum", "mnz", "anz", "max", "min", "med", "gmnz", "isr", "log_isr", "logn_isr", "wsum",
                  "wmnz", "rbc", "bordafuse", "w_bordafuse", "condorcet", "w_condorcet", "mixed", "posfuse",
                  "probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse"}
    assert {m.name for m in METHODS} == ranx_names
    ranx_functions = {"comb_sum", "comb_mnz", "comb_anz", "comb_gmnz", "comb_max", "comb_min", "comb_med",
                      "weighted_bordafuse", "weighted_condorcet"}
    assert ranx_functions <= {a for m in METHODS for a in m.aliases}
