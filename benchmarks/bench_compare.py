"""Benchmark: compare 10 runs x 10,000 queries x 5 metrics, all pairs, 10,000 permutations + bootstrap.

    .venv/bin/python benchmarks/bench_compare.py            # every case
    .venv/bin/python benchmarks/bench_compare.py --write    # also write benchmarks/RESULTS-compare.md
    .venv/bin/python benchmarks/bench_compare.py --queries 2000 --resamples 2000   # quicker

The data (generated once, under benchmarks/_data/): per-query scores of 10 runs on
10,000 queries for 5 metrics, shaped like real ones (a query difficulty shared by
all runs, small run effects, many zeros; P@10 in steps of 0.1, RR = 1/rank); two
runs are identical. rankmeter gets them as precomputed ``Result`` objects, so the
timing is the comparison itself: 45 pairs x 5 metrics = 225 comparisons, a
randomisation test with 10,000 sign patterns and a paired bootstrap test with
10,000 resamples, plus BCa intervals for the 50 means and 225 differences.

Every case runs in a fresh Python process and reports wall-clock and CPU time and
peak resident memory (``ru_maxrss``: interpreter and libraries included). The
competitors do the same statistics one comparison at a time: SciPy's
``permutation_test`` (vectorised, paired sign flips) and ``bootstrap`` (paired,
BCa), ranx's numba ``fisher_randomization_test`` (what ``ranx.compare`` runs), and
a plain NumPy loop (a fresh sign matrix and one matrix-vector product per
comparison). They take long, so they run on a subset of comparisons and the time
is extrapolated linearly to all 225 (stated in the table).

The goal of issue #5: under 10 s on this 2-core machine.
"""

from __future__ import annotations

import argparse
import hashlib
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

METRICS = ["ndcg@10", "P@10", "ap", "rr", "recall@100"]

CASES = {
    "rankmeter": "randomisation (10k sign patterns) + paired bootstrap (10k) + BCa intervals",
    "rankmeter-2-threads": "the same with BLAS left at 2 threads (results must be identical)",
    "rankmeter-all-tests": "t-test + Wilcoxon + randomisation + bootstrap + intervals",
    "scipy-permutation": "scipy.stats.permutation_test, paired sign flips, vectorised",
    "scipy-bootstrap": "scipy.stats.bootstrap, paired, BCa (225 differences + 50 means)",
    "ranx-fisher": "ranx fisher_randomization_test (numba, parallel)",
    "numpy-loop": "NumPy, one comparison at a time (fresh signs, matrix-vector product)",
}


# --------------------------------------------------------------------------- data


def data_path(n_runs: int, n_queries: int) -> Path:
    return DATA / f"compare-scores-{n_runs}x{n_queries}.npz"


def generate(n_runs: int, n_queries: int) -> Path:
    import numpy as np

    path = data_path(n_runs, n_queries)
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2024)
    hard = rng.beta(2, 3, n_queries)  # query difficulty, shared by every run
    effect = np.linspace(-0.04, 0.05, n_runs)
    out = np.empty((len(METRICS), n_runs, n_queries))
    for r in range(n_runs):
        e = effect[r]
        base = hard + e + rng.normal(0, 0.15, n_queries)
        ndcg = np.clip(base, 0, 1) * (rng.random(n_queries) > 0.12)
        p10 = np.rint(np.clip(base * 0.8 + rng.normal(0, 0.1, n_queries), 0, 1) * 10) / 10
        ap = np.clip(hard**1.4 + e + rng.normal(0, 0.12, n_queries), 0, 1) * (rng.random(n_queries) > 0.1)
        rank = rng.geometric(np.clip(0.25 + hard * 0.5 + e, 0.05, 0.95))
        rr = np.where(rank <= 100, 1.0 / rank, 0.0)
        recall = np.clip(hard * 0.6 + 0.35 + e + rng.normal(0, 0.1, n_queries), 0, 1)
        out[:, r] = [ndcg, p10, ap, rr, recall]
    out[:, n_runs - 1] = out[:, n_runs - 2]  # two identical runs: a defined edge case in the data
    np.savez(path, scores=out, metrics=np.array(METRICS))
    return path


def load(n_runs: int, n_queries: int):
    import numpy as np

    with np.load(data_path(n_runs, n_queries)) as z:
        return z["scores"]


def comparisons(n_runs: int):
    import itertools

    return [(m, a, b) for m in range(len(METRICS)) for a, b in itertools.combinations(range(n_runs), 2)]


# --------------------------------------------------------------------------- cases


def case_rankmeter(args, tests):
    import numpy as np

    sys.path.insert(0, str(ROOT / "src"))
    from rankmeter.compare import compare
    from rankmeter.result import Result

    scores = load(args.runs, args.queries)
    queries = [f"q{i}" for i in range(args.queries)]
    results = {f"run{r:02d}": Result(queries=queries, values={m: scores[i, r] for i, m in enumerate(METRICS)})
               for r in range(args.runs)}
    t0, c0 = time.perf_counter(), time.process_time()
    cmp = compare(None, results, METRICS, test=tests, pairs="all", n_resamples=args.resamples, seed=0)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    digest = hashlib.sha256(cmp.to_json(details=True).encode()).hexdigest()[:16]
    sig = sum(t.significant for t in cmp.tests if t.test == tests[0])
    return {"wall": wall, "cpu": cpu, "comparisons": len(cmp.tests) // len(tests), "digest": digest,
            "extra": f"{sig} of {len(cmp.tests) // len(tests)} significant ({tests[0]}); "
                     f"{cmp.settings.randomization or ''}", "extrapolated": False,
            "p_check": float(np.mean([t.p_value for t in cmp.tests]))}


def case_scipy_permutation(args):
    import numpy as np
    from scipy import stats

    scores = load(args.runs, args.queries)
    comps = comparisons(args.runs)[: args.subset]
    t0, c0 = time.perf_counter(), time.process_time()
    for m, a, b in comps:
        d = scores[m, b] - scores[m, a]
        stats.permutation_test((d,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples",
                               vectorized=True, n_resamples=args.resamples, rng=np.random.default_rng(0))
    return _extrapolate(t0, c0, len(comps), args)


def case_scipy_bootstrap(args):
    import numpy as np
    from scipy import stats

    scores = load(args.runs, args.queries)
    comps = comparisons(args.runs)[: args.subset]
    t0, c0 = time.perf_counter(), time.process_time()
    for m, a, b in comps:  # a difference interval per comparison ...
        stats.bootstrap((scores[m, b], scores[m, a]), lambda x, y, axis: np.mean(x - y, axis=axis), paired=True,
                        vectorized=True, n_resamples=args.resamples, method="BCa", rng=np.random.default_rng(0))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    n_all = len(comparisons(args.runs))
    # ... and a mean interval per run and metric (50), costing about as much each
    per = wall / len(comps)
    total_units = n_all + len(METRICS) * args.runs
    return {"wall": per * total_units, "cpu": cpu / len(comps) * total_units, "comparisons": n_all,
            "extrapolated": True, "measured": f"{len(comps)} comparisons in {wall:.1f} s",
            "extra": f"extrapolated from {len(comps)} to {total_units} intervals"}


def case_ranx(args):
    import numpy as np

    try:
        from ranx.statistical_tests import fisher_randomization_test
    except ImportError:
        return {"skipped": "ranx not installed"}
    scores = load(args.runs, args.queries)
    t0 = time.perf_counter()
    fisher_randomization_test(np.random.random(50), np.random.random(50), 10, 0.01, 42)  # numba compile
    compile_s = time.perf_counter() - t0
    comps = comparisons(args.runs)[: args.subset]
    t0, c0 = time.perf_counter(), time.process_time()
    for m, a, b in comps:
        fisher_randomization_test(scores[m, a], scores[m, b], args.resamples, 0.01, 42)
    out = _extrapolate(t0, c0, len(comps), args)
    out["extra"] += f"; numba compile/load {compile_s:.1f} s not counted"
    return out


def case_numpy_loop(args):
    import numpy as np

    scores = load(args.runs, args.queries)
    comps = comparisons(args.runs)[: args.subset]
    rng = np.random.default_rng(0)
    t0, c0 = time.perf_counter(), time.process_time()
    for m, a, b in comps:
        d = scores[m, b] - scores[m, a]
        obs = abs(d.sum())
        count = 0
        for s in range(0, args.resamples, 1000):
            signs = rng.choice(np.array([-1.0, 1.0]), size=(min(1000, args.resamples - s), len(d)))
            count += int(np.sum(np.abs(signs @ d) >= obs))
    return _extrapolate(t0, c0, len(comps), args)


def _extrapolate(t0, c0, done, args):
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    n_all = len(comparisons(args.runs))
    return {"wall": wall / done * n_all, "cpu": cpu / done * n_all, "comparisons": n_all, "extrapolated": True,
            "measured": f"{done} comparisons in {wall:.1f} s",
            "extra": f"extrapolated from {done} to {n_all} comparisons (randomisation only)"}


def run_case(name, args):
    if name == "rankmeter" or name == "rankmeter-2-threads":
        out = case_rankmeter(args, ["randomization", "bootstrap"])
    elif name == "rankmeter-all-tests":
        out = case_rankmeter(args, ["t", "wilcoxon", "randomization", "bootstrap"])
    elif name == "scipy-permutation":
        out = case_scipy_permutation(args)
    elif name == "scipy-bootstrap":
        out = case_scipy_bootstrap(args)
    elif name == "ranx-fisher":
        out = case_ranx(args)
    else:
        out = case_numpy_loop(args)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


# --------------------------------------------------------------------------- driver


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--subset", type=int, default=5, help="comparisons the slow competitors actually run")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--write", action="store_true", help="write benchmarks/RESULTS-compare.md")
    ap.add_argument("--fresh", action="store_true", help="forget the stored results of earlier runs")
    args = ap.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args)))
        return
    path = generate(args.runs, args.queries)
    print(f"data: {path.name} ({path.stat().st_size / 2**20:.0f} MB); "
          f"{args.runs} runs x {args.queries} queries x {len(METRICS)} metrics, {args.resamples} resamples")
    store = DATA / f"compare-results-{args.runs}x{args.queries}x{args.resamples}.json"
    results = {}
    if store.exists() and not args.fresh:  # earlier cases of the same size, updated by this run
        results = json.loads(store.read_text())
    for name in args.cases.split(","):
        env = dict(os.environ)
        if name == "rankmeter-2-threads":
            env.update(RANKMETER_RESAMPLE_BLAS_THREADS="0")  # rankmeter otherwise runs BLAS on one thread
        load_before = round(os.getloadavg()[0], 1)
        cmd = [sys.executable, __file__, "--case", name, "--runs", str(args.runs), "--queries", str(args.queries),
               "--resamples", str(args.resamples), "--subset", str(args.subset)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print(f"{name}: FAILED\n{proc.stderr[-3000:]}")
            continue
        res = json.loads(proc.stdout.strip().splitlines()[-1])
        res["load_before"] = load_before
        res["when"] = time.strftime("%Y-%m-%d %H:%M")
        results[name] = res
        store.write_text(json.dumps(results, indent=1))
        if "skipped" in res:
            print(f"{name:<22} skipped: {res['skipped']}")
            continue
        mark = "~" if res.get("extrapolated") else " "
        print(f"{name:<22} {mark}{res['wall']:8.2f} s wall {res['cpu']:8.2f} s cpu {res['peak_rss_mb']:7.0f} MB  "
              f"{res.get('extra', '')}")
    base = results.get("rankmeter", {}).get("wall")
    if base:
        print("\nratios to rankmeter (randomisation + bootstrap):")
        for name, res in results.items():
            if "wall" in res and name != "rankmeter" and name in CASES:
                print(f"  {name:<22} {res['wall'] / base:8.1f}x")
    if "rankmeter" in results and "rankmeter-2-threads" in results:
        same = results["rankmeter"]["digest"] == results["rankmeter-2-threads"]["digest"]
        print(f"\n1 vs 2 BLAS threads: identical results: {same}")
    if args.write:
        write_results(results, args)


def write_results(results, args) -> None:
    cpu = platform.processor() or platform.machine()
    lines = [
        "# Benchmark: comparing runs (issue #5)",
        "",
        f"Machine: 2 cores, 24 GB RAM ({cpu}, Linux), Python {platform.python_version()}, OpenBLAS. "
        "Produced by `.venv/bin/python benchmarks/bench_compare.py --write`.",
        "",
        f"Task: {args.runs} runs x {args.queries:,} queries x {len(METRICS)} metrics, all "
        f"{len(comparisons(args.runs)) // len(METRICS)} pairs per metric ({len(comparisons(args.runs))} comparisons), "
        f"randomisation test with {args.resamples:,} sign patterns plus paired bootstrap with {args.resamples:,} "
        "resamples (and BCa intervals for every mean and difference). Goal: under 10 s.",
        "",
        "The machine is shared with other developers: the load average (1 min) before each case is shown. "
        "With more runnable processes than cores, wall-clock time exceeds CPU time; CPU time is the figure "
        "that does not depend on the load.",
        "",
        "| case | what | wall (s) | CPU (s) | peak RSS (MB) | vs rankmeter (wall / CPU) | load | notes |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    base = results.get("rankmeter", {}).get("wall")
    base_cpu = results.get("rankmeter", {}).get("cpu")
    for name in [c for c in CASES if c in results]:
        res = results[name]
        if "skipped" in res:
            lines.append(f"| {name} | {CASES[name]} | | | | | | skipped: {res['skipped']} |")
            continue
        approx = "~" if res.get("extrapolated") else ""
        ratio = f"{res['wall'] / base:.1f}x / {res['cpu'] / base_cpu:.1f}x" if base and base_cpu else ""
        note = res.get("extra", "")
        if res.get("measured"):
            note += f" (measured: {res['measured']})"
        lines.append(f"| {name} | {CASES[name]} | {approx}{res['wall']:.2f} | {approx}{res['cpu']:.2f} | "
                     f"{res['peak_rss_mb']:.0f} | {ratio} | {res.get('load_before', '')} | {note} |")
    if "rankmeter" in results and "rankmeter-2-threads" in results:
        same = results["rankmeter"]["digest"] == results["rankmeter-2-threads"]["digest"]
        lines += ["", f"One vs two BLAS threads give {'identical' if same else 'DIFFERENT'} results "
                      f"(SHA-256 of the full JSON output: `{results['rankmeter']['digest']}`)."]
    lines += ["", "`~`: extrapolated linearly from the measured subset to all comparisons.", ""]
    (HERE / "RESULTS-compare.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {HERE / 'RESULTS-compare.md'}")


if __name__ == "__main__":
    main()
