"""Kendall's tau-b on one list of 1M pairs against ``scipy.stats.kendalltau``, sweeping the tie structure.

Each side takes 2, 10, 100, 1,000, 10,000, 100,000 or 1M distinct values (values
drawn so that the two sides are correlated, as ratings against predictions are).
Both tools run on the same arrays in the same process; the best of ``--repeat``
runs is kept (after one warm-up run each) and the values must agree within 1e-12.

    python benchmarks/bench_kendall.py [--n 1000000] [--repeat 5] [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np


def make(n: int, dx: int, dy: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """x with about ``dx`` distinct values and y with about ``dy``, correlated (a shared latent)."""
    z = rng.normal(size=n)
    x = z + 0.5 * rng.normal(size=n)
    y = z + 0.5 * rng.normal(size=n)

    def quantise(v: np.ndarray, d: int) -> np.ndarray:
        if d >= n:
            return v
        edges = np.quantile(v, np.linspace(0, 1, d + 1)[1:-1])
        return np.searchsorted(edges, v).astype(np.float64)

    return quantise(x, dx), quantise(y, dy)


def best(f, repeat: int) -> tuple[float, float]:
    f()
    times, value = [], 0.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = f()
        times.append(time.perf_counter() - t0)
    return min(times), value


def main() -> None:
    from scipy import stats

    from rankmeter.metrics import kendall_tau

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="100k pairs, 2 repeats")
    args = ap.parse_args()
    n, repeat = (100_000, 2) if args.quick else (args.n, args.repeat)
    rng = np.random.default_rng(3)
    levels = [2, 10, 100, 1_000, 10_000, 100_000, n]
    cases = [(d, d) for d in levels] + [(2, n), (n, 2), (5, n), (10, 1_000), (1_000, n), (100, 10_000)]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; n = {n:,}")
    print(f"{'distinct x':>11s} {'distinct y':>11s} {'rankmeter s':>12s} {'scipy s':>9s} {'ratio':>6s}")
    worst = 0.0
    for dx, dy in cases:
        x, y = make(n, dx, dy, rng)
        t_ours, ours = best(lambda: kendall_tau(x, y), repeat)
        t_scipy, theirs = best(lambda: float(stats.kendalltau(x, y).statistic), repeat)
        assert abs(ours - theirs) <= 1e-12, (dx, dy, ours, theirs)
        worst = max(worst, t_ours / t_scipy)
        print(f"{len(np.unique(x)):>11,} {len(np.unique(y)):>11,} {t_ours:12.4f} {t_scipy:9.4f} {t_ours / t_scipy:6.2f}")
    print(f"worst ratio (rankmeter / scipy): {worst:.2f}")


if __name__ == "__main__":
    main()
