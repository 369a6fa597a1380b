"""rankmeter.torch.evaluate and Evaluator: the device selects, the evaluation core computes.

The device does what only it can do cheaply: mask the excluded cells and select each
user's exact top k under the tie rule (:mod:`._select`). The top-k lists and the
judgments then become a :class:`~rankmeter.data.Run` and a :class:`~rankmeter.data.Qrels`
and go through :func:`rankmeter.evaluate` itself, so every number comes from the
registry's kernels: one definition, the same coverage counts and notes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np
import pyarrow as pa

from .. import _compute as C
from .._errors import InputError, ParameterError
from ..data import Qrels, Run
from ..data.ids import ints
from ..metrics.registry import Metric, parse_metrics
from ..result import Result
from ._inputs import as_exclusion, as_ids, as_judgments, check_scores, load_torch
from ._select import SELECTIONS, item_rank, select_topk

if TYPE_CHECKING:
    import torch

__all__ = ["Evaluator", "SUPPORTED", "evaluate", "ranked_run", "tie_notes"]

# Metrics whose value depends only on the top-k lists, the judged grades of the listed items and the
# relevant judgments (grade > 0), never on judged non-relevant items below the top k: a dense `relevant`
# judges every cell, and only those cells are handed to the core. The property test checks each of them.
SUPPORTED = ("ndcg", "dcg", "r", "p", "ap", "rr", "success", "hits", "rbp", "err", "auc", "judged",
             "num_ret", "num_rel", "num_rel_ret", "f", "catalog_coverage", "gini", "entropy", "arp")


def _check_metrics(metrics: Any, func: str) -> list[Metric]:
    parsed = parse_metrics(metrics)
    for m in parsed:
        if m.spec.name not in SUPPORTED:
            raise ParameterError(
                f"metric {m.text!r} is not available in {func}: its value may read judgments below the top k "
                f"(or item facts a score matrix does not give). Available: {', '.join(SUPPORTED)}. Save the run "
                "(rankmeter.torch.topk, Run.to_arrow) and use rankmeter.evaluate for the others.")
    return parsed


def _check_ties(ties: Any, func: str) -> None:
    from ..metrics.ties import TIE_MODES

    if not isinstance(ties, str) or ties not in TIE_MODES:
        raise ParameterError(f"The 'ties' parameter of {func} must be one of {', '.join(map(repr, TIE_MODES))}. "
                             f"Got {ties!r} instead.")


def _check_selection(selection: Any, func: str) -> None:
    if selection not in SELECTIONS:
        raise ParameterError(f"The 'selection' parameter of {func} must be 'auto', 'key' or 'margin'. "
                             f"Got {selection!r} instead.")


def _depth(metrics: Sequence[Metric], n_items: int) -> int:
    """How many items per user the metrics read: the largest cutoff, or all items when one has none."""
    ks = [m.k for m in metrics]
    if not ks or None in ks:
        return n_items
    return min(max(k for k in ks if k is not None), n_items)


@dataclass
class _Piece:
    """One batch of users after selection, on the host."""

    users: pa.Array | None  # their ids (None: named by their global row, decided at compute time)
    n: int
    index: np.ndarray  # (n, kk) selected columns, best first
    score: np.ndarray  # (n, kk) their scores (float32 or float64)
    valid: np.ndarray  # (n,) how many of each row are real
    jrows: np.ndarray
    jcols: np.ndarray
    jgrades: np.ndarray
    # ties other than "id": the rest of each group of tied scores that the cutoff k cuts through
    xrows: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    xcols: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    xscores: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))


def _cut_groups(scores: Any, sel: Any, excl: Any, k: int, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (row, column) cells tied with the k-th score, not hidden and not in the top k, of the rows where the
    cutoff k falls inside a group of tied scores (the tie rules other than "id" read the whole group)."""
    torch = load_torch()
    n, m = scores.shape
    kk = sel.index.shape[1]
    if k >= kk:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    cut = (sel.valid > k) & (sel.score[:, k - 1] == sel.score[:, k])
    t = torch.where(cut, sel.score[:, k - 1], torch.full_like(sel.score[:, k - 1], float("nan")))
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    step = max(1, (1 << 24) // max(m, 1))
    for a in range(0, n, step):
        b = min(n, a + step)
        if not bool(cut[a:b].any()):
            continue
        block = scores[a:b].to(t.dtype)
        eq = block == t[a:b, None]
        if excl.any:
            excl.fill_(eq, a, b, False)
        at = torch.nonzero(eq).cpu().numpy()
        rows.append(at[:, 0].astype(np.int64) + a)
        cols.append(at[:, 1].astype(np.int64))
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    r, c = np.concatenate(rows), np.concatenate(cols)
    top = (np.repeat(np.arange(n, dtype=np.int64), k) * m + index[:, :k].reshape(-1))
    keep = ~np.isin(r * m + c, top)
    return r[keep], c[keep]


def _select_piece(scores: Any, relevant: Any, exclude: Any, user_ids: Any, k: int, rank: torch.Tensor,
                  selection: str, func: str, groups: bool = False) -> _Piece:
    torch = load_torch()
    scores = check_scores(scores, func)
    n, m = scores.shape
    users = as_ids(user_ids, n, "user_ids") if user_ids is not None else None
    excl = as_exclusion(exclude, n, m, scores.device)
    judg = as_judgments(relevant, scores, excl)
    with torch.no_grad():
        sel = select_topk(scores.detach(), k + 1, rank, excl, method=selection, check=k)
    if sel.bad:
        if sel.nan:
            isnan = torch.isnan(scores.detach())
            excl.fill_(isnan, 0, n, False)
            total = int(isnan.sum())
            raise InputError(f"scores hold {total} NaN values in cells that are not excluded: NaN cannot be ranked "
                             "(rankmeter refuses it rather than guess a place); mask those cells with exclude= or "
                             "replace them", source="scores")
        raise InputError(f"scores hold {sel.bad} infinite values among the selected top {k}: rankmeter ranks finite "
                         "scores only; hide such cells with exclude= rather than a score of -inf", source="scores")
    index = sel.index.cpu().numpy()
    valid = sel.valid.cpu().numpy()
    score = sel.score.cpu().numpy()
    xr, xc = _cut_groups(scores.detach(), sel, excl, k, index) if groups and k else \
        (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    rows, cols, grades = judg.rows, judg.cols, judg.grades
    if judg.dense is not None and k:
        # every cell of a dense `relevant` is judged: the listed cells of grade 0 are judged not relevant
        g = torch.gather(judg.dense, 1, sel.index).cpu().numpy()
        taken = np.arange(index.shape[1])[None, :] < np.minimum(valid, k)[:, None]
        zero = taken & (g == 0)
        zr, zc = np.nonzero(zero)
        zr, zc = zr.astype(np.int64), index[zr, zc]
        if len(xr):  # and the rest of the groups the cutoff cuts through
            xg = judg.dense[torch.from_numpy(xr).to(scores.device), torch.from_numpy(xc).to(scores.device)]
            x0 = xg.cpu().numpy() == 0
            zr, zc = np.concatenate((zr, xr[x0])), np.concatenate((zc, xc[x0]))
        rows = np.concatenate((rows, zr))
        cols = np.concatenate((cols, zc))
        grades = np.concatenate((grades, np.zeros(len(zr))))
    return _Piece(users=users, n=n, index=index, score=score, valid=valid, jrows=rows, jcols=cols, jgrades=grades,
                  xrows=xr, xcols=xc, xscores=score[xr, k - 1] if len(xr) else np.zeros(0))


def tie_notes(score: np.ndarray, valid: np.ndarray, cutoffs: Iterable[int]) -> list[str]:
    """Say, for each cutoff k, for how many users the k-th and (k+1)-th items have equal scores.

    ``score`` holds each user's selected scores in rank order (at least k + 1 columns for a note at k).

    >>> tie_notes(np.array([[3.0, 2.0, 2.0], [3.0, 2.0, 1.0]]), np.array([3, 3]), [2])[0][:63]
    'cutoff 2: for 1 of 2 users the 2nd and 3rd items have equal sco'
    """
    out = []
    n = len(valid)
    for k in sorted(set(cutoffs)):
        if k < 1 or k >= score.shape[1]:
            continue
        inside = int(((valid > k) & (score[:, k - 1] == score[:, k])).sum())
        if inside:
            out.append(f"cutoff {k}: for {inside} of {n} users the {_ordinal(k)} and {_ordinal(k + 1)} items have "
                       f"equal scores, so which items are in the top {k} depends on the order of tied scores "
                       "(ties=id: item id descending by bytes; ties='bounds' shows how far it moves each metric)")
    return out


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _evaluate_pieces(pieces: Sequence[_Piece], setup: _Setup) -> Result:
    """Top-k lists and judgments as a Run and Qrels, evaluated by rankmeter.evaluate."""
    from ..engines.memory import evaluate as core_evaluate

    items, metrics, k, groups, ties = setup.vocabulary(), setup.metrics, setup.k, setup.groups, setup.ties
    row = 0
    user_parts: list[pa.Array] = []
    for p in pieces:
        if p.users is None:
            user_parts.append(C.cast(pa.array(np.arange(row, row + p.n, dtype=np.int64)), pa.string()))
        else:
            user_parts.append(p.users)
        row += p.n
    users = pa.concat_arrays(user_parts) if user_parts else pa.array([], type=pa.string())
    if len(C.unique(users)) != len(users):
        seen: set[str] = set()
        # set.add: finds the first repeat (the ignore below)
        dup = next(u for u in users.to_pylist() if u in seen or seen.add(u))  # type: ignore[func-returns-value]
        raise InputError(f"user id {dup!r} is given for two rows (user ids must be unique over every batch)",
                         source="user_ids")
    offs = np.cumsum([0] + [p.n for p in pieces])
    kk = max([p.index.shape[1] for p in pieces], default=0)
    index = np.concatenate([_pad(p.index, kk, 0) for p in pieces]) if pieces else np.zeros((0, 0), np.int64)
    score = np.concatenate([_pad(p.score, kk, np.nan) for p in pieces]) if pieces else np.zeros((0, 0))
    valid = np.concatenate([p.valid for p in pieces]) if pieces else np.zeros(0, np.int64)
    listed = np.minimum(valid, k)
    take = np.arange(kk)[None, :] < listed[:, None]
    urow, ucol = np.nonzero(take)
    qrow, qcol, qscore = urow, index[urow, ucol], score[urow, ucol].astype(np.float64)
    if not groups:
        run = ranked_run(users, items, qrow, qcol, qscore)
    else:
        # the rest of the groups of tied scores the cutoff cuts through (the tie rule reads whole groups),
        # put in rank order by the core
        qrow = np.concatenate([qrow] + [p.xrows + offs[i] for i, p in enumerate(pieces)])
        qcol = np.concatenate([qcol] + [p.xcols for p in pieces])
        qscore = np.concatenate([qscore] + [p.xscores.astype(np.float64) for p in pieces])
        run = Run.from_columns(C.take(users, ints(qrow)), C.take(items, ints(qcol)), qscore)
    jrows = np.concatenate([p.jrows + offs[i] for i, p in enumerate(pieces)]) if pieces else np.zeros(0, np.int64)
    jcols = np.concatenate([p.jcols for p in pieces]) if pieces else np.zeros(0, np.int64)
    jgrades = np.concatenate([p.jgrades for p in pieces]) if pieces else np.zeros(0)
    qrels = Qrels.from_columns(C.take(users, ints(jrows)), C.take(items, ints(jcols)), jgrades)
    result = core_evaluate(qrels, run, metrics, context=setup.context, ties=ties, queries=setup.queries)
    # (under the other rules the tie rule decides, and says so in its own notes)
    notes = tie_notes(score, valid, [m.k for m in metrics if m.k is not None]) if ties == "id" else []
    return dataclasses.replace(result, notes=list(result.notes) + notes) if notes else result


def ranked_run(users: pa.Array, items: pa.Array, rows: np.ndarray, cols: np.ndarray, scores: np.ndarray) -> Run:
    """A :class:`~rankmeter.data.Run` of lists already in rank order, row by row (``rows`` ascending; within a
    row, score descending and ties by item id descending, as the device selected them: tests/torch checks the
    order against rankmeter's). Built as it is, without sorting again: the ids are taken once, in that order.

    >>> r = ranked_run(pa.array(["u0", "u1"]), pa.array(["a", "b"]), np.array([0, 0, 1]), np.array([1, 0, 0]),
    ...                np.array([2.0, 2.0, 1.0]))
    >>> r.to_lists()
    {'u0': ['b', 'a'], 'u1': ['a']}
    """
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]]) if len(rows) else np.zeros(0, dtype=np.int64)
    offsets = np.append(starts, len(rows)).astype(np.int64)
    return Run(query_ids=C.take(users, ints(rows[starts])), offsets=offsets, item_input=C.take(items, ints(cols)),
               row_order=None, scores=np.ascontiguousarray(scores, dtype=np.float64), order="score")


def _pad(a: np.ndarray, width: int, fill: Any) -> np.ndarray:
    if a.shape[1] == width:
        return a
    out = np.full((a.shape[0], width), fill, dtype=a.dtype)
    out[:, :a.shape[1]] = a
    return out


def _context(context: Mapping[str, Any] | None, popularity: Any, items: pa.Array, func: str) -> dict[str, Any] | None:
    if context is not None and not isinstance(context, Mapping):
        raise ParameterError(f"The 'context' parameter of {func} must be a mapping (a dict of name -> value) or "
                             f"None. Got {type(context).__name__} instead.")
    if popularity is None:
        return dict(context) if context is not None else None
    torch = load_torch()
    pop = popularity.detach().to(torch.float64).cpu().numpy() if isinstance(popularity, torch.Tensor) \
        else np.asarray(popularity, dtype=np.float64)
    if pop.shape != (len(items),):
        raise InputError(f"popularity must give one number per item: {len(items)} items, shape {pop.shape}",
                         source="popularity")
    out = dict(context or {})
    out["popularity"] = (items, pop)
    return out


class _Setup:
    """What evaluate and Evaluator share: metrics, item ids, tie ranks, context, checked once."""

    def __init__(self, metrics: Any, item_ids: Any, context: Mapping[str, Any] | None, popularity: Any,
                 ties: Any, selection: Any, func: str, queries: Any = "judged") -> None:
        from ..evaluation import check_queries

        self.func = func
        self.metrics = _check_metrics(metrics, func)
        _check_ties(ties, func)
        check_queries(queries)
        self.queries = queries
        _check_selection(selection, func)
        self.selection = str(selection)
        self.ties = str(ties)
        # whether some metric reads whole groups of tied scores: ties= other than "id", or a metric that carries
        # its own tie rule (a tool's convention, e.g. sklearn:ndcg@10 averages tied gains)
        self.groups = self.ties != "id" or any(getattr(m, "ties", None) not in (None, "id") for m in self.metrics)
        self.item_ids = item_ids
        self.context_in = context
        self.popularity = popularity
        self.n_items: int | None = None
        self.items: pa.Array | None = None
        self.rank: dict[Any, Any] = {}
        self.context: dict[str, Any] | None = None
        self.k = 0

    def _check_context(self) -> None:
        """Metrics that need context not given fail now, on a one-row run, not after the selection (or at the
        end of an epoch of :meth:`Evaluator.update` calls)."""
        from ..engines.memory import evaluate as core_evaluate

        if self.items is None or not len(self.items):
            return
        first = str(self.items[0].as_py())
        try:
            core_evaluate({"0": {first: 1}}, {"0": {first: 1.0}}, self.metrics, context=self.context, ties=self.ties,
                          queries=self.queries)
        except ParameterError:
            raise
        except Exception:  # noqa: BLE001 (about this one row only: the real lists decide)
            pass

    def vocabulary(self) -> pa.Array:
        if self.items is None:
            raise ParameterError(f"{self.func}: no scores were given yet")
        return self.items

    def for_scores(self, scores: Any) -> tuple[int, Any]:
        """Fix the number of items on the first scores seen: the depth k, and the item ranks on the scores'
        device."""
        torch = load_torch()
        scores = check_scores(scores, self.func)
        m = int(scores.shape[1])
        if self.n_items is None:
            self.items = as_ids(self.item_ids, m, "item_ids") if self.item_ids is not None else \
                C.cast(pa.array(np.arange(m, dtype=np.int64)), pa.string())
            self.n_items = m
            self.k = _depth(self.metrics, m)
            self.context = _context(self.context_in, self.popularity, self.items, self.func)
            self.rank_np = item_rank(self.items if self.item_ids is not None else None, m)
            self._check_context()
        elif m != self.n_items:
            raise InputError(f"scores have {m} columns, earlier batches had {self.n_items}: every batch scores the "
                             "same items", source="scores")
        dev = scores.device
        if dev not in self.rank:
            self.rank[dev] = torch.from_numpy(self.rank_np).to(dev)
        return self.k, self.rank[dev]


def evaluate(
    scores: torch.Tensor,
    relevant: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    exclude: Any = None,
    item_ids: Sequence[str] | None = None,
    user_ids: Sequence[str] | None = None,
    ties: str = "id",
    context: Mapping[str, Any] | None = None,
    popularity: Any = None,
    selection: str = "auto",
    queries: str | Sequence[str] = "judged",
) -> Result:
    r"""Evaluate a users x items score tensor, on its device, as :func:`rankmeter.evaluate` would.

    The device masks ``exclude`` and selects each user's top k (k: the metrics' largest
    cutoff, every item when a metric has none) with rankmeter's tie rule: score
    descending, equal scores by item id descending, comparing the ids' bytes. Without
    ``item_ids`` column j is named ``str(j)``, so on equal scores ``"9"`` ranks before
    ``"10"``; without ``user_ids`` row i is named ``str(i)``. The lists and judgments are
    then evaluated by :func:`rankmeter.evaluate`: the result (per-user values, means,
    coverage, notes) is the one it gives on the same run and judgments, with a note
    for each cutoff that falls inside a tie for some users. ``ties``: the tie rules of
    :func:`rankmeter.evaluate`; for those other than ``"id"`` each group of tied scores
    that the cutoff cuts through is handed over whole (they read whole groups).

    ``relevant``: a dense tensor of grades (every cell judged, 0 = not relevant), a
    sparse COO/CSR tensor (its stored cells are the judgments), ``(rows, columns)`` or
    ``(rows, columns, grades)``, or one entry per user (relevant columns, or a dict
    column -> grade). ``exclude``: a boolean mask, a sparse COO/CSR tensor, a ``(rows,
    columns)`` pair or one sequence of columns per user; excluded items are never
    ranked and never judged. ``popularity``: one number per item, as
    ``context["popularity"]`` (arp, novelty). Scores must be finite where not
    excluded: NaN is refused with its count; an infinite score in a top k is refused.
    ``selection``: ``"margin"`` (the default, ``"auto"``: ``topk`` of a window with an
    exact resolution at the boundary, any float) or ``"key"`` (a packed 64-bit key,
    scores of at most 32 bits). ``queries``: which users count, as in
    :func:`rankmeter.evaluate` (``"judged"``: those with a relevant item; ``"qrels"``:
    every judged user, as torchmetrics keeps users without one). Formula of each metric: its registry entry
    (``rankmeter metrics``); reference: trec_eval's tie rule (``form_res_rels.c``).

    >>> import pytest; torch = pytest.importorskip("torch")  # (skipped where torch is absent)
    >>> import rankmeter.torch as rmt
    >>> scores = torch.tensor([[0.9, 0.5, 0.5, 0.1], [0.2, 0.8, 0.8, 0.4]])
    >>> relevant = torch.tensor([[1, 0, 1, 0], [0, 1, 0, 2]])
    >>> r = rmt.evaluate(scores, relevant, ["ndcg@2", "P@2"], exclude=[[], [3]])
    >>> {m: round(v, 4) for m, v in r.mean.items()}
    {'ndcg@2': 0.8155, 'P@2': 0.75}
    >>> print(r.notes[-1][:59])
    cutoff 2: for 1 of 2 users the 2nd and 3rd items have equal
    """
    func = "rankmeter.torch.evaluate"
    setup = _Setup(metrics, item_ids, context, popularity, ties, selection, func, queries)
    k, rank = setup.for_scores(scores)
    piece = _select_piece(scores, relevant, exclude, user_ids, k, rank, setup.selection, func, setup.groups)
    return _evaluate_pieces([piece], setup)


class Evaluator:
    """Evaluation in a validation loop: :meth:`update` per batch of users, :meth:`compute` at the end.

    ``compute()`` gives the :class:`~rankmeter.result.Result` of one :func:`evaluate` call on
    all batches' rows stacked in order (and, with ``torch.distributed`` initialised, on all
    processes' rows, stacked in rank order). Only each user's top k and judgments are
    kept, on the host. Users without ``user_ids`` are named by their row in that stack.

    >>> import pytest; torch = pytest.importorskip("torch")  # (skipped where torch is absent)
    >>> import rankmeter.torch as rmt
    >>> ev = rmt.Evaluator(["recall@2", "ndcg@2"])
    >>> ev.update(torch.tensor([[0.9, 0.1, 0.5]]), torch.tensor([[0, 1, 1]]))
    >>> ev.update(torch.tensor([[0.2, 0.3, 0.1]]), torch.tensor([[1, 0, 0]]))
    >>> r = ev.compute()
    >>> r.queries, r.values["recall@2"].tolist()
    (['0', '1'], [0.5, 1.0])
    """

    def __init__(self, metrics: str | Metric | Iterable[str | Metric], *, item_ids: Sequence[str] | None = None,
                 ties: str = "id", context: Mapping[str, Any] | None = None, popularity: Any = None,
                 selection: str = "auto", queries: str | Sequence[str] = "judged") -> None:
        self._setup = _Setup(metrics, item_ids, context, popularity, ties, selection, "rankmeter.torch.Evaluator",
                             queries)
        self._pieces: list[_Piece] = []

    def update(self, scores: torch.Tensor, relevant: Any, *, exclude: Any = None,
               user_ids: Sequence[str] | None = None) -> None:
        """Select the top k of a batch of users (rows) on its device and keep it with its judgments."""
        k, rank = self._setup.for_scores(scores)
        named = [p.users is not None for p in self._pieces]
        if named and (user_ids is not None) != named[0]:
            raise ParameterError("rankmeter.torch.Evaluator.update: give user_ids for every batch or for none "
                                 "(users without ids are named by their row over all batches)")
        self._pieces.append(_select_piece(scores, relevant, exclude, user_ids, k, rank, self._setup.selection,
                                          "rankmeter.torch.Evaluator.update", self._setup.groups))

    def reset(self) -> None:
        """Forget every batch (the metrics and item ids stay)."""
        self._pieces = []

    def compute(self) -> Result:
        """The result over every batch so far (over every process when torch.distributed is initialised)."""
        setup = self._setup
        pieces = self._pieces
        dist = _distributed()
        if dist is not None:
            gathered: list[Any] = [None] * dist.get_world_size()
            dist.all_gather_object(gathered, (pieces, setup.n_items))
            sizes = {m for _p, m in gathered if m is not None}
            if len(sizes) > 1:
                raise InputError(f"the processes scored different numbers of items: {sorted(sizes)}",
                                 source="scores")
            if setup.n_items is None and sizes:
                raise InputError("this process has no batch while others have: call update() on every process "
                                 "(an empty batch of shape (0, n_items) is fine)", source="scores")
            pieces = [p for ps, _m in gathered for p in ps]
        if setup.items is None:
            raise ParameterError("rankmeter.torch.Evaluator.compute: no batch was given (call update() first)")
        return _evaluate_pieces(pieces, setup)


def _distributed() -> Any:
    torch = load_torch()
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
        return dist
    return None

