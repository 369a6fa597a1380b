"""Resampling engines: sign-flip (randomisation) tests and the paired bootstrap.

Both work on a score matrix ``X`` of shape ``(n, c)``: ``n`` queries, one column
per (run, metric). A comparison is a pair of columns ``(a, b)``; its per-query
differences are ``X[:, b] - X[:, a]``.

Speed: matrix products
----------------------
A sign pattern ``s`` (``+-1`` per query) gives the statistic ``sum(s * d)``; with
``s = 2 * bits - 1`` that is ``2 * bits @ d - sum(d)``, and ``bits @ d`` is
``bits @ X[:, b] - bits @ X[:, a]``. So one product ``bits (r x n) @ X (n x c)``
per block of ``r`` patterns serves every comparison of every metric: the work is
``B * n * c`` multiply-adds whatever the number of pairs. The bootstrap is the
same with a count matrix (how often each query is drawn in each resample).

The same sign patterns and the same bootstrap resamples serve every comparison.
Each comparison's test is then the standard paired design (its p-value is valid);
the p-values of different comparisons are correlated, which the multiple-testing
corrections used here (Holm, Bonferroni: any dependence; Benjamini-Hochberg:
positive dependence) allow for. The paired bootstrap requires the same resampled
queries for both runs of a pair anyway.

Exact, reproducible sums
------------------------
Before resampling, the values of each metric (a "group" of columns) are put on a
binary grid: ``x -> rint(x * 2^s)`` with ``s`` the largest integer such that
``n * max|x| * 2^s <= 2^50``. Every product and partial sum is then an integer
below ``2^53``, exact in float64, so the result does not depend on the order of
summation: the same for any number of BLAS threads, any block size, any machine.
The rounding moves each value by at most ``2^-(s+1)``, i.e. about
``n * max|x| * 2^-51`` (1e-11 relative for 10,000 queries). Statistics that are
equal in exact arithmetic (``0.1 + 0.2`` and ``0.3``) may then differ by a few
grid steps, so two sums within ``2 n`` steps of each other count as a tie (the
resampled statistic counts as "at least as extreme"): that is a tolerance of
``2 n^2 max|x| 2^-50`` on a sum, 2e-11 of ``max|x|`` on a mean of 10,000 values,
far below any meaningful difference and far above float rounding.

Random numbers come from one NumPy ``Generator`` stream, consumed row by row in
a fixed way (``bit_generator.random_raw``: one 64-bit word per 64 sign bits;
``integers(0, n, dtype=uint32)``: Lemire's unbiased bounded integers for the
bootstrap draws): the same seed gives the same resamples for any block size or
thread count.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterator, NamedTuple, cast

import numpy as np

from .._errors import ParameterError

__all__ = [
    "make_rng",
    "streams",
    "quantise",
    "sign_flip_test",
    "FlipResult",
    "BootSums",
    "bootstrap_sums",
    "bootstrap_p", "diff_p",
    "intervals",
    "check_confidence",
    "check_interval_method",
    "check_memory",
    "memory_needed",
    "physical_memory",
]

Progress = Callable[[int, int], None]

_BLOCK_BYTES = 32 * 2**20  # float64 pattern/count rows per block: about 32 MB


def make_rng(seed: Any) -> np.random.Generator:
    """A Generator from an int / None / SeedSequence, or the Generator itself."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not (seed is None or isinstance(seed, (int, np.integer, np.random.SeedSequence))):
        raise ParameterError(f"The 'seed' parameter must be an int, None, a numpy SeedSequence or Generator. "
                             f"Got {seed!r} instead.")
    if isinstance(seed, (int, np.integer)) and seed < 0:
        raise ParameterError(f"The 'seed' parameter must be an int >= 0. Got {seed} instead.")
    return np.random.default_rng(seed)


def streams(seed: Any, k: int) -> list[np.random.Generator]:
    """``k`` independent generators derived from one seed (``SeedSequence.spawn``).

    Stream 0 draws sign patterns, stream 1 bootstrap resamples: asking for one
    procedure does not change the numbers of the other.
    """
    if isinstance(seed, np.random.Generator):
        return list(seed.spawn(k))
    make_rng(seed)  # validation
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return [np.random.Generator(np.random.PCG64(child)) for child in ss.spawn(k)]


def check_confidence(confidence: float, name: str) -> None:
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ParameterError(f"The 'confidence' parameter of {name} must be a number in (0, 1). "
                             f"Got {confidence!r} instead.")


def check_interval_method(method: str, name: str) -> None:
    if method not in ("bca", "percentile"):
        raise ParameterError(f"The 'interval' parameter of {name} must be 'bca' or 'percentile'. Got {method!r} "
                             "instead.")


def quantise(X: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer-valued float64 copy of ``X`` on a per-group binary grid, and each column's unit."""
    n, c = X.shape
    Xq = np.empty_like(X, dtype=np.float64)
    unit = np.empty(c)
    for g in np.unique(groups):
        cols = np.flatnonzero(groups == g)
        mx = float(np.max(np.abs(X[:, cols]))) if n else 0.0
        if mx == 0.0:
            s = 0
        else:
            s = int(np.floor(50 - np.log2(n * mx)))
            s = max(min(s, 1000), -1000)
        Xq[:, cols] = np.rint(np.ldexp(X[:, cols], s))
        unit[cols] = np.ldexp(1.0, -s)
    return Xq, unit


def blas_single_thread() -> Any:
    """A context limiting BLAS to one thread (threadpoolctl, when installed), else a no-op.

    The products here are thin (``r x n`` times ``n x c`` with small ``c``), and with
    OpenBLAS two threads were slower than one on the 2-core benchmark machine (3.2-4.7 s
    against 2.0-2.3 s for the issue's benchmark) and used 50% more CPU. The results are
    the same either way (exact sums). The environment variable
    ``RANKMETER_RESAMPLE_BLAS_THREADS`` sets another limit; ``0`` leaves BLAS alone.
    """
    from contextlib import nullcontext

    raw = os.environ.get("RANKMETER_RESAMPLE_BLAS_THREADS", "1").strip()
    try:
        limit = int(raw)
    except ValueError:
        raise ParameterError(f"RANKMETER_RESAMPLE_BLAS_THREADS must be an int >= 0. Got {raw!r} instead.") from None
    if limit <= 0:
        return nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    return threadpool_limits(limit, user_api="blas")


def _block_rows(n: int) -> int:
    return int(max(16, min(65536, _BLOCK_BYTES // (8 * max(n, 1)))))


def _random_bits(rng: np.random.Generator, total: int, n: int, rows: int) -> Iterator[np.ndarray]:
    words = (n + 63) // 64
    bitgen = rng.bit_generator
    for start in range(0, total, rows):
        r = min(rows, total - start)
        raw = np.asarray(bitgen.random_raw(r * words), dtype="<u8").reshape(r, words)
        bits = np.unpackbits(raw.view(np.uint8), axis=1, count=n, bitorder="little")
        yield bits.astype(np.float64)


def _all_bits(n: int, rows: int) -> Iterator[np.ndarray]:
    total = 1 << n
    shifts = np.arange(n, dtype=np.int64)
    for start in range(0, total, rows):
        codes = np.arange(start, min(total, start + rows), dtype=np.int64)[:, None]
        yield ((codes >> shifts) & 1).astype(np.float64)


class FlipResult(NamedTuple):
    p_value: np.ndarray  # (m,)
    count: np.ndarray  # type: ignore[assignment]  # patterns at least as extreme, (m,); shadows tuple.count
    n_patterns: int
    exact: bool
    method: str


def sign_flip_test(
    X: np.ndarray,
    pairs: np.ndarray,
    groups: np.ndarray,
    *,
    n_resamples: int,
    rng: np.random.Generator,
    exact_max_n: int = 20,
    progress: Progress | None = None,
    block_rows: int | None = None,
) -> FlipResult:
    """Two-sided sign-flip test of ``mean(X[:, b] - X[:, a])`` for every pair ``(a, b)``.

    Exact (``p = count / 2^n``) when ``n <= exact_max_n`` or ``2^n <= n_resamples``,
    else ``n_resamples`` random patterns and ``p = (count + 1) / (n_resamples + 1)``.
    """
    if isinstance(exact_max_n, bool) or not isinstance(exact_max_n, (int, np.integer)) or not 0 <= exact_max_n <= 30:
        raise ParameterError(f"The 'exact_max_n' parameter must be an int in [0, 30]. Got {exact_max_n!r} instead.")
    n, c = X.shape
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    used, inv = np.unique(pairs, return_inverse=True)
    inv = inv.reshape(-1, 2)
    a, b = inv[:, 0], inv[:, 1]
    Xq, _ = quantise(X, groups)
    Xu = np.ascontiguousarray(Xq[:, used])
    obs = (Xu[:, b] - Xu[:, a]).sum(axis=0)  # exact
    thr = np.abs(obs) - 2.0 * n  # ties within 2n grid steps count as extreme
    exact = n <= exact_max_n or (n < 62 and (1 << n) <= n_resamples)
    rows = block_rows or _block_rows(n)
    if exact:
        total = 1 << n
        blocks = _all_bits(n, rows)
    else:
        total = int(n_resamples)
        blocks = _random_bits(rng, total, n, rows)
    count = np.zeros(len(pairs), dtype=np.int64)
    done = 0
    with blas_single_thread():
        for bits in blocks:
            U = bits @ Xu
            T = 2.0 * (U[:, b] - U[:, a]) - obs
            count += np.count_nonzero(np.abs(T) >= thr, axis=0)
            done += len(bits)
            if progress is not None:
                progress(done, total)
    if exact:
        p = count / total
        method = f"exact ({total:,} sign patterns)"
    else:
        p = (count + 1) / (total + 1)
        method = f"Monte Carlo ({total:,} sign patterns)"
    return FlipResult(p, count, total, exact, method)


class BootSums(NamedTuple):
    """Bootstrap resamples as exact integer sums on each column's grid."""

    sums: np.ndarray  # (B, c): sum of the grid values of the resampled queries
    observed: np.ndarray  # (c,): sum over the original queries
    data: np.ndarray  # (n, c): grid values
    unit: np.ndarray  # (c,): value of one grid step
    n: int


def bootstrap_sums(
    X: np.ndarray,
    groups: np.ndarray,
    *,
    n_resamples: int,
    rng: np.random.Generator,
    progress: Progress | None = None,
    block_rows: int | None = None,
) -> BootSums:
    """Resample the queries ``n_resamples`` times (the same resamples for every column)."""
    n, c = X.shape
    if n >= 2**32:
        raise ParameterError(f"the bootstrap supports fewer than 2^32 queries. Got {n} instead.")
    Xq, unit = quantise(X, groups)
    sums = np.empty((int(n_resamples), c))
    rows = block_rows or _block_rows(n)
    with blas_single_thread():
        for start in range(0, int(n_resamples), rows):
            r = min(rows, int(n_resamples) - start)
            # unbiased bounded integers (Lemire's method with rejection); uint32 draws come one by
            # one from the bit generator, so the stream does not depend on the block size
            idx = rng.integers(0, n, (r, n), dtype=np.uint32)
            flat = np.add(idx, (np.arange(r, dtype=np.int64) * n)[:, None])  # int64: row b, query q -> b*n + q
            counts = np.bincount(flat.ravel(), minlength=r * n).reshape(r, n).astype(np.float64)
            sums[start:start + r] = counts @ Xq
            if progress is not None:
                progress(start + r, int(n_resamples))
    return BootSums(sums, Xq.sum(axis=0), Xq, unit, n)


def bootstrap_p(boot: BootSums, pairs: np.ndarray) -> np.ndarray:
    """Paired bootstrap test p-values: ``(1 + #{|d*_b - d| >= |d|}) / (B + 1)`` per pair (:func:`diff_p` of each
    block of pairs' differences)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return np.concatenate([diff_p(diff_sums(boot, pairs[b])) for b in column_blocks(len(pairs), boot.sums.shape[0])])


def diff_p(d: BootSums) -> np.ndarray:
    """The paired bootstrap test's p-value of each difference column of ``d`` (:func:`diff_sums`):
    ``(1 + #{|d*_b - d| >= |d|}) / (B + 1)``, on the columns' grid (a tolerance of two steps)."""
    B = d.sums.shape[0]
    count = np.count_nonzero(np.abs(d.sums - d.observed) >= np.abs(d.observed) - 2.0 * d.n, axis=0)
    return cast(np.ndarray, (count + 1) / (B + 1))


def diff_sums(boot: BootSums, pairs: np.ndarray) -> BootSums:
    """The bootstrap of the per-query differences ``X[:, b] - X[:, a]`` of each pair."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    a, b = pairs[:, 0], pairs[:, 1]
    return BootSums(boot.sums[:, b] - boot.sums[:, a], boot.observed[b] - boot.observed[a],
                    boot.data[:, b] - boot.data[:, a], boot.unit[b], boot.n)


#: the values (float64) of the temporaries an interval computation makes at once: columns are taken in blocks of
#: ``BLOCK_VALUES // B``, so thousands of metrics cost no more temporaries (8 MB each)
BLOCK_VALUES = 1 << 20


def column_blocks(n_columns: int, n_resamples: int, block_values: int = BLOCK_VALUES) -> list[slice]:
    """The column slices :func:`intervals` works through, ``block_values // n_resamples`` columns each.

    >>> column_blocks(5, 1000, block_values=2000)
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    step = max(1, int(block_values) // max(int(n_resamples), 1))
    return [slice(s, min(s + step, n_columns)) for s in range(0, n_columns, step)] or [slice(0, 0)]


def intervals(boot: BootSums, *, confidence: float, method: str = "bca",
              means: np.ndarray | None = None,
              block_values: int = BLOCK_VALUES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Confidence intervals of the mean of every column: ``(low, high, note_code)``.

    ``means`` (the exact means of the original values) are used for zero-width
    intervals, so ``[m, m]`` shows ``m`` unrounded.

    ``note_code`` per column: 0 fine, 1 zero width (constant data or n = 1),
    2 BCa fell back to the percentile interval (bias correction infinite or the
    adjusted level undefined).

    Every column is computed on its own, in blocks of columns (:func:`column_blocks`):
    the same numbers as in one block, with temporaries bounded by ``block_values``.
    """
    blocks = column_blocks(boot.sums.shape[1], boot.sums.shape[0], block_values)
    if len(blocks) == 1:
        return _intervals(boot, confidence=confidence, method=method, means=means)
    parts = [_intervals(BootSums(boot.sums[:, b], boot.observed[b], boot.data[:, b], boot.unit[b], boot.n),
                        confidence=confidence, method=method, means=None if means is None else means[b])
             for b in blocks]
    lo, hi, code = (np.concatenate(x) for x in zip(*parts, strict=True))
    return lo, hi, code


def _intervals(boot: BootSums, *, confidence: float, method: str,
               means: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from scipy import special

    sums, obs, data, unit, n = boot
    B, k = sums.shape
    alpha = 1.0 - confidence
    lo_lvl = np.full(k, alpha / 2)
    hi_lvl = np.full(k, 1 - alpha / 2)
    code = np.zeros(k, dtype=np.int64)
    if method == "bca":
        tol = 2.0 * n  # grid steps: see the module docstring
        less = np.count_nonzero(sums < obs - tol, axis=0)
        eq = np.count_nonzero(np.abs(sums - obs) <= tol, axis=0)
        p0 = (less + 0.5 * eq) / B
        ok = (p0 > 0) & (p0 < 1)
        z0 = special.ndtri(np.where(ok, p0, 0.5))
        # each column's sums over its own contiguous row, so that its bits do not depend on how many columns
        # are beside it (a sum down axis 0 adds row after row; one column alone is summed pairwise)
        cols = np.ascontiguousarray(data.T)
        dev = cols - cols.mean(axis=1, keepdims=True)
        num = np.sum(dev**3, axis=1)
        den = 6.0 * np.sum(dev**2, axis=1) ** 1.5
        acc = np.divide(num, den, out=np.zeros(k), where=den > 0)
        za, zb = special.ndtri(alpha / 2), special.ndtri(1 - alpha / 2)
        d_lo = 1 - acc * (z0 + za)
        d_hi = 1 - acc * (z0 + zb)
        ok &= (d_lo > 0) & (d_hi > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            bca_lo = special.ndtr(z0 + (z0 + za) / d_lo)
            bca_hi = special.ndtr(z0 + (z0 + zb) / d_hi)
        lo_lvl = np.where(ok, bca_lo, lo_lvl)
        hi_lvl = np.where(ok, bca_hi, hi_lvl)
        code[~ok] = 2
    srt = np.sort(np.ascontiguousarray(sums.T), axis=1)  # (k, B): contiguous rows sort fast

    def at(level: np.ndarray) -> np.ndarray:  # NumPy's "linear" quantile, a level per column
        pos = level * (B - 1)
        i0 = np.clip(np.floor(pos).astype(np.int64), 0, B - 1)
        i1 = np.minimum(i0 + 1, B - 1)
        frac = pos - i0
        cols = np.arange(k)
        v0, v1 = srt[cols, i0], srt[cols, i1]
        return cast(np.ndarray, v0 + frac * (v1 - v0))

    scale = unit / n
    lo = at(lo_lvl) * scale
    hi = at(hi_lvl) * scale
    flat = (data.max(axis=0) == data.min(axis=0)) if n else np.ones(k, dtype=bool)
    mean = obs * scale if means is None else np.asarray(means, dtype=np.float64)
    lo = np.where(flat, mean, lo)
    hi = np.where(flat, mean, hi)
    code[flat] = 1
    return lo, hi, code


def memory_needed(n_resamples: int, n_columns: int, n_pairs: int = 0) -> int:
    """Bytes the bootstrap of ``n_columns`` columns and ``n_pairs`` differences holds at its peak.

    The resampled sums (``B x c`` float64) and, while the intervals are read a block of
    columns at a time (:data:`BLOCK_VALUES` values, or one column when ``B`` is larger), one block of the differences
    and a sorted copy of the block twice over (transposed, then sorted):
    ``8 B c + 8 min(B P, V) + 16 min(B max(c, P), V)`` with ``V = max(BLOCK_VALUES, B)``.

    >>> memory_needed(10_000, 4, 3)
    1200000
    """
    b, c, p = int(n_resamples), int(n_columns), int(n_pairs)
    v = max(BLOCK_VALUES, b)  # (a block holds one column at least)
    return 8 * b * c + 8 * min(b * p, v) + 16 * min(b * max(c, p), v)


def physical_memory() -> int | None:
    """The machine's physical memory in bytes (None where the system does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:.1f} PiB"  # pragma: no cover


def check_memory(n_resamples: int, n_columns: int, n_pairs: int = 0, *, name: str = "compare",
                 available: int | None = None) -> None:
    """Refuse a bootstrap that cannot fit in memory, before any work starts.

    ``available`` defaults to the machine's physical memory (:func:`physical_memory`);
    the limit is what the machine holds, so a request that passes may still be slow.

    >>> check_memory(10**12, 4, 3, available=2**34)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    rankmeter._errors.ParameterError: The 'n_resamples' parameter of compare asks for 1000000000000 resamples, which
    need 50.9 TiB of memory for 4 columns and 3 differences; this machine has 16.0 GiB: use at most 306783378
    resamples.
    """
    limit = physical_memory() if available is None else int(available)
    if limit is None:
        return
    need = memory_needed(n_resamples, n_columns, n_pairs)
    if need <= limit:
        return
    most, over = 0, int(n_resamples)  # the most resamples that fit: memory_needed grows with them
    while over - most > 1:
        mid = (most + over) // 2
        most, over = (mid, over) if memory_needed(mid, n_columns, n_pairs) <= limit else (most, mid)
    cols = f"{n_columns} column{'s' if n_columns != 1 else ''}"
    diffs = f" and {n_pairs} difference{'s' if n_pairs != 1 else ''}" if n_pairs else ""
    raise ParameterError(
        f"The 'n_resamples' parameter of {name} asks for {int(n_resamples)} resamples, which need "
        f"{_size(need)} of memory for {cols}{diffs}; this machine has {_size(limit)}: "
        f"use at most {most} resamples.")
