"""The saved form of an experiment's result: what ``ExperimentResult.load`` reads back from ``results.json``.

:meth:`ExperimentResult.to_dict` (and so ``to_json``, ``save``'s ``results.json`` and ``run-experiment``'s)
carries, beside its public summary, a ``"rankmeter"`` section with everything needed to rebuild the result:
each recommender's per-user values (:func:`rankmeter.result.result_to_saved`), each comparison's saved form
(:func:`rankmeter.compare.comparison.saved_section`), the validation counts, the exact timings, the settings
and the notes; and the ``"provenance"`` record (:mod:`rankmeter.provenance`).

What cannot come back is said: the rankings themselves (``runs``), the judgments (``qrels``) and the
per-group views (``groups``, kept as the JSON they were written as in ``group_info["saved"]``) are not
in the file; metric@k curves of a loaded comparison are therefore not available.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, cast

from .._errors import InputError
from ..compare.comparison import comparison_from_saved, comparisons_equal, saved_section
from ..result import result_from_saved, result_to_saved, results_equal
from .validation import Validation

if TYPE_CHECKING:
    from .result import ExperimentResult

__all__ = ["EXPERIMENT_FORMAT", "saved_sections", "experiment_from_saved", "experiments_equal"]

EXPERIMENT_FORMAT = "rankmeter-experiment/1"


def _comparison_saved(cmp: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"rankmeter": saved_section(cmp), "intervals": {
        r: {m: list(cmp.intervals[r][m]) for m in cmp.metrics} for r in cmp.runs}}
    from .result import jsonable

    out["intervals"] = jsonable(out["intervals"])
    if cmp.provenance is not None:
        out["provenance"] = cmp.provenance.to_dict()
    return out


def saved_sections(x: "ExperimentResult") -> dict[str, Any]:
    """``{"rankmeter": ..., "provenance": ...}`` for :meth:`ExperimentResult.to_dict`."""
    from .result import jsonable

    comparisons = dict(getattr(x, "comparisons", {}) or {})
    if x.comparison is not None and not comparisons:
        comparisons = {str(x.baseline): x.comparison}
    section: dict[str, Any] = {
        "format": EXPERIMENT_FORMAT,
        "results": {n: result_to_saved(r) for n, r in x.results.items()},
        "comparisons": {b: _comparison_saved(c) for b, c in comparisons.items()},
        "first_comparison": next((b for b, c in comparisons.items() if c is x.comparison), None),
        "validation": {n: {**v.to_dict(), "examples": {k: list(e) for k, e in v.examples.items()}}
                       for n, v in x.validation.items()},
        "timings": dict(x.timings), "metrics": list(x.metrics), "k": x.k,
        "baseline": list(x.baseline) if isinstance(x.baseline, tuple) else x.baseline, "mode": x.mode,
        "data": jsonable(x.data), "split": jsonable(x.split), "notes": list(x.notes),
        "reference": list(x.reference), "settings": jsonable(x.settings), "flip_risk": jsonable(x.flip_risk),
    }
    out: dict[str, Any] = {"rankmeter": section}
    if getattr(x, "provenance", None) is not None:
        out["provenance"] = x.provenance.to_dict()
    return out


def experiment_from_saved(d: Mapping[str, Any], source: str = "") -> "ExperimentResult":
    """The :class:`ExperimentResult` that :meth:`ExperimentResult.to_dict` wrote (see the module)."""
    from ..provenance import Provenance
    from .result import ExperimentResult

    info = d.get("rankmeter")
    if not isinstance(info, Mapping) or info.get("format") != EXPERIMENT_FORMAT:
        found = (f"format {info.get('format')!r}" if isinstance(info, Mapping)
                 else "JSON without rankmeter's 'rankmeter' section")
        raise InputError(f"ExperimentResult.load: expected an experiment's results.json written by rankmeter (format "
                         f"{EXPERIMENT_FORMAT!r}); found {found}", source=source)
    results = {n: result_from_saved(r, source=source) for n, r in info["results"].items()}
    comparisons = {b: comparison_from_saved(dict(c), source=source) for b, c in info["comparisons"].items()}
    first = info.get("first_comparison")
    validation: dict[str, Validation] = {}
    for n, vd in info["validation"].items():
        fields: dict[str, Any] = dict(vd)
        fields["examples"] = {e: tuple(v) for e, v in fields.get("examples", {}).items()}
        validation[n] = Validation(**fields)
    baseline: Any = info["baseline"]
    extra: dict[str, Any] = {}
    if "comparisons" in ExperimentResult.__dataclass_fields__:
        extra["comparisons"] = comparisons
    group_info = {"saved": d["groups"]} if "groups" in d else {}
    return ExperimentResult(
        results=results, comparison=comparisons.get(first) if first is not None else None, validation=validation,
        timings={k: float(v) for k, v in info["timings"].items()}, metrics=tuple(info["metrics"]), k=int(info["k"]),
        baseline=cast(Any, tuple(baseline) if isinstance(baseline, list) else baseline), mode=info["mode"],
        data=dict(info["data"]), split=dict(info["split"]), notes=tuple(info["notes"]),
        reference=tuple(info["reference"]), settings=dict(info["settings"]), flip_risk=dict(info["flip_risk"]),
        group_info=group_info,
        provenance=Provenance.from_dict(d["provenance"]) if isinstance(d.get("provenance"), Mapping) else None,
        **extra)


def experiments_equal(a: "ExperimentResult", b: "ExperimentResult") -> bool:
    """Same results, comparisons, validation, timings, settings, counts, notes and provenance (what the file
    holds; the rankings, judgments and per-group views are not compared)."""
    if list(a.results) != list(b.results) or not all(results_equal(a.results[n], b.results[n]) for n in a.results):
        return False
    if (a.comparison is None) != (b.comparison is None):
        return False
    if a.comparison is not None and b.comparison is not None and not comparisons_equal(a.comparison, b.comparison):
        return False
    sa, sb = saved_sections(a)["rankmeter"], saved_sections(b)["rankmeter"]
    keys = ("validation", "timings", "metrics", "k", "baseline", "mode", "data", "split", "notes", "reference",
            "settings", "flip_risk")
    return (all(sa[k] == sb[k] for k in keys)
            and getattr(a, "provenance", None) == getattr(b, "provenance", None))
