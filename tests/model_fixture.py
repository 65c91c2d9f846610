"""Fixed fits of every estimator and every boosting loop, for the behaviour-unchanged test.

``tests/data/model_fixture.npz`` holds what these fits produced with the code before the
round driver (commit dd2c3e4, before the one-engine restructuring). ``test_model_fixture.py``
refits each case and compares, bit for bit or to 1e-12. Regenerate only on purpose, when a
change of behaviour is intended and explained:  ``python tests/model_fixture.py [CASE ...]``
(only the cases named, or all). Re-recorded since: the two :data:`BLAS_SENSITIVE` cases, at the
pairwise drop-step fix (their rounds include drop steps; the float-margin path they pinned also
differed by 3e-6 under another BLAS kernel) and again when the Newton rule began to start from
the FW candidate's distribution (its margins differ from ``U w`` in the last bit), and when the
Newton rule's line search went from Brent's method to ``newton_line_search`` (fewer projections,
another point within the same tolerance), and when its face Hessian went to float32 sums, and
when its face step went from the LU of the bordered KKT system to a Cholesky solve (issue 17).
The two average-margin cases' ``history.round`` is one more than recorded: their rounds count
from 1 since the iteration contract (issue 30; iterate ``d^0`` is round 1), where they counted
from 0; their models, ``n_iter`` and other columns are as recorded. GraphSepBoost's status is
``'converged'`` where it was recorded as ``'separated'``: since issue 30 that is its
``stop_reason_``, the status one every loop shares.

Each case returns a dict of arrays: the model's outputs on held-out rows (decision function
or prediction), its weights, its round count and status, and the non-timing history columns.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, make_classification, make_regression

FIXTURE = Path(__file__).parent / "data" / "model_fixture.npz"
META_BLAS = "_meta/blas_kernel"  # the BLAS kernel the BLAS_SENSITIVE cases were recorded under
# Cases that run the inexact 'newton' secondary rule: its Hessian and products go through BLAS,
# whose kernel (OPENBLAS_CORETYPE, the processor) sets the summation order; the last-bit
# differences flip near-ties of the weak learner's argmax, and the run goes elsewhere. Measured:
# mlpboost_pairwise_newton ran 3-4 rounds more or fewer under OPENBLAS_CORETYPE=SandyBridge or
# Prescott than under Haswell. They are compared only under the kernel they were recorded with.
# (blasso_loop and mlpboost_linesearch_entropy agree under Haswell, Zen and SkylakeX, but not under
# the SSE-only SandyBridge and Prescott kernels; they stay strict.)
BLAS_SENSITIVE = ("mlpboost_pairwise_newton", "mlpboost_hist_multiclass")
STATUS_CODES = {}  # status string -> stable integer, filled as met (stored as strings instead)


def _binary():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(X.shape[0])[:160]
    X, y = X[idx][:, :6], y[idx]
    return X[:120], y[:120], X[120:]


def _multiclass():
    X, y = make_classification(n_samples=150, n_features=5, n_informative=3, n_redundant=0, n_classes=3,
                               n_clusters_per_class=1, random_state=1)
    return X[:110], y[:110], X[110:]


def _regression():
    X, y = make_regression(n_samples=140, n_features=4, noise=5.0, random_state=2)
    return X[:100], y[:100] / 50.0, X[100:]


def _history(hist) -> dict:
    """The history's columns but its timings (names containing 'time')."""
    if isinstance(hist, list):  # one-vs-rest: one history per class
        out = {}
        for k, h in enumerate(hist):
            out.update({f"{name}[{k}]": v for name, v in _history(h).items()})
        return out
    return {name: np.asarray(v, dtype=np.float64) for name, v in hist.items() if "time" not in name}


def _estimator_snapshot(est, X_test, weights_attr) -> dict:
    out = {"n_iter": np.atleast_1d(np.asarray(est.n_iter_, dtype=np.float64)),
           "status": np.atleast_1d(np.asarray(est.status_, dtype=str))}
    if hasattr(est, "decision_function"):
        out["decision"] = np.asarray(est.decision_function(X_test), dtype=np.float64)
    out["predict"] = np.asarray(est.predict(X_test), dtype=np.float64)
    if weights_attr and hasattr(est, weights_attr):
        out["weights"] = np.asarray(getattr(est, weights_attr), dtype=np.float64)
    for name, v in _history(est.history_).items():
        out[f"history.{name}"] = v
    return out


def _fit(est, data, weights_attr="weights_", sample_weight=None):
    X, y, X_test = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if sample_weight is None:
            est.fit(X, y)
        else:
            est.fit(X, y, sample_weight=sample_weight)
    return _estimator_snapshot(est, X_test, weights_attr)


def _result_snapshot(res, weights) -> dict:
    out = {"n_iter": np.atleast_1d(np.asarray(res.n_iter, dtype=np.float64)),
           "status": np.atleast_1d(np.asarray(res.status, dtype=str)),
           "weights": np.asarray(weights, dtype=np.float64)}
    for name, v in _history(res.history).items():
        out[f"history.{name}"] = v
    return out


def _as_recorded(fit, *, highs_master=False, float_margins=False):
    """``fit`` run as the fixture was recorded, before issue 17 changed two defaults:
    ``highs_master``: HiGHS as the LP rule's solver (``secondary.DEFAULT_LP_SOLVER``), which picks
    another of the LP's several optimal vertices than the dense dual simplex;
    ``float_margins``: U in float64 (``bit_matrix.BIT_PACKED_MARGINS``), whose products sum in another
    order than the bit kernels, which flips exact ties (e.g. the inexact Newton rule's argmax).
    The new defaults are checked on their own: tests/test_dual_simplex.py, tests/test_bit_matrix.py
    and the exact-optimum tests of tests/test_boosters.py."""
    def run():
        from marginboost.core import bit_matrix
        from marginboost.soft_margin import secondary
        saved = secondary.DEFAULT_LP_SOLVER, bit_matrix.BIT_PACKED_MARGINS
        if highs_master:
            secondary.DEFAULT_LP_SOLVER = "highs"
        if float_margins:
            bit_matrix.BIT_PACKED_MARGINS = False
        try:
            return fit()
        finally:
            secondary.DEFAULT_LP_SOLVER, bit_matrix.BIT_PACKED_MARGINS = saved
    return run


def _cases():
    import marginboost as mb
    from marginboost.functional.fwboost import adaboost_fw, classifier_oracle, fwboost, regression_oracle
    from marginboost.functional.blasso import blasso
    from marginboost.functional.losses import LogisticLoss, SquaredLoss
    from marginboost.weak_learners import DecisionStump
    from marginboost.weak_learners.regression import LeastSquaresTree

    b, mc, r = _binary(), _multiclass(), _regression()
    sw = np.random.default_rng(3).integers(1, 4, size=b[0].shape[0]).astype(np.float64)
    cases = {
        "lpboost": _as_recorded(lambda: _fit(mb.LPBoostClassifier(nu=0.2, eps=0.02, weak_learner="stump"), b),
                                highs_master=True),
        "lpboost_tree_weighted": _as_recorded(
            lambda: _fit(mb.LPBoostClassifier(nu=0.2, eps=0.05), b, sample_weight=sw), highs_master=True),
        "erlpboost": lambda: _fit(mb.ERLPBoostClassifier(nu=0.2, eps=0.05), b),
        "cerlpboost": lambda: _fit(mb.CERLPBoostClassifier(nu=0.2, eps=0.1, max_iter=200), b),
        "mlpboost": lambda: _fit(mb.MLPBoostClassifier(nu=0.2, eps=0.05), b),
        "mlpboost_classic_none": lambda: _fit(mb.MLPBoostClassifier(nu=0.2, eps=0.1, step="classic", secondary="none",
                                                                    max_iter=60), b),
        "mlpboost_linesearch_entropy": _as_recorded(
            lambda: _fit(mb.MLPBoostClassifier(nu=0.2, eps=0.05, step="line_search", secondary="entropy"), b),
            float_margins=True),
        "mlpboost_pairwise_newton": lambda: _fit(mb.MLPBoostClassifier(nu=0.2, eps=0.05, step="pairwise",
                                                                       secondary="newton", weak_learner="stump"), b),
        "mlpboost_hist_multiclass": lambda: _fit(mb.MLPBoostClassifier(nu=0.2, eps=0.05, weak_learner="hist_tree",
                                                                       secondary="newton"), mc),
        "fwboost_regressor_squared": lambda: _fit(mb.FWBoostRegressor(beta=5.0, max_iter=40), r, "weights_"),
        "fwboost_regressor_R_huber_away": lambda: _fit(mb.FWBoostRegressor(loss="huber", beta=3.0, variant="R",
                                                                           away_steps=True, max_iter=40), r,
                                                       "weights_"),
        "fwboost_regressor_short_step": lambda: _fit(mb.FWBoostRegressor(step="short_step", beta=5.0,
                                                                         max_iter=30), r, "weights_"),
        "fwboost_regressor_classic_absolute": lambda: _fit(mb.FWBoostRegressor(loss="absolute", step="classic",
                                                                               max_iter=30), r, "weights_"),
        "fwboost_classifier": lambda: _fit(mb.FWBoostClassifier(max_iter=40), b, "weights_"),
        "fwboost_classifier_logistic_away": lambda: _fit(mb.FWBoostClassifier(loss="logistic", away_steps=True,
                                                                              max_iter=40), b, "weights_"),
        "maboost": lambda: _fit(mb.MABoostClassifier(max_iter=40), b, "weights_"),
        "maboost_l2_lazy_smooth": lambda: _fit(mb.MABoostClassifier(regularizer="l2", update="lazy",
                                                                    variant="smooth", max_iter=40), b, "weights_"),
        "maboost_maxmargin": lambda: _fit(mb.MABoostClassifier(variant="maxmargin", max_iter=40), b, "weights_"),
        "maboost_sparse": lambda: _fit(mb.MABoostClassifier(regularizer="l2", variant="sparse", max_iter=40), b,
                                       "weights_"),
        "madaboost": lambda: _fit(mb.MadaBoostClassifier(max_iter=40), b, "weights_"),
        "adaboost": lambda: _fit(mb.AdaBoostClassifier(max_iter=40), b, "weights_"),
        "adaboost_weighted": lambda: _fit(mb.AdaBoostClassifier(max_iter=30), b, "weights_", sample_weight=sw),
        "average_margin": lambda: _fit(mb.AverageMarginBoostClassifier(nu=0.2, eps=0.1, max_iter=300), b),
        "average_margin_line_search": lambda: _fit(mb.AverageMarginBoostClassifier(nu=0.2, eps=0.1, step="line_search",
                                                                                   max_iter=300), b),
        "totalboost": lambda: _fit(mb.TotalBoostClassifier(eps=0.1, max_iter=60), b),
        "softboost": lambda: _fit(mb.SoftBoostClassifier(nu=0.2, eps=0.1, max_iter=60), b),
        "adaboostv": lambda: _fit(mb.AdaBoostVClassifier(eps=0.2, max_iter=60), b),
        "smoothboost": lambda: _fit(mb.SmoothBoostClassifier(kappa=0.2, gamma=0.2, max_iter=60), b),
        "gbm_regressor": lambda: _fit(mb.GBMRegressor(max_iter=30, subsample=0.7, random_state=4), r, None),
        "gbm_classifier": lambda: _fit(mb.GBMClassifier(max_iter=30, random_state=5), b, None),
        "gbm_classifier_multiclass": lambda: _fit(mb.GBMClassifier(max_iter=10, random_state=5), mc, None),
        "graphsepboost": lambda: _fit(mb.GraphSepBoostClassifier(max_iter=30), b, None),
    }

    def fw_loop():
        X, y, _ = r
        p = np.full(y.shape[0], 1.0 / y.shape[0])
        res = fwboost(regression_oracle(LeastSquaresTree(2), X, p), SquaredLoss(), y, 4.0, away_steps=True,
                      max_iter=30)
        return _result_snapshot(res, res.weights)

    def fw_loop_classic():
        X, y, _ = b
        y_pm = np.where(y == 1, 1.0, -1.0)
        res = fwboost(classifier_oracle(DecisionStump(), X), LogisticLoss(), y_pm, 3.0, step="classic",
                      max_iter=30)
        return _result_snapshot(res, res.weights)

    def adaboost_fw_loop():
        X, y, _ = b
        y_pm = np.where(y == 1, 1.0, -1.0)
        res = adaboost_fw(DecisionStump().prepare(X, y_pm), y_pm, 2.0, max_iter=30)
        return _result_snapshot(res, res.weights)

    def blasso_loop():
        X, y, _ = r
        p = np.full(y.shape[0], 1.0 / y.shape[0])
        res = blasso(regression_oracle(LeastSquaresTree(2), X, p), SquaredLoss(), y, 0.05, max_iter=60)
        return _result_snapshot(res, res.weights)

    cases.update({"fwboost_loop_away": fw_loop, "fwboost_loop_classic": fw_loop_classic,
                  "adaboost_fw_loop": adaboost_fw_loop, "blasso_loop": blasso_loop})
    return cases


CASES = _cases


def run_case(name: str) -> dict:
    return CASES()[name]()


def blas_kernel() -> str:
    """numpy's BLAS and the kernel it runs (e.g. 'openblas 0.3.31 Haswell'): OPENBLAS_CORETYPE and
    the processor pick it, and with it the summation order of every product that goes through BLAS."""
    from threadpoolctl import threadpool_info

    libs = [i for i in threadpool_info() if i["user_api"] == "blas" and "numpy" in i["filepath"]]
    info = libs[0] if libs else {}
    return f"{info.get('internal_api')} {info.get('version')} {info.get('architecture')}"


def write_fixture(path: Path = FIXTURE, names=None) -> None:
    """Record every case (``names`` None) or only ``names``, keeping the others as recorded."""
    arrays = {} if names is None else {k: v for k, v in np.load(path).items()
                                       if k.split("/")[0] not in names and k != META_BLAS}
    for name, case in CASES().items():
        if names is None or name in names:
            for key, v in case().items():
                arrays[f"{name}/{key}"] = v
    arrays[META_BLAS] = np.array(blas_kernel())
    np.savez_compressed(path, **arrays)


if __name__ == "__main__":
    import sys

    write_fixture(names=sys.argv[1:] or None)
    print(f"wrote {FIXTURE}")
