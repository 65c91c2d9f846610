"""The bit-packed margin matrix against the float64 one: U w, U^T d, add, and the memory of U.

``marginboost.core.bit_matrix.BitMarginMatrix`` (issue 17, item 1) against
``marginboost.core.margin_matrix.MarginMatrix``: ``matvec(w)`` against ``U @ w``, ``rmatvec(d)``
against ``U.T @ d`` (``U`` the float matrix's (m, t) Fortran-order view, as the loops use it) and
``add`` against ``add``, at m x t in 5300 x 300 (banana-like), 7400 x 300 (ringnorm-like),
100000 x 100 and 1000000 x 100, single-threaded (BLAS limited to 1 thread by threadpoolctl; the
compiled kernels are serial). Columns: margins ``y * h(X)`` of random stumps (feature, threshold,
sign) on Gaussian features, so that the columns are correlated as in boosting; ``w`` a Dirichlet
point of the t-simplex, ``d`` one of the m-simplex. The products are called in turn ``--repeats``
times after a warm-up (first allocations, caches); a time is the best of
its calls, so that a change of load hits both. ``add``: the t columns added to an empty matrix,
the total over t, best of ``--add-repeats`` builds. Memory: bytes of U in use (m t 8 against
ceil(t/8) ceil(m/8) 8) and allocated (capacity included). ``max err``: the largest
``|bit - float|`` over the entries, over ``sum |w|`` (or ``sum |d|`` = 1).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bit_matrix.py   # writes benchmarks/results/bit_matrix.md
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))  # benchmark this checkout, installed or not

from marginboost.core.bit_matrix import BitMarginMatrix  # noqa: E402
from marginboost.core.margin_matrix import MarginMatrix  # noqa: E402
from marginboost.experiments import metadata  # noqa: E402
from marginboost.experiments.result_files import atomic_write  # noqa: E402

SIZES = {"5300x300": (5300, 300), "7400x300": (7400, 300), "100000x100": (100_000, 100),
         "1000000x100": (1_000_000, 100)}


def stump_columns(m: int, t: int, rng: np.random.Generator, p: int = 20) -> np.ndarray:
    """t distinct margin vectors y * s * sign(x_f - theta) of stumps (t, m)."""
    X = rng.standard_normal((m, p))
    y = rng.choice([-1.0, 1.0], m)
    cols, seen = [], set()
    while len(cols) < t:
        f, s = rng.integers(p), rng.choice([-1.0, 1.0])
        u = y * s * np.where(X[:, f] > rng.standard_normal() * 0.8, 1.0, -1.0)
        key = u.tobytes()
        if key not in seen:
            seen.add(key)
            cols.append(u)
    return np.array(cols)


def best_times(calls: dict, repeats: int) -> dict:
    """Best seconds per call of each function, the functions called in turn."""
    for call in calls.values():
        call()
    best = dict.fromkeys(calls, np.inf)
    for _ in range(repeats):
        for name, call in calls.items():
            t0 = time.perf_counter()
            call()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def build_time(cls, columns: np.ndarray, repeats: int):
    """Best seconds per add over ``repeats`` builds, and the last matrix built."""
    best, matrix = np.inf, None
    for _ in range(repeats):
        matrix = cls(columns.shape[1])
        t0 = time.perf_counter()
        for u in columns:
            matrix.add(u)
        best = min(best, (time.perf_counter() - t0) / columns.shape[0])
    return best, matrix


def uncommitted(paths) -> list[str]:
    """Those of ``paths`` (relative to the repository) that git reports as untracked or changed."""
    try:
        out = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", *paths],
                             capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line[3:] for line in out.splitlines() if line.strip()]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--add-repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "bit_matrix.md"))
    args = parser.parse_args(argv)
    md = metadata.collect(vars(args))
    t_start = time.perf_counter()
    head = ("| m x t | U w float ms | U w bit ms | ratio | U^T d float ms | U^T d bit ms | ratio | "
            "add float ms | add bit ms | ratio | max err U w / sum abs w | max err U^T d / sum abs d |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(head, flush=True)
    rows, memory = [], []
    rng = np.random.default_rng(args.seed)
    with threadpool_limits(1):
        for name in args.sizes:
            m, t = SIZES[name]
            columns = stump_columns(m, t, rng)
            repeats = args.add_repeats if m < 10 ** 6 else 1
            add_float, flt = build_time(MarginMatrix, columns, repeats)
            add_bit, bit = build_time(BitMarginMatrix, columns, repeats)
            del columns
            U = flt.U
            w = rng.dirichlet(np.ones(t))
            d = rng.dirichlet(np.ones(m))
            best = best_times({"float U w": lambda: U @ w, "bit U w": lambda: bit.matvec(w),
                               "float U^T d": lambda: U.T @ d, "bit U^T d": lambda: bit.rmatvec(d)},
                              args.repeats)
            err_w = np.max(np.abs(bit.matvec(w) - U @ w)) / np.sum(np.abs(w))
            err_d = np.max(np.abs(bit.rmatvec(d) - U.T @ d)) / np.sum(np.abs(d))
            rows.append(
                f"| {m} x {t} | {best['float U w'] * 1e3:.3f} | {best['bit U w'] * 1e3:.3f} | "
                f"{best['float U w'] / best['bit U w']:.1f}x | {best['float U^T d'] * 1e3:.3f} | "
                f"{best['bit U^T d'] * 1e3:.3f} | {best['float U^T d'] / best['bit U^T d']:.1f}x | "
                f"{add_float * 1e3:.3f} | {add_bit * 1e3:.3f} | {add_float / add_bit:.1f}x | "
                f"{err_w:.1e} | {err_d:.1e} |")
            print(rows[-1], flush=True)
            memory.append(f"| {m} x {t} | {m * t * 8:,} | {flt._data.nbytes:,} | "
                          f"{-(-t // 8) * -(-m // 8) * 8:,} | {bit.nbytes:,} | "
                          f"{m * t * 8 / (-(-t // 8) * -(-m // 8) * 8):.0f}x |")
            del U, flt, bit
    md["load_average_end"] = list(os.getloadavg())
    dirty = uncommitted(["src/marginboost/core/bit_matrix.py", "src/marginboost/core/margin_matrix.py",
                         "benchmarks/bit_matrix.py"])
    mem_head = ("| m x t | float U in use (bytes) | float allocated | bit U in use (bytes) | "
                "bit allocated | in use, float / bit |\n|---|---:|---:|---:|---:|---:|")
    print(mem_head, *memory, sep="\n")
    text = "\n".join([
        "# Bit-packed margin matrix against float64: U w, U^T d, add, memory",
        "",
        f"Command: `OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/{md['command']}`",
        "",
        *metadata.provenance_lines(md)[1:],
        *([f"- Not committed at that commit (run on the working tree): {', '.join(dirty)}"] if dirty else []),
        "",
        "Single-threaded: BLAS limited to 1 thread, compiled kernels serial. Products: best of "
        f"{args.repeats} alternating calls; add: per column, best of {args.add_repeats} builds "
        "(1 at 10^6 rows); stump margins as columns; see the script's docstring. The machine "
        f"({os.cpu_count()} CPUs) is shared with other jobs. Total run {time.perf_counter() - t_start:.0f} s.",
        "",
        head,
        *rows,
        "",
        "Memory of U (the digest index, 16 bytes per column plus a dict entry, in both, not counted):",
        "",
        mem_head,
        *memory,
        "",
        "Notes. At 5300 x 300 and 7400 x 300 the float U (12.7 and 17.8 MB) is served from the "
        "last-level cache, and its timings move by up to about 1.6x between runs on this shared "
        "machine; at 10^5 and 10^6 rows both sides stream from memory. The bit kernels do about "
        "3 table look-ups per ns (U w) and 2 histogram updates per ns (U^T d), one per (example, "
        "group of 8 columns); issue 17's '~28x faster at 5300 x 300' would need the 5300 x 38 "
        "look-ups in about 7 us (28 per ns), out of reach of one core: the ratios here are the "
        "measured ones.",
        "",
    ])
    atomic_write(Path(args.out), text)
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
