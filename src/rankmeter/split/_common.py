"""Machinery shared by the splitters: validation, id coding, filters, the result types.

Every splitter works in three steps:

1. :func:`prepare` reads the input (:func:`rankmeter.io.interactions.read_interactions`),
   codes users and items as integers and applies the minimum-interaction filters;
2. the method marks the test rows (a boolean mask over the input rows), vectorised;
3. :func:`finish` applies the small-user policy, finds cold-start users and items,
   optionally drops them from test, counts everything and builds a :class:`Split`.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any, Literal, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError, ParameterError
from ..io.interactions import Interactions, read_interactions, to_input_kind

__all__ = [
    "Counts",
    "SmallUsers",
    "Cold",
    "SplitSummary",
    "FoldsSummary",
    "Split",
    "Folds",
    "SmallUsersPolicy",
    "Seed",
]

SmallUsersPolicy = Literal["train", "drop", "error"]
Seed = int | np.random.Generator

#: Fractions are read as the nearest fraction with a denominator up to this.
FRACTION_DENOMINATOR = 10**6


# --------------------------------------------------------------------------- validation


def check_fraction(value: Any, name: str, func: str) -> Fraction:
    """A fraction in the open interval (0, 1), as an exact :class:`Fraction`.

    The float is read as the nearest fraction with denominator <= 10**6, so 0.15 is
    15/100 and 1/3 is 1/3, not their binary approximations.
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if ok:
        f = float(value)
        ok = f == f and 0.0 < f < 1.0
    if not ok:
        raise ParameterError(
            f"The {name!r} parameter of {func} must be a float in the open interval (0, 1). "
            f"Got {value!r} instead."
        )
    exact = Fraction(repr(float(value))).limit_denominator(FRACTION_DENOMINATOR)
    if not (0 < exact < 1):  # pragma: no cover - 1e-7 rounds to 0 with this denominator
        raise ParameterError(
            f"The {name!r} parameter of {func} must be at least 1e-6 and at most 1 - 1e-6. "
            f"Got {value!r} instead."
        )
    return exact


def check_int(value: Any, name: str, func: str, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ParameterError(
            f"The {name!r} parameter of {func} must be an int >= {minimum}. Got {value!r} instead."
        )
    return int(value)


def check_choice(value: Any, name: str, func: str, choices: Sequence[str]) -> str:
    if value not in choices:
        shown = ", ".join(repr(c) for c in choices)
        raise ParameterError(f"The {name!r} parameter of {func} must be one of {shown}. Got {value!r} instead.")
    return str(value)


def make_rng(seed: Any, func: str) -> tuple[np.random.Generator, int | str]:
    """A Generator from ``seed`` (an int >= 0 or a Generator) and how to report it."""
    if isinstance(seed, np.random.Generator):
        return seed, "Generator"
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ParameterError(
            f"The 'seed' parameter of {func} must be an int >= 0 or a numpy.random.Generator. "
            f"Got {seed!r} instead."
        )
    return np.random.default_rng(int(seed)), int(seed)


def round_count(n: np.ndarray | int, fraction: Fraction) -> np.ndarray:
    """The rounding rule: ``fraction * n`` to the nearest integer, halves rounded up,
    then clamped to ``[1, n - 1]`` (for n >= 2; 0 for n < 2).

    Computed exactly in integers: ``floor((2 p n + q) / (2 q))`` for ``fraction = p/q``.

    >>> round_count(np.array([1, 2, 3, 5, 10, 11]), Fraction(1, 5)).tolist()
    [0, 1, 1, 1, 2, 2]
    >>> round_count(np.array([10, 4]), Fraction(1, 4)).tolist()
    [3, 1]
    """
    n = np.asarray(n, dtype=np.int64)
    p, q = fraction.numerator, fraction.denominator
    m = (2 * p * n + q) // (2 * q)
    return np.where(n >= 2, np.clip(m, 1, np.maximum(n - 1, 1)), 0)


# --------------------------------------------------------------------------- coding


def encode_column(col: pa.ChunkedArray) -> tuple[np.ndarray, int]:
    """Integer codes (int32 where possible) of an id column and the number of codes.

    Integers with a small range are coded by offset from the minimum (no hashing);
    everything else by dictionary encoding (first-appearance order). Codes may be
    unused (count 0); only equality of codes matters.
    """
    n = len(col)
    t = col.type
    if n == 0:
        return np.zeros(0, dtype=np.int32), 0
    if pa.types.is_integer(t):
        lo, hi = (v.as_py() for v in pc.min_max(col).values())
        span = hi - lo
        if span < max(4 * n, 1 << 20) and span < 2**31 - 1:
            out = np.empty(n, dtype=np.int32)
            pos = 0
            for chunk in col.chunks:
                values = chunk.to_numpy(zero_copy_only=False)
                np.subtract(values, lo, out=out[pos : pos + len(values)], casting="unsafe")
                pos += len(values)
            return out, span + 1
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
    encoded = pc.dictionary_encode(col)
    if isinstance(encoded, pa.Array):  # pragma: no cover - chunked in, chunked out
        encoded = pa.chunked_array([encoded])
    n_codes = len(encoded.chunk(0).dictionary) if encoded.num_chunks else 0
    if encoded.num_chunks == 1:
        codes = encoded.chunk(0).indices.to_numpy(zero_copy_only=False)
    else:
        codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in encoded.chunks])
    if codes.dtype != np.int32 and n_codes < 2**31:
        codes = codes.astype(np.int32)
    return codes, n_codes


def ids_of(column: pa.ChunkedArray, rows: np.ndarray, codes: np.ndarray) -> pa.Array:
    """Distinct ids among ``rows`` (positions), in order of first appearance."""
    if len(rows) == 0:
        return pa.array([], type=_plain_type(column.type))
    _, first = np.unique(codes[rows], return_index=True)
    picked = rows[np.sort(first)]
    out = column.take(pa.array(picked))
    out = out.combine_chunks() if isinstance(out, pa.ChunkedArray) else out
    if pa.types.is_dictionary(out.type):
        out = out.dictionary_decode()
    return out


def _plain_type(t: pa.DataType) -> pa.DataType:
    return t.value_type if pa.types.is_dictionary(t) else t


_BLOCK = 1 << 22


def count_per(codes: np.ndarray, mask: np.ndarray | None, n_codes: int) -> np.ndarray:
    """Rows per code among the rows of ``mask`` (all rows if None), as int64.

    Counted block by block: ``np.bincount`` copies its input to int64 and a boolean
    gather copies too, so whole-array calls would cost two full-length temporaries.
    """
    out = np.zeros(n_codes, dtype=np.int64)
    for a in range(0, len(codes), _BLOCK):
        block = codes[a : a + _BLOCK]
        if mask is not None:
            block = block[mask[a : a + _BLOCK]]
        if len(block):
            out += np.bincount(block, minlength=n_codes)
    return out


def distinct(codes: np.ndarray, mask: np.ndarray | None, n_codes: int) -> int:
    """Number of distinct codes among the rows of ``mask`` (all rows if None)."""
    if n_codes == 0:
        return 0
    return int(np.count_nonzero(count_per(codes, mask, n_codes)))


# --------------------------------------------------------------------------- result types


@dataclass(frozen=True)
class Counts:
    """Rows, distinct users and distinct items of a part."""

    rows: int
    users: int
    items: int


@dataclass(frozen=True)
class SmallUsers:
    """Users with too few interactions for the protocol (after the filters).

    ``rule`` says what "too few" meant; ``policy`` what was done with them:
    ``"train"`` (all their rows in train) or ``"drop"`` (their rows in neither part).
    """

    users: int
    rows: int
    policy: str
    rule: str


@dataclass(frozen=True)
class Cold:
    """Cold-start report: test users and items absent from train.

    ``users``/``items`` count distinct cold ids, ``user_rows``/``item_rows`` the test rows
    that have them (before any dropping), ``dropped_rows`` the test rows removed by
    ``drop_cold_users``/``drop_cold_items``.
    """

    users: int
    user_rows: int
    items: int
    item_rows: int
    dropped_rows: int


@dataclass(frozen=True)
class SplitSummary:
    """Counts of one split. Invariant: ``input.rows == train.rows + test.rows + dropped_rows``,
    with ``dropped_rows = filtered.rows + cold.dropped_rows`` plus ``small_users.rows``
    when the policy is ``"drop"``."""

    method: str
    params: dict[str, Any]
    input: Counts
    filtered: Counts
    small_users: SmallUsers
    train: Counts
    test: Counts
    cold: Cold
    dropped_rows: int
    fold: int | None = None
    validation: Counts | None = None  # with validation_fraction (rankmeter.split.validation)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (the CLI's summary.json)."""
        out = asdict(self)
        if self.fold is None:
            del out["fold"]
        if self.validation is None:
            del out["validation"]
        return out

    def __str__(self) -> str:
        """A small table (``print(split.summary)``): rows, users and items of every part, then the cold and
        small users; ``repr`` keeps the full dataclass form.

        >>> c = Counts(10, 2, 5)
        >>> print(SplitSummary("holdout", {"seed": 0}, c, Counts(0, 0, 0), SmallUsers(0, 0, "train", ""),
        ...                    Counts(8, 2, 5), Counts(2, 2, 2), Cold(0, 0, 0, 0, 0), 0))
        holdout split: seed=0
        part      rows users items
        input       10     2     5
        filtered     0     0     0
        train        8     2     5
        test         2     2     2
        dropped      0
        cold test users 0 (0 rows), cold test items 0 (0 rows); small users 0 (policy train)
        """
        head = f"{self.method} split" + (f", fold {self.fold}" if self.fold is not None else "")
        parts = [("input", self.input), ("filtered", self.filtered), ("train", self.train)]
        if self.validation is not None:
            parts.append(("validation", self.validation))
        parts.append(("test", self.test))
        return "\n".join([f"{head}: {_params_text(self.params)}", *_count_rows(parts),
                          f"{'dropped':<8} {self.dropped_rows:>5}",
                          f"cold test users {self.cold.users} ({self.cold.user_rows} rows), cold test items "
                          f"{self.cold.items} ({self.cold.item_rows} rows); small users {self.small_users.users} "
                          f"(policy {self.small_users.policy})"])


def _params_text(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _count_rows(parts: Sequence[tuple[str, Counts]]) -> list[str]:
    width = max(8, *(len(n) for n, _ in parts))
    rows = [(n, str(c.rows), str(c.users), str(c.items)) for n, c in parts]
    w = [max(5, *(len(r[i]) for r in rows)) for i in (1, 2, 3)]
    out = [f"{'part':<{width}} {'rows':>{w[0]}} {'users':>{w[1]}} {'items':>{w[2]}}"]
    out += [f"{n:<{width}} {a:>{w[0]}} {b:>{w[1]}} {c:>{w[2]}}" for n, a, b, c in rows]
    return out


@dataclass(frozen=True)
class FoldsSummary:
    """Counts of a k-fold split: shared counts plus one :class:`SplitSummary` per fold."""

    method: str
    params: dict[str, Any]
    input: Counts
    filtered: Counts
    small_users: SmallUsers
    folds: tuple[SplitSummary, ...] = field(default=())

    def __str__(self) -> str:
        """A small table (``print(folds.summary)``): the shared counts, then one line per fold."""
        lines = [f"{self.method}: {_params_text(self.params)}",
                 *_count_rows([("input", self.input), ("filtered", self.filtered)])]
        lines.append(f"{'fold':<5} {'train rows':>10} {'users':>6} {'items':>6} {'test rows':>10} {'users':>6} "
                     f"{'items':>6}")
        for n, f in enumerate(self.folds, start=1):
            lines.append(f"{f.fold or n:<5} {f.train.rows:>10} {f.train.users:>6} {f.train.items:>6} "
                         f"{f.test.rows:>10} {f.test.users:>6} {f.test.items:>6}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["folds"] = [
            {k: v for k, v in f.to_dict().items() if k not in ("method", "params", "input", "filtered", "small_users")}
            for f in self.folds
        ]
        return out


class Split:
    """One train/test split of an interaction table.

    ``train`` and ``test`` come back in the input's own kind (pandas, polars, Arrow;
    a path gives Arrow), with every input column and the input's row order; a pandas
    input keeps its index labels. They are built on first access. Unpack it as
    ``train, test = split``.

    Attributes:
        summary: the :class:`SplitSummary` (counts of every part).
        train_mask, test_mask: boolean arrays over the input rows.
        cold_users, cold_items: ids (pyarrow arrays) in test and absent from train,
            whether or not they were dropped from test.
        small_users: ids of the users too small for the protocol.
    """

    def __init__(
        self,
        data: Interactions,
        train_mask: np.ndarray,
        test_mask: np.ndarray,
        summary: SplitSummary,
        *,
        cold_users: pa.Array,
        cold_items: pa.Array,
        small_users: pa.Array,
    ) -> None:
        self.data = data
        self.train_mask = train_mask
        self.test_mask = test_mask
        self.summary = summary
        self.cold_users = cold_users
        self.cold_items = cold_items
        self.small_users = small_users
        self.validation_mask: np.ndarray | None = None  # set by validation_fraction
        self._train: Any = None
        self._test: Any = None

    @property
    def validation(self) -> Any:
        """The validation rows (``validation_fraction``), in the input's kind; None without one."""
        return None if self.validation_mask is None else self._part(self.validation_mask)

    @property
    def train(self) -> Any:
        """The training rows, in the input's kind."""
        if self._train is None:
            self._train = self._part(self.train_mask)
        return self._train

    @property
    def test(self) -> Any:
        """The test rows, in the input's kind."""
        if self._test is None:
            self._test = self._part(self.test_mask)
        return self._test

    @property
    def train_rows(self) -> np.ndarray:
        """Positions (0-based) of the training rows in the input."""
        return np.flatnonzero(self.train_mask)

    @property
    def test_rows(self) -> np.ndarray:
        """Positions (0-based) of the test rows in the input."""
        return np.flatnonzero(self.test_mask)

    @property
    def dropped_rows(self) -> np.ndarray:
        """Positions of the input rows in neither part (filtered, dropped small users, dropped cold rows)."""
        return np.flatnonzero(~(self.train_mask | self.test_mask))

    def table(self, part: Literal["train", "test", "validation"]) -> pa.Table:
        """A part as a pyarrow Table, whatever the input kind."""
        if part == "validation" and self.validation_mask is None:
            raise ParameterError("this split has no validation part (pass validation_fraction)")
        mask = {"train": self.train_mask, "test": self.test_mask}.get(part, self.validation_mask)
        return self.data.table.filter(pa.array(mask))

    def _part(self, mask: np.ndarray) -> Any:
        table = self.data.table.filter(pa.array(mask))
        pa.default_memory_pool().release_unused()
        rows = np.flatnonzero(mask) if self.data.kind == "pandas" else None
        return to_input_kind(table, self.data, rows=rows)

    def __iter__(self) -> Iterator[Any]:
        yield self.train
        yield self.test

    def __repr__(self) -> str:
        s = self.summary
        fold = f" fold {s.fold}" if s.fold is not None else ""
        return (
            f"Split({s.method}{fold}: train {s.train.rows} rows, test {s.test.rows} rows, "
            f"{s.dropped_rows} dropped)"
        )


class Folds(Sequence[Split]):
    """The folds of a k-fold split: a sequence of :class:`Split` (index 0 is fold 1).

    ``fold_of`` gives, for every input row, the 0-based fold it was dealt to, or -1 for a
    row in no test fold (filtered out, small users); it is the assignment before any
    cold rows are dropped from the test parts.
    """

    def __init__(self, folds: list[Split], summary: FoldsSummary, fold_of: np.ndarray) -> None:
        self._folds = folds
        self.summary = summary
        self.fold_of = fold_of

    @overload
    def __getitem__(self, index: int) -> Split: ...
    @overload
    def __getitem__(self, index: slice) -> list[Split]: ...
    def __getitem__(self, index: int | slice) -> Split | list[Split]:
        return self._folds[index]

    def __len__(self) -> int:
        return len(self._folds)

    def __repr__(self) -> str:
        return f"Folds({len(self)} folds of {self.summary.input.rows} rows)"


# --------------------------------------------------------------------------- preparation


@dataclass(eq=False)
class Prepared:
    """Coded input after the filters."""

    data: Interactions
    func: str
    users: np.ndarray  # user code per row
    n_user_codes: int
    items: np.ndarray
    n_item_codes: int
    active: np.ndarray | None  # rows kept by the filters (None: all)
    input: Counts
    filtered: Counts
    filter_params: dict[str, Any]
    _user_counts: np.ndarray | None = None
    _item_counts: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        return len(self.users)

    def user_counts(self) -> np.ndarray:
        """Rows per user code among the active rows."""
        if self._user_counts is None:
            self._user_counts = count_per(self.users, self.active, self.n_user_codes)
        return self._user_counts

    def item_counts(self) -> np.ndarray:
        """Rows per item code among the active rows."""
        if self._item_counts is None:
            self._item_counts = count_per(self.items, self.active, self.n_item_codes)
        return self._item_counts

    def n_active(self) -> int:
        return self.n_rows if self.active is None else int(np.count_nonzero(self.active))


def load(
    interactions: Any,
    *,
    user: str | None,
    item: str | None,
    timestamp: str | Literal[False] | None,
) -> Interactions:
    """Read the input for a splitter (the rating column plays no part in splitting)."""
    if isinstance(interactions, Interactions):
        changes = {k: v for k, v in (("user", user), ("item", item), ("timestamp", timestamp)) if v is not None}
        same = all(
            (getattr(interactions, k) is None if v is False else getattr(interactions, k) == v)
            for k, v in changes.items()
        )
        if same:
            return interactions
        if set(changes) == {"timestamp"} and timestamp is False:
            from dataclasses import replace

            return replace(interactions, timestamp=None)
    return read_input(interactions, user=user, item=item, rating=False, timestamp=timestamp)


def read_input(interactions: Any, **options: Any) -> Interactions:
    """:func:`rankmeter.io.interactions.read_interactions` for a splitter: an input without a
    single interaction (a text file with a header line and nothing else) is one clear
    "no rows" error, whatever the column types the reader would have complained about.

    >>> read_input({"user": ["u"], "item": ["i"]}).table.num_rows
    1
    """
    try:
        data = read_interactions(interactions, **options)
    except InputError:
        # a header and no row gives every column the type null, and the reader's complaint
        # about the column types hides the real problem: say it
        if _header_only(interactions):
            raise no_rows_error(str(interactions)) from None
        raise
    if data.table.num_rows == 0:
        raise no_rows_error(data.source)
    return data


def no_rows_error(source: str | None) -> InputError:
    """The one error of every splitter for an input without a single interaction."""
    return InputError("no rows: the input holds no interaction (a header line at most), so there is nothing to "
                      "split", source=source)


def _header_only(obj: Any) -> bool:
    """Whether ``obj`` is the path of a text file with at most one non-blank line."""
    import gzip
    from pathlib import Path

    if not isinstance(obj, (str, Path)):
        return False
    p = Path(obj)
    if not p.is_file() or p.suffix.lower() == ".parquet":
        return False
    try:
        opener: Any = gzip.open if p.suffix.lower() == ".gz" else open
        with opener(p, "rt", encoding="utf-8", errors="replace") as fh:
            lines = 0
            for line in fh:
                if line.strip():
                    lines += 1
                    if lines > 1:
                        return False
        return True
    except OSError:
        return False


def prepare(
    data: Interactions,
    func: str,
    *,
    min_user_interactions: int,
    min_item_interactions: int,
    iterate_filters: bool,
) -> Prepared:
    """Code users and items and apply the minimum-interaction filters.

    The filters count rows (repeated user-item pairs count each time). A row is kept
    when its user has at least ``min_user_interactions`` rows and its item at least
    ``min_item_interactions`` rows, both counted on the input. With
    ``iterate_filters=True`` this repeats on the kept rows until nothing changes
    (the k-core), so the thresholds hold on the result.
    """
    mu = check_int(min_user_interactions, "min_user_interactions", func, 1)
    mi = check_int(min_item_interactions, "min_item_interactions", func, 1)
    if data.table.num_rows == 0:
        raise no_rows_error(data.source)
    users, n_u = encode_column(data.table.column(data.user))
    items, n_i = encode_column(data.table.column(data.item))
    n = len(users)
    all_user_counts = count_per(users, None, n_u)
    all_item_counts = count_per(items, None, n_i)
    inp = Counts(n, int(np.count_nonzero(all_user_counts)), int(np.count_nonzero(all_item_counts)))
    active: np.ndarray | None = None
    rounds = 0
    if mu > 1 or mi > 1:
        while True:
            rounds += 1
            keep = np.ones(n, dtype=bool) if active is None else active.copy()
            if mu > 1:
                counts = all_user_counts if active is None else count_per(users, active, n_u)
                keep &= (counts >= mu)[users]
            if mi > 1:
                counts = all_item_counts if active is None else count_per(items, active, n_i)
                keep &= (counts >= mi)[items]
            changed = active is None or bool(np.any(keep != active))
            active = keep
            if not iterate_filters or not changed:
                break
        if bool(active.all()):
            active = None
    if active is None:
        filtered = Counts(0, 0, 0)
    else:
        kept_rows = int(np.count_nonzero(active))
        filtered = Counts(
            n - kept_rows,
            inp.users - distinct(users, active, n_u),
            inp.items - distinct(items, active, n_i),
        )
    return Prepared(
        data=data,
        func=func,
        users=users,
        n_user_codes=n_u,
        items=items,
        n_item_codes=n_i,
        active=active,
        input=inp,
        filtered=filtered,
        _user_counts=all_user_counts if active is None else None,
        _item_counts=all_item_counts if active is None else None,
        filter_params={
            "min_user_interactions": mu,
            "min_item_interactions": mi,
            "iterate_filters": bool(iterate_filters),
            "filter_rounds": rounds,
        },
    )


def segment_mask(lengths_first: np.ndarray, lengths_second: np.ndarray, first_value: bool) -> np.ndarray:
    """Concatenation over groups of ``first_value`` repeated ``lengths_first[g]`` times then
    ``not first_value`` repeated ``lengths_second[g]`` times (a bool array)."""
    g = len(lengths_first)
    lengths = np.empty(2 * g, dtype=np.int64)
    lengths[0::2] = lengths_first
    lengths[1::2] = lengths_second
    values = np.empty(2 * g, dtype=bool)
    values[0::2] = first_value
    values[1::2] = not first_value
    return np.repeat(values, lengths)


def group_order_random(prep: Prepared, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``rows`` reordered so that each user's rows are contiguous (users by code, ascending)
    and in uniformly random order within the user."""
    perm = rows[rng.permutation(len(rows))]
    grouped = np.argsort(prep.users[perm], kind="stable")
    return perm[grouped]


def participating(prep: Prepared, eligible: np.ndarray) -> np.ndarray | None:
    """Positions of the active rows of eligible users, or None when that is every row."""
    keep = eligible[prep.users]
    if prep.active is not None:
        keep &= prep.active
    if bool(keep.all()):
        return None
    return np.flatnonzero(keep)


def random_per_user(prep: Prepared, eligible: np.ndarray, m: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Test mask with, for each eligible user code ``u``, ``m[u]`` of the user's active rows
    chosen uniformly at random (every ``m[u]``-subset equally likely).

    Each participating row gets a distinct random rank (a random permutation); a row is
    in test when its rank is among the ``m[u]`` smallest of its user. The per-user
    threshold comes from one value sort of the packed keys ``user << b | rank``: no
    argsort, no inverse permutation.
    """
    n = prep.n_rows
    rows = participating(prep, eligible)
    codes = prep.users if rows is None else prep.users[rows]
    size = len(codes)
    test = np.zeros(n, dtype=bool)
    if size == 0:
        return test
    rank = rng.permutation(size)
    if size < 2**31:
        rank = rank.astype(np.int32)
    bits = max(1, (size - 1).bit_length())
    if (max(prep.n_user_codes, 1) << bits) >= 2**63:  # pragma: no cover - beyond 2**31 rows and users
        order = group_order_random(prep, np.arange(n) if rows is None else rows, rng)
        counts = np.bincount(prep.users[order], minlength=prep.n_user_codes)[eligible]
        test[order] = segment_mask(m[eligible], counts - m[eligible], True)
        return test
    key = codes.astype(np.int64)
    key <<= bits
    key |= rank
    key.sort()
    counts = prep.user_counts() if rows is None else count_per(codes, None, prep.n_user_codes)
    starts = np.cumsum(counts) - counts
    threshold = np.full(prep.n_user_codes, -1, dtype=np.int64)
    chosen = eligible & (m > 0)
    threshold[chosen] = key[starts[chosen] + m[chosen] - 1] & ((1 << bits) - 1)
    del key
    local = np.empty(size, dtype=bool)
    step = 1 << 22
    for a in range(0, size, step):  # block by block: no full-length gather
        local[a : a + step] = rank[a : a + step] <= threshold[codes[a : a + step]]
    if rows is None:
        return local
    test[rows] = local
    return test


def finish(
    prep: Prepared,
    test: np.ndarray,
    *,
    method: str,
    params: dict[str, Any],
    small: np.ndarray | None,
    small_rule: str,
    small_users: str,
    drop_cold_users: bool,
    drop_cold_items: bool,
    fold: int | None = None,
) -> Split:
    """Build the Split from the test mask (over all input rows).

    ``small`` flags the user codes too small for the protocol (None: no such notion).
    The test mask must not include inactive rows or rows of small users.
    """
    data = prep.data
    n = prep.n_rows
    users, items = prep.users, prep.items
    active = np.ones(n, dtype=bool) if prep.active is None else prep.active.copy()
    small_rows_mask = None
    n_small = n_small_rows = 0
    if small is not None and bool(small.any()):
        small_rows_mask = small[users] & active
        n_small_rows = int(np.count_nonzero(small_rows_mask))
        n_small = distinct(users, small_rows_mask, prep.n_user_codes) if n_small_rows else 0
        if small_users == "drop":
            active &= ~small_rows_mask
    test = test & active
    train = active & ~test
    del active
    n_u, n_i = prep.n_user_codes, prep.n_item_codes
    # train counts = active counts - test counts (test is the smaller part to count)
    active_per_user, active_per_item = prep.user_counts(), prep.item_counts()
    if small_rows_mask is not None and small_users == "drop":
        active_per_user = active_per_user - count_per(users, small_rows_mask, n_u)
        active_per_item = active_per_item - count_per(items, small_rows_mask, n_i)
    test_per_user = count_per(users, test, n_u)
    test_per_item = count_per(items, test, n_i)
    train_per_user = active_per_user - test_per_user
    train_per_item = active_per_item - test_per_item
    cold_user_flag = (test_per_user > 0) & (train_per_user == 0)
    cold_item_flag = (test_per_item > 0) & (train_per_item == 0)
    n_cold_users = int(np.count_nonzero(cold_user_flag))
    n_cold_items = int(np.count_nonzero(cold_item_flag))
    n_cold_user_rows = int(test_per_user[cold_user_flag].sum())
    n_cold_item_rows = int(test_per_item[cold_item_flag].sum())
    cold_user_rows = test & cold_user_flag[users] if n_cold_users else None
    cold_item_rows = test & cold_item_flag[items] if n_cold_items else None
    no_rows = np.zeros(0, dtype=np.int64)
    cold_users = ids_of(data.table.column(data.user),
                        np.flatnonzero(cold_user_rows) if cold_user_rows is not None else no_rows, users)
    cold_items = ids_of(data.table.column(data.item),
                        np.flatnonzero(cold_item_rows) if cold_item_rows is not None else no_rows, items)
    dropped_cold = 0
    test_rows_before = int(test_per_user.sum())
    if (drop_cold_users and cold_user_rows is not None) or (drop_cold_items and cold_item_rows is not None):
        if drop_cold_users and cold_user_rows is not None:
            test &= ~cold_user_rows
        if drop_cold_items and cold_item_rows is not None:
            test &= ~cold_item_rows
        test_per_user = count_per(users, test, n_u)
        test_per_item = count_per(items, test, n_i)
        dropped_cold = test_rows_before - int(test_per_user.sum())
    small_ids = ids_of(
        data.table.column(data.user),
        np.flatnonzero(small_rows_mask) if small_rows_mask is not None and n_small_rows else no_rows,
        users,
    )
    train_counts = Counts(
        int(train_per_user.sum()),
        int(np.count_nonzero(train_per_user)),
        int(np.count_nonzero(train_per_item)),
    )
    test_counts = Counts(
        int(test_per_user.sum()),
        int(np.count_nonzero(test_per_user)),
        int(np.count_nonzero(test_per_item)),
    )
    summary = SplitSummary(
        method=method,
        params={**params, **prep.filter_params, "small_users": small_users,
                "drop_cold_users": bool(drop_cold_users), "drop_cold_items": bool(drop_cold_items)},
        input=prep.input,
        filtered=prep.filtered,
        small_users=SmallUsers(n_small, n_small_rows, small_users, small_rule),
        train=train_counts,
        test=test_counts,
        cold=Cold(n_cold_users, n_cold_user_rows, n_cold_items, n_cold_item_rows, dropped_cold),
        dropped_rows=n - train_counts.rows - test_counts.rows,
        fold=fold,
    )
    return Split(
        data, train, test, summary, cold_users=cold_users, cold_items=cold_items, small_users=small_ids
    )


def check_small_policy(
    prep: Prepared, small: np.ndarray, small_users: str, rule: str, eligible_needed: str
) -> None:
    """Raise for policy "error" when some users are too small, and always when no user is
    big enough (the protocol would put nothing in test)."""
    counts = prep.user_counts()
    present = counts > 0
    n_small = int(np.count_nonzero(small & present))
    n_present = int(np.count_nonzero(present))
    if n_present and n_small == n_present:
        raise InputError(
            f"{prep.func}: every user has {rule}, so no user can be split ({eligible_needed}); "
            f"the largest user has {int(counts.max())} interaction{'s' if counts.max() != 1 else ''}"
        )
    if n_small and small_users == "error":
        raise InputError(
            f"{prep.func}: {n_small} of {n_present} users have {rule} ({eligible_needed}); "
            "choose small_users='train' to keep them in train or 'drop' to leave them out"
        )
