"""Fusion methods and normalisations as data: names, aliases, parameters with declared ranges, references.

A :class:`FusionMethod` says everything rankmeter knows about one method: its name as
ranx's ``fuse(method=...)`` spells it, its aliases (ranx's function names, the
literature's names), whether it reads scores or positions, whether it needs training
on judgments (:func:`rankmeter.fusion.fuse_optimize`), its parameters with their
ranges and search grids, what a document missing from a run contributes, its formula
and its reference. :mod:`rankmeter.fusion.methods` declares them all; the CLI's help,
the docs' table and the tests read that one table.

A method may be written with parameters, as metrics are: ``"mnz(count=nonzero)"``,
``"rrf(k=10)"``, ``"gmnz(gamma=0.5)"``.

>>> parse_spec("mnz(count=nonzero)")
('mnz', {'count': 'nonzero'})
>>> parse_spec("rrf(k=10)")
('rrf', {'k': '10'})
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from .._errors import ParameterError
from .._params import Range, check_choice, check_int, check_number, parse_int, parse_number

__all__ = ["FusionMethod", "Normalization", "Param", "parse_spec"]

ParamKind = Literal["int", "number", "choice", "arrays", "vector"]

_SPEC = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*(?:\((.*)\))?\s*", re.S)


@dataclass(frozen=True)
class Param:
    """A parameter of a fusion method: its kind, allowed range, default (None: required) and search grid.

    Kinds: ``int`` and ``number`` (checked against ``range``), ``choice`` (one of ``choices``),
    ``vector`` (one number per run, as MAPFuse's MAP scores) and ``arrays`` (one array of numbers
    per run, the trained probabilities of ProbFuse, PosFuse...).
    """

    name: str
    kind: ParamKind
    doc: str
    range: Range | None = None
    default: Any = None
    choices: tuple[str, ...] = ()
    grid: tuple[Any, ...] = ()  # fuse_optimize's default grid (empty: trained, not searched)

    def check(self, value: Any, method: str, n_runs: int) -> Any:
        """``value`` validated (text from a method string read as its kind), or a ParameterError."""
        if self.kind == "int":
            if isinstance(value, str):
                return parse_int(self.name, value, func=method, rng=self.range)
            return check_int(self.name, value, func=method, rng=self.range or Range())
        if self.kind == "number":
            if isinstance(value, str):
                return parse_number(self.name, value, func=method, rng=self.range)
            return check_number(self.name, value, func=method, rng=self.range)
        if self.kind == "choice":
            return check_choice(self.name, value, self.choices, func=method)
        return _check_per_run(self.name, value, method, n_runs, arrays=self.kind == "arrays")


def _check_per_run(name: str, value: Any, method: str, n_runs: int, *, arrays: bool) -> Any:
    import numpy as np

    what = "one array of finite numbers per run" if arrays else "one finite number per run"
    try:
        items = list(value)
    except TypeError:
        items = None
    if items is None or isinstance(value, (str, bytes)) or len(items) != n_runs:
        got = f"{len(items)} values" if items is not None and not isinstance(value, (str, bytes)) else repr(value)
        raise ParameterError(f"The {name!r} parameter of {method} must be {what} ({n_runs} runs). Got {got} "
                             "instead.")
    out = []
    for v in items:
        try:
            a = np.asarray(v, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterError(f"The {name!r} parameter of {method} must be {what}. Got {v!r} instead.") from None
        if (a.ndim != (1 if arrays else 0)) or not bool(np.isfinite(a).all()):
            raise ParameterError(f"The {name!r} parameter of {method} must be {what}. Got {v!r} instead.")
        out.append(a if arrays else float(a))
    return out


@dataclass(frozen=True)
class FusionMethod:
    """One fusion method, as data.

    ``reads``: ``"scores"`` (the normalised scores) or ``"positions"`` (each run's ranking);
    ``weighted``: takes one weight per run; ``needs_training``: its parameters come from
    judgments through :func:`rankmeter.fusion.fuse_optimize`; ``missing``: what a document
    that a run did not retrieve contributes (the docs' table); ``kernel(frame, weights, params)``
    returns the fused score of every candidate; ``train(frame, relevant, train_queries, **hyper)``
    (trained methods) returns its ``params``; ``hyper``: the training's own search parameters
    (ProbFuse's number of segments).
    """

    name: str
    aliases: tuple[str, ...]
    title: str
    reads: Literal["scores", "positions"]
    formula: str
    missing: str
    reference: str
    kernel: Callable[..., Any]
    weighted: bool = False
    needs_training: bool = False
    params: tuple[Param, ...] = ()
    hyper: tuple[Param, ...] = ()
    train: Callable[..., dict[str, Any]] | None = None
    notes: tuple[str, ...] = field(default=())

    def param(self, name: str) -> Param | None:
        for p in self.params + self.hyper:
            if p.name == name:
                return p
        return None


@dataclass(frozen=True)
class Normalization:
    """One score normalisation, as data: per run and per query, over the documents the run retrieved."""

    name: str
    aliases: tuple[str, ...]
    formula: str
    missing: str
    reference: str
    fills: bool = False  # gives documents the run did not retrieve a score (Borda)


def parse_spec(text: str) -> tuple[str, dict[str, str]]:
    """``"name(p=v, q=w)"`` as ``(name, {p: v, q: w})`` (values as text; the method checks them)."""
    m = _SPEC.fullmatch(text)
    if not m:
        raise ParameterError(f"A fusion method is written name or name(param=value, ...). Got {text!r} instead.")
    name, inner = m.group(1), m.group(2)
    params: dict[str, str] = {}
    if inner is not None and inner.strip():
        for part in inner.split(","):
            key, eq, value = part.partition("=")
            if not eq or not key.strip() or not value.strip():
                raise ParameterError(f"A fusion method's parameters are written param=value. Got {part.strip()!r} "
                                     f"in {text!r} instead.")
            params[key.strip()] = value.strip()
    return name, params
