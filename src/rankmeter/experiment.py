"""The recommender evaluation pipeline: data, split, baselines, top-k lists, metrics, comparison, report.

>>> from rankmeter.experiment import experiment
>>> from rankmeter.datasets import synthetic
>>> data = synthetic(n_users=120, n_items=150, seed=1)
>>> res = experiment(data, k=5, n_resamples=200)
>>> list(res.results), res.baseline, res.mode
(['random', 'popular', 'itemknn'], 'itemknn', 'full ranking')
>>> bool(res.means.loc["popular", "ndcg@5"] > res.means.loc["random", "ndcg@5"])
True

Stages
------
1. **load**: :func:`rankmeter.io.interactions.read_interactions` (paths, MovieLens ``u.data``,
   DataFrames, Arrow tables), or a :class:`rankmeter.datasets.SyntheticData` (its item
   features and genres are used for diversity).
2. **split** (with the filters ``min_user_interactions`` / ``min_item_interactions``):
   :mod:`rankmeter.split`. ``split="temporal"`` (default) holds out each user's latest
   ``test_fraction`` (0.2) of interactions; ``"temporal_global"``, ``"holdout"``,
   ``"leave_k_out"``/``"leave_one_out"``, ``"auto"`` (temporal when there are timestamps,
   else a per-user random hold-out), a :class:`rankmeter.split.Split`, a ``(train, test)``
   pair or a callable returning either. Every row is counted in ``result.split``.
3. **fit** and **recommend**: each recommender (reference ones by name: ``random``,
   ``popular``, ``itemknn``; objects with ``fit``/``recommend``; callables
   ``f(train, users, k)``; files of top-k lists) gives top-k lists for the test users with
   a relevant test item, without their training items (``exclude_seen``).
4. **validate**: duplicates, items outside the catalogue, a user's own training items,
   missing, short and long lists are counted per recommender (:class:`Validation`);
   duplicates and unknown items are removed (the first occurrence in rank order is
   kept); training items are kept and counted. A recommender that leaves no usable row
   for any user is an error.
5. **evaluate**: :func:`rankmeter.evaluate` with accuracy and beyond-accuracy metrics
   (context from :func:`rankmeter.beyond.context_from_train`).
6. **compare**: :func:`rankmeter.compare` of the per-user metrics against the best
   reference recommender (``baseline="best"``) with paired tests and corrections.
7. **report**: :meth:`ExperimentResult.print` (terminal), :meth:`ExperimentResult.save`
   (``report.html``, ``results.json``, ``means.csv``).

Sampled mode (``sampled=N``) ranks each user's test items among N sampled negatives
(:mod:`rankmeter.sampled`); every output then carries the label
``sampled (N=..., seed=...): inflates scores vs full ranking``.
"""

from __future__ import annotations

import html as _html
import json
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import pyarrow as pa

from ._compute import pc_on_first_use as pc
from ._errors import InputError, MissingExtraError, ParameterError, RankmeterError
from .data._ids import as_string_array, encode, union_vocab

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

    from .compare import Comparison
    from .data import Run
    from .result import Result

__all__ = ["experiment", "ExperimentResult", "Validation", "validate_recommendations", "default_metrics",
           "FULL_RANKING"]

FULL_RANKING = "full ranking"
_REFERENCE_TYPES = ("Random", "MostPopular", "ItemKNN")


# --------------------------------------------------------------------------- metrics

def default_metrics(k: int, *, features: bool = False, categories: bool = False, cold: bool = False) -> list[str]:
    """Accuracy then beyond-accuracy metrics at cutoff ``k`` (ILD when features/categories exist).

    >>> default_metrics(10)[:3]
    ['ndcg@10', 'recall@10', 'P@10']
    """
    acc = [f"ndcg@{k}", f"recall@{k}", f"P@{k}", f"map@{k}", f"mrr@{k}"]
    beyond = [f"novelty(cold=one)@{k}" if cold else f"novelty@{k}", f"serendipity@{k}", f"arp@{k}"]
    if features:
        beyond.append(f"ild@{k}")
    if categories:
        beyond.append(f"ild(distance=jaccard)@{k}")
    beyond += [f"catalog_coverage@{k}", f"user_coverage@{k}", f"personalization@{k}", f"gini@{k}",
               f"entropy@{k}"]
    return acc + beyond


# --------------------------------------------------------------------------- validation

@dataclass(frozen=True)
class Validation:
    """What a recommender returned, counted. Rows are (user, item) recommendations.

    Removed before evaluation: ``extra_user_rows`` (users not asked for),
    ``unknown_items`` (items outside the catalogue), ``outside_candidates`` (sampled
    mode: items not among the user's candidates), ``duplicates`` (a repeated
    (user, item); the first in rank order is kept). Kept and counted:
    ``training_items`` (a user's own training item). Per user, after removals:
    ``missing_users`` (no list), ``short_lists`` (fewer than k items, missing users
    included), ``long_lists`` (more than k: the metrics read the top k).
    """

    recommender: str
    k: int
    users: int
    rows: int
    kept_rows: int
    extra_users: int = 0
    extra_user_rows: int = 0
    unknown_items: int = 0
    outside_candidates: int = 0
    duplicates: int = 0
    training_items: int = 0
    missing_users: int = 0
    short_lists: int = 0
    long_lists: int = 0
    examples: Mapping[str, Sequence[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems()

    def problems(self) -> list[str]:
        """One line per kind of problem found (empty when the output is clean)."""
        out = []

        def ex(key: str) -> str:
            ids = list(self.examples.get(key, ()))
            return f" (e.g. {', '.join(map(str, ids[:3]))})" if ids else ""

        if self.duplicates:
            out.append(f"{self.duplicates} duplicate recommendations removed (first in rank order kept){ex('duplicates')}")
        if self.unknown_items:
            out.append(f"{self.unknown_items} recommendations of items outside the catalogue removed"
                       f"{ex('unknown_items')}")
        if self.outside_candidates:
            out.append(f"{self.outside_candidates} recommendations outside the user's sampled candidates removed")
        if self.extra_user_rows:
            out.append(f"{self.extra_user_rows} recommendations for {self.extra_users} users not in the test set "
                       f"ignored{ex('extra_users')}")
        if self.training_items:
            out.append(f"{self.training_items} recommendations of the user's own training items (kept)"
                       f"{ex('training_items')}")
        if self.missing_users:
            out.append(f"{self.missing_users} of {self.users} test users got no recommendation (scored as empty "
                       f"lists){ex('missing_users')}")
        short_only = self.short_lists - self.missing_users
        if short_only:
            out.append(f"{short_only} users got fewer than k={self.k} recommendations{ex('short_lists')}")
        if self.long_lists:
            out.append(f"{self.long_lists} users got more than k={self.k} recommendations (metrics read the top k)")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "recommender": self.recommender, "k": self.k, "users": self.users, "rows": self.rows,
            "kept_rows": self.kept_rows, "extra_users": self.extra_users, "extra_user_rows": self.extra_user_rows,
            "unknown_items": self.unknown_items, "outside_candidates": self.outside_candidates,
            "duplicates": self.duplicates, "training_items": self.training_items,
            "missing_users": self.missing_users, "short_lists": self.short_lists, "long_lists": self.long_lists,
        }


def _mask(arr: pa.Array, value_set: pa.Array) -> np.ndarray:
    if len(arr) == 0:
        return np.zeros(0, dtype=bool)
    return np.asarray(pc.is_in(arr, value_set=value_set).to_numpy(zero_copy_only=False), dtype=bool)


def _codes(arr: pa.Array, vocab: pa.Array) -> np.ndarray:
    if len(arr) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.asarray(pc.fill_null(pc.index_in(arr, value_set=vocab), -1).to_numpy(zero_copy_only=False),
                      dtype=np.int64)


def _first(arr: pa.Array, mask: np.ndarray, n: int = 3) -> list[str]:
    idx = np.flatnonzero(mask)[:200]
    return list(dict.fromkeys(arr.take(pa.array(idx, pa.int64())).to_pylist()))[:n] if len(idx) else []


def validate_recommendations(
    table: pa.Table,
    *,
    name: str,
    users: pa.Array,
    k: int,
    catalog: pa.Array,
    train_users: pa.Array,
    train_items: pa.Array,
    train_keys: np.ndarray,
    candidates: Any = None,
) -> tuple[pa.Table, Validation]:
    """Count and clean one recommender's ``user, item, score`` rows (see :class:`Validation`).

    ``train_keys`` are the sorted unique ``user code * len(train_items) + item code`` of
    the training interactions. Raises :class:`RankmeterError` when no usable row is left.
    """
    u = as_string_array(table.column("user"))
    i = as_string_array(table.column("item"))
    s = np.asarray(table.column("score").to_numpy(), dtype=np.float64)
    n_rows = len(u)
    examples: dict[str, list[str]] = {}
    keep = np.ones(n_rows, dtype=bool)

    asked = _mask(u, users)
    extra = ~asked
    extra_users = len(pc.unique(u.filter(pa.array(extra)))) if extra.any() else 0
    if extra.any():
        examples["extra_users"] = _first(u, extra)
    keep &= asked

    known = _mask(i, catalog)
    unknown = keep & ~known
    if unknown.any():
        examples["unknown_items"] = _first(i, unknown)
    keep &= known

    # duplicates among what is left: keep the first in rank order (score desc, item id desc)
    dup_count = 0
    idx = np.flatnonzero(keep)
    if len(idx):
        uc = _codes(u.take(pa.array(idx)), users)
        ic, ivocab = encode(i.take(pa.array(idx)))
        order = np.lexsort((-ic, -s[idx], uc))
        key = uc[order] * max(len(ivocab), 1) + ic[order]
        dup_sorted = np.zeros(len(order), dtype=bool)
        dup_sorted[1:] = key[1:] == key[:-1]
        dup_rows = idx[order[dup_sorted]]
        dup_count = len(dup_rows)
        if dup_count:
            dmask = np.zeros(n_rows, dtype=bool)
            dmask[dup_rows] = True
            examples["duplicates"] = _first(u, dmask)
            keep[dup_rows] = False

    outside = 0
    if candidates is not None and keep.any():
        idx = np.flatnonzero(keep)
        inside = candidates.pair_mask(u.take(pa.array(idx)), i.take(pa.array(idx)))
        outside = int((~inside).sum())
        keep[idx[~inside]] = False

    # the user's own training items (kept, counted)
    idx = np.flatnonzero(keep)
    seen_count = 0
    if len(idx) and len(train_keys):
        tu = _codes(u.take(pa.array(idx)), train_users)
        ti = _codes(i.take(pa.array(idx)), train_items)
        ok = (tu >= 0) & (ti >= 0)
        keys = tu * max(len(train_items), 1) + ti
        at = np.minimum(np.searchsorted(train_keys, keys), len(train_keys) - 1)
        seen = ok & (train_keys[at] == keys)
        seen_count = int(seen.sum())
        if seen_count:
            smask = np.zeros(n_rows, dtype=bool)
            smask[idx[seen]] = True
            examples["training_items"] = _first(u, smask)

    kept_u = u.filter(pa.array(keep))
    lengths = np.bincount(_codes(kept_u, users), minlength=len(users)) if len(kept_u) else np.zeros(len(users), int)
    missing = lengths == 0
    short = lengths < k
    if missing.any():
        examples["missing_users"] = _first(users, missing)
    if (short & ~missing).any():
        examples["short_lists"] = _first(users, short & ~missing)
    v = Validation(
        recommender=name, k=k, users=len(users), rows=n_rows, kept_rows=int(keep.sum()),
        extra_users=int(extra_users), extra_user_rows=int(extra.sum()), unknown_items=int(unknown.sum()),
        outside_candidates=outside, duplicates=dup_count, training_items=seen_count,
        missing_users=int(missing.sum()), short_lists=int(short.sum()), long_lists=int((lengths > k).sum()),
        examples=examples,
    )
    if v.kept_rows == 0:
        detail = "; ".join(v.problems()) or "it returned no rows"
        raise RankmeterError(
            f"recommender {name!r} gave no usable recommendation for any of the {len(users)} test users "
            f"({n_rows} rows returned: {detail}); its scores would be meaningless")
    return table.filter(pa.array(keep)), v


# --------------------------------------------------------------------------- progress and timing

class _Stages:
    """A progress bar per stage (rich, on stderr) and the time of every stage."""

    def __init__(self, enabled: bool, console: "Console | None" = None) -> None:
        self.timings: dict[str, float] = {}
        self._progress = None
        if enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(TextColumn("{task.description:<28}"), BarColumn(), TaskProgressColumn(),
                                      TimeElapsedColumn(), console=console or Console(stderr=True),
                                      transient=False)
            self._progress.start()

    @contextmanager
    def stage(self, name: str, total: int = 1) -> Iterator[Callable[[int, int], None]]:
        task = self._progress.add_task(name, total=max(total, 1)) if self._progress is not None else None
        t0 = time.perf_counter()

        def update(done: int, of: int) -> None:
            if self._progress is not None and task is not None:
                self._progress.update(task, completed=done, total=max(of, 1))

        try:
            yield update
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - t0
            if self._progress is not None and task is not None:
                t = self._progress.tasks[[x.id for x in self._progress.tasks].index(task)]
                self._progress.update(task, completed=t.total)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


# --------------------------------------------------------------------------- result

@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """Everything an experiment produced.

    ``results[name]``: the :class:`~rankmeter.result.Result` of each recommender (per-user
    values and means, corpus-level values in ``.corpus``); ``comparison``: the
    :class:`~rankmeter.compare.Comparison` of the per-user metrics against ``baseline``
    (None with a single recommender); ``validation[name]``: what each recommender
    returned, counted; ``timings``: seconds per stage; ``mode``: ``"full ranking"`` or
    the sampled-mode label; ``data`` and ``split``: the counts of the input and of the
    split; ``notes``: everything a reader should know.
    """

    results: dict[str, "Result"]
    comparison: "Comparison | None"
    validation: dict[str, Validation]
    timings: dict[str, float]
    metrics: tuple[str, ...]
    k: int
    baseline: str | None
    mode: str
    data: dict[str, Any]
    split: dict[str, Any]
    notes: tuple[str, ...] = ()
    runs: dict[str, "Run"] = field(default_factory=dict, repr=False)
    reference: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def sampled(self) -> bool:
        return self.mode != FULL_RANKING

    @property
    def means(self) -> "pd.DataFrame":
        """Recommender x metric means (corpus-level metrics: their single value)."""
        import pandas as pd

        rows = {n: r.mean for n, r in self.results.items()}
        frame = pd.DataFrame.from_dict(rows, orient="index")[list(self.metrics)]
        frame.index.name = "recommender"
        return frame

    @property
    def total_seconds(self) -> float:
        return float(sum(self.timings.values()))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict: settings, mode, data and split counts, means, validation, timings, tests."""
        out: dict[str, Any] = {
            "mode": self.mode,
            "k": self.k,
            "metrics": list(self.metrics),
            "baseline": self.baseline,
            "reference_recommenders": list(self.reference),
            "settings": _jsonable(self.settings),
            "data": _jsonable(self.data),
            "split": _jsonable(self.split),
            "means": {n: {m: _num(v) for m, v in r.mean.items()} for n, r in self.results.items()},
            "users_evaluated": {n: r.n_queries for n, r in self.results.items()},
            "validation": {n: v.to_dict() for n, v in self.validation.items()},
            "timings_seconds": {k: round(v, 4) for k, v in self.timings.items()},
            "notes": list(self.notes),
        }
        if self.comparison is not None:
            out["comparison"] = self.comparison.to_dict(details=True)
        return out

    def to_json(self, path: str | Path | None = None) -> str:
        text = json.dumps(self.to_dict(), indent=2, allow_nan=False)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def to_csv(self, path: str | Path | None = None) -> str:
        """The means table as CSV, with a ``mode`` column (the sampled label when sampled)."""
        frame = self.means.copy()
        frame.insert(0, "mode", self.mode)
        text = frame.to_csv(lineterminator="\n")
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    # ------------------------------------------------------------------ terminal

    def table(self, digits: int = 4) -> "Table":
        """A rich table: one row per metric, one column per recommender; markers against the baseline."""
        from rich.table import Table

        title = f"rankmeter experiment: top-{self.k}, {self.mode}"
        t = Table(title=title, caption=self._caption(), show_lines=False)
        t.add_column("metric", style="bold")
        for name in self.results:
            t.add_column(name + (" (baseline)" if name == self.baseline else ""), justify="right")
        means = {n: r.mean for n, r in self.results.items()}
        for m in self.metrics:
            t.add_row(m, *[_fmt(means[n].get(m, float("nan")), digits) + self._marker(m, n) for n in self.results])
        return t

    def _marker(self, metric: str, name: str) -> str:
        if self.comparison is None or name == self.baseline or metric not in self.comparison.metrics:
            return ""
        pt = self.comparison.against_baseline(metric, name)
        if pt is None or not pt.significant:
            return ""
        return " ▲" if pt.better == name else " ▼"

    def _caption(self) -> str:
        parts = []
        if self.comparison is not None:
            s = self.comparison.settings
            parts.append(f"▲/▼: significantly better/worse than {self.baseline} ({s.tests[0]} test, "
                         f"{s.correction} correction, alpha={s.alpha:g}); corpus-level metrics are not tested")
        n_users = next(iter(self.results.values())).n_queries if self.results else 0
        parts.append(f"{n_users} test users")
        if self.sampled:
            parts.append(f"WARNING: {self.mode}")
        return "; ".join(parts)

    def print(self, console: "Console | None" = None, digits: int = 4) -> None:
        """The means table, the checks of each recommender's output, the notes and the timings."""
        from rich.console import Console

        con = console or Console()
        if self.sampled:
            con.print(f"[bold yellow]{self.mode}[/bold yellow]")
        con.print(self.table(digits))
        for name, v in self.validation.items():
            for line in v.problems():
                con.print(f"[yellow]{name}[/yellow]: {line}")
        for line in self.notes:
            con.print(f"note: {line}")
        timing = ", ".join(f"{k} {v:.2f}s" for k, v in self.timings.items())
        con.print(f"[dim]timings: {timing} (total {self.total_seconds:.1f}s)[/dim]")

    # ------------------------------------------------------------------ HTML

    def to_html(self, path: str | Path | None = None, *, title: str | None = None, k_max: int | None = None) -> str:
        """One self-contained HTML page (inline CSS and figures, nothing from the network).

        The comparison report of :meth:`rankmeter.compare.Comparison.to_html` (tables, paired
        tests, per-user difference and distribution figures) with the experiment's own
        sections first: the mode (with the sampled-mode warning), data and split counts, all
        metrics including corpus-level ones, the checks of each recommender's output and
        the timings. Without matplotlib, or with a single recommender, a page with the
        tables only.
        """
        title = title or f"rankmeter experiment: top-{self.k} recommendations ({self.mode})"
        own = self._html_sections()
        text = None
        if self.comparison is not None:
            try:
                page = self.comparison.to_html(title=title, k_max=k_max or self.k)
            except MissingExtraError:
                page = None
            if page is not None:
                text = _inject(page, own)
        if text is None:
            text = _standalone_page(title, own + self._comparison_tables())
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def _html_sections(self) -> str:
        e = _html.escape
        parts = []
        if self.sampled:
            parts.append(f'<p style="background:#fff4d6;border:2px solid #c98a00;padding:10px 14px;'
                         f'font-weight:600">Sampled evaluation: {e(self.mode)}. Each user\'s test items are ranked '
                         f'against sampled non-interacted items only; the scores are higher than with full ranking '
                         f'and are not comparable with it.</p>')
        else:
            parts.append(f'<p class="lead">Mode: {e(self.mode)} (every recommendable item is a candidate).</p>')
        d, s = self.data, self.split
        rows = [("input", d.get("source", "")), ("interactions", d.get("rows")), ("users", d.get("users")),
                ("items", d.get("items")), ("split", s.get("method", "")),
                ("split parameters", json.dumps(_jsonable(s.get("params", {})))),
                ("train rows / users / items", _counts(s.get("train"))),
                ("test rows / users / items", _counts(s.get("test"))),
                ("rows dropped by the split", s.get("dropped_rows")),
                ("cut-off k", self.k), ("baseline", self.baseline or "none")]
        parts.append("<h2>Experiment</h2>" + _dl(rows))
        # every metric, corpus-level included: one row per metric, one column per recommender
        head = "".join(f"<th>{e(n)}{' (baseline)' if n == self.baseline else ''}</th>" for n in self.results)
        means = {n: r.mean for n, r in self.results.items()}
        body = []
        for m in self.metrics:
            cells = "".join(f"<td>{e(_fmt(means[n].get(m, float('nan')), 4))}{e(self._marker(m, n))}</td>"
                            for n in self.results)
            level = "per user" if m in self.results[next(iter(self.results))].values else "corpus"
            body.append(f'<tr><td class="l">{e(m)}</td><td class="l">{level}</td>{cells}</tr>')
        parts.append("<h2>All metrics</h2>"
                     f'<div class="scroll"><table><tr><th class="l">metric</th><th class="l">level</th>{head}</tr>'
                     f'{"".join(body)}</table></div><p class="caption">{e(self._caption())}</p>')
        # validation
        cols = ["users", "rows", "kept_rows", "duplicates", "unknown_items", "training_items", "missing_users",
                "short_lists", "long_lists", "extra_user_rows", "outside_candidates"]
        vrows = "".join(
            f'<tr><td class="l">{e(n)}</td>' + "".join(f"<td>{v.to_dict()[c]}</td>" for c in cols) + "</tr>"
            for n, v in self.validation.items())
        parts.append("<h2>Checks of the recommendations</h2>"
                     '<div class="scroll"><table><tr><th class="l">recommender</th>'
                     + "".join(f"<th>{e(c)}</th>" for c in cols) + f"</tr>{vrows}</table></div>"
                     '<p class="caption">Duplicates, items outside the catalogue, users outside the test set and '
                     'items outside the sampled candidates are removed before evaluation; training items are kept. '
                     'A user without a list scores as an empty list.</p>')
        problems = [f"{n}: {p}" for n, v in self.validation.items() for p in v.problems()] + list(self.notes)
        if problems:
            parts.append('<ul class="notes">' + "".join(f"<li>{e(p)}</li>" for p in problems) + "</ul>")
        trows = [(k, f"{v:.3f} s") for k, v in self.timings.items()] + [("total", f"{self.total_seconds:.2f} s")]
        parts.append("<h2>Timings</h2>" + _dl(trows))
        return "\n".join(parts)

    def _comparison_tables(self) -> str:
        if self.comparison is None:
            return ""
        e = _html.escape
        rows = "".join(
            f'<tr><td class="l">{e(t.metric)}</td><td class="l">{e(t.b)} vs {e(t.a)}</td><td>{t.diff:+.4f}</td>'
            f"<td>{_fmt(t.p_value, 4)}</td><td>{_fmt(t.p_adjusted, 4)}</td><td>{'yes' if t.significant else 'no'}</td></tr>"
            for t in self.comparison.tests)
        return ("<h2>Paired tests</h2><table><tr><th class='l'>metric</th><th class='l'>pair</th><th>difference</th>"
                f"<th>p</th><th>adjusted p</th><th>significant</th></tr>{rows}</table>"
                f'<p class="caption">{e(self.comparison.describe())}</p>')

    def save(self, directory: str | Path) -> dict[str, Path]:
        """Write ``report.html``, ``results.json`` and ``means.csv`` into ``directory``."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        paths = {"report": d / "report.html", "json": d / "results.json", "csv": d / "means.csv"}
        self.to_html(paths["report"])
        self.to_json(paths["json"])
        self.to_csv(paths["csv"])
        return paths

    def __repr__(self) -> str:
        return (f"ExperimentResult({len(self.results)} recommenders, top-{self.k}, {self.mode}, "
                f"baseline={self.baseline!r})")


_STYLE = """body{font-family:system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}
main{max-width:1180px;margin:0 auto;padding:24px 28px 48px;background:#fff}
h2{border-bottom:2px solid #e3e6ec}table{border-collapse:collapse;font-size:.9rem}
th,td{padding:4px 10px;border-bottom:1px solid #e3e6ec;text-align:right;white-space:nowrap}
td.l,th.l{text-align:left}.caption{color:#4a5263;font-size:.85rem}ul.notes li{color:#8a5a00}
dl.settings{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}dl.settings dd{margin:0}
.scroll{overflow-x:auto}"""


def _standalone_page(title: str, body: str) -> str:
    e = _html.escape
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{e(title)}</title><style>{_STYLE}</style></head><body><main>"
            f"<h1>{e(title)}</h1>\n{body}\n</main></body></html>\n")


def _inject(page: str, sections: str) -> str:
    """Put the experiment's sections before the comparison's first section."""
    for marker in ("<h2>Means</h2>", "<h2>", "</main>", "</body>"):
        at = page.find(marker)
        if at >= 0:
            return page[:at] + sections + "\n<h2>Comparison of the per-user metrics</h2>\n<p class=\"lead\">Means " \
                "with bootstrap intervals and paired tests against the baseline (rankmeter.compare).</p>\n" + page[at:] \
                if marker == "<h2>Means</h2>" else page[:at] + sections + page[at:]
    return page + sections


def _dl(rows: Sequence[tuple[Any, Any]]) -> str:
    e = _html.escape
    return '<dl class="settings">' + "".join(f"<dt>{e(str(k))}</dt><dd>{e(str(v))}</dd>" for k, v in rows) + "</dl>"


def _counts(c: Any) -> str:
    if not isinstance(c, Mapping):
        return ""
    return f"{c.get('rows')} / {c.get('users')} / {c.get('items')}"


def _fmt(v: Any, digits: int) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f):
        return "nan"
    if f.is_integer() and abs(f) >= 1:
        return f"{int(f)}"
    return f"{f:.{digits}f}"


def _num(v: Any) -> Any:
    if isinstance(v, (float, np.floating)) and not math.isfinite(float(v)):
        return None
    return float(v) if isinstance(v, (float, np.floating)) else v


def _jsonable(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return _num(float(x))
    if isinstance(x, (str, int, bool)) or x is None:
        return x
    try:
        from fractions import Fraction

        if isinstance(x, Fraction):
            return float(x)
    except ImportError:  # pragma: no cover
        pass
    return str(x)


# --------------------------------------------------------------------------- inputs

def _load(interactions: Any, columns: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """(Interactions, item features, categories) from the input."""
    from .datasets import SyntheticData
    from .io.interactions import read_interactions

    feats = cats = None
    if isinstance(interactions, SyntheticData):
        feats, cats = interactions.item_features, interactions.categories
        interactions = interactions.interactions
    data = read_interactions(interactions, **{k: v for k, v in columns.items() if v is not None})
    return data, feats, cats


def read_item_features(path: str | Path) -> tuple[pa.Array, np.ndarray]:
    """Item features from a CSV/TSV/Parquet file: an item column and numeric columns."""
    from .io.tables import ITEM_NAMES, pick_columns, read_table_file

    p = Path(path)
    table = read_table_file(p, sep="\t" if p.suffix.lower() in (".tsv", ".tab") else None)
    item = pick_columns(table, {"item": ITEM_NAMES}, {}, str(path))["item"]
    num = [c for c in table.column_names if c != item and (pa.types.is_integer(table.schema.field(c).type)
                                                           or pa.types.is_floating(table.schema.field(c).type))]
    if not num:
        raise InputError(f"no numeric feature column besides {item!r}", source=str(path))
    mat = np.column_stack([np.asarray(table.column(c).to_numpy(zero_copy_only=False), dtype=np.float64) for c in num])
    return as_string_array(table.column(item)), mat


def read_categories(path: str | Path, sep: str = "|") -> dict[str, frozenset[str]]:
    """Item categories from a CSV/TSV file: an item column and a column of labels joined by ``sep``
    (``genres``, ``categories``, ``category``, ``labels``, ``tags``); one row per item, or several
    rows per item (one label each)."""
    from .io.tables import ITEM_NAMES, pick_columns, read_table_file

    p = Path(path)
    table = read_table_file(p, sep="\t" if p.suffix.lower() in (".tsv", ".tab") else None)
    cols = pick_columns(table, {"item": ITEM_NAMES, "labels": ("genres", "genre", "categories", "category",
                                                               "labels", "label", "tags", "tag")}, {}, str(path))
    out: dict[str, set[str]] = {}
    items = as_string_array(table.column(cols["item"])).to_pylist()
    labels = table.column(cols["labels"]).to_pylist()
    for it, lab in zip(items, labels):
        s = out.setdefault(it, set())
        if lab is not None and str(lab) != "":
            s.update(x for x in str(lab).split(sep) if x)
    return {k: frozenset(v) for k, v in out.items()}


def _resolve_features(value: Any) -> Any:
    if isinstance(value, (str, Path)):
        return read_item_features(value)
    return value


def _resolve_categories(value: Any) -> Any:
    if isinstance(value, (str, Path)):
        return read_categories(value)
    return value


# --------------------------------------------------------------------------- split

_SPLIT_NAMES = ("auto", "temporal", "temporal_global", "holdout", "leave_k_out", "leave_one_out")


def _do_split(data: Any, split: Any, params: Mapping[str, Any], filters: Mapping[str, Any],
              seed: int = 0) -> tuple[Any, Any, dict]:
    """(train table, test table, summary dict) in the input's column names."""
    from . import split as S

    if isinstance(split, S.Split):
        return split.table("train"), split.table("test"), split.summary.to_dict()
    if isinstance(split, tuple) and len(split) == 2:
        return _given(split, data)
    if callable(split) and not isinstance(split, str):
        out = split(data)
        if isinstance(out, S.Split):
            return out.table("train"), out.table("test"), out.summary.to_dict()
        if isinstance(out, tuple) and len(out) == 2:
            return _given(out, data)
        raise ParameterError(f"a split callable must return a rankmeter.split.Split or (train, test). "
                             f"Got {type(out).__name__} instead.")
    if not isinstance(split, str) or split.lower() not in _SPLIT_NAMES:
        raise ParameterError(f"The 'split' parameter of experiment must be one of {', '.join(_SPLIT_NAMES)}, a "
                             f"Split, a (train, test) pair or a callable. Got {split!r} instead.")
    name = split.lower()
    if name == "auto":
        name = "temporal" if data.timestamp is not None else "holdout"
    kw = dict(filters)
    kw.update(params)
    if name == "temporal":
        kw.setdefault("per_user", True)
        if "k" not in kw:
            kw.setdefault("test_fraction", 0.2)
        s = S.temporal(data, **kw)
    elif name == "temporal_global":
        kw.setdefault("per_user", False)
        s = S.temporal(data, **kw)
    elif name == "holdout":
        kw.setdefault("per_user", True)
        kw.setdefault("seed", seed)
        s = S.holdout(data, **kw)
    else:
        kw.setdefault("seed", seed)
        if name == "leave_one_out":
            kw.setdefault("k", 1)
        if data.timestamp is None:
            kw.setdefault("by", "random")
        s = S.leave_k_out(data, **kw)
    return s.table("train"), s.table("test"), s.summary.to_dict()


def _given(pair: tuple[Any, Any], data: Any) -> tuple[Any, Any, dict]:
    from .io.interactions import read_interactions

    cols = {"user": data.user, "item": data.item}
    tr = read_interactions(pair[0], **cols).table
    te = read_interactions(pair[1], **cols).table
    summary = {"method": "given", "params": {}, "train": {"rows": tr.num_rows}, "test": {"rows": te.num_rows}}
    return tr, te, summary


def _canonical(table: pa.Table, data: Any) -> pa.Table:
    cols: dict[str, Any] = {"user": as_string_array(table.column(data.user)),
                            "item": as_string_array(table.column(data.item))}
    if data.rating is not None and data.rating in table.column_names:
        cols["rating"] = pc.cast(table.column(data.rating), pa.float64())
    if data.timestamp is not None and data.timestamp in table.column_names:
        cols["timestamp"] = table.column(data.timestamp)
    return pa.table(cols)


# --------------------------------------------------------------------------- recommenders

def _named_recommenders(recommenders: Any) -> list[tuple[str, Any]]:
    from .recommenders import make_recommender

    items: list[tuple[str | None, Any, dict]] = []
    if isinstance(recommenders, Mapping):
        for name, spec in recommenders.items():
            if isinstance(spec, Mapping):
                spec = dict(spec)
                if "lists" in spec:
                    items.append((str(name), spec.pop("lists"), spec))
                elif "callable" in spec:
                    items.append((str(name), spec.pop("callable"), spec))
                else:
                    kind = spec.pop("type", name)
                    items.append((str(name), kind, spec))
            else:
                items.append((str(name), spec, {}))
    elif isinstance(recommenders, (str, Path)) or callable(recommenders) or hasattr(recommenders, "recommend"):
        items.append((None, recommenders, {}))
    else:
        items += [(None, r, {}) for r in recommenders]
    out: list[tuple[str, Any]] = []
    used: set[str] = set()
    for name, spec, params in items:
        rec = make_recommender(spec, params, name=name)
        nm = name or getattr(rec, "name", None) or type(rec).__name__.lower()
        base, n = nm, 2
        while nm in used:
            nm, n = f"{base}_{n}", n + 1
        used.add(nm)
        out.append((nm, rec))
    if not out:
        raise ParameterError("The 'recommenders' parameter of experiment is empty: give at least one recommender.")
    return out


def _is_reference(rec: Any) -> bool:
    return type(rec).__name__ in _REFERENCE_TYPES and type(rec).__module__.startswith("rankmeter.recommenders")


# --------------------------------------------------------------------------- the pipeline

def experiment(
    interactions: Any,
    *,
    split: Any = "temporal",
    split_params: Mapping[str, Any] | None = None,
    recommenders: Any = ("random", "popular", "itemknn"),
    metrics: Sequence[str] | None = None,
    k: int = 10,
    relevance: float | None = None,
    min_user_interactions: int = 1,
    min_item_interactions: int = 1,
    item_features: Any = None,
    categories: Any = None,
    catalog: str = "train",
    exclude_seen: bool = True,
    sampled: int | None = None,
    sample_seed: int = 0,
    baseline: str | None = "best",
    test: str | Sequence[str] = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 2000,
    seed: int = 0,
    user: str | None = None,
    item: str | None = None,
    rating: Any = None,
    timestamp: Any = None,
    progress: bool = False,
    console: "Console | None" = None,
) -> ExperimentResult:
    """Run the whole recommender evaluation loop (see the module docstring for the stages).

    ``relevance``: with a rating column, the test interactions rated ``>= relevance`` are
    relevant (the others are judged non-relevant); None (default): every test interaction
    is relevant (implicit feedback). ``catalog``: the recommendable items, ``"train"`` (the
    training items, default) or ``"all"`` (every item of the data). ``sampled``: N negatives
    per user for sampled evaluation (``sample_seed``). ``baseline``: ``"best"`` (the
    reference recommender with the best mean on the first per-user metric), a
    recommender name, or None (no comparison). ``test``, ``correction``, ``alpha``,
    ``n_resamples``, ``seed`` go to :func:`rankmeter.compare`; ``seed`` is also the seed of a random
    split (hold-out, leave-k-out without timestamps) unless ``split_params`` gives one. ``progress``: show a
    progress bar per stage on stderr.
    """
    from .beyond import context_from_train
    from .data import Qrels, Run
    from .evaluate import evaluate
    from .metrics.registry import parse_metrics
    from .recommenders import MatrixRecommender
    from .recommenders._base import check_k

    k = check_k(k, "experiment")
    if catalog not in ("train", "all"):
        raise ParameterError(f"The 'catalog' parameter of experiment must be 'train' or 'all'. Got {catalog!r} instead.")
    if sampled is not None and (isinstance(sampled, bool) or not isinstance(sampled, (int, np.integer)) or sampled < 1):
        raise ParameterError(f"The 'sampled' parameter of experiment must be an int >= 1 or None. Got {sampled!r} instead.")
    stages = _Stages(progress, console)
    notes: list[str] = []
    try:
        # ---------------------------------------------------------------- load
        with stages.stage("load"):
            data, feats0, cats0 = _load(interactions, {"user": user, "item": item, "rating": rating,
                                                       "timestamp": timestamp})
            if feats0 is not None:
                gen = getattr(interactions, "params", {})
                source_text = "generated: " + ", ".join(f"{a}={b}" for a, b in gen.items())
            feats = _resolve_features(item_features) if item_features is not None else feats0
            cats = _resolve_categories(categories) if categories is not None else cats0
            all_u = as_string_array(data.table.column(data.user))
            all_i = as_string_array(data.table.column(data.item))
            data_info = {"source": (source_text if feats0 is not None else None) or data.source
                         or f"<{data.kind} table>", "rows": len(data),
                         "users": len(pc.unique(all_u)), "items": len(pc.unique(all_i)),
                         "columns": {"user": data.user, "item": data.item, "rating": data.rating,
                                     "timestamp": data.timestamp}}
        if relevance is not None and data.rating is None:
            raise ParameterError("The 'relevance' parameter of experiment needs a rating column; the data has none "
                                 f"(columns: {', '.join(data.table.column_names)}).")

        # ---------------------------------------------------------------- split
        with stages.stage("split"):
            filters = {"min_user_interactions": min_user_interactions, "min_item_interactions": min_item_interactions}
            tr_raw, te_raw, split_info = _do_split(data, split, dict(split_params or {}), filters, seed)
            train = _canonical(tr_raw, data)
            test_t = _canonical(te_raw, data)
        if train.num_rows == 0 or test_t.num_rows == 0:
            raise InputError(f"the split left {train.num_rows} training and {test_t.num_rows} test interactions; "
                             "both must be non-empty", source=data_info["source"])

        # judgments: test interactions (graded by the relevance threshold when given)
        if relevance is not None:
            grades = np.asarray(pc.greater_equal(test_t.column("rating"), float(relevance)).to_numpy(
                zero_copy_only=False), dtype=np.float64)
        else:
            grades = np.ones(test_t.num_rows)
        qrels = Qrels.from_columns(test_t.column("user"), test_t.column("item"), grades, duplicates="max")
        positive_users = np.unique(qrels.row_queries()[qrels.grades > 0])
        users = qrels.query_ids.take(pa.array(positive_users, pa.int64()))
        if len(users) == 0:
            raise InputError("no test user has a relevant test interaction"
                             + (f" (rating >= {relevance})" if relevance is not None else ""), source="test")
        left_out = qrels.n_queries - len(users)
        if left_out:
            notes.append(f"{left_out} test users have no relevant test interaction and are not evaluated")

        tu_codes, tu_vocab = encode(train.column("user").combine_chunks())
        ti_codes, ti_vocab = encode(train.column("item").combine_chunks())
        train_keys = np.unique(tu_codes * max(len(ti_vocab), 1) + ti_codes)
        all_items = union_vocab(ti_vocab, test_t.column("item").combine_chunks())
        cat_ids = ti_vocab if catalog == "train" else all_items
        ctx = context_from_train(train, item_features=feats, categories=cats, test=test_t)
        ctx["catalog"] = cat_ids

        candidates = None
        mode = FULL_RANKING
        if sampled is not None:
            from .sampled import _sample

            with stages.stage("sample negatives"):
                ku = pa.concat_arrays([train.column("user").combine_chunks(), test_t.column("user").combine_chunks()])
                ki = pa.concat_arrays([train.column("item").combine_chunks(), test_t.column("item").combine_chunks()])
                pos = qrels.grades > 0
                qu = qrels.query_ids.take(pa.array(qrels.row_queries()[pos]))
                qi = qrels.item_ids.take(pa.array(qrels.items[pos]))
                candidates = _sample(qu, qi, ku, ki, cat_ids, int(sampled), int(sample_seed))
            mode = candidates.label
            if candidates.short_users:
                notes.append(f"{candidates.short_users} users had fewer than {sampled} items to sample negatives "
                             "from and got all of them")

        # ---------------------------------------------------------------- metrics
        if metrics is None:
            metric_list = default_metrics(k, features=feats is not None, categories=cats is not None,
                                          cold=catalog == "all" or sampled is not None)
        else:
            metric_list = [metrics] if isinstance(metrics, str) else list(metrics)
        parsed = parse_metrics(metric_list)
        texts = tuple(m.text for m in parsed)

        # ---------------------------------------------------------------- recommenders
        named = _named_recommenders(recommenders)
        results: dict[str, Any] = {}
        runs: dict[str, Any] = {}
        validation: dict[str, Validation] = {}
        reference = tuple(n for n, r in named if _is_reference(r))
        for name, rec in named:
            with stages.stage(f"fit {name}"):
                rec.fit(train)
            with stages.stage(f"recommend {name}", total=len(users)) as upd:
                if isinstance(rec, MatrixRecommender):
                    parts = []
                    step = 2000
                    for a in range(0, len(users), step):
                        parts.append(rec.recommend(users.slice(a, step), k, exclude_seen=exclude_seen,
                                                   candidates=candidates))
                        upd(min(a + step, len(users)), len(users))
                    table = pa.concat_tables(parts)
                else:
                    from .recommenders import as_recommendation_table

                    raw = rec.recommend(users.to_pylist(), k, exclude_seen=exclude_seen, candidates=candidates)
                    table = as_recommendation_table(raw, source=f"<recommender {name}>")
            with stages.stage(f"evaluate {name}"):
                clean, v = validate_recommendations(table, name=name, users=users, k=k, catalog=cat_ids,
                                                    train_users=tu_vocab, train_items=ti_vocab,
                                                    train_keys=train_keys, candidates=candidates)
                validation[name] = v
                run = Run.from_columns(clean.column("user"), clean.column("item"), clean.column("score"))
                runs[name] = run
                results[name] = evaluate(qrels, run, parsed, context=ctx)

        # ---------------------------------------------------------------- compare
        query_metrics = [m.text for m in parsed if m.spec.level == "query"]
        base = _pick_baseline(baseline, results, reference, parsed)
        comparison = None
        if base is not None and len(results) > 1 and query_metrics:
            from .compare import compare

            with stages.stage("compare", total=1) as upd:
                comparison = compare(None, results, query_metrics, baseline=base, test=test, correction=correction,
                                     alpha=alpha, n_resamples=n_resamples, seed=seed,
                                     progress=(lambda task, done, total: upd(done, total)) if progress else None)
        elif base is not None and len(results) == 1:
            notes.append("a single recommender: nothing to compare")
    finally:
        stages.close()

    settings = {"split": split if isinstance(split, str) else type(split).__name__,
                "split_params": dict(split_params or {}), "k": k, "relevance": relevance,
                "min_user_interactions": min_user_interactions, "min_item_interactions": min_item_interactions,
                "catalog": catalog, "exclude_seen": exclude_seen, "sampled": sampled,
                "sample_seed": sample_seed if sampled is not None else None,
                "recommenders": {n: repr(r) for n, r in named}, "test": test, "correction": correction,
                "alpha": alpha, "n_resamples": n_resamples, "seed": seed}
    return ExperimentResult(results=results, comparison=comparison, validation=validation, timings=stages.timings,
                            metrics=texts, k=k, baseline=base, mode=mode, data=data_info, split=split_info,
                            notes=tuple(notes), runs=runs, reference=reference, settings=settings)


def _pick_baseline(baseline: str | None, results: Mapping[str, Any], reference: Sequence[str],
                   parsed: Sequence[Any]) -> str | None:
    if baseline is None:
        return None
    if baseline != "best":
        if baseline not in results:
            raise ParameterError(f"The 'baseline' parameter of experiment must be 'best', None or one of "
                                 f"{', '.join(results)}. Got {baseline!r} instead.")
        return baseline
    first = next((m for m in parsed if m.spec.level == "query"), None)
    pool = list(reference) or list(results)
    if first is None:
        return pool[0]
    sign = 1.0 if first.spec.higher_is_better else -1.0
    return max(pool, key=lambda n: (sign * results[n].mean[first.text], -pool.index(n)))


# --------------------------------------------------------------------------- configuration files

_CONFIG_KEYS: dict[str, tuple[str, ...]] = {
    "data": ("interactions", "generate", "user", "item", "rating", "timestamp", "relevance",
             "min_user_interactions", "min_item_interactions", "item_features", "categories"),
    "split": (),  # "method" plus any parameter of the rankmeter.split function
    "recommenders": (),
    "evaluation": ("k", "metrics", "sampled", "sample_seed", "baseline", "test", "correction", "alpha",
                   "n_resamples", "seed", "exclude_seen", "catalog"),
    "output": ("dir",),
}


def read_config(path: str | Path) -> dict[str, Any]:
    """Read an experiment configuration (TOML) into :func:`config_to_arguments`'s input.

    See ``docs/recsys.md`` for the format. Relative paths are relative to the file.
    """
    import tomllib

    p = Path(path)
    if not p.exists():
        raise InputError("no such file", source=str(path))
    try:
        cfg = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", source=str(path)) from None
    cfg["_base"] = str(p.resolve().parent)
    cfg["_source"] = str(path)
    return cfg


def config_to_arguments(cfg: Mapping[str, Any]) -> tuple[Any, dict[str, Any], str | None]:
    """``(interactions, keyword arguments of experiment(), output directory)`` from a config dict."""
    base = Path(cfg.get("_base", "."))
    source = str(cfg.get("_source", "config"))

    def path(v: Any) -> Any:
        if isinstance(v, str) and v and not Path(v).is_absolute():
            return str(base / v)
        return v

    for section, value in cfg.items():
        if section.startswith("_"):
            continue
        if section not in _CONFIG_KEYS:
            raise InputError(f"unknown section [{section}] (sections: {', '.join(_CONFIG_KEYS)})", source=source)
        if not isinstance(value, Mapping):
            raise InputError(f"[{section}] must be a table", source=source)
        allowed = _CONFIG_KEYS[section]
        if allowed:
            for key in value:
                if key not in allowed:
                    raise InputError(f"unknown key {key!r} in [{section}] (keys: {', '.join(allowed)})", source=source)
    data = dict(cfg.get("data", {}))
    kwargs: dict[str, Any] = {}
    if "generate" in data:
        from .datasets import synthetic

        gen = dict(data.pop("generate") or {})
        try:
            interactions: Any = synthetic(n_users=int(gen.pop("users", 1000)), n_items=int(gen.pop("items", 2000)),
                                          seed=int(gen.pop("seed", 0)), **gen)
        except TypeError as exc:
            raise InputError(f"bad [data] generate parameters: {exc}", source=source) from None
        data.pop("interactions", None)
    elif "interactions" in data:
        interactions = path(data.pop("interactions"))
    else:
        interactions = None
    for key in ("user", "item", "rating", "timestamp", "relevance", "min_user_interactions", "min_item_interactions"):
        if key in data:
            kwargs[key] = data.pop(key)
    if "item_features" in data:
        kwargs["item_features"] = path(data.pop("item_features"))
    if "categories" in data:
        kwargs["categories"] = path(data.pop("categories"))
    split = dict(cfg.get("split", {}))
    if split:
        kwargs["split"] = split.pop("method", "temporal")
        kwargs["split_params"] = split
    recs = cfg.get("recommenders")
    if recs:
        out: dict[str, Any] = {}
        for name, spec in recs.items():
            if isinstance(spec, Mapping):
                spec = dict(spec)
                if "lists" in spec:
                    spec["lists"] = path(spec["lists"])
                if "callable" in spec and isinstance(spec["callable"], str):
                    mod, _, fn = spec["callable"].rpartition(":")
                    if mod.endswith(".py"):
                        spec["callable"] = f"{path(mod)}:{fn}"
                out[str(name)] = spec
            elif isinstance(spec, str):
                out[str(name)] = path(spec) if Path(spec).suffix else spec
            else:
                raise InputError(f"[recommenders] {name} must be a table or a string", source=source)
        kwargs["recommenders"] = out
    kwargs.update(dict(cfg.get("evaluation", {})))
    out_dir = cfg.get("output", {}).get("dir")
    return interactions, kwargs, (path(out_dir) if out_dir else None)
