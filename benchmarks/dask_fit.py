"""A fit on a Dask cluster against the in-memory fit and lightgbm.dask (issue 31, item 6).

X (m x p float32, standard normal) and y (``x0 + x1 x2 + 0.5 noise > 0``) are generated on the
workers of a local cluster (``SubprocessCluster``: the scheduler and each worker a process of its
own, as on a cluster, so that the client's memory is the client's alone; ``--workers`` workers
of ``--threads`` threads). Fitted on the same data, each for ``--rounds`` rounds:

* ``DaskMLPBoostClassifier(secondary='newton', weak_learner='hist_tree', max_depth=2)`` on the
  dask collections: ms per round (from its history, the binning pass excluded), the client's
  peak traced memory over the whole fit, and per round the scheduler round trips (the client's
  ``gather`` calls) and the bytes they brought to the client (``dask.sizeof`` of the results);
* ``MLPBoostClassifier`` with the same parameters and ``HistogramTree(2)`` on X computed into
  this process (the data fits here at the sizes run): ms per round, with ``n_jobs`` 1 and the
  cluster's thread count;
* ``lightgbm.dask.DaskLGBMClassifier`` (``num_leaves=4, max_depth=2``, 255 bins) on the same
  collections: ms per round as the median of its iterations' times in a fit of ``6 rounds``,
  stamped on the workers by a callback (:class:`IterationClock`; the statistic taken of ours). The
  difference of that fit's time and one of ``rounds``, divided by ``5 rounds``, is printed too: it
  was the measure before, and it can come out low, as the first fit pays one-time costs the second
  does not (seconds at 10^7 rows): 297 ms against a median iteration of 407 ms where LightGBM's
  fits were the first work of a fresh cluster; after our fit, as here, within 1% in two runs and 9%
  low in a third (365 against 399 ms).

The ratios are of one run, on one machine.

    python benchmarks/dask_fit.py --m 10000000 --p 50 --rounds 20 --partitions 8 --out benchmarks/results/dask_fit.md
"""
from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import tempfile
import time
import tracemalloc
import warnings

import numpy as np


def make_data(m: int, p: int, partitions: int):
    import dask.array as da

    rng = da.random.default_rng(0)
    X = rng.standard_normal((m, p), chunks=(-(-m // partitions), p), dtype=np.float32)
    noise = rng.standard_normal(m, chunks=(-(-m // partitions),), dtype=np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * noise > 0).astype(np.int8)
    return X.persist(), y.persist()


class IterationClock:
    """A LightGBM callback that appends each iteration's end (``time.perf_counter()``) to a file of
    its worker process in ``directory`` (a local cluster: the files are read here)."""

    def __init__(self, directory: str):
        self.directory = directory

    def __call__(self, env) -> None:
        with open(os.path.join(self.directory, f"{os.getpid()}.txt"), "a") as f:
            f.write(f"{time.perf_counter()!r}\n")

    def median_ms(self) -> float:
        """The median time of an iteration (the median of each worker's, which run in step)."""
        medians = []
        for name in os.listdir(self.directory):
            stamps = np.loadtxt(os.path.join(self.directory, name), ndmin=1)
            if stamps.shape[0] > 1:
                medians.append(np.median(np.diff(stamps)) * 1e3)
        return float(np.median(medians))


class Trips:
    """Counts the client's gathers and the bytes they return, per round (a callback marks rounds)."""

    def __init__(self, client):
        from dask.sizeof import sizeof

        self.calls, self.bytes, self.marks = 0, 0, []
        original = client.gather

        def gather(futures, *args, **kwargs):
            out = original(futures, *args, **kwargs)
            self.calls += 1
            self.bytes += sizeof(out)
            return out

        client.gather = gather

    def __call__(self, record):
        self.marks.append((self.calls, self.bytes))


def round_ms(history) -> np.ndarray:
    """ms of each round, from the history's ``time`` (seconds since the loop started)."""
    return np.diff(np.concatenate([[0.0], history["time"]])) * 1e3


def per_round_ms(history) -> float:
    """Median ms of a round."""
    return float(np.median(round_ms(history)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=1_000_000)
    parser.add_argument("--p", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--memory-limit", default="8GiB", help="per worker")
    parser.add_argument("--no-lightgbm", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)

    import dask
    from distributed import Client
    from distributed.deploy.subprocess import SubprocessCluster

    import marginboost
    from marginboost import MLPBoostClassifier
    from marginboost.dask.estimators import DaskMLPBoostClassifier
    from marginboost.weak_learners.histogram import HistogramTree

    warnings.simplefilter("ignore")  # max_iter stops every fit before eps
    params = dict(nu=0.1, eps=0.01, max_depth=2, max_iter=args.rounds, secondary="newton")
    lines = [f"# A fit on a cluster: m = {args.m:,}, p = {args.p}, {args.partitions} partitions, "
             f"{args.workers} workers x {args.threads} thread(s)", "",
             f"Command: `python benchmarks/{' '.join(shlex.quote(a) for a in ['dask_fit.py', *sys.argv[1:]])}`",
             f"marginboost {marginboost.__version__}, dask {dask.__version__}, Python {platform.python_version()}, "
             f"{platform.machine()}; {args.rounds} rounds each; MLPBoost nu = 0.1m, secondary 'newton', depth-2 "
             "histogram trees, 255 bins. glibc malloc settings of every process (the client, the in-memory fits and "
             "the workers): " + (", ".join(f"`{k}={v}`" for k, v in sorted(os.environ.items()) if k.startswith("MALLOC_"))
                                 or "the defaults"), ""]
    cluster = SubprocessCluster(n_workers=args.workers, threads_per_worker=args.threads, dashboard_address=":0",
                                worker_kwargs={"memory_limit": args.memory_limit})
    with Client(cluster) as client:
        X, y = make_data(args.m, args.p, args.partitions)
        trips = Trips(client)
        tracemalloc.start()
        t0 = time.perf_counter()
        est = DaskMLPBoostClassifier(**params, client=client, callbacks=[trips]).fit(X, y)
        fit_s = time.perf_counter() - t0
        client_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        loop_s = float(est.history_["time"][-1])
        marks = np.array(trips.marks)
        per_round_calls = np.diff(marks[:, 0]).mean() if len(marks) > 1 else float("nan")
        per_round_bytes = np.diff(marks[:, 1]).mean() if len(marks) > 1 else float("nan")
        dask_ms = per_round_ms(est.history_)
        lightgbm_ms = lightgbm_difference_ms = None
        if not args.no_lightgbm:
            from lightgbm.dask import DaskLGBMClassifier

            lgb_times = []
            with tempfile.TemporaryDirectory() as stamps:
                clock = IterationClock(stamps)
                for n in (args.rounds, 6 * args.rounds):
                    t = time.perf_counter()
                    model = DaskLGBMClassifier(n_estimators=n, num_leaves=4, max_depth=2, max_bin=255,
                                               learning_rate=0.1, verbose=-1, client=client)
                    model.fit(X, y, callbacks=[clock] if n > args.rounds else None)
                    lgb_times.append(time.perf_counter() - t)
                lightgbm_ms = clock.median_ms()
            lightgbm_difference_ms = (lgb_times[1] - lgb_times[0]) / (5 * args.rounds) * 1e3
        X_local, y_local = dask.compute(X, y)
    cluster.close()
    local_ms, local_rounds = {}, {}
    for jobs in sorted({1, args.workers * args.threads}):
        ref = MLPBoostClassifier(**params, weak_learner=HistogramTree(2, n_jobs=jobs)).fit(X_local, y_local)
        local_ms[jobs] = per_round_ms(ref.history_)
        local_rounds[jobs] = round_ms(ref.history_)
        same = len(ref.hypotheses_) == len(est.hypotheses_) and all(
            all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("feature", "threshold", "left", "right", "value"))
            for a, b in zip(ref.hypotheses_, est.hypotheses_))
        weights_diff = (float(np.max(np.abs(ref.weights_ - est.weights_))) if ref.weights_.shape == est.weights_.shape
                        else float("nan"))
    best_local = min(local_ms.values())
    lines += ["| fit | ms per round (median) | ratio to Dask |", "|---|---|---|",
              f"| DaskMLPBoostClassifier | {dask_ms:.0f} | 1.00 |"]
    for jobs, ms in local_ms.items():
        lines.append(f"| MLPBoostClassifier in memory, n_jobs={jobs} | {ms:.0f} | {dask_ms / ms:.2f} |")
    if lightgbm_ms is not None:
        lines.append("| lightgbm.dask DaskLGBMClassifier (median iteration, clocked on the workers) | "
                     f"{lightgbm_ms:.0f} | {dask_ms / lightgbm_ms:.2f} |")
    lines += ["",
              f"* Dask per round against the faster in-memory fit: {dask_ms / best_local:.2f}x (target <= 1.5x)"
              + (f"; against lightgbm.dask: {dask_ms / lightgbm_ms:.2f}x (target <= 2x)" if lightgbm_ms else ""),
              *([f"* lightgbm.dask by the difference of its fits of {6 * args.rounds} and {args.rounds} rounds (the "
                 "measure before, which can come out low: see the module docstring): "
                 f"{lightgbm_difference_ms:.0f} ms a round"]
                if lightgbm_ms else []),
              f"* Dask fit {fit_s:.1f} s in all, of which the rounds {loop_s:.1f} s (the rest: checks and binning on "
              "the workers)",
              f"* client peak traced memory over the Dask fit: {client_peak / 1e6:.1f} MB (target < 300 MB)",
              f"* per round: {per_round_calls:.1f} scheduler round trips (gathers), {per_round_bytes / 1e3:.0f} kB "
              "brought to the client",
              f"* the same hypotheses as in memory: {same}; largest weight difference {weights_diff:.2g}",
              "* ms of each round, Dask: " + " ".join(f"{x:.0f}" for x in round_ms(est.history_))]
    lines += [f"* ms of each round, in memory with n_jobs={jobs}: " + " ".join(f"{x:.0f}" for x in rounds)
              for jobs, rounds in local_rounds.items()] + [""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
