"""Whole-job benchmark of `rankmeter evaluate` against pytrec_eval and ranx users' jobs.

Generates 10,000 (and 100,000) queries x 100 ranked items with ~10 judged items each as TREC
files, then measures, in the same run, each tool's whole process: start the
interpreter, import, read both files, evaluate ndcg@10, ap@100, rr@100, p@10 and
r@100, print the means. Each job runs in a fresh process; wall time and peak RSS
are measured from outside. "cold" is the first run (for ranx with an empty numba
cache, so its JIT compilation counts), once both files are in the OS's page cache
(whichever tool ran first would otherwise pay for the disk); "warm" is the median of the next runs, which
are interleaved across the tools. rankmeter's bytecode is compiled first, as pip does
when it installs a package.

At 10M lines (100,000 queries) the warm runs are fewer (``--repeat-large``) and the
trec_eval program, if on PATH, is left out unless asked (its query lookup is quadratic).

    python benchmarks/bench_evaluate.py [--queries 10000,100000] [--depth 100] [--repeat 15]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"
PY = sys.executable
BIN = Path(PY).parent

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
ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map_cut.100", "recip_rank", "P.10", "recall.100"})
res = ev.evaluate(run)
names = ["ndcg_cut_10", "map_cut_100", "recip_rank", "P_10", "recall_100"]
print({n: sum(r[n] for r in res.values()) / len(res) for n in names})
"""

RANX_JOB = r"""
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
print(evaluate(qrels, run, ["ndcg@10", "map@100", "mrr@100", "precision@10", "recall@100"]))
"""


def generate(n_queries: int, depth: int, judged: int, seed: int = 0) -> tuple[Path, Path]:
    DATA.mkdir(exist_ok=True)
    qpath, rpath = DATA / f"qrels_{n_queries}.txt", DATA / f"run_{n_queries}x{depth}.txt"
    if qpath.exists() and rpath.exists():
        return qpath, rpath
    rng = np.random.default_rng(seed)
    n_docs = 1_000_000
    with open(rpath, "w") as rf, open(qpath, "w") as qf:
        for q in range(n_queries):
            docs = rng.choice(n_docs, depth + judged, replace=False)
            ranked = docs[:depth]
            scores = np.round(np.sort(rng.random(depth))[::-1] * 100, 3)  # 3 decimals: some ties
            rf.write("".join(f"q{q} Q0 doc{d} {i + 1} {s} bench\n" for i, (d, s) in enumerate(zip(ranked, scores))))
            # ~10 judged: half from the ranking (biased to the top), half unretrieved
            top = rng.choice(ranked[: depth // 2], judged // 2, replace=False)
            for d in np.concatenate([top, docs[depth:depth + judged - judged // 2]]):
                qf.write(f"q{q} 0 doc{d} {int(rng.integers(0, 3))}\n")
    return qpath, rpath


def measure(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB, stdout of one fresh process."""
    wrapper = (
        "import resource, subprocess, sys, time, json;"
        "t=time.perf_counter(); p=subprocess.run(sys.argv[1:], capture_output=True, text=True);"
        "dt=time.perf_counter()-t; ru=resource.getrusage(resource.RUSAGE_CHILDREN);"
        "print(json.dumps({'rc': p.returncode, 'sec': dt, 'rss': ru.ru_maxrss/1024, 'out': p.stdout[-400:], 'err': p.stderr[-800:]}))"
    )
    out = subprocess.run([PY, "-c", wrapper, *cmd], capture_output=True, text=True, env=env)
    info = json.loads(out.stdout)
    if info["rc"] != 0:
        raise RuntimeError(f"{cmd[:3]} failed: {info['err']}")
    return info["sec"], info["rss"], info["out"]


TREC_EVAL_MEASURES = ["-m", "ndcg_cut.10", "-m", "map_cut.100", "-m", "recip_rank", "-m", "P.10", "-m", "recall.100"]


def bench_size(n_queries: int, args: argparse.Namespace, env: dict[str, str]) -> dict[str, tuple[float, float, float]]:
    qpath, rpath = generate(n_queries, args.depth, args.judged)
    repeat = args.repeat if n_queries <= 10_000 else args.repeat_large
    print(f"\ndata: {n_queries} queries x {args.depth} items = {n_queries * args.depth / 1e6:g}M run lines "
          f"({rpath.stat().st_size / 1e6:.1f} MB run file), ~{args.judged} judged per query; {repeat} warm runs")
    metrics = ["-m", "ndcg@10", "-m", "ap@100", "-m", "rr@100", "-m", "p@10", "-m", "r@100"]
    jobs = {
        "rankmeter evaluate (CLI)": [str(BIN / "rankmeter"), "evaluate", str(qpath), str(rpath), *metrics,
                                     "--format", "json"],
        "pytrec_eval (read dicts + evaluate)": [PY, "-c", PYTREC_JOB, str(qpath), str(rpath)],
    }
    if n_queries <= 10_000:
        # the same run with a 7th column (a run id written twice, as some tools do): must be as fast
        r7 = rpath.with_name(rpath.stem + "_7col.txt")
        if not r7.exists():
            with open(rpath) as src, open(r7, "w") as dst:
                for line in src:
                    dst.write(line.rstrip("\n") + " extra\n")
        jobs["rankmeter evaluate (CLI), 7-column run"] = [str(BIN / "rankmeter"), "evaluate", str(qpath), str(r7),
                                                          *metrics, "--format", "json"]
    if not args.no_ranx and (n_queries <= 10_000 or args.ranx_large):
        jobs["ranx (from_file + evaluate)"] = [PY, "-c", RANX_JOB, str(qpath), str(rpath)]
    trec_eval = shutil.which("trec_eval")
    if trec_eval and (n_queries <= 10_000 or args.trec_eval_large):  # its query lookup is quadratic
        jobs["trec_eval (C program)"] = [trec_eval, *TREC_EVAL_MEASURES, str(qpath), str(rpath)]
    for path in [qpath, rpath] + [Path(a) for cmd in jobs.values() for a in cmd if a.endswith("_7col.txt")]:
        with open(path, "rb") as fh:  # into the page cache first: "cold" is about the tools, not the disk
            while fh.read(1 << 24):
                pass
    cold: dict[str, tuple[float, float]] = {}
    for name, cmd in jobs.items():
        try:
            sec, rss, out = measure(cmd, env)
        except (RuntimeError, FileNotFoundError) as exc:
            print(f"{name}: skipped ({str(exc)[:200]})")
            continue
        cold[name] = (sec, rss)
        print(f"  {name}: {out.strip()[:160]}")
    # warm runs interleaved, so a change in the machine's load hits every tool alike
    warm: dict[str, list[tuple[float, float]]] = {name: [] for name in cold}
    for _ in range(repeat):
        for name in cold:
            sec, rss, _out = measure(jobs[name], env)
            warm[name].append((sec, rss))
    results = {name: (cold[name][0], statistics.median(w[0] for w in warm[name]),
                      max([cold[name][1]] + [w[1] for w in warm[name]])) for name in cold}
    for name in cold:
        print(f"  {name}: warm runs {', '.join(f'{w[0]:.2f}' for w in warm[name])} s")
    print(f"{'tool':42s} {'cold s':>8s} {'warm s':>8s} {'peak MB':>8s} {'cold/warm':>9s}")
    for name, (c, w, rss) in results.items():
        print(f"{name:42s} {c:8.2f} {w:8.2f} {rss:8.0f} {c / w:9.2f}")
    ours = results.get("rankmeter evaluate (CLI)")
    if ours:
        for name, (c, w, rss) in results.items():
            if name.startswith("rankmeter"):
                continue
            print(f"rankmeter / {name}: {ours[1] / w:.3f} of its warm time ({w / ours[1]:.1f}x faster), "
                  f"{ours[0] / c:.3f} cold, peak memory {ours[2] / rss:.2f}x theirs")
    return results


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", default="10000,100000",
                    help="comma-separated numbers of queries (x --depth run lines each)")
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--judged", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=15, help="warm runs at 1M lines and below")
    ap.add_argument("--repeat-large", type=int, default=3, help="warm runs above 1M lines")
    ap.add_argument("--no-ranx", action="store_true", help="leave ranx out (its JIT takes a minute cold)")
    ap.add_argument("--ranx-large", action="store_true", help="run ranx above 1M lines too (minutes)")
    ap.add_argument("--trec-eval-large", action="store_true", help="run the trec_eval program above 1M lines too "
                    "(minutes: its query lookup is quadratic)")
    args = ap.parse_args()
    numba_cache = tempfile.mkdtemp(prefix="numba-cache-")
    env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache)
    # an installed package has its bytecode compiled by pip; an editable install under
    # PYTHONDONTWRITEBYTECODE=1 never writes it, and would compile rankmeter's sources on every run
    import rankmeter

    compileall.compile_dir(str(Path(rankmeter.__file__).parent), quiet=1)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M')}, load {os.getloadavg()[0]:.2f}")
    try:
        for n in (int(x) for x in args.queries.split(",")):
            bench_size(n, args, env)
    finally:
        shutil.rmtree(numba_cache, ignore_errors=True)


if __name__ == "__main__":
    main()
