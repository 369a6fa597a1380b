"""How far two (or more) sets of judgments agree: Cohen's kappa, Krippendorff's alpha, confusion.

A *unit* is a (query, item) pair; a judge's *value* for it is its grade. Kappa is computed on the
pairs both judges graded; alpha on every unit that at least two judges graded (missing judgments
allowed). The pairs only one side judged are counted, never silently dropped
(:attr:`Agreement.pairs`).

Cohen's kappa (Cohen 1960; weighted: Cohen 1968, doi:10.1037/h0026256) with weights ``w``::

    kappa = 1 - sum(w * O) / sum(w * E),   E = outer(row sums of O, column sums of O) / N

over the confusion matrix ``O`` of the grades. As scikit-learn's ``cohen_kappa_score``, the
categories are the sorted union of both judges' grades and the weights use the grade's *index* in
it: ``w_ij = [i != j]`` (unweighted), ``|i - j|`` (linear), ``(i - j)^2`` (quadratic);
``distance="value"`` uses the grade values themselves instead of their indices.

Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's alpha-reliability") from the
coincidence matrix ``o_ck = sum_u (number of ordered pairs of values (c, k) from different judges in
unit u) / (m_u - 1)``, ``n_c = sum_k o_ck``, ``n = sum_c n_c``::

    alpha = 1 - (n - 1) * sum_ck o_ck d2(c, k) / sum_ck n_c n_k d2(c, k)

with ``d2`` nominal ``[c != k]``, interval ``(c - k)^2``, ordinal
``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2`` (values in their order).

>>> a = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 1}}
>>> b = {"q1": {"d1": 2, "d2": 1, "d3": 1}, "q2": {"d1": 1, "d9": 0}}
>>> ag = agreement(a, b)
>>> ag.pairs
{'both': 4, 'only_a': 0, 'only_b': 1}
>>> round(ag.kappa(), 4), round(ag.kappa(weights="quadratic"), 4)
(0.5556, 0.6667)
>>> round(ag.alpha("nominal"), 4), round(ag.alpha("interval"), 4)
(0.5882, 0.6957)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Sequence

import numpy as np

from .._errors import InputError, ParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Agreement", "agreement", "cohen_kappa", "krippendorff_alpha"]

Weights = Literal["linear", "quadratic"] | None
Level = Literal["nominal", "ordinal", "interval"]

_WEIGHTS = (None, "linear", "quadratic")
_LEVELS = ("nominal", "ordinal", "interval")


def _load(judgments: Any, name: str) -> dict[tuple[str, str], float]:
    """``{(query, item): grade}`` from anything :func:`rankmeter.read_qrels` accepts."""
    from ..io import as_qrels

    return {(q, d): g for q, items in as_qrels(judgments, source=name).to_dict().items() for d, g in items.items()}


def cohen_kappa(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, *, weights: Weights = None,
                distance: Literal["index", "value"] = "index") -> float:
    """Cohen's kappa of two aligned sequences of grades (see the module's formula).

    >>> round(cohen_kappa([0, 1, 2, 2], [0, 1, 1, 2]), 4)
    0.6364
    >>> round(cohen_kappa([0, 1, 2, 2], [0, 1, 1, 2], weights="linear"), 4)
    0.7143
    """
    if weights not in _WEIGHTS:
        raise ParameterError(f"The 'weights' parameter of kappa must be one of None, 'linear', 'quadratic'. "
                             f"Got {weights!r} instead.")
    if distance not in ("index", "value"):
        raise ParameterError(f"The 'distance' parameter of kappa must be 'index' or 'value'. Got {distance!r} instead.")
    xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if xa.shape != ya.shape:
        raise InputError(f"kappa: the two judges' grade sequences differ in length ({len(xa)} and {len(ya)})")
    if len(xa) == 0:
        return float("nan")
    labels = np.unique(np.concatenate([xa, ya]))
    n = len(labels)
    obs = np.zeros((n, n))
    np.add.at(obs, (np.searchsorted(labels, xa), np.searchsorted(labels, ya)), 1.0)
    expected = np.outer(obs.sum(axis=1), obs.sum(axis=0)) / obs.sum()
    pos = labels if distance == "value" else np.arange(n, dtype=np.float64)
    diff = np.abs(pos[:, None] - pos[None, :])
    if weights is None:
        w = (diff > 0).astype(np.float64)
    elif weights == "linear":
        w = diff
    else:
        w = diff**2
    denom = float((w * expected).sum())
    if denom == 0.0:
        return float("nan")  # one category only: kappa is undefined (scikit-learn gives nan too)
    return 1.0 - float((w * obs).sum()) / denom


def krippendorff_alpha(units: Sequence[Sequence[float]], level: Level = "ordinal") -> float:
    """Krippendorff's alpha over units, each the list of values its judges gave (missing left out).

    Units with fewer than two values cannot be paired and are not counted.

    >>> round(krippendorff_alpha([[1, 1], [2, 2], [1, 2], [3, 3, 3]], "nominal"), 4)
    0.7037
    """
    if level not in _LEVELS:
        raise ParameterError(f"The 'level' parameter of alpha must be one of {', '.join(_LEVELS)}. "
                             f"Got {level!r} instead.")
    pairable = [np.asarray(u, dtype=np.float64) for u in units if len(u) >= 2]
    if not pairable:
        return float("nan")
    values = np.unique(np.concatenate(pairable))
    v = len(values)
    o = np.zeros((v, v))
    for u in pairable:
        idx = np.searchsorted(values, u)
        counts = np.bincount(idx, minlength=v).astype(np.float64)
        # ordered pairs from different judges: counts_c * counts_k, minus the pairs of a value with itself
        o += (np.outer(counts, counts) - np.diag(counts)) / (len(u) - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if level == "nominal":
        d2 = 1.0 - np.eye(v)
    elif level == "interval":
        d2 = (values[:, None] - values[None, :]) ** 2
    else:
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        lo = np.minimum.outer(np.arange(v), np.arange(v))
        hi = np.maximum.outer(np.arange(v), np.arange(v))
        d2 = (cum[hi + 1] - cum[lo] - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2
    expected = float((np.outer(n_c, n_c) * d2).sum())
    if expected == 0.0:
        return float("nan")  # a single value throughout: no variation to agree on
    return 1.0 - float(n - 1.0) * float((o * d2).sum()) / expected


@dataclass(frozen=True)
class Agreement:
    """Agreement of judges over the (query, item) pairs they graded: :func:`agreement` builds it.

    ``judges`` the judges' names; ``units`` every (query, item) pair any judge graded, with one
    grade (or nan) per judge in ``grades`` (a units x judges array). ``pairs`` counts, for two
    judges, the pairs judged by both, by ``a`` only and by ``b`` only (for more judges: units judged
    by at least two, and per judge how many it judged).
    """

    judges: tuple[str, ...]
    units: tuple[tuple[str, str], ...]
    grades: np.ndarray
    pairs: dict[str, int] = field(default_factory=dict)

    # ------------------------------------------------------------------ two judges

    def _both(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if len(self.judges) != 2:
            raise ParameterError(f"kappa, the confusion matrix and per-query agreement need exactly two judges; "
                                 f"this agreement has {len(self.judges)} ({', '.join(self.judges)}): use alpha()")
        both = ~np.isnan(self.grades).any(axis=1)
        return both, self.grades[both, 0], self.grades[both, 1]

    def kappa(self, weights: Weights = None, *, distance: Literal["index", "value"] = "index") -> float:
        """Cohen's kappa on the pairs both judges graded (weights None, "linear" or "quadratic")."""
        _, x, y = self._both()
        return cohen_kappa(x, y, weights=weights, distance=distance)

    @property
    def confusion(self) -> "pd.DataFrame":
        """Counts of (grade by the first judge, grade by the second) on the pairs both graded."""
        import pandas as pd

        _, x, y = self._both()
        labels = np.unique(np.concatenate([x, y]))
        m = np.zeros((len(labels), len(labels)), dtype=np.int64)
        np.add.at(m, (np.searchsorted(labels, x), np.searchsorted(labels, y)), 1)
        names = [_grade_text(g) for g in labels]
        return pd.DataFrame(m, index=pd.Index(names, name=self.judges[0]),
                            columns=pd.Index(names, name=self.judges[1]))

    def binary(self) -> "pd.DataFrame":
        """Agreement on binary relevance at each threshold ``t`` (relevant: grade >= t).

        One row per threshold (each grade above the lowest): the share of pairs where both judges
        agree, the pairs relevant to both / to the first only / to the second only / to neither, and
        Cohen's kappa of the binary labels.
        """
        import pandas as pd

        _, x, y = self._both()
        rows = []
        for t in np.unique(np.concatenate([x, y]))[1:]:
            rx, ry = x >= t, y >= t
            rows.append({"threshold": _grade_text(t), "agreement": float(np.mean(rx == ry)),
                         "both": int(np.sum(rx & ry)), "only_a": int(np.sum(rx & ~ry)),
                         "only_b": int(np.sum(~rx & ry)), "neither": int(np.sum(~rx & ~ry)),
                         "kappa": cohen_kappa(rx.astype(float).tolist(), ry.astype(float).tolist())})
        cols = ["threshold", "agreement", "both", "only_a", "only_b", "neither", "kappa"]
        return pd.DataFrame(rows, columns=cols).set_index("threshold")

    def per_query(self) -> "pd.DataFrame":
        """One row per query with pairs both graded: their number, the share graded the same, the mean
        absolute grade difference; the queries that disagree most first (ties: query id)."""
        import pandas as pd

        both, x, y = self._both()
        queries = np.array([u[0] for u, b in zip(self.units, both.tolist(), strict=True) if b], dtype=object)
        rows = []
        for q in sorted(set(queries.tolist())):
            sel = queries == q
            rows.append({"query": q, "pairs": int(sel.sum()), "agreement": float(np.mean(x[sel] == y[sel])),
                         "mean_abs_diff": float(np.mean(np.abs(x[sel] - y[sel])))})
        df = pd.DataFrame(rows, columns=["query", "pairs", "agreement", "mean_abs_diff"])
        return df.sort_values(["agreement", "mean_abs_diff", "query"], ascending=[True, False, True],
                              kind="stable").set_index("query")

    # ------------------------------------------------------------------ any number of judges

    def alpha(self, level: Level = "ordinal") -> float:
        """Krippendorff's alpha over every unit graded by at least two judges."""
        units = [row[~np.isnan(row)] for row in self.grades]
        return krippendorff_alpha(units, level)

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON-ready values."""
        out: dict[str, Any] = {"judges": list(self.judges), "pairs": dict(self.pairs),
                               # _LEVELS holds the Literal values (the ignore below)
                               "alpha": {lv: _num(self.alpha(lv)) for lv in _LEVELS}}  # type: ignore[arg-type]
        if len(self.judges) == 2:
            # _WEIGHTS holds the Literal values (the ignore below)
            out["kappa"] = {str(w): _num(self.kappa(w)) for w in _WEIGHTS}  # type: ignore[arg-type]
            conf = self.confusion
            out["confusion"] = {"labels": [str(c) for c in conf.columns], "counts": conf.to_numpy().tolist()}
            out["binary"] = [{"threshold": t, **{k: _num(v) for k, v in row.items()}}
                             for t, row in self.binary().to_dict(orient="index").items()]
        return out

    def summary_rows(self) -> list[tuple[str, float]]:
        """(statistic, value) rows for tables: the kappas (two judges) and the alphas."""
        rows: list[tuple[str, float]] = []
        if len(self.judges) == 2:
            rows += [("kappa", self.kappa()), ("kappa (linear)", self.kappa("linear")),
                     ("kappa (quadratic)", self.kappa("quadratic"))]
        # _LEVELS holds the Literal values (the ignore below)
        rows += [(f"alpha ({lv})", self.alpha(lv)) for lv in _LEVELS]  # type: ignore[arg-type]
        return rows

    def __repr__(self) -> str:
        both = self.pairs.get("both", self.pairs.get("units_2plus", 0))
        return f"Agreement({', '.join(self.judges)}: {both} units judged by more than one)"


def _grade_text(g: float) -> str:
    return str(int(g)) if float(g).is_integer() else repr(float(g))


def _num(x: float) -> float | None:
    return None if isinstance(x, float) and np.isnan(x) else float(x)


def agreement(a: Any, b: Any, *more: Any, names: Sequence[str] | None = None) -> Agreement:
    """The agreement of two or more judges: anything :func:`rankmeter.read_qrels` accepts each.

    ``names`` names the judges (default ``a``, ``b``, ``c``...; file stems for paths). Kappa and the
    confusion matrix need exactly two judges; alpha takes any number, with missing judgments.
    """
    judges_in = (a, b, *more)
    if names is None:
        names = [_default_name(j, i) for i, j in enumerate(judges_in)]
    names = [str(n) for n in names]
    if len(names) != len(judges_in):
        raise ParameterError(f"The 'names' parameter of agreement must name each of the {len(judges_in)} judges. "
                             f"Got {len(names)} names instead.")
    if len(set(names)) != len(names):
        raise ParameterError(f"The judges' names must differ. Got {names} instead: pass names=[...]")
    loaded = [_load(j, n) for j, n in zip(judges_in, names, strict=True)]
    units = sorted(set().union(*[set(d) for d in loaded]))
    grades = np.full((len(units), len(loaded)), np.nan)
    for col, d in enumerate(loaded):
        for row, u in enumerate(units):
            g = d.get(u)
            if g is not None:
                grades[row, col] = g
    have = ~np.isnan(grades)
    if len(loaded) == 2:
        pairs = {"both": int((have[:, 0] & have[:, 1]).sum()), "only_a": int((have[:, 0] & ~have[:, 1]).sum()),
                 "only_b": int((~have[:, 0] & have[:, 1]).sum())}
    else:
        pairs = {"units_2plus": int((have.sum(axis=1) >= 2).sum()),
                 **{f"judged_by_{n}": int(have[:, i].sum()) for i, n in enumerate(names)}}
    return Agreement(tuple(names), tuple(units), grades, pairs)


def _default_name(obj: Any, i: int) -> str:
    from pathlib import Path

    if isinstance(obj, (str, Path)):
        return Path(obj).stem or chr(ord("a") + i)
    return chr(ord("a") + i) if i < 26 else f"judge{i + 1}"
