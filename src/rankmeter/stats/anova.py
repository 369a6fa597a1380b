"""Two-way ANOVA without replication (system x topic) of a topics x systems score matrix.

One score per (topic, system): the model is ``x_ij = mu + topic_i + system_j + e_ij``
(no interaction term can be estimated without replication). With ``n`` topics,
``m`` systems and grand mean ``g``:

- ``SS_system = n sum_j (mean_j - g)^2`` on ``m - 1`` degrees of freedom,
- ``SS_topic = m sum_i (mean_i - g)^2`` on ``n - 1``,
- ``SS_residual = SS_total - SS_system - SS_topic`` on ``(m - 1)(n - 1)``,

``MS = SS / df``, ``F = MS / MS_residual``, ``p = P(F_{df, df_res} > F)``. The
residual mean square ``V_E`` is the variance estimate Sakai's topic-set-size
design uses (:func:`rankmeter.stats.power.topic_set_size`). The same table as
``statsmodels``' ``anova_lm(ols("score ~ C(system) + C(topic)"))``.

>>> t = anova_two_way([[0.2, 0.5, 0.4], [0.1, 0.6, 0.3], [0.3, 0.7, 0.2]])
>>> [round(v, 6) for v in t.ss]
[0.26, 0.006667, 0.053333]
>>> round(t.residual_variance, 6)
0.013333
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AnovaTable", "anova_two_way"]


@dataclass(frozen=True)
class AnovaTable:
    """Rows ``("system", "topic", "residual")``: sums of squares, degrees of freedom, mean squares, F and p
    (F and p are NaN for the residual row, and NaN when the residual variance is 0)."""

    sources: tuple[str, ...]
    ss: tuple[float, ...]
    df: tuple[int, ...]
    ms: tuple[float, ...]
    f: tuple[float, ...]
    p_value: tuple[float, ...]
    n_topics: int
    n_systems: int

    @property
    def residual_variance(self) -> float:
        """``V_E = MS_residual``."""
        return self.ms[2]

    def to_frame(self) -> "pd.DataFrame":
        import pandas as pd

        return pd.DataFrame({"sum_sq": self.ss, "df": self.df, "mean_sq": self.ms, "F": self.f,
                             "p_value": self.p_value}, index=pd.Index(self.sources, name="source"))


def anova_two_way(scores: Any) -> AnovaTable:
    """The system x topic ANOVA table of a topics x systems matrix (at least 2 topics and 2 systems)."""
    from scipy import stats

    X = np.asarray(scores, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 2:
        raise InputError(f"anova_two_way: scores must be a topics x systems matrix with at least 2 topics and "
                         f"2 systems, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise InputError("anova_two_way: scores must be finite (a NaN or infinite value was found)")
    n, m = X.shape
    g = X.mean()
    ss_sys = float(n * np.sum((X.mean(axis=0) - g) ** 2))
    ss_top = float(m * np.sum((X.mean(axis=1) - g) ** 2))
    resid = X - X.mean(axis=0)[None, :] - X.mean(axis=1)[:, None] + g
    ss_res = float(np.sum(resid**2))  # computed directly, not by subtraction (no cancellation)
    df = (m - 1, n - 1, (m - 1) * (n - 1))
    ms = (ss_sys / df[0], ss_top / df[1], ss_res / df[2])
    fs, ps = [], []
    for k in range(2):
        if ms[2] > 0:
            fv = ms[k] / ms[2]
            fs.append(fv)
            ps.append(float(stats.f.sf(fv, df[k], df[2])))
        else:
            fs.append(float("nan"))
            ps.append(float("nan"))
    return AnovaTable(("system", "topic", "residual"), (ss_sys, ss_top, ss_res), df, ms,
                      (fs[0], fs[1], float("nan")), (ps[0], ps[1], float("nan")), n, m)
