"""Categorical features for the edge learners (exact and histogram stumps and trees).

A categorical feature holds category codes ``0, 1, ..., K - 1`` (floats of integer value; NaN for
a missing value). The estimators encode a pandas ``category`` column (or a declared one) to codes
and mark the validated matrix (:class:`CategoricalMatrix`, whose ``categorical`` mask says which
columns hold codes); the learners read the mask in ``prepare``.

A categorical split sends a subset ``A`` of the categories left (``categories``, a sorted tuple
of codes), every other category right, and NaN where ``missing_left`` says. With ``w = d * y`` and
``e_c = sum_{i : x_ij = c} w_i`` (the missing values one more "category" ``e_M``):

* a stump ``h(x) = s if x_j not in A else -s`` has the edge ``s (sum_{c not in A} e_c - sum_{c in
  A} e_c) <= sum_c |e_c|``, with equality for ``s = +1`` and ``A = {c : e_c <= 0}``: the best
  categorical stump of feature j has the edge ``sum_c |e_c|`` (one pass of sums, no search over the
  ``2^K`` subsets);
* a tree node N split by ``A`` scores ``|S(L)| + |S(R)| = |sum_{c in A} e_c| + |sum_{c not in A}
  e_c| <= sum_c |e_c|`` (the triangle inequality; here ``e_c`` sums over the node's examples),
  again with equality for ``A = {c : e_c <= 0}``.

The missing values join the side of the sign of ``e_M`` (left where ``e_M <= 0``); where the node
(or the sample, for a stump) has no missing example, NaN goes to the side of more training
examples, the left on a tie (scikit-learn's rule, as for the numeric splits). A category of no
training example at the split has ``e_c = 0`` and goes left. Where every ``e_c`` has one sign
(every split then scores ``|S|``), the lowest category present is moved to the other side: a split
of no immediate gain, as the numeric learners make above the last level.

For the least-squares learners (GBM, FWBoost's regression learners) a split of the node's
categories into L and R maximises ``S(L)^2 / W(L) + S(R)^2 / W(R)`` (``S_c = sum s_i r_i``, ``W_c =
sum s_i`` over category c; :mod:`.regression`). Fisher (1958): some best split is contiguous in
the order of the category means ``S_c / W_c``, so sorting the categories (missing one of them)
and trying the cuts of that order is exact (:func:`least_squares_left`; LightGBM and scikit-learn's
HistGradientBoosting do the same).

The numeric features keep their learner's search (the compiled sweeps, on the numeric columns
alone: :func:`split_columns`); a categorical candidate replaces the best numeric one only when its
edge (score) is larger by more than ``trees.SPLIT_TOL * sum |w_i|`` (of the node): ties go to the
numeric splits, then to the first categorical feature. The oracles are ``MixedStumpOracle``
(:mod:`.stumps`, for the exact and histogram stumps) and ``MixedTreeOracle`` (:mod:`.trees`, grown
as the edge trees grow, the examples routed in numpy; the per-node numeric search
:func:`.trees.exact_numeric_splits` or :func:`.histogram.histogram_numeric_splits`). Their
training predictions are ``h.predict(X)``, so that the booster's margins are exactly the
hypothesis's. On a matrix without categorical columns none of this runs.
"""
from __future__ import annotations

import numpy as np

__all__ = ["CategoricalMatrix", "categorical_columns", "categorical_left", "category_codes", "category_counts",
           "goes_left", "least_squares_left", "split_columns"]


class CategoricalMatrix(np.ndarray):
    """A float64 matrix (m, p) whose ``categorical`` (p,) bool mask marks the columns of category
    codes. Row selections keep the mask (``__array_finalize__``), so the subsets an estimator fits
    on (positive sample weights, a validation split) stay marked; ``np.asarray`` drops it."""

    def __new__(cls, X: np.ndarray, categorical: np.ndarray):
        obj = np.asarray(X, dtype=np.float64).view(cls)
        obj.categorical = np.asarray(categorical, dtype=bool)
        return obj

    def __array_finalize__(self, obj):
        self.categorical = getattr(obj, "categorical", None)


def categorical_columns(X) -> np.ndarray:
    """The indices of the categorical columns of ``X`` (none unless it is a 2-D
    :class:`CategoricalMatrix` with some column marked), their codes checked."""
    mask = getattr(X, "categorical", None)
    if mask is None or np.ndim(X) != 2 or mask.shape != (X.shape[1],) or not mask.any():
        return np.empty(0, dtype=np.int64)
    columns = np.flatnonzero(mask)
    codes = np.asarray(X)[:, columns]
    finite = codes[~np.isnan(codes)]
    if finite.size and (finite.min() < 0 or not np.array_equal(finite, np.floor(finite))):
        bad = columns[np.flatnonzero(np.any((codes < 0) | (codes != np.floor(codes)), axis=0))[0]]
        raise ValueError(f"categorical column {bad} must hold category codes 0, 1, 2, ... (or NaN for missing)")
    return columns


def category_codes(column: np.ndarray) -> tuple[np.ndarray, int]:
    """``(codes, K)``: the codes of a categorical column as int64, the missing values given code
    ``K`` (1 + the largest code; 0 for a column missing everywhere), done once per sample."""
    missing = np.isnan(column)
    K = int(np.nanmax(column)) + 1 if not missing.all() else 0
    return np.where(missing, K, np.nan_to_num(column)).astype(np.int64), K


def category_counts(codes: np.ndarray, K: int, w: np.ndarray, node_of: np.ndarray | None = None,
                    n_nodes: int = 1):
    """``(e, n)``: per node and category the sums ``e[k, c]`` of ``w`` and the example counts
    ``n[k, c]`` over the examples of node k with code c (:func:`category_codes`; the missing values
    in the last column ``c = K``; examples with ``node_of[i] < 0`` left out)."""
    if node_of is None:
        index, weights = codes, w
    else:
        inside = node_of >= 0
        index, weights = node_of[inside] * (K + 1) + codes[inside], w[inside]
    size = n_nodes * (K + 1)
    e = np.bincount(index, weights=weights, minlength=size).reshape(n_nodes, K + 1)
    n = np.bincount(index, minlength=size).reshape(n_nodes, K + 1)
    return e, n


def categorical_left(e: np.ndarray, n: np.ndarray):
    """For one node's sums ``e`` and counts ``n`` (:func:`category_counts`, missing last): ``(score,
    categories, missing_left)`` of the sign split (module docstring): ``score = sum_c |e_c|``, the
    codes sent left (those with ``e_c <= 0``) and the side of NaN. Where the sign split leaves a
    side without example (every ``e_c`` of one sign: then every split scores ``sum_c |e_c| = |S|``),
    the lowest category present goes to the empty side, so that a node splits without immediate gain
    as the numeric cuts do (a gain may follow one level down); score ``-inf`` where fewer than two
    bins (categories or missing) hold examples."""
    present = n > 0
    if np.count_nonzero(present) < 2:
        return -np.inf, (), False
    left = e <= 0.0
    if n[-1] == 0:  # no missing example: NaN to the side of more examples (the left on a tie)
        left[-1] = int(n[:-1][left[:-1]].sum()) >= int(n[:-1][~left[:-1]].sum())
    if left[present].all() or not left[present].any():
        first = int(np.flatnonzero(present[:-1])[0])
        left[first] = not left[first]
        if n[-1] == 0:
            left[-1] = int(n[:-1][left[:-1]].sum()) >= int(n[:-1][~left[:-1]].sum())
    return float(np.abs(e).sum()), tuple(int(c) for c in np.flatnonzero(left[:-1])), bool(left[-1])


def least_squares_left(S: np.ndarray, W: np.ndarray, n: np.ndarray):
    """For one node's per-category sums ``S = sum s r``, ``W = sum s`` and counts ``n`` (missing
    last, as :func:`category_counts`): ``(score, categories, missing_left)`` of the best split by
    least squares, ``score = S(L)^2 / W(L) + S(R)^2 / W(R)``: the best cut of the categories sorted
    by mean ``S_c / W_c`` (Fisher 1958; module docstring), the first of equal scores; the lower
    means go left. Categories without example go right; NaN without example at the node goes to
    the side of more examples (the left on a tie). Score ``-inf`` where fewer than two bins hold
    examples."""
    bins = np.flatnonzero((n > 0) & (W > 0))
    if bins.size < 2:
        return -np.inf, (), False
    order = bins[np.argsort(S[bins] / W[bins], kind="stable")]
    left_S, left_W = np.cumsum(S[order])[:-1], np.cumsum(W[order])[:-1]
    scores = left_S * left_S / left_W + (S.sum() - left_S) ** 2 / (W.sum() - left_W)
    k = int(np.argmax(scores))
    left = np.zeros(S.shape[0], dtype=bool)
    left[order[: k + 1]] = True
    if n[-1] == 0:
        left[-1] = int(n[:-1][left[:-1]].sum()) >= int(n[:-1][~left[:-1]].sum())
    return float(scores[k]), tuple(int(c) for c in np.flatnonzero(left[:-1])), bool(left[-1])


def goes_left(column: np.ndarray, threshold: float, categories, missing_left: bool) -> np.ndarray:
    """Which values of ``column`` a split sends left: ``x in categories`` for a categorical split
    (``categories`` a tuple of codes), else ``x <= threshold``; NaN where ``missing_left``."""
    left = np.isin(column, categories) if categories is not None else column <= threshold
    return left | (np.isnan(column) & missing_left) if missing_left else left


def split_columns(X, columns: np.ndarray):
    """``(X, numeric, X_numeric)``: X as C-contiguous float64, the indices of its columns not in
    ``columns`` (the categorical ones) and those columns alone."""
    X = np.ascontiguousarray(np.asarray(X), dtype=np.float64)
    numeric = np.setdiff1d(np.arange(X.shape[1]), columns)
    return X, numeric, np.ascontiguousarray(X[:, numeric])

