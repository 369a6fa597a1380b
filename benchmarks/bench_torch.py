"""rankmeter.torch against a plain PyTorch loop, torchmetrics and rankmeter's numpy path (issue 25, item 4).

Every tool runs in this one process, on the same tensors, and each is timed as its best of
``--repeats`` runs after a warm-up (CUDA synchronised):

- ``rankmeter.torch`` (``selection="key"`` and ``"margin"``): masking, the exact top k with
  the tie rule, the host lists and rankmeter's kernels: everything from the score tensor to
  the Result;
- ``plain loop``: mask with -inf, ``topk``, gather the hits, nDCG@10 and recall@100 in torch
  (the physical-limit sketch: no tie rule, ``topk``'s order among ties);
- ``torchmetrics``: ``RetrievalNormalizedDCG(top_k=10)`` and ``RetrievalRecall(top_k=100)`` on the
  flattened matrix (its API), on a smaller matrix (``--tm-size``), where installed;
- ``numpy path``: what a user without torch does: the masked matrix on the host (the copy is not
  timed), a partition per row for the k-th score, the tie rule on the candidates, then
  ``rankmeter.evaluate`` on the lists (selection timed too);
- embeddings (``--emb``): ``rankmeter.torch.topk`` + five metrics against a plain matmul + ``topk``
  loop in blocks of users.

Goals checked and printed (a missed goal is printed with its figure): on a CPU, a 10k x 20k
float32 matrix at least as fast as the numpy path and never more than twice the plain CPU loop;
on a GPU, at least 0.5x the plain loop on 10k x 100k and 20k x 200k, at least 1,000x torchmetrics'
rate, and embeddings within 1.5x of the plain loop.

    python benchmarks/bench_torch.py                      # CPU: 10k x 20k, k = 100
    python benchmarks/bench_torch.py --device cuda        # GPU: 10k x 100k and 20k x 200k, 1M x 1M embeddings
    python benchmarks/bench_torch.py --quick              # a small check that everything runs
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from typing import Any, Callable

import numpy as np

K = 100
METRICS = ["ndcg@10", "recall@100"]
EMB_METRICS = ["ndcg@10", "recall@100", "P@10", "ap@100", "rr@100"]


def _sync(torch: Any, device: Any) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def best_of(fn: Callable[[], Any], repeats: int, torch: Any, device: Any) -> tuple[float, Any]:
    """Best wall time of ``repeats`` runs after one warm-up, and the last output (the CPU time of that best
    run is kept too: on a shared machine it is the steadier figure)."""
    out = fn()
    _sync(torch, device)
    best, cpu = float("inf"), 0.0
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        _sync(torch, device)
        wall = time.perf_counter() - t
        if wall < best:
            best, cpu = wall, time.process_time() - c
    LAST_CPU[0] = cpu
    return best, out


LAST_CPU = [0.0]  # the CPU time of the last best_of's best run


def make_data(torch: Any, n: int, m: int, device: Any, seed: int = 0) -> dict[str, Any]:
    """Scores rounded to 3 decimals (real scores tie), ~20 hidden training items and ~10 relevant per user."""
    g = torch.Generator(device=device).manual_seed(seed)
    scores = torch.round(torch.rand((n, m), generator=g, device=device) * 1000) / 1000
    excluded = torch.rand((n, m), generator=g, device=device) < (20 / m)
    relevant = (torch.rand((n, m), generator=g, device=device) < (10 / m)) & ~excluded
    rows, cols = torch.nonzero(relevant, as_tuple=True)
    return {"scores": scores, "excluded": excluded, "relevant": relevant, "pairs": (rows, cols)}


def plain_loop(torch: Any, d: dict[str, Any], k: int = K) -> dict[str, float]:
    """Mask, topk, gather the hits; nDCG@10 and recall@100 with binary gains (the issue's sketch)."""
    s = d["scores"].masked_fill(d["excluded"], float("-inf"))
    top = torch.topk(s, k, dim=1).indices
    hits = torch.gather(d["relevant"], 1, top).to(torch.float64)
    n_rel = d["relevant"].sum(dim=1).to(torch.float64)
    disc = 1.0 / torch.log2(torch.arange(2, 12, device=s.device, dtype=torch.float64))
    dcg = (hits[:, :10] * disc).sum(dim=1)
    ideal = torch.cumsum(disc, 0)[(torch.clamp(n_rel, max=10) - 1).clamp(min=0).long()]
    has = n_rel > 0
    ndcg = (dcg[has] / ideal[has]).mean()
    recall = (hits.sum(dim=1)[has] / n_rel[has]).mean()
    return {"ndcg@10": float(ndcg), "recall@100": float(recall)}


def rankmeter_torch(rmt: Any, d: dict[str, Any], selection: str) -> Any:
    return rmt.evaluate(d["scores"], d["pairs"], METRICS, exclude=d["excluded"], selection=selection)


def numpy_path(rankmeter: Any, host: dict[str, np.ndarray], k: int = K) -> Any:
    """The exact top k with numpy (a partition per row for the k-th score, the tie rule on the candidates at or
    above it, vectorised), then rankmeter.evaluate on the lists."""
    import pyarrow as pa

    s = np.where(host["excluded"], -np.inf, host["scores"])
    n, m = s.shape
    ids = np.array([str(j) for j in range(m)])
    rank = np.empty(m, dtype=np.int64)
    rank[np.argsort(ids.astype("S"), kind="stable")] = np.arange(m)  # byte order of the ids
    part = np.argpartition(-s, k - 1, axis=1)[:, :k]
    kth = np.take_along_axis(s, part, axis=1).min(axis=1)
    r, c = np.nonzero(s >= kth[:, None])
    v = s[r, c]
    keep = np.isfinite(v)
    r, c, v = r[keep], c[keep], v[keep]
    o = np.lexsort((-rank[c], -v, r))  # by user, then score descending, then id descending by bytes
    r, c, v = r[o], c[o], v[o]
    top = (np.arange(len(r)) - np.searchsorted(r, r)) < k
    r, c, v = r[top], c[top], v[top]
    run = pa.table({"query": pa.array(r).cast(pa.string()), "item": pa.array(c).cast(pa.string()),
                    "score": v.astype(np.float64)})
    rr, cc = host["pairs"]
    qrels = pa.table({"query": pa.array(rr).cast(pa.string()), "item": pa.array(cc).cast(pa.string()),
                      "grade": np.ones(len(rr), dtype=np.int64)})
    return rankmeter.evaluate(qrels, run, METRICS)


def torchmetrics_run(torch: Any, d: dict[str, Any]) -> dict[str, float] | None:
    try:
        from torchmetrics.retrieval import RetrievalNormalizedDCG, RetrievalRecall  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    s = d["scores"].masked_fill(d["excluded"], float("-inf"))
    n, m = s.shape
    keep = ~d["excluded"].reshape(-1)
    preds = s.reshape(-1)[keep]
    target = d["relevant"].reshape(-1)[keep]
    indexes = torch.arange(n, device=s.device).repeat_interleave(m)[keep]
    ndcg = RetrievalNormalizedDCG(top_k=10).to(s.device)
    rec = RetrievalRecall(top_k=100).to(s.device)
    return {"ndcg@10": float(ndcg(preds, target, indexes=indexes)),
            "recall@100": float(rec(preds, target, indexes=indexes))}


def emb_plain(torch: Any, u: Any, it: Any, k: int, block: int) -> Any:
    out = []
    for a in range(0, u.shape[0], block):
        out.append(torch.topk(u[a:a + block] @ it.T, k, dim=1).indices)
    return torch.cat(out)


def row(label: str, seconds: float, cells: float, base: float | None) -> str:
    rate = cells / seconds
    ratio = f"{base / seconds:8.3f}x" if base else "         "
    return (f"  {label:<34} {seconds:9.3f} s (CPU {LAST_CPU[0]:7.3f} s)  {rate / 1e9:8.3f} G scores/s  {ratio} the "
            "plain loop's rate")


def goal(ok: bool, text: str) -> str:
    return f"  goal {'MET   ' if ok else 'MISSED'} {text}"


def bench_matrix(torch: Any, rmt: Any, rankmeter: Any, n: int, m: int, device: Any, repeats: int,
                 numpy_max_cells: float, tm_size: tuple[int, int]) -> list[str]:
    lines = [f"\n== {n:,} users x {m:,} items, float32 scores rounded to 3 decimals, k = {K}, "
             f"{', '.join(METRICS)}"]
    d = make_data(torch, n, m, device)
    cells = float(n * m)
    t_plain, plain = best_of(lambda: plain_loop(torch, d), repeats, torch, device)
    lines.append(row("plain loop (mask, topk, gather)", t_plain, cells, None))
    results: dict[str, tuple[float, Any]] = {}
    for sel in ("auto", "key", "margin"):
        def ours(sel: str = sel) -> Any:
            return rankmeter_torch(rmt, d, sel)

        t, res = best_of(ours, repeats, torch, device)
        results[sel] = (t, res)
        lines.append(row(f"rankmeter.torch (selection={sel})", t, cells, t_plain))
    t_rm = results["auto"][0]  # the default, which the goals are about
    res = results["auto"][1]
    assert all(np.array_equal(r.values[mm], res.values[mm]) for _, r in results.values() for mm in METRICS)
    t_np = None
    if cells <= numpy_max_cells:
        host = {"scores": d["scores"].cpu().numpy(), "excluded": d["excluded"].cpu().numpy(),
                "pairs": tuple(x.cpu().numpy() for x in d["pairs"])}
        t_np, np_res = best_of(lambda: numpy_path(rankmeter, host), max(1, repeats // 2), torch, device)
        lines.append(row("numpy path (partition + tie rule)", t_np, cells, t_plain))
        same = all(np.array_equal(np_res.values[mm], res.values[mm]) for mm in METRICS)
        lines.append(f"  numpy path's per-user values {'equal' if same else 'DIFFER FROM'} rankmeter.torch's")
    else:
        lines.append(f"  numpy path: not run ({cells:.3g} cells > --numpy-max-cells)")
    lines.append(f"  means: rankmeter.torch {res.mean}; plain loop {plain} (topk's order among ties)")
    if device.type == "cpu":
        if t_np is not None:
            lines.append(goal(t_rm <= t_np, f"at least as fast as the numpy path: {t_rm:.3f} s vs {t_np:.3f} s "
                                            f"({t_np / t_rm:.2f}x)"))
        lines.append(goal(t_rm <= 2 * t_plain, f"at most twice the plain CPU loop: {t_rm:.3f} s vs {t_plain:.3f} s "
                                              f"({t_rm / t_plain:.2f}x its time)"))
    else:
        lines.append(goal(t_plain / t_rm >= 0.5, f"at least 0.5x the plain loop's rate: {t_plain / t_rm:.3f}x"))
    # torchmetrics on a smaller matrix (it is thousands of times slower), compared by rate
    tn, tm = tm_size
    dt = make_data(torch, tn, tm, device, seed=1)
    t_tm, tm_out = best_of(lambda: torchmetrics_run(torch, dt), 1, torch, device)
    if tm_out is None:
        lines.append("  torchmetrics: not installed")
    else:
        t_rt, rt = best_of(lambda: rmt.evaluate(dt["scores"], dt["pairs"], METRICS, exclude=dt["excluded"]),
                           repeats, torch, device)
        rate_tm, rate_rm = tn * tm / t_tm, cells / t_rm
        lines.append(f"  torchmetrics on {tn:,} x {tm:,}: {t_tm:.3f} s, {rate_tm / 1e6:.3f} M scores/s; means "
                     f"{tm_out} (rankmeter.torch on the same: {rt.mean}, {t_rt:.3f} s)")
        if device.type == "cuda":
            lines.append(goal(rate_rm / rate_tm >= 1000, f"at least 1,000x torchmetrics' rate: "
                                                         f"{rate_rm / rate_tm:,.0f}x"))
        else:
            lines.append(f"  {rate_rm / rate_tm:,.0f}x torchmetrics' rate (its 1,000x goal is a GPU goal)")
    return lines


def bench_embeddings(torch: Any, rmt: Any, rankmeter: Any, n: int, m: int, dim: int, device: Any,
                     repeats: int, dtype: Any) -> list[str]:
    lines = [f"\n== embeddings: {n:,} users x {m:,} items, {dim}-d {str(dtype).removeprefix('torch.')}, top {K}, "
             f"{len(EMB_METRICS)} metrics"]
    g = torch.Generator(device=device).manual_seed(2)
    u = torch.randn((n, dim), generator=g, device=device).to(dtype)
    it = torch.randn((m, dim), generator=g, device=device).to(dtype)
    relevant = {str(x): {str(int(y)): 1 for y in np.random.default_rng(x).integers(0, m, 10)}
                for x in range(0, n, max(1, n // 20000))}
    block = 2048
    t_plain, _ = best_of(lambda: emb_plain(torch, u, it, K, block), repeats, torch, device)
    lines.append(f"  plain matmul + topk (blocks of {block}): {t_plain:.3f} s")

    def ours() -> Any:
        run = rmt.topk(u, it, K)
        return rankmeter.evaluate(relevant, run, EMB_METRICS)

    t_rm, _ = best_of(ours, repeats, torch, device)
    lines.append(f"  rankmeter.torch.topk + rankmeter.evaluate: {t_rm:.3f} s ({t_rm / t_plain:.2f}x the plain loop)")
    if device.type == "cuda":
        lines.append(goal(t_rm <= 1.5 * t_plain, f"within 1.5x of the plain loop: {t_rm / t_plain:.2f}x"))
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    p.add_argument("--sizes", default=None, help="users x items list, e.g. 10000x20000,20000x200000")
    p.add_argument("--emb", default=None, help="embeddings users x items x dim, e.g. 1000000x1000000x64 ('' : none)")
    p.add_argument("--tm-size", default=None, help="torchmetrics' matrix, users x items")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--numpy-max-cells", type=float, default=4e8)
    p.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (CPU)")
    p.add_argument("--quick", action="store_true", help="small sizes: check that everything runs")
    a = p.parse_args(argv)

    import torch

    import rankmeter
    import rankmeter.torch as rmt

    if a.threads:
        torch.set_num_threads(a.threads)
    device = torch.device(a.device)
    gpu = device.type == "cuda"
    if a.quick:
        sizes, emb, tm_size = [(300, 2000)], (500, 3000, 16), (100, 500)
    else:
        sizes = [(10_000, 100_000), (20_000, 200_000)] if gpu else [(10_000, 20_000)]
        emb = (1_000_000, 1_000_000, 64) if gpu else (20_000, 50_000, 64)
        tm_size = (10_000, 10_000) if gpu else (1_000, 2_000)
    if a.sizes:
        sizes = [tuple(int(x) for x in s.split("x")) for s in a.sizes.split(",")]  # type: ignore[misc]
    if a.emb is not None:
        emb = tuple(int(x) for x in a.emb.split("x")) if a.emb else None  # type: ignore[assignment]
    if a.tm_size:
        tm_size = tuple(int(x) for x in a.tm_size.split("x"))  # type: ignore[assignment]
    name = torch.cuda.get_device_name(device) if gpu else platform.processor() or platform.machine()
    try:
        import torchmetrics  # type: ignore[import-not-found, unused-ignore]
        tmv = torchmetrics.__version__
    except ImportError:
        tmv = "not installed"
    print(f"bench_torch: {datetime.date.today()}, device {device} ({name}), torch {torch.__version__}, "
          f"{torch.get_num_threads()} CPU threads, torchmetrics {tmv}, python {sys.version.split()[0]}")
    lines: list[str] = []
    for n, m in sizes:
        lines += bench_matrix(torch, rmt, rankmeter, n, m, device, a.repeats, a.numpy_max_cells, tm_size)
        print("\n".join(lines), flush=True)
        lines = []
    if emb:
        n, m, dim = emb
        dtype = torch.bfloat16 if gpu else torch.float32
        print("\n".join(bench_embeddings(torch, rmt, rankmeter, n, m, dim, device, max(1, a.repeats // 2), dtype)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
