"""Fusion: rankmeter.fuse against ranx's fuse on the same runs, same process, ratios printed.

Data: ``--runs`` runs of ``--queries`` queries x ``--depth`` documents drawn from 3 x depth ids per
query (so runs overlap), continuous scores (no ties). Timed (wall clock, best of ``--repeat``):
each method with min-max normalisation, ranx's first call excluded (numba compiles it), inputs
already built (rankmeter ``Run`` objects, ranx ``Run`` objects). Also timed: ``fuse_files`` on the
same runs written as TREC files (chunk by chunk) and ``fuse_duckdb`` for rrf and wsum.

    python benchmarks/bench_fusion.py [--queries 1000] [--depth 1000] [--runs 2] [--repeat 3]

Figures are only meaningful on a quiet machine; record them with the machine and date in
benchmarks/RESULTS-fusion.md.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np


def _best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--methods", default="rrf,wsum,mnz,bordafuse")
    args = ap.parse_args()

    import pyarrow as pa

    from rankmeter import Run
    from rankmeter.fusion import fuse, fuse_duckdb, fuse_files

    rng = np.random.default_rng(0)
    dicts, runs = [], []
    for _ in range(args.runs):
        q = np.repeat(np.array([f"q{i}" for i in range(args.queries)]), args.depth)
        d = np.concatenate([rng.choice(3 * args.depth, args.depth, replace=False) for _ in range(args.queries)])
        items = np.char.add("d", d.astype(str))
        scores = rng.random(len(q))
        runs.append(Run.from_columns(pa.array(q), pa.array(items), scores))
        dicts.append(runs[-1].to_dict())
    methods = args.methods.split(",")
    try:
        import ranx
    except ImportError:
        ranx = None
    weights = [1.0 / args.runs] * args.runs
    print(f"{args.runs} runs x {args.queries} queries x {args.depth} documents")
    print(f"{'method':<12}{'rankmeter s':>14}{'ranx s':>10}{'ratio':>8}")
    r_runs = [ranx.Run(d) for d in dicts] if ranx is not None else []
    for m in methods:
        kw: dict[str, Any] = {"weights": weights} if m in ("wsum", "wmnz", "mixed", "w_bordafuse") else {}
        ours = _best(lambda: fuse(runs, m, **kw), args.repeat)  # noqa: B023
        theirs = float("nan")
        if ranx is not None:
            params = {"weights": weights} if kw else None
            ranx.fuse(r_runs, norm="min-max", method=m, params=params)  # compile
            theirs = _best(lambda: ranx.fuse(r_runs, norm="min-max", method=m, params=params), args.repeat)  # noqa: B023
        print(f"{m:<12}{ours:>14.3f}{theirs:>10.3f}{theirs / ours:>8.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for j, r in enumerate(runs):
            p = Path(tmp) / f"r{j}.run"
            t = r.to_arrow()
            with open(p, "w") as fh:
                for q, i, s in zip(t.column("query").to_pylist(), t.column("item").to_pylist(),
                                   t.column("score").to_pylist(), strict=True):
                    fh.write(f"{q} Q0 {i} 0 {s!r} r{j}\n")
            paths.append(str(p))
        out = str(Path(tmp) / "fused.run")
        print(f"fuse_files rrf (chunks of 100000 rows, 2 threads): "
              f"{_best(lambda: fuse_files(paths, 'rrf', output=out, chunk_rows=100_000), args.repeat):.3f} s")
    for m in ("rrf", "wsum"):
        print(f"fuse_duckdb {m}: {_best(lambda: fuse_duckdb(runs, m), args.repeat):.3f} s")  # noqa: B023


if __name__ == "__main__":
    main()
