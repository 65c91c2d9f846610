"""Robustness battery (issue 8, item 3): hostile data and extreme parameters for every estimator.

Each estimator family has one hypothesis test that draws a small hostile data set together
with an estimator at extreme parameters, and runs ``CASES`` = 500 generated cases
(``derandomize=True``: the same cases on every run, in CI too), plus the ``@example`` inputs
of the bugs it found. A classification data set has 1 to 16 examples per class (one example
per class included), 1 to 5 features, each feature constant, ordinary, near +-1e300 (up to
+-max float), near +-1e-300 (subnormals and signed zeros included) or a mix of these scales;
up to 8 rows are duplicated, with the same or another label. X is float64, float32 (extremes
scaled to float32's range) or int64 (up to +-2^63), given as a numpy array, a list of lists, a
pandas DataFrame (with a Series y, some columns of another dtype, labels sometimes
categorical) or a scipy CSR / CSC matrix; labels are ints, negative ints, floats, strings or
booleans; mostly two classes, sometimes three (one-vs-rest) or one. Regression targets range
from subnormals to +-max float. Some cases carry a NaN or inf in X, or sample weights from 0
through subnormals to max float. Parameters sit at their extremes: ``nu`` = 1 and m as counts
and fractions (and fractional counts), eps from 1e-8 up, eta up to 1e9 (AverageMarginBoost's
limit), learning rates and l1 radii from 1e-8 to 1e6, ``max_time=1e-9``, and about one case
in 25 carries an invalid value.

Every case must either raise exactly the error its input calls for -- the oracle
(:func:`expected_error` and the family's own) predicts it from the input alone: the
parameter check's ``InvalidParameterError`` (a ValueError naming the parameter), ``nu``
outside [1, m], a single class, inf in X, NaN in X where the weak learner takes no missing
values (the estimator's ``_nan_refusal``; the package's stumps and trees take them), sparse X
(no estimator here accepts it,
``__sklearn_tags__`` says so: scikit-learn's TypeError naming it), and the estimator-specific
documented ValueErrors -- or fit, and then:

* ``predict`` returns only known labels; ``decision_function``, ``predict_proba`` and the
  staged values are finite (on the training X and on rows of +-max float, 0 and subnormals),
  vote-type decision values lie in [-1, 1], probabilities in [0, 1] with rows summing to 1 and
  argmax = predict, the last staged value is the final one;
* the fitted weights are finite (non-negative and summing to 1 where the model is a
  convex combination); the fitted scalars (soft margin, objective, gap, loss) and every number
  of ``history_`` are finite, but for the NaN entries a history documents;
* regressors' predictions are finite;
* the same fit (same data, same ``random_state``) twice gives identical predictions.

Floating-point hygiene: fit and predict run with ``RuntimeWarning`` turned into an error
(:class:`strict`). numpy's default error state warns on overflow, invalid operations
(NaN from inf - inf, 0/0, ...) and division by zero, and ignores underflow. Code that produces
an inf or NaN on purpose and handles it says so with ``np.errstate``, which silences the
warning at its source; any RuntimeWarning that reaches the test is therefore an unhandled
floating-point event. ``np.errstate(all='raise')`` would be wrong here: it also raises on
underflow, which is the exact, harmless result of ``exp(-large)`` or of products of the
subnormal inputs this battery feeds in, and it misses warnings that do not come from numpy's
ufuncs (scipy's, Python's). The one RuntimeWarning the package issues on purpose (the entropy
rule's inexact solve) is allowed, see :class:`strict`.

A bug the battery found is fixed in the source and its input kept as an ``@example`` or as
its own test (:func:`test_erlpboost_hard_margin_one_contradictory_pair`: the line search's
absolute tolerance; :func:`test_erlpboost_small_eps_solves_to_tolerance`: the entropy rule's
tolerance below what double precision resolves).
"""
from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from sklearn import config_context
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import InvalidParameterError

from marginboost import (
    AdaBoostClassifier,
    AdaBoostVClassifier,
    AverageMarginBoostClassifier,
    CERLPBoostClassifier,
    ERLPBoostClassifier,
    FWBoostClassifier,
    FWBoostRegressor,
    GBMClassifier,
    GBMRegressor,
    GraphSepBoostClassifier,
    LPBoostClassifier,
    MABoostClassifier,
    MadaBoostClassifier,
    MLPBoostClassifier,
    SmoothBoostClassifier,
    SoftBoostClassifier,
    TotalBoostClassifier,
)
from marginboost.average_margin.nzdd import MAX_ETA
from marginboost.average_margin.nzdd_stumps import build_stump_nzdd

CASES = 500  # generated cases per family (issue 8: at least 500 in CI)
BATTERY = settings(
    max_examples=CASES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

MAX = float(np.finfo(np.float64).max)
F32_MAX = float(np.finfo(np.float32).max)

# Value pools per X dtype: a feature draws its values from one pool (or a constant from 'mixed').
_POOLS64 = {
    "plain": [-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 1e-8, 1.0 + 2.0**-52],
    "huge": [1e300, -1e300, 3.3e300, 1e308, -1e308, MAX, -MAX, MAX / 2, float(np.nextafter(MAX, 0.0))],
    "tiny": [1e-300, -1e-300, 2.5e-300, 5e-324, -5e-324, 1e-310, -1e-310, 2.2250738585072014e-308, 0.0, -0.0],
}
_POOLS32 = {
    "plain": _POOLS64["plain"][:-1] + [1.0 + 2.0**-23],
    "huge": [3e38, -3e38, 1e38, F32_MAX, -F32_MAX, F32_MAX / 2],
    "tiny": [1e-38, -1e-38, 1.4e-45, -1.4e-45, 1e-40, 0.0, -0.0],
}
_POOLS_INT = {
    "plain": [-3, -1, 0, 1, 2, 3, 7],
    "huge": [2**62, -(2**62), 2**63 - 1, -(2**63), 2**53 + 1, 2**31],
    "tiny": [0, 1, -1],
}
POOLS = {}
for _name, _pools in (("float64", _POOLS64), ("float32", _POOLS32), ("int64", _POOLS_INT)):
    POOLS[_name] = {**_pools, "mixed": sorted(set(_pools["plain"] + _pools["huge"] + _pools["tiny"]))}
FEATURE_KINDS = ("constant", "plain", "huge", "tiny", "mixed", "mixed")
# Rows appended to the training X for prediction: the extremes of the float64 range.
PROBE_ROWS = [MAX, -MAX, 0.0, 5e-324, -1e300]
SAMPLE_WEIGHTS = [0.0, 1.0, 2.0, 0.5, 3.0, 1e-300, 5e-324, 1e300, MAX]
LABELS = {"int": [0, 1, 2], "negative": [-1, 1, 5], "str": ["neg", "pos", "other"], "float": [0.0, 1.0, 2.0],
          "bool": [False, True]}


@dataclass
class Case:
    """A data set: ``X`` (float64, float32 or int64 values), labels or targets ``y``, the
    container X and y are handed over in, and optional sample weights."""

    X: np.ndarray
    y: np.ndarray
    container: str = "numpy"  # numpy | list | pandas | pandas_mixed | csr | csc
    sample_weight: np.ndarray | None = None

    @property
    def m(self) -> int:
        return self.X.shape[0]

    @property
    def sparse(self) -> bool:
        return self.container in ("csr", "csc")

    def inputs(self, X=None):
        """X (or another array of X's width) and y in the case's container."""
        X = self.X if X is None else X
        if self.container == "list":
            return X.tolist(), self.y.tolist()
        if self.container == "csr":
            return sp.csr_matrix(X), self.y
        if self.container == "csc":
            return sp.csc_matrix(X), self.y
        if self.container.startswith("pandas"):
            frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
            if self.container == "pandas_mixed" and X.dtype.kind == "f":
                # every other column float32 (where that loses nothing) or object-free int64
                for j in range(0, X.shape[1], 2):
                    col = X[:, j]
                    if np.all(np.isfinite(col)) and np.all(col == np.round(col)) and np.all(np.abs(col) < 2**53):
                        frame[f"f{j}"] = col.astype(np.int64)
                    elif np.all(np.abs(col) <= F32_MAX) and np.array_equal(col.astype(np.float32).astype(X.dtype), col):
                        frame[f"f{j}"] = col.astype(np.float32)
            if self.container == "pandas_mixed" and self.y.dtype.kind in "iuObU":  # labels as a category
                return frame, pd.Series(pd.Categorical(self.y), name="target")
            return frame, pd.Series(self.y, name="target")
        return X, self.y

    def probe(self):
        """Training X plus rows of extreme values, in the container X was given in (dense)."""
        X = np.asarray(self.X, dtype=np.float64)
        extra = np.array([[v] * X.shape[1] for v in PROBE_ROWS])
        if self.X.dtype.kind == "i":  # an int container gets int probe rows
            extra = np.array([[v] * X.shape[1] for v in (2**63 - 1, -(2**63), 0, 1, -1)], dtype=np.int64)
            full = np.vstack([self.X, extra])
        else:
            full = np.vstack([X, extra])  # float64 also for a float32 X: max float is not a float32
        container = "numpy" if self.sparse else self.container
        return Case(full, self.y, container).inputs()[0]


# ----------------------------------------------------------------------------- strategies
@st.composite
def feature_matrix(draw, m: int, dtype: str) -> np.ndarray:
    pools = POOLS[dtype]
    p = draw(st.integers(1, 5))
    cols = []
    for _ in range(p):
        kind = draw(st.sampled_from(FEATURE_KINDS))
        if kind == "constant":
            cols.append([draw(st.sampled_from(pools["mixed"]))] * m)
        else:
            cols.append(draw(st.lists(st.sampled_from(pools[kind]), min_size=m, max_size=m)))
    return np.array(cols, dtype=dtype).T.copy()


@st.composite
def classification_cases(draw, max_per_class: int = 16, sample_weight: bool = False) -> Case:
    n_classes = draw(st.sampled_from([2] * 16 + [3, 3, 3, 1]))
    counts = [draw(st.integers(1, max_per_class)) for _ in range(n_classes)]
    labels = LABELS[draw(st.sampled_from(sorted(k for k in LABELS if len(LABELS[k]) >= n_classes)))][:n_classes]
    y = np.repeat(np.array(labels), counts)
    # duplicated rows: (source row, label moved to the next class or kept)
    dups = draw(st.lists(st.tuples(st.integers(0, y.shape[0] - 1), st.booleans()), max_size=8))
    dtype = draw(st.sampled_from(["float64"] * 4 + ["float32", "int64"]))
    base = draw(feature_matrix(y.shape[0], dtype))
    X = np.vstack([base] + [base[[i]] for i, _ in dups])
    extra = [labels[(labels.index(y[i]) + flip) % n_classes] for i, flip in dups]
    y = np.concatenate([y, np.array(extra, dtype=y.dtype)])
    if draw(st.booleans()):
        order = np.array(draw(st.permutations(range(y.shape[0]))))
        X, y = X[order], y[order]
    if dtype != "int64" and draw(st.integers(0, 40)) == 17:  # a NaN or inf: a documented error
        X = X.copy()
        X[draw(st.integers(0, X.shape[0] - 1)), draw(st.integers(0, X.shape[1] - 1))] = draw(
            st.sampled_from([np.nan, np.inf, -np.inf]))
    container = draw(st.sampled_from(["numpy"] * 12 + ["list"] * 2 + ["pandas"] * 4 + ["pandas_mixed"] * 2
                                     + ["csr", "csc"]))
    sw = None
    if sample_weight and draw(st.integers(0, 4)) == 0:
        sw = np.array(draw(st.lists(st.sampled_from(SAMPLE_WEIGHTS), min_size=y.shape[0], max_size=y.shape[0])))
        for label in labels:  # every class keeps an example of positive weight
            i = int(np.flatnonzero(y == label)[0])
            sw[i] = sw[i] if sw[i] > 0 else 1.0
    return Case(X, y, container, sw)


@st.composite
def regression_cases(draw, max_m: int = 30) -> Case:
    m = draw(st.integers(1, max_m))
    dtype = draw(st.sampled_from(["float64"] * 4 + ["float32", "int64"]))
    X = draw(feature_matrix(m, dtype))
    kind = draw(st.sampled_from(["constant", "plain", "plain", "pm1", "large", "tiny", "mixed", "huge"]))
    pool = {"plain": _POOLS64["plain"], "large": [1e100, -1e100, 3e120, 1e150, -2e150], "pm1": [-1.0, 1.0],
            "tiny": _POOLS64["tiny"], "huge": [1e300, -1e300, 1e200, MAX, -MAX, 1.0]}
    pool["mixed"] = pool["plain"] + pool["large"] + pool["tiny"] + pool["huge"]
    if kind == "constant":
        y = np.full(m, draw(st.sampled_from(pool["mixed"])))
    else:
        y = np.array(draw(st.lists(st.sampled_from(pool[kind]), min_size=m, max_size=m)))
    dups = draw(st.lists(st.integers(0, m - 1), max_size=6))
    if dups:
        X = np.vstack([X, X[dups]])
        flipped = draw(st.booleans())  # duplicated rows with other targets
        y = np.concatenate([y, -y[dups] + 1.0 if flipped else y[dups]])
    container = draw(st.sampled_from(["numpy"] * 8 + ["list", "list", "pandas", "pandas", "pandas_mixed", "csr"]))
    sw = None
    if draw(st.integers(0, 4)) == 0:
        sw = np.array(draw(st.lists(st.sampled_from(SAMPLE_WEIGHTS), min_size=y.shape[0], max_size=y.shape[0])))
        sw[0] = sw[0] if sw[0] > 0 else 1.0
    return Case(X, y, container, sw)


def count_or_fraction(m: int):
    """``nu`` at and around its extremes: 1 and m as counts and fractions, fractional counts,
    and a fraction below 1/m (raised to 1); m + 1 and 0 are among :data:`INVALID`."""
    return st.sampled_from([1, m, 1.0, 1e-9, 0.5, 1.0 - 1e-12, float(m), float(np.nextafter(1.0, 2.0)),
                            max(1.0, m - 0.5), 1.0 / m])


# Invalid values per parameter; ``with_invalid`` puts one in about one case in 25. The oracle
# expects the parameter check's InvalidParameterError (or, for nu > m, fit's ValueError).
# max_time: mostly None, sometimes 1e-9 (every fit stops after its first round, 'max_time').
MAX_TIMES = [None] * 7 + [1e-9]
INVALID = {"nu": ["m+1", 0, -1.0], "eps": [0.0, -1e-8, np.inf], "eta": [2 * 1e9, 0.0], "beta": [0.0, -1.0],
           "learning_rate": [0.0, -0.1], "max_iter": [0], "max_pairs": [0],
           "kappa": [1.0, 0.0], "gamma": [0.5], "smoothness": [0.0, 1.5], "sparsity": [1.0],
           "subsample": [0.0, 1.5], "min_weight": [1.0], "max_depth": [0], "max_time": [0.0, -1.0]}


def with_invalid(draw, params: dict, m: int | None = None, extra: dict | None = None) -> dict:
    """``params`` with ``max_time`` drawn from :data:`MAX_TIMES` and, about one time in 25, one of
    them set to an invalid value."""
    params = {**params, "max_time": draw(st.sampled_from(MAX_TIMES))}
    if draw(st.integers(0, 24)) != 13:
        return params
    options = {**INVALID, **(extra or {})}
    name = draw(st.sampled_from(sorted(k for k in params if k in options)))
    value = draw(st.sampled_from(options[name]))
    return {**params, name: m + 1 if value == "m+1" else value}


EPS_EXTREMES = [1e-8, 1e-6, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 1e6]
WEAK_LEARNERS = ["stump", "tree", "hist_stump", "hist_tree"]


# ----------------------------------------------------------------------------- the oracle
MAY = "may"  # third entry of an expected error: raising it is allowed, not required
Y_TOO_LARGE = r"is not finite at the initial (model|constant) F = .*: y is too large"
def kept(case: Case) -> np.ndarray:
    """The examples a fit keeps: those of positive weight once the weights are scaled by the
    power of two that brings the largest into [1/2, 1) (:mod:`marginboost.estimators.sample_weights`: a
    weight below about 2^-1074 times the largest is 0)."""
    if case.sample_weight is None:
        return np.ones(case.m, dtype=bool)
    return np.ldexp(case.sample_weight, -int(np.frexp(case.sample_weight.max())[1])) > 0.0


def n_effective(case: Case) -> int:
    """Examples left after the examples of (relative) sample weight 0 are dropped."""
    return int(kept(case).sum())


def resolved_nu(nu, m: int) -> float:
    """The count ``nu`` stands for (README: an int counts, a float in (0, 1] is a fraction,
    raised to 1, a larger float counts)."""
    if isinstance(nu, int):
        return float(nu)
    return max(nu * m, 1.0) if nu <= 1.0 else float(nu)


def binary_problems(case: Case):
    """The labels in {-1, +1} of the binary problems a classifier solves (one-vs-rest with 3)."""
    classes = np.unique(case.y)
    if classes.shape[0] == 2:
        return [np.where(case.y == classes[1], 1.0, -1.0)]
    return [np.where(case.y == c, 1.0, -1.0) for c in classes]


def expected_error(case: Case, est, classifier: bool = True):
    """``(exception type, message pattern)`` of the documented error this fit must raise, or None."""
    try:
        est._validate_params()
    except InvalidParameterError as exc:
        name = re.search(r"The '(\w+)' parameter", str(exc)).group(1)
        return InvalidParameterError, rf"The '{name}' parameter of {type(est).__name__} must be"
    if case.sparse:
        return TypeError, "Sparse data was passed for X, but dense data is required"
    values = np.asarray(case.X, dtype=np.float64)
    if np.isinf(values).any():
        return ValueError, "Input X contains infinity"
    if np.isnan(values).any() and est._nan_refusal() is not None:  # NaN: a missing value, where the learner takes it
        return ValueError, r"X contains NaN \(missing values\), which .* cannot take"
    if classifier and np.unique(case.y).shape[0] < 2:
        return ValueError, r"y must contain at least two classes, got 1 class"
    if classifier and np.unique(case.y[kept(case)]).shape[0] < np.unique(case.y).shape[0]:
        if np.unique(case.y).shape[0] > 2:
            return ValueError, "every class needs an example of positive sample_weight"
        return ValueError, r"at least two classes, got 1 class \(among examples of positive sample_weight\)"
    return None


def soft_margin_error(case: Case, est):
    if (err := expected_error(case, est)) is not None:
        return err
    nu = resolved_nu(est.nu, n_effective(case))
    if not 1.0 <= nu <= n_effective(case):
        return ValueError, r"nu must be a count in \[1, m\]"
    return None


# ----------------------------------------------------------------------------- the checks
# The one RuntimeWarning the package issues on purpose: the entropy rule's solve stopped above
# its tolerance (documented in secondary.EntropyRule; the scheme keeps the better candidate).
INEXACT_ENTROPY = (r"(?:class .* vs rest: )?entropy secondary rule \(active-set Newton\) stopped after \d+ iterations "
                   r"at duality gap (\S+) >")


class strict:
    """Warnings policy of the battery (module docstring): RuntimeWarning is an error,
    ConvergenceWarning (max_iter reached: documented) is ignored.

    Exception: the entropy rule's documented inexactness warning (:data:`INEXACT_ENTROPY`) is
    allowed, but the gap it reports must be finite. At eps <= 1e-6 its tolerance ``1e-3 eps``
    lies below what double precision resolves at ``eta = 2 ln(m/nu)/eps``, so it warns in
    ordinary runs; the case where it fails outright is pinned by
    :func:`test_entropic_master_flat_vertex` (see there).

    ``finite``: the input is known finite, so scikit-learn's finiteness check of it is skipped
    (``assume_finite``): that check sums X to test it in one pass and warns "invalid value
    encountered in reduce" when X holds both +-max float (inf - inf), a warning of the check
    itself (it catches only the overflow), not of the estimator."""

    def __init__(self, finite: bool = True):
        self._config = config_context(assume_finite=finite)
        self._finite = finite

    def __enter__(self):
        self._ctx = warnings.catch_warnings(record=True)
        self._caught = self._ctx.__enter__()
        self._config.__enter__()
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.filterwarnings("always", INEXACT_ENTROPY, RuntimeWarning)
        if not self._finite:  # the same check, for X with NaN or inf that must be refused anyway
            warnings.filterwarnings("ignore", "invalid value encountered in reduce", RuntimeWarning)

    def __exit__(self, *exc):
        self._config.__exit__(*exc)
        self._ctx.__exit__(*exc)
        for w in self._caught:
            if issubclass(w.category, RuntimeWarning):
                gap = float(re.match(INEXACT_ENTROPY, str(w.message)).group(1))
                assert np.isfinite(gap), str(w.message)
        return False


def fit_or_raise(est, case: Case, error, **fit_kw):
    """Fit ``est`` on ``case``; the fit must raise ``error`` (type, pattern) if given, else succeed.
    ``error`` with a third entry ``MAY``: it may raise that error or succeed. Returns the fitted
    estimator or None."""
    X, y = case.inputs()
    if case.sample_weight is not None:
        fit_kw["sample_weight"] = case.sample_weight
    finite = bool(np.isfinite(np.asarray(case.X, dtype=np.float64)).all())
    event(f"{type(est).__name__}: " + ("fit" if error is None else f"raises {error[0].__name__}: {error[1][:40]}"))
    if error is not None and error[2:] == (MAY,):
        with strict(finite):
            try:
                return est.fit(X, y, **fit_kw)
            except error[0] as exc:
                assert re.search(error[1], str(exc)), f"{exc!r} does not match {error[1]!r}"
                return None
    if error is not None:
        with strict(finite), pytest.raises(error[0], match=error[1]):
            est.fit(X, y, **fit_kw)
        return None
    with strict(finite):
        return est.fit(X, y, **fit_kw)


def assert_finite(value, what: str):
    arr = np.asarray(value, dtype=np.float64)
    assert np.all(np.isfinite(arr)), f"{what} not finite: {value!r}"


def check_history(history, nan_ok=(), nan_last_row_only=()):
    """Every numeric column finite; ``nan_ok`` columns may hold NaN (never inf),
    ``nan_last_row_only`` columns NaN in the last row only."""
    histories = history if isinstance(history, list) else [history]
    for h in histories:
        assert isinstance(h, dict) and h, "history_ must be a non-empty dict"
        lengths = {k: np.asarray(v).shape[0] for k, v in h.items()}
        assert len(set(lengths.values())) == 1, f"history columns of unequal length: {lengths}"
        for name, col in h.items():
            arr = np.asarray(col)
            if arr.dtype.kind not in "fiub":
                continue
            arr = arr.astype(np.float64)
            if name in nan_ok:
                assert not np.isinf(arr).any(), f"history_[{name!r}] has inf: {arr}"
            elif name in nan_last_row_only:
                assert np.all(np.isfinite(arr[:-1])) and not np.isinf(arr[-1]), f"history_[{name!r}]: {arr}"
            else:
                assert np.all(np.isfinite(arr)), f"history_[{name!r}] not finite: {arr}"


def binary_models(est):
    return est.estimators_ if hasattr(est, "estimators_") else [est]


def check_classifier_outputs(est, case: Case, vote: bool):
    """predict / decision_function / predict_proba on the training X and extreme rows."""
    classes = np.unique(case.y)
    assert np.array_equal(est.classes_, classes)
    probe = case.probe()
    n = probe.shape[0] if hasattr(probe, "shape") else len(probe)
    with strict():
        pred = est.predict(probe)
        dec = est.decision_function(probe)
        proba = est.predict_proba(probe) if hasattr(est, "predict_proba") else None
        if hasattr(est, "staged_decision_function"):
            check_staged(est.staged_decision_function(probe), dec, n_updates(est))
    pred = np.asarray(pred)
    assert pred.shape == (n,)
    assert np.isin(pred, classes).all(), f"unknown labels predicted: {set(pred.tolist()) - set(classes.tolist())}"
    assert dec.shape == ((n,) if classes.shape[0] == 2 else (n, classes.shape[0]))
    assert_finite(dec, "decision_function")
    if vote:
        assert np.all(np.abs(dec) <= 1.0 + 1e-9), f"vote outside [-1, 1]: {dec}"
    if proba is not None:
        assert proba.shape == (n, classes.shape[0])
        assert_finite(proba, "predict_proba")
        assert np.all((proba >= 0.0) & (proba <= 1.0)), proba
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9)
        assert np.array_equal(classes[proba.argmax(axis=1)], pred)
    return pred, dec, proba


def n_updates(est) -> int:
    """Rounds that changed the model (0: the staged methods may yield nothing)."""
    return int(np.max(est.n_iter_))


def check_staged(stages, final, n: int):
    """Every stage finite, the last one the final model bit for bit: the two sum the same terms in
    the same order (issue 33; they were equal to rounding only, and ties flipped a prediction)."""
    stages = list(stages)
    assert stages or n == 0, "no stages"
    for stage in stages:
        assert_finite(stage, "staged values")
    if stages:
        np.testing.assert_array_equal(stages[-1], final)


def check_simplex(w, what: str, tol: float = 1e-9):
    w = np.asarray(w, dtype=np.float64)
    assert_finite(w, what)
    assert np.all(w >= 0.0), f"{what} negative: {w}"
    assert abs(w.sum() - 1.0) <= tol, f"{what} sums to {w.sum()!r}"


def check_same_fit(est, case: Case, first, **fit_kw):
    """Refit a clone on the same data: identical predictions, decision values and probabilities."""
    again = fit_or_raise(clone(est), case, None, **fit_kw)
    probe = case.probe()
    with strict():
        second = (again.predict(probe), again.decision_function(probe),
                  again.predict_proba(probe) if hasattr(again, "predict_proba") else None)
    for a, b in zip(first, second):
        if a is None:
            assert b is None
        else:
            np.testing.assert_array_equal(a, b)


def check_regressor(est, case: Case, first_fit_kw=None):
    probe = case.probe()
    with strict():
        pred = est.predict(probe)
        check_staged(est.staged_predict(probe), pred, n_updates(est))
    assert pred.shape == (len(probe),)
    assert_finite(pred, "predict")
    again = fit_or_raise(clone(est), case, None, **(first_fit_kw or {}))
    with strict():
        np.testing.assert_array_equal(again.predict(probe), pred)


# ----------------------------------------------------------------------------- soft margin
SOFT_MARGIN = [LPBoostClassifier, ERLPBoostClassifier, CERLPBoostClassifier, MLPBoostClassifier]


@st.composite
def soft_margin_scenarios(draw):
    case = draw(classification_cases(sample_weight=True))
    cls = draw(st.sampled_from(SOFT_MARGIN))
    params = dict(nu=draw(count_or_fraction(case.m)), eps=draw(st.sampled_from(EPS_EXTREMES)),
                  weak_learner=draw(st.sampled_from(WEAK_LEARNERS)), max_depth=draw(st.integers(1, 3)),
                  # fewer rounds than elsewhere: at eps <= 1e-6 an entropy round costs 500 Newton steps
                  max_iter=draw(st.integers(1, 8)))
    if cls is MLPBoostClassifier:
        params["step"] = draw(st.sampled_from(["short_step", "classic", "line_search", "pairwise"]))
        params["secondary"] = draw(st.sampled_from(["lp", "entropy", "newton", "none"]))
    return case, cls(**with_invalid(draw, params, case.m))


@BATTERY
@given(scenario=soft_margin_scenarios())
# sample weights [1e-300, 1e300] were scaled to mean 1 as [0, 2] (underflow): log(0) in the entropy
@example(scenario=(Case(np.array([[-MAX], [-MAX]]), np.array([0, 1]), sample_weight=np.array([1e-300, 1e300])),
                   ERLPBoostClassifier(eps=1e-08, max_depth=1, max_iter=1, nu=1, weak_learner="stump")))
@example(scenario=(Case(np.array([[-MAX], [-MAX]]), np.array([0, 1]), sample_weight=np.array([0.5, 1e-300])),
                   ERLPBoostClassifier(eps=1e-08, max_depth=1, max_iter=3, nu=1, weak_learner="stump")))
# sample weights [1e300, max float]: their sum overflowed, every weight became 0
@example(scenario=(Case(np.array([[-MAX], [-MAX]]), np.array([0, 1]), sample_weight=np.array([1e300, MAX])),
                   LPBoostClassifier(eps=1e-08, max_depth=1, max_iter=1, nu=1, weak_learner="stump")))
# +-max float rows: scikit-learn's own finiteness check warns (see strict)
@example(scenario=(Case(np.array([[-MAX, 1e300]] * 14), np.array([0] + [1] * 13)),
                   LPBoostClassifier(eps=1e-08, max_depth=1, max_iter=1, nu=1, weak_learner="stump")))
def test_soft_margin_family(scenario):
    case, est = scenario
    est = fit_or_raise(est, case, soft_margin_error(case, est))
    if est is None:
        return
    first = check_classifier_outputs(est, case, vote=True)
    for model in binary_models(est):
        check_simplex(model.weights_, "weights_")
        assert len(model.hypotheses_) == model.weights_.shape[0]
        for name in ("margin_", "objective_", "gap_", "nu_", "eta_"):
            assert_finite(getattr(model, name), name)
        assert -1.0 - 1e-9 <= model.margin_ <= 1.0 + 1e-9
        assert 1.0 <= model.nu_ <= n_effective(case)
        assert 1 <= model.n_iter_ <= est.max_iter
        assert model.status_ in ("converged", "max_iter", "max_time")
        check_history(model.history_)
    check_same_fit(est, case, first)


def test_erlpboost_hard_margin_one_contradictory_pair():
    """Two identical rows of opposite labels: w = (1/2, 1/2) on h and -h is optimal (margin 0)."""
    X, y = np.zeros((2, 1)), np.array([0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        est = ERLPBoostClassifier(nu=1, eps=0.01, weak_learner="stump", max_iter=5).fit(X, y)
    assert est.status_ == "converged" and abs(est.margin_) <= 0.01


def test_erlpboost_small_eps_solves_to_tolerance():
    """eps = 1e-6: the entropy rule certifies its solve without running into its iteration cap."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=30) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        ERLPBoostClassifier(nu=3, eps=1e-6, weak_learner="stump", max_iter=20).fit(X, y)


def test_every_public_estimator_fits():
    """No public class is a front end without an algorithm (a fit that always fails)."""
    import marginboost
    from sklearn.base import BaseEstimator

    X, y = np.r_[np.eye(4), -np.eye(4)], np.array([0, 1, 0, 1, 1, 0, 1, 0])
    public = [getattr(marginboost, n) for n in marginboost.__all__]
    estimators = [c for c in public if isinstance(c, type) and issubclass(c, BaseEstimator)]
    assert len(estimators) >= 17
    for cls in estimators:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert cls().fit(X, y).predict(X).shape == (8,), cls.__name__


# ----------------------------------------------------------------------------- classic
@st.composite
def classic_scenarios(draw):
    case = draw(classification_cases())
    cls = draw(st.sampled_from([TotalBoostClassifier, SoftBoostClassifier, AdaBoostVClassifier,
                                SmoothBoostClassifier]))
    params = dict(weak_learner=draw(st.sampled_from(WEAK_LEARNERS)), max_depth=draw(st.integers(1, 3)),
                  max_iter=draw(st.integers(1, 12)))
    if cls in (TotalBoostClassifier, SoftBoostClassifier):
        params["eps"] = draw(st.sampled_from([1e-8, 1e-6, 0.01, 0.5, 1.0, 2.0]))
    if cls is SoftBoostClassifier:
        params["nu"] = draw(count_or_fraction(case.m))
    if cls is AdaBoostVClassifier:
        params["eps"] = draw(st.sampled_from([1e-8, 1e-6, 0.01, 0.5, 0.9, 1.0 - 1e-12]))
        if params["eps"] >= 0.5 and draw(st.booleans()):
            params["max_iter"] = None  # the paper's round count
    if cls is SmoothBoostClassifier:
        params["kappa"] = draw(st.sampled_from([1e-8, 0.1, 0.5, 1.0 - 1e-12]))
        params["gamma"] = draw(st.sampled_from([1e-8, 0.1, 0.25, 0.5 - 1e-12]))
    extra = {"eps": [2.5, 0.0] if cls in (TotalBoostClassifier, SoftBoostClassifier) else [1.0, 0.0]}
    return case, cls(**with_invalid(draw, params, case.m, extra))


@BATTERY
@given(scenario=classic_scenarios())
# AdaBoostV's 'perfect' round recorded target = NaN in history_
@example(scenario=(Case(np.array([[-3], [-1]]), np.array([0, 1])),
                   AdaBoostVClassifier(eps=1e-08, max_depth=1, max_iter=1, weak_learner="stump")))
# inf next to -max float: scikit-learn's finiteness check warns before it raises (see strict)
@example(scenario=(Case(np.array([[np.inf]] + [[-MAX]] * 7), np.array([0] + [1] * 7)),
                   TotalBoostClassifier(eps=1e-08, max_depth=1, max_iter=1, weak_learner="stump")))
def test_classic_family(scenario):
    case, est = scenario
    error = expected_error(case, est)
    if error is None and isinstance(est, SoftBoostClassifier) and not 1.0 <= resolved_nu(est.nu, case.m) <= case.m:
        error = ValueError, r"nu must be a count in \[1, m\]"
    est = fit_or_raise(est, case, error)
    if est is None:
        return
    first = check_classifier_outputs(est, case, vote=True)
    totally_corrective = isinstance(est, (TotalBoostClassifier, SoftBoostClassifier))
    for model in binary_models(est):
        check_simplex(model.weights_, "weights_")
        assert len(model.hypotheses_) == model.weights_.shape[0]
        assert_finite(model.margin_, "margin_")
        assert -1.0 - 1e-9 <= model.margin_ <= 1.0 + 1e-9
        assert model.status_ in ("converged", "max_iter", "max_time", "no_progress")
        # SoftBoost/TotalBoost: entropy and KKT residual are NaN in the stopping round (documented)
        check_history(model.history_,
                      nan_last_row_only=("entropy", "projection_kkt") if totally_corrective else ())
    check_same_fit(est, case, first)


# ----------------------------------------------------------------------------- FWBoost
FW_LOSSES = ["exponential", "logistic", "squared", "huber", "absolute"]
# regressors: the classification losses (targets in {-1, +1} only) less often
REGRESSION_LOSSES = ["squared", "squared", "huber", "huber", "absolute", "exponential", "logistic"]


def fw_params(draw, losses=FW_LOSSES):
    return dict(loss=draw(st.sampled_from(losses)),
                beta=draw(st.sampled_from([1e-8, 0.5, 5.0, 100.0, 1e3, 1e6])),
                variant=draw(st.sampled_from(["C", "R"])),
                step=draw(st.sampled_from(["classic", "line_search", "short_step"])),
                away_steps=draw(st.booleans()), weak_learner=draw(st.sampled_from(["stump", "tree"])),
                max_depth=draw(st.integers(1, 3)), max_iter=draw(st.integers(1, 12)),
                eps=draw(st.sampled_from([0.0, 1e-8, 0.1])))


FW_INVALID = {"eps": [-1e-8, -1.0]}  # FWBoost's eps is a gap tolerance: 0 is valid (no target short of the optimum)


@st.composite
def fwboost_scenarios(draw):
    if draw(st.booleans()):
        return (draw(classification_cases(sample_weight=True)),
                FWBoostClassifier(**with_invalid(draw, fw_params(draw), extra=FW_INVALID)))
    params = fw_params(draw, REGRESSION_LOSSES)
    params["init"] = draw(st.sampled_from(["constant", "zero"]))
    return draw(regression_cases()), FWBoostRegressor(**with_invalid(draw, params, extra=FW_INVALID))



def fw_error(case: Case, est, classifier: bool):
    if (err := expected_error(case, est, classifier)) is not None:
        return err
    targets_pm = classifier or np.all(np.abs(case.y[kept(case)]) == 1.0)  # weight 0: dropped first
    if est.loss in ("exponential", "logistic") and not targets_pm:
        return ValueError, rf"loss='{est.loss}' is a classification loss"
    later = None
    # exp(-y F) overflows on the l1 ball |F| <= beta (+ |offset| <= 1) once beta > 709.78
    if est.loss == "exponential" and est.beta >= 1e3:
        later = ValueError, rf"beta={est.beta!r} is too large for loss='exponential'"
    # Only the classic step applies to a loss that is not smooth on the l1 ball.
    elif est.step != "classic" and est.loss == "absolute":
        later = ValueError, rf"loss='{est.loss}' is not smooth on the feasible set"
    if not classifier and np.max(np.abs(case.y)) >= 1e200:  # the loss may overflow at the offset (first check)
        return (ValueError, Y_TOO_LARGE, MAY) if later is None else (ValueError, f"{Y_TOO_LARGE}|{later[1]}")
    return later


@BATTERY
@given(scenario=fwboost_scenarios())
# exp(1000) overflowed in the smoothness bound and in the loss: beta too large for the exponential loss
@example(scenario=(Case(np.array([[-MAX], [-MAX]]), np.array([0, 1]), sample_weight=np.array([1.0, 1.0])),
                   FWBoostClassifier(beta=1000.0, max_depth=1, max_iter=1, step="classic", weak_learner="stump")))
# targets spanning more than max float: best_constant's brentq failed (NaN steps, no convergence)
@example(scenario=(Case(np.array([[-MAX]] * 9), np.array([1e300] * 8 + [-MAX])),
                   FWBoostRegressor(beta=1e-08, max_depth=1, max_iter=1, step="classic", weak_learner="stump")))
@example(scenario=(Case(np.array([[-MAX]] * 9), np.array([1e300] * 8 + [-MAX])),
                   FWBoostRegressor(beta=1e-08, loss="huber", max_depth=1, max_iter=1, step="classic",
                                    weak_learner="stump")))
@example(scenario=(Case(np.array([[-MAX]] * 9), np.array([1e300] * 8 + [-MAX])),
                   FWBoostRegressor(beta=1e-08, loss="absolute", max_depth=1, max_iter=1, step="line_search",
                                    weak_learner="stump")))
# FWBoost_R: a fit h~ of sup norm 1e-310 (subnormal residuals) gave 1/norm = inf, coef_ NaN
@example(scenario=(Case(np.array([[0.0], [1.0]]), np.array([1e-310, -1e-310])),
                   FWBoostRegressor(variant="R", weak_learner="stump", max_iter=3)))
@example(scenario=(Case(np.array([[-MAX], [-MAX]]), np.array([False, True]), sample_weight=np.array([1.0, MAX])),
                   FWBoostClassifier(loss="squared", max_depth=1, max_iter=2, variant="R", weak_learner="stump")))
# ... and at a norm of exactly 2^-1024 (1/norm = 2^1024 = inf; relative weights [2^-1024, 1]): inf * 0
@example(scenario=(Case(np.array([[-3.0], [-3.0], [-3.0], [-1.0], [-1.0]]), np.array([-3.0, -3.0, -3.0, -3.0, -1.0]),
                        sample_weight=np.array([1.0, 0.0, 0.0, 1.0, MAX])),
                   FWBoostRegressor(beta=5.0, loss="huber", max_depth=1, max_iter=1, variant="R")))
@example(scenario=(Case(np.array([[-MAX]] * 5), np.array([-3.0, -3.0, -3.0, -3.0, -1.0]),
                        sample_weight=np.array([1.0, 0.0, 0.0, 0.0, MAX])),
                   FWBoostRegressor(beta=1e-08, loss="huber", max_depth=1, max_iter=1, step="classic",
                                    variant="R", weak_learner="stump")))
# one-vs-rest staged values when no class made an update: StopIteration from the first next()
@example(scenario=(Case(np.array([[-MAX]] * 3), np.array([0, 1, 2]), sample_weight=np.array([1.0, 1.0, 1.0])),
                   FWBoostClassifier(beta=1e-08, max_depth=1, max_iter=1, step="classic", eps=1e-08,
                                     weak_learner="stump")))
# short step with smoothness 0 (Huber loss linear on the whole ball): division by zero
@example(scenario=(Case(np.array([[-MAX]]), np.array([-3.0]), sample_weight=np.array([1.0])),
                   FWBoostRegressor(beta=1e-08, init="zero", loss="huber", max_depth=1, max_iter=1,
                                    step="short_step", weak_learner="stump")))
# the Huber loss squared the residuals of its linear part too: overflow for a finite loss
@example(scenario=(Case(np.array([[-MAX]] * 9), np.array([1e300] * 8 + [-1e300])),
                   FWBoostRegressor(beta=1e-08, loss="huber", max_depth=1, max_iter=1, step="classic",
                                    weak_learner="stump")))
def test_fwboost_family(scenario):
    case, est = scenario
    classifier = isinstance(est, FWBoostClassifier)
    fitted = fit_or_raise(est, case, fw_error(case, est, classifier))
    if fitted is None:
        return
    for model in binary_models(fitted):
        assert_finite(model.weights_, "weights_")
        for name in ("offset_", "train_loss_", "gap_"):
            assert_finite(getattr(model, name), name)
        assert model.history_["l1_norm"][-1] <= est.beta * (1.0 + 1e-9)
        assert model.status_ in ("converged", "max_iter", "max_time")
        check_history(model.history_)
    if classifier:
        first = check_classifier_outputs(fitted, case, vote=False)
        check_same_fit(fitted, case, first)
    else:
        check_regressor(fitted, case)


# ----------------------------------------------------------------------------- GBM
def gbm_params(draw, losses=FW_LOSSES):
    return dict(loss=draw(st.sampled_from(losses)),
                learning_rate=draw(st.sampled_from([1e-8, 0.1, 1.0, 10.0, 1e6])),
                max_iter=draw(st.integers(1, 12)),
                subsample=draw(st.sampled_from([1e-8, 0.1, 0.5, 1.0])),
                weak_learner=draw(st.sampled_from(["stump", "tree"])), max_depth=draw(st.integers(1, 3)),
                leaf_update=draw(st.sampled_from(["mean", "newton"])), random_state=draw(st.integers(0, 3)))


@st.composite
def gbm_scenarios(draw):
    if draw(st.booleans()):
        return draw(classification_cases(sample_weight=True)), GBMClassifier(**with_invalid(draw, gbm_params(draw)))
    return draw(regression_cases()), GBMRegressor(**with_invalid(draw, gbm_params(draw, REGRESSION_LOSSES)))


def gbm_error(case: Case, est, classifier: bool):
    if (err := expected_error(case, est, classifier)) is not None:
        return err
    if est.loss in ("exponential", "logistic") and not (classifier or np.all(np.abs(case.y[kept(case)]) == 1.0)):
        return ValueError, rf"loss='{est.loss}' is a classification loss"
    if est.leaf_update == "newton" and est.loss == "absolute":
        return ValueError, "leaf_update='newton' needs a PointwiseLoss with a finite second derivative"
    if est.loss in ("exponential", "logistic") and np.unique(case.y[kept(case)]).shape[0] < 2:
        return ValueError, rf"loss='{est.loss}' needs targets of both signs"
    if not classifier and np.max(np.abs(case.y)) >= 1e200:
        return ValueError, Y_TOO_LARGE, MAY
    return None


@BATTERY
@given(scenario=gbm_scenarios())
# a gradient of 1e150 (weights [1, 1e-300]) times the mean-leaf step overflowed exp: now 'diverged'
@example(scenario=(Case(np.array([[-MAX], [-MAX]]), np.array([0, 1]), sample_weight=np.array([1.0, 1e-300])),
                   GBMClassifier(leaf_update="mean", learning_rate=1e-08, loss="exponential", max_depth=1,
                                 max_iter=1, random_state=0, subsample=1e-08, weak_learner="stump")))
# exponential loss on targets of one sign: log(0) in the initial constant
@example(scenario=(Case(np.array([[-MAX]]), np.array([-1.0])),
                   GBMRegressor(learning_rate=1e-08, loss="exponential", max_depth=1, max_iter=1, random_state=0,
                                subsample=1e-08, weak_learner="stump")))
def test_gbm_family(scenario):
    case, est = scenario
    classifier = isinstance(est, GBMClassifier)
    fitted = fit_or_raise(est, case, gbm_error(case, est, classifier))
    if fitted is None:
        return
    for model in binary_models(fitted):
        for name in ("offset_", "train_loss_"):
            assert_finite(getattr(model, name), name)
        assert model.status_ in ("max_iter", "max_time", "diverged")
        assert model.n_iter_ == est.max_iter if model.status_ == "max_iter" else model.n_iter_ <= est.max_iter
        check_history(model.history_)
    if classifier:
        first = check_classifier_outputs(fitted, case, vote=False)
        check_same_fit(fitted, case, first)
    else:
        check_regressor(fitted, case)


@pytest.mark.parametrize("cls", [FWBoostRegressor, GBMRegressor])
@pytest.mark.parametrize("shift", [1e15, 1e16])
def test_large_targets_sum_the_ensemble_before_the_offset(cls, shift):
    """Targets near 1e15 (issue 33, item 8): predict added each hypothesis to the offset (the mean
    of y), losing the hypotheses' low digits: FWBoost's training MSE 0.127 where the fit's own
    loss said 0.0063 (GBM 0.133 against 0.0013); near 1e16 no better than the mean. The ensemble is
    summed first, the offset added last, in predict, in the stages and in the training sums."""
    from sklearn.datasets import make_regression

    X, y0 = make_regression(n_samples=300, n_features=4, noise=1.0, random_state=0)
    y = shift + y0 / 100.0
    est = cls(max_iter=100).fit(X, y)
    pred = est.predict(X)
    mse = float(np.mean((pred - y) ** 2))
    assert mse == pytest.approx(2.0 * est.train_loss_, rel=1e-9, abs=1e-12)  # the fit's loss is predict's
    assert mse <= (0.05 if shift == 1e15 else 1.0) * float(np.var(y))
    np.testing.assert_array_equal(list(est.staged_predict(X))[-1], pred)


# ----------------------------------------------------------------------------- GraphSepBoost
@st.composite
def graphsep_scenarios(draw):
    case = draw(classification_cases())
    return case, GraphSepBoostClassifier(**with_invalid(draw, dict(
        weak_learner=draw(st.sampled_from(WEAK_LEARNERS)), max_depth=draw(st.integers(1, 3)),
        max_iter=draw(st.integers(1, 12)), aggregation=draw(st.sampled_from(["hamming", "positive_match"])),
        max_pairs=draw(st.sampled_from([1, 10, 100, 400] + [10_000_000] * 8)))))


@BATTERY
@given(scenario=graphsep_scenarios())
def test_graphsepboost(scenario):
    case, est = scenario
    error = expected_error(case, est)
    if error is None:
        pairs = [int(np.sum(y > 0)) * int(np.sum(y < 0)) for y in binary_problems(case)]
        if max(pairs) > est.max_pairs:
            error = ValueError, rf"above max_pairs={est.max_pairs}"
    fitted = fit_or_raise(est, case, error)
    if fitted is None:
        return
    first = check_classifier_outputs(fitted, case, vote=False)
    for model in binary_models(fitted):
        assert model.status_ in ("converged", "no_progress", "max_iter", "max_time")
        assert model.pos_codes_.shape[1] == model.neg_codes_.shape[1] == len(model.hypotheses_)
        check_history(model.history_)
    check_same_fit(fitted, case, first)


# ----------------------------------------------------------------------------- MABoost
LEARNING_RATES = [1e-8, 0.1, 1.0, 10.0, 1e6]


@st.composite
def maboost_scenarios(draw):
    case = draw(classification_cases(sample_weight=True))
    cls = draw(st.sampled_from([AdaBoostClassifier, MABoostClassifier, MadaBoostClassifier]))
    params = dict(learning_rate=draw(st.sampled_from(LEARNING_RATES)),
                  weak_learner=draw(st.sampled_from(WEAK_LEARNERS)), max_depth=draw(st.integers(1, 3)),
                  max_iter=draw(st.integers(1, 12)))
    fit_kw = {}
    if cls is MABoostClassifier:
        params.update(regularizer=draw(st.sampled_from(["entropy", "l2"])),
                      update=draw(st.sampled_from(["active", "lazy"])),
                      variant=draw(st.sampled_from(["normal", "maxmargin", "smooth", "combined", "sparse"])),
                      smoothness=draw(st.sampled_from([1e-8, 0.1, 0.5, 1.0])),
                      sparsity=draw(st.sampled_from([0.0, 0.5, 1.0 - 1e-12])))
        if params["variant"] == "combined" and draw(st.integers(0, 5)):
            fit_kw["secondary_mask"] = np.array(draw(st.lists(st.booleans(), min_size=case.m, max_size=case.m)))
    if cls is MadaBoostClassifier:
        params["step"] = draw(st.sampled_from(["paper", "adaboost"]))
    return case, cls(**with_invalid(draw, params)), fit_kw


def maboost_error(case: Case, est, fit_kw):
    if (err := expected_error(case, est)) is not None:
        return err
    if isinstance(est, MABoostClassifier):
        if est.variant == "sparse" and est.regularizer != "l2":
            return ValueError, "regularizer must be 'l2' for variant='sparse'"
        if est.variant == "sparse" and est.update != "active":
            return ValueError, "update must be 'active' for variant='sparse'"
        if est.variant == "combined" and "secondary_mask" not in fit_kw:
            return ValueError, "secondary_mask is required for variant='combined'"
    return None


@BATTERY
@given(scenario=maboost_scenarios())
# the histogram learner checked its thresholds with np.diff: max float - (-max float) overflowed
@example(scenario=(Case(np.array([[MAX], [-MAX], [1e300], [1e308]] + [[MAX]] * 8), np.array([0, 1, 1, 1] + [0] * 8),
                        sample_weight=np.array([1.0, 1.0, 0.0, 1.0] + [0.0] * 8)),
                   AdaBoostClassifier(learning_rate=1e-08, max_depth=1, max_iter=1, weak_learner="hist_stump"), {}))
# an edge of rounding noise (constant X) gave eta = 0, then 0/0 in history_['min_margin']
@example(scenario=(Case(np.array([[-MAX]] * 20), np.array([0] * 6 + [1] * 10 + [0] * 4)),
                   AdaBoostClassifier(learning_rate=1e-08, max_depth=1, max_iter=1, weak_learner="stump"), {}))
def test_maboost_family(scenario):
    case, est, fit_kw = scenario
    fitted = fit_or_raise(est, case, maboost_error(case, est, fit_kw), **fit_kw)
    if fitted is None:
        return
    first = check_classifier_outputs(fitted, case, vote=True)
    for model in binary_models(fitted):
        assert_finite(model.weights_, "weights_")
        assert np.all(model.weights_ >= 0.0), model.weights_
        assert len(model.hypotheses_) == model.weights_.shape[0]
        assert_finite(model.distribution_, "distribution_")
        assert np.all(model.distribution_ >= 0.0)
        assert_finite(model.margin_, "margin_")
        assert -1.0 - 1e-9 <= model.margin_ <= 1.0 + 1e-9
        assert model.status_ in ("max_iter", "max_time", "no_progress", "converged")
        check_history(model.history_)
    check_same_fit(fitted, case, first, **fit_kw)


# ----------------------------------------------------------------------------- average margin
@st.composite
def average_margin_scenarios(draw):
    case = draw(classification_cases())
    return case, AverageMarginBoostClassifier(**with_invalid(draw, dict(
        nu=draw(count_or_fraction(case.m)), eps=draw(st.sampled_from(EPS_EXTREMES)),
        eta=draw(st.sampled_from(["exact", "exact", "stump_bound", 1e-8, 1.0, 1e3, 1e6, MAX_ETA])),
        step=draw(st.sampled_from(["classic", "line_search", "short_step"])),
        stop=draw(st.sampled_from(["gap", "certified"])),
        min_weight=draw(st.sampled_from([0.0, 1e-6, 0.5, 1.0 - 1e-12])), max_iter=draw(st.integers(1, 12))), case.m))


def average_margin_error(case: Case, est):
    if (err := expected_error(case, est)) is not None:
        return err
    if not 1.0 <= resolved_nu(est.nu, case.m) <= case.m:
        return ValueError, r"nu must be a count in \[1, m\]"
    if isinstance(est.eta, str):
        X = np.asarray(case.X, dtype=np.float64)
        for y in binary_problems(case):
            if est.eta == "exact":
                eta = 2.0 * math.log(build_stump_nzdd(X, y).n_hypotheses) / est.eps
            else:
                eta = 2.0 * math.log(2.0 * X.shape[1] * (case.m + 1)) / est.eps
            if eta > MAX_ETA:
                return ValueError, r"eta = .* exceeds"
    return None


@BATTERY
@given(scenario=average_margin_scenarios())
# min_weight above every stump's weight stored an empty vote (weights_ summing to 0)
@example(scenario=(Case(np.array([[-MAX], [-MAX]]), np.array([0, 1])),
                   AverageMarginBoostClassifier(eps=1e-08, max_iter=1, min_weight=0.5, nu=1)))
# np.diff of 1e300 and -max float overflowed while the stump NZDD counted distinct values
@example(scenario=(Case(np.array([[1e300], [-MAX]]), np.array([0, 1])),
                   AverageMarginBoostClassifier(eps=1e-08, max_iter=1, min_weight=0.0, nu=1)))
def test_average_margin(scenario):
    case, est = scenario
    fitted = fit_or_raise(est, case, average_margin_error(case, est))
    if fitted is None:
        return
    first = check_classifier_outputs(fitted, case, vote=True)
    for model in binary_models(fitted):
        check_simplex(model.weights_, "weights_")
        for name in ("margin_", "full_margin_", "objective_", "gap_", "dropped_mass_", "eta_", "nu_"):
            assert_finite(getattr(model, name), name)
        d = model.distribution_
        assert_finite(d, "distribution_")
        assert np.all(d >= 0.0) and np.all(d <= 1.0 / model.nu_ + 1e-9) and abs(d.sum() - 1.0) <= 1e-9
        assert model.status_ in ("converged", "max_iter", "max_time")
        # best_edge is NaN unless stop='certified' (documented)
        check_history(model.history_, nan_ok=("best_edge",) if est.stop == "gap" else ())
    check_same_fit(fitted, case, first)
