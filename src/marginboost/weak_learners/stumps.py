"""Exact edge-maximising decision stumps.

A stump with ``feature`` j, ``threshold`` t and ``sign`` s in {-1, +1} is

    h(x) = s  if x_j > t  else  -s,

and ``t = -inf`` gives the constant hypothesis ``s``. Given a distribution ``d`` the oracle
returns a stump maximising the edge (paper 000, Mitsuboshi et al., "Boosting as Frank-Wolfe",
section 2; it is the linear minimisation oracle of section 4.1):

    edge(h; d) = sum_i d_i y_i h(x_i).

Writing ``w = d * y``, ``T = sum_i w_i`` and ``L(t) = sum_{x_ij <= t} w_i``, a stump's edge is
``s * (T - 2 L(t))``, so the best sign is the sign of ``T - 2 L(t)`` and the best stump
maximises ``|T - 2 L(t)|`` over the cut points of every feature. A cut is only possible
between two distinct consecutive values of the presorted feature; its threshold is their
midpoint. The constant hypotheses are the cut ``L = 0`` (``t = -inf``).

Ties are broken deterministically: the constants first, then the first feature, then the
smallest threshold; a later candidate wins only with a strictly larger edge.

Missing values (NaN) sort after every number. A stump also says where they go (``missing_left``):
with ``M`` the sum of ``w`` over the examples missing the feature, a cut has the edges
``|T - 2 L|`` (missing values right, with ``x > t``) and ``|T - 2 (L + M)|`` (left) and takes the
larger, as LightGBM and scikit-learn's HistGradientBoosting choose by gain; one more cut puts the
finite values against the missing ones. Where ``M`` fails the z-test of ``missing_z``
(:mod:`.missing_side`), NaN goes to the side where the cut sends the feature's mean instead, and
the cut against the missing ones is made only where the mean exceeds every finite value. When the two edges
are equal, and when no training example misses the feature (as on data without NaN), NaN goes to
the side of more training examples (the left on a tie): scikit-learn's rule for a feature never
missing in training.

Categorical features (the columns a :class:`.categorical.CategoricalMatrix` marks): a stump may send
a subset of categories left (``categories``); the best subset is the sign split of the per-category
sums (:mod:`.categorical`), searched by :class:`MixedStumpOracle` beside the numeric columns.

Inputs are assumed validated upstream (X without infinities, y in {-1, +1} as float64, d on the
simplex).

The sweep :func:`_best_stump` (the cut before sorted position k is tested with the sum so far, and
``w`` of k added after: 475 -> 120 us on ringnorm, 7400 x 20, issue 17; two features in one loop,
two independent running sums, another 1.4 times as fast; on X with NaN :func:`_best_stump_missing`,
a feature at a time, so that X without NaN runs the code of before) and :func:`midpoint` (a threshold t with
``a <= t < b``: the plain midpoint of two adjacent doubles can round up to ``b``, and ``a + b`` can
overflow; ``a`` then) are compiled ahead of time in ``_stumps.pyx``; compiled kernels cimport
``midpoint`` from ``_stumps.pxd``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from marginboost.weak_learners._stumps import _best_stump, _best_stump_missing
from marginboost.weak_learners._stumps import midpoint_py as midpoint  # noqa: F401  (histogram, nzdd_stumps)
from marginboost.weak_learners.base import EdgeOracle, Hypothesis, WeakLearner
from marginboost.weak_learners.categorical import (categorical_columns, categorical_left, category_codes,
                                                   category_counts, goes_left, split_columns)
from marginboost.weak_learners.memory import check_fits_in_memory
from marginboost.weak_learners.missing_side import (MISSING_Z, check_missing_z, column_means, missing_z_repr,
                                                    sample_noise)
from marginboost.weak_learners.shared import shared

__all__ = ["DecisionStump", "MixedStumpOracle", "Stump"]

# A categorical stump must beat the best numeric one by more than this times sum |w_i|: edges equal
# in exact arithmetic (a two-category column equal to a 0/1 numeric one) must not be told apart by
# the rounding of sums taken in another order (trees.SPLIT_TOL, the same for tree nodes).
TIE_TOL = 1e-12


def presort(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(X, vals, order)``: X as C-contiguous float64, and per feature (rows of the
    (p, m) arrays) the values sorted ascending and the stable argsort that sorts them.

    Done once per X for all the fits inside :func:`.shared.share_features` (one-vs-rest)."""
    return shared(X, "presort", lambda: _sort_features(X))


def _sort_features(X) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m, p = np.shape(X)
    # values and order (16 bytes per entry), the argsort's (m, p) int64 temporary, and a
    # float64 copy of X unless X is one already
    copy = 0 if getattr(X, "dtype", None) == np.float64 else 8
    check_fits_in_memory(m * p * (24 + copy), f"presorting X of shape {(m, p)} for the exact weak learners")
    X = np.ascontiguousarray(X, dtype=np.float64)
    order_mp = np.argsort(X, axis=0, kind="stable")
    vals = np.ascontiguousarray(np.take_along_axis(X, order_mp, axis=0).T)
    order = np.ascontiguousarray(order_mp.T).astype(np.int64, copy=False)
    return X, vals, order


def has_missing(vals: np.ndarray) -> bool:
    """Whether the presorted features ``vals`` (:func:`presort`) hold a NaN: sorted last, so the
    last column says."""
    return vals.shape[1] > 0 and bool(np.isnan(vals[:, -1]).any())


def right_side(column: np.ndarray, threshold: float, missing_left: bool) -> np.ndarray:
    """Which values of ``column`` a split sends right: ``x > threshold``, and NaN unless
    ``missing_left``."""
    return column > threshold if missing_left else ~(column <= threshold)


def stump_select(column: np.ndarray, threshold: float, missing_left: bool, left, right) -> np.ndarray:
    """``right`` where a split sends ``x`` right (``x > threshold``; NaN unless ``missing_left``),
    else ``left``: one comparison either way, as NaN fails both ``x > t`` and ``x <= t``."""
    if missing_left:
        return np.where(column > threshold, right, left)
    return np.where(column <= threshold, left, right)


@dataclass(frozen=True)
class Stump(Hypothesis):
    """h(x) = sign if x[feature] > threshold else -sign; threshold -inf means constant ``sign``.

    A missing value (NaN) gives -sign (the left side) where ``missing_left``, else sign (the
    default, also that of stumps read from model files of format 4 or older).

    A categorical stump (``categories`` a tuple of category codes, :mod:`.categorical`; threshold
    unused) sends the codes in ``categories`` left: h(x) = -sign if x[feature] in categories else
    sign (NaN as above)."""

    feature: int
    threshold: float
    sign: float
    missing_left: bool = False
    categories: tuple | None = None

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
        if self.threshold == -np.inf:
            # Constant: must not index a column (the sample may even have none).
            return np.full(X.shape[0], float(self.sign))
        s = float(self.sign)
        if self.categories is not None:
            return np.where(goes_left(X[:, self.feature], self.threshold, self.categories, self.missing_left), -s, s)
        return stump_select(X[:, self.feature], self.threshold, self.missing_left, -s, s)


class _StumpOracle(EdgeOracle):
    def __init__(self, X: np.ndarray, y: np.ndarray, missing_z: float = MISSING_Z):
        self._X, self._vals, self._order = presort(X)
        self._missing = has_missing(self._vals)
        self._means = column_means(self._vals) if self._missing else None
        self._y = np.asarray(y, dtype=np.float64)
        self._z = missing_z

    def __call__(self, d: np.ndarray) -> tuple[Stump, np.ndarray]:
        w = np.asarray(d, dtype=np.float64) * self._y
        if self._missing:
            feature, threshold, sign, _, missing_left = _best_stump_missing(self._vals, self._order, w,
                                                                            sample_noise(w, self._z), self._means)
        else:
            feature, threshold, sign, _ = _best_stump(self._vals, self._order, w)
            # no missing value: NaN goes to the side of more examples (the left on a tie)
            m = self._vals.shape[1]
            missing_left = 2 * int(np.searchsorted(self._vals[feature], threshold, side="right")) >= m
        h = Stump(int(feature), float(threshold), float(sign), bool(missing_left) and threshold != -np.inf)
        # Recompute on X rather than trust the kernel's bookkeeping: the booster's margins
        # must be exactly what h.predict gives.
        return h, h.predict(self._X)


class MixedStumpOracle(EdgeOracle):
    """Best stump over the numeric columns (``numeric_oracle(X_numeric)``, the learner's oracle on
    them) and the categorical ``columns`` of ``X``."""

    def __init__(self, X, y, columns: np.ndarray, numeric_oracle):
        self._X, self._numeric, X_num = split_columns(X, columns)
        self._columns = columns
        self._codes = [category_codes(self._X[:, j]) for j in columns]
        self._y = np.asarray(y, dtype=np.float64)
        self._oracle = numeric_oracle(X_num) if self._numeric.size else None

    def __call__(self, d):
        w = np.asarray(d, dtype=np.float64) * self._y
        if self._oracle is None:  # no numeric column: the constants are the numeric candidates
            h = Stump(0, -np.inf, 1.0 if w.sum() >= 0.0 else -1.0)
            pred = np.full(w.shape[0], h.sign)
        else:  # its predictions on the numeric columns are h's on X
            h, pred = self._oracle(d)
            if h.threshold != -np.inf:
                h = Stump(int(self._numeric[h.feature]), h.threshold, h.sign, h.missing_left)
        best = float(w @ pred)
        tol = TIE_TOL * float(np.abs(w).sum())
        chosen = None
        for j, (codes, K) in zip(self._columns, self._codes):
            e, n = category_counts(codes, K, w)
            score, categories, missing_left = categorical_left(e[0], n[0])
            # score = sum_c |e_c| is this stump's edge whenever it beats the constants: where every
            # e_c has one sign it equals |T| <= best, so the moved category never reaches here
            if score > best + tol:
                best, chosen = score, Stump(int(j), 0.0, 1.0, missing_left, categories)
        if chosen is None:
            return h, pred
        return chosen, chosen.predict(self._X)


class DecisionStump(WeakLearner):
    """Exact max-edge decision stump over all features, thresholds and both orientations (and both
    sides for missing values, by edge where their sum passes the z-test of ``missing_z``:
    :mod:`.missing_side`; 0: always by edge)."""

    allow_nan = True
    allow_categorical = True

    def __init__(self, missing_z: float = MISSING_Z):
        self.missing_z = missing_z

    def prepare(self, X: np.ndarray, y: np.ndarray) -> EdgeOracle:
        z = check_missing_z(self.missing_z)
        columns = categorical_columns(X)
        if columns.size:
            return MixedStumpOracle(X, y, columns, lambda X_num: _StumpOracle(X_num, y, z))
        return _StumpOracle(X, y, z)

    def __repr__(self) -> str:
        z = missing_z_repr(self.missing_z)
        return f"DecisionStump({z[2:]})"
