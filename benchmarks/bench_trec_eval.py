"""Whole-job benchmark of `rankmeter trec_eval` and `rankmeter.pytrec_eval` against pytrec_eval and trec_eval.

Two parts, each tool in a fresh process, in the same run, warm runs interleaved,
medians reported with the peak RSS of each process:

1. The command line on TREC files of 1M and 10M run lines (1,000 ranked items per
   query, ~100 judgments per query with grades 0-2 and a few -1): `rankmeter
   trec_eval -m all_trec` and `rankmeter trec_eval -q -c -M1000 -m all_trec`
   against pytrec_eval's whole job (read both files into dicts, evaluate every
   all_trec measure pytrec_eval supports, print the means) and against the
   `trec_eval` program with the same options when one is on PATH.
2. The drop-in: `rankmeter.pytrec_eval.RelevanceEvaluator(...).evaluate(run)` against
   `pytrec_eval`'s on the same dicts of 10,000 queries x 1,000 items, every supported
   measure (dict in, dict out; building the dicts, and a first evaluation of one
   query that loads what rankmeter imports lazily, are not timed).

    python benchmarks/bench_trec_eval.py [--lines 1000000 10000000] [--repeat 5]
    python benchmarks/bench_trec_eval.py --quick      # tiny sizes: checks that the script works
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
PY = sys.executable

PYTREC_JOB = r"""
import sys, pytrec_eval
def read(path, col, cast):
    out = {}
    with open(path) as fh:
        for line in fh:
            f = line.split()
            out.setdefault(f[0], {})[f[2]] = cast(f[col])
    return out
qrels = read(sys.argv[1], 3, int)
run = read(sys.argv[2], 4, float)
ev = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures)
res = ev.evaluate(run)
names = sorted(next(iter(res.values())))
print(len(res), {n: pytrec_eval.compute_aggregated_measure(n, [r[n] for r in res.values()]) for n in names[:3]})
"""

# dict in, dict out: the dicts are built first (not timed), then one evaluation is timed
DROPIN_JOB = r"""
import sys, time
import numpy as np
module, n_queries, depth, judged = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if module == "rankmeter":
    import rankmeter.pytrec_eval as pytrec_eval
else:
    import pytrec_eval
rng = np.random.default_rng(0)
qrels, run = {}, {}
for q in range(n_queries):
    docs = [f"d{d}" for d in rng.choice(1_000_000, depth + judged // 2, replace=False).tolist()]
    scores = np.round(rng.random(depth) * 100, 2).tolist()  # 2 decimals: ties
    run[f"q{q}"] = dict(zip(docs[:depth], scores))
    pool = docs[:judged // 2] + docs[depth:]
    qrels[f"q{q}"] = dict(zip(pool, rng.integers(-1, 3, len(pool)).tolist()))
# one small evaluation first: what the first call loads (rankmeter's lazy imports) is not the dict path's cost
pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, pytrec_eval.supported_measures).evaluate({"q": {"a": 1.0, "b": 0.5}})
ev = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures)
t = time.perf_counter()
res = ev.evaluate(run)
dt = time.perf_counter() - t
print(f"{dt!r} {len(res)} {sum(len(v) for v in res.values())}")
"""


def generate(lines: int, depth: int = 1000, judged: int = 100, seed: int = 0) -> tuple[Path, Path]:
    """A TREC run of ``lines`` lines (``depth`` per query) and its judgments, written once into _data."""
    DATA.mkdir(exist_ok=True)
    n_queries = max(lines // depth, 1)
    qpath, rpath = DATA / f"trec_qrels_{lines}.txt", DATA / f"trec_run_{lines}.txt"
    if qpath.exists() and rpath.exists():
        return qpath, rpath
    rng = np.random.default_rng(seed)
    with open(rpath, "w") as rf, open(qpath, "w") as qf:
        for q in range(n_queries):
            docs = rng.choice(10_000_000, depth + judged // 2, replace=False)
            scores = np.round(np.sort(rng.random(depth))[::-1] * 100, 3)  # 3 decimals: some ties
            rf.write("".join(f"{q + 1} Q0 doc{d} {i + 1} {s} bench\n" for i, (d, s) in enumerate(zip(docs, scores))))
            # judgments: half among the ranked items (biased to the top), half unretrieved
            top = rng.choice(docs[: depth // 2], judged // 2, replace=False)
            grades = rng.choice([-1, 0, 0, 0, 1, 1, 2], judged)
            for d, g in zip(np.concatenate([top, docs[depth:]]), grades):
                qf.write(f"{q + 1} 0 doc{d} {g}\n")
    return qpath, rpath


def measure(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB and stdout of one fresh process (psutil samples the RSS)."""
    wrapper = (
        "import json, subprocess, sys, tempfile, time\n"
        "try:\n import psutil\nexcept ImportError:\n psutil = None\n"
        "out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()\n"  # files: a full pipe would block the job
        "t = time.perf_counter(); p = subprocess.Popen(sys.argv[1:], stdout=out, stderr=err)\n"
        "peak = 0\n"
        "if psutil is not None:\n"
        "    proc = psutil.Process(p.pid)\n"
        "    while p.poll() is None:\n"
        "        try:\n            peak = max(peak, proc.memory_info().rss)\n"
        "        except psutil.Error:\n            break\n"
        "        time.sleep(0.02)\n"
        "p.wait(); dt = time.perf_counter() - t\n"
        "import resource\n"
        "peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
        "out.seek(0); err.seek(0); o = out.read(); e = err.read()\n"
        "print(json.dumps({'rc': p.returncode, 'sec': dt, 'rss': peak / 2**20, 'out': o.decode()[-300:],"
        " 'err': e.decode()[-600:]}))\n"
    )
    got = subprocess.run([PY, "-c", wrapper, *cmd], capture_output=True, text=True)
    info = json.loads(got.stdout)
    if info["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} failed: {info['err']}")
    return info["sec"], info["rss"], info["out"]


def run_jobs(title: str, jobs: dict[str, list[str]], repeat: int, base: str,
             inner: bool = False) -> dict[str, tuple[float, float]]:
    """Cold run, then ``repeat`` warm runs interleaved across the jobs; prints medians and ratios to ``base``.

    ``inner``: the job prints its own timing first (seconds of the timed part), used instead of wall time.
    """
    print(f"\n## {title}")
    alive = {}
    for name, cmd in jobs.items():
        try:
            sec, rss, out = measure(cmd)
        except (RuntimeError, FileNotFoundError) as exc:
            print(f"  {name}: skipped ({str(exc)[:300]})")
            continue
        alive[name] = cmd
        print(f"  {name}: cold {sec:.2f} s; output {out.strip()[:140]!r}")
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in alive}
    for _ in range(repeat):
        for name, cmd in alive.items():
            sec, rss, out = measure(cmd)
            runs[name].append((float(out.split()[0]) if inner else sec, rss))
    res = {name: (statistics.median(r[0] for r in rs), max(r[1] for r in rs)) for name, rs in runs.items() if rs}
    print(f"  {'job':58s} {'median s':>9s} {'peak MB':>8s}")
    for name, (sec, rss) in res.items():
        print(f"  {name:58s} {sec:9.3f} {rss:8.0f}")
    if base in res:
        for name, (sec, rss) in res.items():
            if name != base:
                ratio = sec / res[base][0]
                speed = f"{ratio:.2f}x faster" if ratio >= 1 else f"{1 / ratio:.2f}x slower"
                print(f"  {base} vs {name}: {speed}, peak memory "
                      f"{res[base][1] / rss if rss else float('nan'):.2f}x theirs")
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--dropin", type=int, nargs=3, default=[10_000, 1000, 100], metavar=("QUERIES", "DEPTH", "JUDGED"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="tiny sizes, one warm run: checks that everything works")
    args = ap.parse_args()
    if args.quick:
        args.lines, args.dropin, args.repeat = [20_000], [200, 100, 20], 1
    import rankmeter

    compileall.compile_dir(str(Path(rankmeter.__file__).parent), quiet=1)  # as pip does on install
    trec_eval = shutil.which("trec_eval")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"trec_eval program: {trec_eval or 'not on PATH'}")
    rm = [PY, "-m", "rankmeter", "trec_eval"]
    for lines in args.lines:
        qpath, rpath = generate(lines)
        for opts in ([], ["-q", "-c", "-M1000"]):
            o = " ".join(opts)
            jobs = {f"rankmeter trec_eval {o} -m all_trec".replace("  ", " "): [*rm, *opts, "-m", "all_trec",
                                                                               str(qpath), str(rpath)]}
            if not opts:
                jobs["pytrec_eval (read files + evaluate all_trec)"] = [PY, "-c", PYTREC_JOB, str(qpath), str(rpath)]
            if trec_eval:
                jobs[f"trec_eval {o} -m all_trec".replace("  ", " ")] = [trec_eval, *opts, "-m", "all_trec",
                                                                         str(qpath), str(rpath)]
            run_jobs(f"{lines:,} run lines ({rpath.stat().st_size / 1e6:.0f} MB), options: {o or '(none)'}", jobs,
                     args.repeat, next(iter(jobs)))
    nq, depth, judged = (str(x) for x in args.dropin)
    run_jobs(f"dict in, dict out: {nq} queries x {depth} items, every supported measure (evaluate() only)",
             {"rankmeter.pytrec_eval": [PY, "-c", DROPIN_JOB, "rankmeter", nq, depth, judged],
              "pytrec_eval": [PY, "-c", DROPIN_JOB, "pytrec_eval", nq, depth, judged]},
             args.repeat, "rankmeter.pytrec_eval", inner=True)


if __name__ == "__main__":
    main()
