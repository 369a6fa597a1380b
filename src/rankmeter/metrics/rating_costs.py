"""Asymmetric error costs d(predicted, true) on a discrete rating scale.

Gunawardana & Shani (2009), as quoted in notes on evaluating recommender systems:
on a like (3) / neutral (2) / dislike (1) scale, recommending a disliked item is
worse than missing a liked one, so a rule such as d(3,1) = 5, d(2,1) = 3,
d(3,2) = 3, d(1,2) = 1, d(2,3) = 1, d(1,3) = 2 fits better than |p - r| or
(p - r)^2 (:data:`ASYMMETRIC_LIKE_COSTS`). **The first argument is the
prediction, the second the true rating**: d(3, 1) = 5 is "predicted like, truly
disliked" (a bad recommendation), d(1, 3) = 2 is "predicted dislike, truly liked"
(a missed item).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence, cast

import numpy as np

from .._errors import InputError, ParameterError

__all__ = ["ASYMMETRIC_LIKE_COSTS", "CostMatrix", "SEED_004_COSTS"]


@dataclass(frozen=True, eq=False)
class CostMatrix:
    """Costs d(predicted, true) over a finite set of rating levels.

    ``matrix[i, j]`` is the cost of predicting ``levels[i]`` when the true rating
    is ``levels[j]`` (rows: predicted, columns: true). NaN marks a pair without a
    cost: meeting it in the data is an error. Build one with :meth:`from_any`.

    >>> cm = CostMatrix.from_any({(3, 1): 5, (2, 1): 3, (3, 2): 3, (1, 2): 1, (2, 3): 1, (1, 3): 2})
    >>> cm.levels
    (1.0, 2.0, 3.0)
    >>> cm.cost(3, 1), cm.cost(1, 3), cm.cost(2, 2)
    (5.0, 2.0, 0.0)
    """

    levels: tuple[float, ...]
    matrix: np.ndarray

    def __post_init__(self) -> None:
        m = np.asarray(self.matrix, dtype=np.float64)
        k = len(self.levels)
        if m.shape != (k, k):
            raise ParameterError(
                f"a cost matrix over {k} levels must be {k}x{k}. Got shape {m.shape} instead.")
        if len(set(self.levels)) != k or list(self.levels) != sorted(self.levels):
            raise ParameterError(f"cost levels must be distinct and increasing. Got {list(self.levels)} instead.")
        if np.any(np.isinf(m)) or np.any(m[~np.isnan(m)] < 0):
            raise ParameterError("costs must be finite numbers >= 0")
        object.__setattr__(self, "matrix", m)

    # ------------------------------------------------------------------ building

    @classmethod
    def from_any(cls, obj: Any) -> "CostMatrix":
        """A cost matrix from any of the accepted forms.

        - a :class:`CostMatrix`;
        - a mapping ``{(predicted, true): cost}`` (the diagonal defaults to 0;
          other pairs left out have no cost);
        - a pair ``(levels, matrix)`` or a mapping ``{"levels": [...], "matrix": [[...]]}``
          with rows = predicted, columns = true;
        - a string ``"3,1=5; 2,1=3; ..."`` (``PREDICTED,TRUE=COST`` separated by ``;``,
          ``d(3,1)=5`` also accepted), or the path of a JSON file (either mapping form,
          keys ``"3,1"``) or of a CSV file with columns ``predicted,true,cost``.
        """
        if isinstance(obj, CostMatrix):
            return obj
        if isinstance(obj, (str, Path)):
            text = str(obj)
            if isinstance(obj, Path) or (("=" not in text) and Path(text).exists()):
                return cls._from_file(Path(text))
            return cls._from_pairs(_parse_inline(text), source="cost")
        if isinstance(obj, Mapping):
            if "levels" in obj and "matrix" in obj:
                return cls._from_levels(obj["levels"], obj["matrix"])
            pairs: dict[tuple[float, float], float] = {}
            for key, value in obj.items():
                pair = _key(key)
                if pair in pairs:
                    raise ParameterError(f"{_twice(pair, pairs[pair], value)} (keys of the cost mapping; the "
                                         f"second is {key!r})")
                pairs[pair] = _num(value, f"cost of {key!r}")
            return cls._from_pairs(pairs, source="cost")
        if isinstance(obj, (tuple, list)) and len(obj) == 2:
            return cls._from_levels(obj[0], obj[1])
        raise ParameterError(
            "The 'cost' parameter must be a mapping {(predicted, true): cost}, a pair (levels, matrix), "
            f"an inline 'P,T=C;...' string or a JSON/CSV file. Got {type(obj).__name__} instead.")

    @classmethod
    def _from_levels(cls, levels: Sequence[Any], matrix: Any) -> "CostMatrix":
        lv = [_num(v, "cost level") for v in levels]
        m = np.array(matrix, dtype=np.float64)
        order = np.argsort(lv)
        lv_sorted = tuple(float(lv[i]) for i in order)
        if m.ndim == 2 and m.shape == (len(lv), len(lv)):
            m = m[np.ix_(order, order)]
        return cls(lv_sorted, m)

    @classmethod
    def _from_pairs(cls, pairs: Mapping[tuple[float, float], float], source: str) -> "CostMatrix":
        if not pairs:
            raise ParameterError(f"the {source} mapping is empty: give d(predicted, true) for some pairs")
        levels = tuple(sorted({v for k in pairs for v in k}))
        index = {v: i for i, v in enumerate(levels)}
        m = np.full((len(levels), len(levels)), np.nan)
        np.fill_diagonal(m, 0.0)
        for (p, t), c in pairs.items():
            m[index[p], index[t]] = c
        return cls(levels, m)

    @classmethod
    def _from_file(cls, path: Path) -> "CostMatrix":
        from ..io.source import read_text_file

        text = read_text_file(path)  # compressed copies read; UTF-16, binary data and /dev/zero refused by name
        if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
            try:
                data = json.loads(text, object_pairs_hook=_no_repeated_key)
            except _RepeatedKey as exc:
                raise InputError(f"the key {exc.key!r} is given twice (the cost of one pair must be given "
                                 "once)", source=str(path)) from None
            except json.JSONDecodeError as exc:
                raise InputError(f"not valid JSON: {exc.msg}", source=str(path), line=exc.lineno) from None
            except RecursionError:
                raise InputError("not a cost matrix: arrays or objects nested too deeply", source=str(path)) \
                    from None
            try:
                return cls.from_any(data)
            except ParameterError as exc:
                raise InputError(str(exc), source=str(path)) from None
        pairs: dict[tuple[float, float], float] = {}
        seen_at: dict[tuple[float, float], int] = {}
        for lineno, line in enumerate(text.splitlines(), start=1):
            fields = [f.strip() for f in re.split(r"[,\t;]", line) if f.strip()]
            if not fields or line.lstrip().startswith("#"):
                continue
            if lineno == 1 and not _is_number(fields[0]):
                continue  # header
            if len(fields) != 3:
                raise InputError("expected three fields: predicted, true, cost", source=str(path), line=lineno,
                                 text=line)
            try:
                pair, value = (float(fields[0]), float(fields[1])), float(fields[2])
            except ValueError:
                raise InputError("expected numbers: predicted, true, cost", source=str(path), line=lineno,
                                 text=line) from None
            if pair in pairs:
                raise InputError(f"{_twice(pair, pairs[pair], value)} (line {seen_at[pair]} gave it first)",
                                 source=str(path), line=lineno, text=line)
            pairs[pair] = value
            seen_at[pair] = lineno
        return cls._from_pairs(pairs, source=str(path))

    # ------------------------------------------------------------------ use

    def cost(self, predicted: float, true: float) -> float:
        """d(predicted, true) for one pair (NaN when no cost was given)."""
        return float(self.costs(np.array([predicted], dtype=float), np.array([true], dtype=float))[0])

    def level_index(self, values: np.ndarray, what: str, snap: str = "exact") -> np.ndarray:
        """Index of each value among the levels; ``snap="nearest"`` rounds to the nearest level
        (halfway: the lower one), ``"exact"`` makes any other value an error."""
        lv = np.asarray(self.levels, dtype=np.float64)
        values = np.asarray(values, dtype=np.float64)
        if snap == "nearest":
            pos = np.clip(np.searchsorted(lv, values), 1, len(lv) - 1) if len(lv) > 1 else np.zeros(len(values), int)
            if len(lv) == 1:
                return np.zeros(len(values), dtype=np.int64)
            lower = lv[pos - 1]
            upper = lv[pos]
            return np.where(values - lower <= upper - values, pos - 1, pos).astype(np.int64)
        pos = np.minimum(np.searchsorted(lv, values), len(lv) - 1)
        bad = lv[pos] != values
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            hint = " (cost(snap=nearest) rounds predictions to the nearest level)" if what == "predicted" else ""
            raise InputError(
                f"{int(bad.sum())} {what} ratings are not levels of the cost matrix "
                f"{[_fmt(v) for v in self.levels]}, e.g. {_fmt(values[first])}{hint}")
        return pos.astype(np.int64)

    def costs(self, predicted: np.ndarray, true: np.ndarray, snap: str = "exact") -> np.ndarray:
        """d(predicted_i, true_i) for every pair; an error when a pair has no cost."""
        pi = self.level_index(predicted, "predicted", snap)
        ti = self.level_index(true, "true")
        out = self.matrix[pi, ti]
        missing = np.isnan(out)
        if missing.any():
            shown_p, shown_t = pi[missing][:1000], ti[missing][:1000]
            pairs = sorted({(self.levels[a], self.levels[b]) for a, b in zip(shown_p, shown_t, strict=True)})
            shown = ", ".join(f"d({_fmt(p)},{_fmt(t)})" for p, t in pairs[:4])
            raise InputError(f"{int(missing.sum())} pairs have no cost in the cost matrix: {shown} "
                             "(d(predicted, true) must be given for every pair met)")
        return cast(np.ndarray, out)

    def to_dict(self) -> dict[str, Any]:
        return {"levels": list(self.levels), "matrix": [[None if math.isnan(c) else c for c in row]
                                                         for row in self.matrix.tolist()]}

    def __repr__(self) -> str:
        return f"CostMatrix(levels={list(self.levels)}, matrix={self.matrix.tolist()})"


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _num(value: Any, what: str) -> float:
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"The {what} must be a number. Got {value!r} instead.") from None
    if not math.isfinite(f):
        raise ParameterError(f"The {what} must be finite. Got {value!r} instead.")
    return f


def _key(key: Any) -> tuple[float, float]:
    if isinstance(key, str):
        parts = [p for p in re.split(r"[,\s:]+", key.strip().strip("()")) if p]
    else:
        try:
            parts = list(key)
        except TypeError:
            parts = [key]
    if len(parts) != 2:
        raise ParameterError(f"A cost key must be a pair (predicted, true). Got {key!r} instead.")
    return _num(parts[0], "predicted level"), _num(parts[1], "true level")


_INLINE = re.compile(r"^\s*(?:d\s*)?\(?\s*([^,()=\s]+)\s*,\s*([^,()=\s]+)\s*\)?\s*=\s*(\S+)\s*$")


def _parse_inline(text: str) -> dict[tuple[float, float], float]:
    out: dict[tuple[float, float], float] = {}
    for part in re.split(r"[;\n]", text):
        if not part.strip():
            continue
        m = _INLINE.match(part)
        if not m:
            raise ParameterError(
                f"cannot read the cost {part.strip()!r}: expected PREDICTED,TRUE=COST, e.g. '3,1=5; 1,3=2'")
        pair = (_num(m.group(1), "predicted level"), _num(m.group(2), "true level"))
        value = _num(m.group(3), "cost")
        if pair in out:
            raise ParameterError(f"{_twice(pair, out[pair], value)} (in the cost {text.strip()!r})")
        out[pair] = value
    return out


def _twice(pair: tuple[float, float], first: Any, second: Any) -> str:
    """The message for a cost given twice: the pair and both values.

    >>> _twice((4.5, 5.0), 1.0, 2.0)
    'the cost d(4.5,5) is given twice, 1 then 2: give each pair once'
    """
    return (f"the cost d({_fmt(pair[0])},{_fmt(pair[1])}) is given twice, {_fmt(_as_float(first))} then "
            f"{_fmt(_as_float(second))}: give each pair once")


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


class _RepeatedKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_repeated_key(items: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' object hook: a key given twice in one object is an error (json keeps the last)."""
    out: dict[str, Any] = {}
    for key, value in items:
        if key in out:
            raise _RepeatedKey(key)
        out[key] = value
    return out


def _fmt(v: float) -> str:
    return format(float(v), "g")


#: The example cost matrix of the recommender-evaluation notes (after Gunawardana & Shani
#: 2009), ``{(predicted, true): cost}`` on like = 3, neutral = 2, dislike = 1: recommending
#: a disliked item costs d(3,1) = 5, missing a liked one d(1,3) = 2.
ASYMMETRIC_LIKE_COSTS: dict[tuple[int, int], float] = {
    (3, 1): 5, (2, 1): 3, (3, 2): 3, (1, 2): 1, (2, 3): 1, (1, 3): 2}

#: Deprecated: the former name of :data:`ASYMMETRIC_LIKE_COSTS` (the same object).
SEED_004_COSTS = ASYMMETRIC_LIKE_COSTS
