"""Per-group results: every metric's mean per user (query) group, the group sizes, the gaps, tests.

``groups`` maps each query (user) to a group: a dict, a pandas Series (index: query) or
a two-column pandas/polars DataFrame (query, group), or the path of a two-column text
file (tab, comma or whitespace separated; an optional header line naming the columns).
Ids are text exactly as written. A query of the result without a group is counted and
reported (``ungrouped``, ``notes``), never dropped silently; a query whose value is nan
(a user a metric leaves out, e.g. without a training profile) is left out of its
group's mean and counted in ``left_out``.

>>> import rankmeter
>>> r = rankmeter.evaluate({"u1": ["a"], "u2": ["b"], "u3": ["c"]},
...                        {"u1": ["a"], "u2": ["x", "b"], "u3": ["x"]}, ["rr"])
>>> g = by_group(r, {"u1": "new", "u2": "new", "u3": "old"})
>>> g.means["rr"].to_dict(), g.sizes
({'new': 0.75, 'old': 0.0}, {'new': 2, 'old': 1})
>>> g.gap.loc["rr", ["max_minus_min", "min_over_max"]].tolist()
[0.75, 0.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from .._errors import InputError, ParameterError

__all__ = ["GroupResult", "activity_groups", "by_group", "read_groups", "UNPAIRED_TESTS"]

UNPAIRED_TESTS = ("welch", "mannwhitney", "permutation")
_HEADER_NAMES = {"query", "user", "qid", "query_id", "user_id", "userid", "id"}


def read_groups(groups: Any, *, option: str = "groups") -> tuple[dict[str, str], list[str]]:
    """``groups`` as ``{query id: group label}`` (both text), and notes on what was read."""
    notes: list[str] = []
    if isinstance(groups, (str, Path)):
        return _read_file(Path(groups), option)
    if isinstance(groups, Mapping):
        for q in groups:
            _check_id(q, option)
        return {str(q): str(g) for q, g in groups.items()}, notes
    mod = type(groups).__module__
    if mod.startswith("pandas"):
        if hasattr(groups, "columns"):
            if len(groups.columns) != 2:
                raise ParameterError(f"The {option!r} table must have two columns (query, group). "
                                     f"Got {len(groups.columns)} columns instead.")
            pairs = zip(groups.iloc[:, 0].tolist(), groups.iloc[:, 1].tolist(), strict=True)
        else:
            pairs = zip(groups.index.tolist(), groups.tolist(), strict=True)
        return _pairs(pairs, option), notes
    if mod.startswith("polars"):
        if len(groups.columns) != 2:
            raise ParameterError(f"The {option!r} table must have two columns (query, group). "
                                 f"Got {len(groups.columns)} columns instead.")
        return _pairs(zip(groups[:, 0].to_list(), groups[:, 1].to_list(), strict=True), option), notes
    raise ParameterError(f"The {option!r} parameter must be a mapping query -> group, a pandas or polars table of "
                         f"two columns, or a file path. Got {type(groups).__name__} instead.")


def _check_id(q: Any, option: str) -> None:
    """Query ids are text or integers: a float has no single text form (1.0 is not the id '1')."""
    if isinstance(q, float):
        raise ParameterError(f"The {option!r} groups give the query id {q!r}, a floating-point number; ids must be "
                             "text or integers (a float id has no single text form: convert the column to integers "
                             "or text first)")


def _pairs(pairs: Any, option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for q, g in pairs:
        if q is None or g is None or (isinstance(g, float) and math.isnan(g)):
            raise ParameterError(f"The {option!r} table has a missing query or group (query {q!r}, group {g!r})")
        _check_id(q, option)
        q, g = str(q), str(g)
        if out.get(q, g) != g:
            raise ParameterError(f"The {option!r} table gives query {q!r} two groups: {out[q]!r} and {g!r}")
        out[q] = g
    return out


def _read_file(path: Path, option: str) -> tuple[dict[str, str], list[str]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{option}: no such file", source=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{option}: cannot read the file: {exc}", source=str(path)) from None
    out: dict[str, str] = {}
    where: dict[str, int] = {}
    notes: list[str] = []
    first = True
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        if "\t" in line:
            fields = line.split("\t")
        elif "," in line:
            fields = line.split(",")
        else:
            fields = line.split()
        if len(fields) != 2 or not fields[0] or not fields[1]:
            raise InputError(f"{option}: expected two columns (query, group), found {len(fields)}",
                             source=str(path), line=n, text=line)
        q, g = fields
        if first and q.strip().lower() in _HEADER_NAMES:
            notes.append(f"{option}: line {n} read as a header ({q!r}, {g!r})")
            first = False
            continue
        first = False
        if q in out and out[q] != g:
            raise InputError(f"{option}: query {q!r} is in group {out[q]!r} on line {where[q]} and {g!r} here",
                             source=str(path), line=n, text=line)
        out[q], where[q] = g, n
    if not out:
        raise InputError(f"{option}: the file has no (query, group) line", source=str(path))
    return out, notes


@dataclass(frozen=True, eq=False)
class GroupResult:
    """Means per group (``means``: rows groups, columns metrics), group sizes, gaps and tests.

    ``gap``: one row per metric with the highest and lowest group mean (``max``, ``min``,
    ``highest``, ``lowest``), ``max_minus_min`` and ``min_over_max`` (nan when the
    highest mean is 0). ``left_out[metric][group]``: queries of the group without a value
    for the metric. ``ungrouped``: queries of the result that ``groups`` does not
    name (left out of every group, listed in ``ungrouped_ids``). ``tests``: pandas
    DataFrame of the tests (empty without ``test=``). ``delta_gap`` (when the result has
    ``profile_popularity`` and ``arp(pop=share)``): per group, (GAP_r - GAP_p) / GAP_p of
    Abdollahpouri et al. (2019), GAP_r the group's mean of arp(pop=share), GAP_p its mean
    of profile_popularity; one column per arp metric.
    """

    groups: tuple[str, ...]
    sizes: dict[str, int]
    means: Any
    gap: Any
    left_out: dict[str, dict[str, int]]
    ungrouped: int
    ungrouped_ids: tuple[str, ...]
    tests: Any
    notes: list[str] = field(default_factory=list)
    unit: str = "query"
    delta_gap: Any = None
    # the count metrics (num_ret...: the registry's count=True), shown by their sum per group (sums)
    counts: tuple[str, ...] = ()

    @property
    def sums(self) -> dict[str, dict[str, int]]:
        """``sums[group][metric]``: each count metric's sum over the group's queries with a value (its mean times
        their number), as the CLI's tables show a count; ``means`` keeps the mean."""
        out: dict[str, dict[str, int]] = {}
        for g in self.groups:
            out[g] = {}
            for m in self.counts:
                n = self.sizes[g] - self.left_out.get(m, {}).get(g, 0)
                mean = float(self.means.loc[g, m])
                out[g][m] = int(round(mean * n)) if n and math.isfinite(mean) else 0
        return out

    def to_frame(self) -> Any:
        """A long table: group, size, metric, mean, left_out (one row per group and metric)."""
        import pandas as pd

        rows = [{"group": g, "size": self.sizes[g], "metric": m, "mean": float(self.means.loc[g, m]),
                 "left_out": self.left_out[m][g]} for m in self.means.columns for g in self.groups]
        return pd.DataFrame(rows, columns=["group", "size", "metric", "mean", "left_out"])

    def _repr_html_(self) -> str:
        """Means per group with the sizes, the gap, the tests and the notes (Jupyter's rich display)."""
        from ..data.display import html_number, html_text

        metrics = list(self.means.columns)
        left = ' style="text-align:left"'
        rows = "".join(f"<tr><td{left}>{html_text(g)}</td><td>{self.sizes[g]}</td>"
                       + "".join(f"<td>{html_number(self.means.loc[g, m])}</td>" for m in metrics) + "</tr>"
                       for g in self.groups)
        body = (f"<table><thead><tr><th{left}>group</th><th>size</th>"
                + "".join(f"<th>{html_text(m)}</th>" for m in metrics) + f"</tr></thead><tbody>{rows}</tbody></table>")
        if len(self.gap):
            body += "<p><small>gap (highest - lowest mean): " + "; ".join(
                f"{html_text(m)} {html_number(row['max_minus_min'])} ({html_text(row['highest'])} / "
                f"{html_text(row['lowest'])})" for m, row in self.gap.iterrows()) + "</small></p>"
        if len(self.tests):
            cols = list(self.tests.columns)
            body += ("<details><summary>tests</summary><table><thead><tr>"
                     + "".join(f"<th>{html_text(c)}</th>" for c in cols) + "</tr></thead><tbody>"
                     + "".join("<tr>" + "".join(f"<td>{html_number(v) if not isinstance(v, str) else html_text(v)}"
                                                "</td>" for v in rec) + "</tr>"
                               for rec in self.tests.itertuples(index=False)) + "</tbody></table></details>")
        if self.ungrouped:
            body += f"<p><small>{self.ungrouped} {html_text(self.unit)}(s) in no group, left out</small></p>"
        if self.notes:
            import html

            body += (f"<details><summary>notes ({len(self.notes)})</summary><ul>"
                     + "".join(f"<li>{html.escape(n)}</li>" for n in self.notes) + "</ul></details>")
        return f'<div class="rankmeter"><p><strong>Per group: {len(self.groups)} groups</strong></p>{body}</div>'

    def to_dict(self) -> dict[str, Any]:
        return {
            "groups": {g: {"size": self.sizes[g],
                           "mean": {m: float(self.means.loc[g, m]) for m in self.means.columns},
                           **({"sum": self.sums[g]} if self.counts else {})} for g in self.groups},
            "gap": {m: {c: (v if isinstance(v, str) else float(v)) for c, v in row.items()}
                    for m, row in self.gap.to_dict(orient="index").items()},
            "left_out": self.left_out,
            "ungrouped": self.ungrouped,
            "tests": self.tests.to_dict(orient="records") if len(self.tests) else [],
            "notes": list(self.notes),
            **({"delta_gap": {m: {g: float(v) for g, v in col.items()} for m, col in self.delta_gap.items()}}
               if self.delta_gap is not None else {}),
        }


def _gap_rows(means: Any, groups: Sequence[str]) -> Any:
    import pandas as pd

    rows = {}
    for m in means.columns:
        col = means[m]
        ok = col.dropna()
        if ok.empty:
            rows[m] = {"max": math.nan, "min": math.nan, "highest": "", "lowest": "",
                       "max_minus_min": math.nan, "min_over_max": math.nan}
            continue
        hi, lo = float(ok.max()), float(ok.min())
        rows[m] = {"max": hi, "min": lo, "highest": str(ok.idxmax()), "lowest": str(ok.idxmin()),
                   "max_minus_min": hi - lo, "min_over_max": lo / hi if hi != 0 else math.nan}
    cols = ["max", "min", "highest", "lowest", "max_minus_min", "min_over_max"]
    return pd.DataFrame.from_dict(rows, orient="index", columns=cols)


def _permutation_p(a: np.ndarray, b: np.ndarray, n_resamples: int, rng: np.random.Generator) -> tuple[float, float]:
    """Two-sided permutation test of the difference of means of two independent samples."""
    pooled = np.concatenate((a, b))
    stat = float(a.mean() - b.mean())
    count = 0
    for start in range(0, n_resamples, 1000):
        n = min(1000, n_resamples - start)
        perm = rng.permuted(np.broadcast_to(pooled, (n, len(pooled))), axis=1)
        diff = perm[:, :len(a)].mean(axis=1) - perm[:, len(a):].mean(axis=1)
        count += int((np.abs(diff) >= abs(stat) - 1e-12).sum())
    return stat, (count + 1) / (n_resamples + 1)


#: scipy's words when a sample's values are nearly identical (scipy.stats' moment calculation)
PRECISION_LOSS = ("Precision loss occurred in moment calculation due to catastrophic cancellation. This occurs "
                  "when the data are nearly identical. Results may be unreliable.")


def _variance(x: np.ndarray) -> float:
    """The sample variance (``ddof=1``) by scipy.stats' operations, and its warning on nearly identical values."""
    import warnings

    mean = np.mean(x, keepdims=True)
    centred = x - mean
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.max(np.abs(centred)) / np.abs(mean[0])
    if rel < np.finfo(np.float64).eps * 10 and len(x) > 1:
        warnings.warn(PRECISION_LOSS, RuntimeWarning, stacklevel=4)
    n = float(len(x))
    return float(np.mean(centred**2) * (n / (n - 1)))


def welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Welch's unequal-variances t-test of two independent samples (Welch 1947), two-sided: (t, p).

    ``t = (mean(a) - mean(b)) / sqrt(va/na + vb/nb)`` with the sample variances (``ddof=1``),
    ``df = (va/na + vb/nb)^2 / ((va/na)^2/(na-1) + (vb/nb)^2/(nb-1))`` (1 where undefined:
    both variances zero), ``p = 2 P(T_df >= |t|)``. The operations of
    ``scipy.stats.ttest_ind(a, b, equal_var=False)``, so the values agree to the last bit
    (and so does its warning on nearly identical values), without importing scipy.stats
    (half a second). Samples of at least 2 values (the caller checks).

    Welch, B. L. (1947). The generalization of 'Student's' problem when several different
    population variances are involved. Biometrika 34(1-2), 28-35. doi:10.1093/biomet/34.1-2.28

    >>> t, p = welch(np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 4.0, 6.0]))
    >>> round(t, 6), round(p, 6)
    (-1.133893, 0.333824)
    """
    from scipy import special

    na, nb = len(a), len(b)
    vna, vnb = _variance(a) / na, _variance(b) / nb
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.float64(vna + vnb) ** 2 / (np.float64(vna) ** 2 / (na - 1) + np.float64(vnb) ** 2 / (nb - 1))
        df = np.float64(1.0) if np.isnan(df) else df
        t = (np.mean(a) - np.mean(b)) / np.sqrt(np.float64(vna + vnb))
    return float(t), float(2 * special.stdtr(df, -np.abs(t)))


def _unpaired(test: str, a: np.ndarray, b: np.ndarray, n_resamples: int, rng: np.random.Generator
              ) -> tuple[float, float, str]:
    if test == "welch":
        t, p = welch(a, b)
        return t, p, "Welch's t-test (unequal variances)"
    from scipy import stats as ss

    if test == "mannwhitney":
        r = ss.mannwhitneyu(a, b, alternative="two-sided")
        return float(r.statistic), float(r.pvalue), "Mann-Whitney U test (two-sided)"
    stat, p = _permutation_p(a, b, n_resamples, rng)
    return stat, p, f"permutation test of the difference of means ({n_resamples} permutations)"


def by_group(result: Any, groups: Any, *, test: str | None = None, against: Any = None, correction: str = "holm",
             n_resamples: int = 10_000, seed: Any = 0, option: str = "groups",
             against_name: str | None = None, aliases: Mapping[str, str] | None = None,
             counts: Sequence[str] | None = None) -> GroupResult:
    """Every per-query metric of ``result`` per group of queries: means, sizes, gaps and tests.

    ``test`` between groups (unpaired, every pair of groups of each metric): ``welch``
    (Welch's t-test, scipy), ``mannwhitney`` (scipy), ``permutation`` (difference of means,
    seeded). With ``against`` (another :class:`~rankmeter.result.Result` of the same
    queries, e.g. a baseline system) the test is paired within each group, one of
    :data:`rankmeter.stats.TESTS` (``t``, ``wilcoxon``, ``randomization``, ``bootstrap``),
    on the group's queries with a value in both; ``against_name`` names it in the tests'
    ``other`` column (default ``"against"``). p-values of one metric are adjusted
    together (``correction``, :func:`rankmeter.stats.adjust`). Corpus-level metrics
    (Gini, coverage...) have no per-query value and are not split (a note says so).
    Two spellings of one metric (``hit_rate@10`` and ``success@10``, found by their canonical
    name in ``result.metrics``, or given as ``aliases``: spelling -> first spelling) are tested
    once: the later spelling's rows repeat the first's (the same statistics, not a new draw).
    Count metrics (``counts``, default ``result.counts``: ``num_ret``...) keep their mean per group in
    ``means``; ``GroupResult.sums`` gives their sum per group, as the command line shows them.
    """
    import pandas as pd

    from . import TESTS, adjust, bootstrap_test, paired_t, randomization_test, wilcoxon
    from .resampling import make_rng

    mapping, notes = read_groups(groups, option=option)
    unit = getattr(result, "index_name", "query")
    queries = [str(q) for q in result.queries]
    labels = [mapping.get(q) for q in queries]
    grouped = np.array([g is not None for g in labels], dtype=bool)
    names = tuple(sorted({g for g in labels if g is not None}, key=lambda s: s.encode("utf-8")))
    ungrouped_ids = tuple(q for q, ok in zip(queries, grouped, strict=True) if not ok)
    units = "queries" if unit == "query" else unit + "s"
    if ungrouped_ids:
        one = len(ungrouped_ids) == 1
        notes.append(f"{len(ungrouped_ids)} {unit if one else units} of {len(queries)} {'has' if one else 'have'} "
                     f"no group (e.g. "
                     f"{', '.join(map(repr, ungrouped_ids[:3]))}): left out of every group")
    unused = len(set(mapping) - set(queries))
    if unused:
        notes.append(f"{unused} {units} named in {option} are not in the result")
    corpus = [m for m in getattr(result, "corpus", {}) if m not in result.values]
    if corpus:
        notes.append(f"corpus-level metrics are not split by group: {', '.join(corpus)} (evaluate each group's "
                     f"{units} separately)")
    code = {g: j for j, g in enumerate(names)}
    gidx = np.array([code.get(g, -1) if g is not None else -1 for g in labels], dtype=np.int64)
    sizes = {g: int((gidx == j).sum()) for j, g in enumerate(names)}
    metrics = list(result.values)
    means = pd.DataFrame(index=pd.Index(list(names), name="group"), columns=metrics, dtype=np.float64)
    left_out: dict[str, dict[str, int]] = {}
    for m in metrics:
        v = np.asarray(result.values[m], dtype=np.float64)
        left_out[m] = {}
        for j, g in enumerate(names):
            x = v[gidx == j]
            has = ~np.isnan(x)
            left_out[m][g] = int((~has).sum())
            means.loc[g, m] = float(np.mean(x[has])) if has.any() else math.nan
        lost = sum(left_out[m].values())
        if lost:
            notes.append(f"{m}: {lost} grouped {units} have no value (left out of their group's mean)")
    rows: list[dict[str, Any]] = []
    same = dict(aliases) if aliases is not None else _aliases(result)
    if test is not None:
        rng = make_rng(seed)
        if against is None:
            if test not in UNPAIRED_TESTS:
                raise ParameterError(f"The 'test' parameter of by_group must be one of {', '.join(UNPAIRED_TESTS)} "
                                     f"between groups (or a paired test with against=). Got {test!r} instead.")
            for m in metrics:
                if m in same:
                    rows += [dict(r, metric=m) for r in rows if r["metric"] == same[m]]
                    continue
                v = np.asarray(result.values[m], dtype=np.float64)
                for a in range(len(names)):
                    for b in range(a + 1, len(names)):
                        xa, xb = v[gidx == a], v[gidx == b]
                        xa, xb = xa[~np.isnan(xa)], xb[~np.isnan(xb)]
                        if len(xa) < 2 or len(xb) < 2:
                            stat, p, how = math.nan, math.nan, "too few values (fewer than 2 in a group)"
                        else:
                            stat, p, how = _unpaired(test, xa, xb, n_resamples, rng)
                        rows.append({"metric": m, "group": names[a], "other": names[b], "test": test,
                                     "diff": float(xa.mean() - xb.mean()) if len(xa) and len(xb) else math.nan,
                                     "statistic": stat, "p_value": p, "n": len(xa), "n_other": len(xb),
                                     "method": how})
        else:
            if test not in TESTS:
                raise ParameterError(f"The 'test' parameter of by_group with against= must be one of "
                                     f"{', '.join(TESTS)}. Got {test!r} instead.")
            other = {str(q): i for i, q in enumerate(against.queries)}
            other_name = "against" if against_name is None else str(against_name)
            pos = np.array([other.get(q, -1) for q in queries], dtype=np.int64)
            if (pos < 0).any():
                notes.append(f"{int((pos < 0).sum())} {units} are not in the result tested against: left out of "
                             "the paired tests")
            fn = {"t": paired_t, "wilcoxon": wilcoxon, "randomization": randomization_test,
                  "bootstrap": bootstrap_test}[test]
            for m in metrics:
                if m not in against.values:
                    raise ParameterError(f"by_group: metric {m!r} is not in the result tested against")
                if m in same:
                    rows += [dict(r, metric=m) for r in rows if r["metric"] == same[m]]
                    continue
                v = np.asarray(result.values[m], dtype=np.float64)
                w = np.asarray(against.values[m], dtype=np.float64)
                for j, g in enumerate(names):
                    sel = (gidx == j) & (pos >= 0)
                    x = v[sel]
                    y = w[pos[sel]]
                    ok = ~np.isnan(x) & ~np.isnan(y)
                    x, y = x[ok], y[ok]
                    if len(x) < 2:
                        stat, p, how = math.nan, math.nan, "too few paired values (fewer than 2)"
                    else:
                        kw = {} if test in ("t", "wilcoxon") else {"seed": rng}
                        r = fn(x, y, **kw)
                        stat, p, how = float(r.statistic), float(r.p_value), str(r.method)
                    rows.append({"metric": m, "group": g, "other": other_name, "test": test,
                                 "diff": float(np.mean(x - y)) if len(x) else math.nan, "statistic": stat,
                                 "p_value": p, "n": len(x), "n_other": len(y), "method": how})
    tests = pd.DataFrame(rows, columns=["metric", "group", "other", "test", "diff", "statistic", "p_value",
                                        "p_adjusted", "n", "n_other", "method"])
    if len(tests):
        adj = np.full(len(tests), math.nan)
        for m in metrics:
            sel = (tests["metric"] == m).to_numpy() & tests["p_value"].notna().to_numpy()
            if sel.any():
                adj[sel] = adjust(tests.loc[sel, "p_value"].to_numpy(), correction)
        tests["p_adjusted"] = adj
    return GroupResult(groups=names, sizes=sizes, means=means, gap=_gap_rows(means, names), left_out=left_out,
                       ungrouped=len(ungrouped_ids), ungrouped_ids=ungrouped_ids, tests=tests, notes=notes,
                       unit=unit, delta_gap=_delta_gap(means),
                       counts=tuple(m for m in (counts if counts is not None else getattr(result, "counts", ()))
                                    if m in result.values))


def _aliases(result: Any) -> dict[str, str]:
    """``{spelling: first spelling}`` of the metrics of ``result`` written twice under two spellings (the same
    canonical metric, which the evaluation core computed once)."""
    first: dict[str, str] = {}
    out: dict[str, str] = {}
    for m in getattr(result, "metrics", ()) or ():
        key, text = getattr(m, "canonical", None), getattr(m, "text", None)
        if key is None or text is None or text not in result.values:
            continue
        if key in first and first[key] != text:
            out[text] = first[key]
        else:
            first.setdefault(key, text)
    return out


def _delta_gap(means: Any) -> Any:
    """(GAP_r - GAP_p) / GAP_p per group for each arp(pop=share) column, when profile_popularity is there."""
    from ..metrics.registry import parse_metric

    profile, lists = None, []
    for m in means.columns:
        try:
            pm = parse_metric(m)
        except Exception:  # noqa: BLE001  (a column that is not a metric string: precomputed results)
            continue
        if pm.spec.name == "profile_popularity":
            profile = m
        elif pm.spec.name == "arp" and pm.params.get("pop") == "share" and pm.params.get("norm") == "length":
            lists.append(m)
    if profile is None or not lists:
        return None
    gap_p = means[profile]
    return (means[lists].sub(gap_p, axis=0)).div(gap_p, axis=0)


def activity_groups(train: Any, n_groups: int = 3, labels: Sequence[str] | None = None, *, user: str | None = None,
                    item: str | None = None, users: Sequence[Any] | None = None) -> dict[str, str]:
    """Users split into ``n_groups`` equal-size groups by activity: their number of distinct training items.

    Users are ordered by that count ascending, ties by user id ascending (byte order), and cut
    into consecutive groups whose sizes differ by at most one (``numpy.array_split``: the
    first ``len % n_groups`` groups have the extra user); labels ``low``, ``mid``, ``high``
    for three groups, else ``g1`` (least active) ... ``gN``. So users with the same count
    at a border are split by id: the smaller ids go to the less active group.
    ``train`` is anything :func:`rankmeter.metrics.beyond.train_items` reads. ``users``:
    the users to split (e.g. the evaluated test users; default: every training user); a
    user without a training item has activity 0.

    >>> activity_groups({"user": ["a", "a", "a", "b", "b", "c", "d"], "item": [1, 2, 3, 1, 2, 1, 1]})
    {'c': 'low', 'd': 'low', 'b': 'mid', 'a': 'high'}
    >>> activity_groups({"user": ["a", "a", "b"], "item": [1, 2, 1]}, users=["a", "b", "new"])
    {'new': 'low', 'b': 'mid', 'a': 'high'}
    """
    from ..metrics.beyond import train_items

    if isinstance(n_groups, bool) or not isinstance(n_groups, int) or n_groups < 1:
        raise ParameterError(f"The 'n_groups' parameter of activity_groups must be an int >= 1. Got {n_groups!r} "
                             "instead.")
    if labels is None:
        labels = ["low", "mid", "high"] if n_groups == 3 else [f"g{i + 1}" for i in range(n_groups)]
    if len(labels) != n_groups:
        raise ParameterError(f"The 'labels' parameter of activity_groups must give {n_groups} labels. "
                             f"Got {len(labels)} instead.")
    who, _ = train_items(train, user=user, item=item)
    ids, counts = np.unique(np.asarray(who.to_pylist(), dtype=object), return_counts=True)
    if users is not None:
        have = dict(zip((str(u) for u in ids), (int(c) for c in counts), strict=True))
        wanted = list(dict.fromkeys(str(u) for u in users))
        ids = np.asarray(wanted, dtype=object)
        counts = np.asarray([have.get(u, 0) for u in wanted], dtype=np.int64)
    order = sorted(range(len(ids)), key=lambda j: (int(counts[j]), str(ids[j]).encode("utf-8")))
    out: dict[str, str] = {}
    for lab, part in zip(labels, np.array_split(np.asarray(order, dtype=np.int64), n_groups), strict=True):
        for j in part:
            out[str(ids[j])] = str(lab)
    return out
