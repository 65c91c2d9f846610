"""``python -m marginboost``: fit every soft-margin booster on bundled data and print a summary.

The data is scikit-learn's bundled Wisconsin breast-cancer set (569 x 30), split 70/30 with a
fixed seed; the boosters use depth-2 trees, ``nu = 0.1 m`` and ``eps = 0.01`` as in paper 000.
"""
from __future__ import annotations

import argparse
import time
import warnings

from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from . import CERLPBoostClassifier, ERLPBoostClassifier, LPBoostClassifier, MLPBoostClassifier


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m marginboost", description=__doc__.splitlines()[0])
    parser.add_argument("--nu", type=float, default=0.1, help="capping parameter, fraction of m (default 0.1)")
    parser.add_argument("--eps", type=float, default=0.01, help="target accuracy (default 0.01)")
    parser.add_argument("--max-iter", type=int, default=2000, help="weak-learner calls at most (default 2000)")
    args = parser.parse_args(argv)

    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    boosters = {
        "LPBoost": LPBoostClassifier,
        "ERLPBoost": ERLPBoostClassifier,
        "C-ERLPBoost": CERLPBoostClassifier,
        "MLPBoost (SS)": MLPBoostClassifier,
        "MLPBoost (PFW)": lambda **kw: MLPBoostClassifier(fw="pairwise", **kw),
    }
    print(f"breast_cancer: {X_train.shape[0]} train / {X_test.shape[0]} test, {X.shape[1]} features; "
          f"nu = {args.nu} m, eps = {args.eps}, depth-2 trees")
    header = f"{'booster':<16}{'rounds':>7}{'status':>11}{'soft margin':>13}{'gap':>10}{'nonzero w':>10}" \
             f"{'test err':>10}{'time s':>9}"
    print(header)
    print("-" * len(header))
    for name, make in boosters.items():
        est = make(nu=args.nu, eps=args.eps, max_iter=args.max_iter)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X_train, y_train)
        elapsed = time.perf_counter() - start
        print(f"{name:<16}{est.n_iter_:>7}{est.status_:>11}{est.margin_:>13.5f}{est.gap_:>10.2e}"
              f"{int((est.weights_ > 0).sum()):>10}{1 - est.score(X_test, y_test):>10.4f}{elapsed:>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
