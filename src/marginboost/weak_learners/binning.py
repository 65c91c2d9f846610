"""Feature binning for the histogram weak learners (LightGBM-style; Ke et al., NeurIPS 2017).

Feature j is cut by ascending thresholds ``t_0 < t_1 < ...`` into ``n_bins[j]`` bins; bin b
holds the values x with ``t_{b-1} < x <= t_b``. So the code of x (its bin) is the number of
thresholds below x, and ``code > b`` exactly when ``x > t_b``: a cut after bin b sends every
example the way ``x > t`` does for any raw threshold t in ``[max of bin b, min of bin b+1)``.

Thresholds from the data (the default), from the distinct values ``u_0 < ... < u_{K-1}`` of a
feature and their counts ``c_k``:

* ``K <= max_bins``: one bin per distinct value, so every cut of the exact learners
  (:mod:`.stumps`, :mod:`.trees`) is a cut between bins and the histogram learners are exact;
* ``K > max_bins``: ``max_bins`` bins of about equal counts, each a run of consecutive distinct
  values (greedy: a bin closes after ``u_k`` when adding ``u_{k+1}`` would overshoot the equal
  share of what is left, ``remaining / bins_left``, by more than stopping now undershoots it, or
  when the values left only just suffice for one per bin left).

Either way ``t_b = midpoint(u_k, u_{k+1})`` with ``u_k`` the largest value of bin b and
``u_{k+1}`` the smallest of bin b+1 (:func:`.stumps.midpoint`, so ``u_k <= t_b < u_{k+1}``).

Thresholds may also be given (e.g. fitted by :func:`bin_thresholds` on a sample); bins the
training data leave empty are then never cut. In every case ``lower``/``upper`` are the smallest
and largest *training* value in each bin, computed while coding.

Missing values (NaN) get their own bin: the thresholds are fitted on the other values, and a
feature with NaN in the training data (``missing[j]``) has the code ``n_bins[j]`` for them, one
past its value bins (so ``n_bins[j] <= 255`` value bins and the missing bin fit in a byte), with
``lower`` +inf and ``upper`` -inf. Without NaN in X the bins, codes and widths are those of a
binning that knew no missing values. Infinities are refused.

The loops are compiled ahead of time (``_binning.pyx``, imported here under their names); the
coding pass over given thresholds takes X of any layout and of the dtypes :func:`as_2d_numeric`
keeps, and runs on ``n_jobs`` OpenMP threads.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from marginboost.weak_learners._binning import (  # noqa: F401 (the kernels keep their names here)
    _cut_positions,
    _encode,
    _runs,
    _scatter_codes,
    _thresholds_at,
    max_threads,
)

__all__ = ["BinnedFeatures", "Bins", "bin_features", "bin_thresholds"]


@dataclass(frozen=True, eq=False)
class Bins:
    """Bins of p features; arrays of width ``W = max(n_bins + missing)``, padded past the bins of
    each feature.

    ``thresholds[j, b]`` (b < n_bins[j] - 1) separates bin b from b+1 (+inf as padding; (p, W'),
    ``W' = max(n_bins) - 1``); ``lower``/``upper``: smallest/largest training value in each bin
    (+inf/-inf when empty); ``counts``: training examples per bin; ``missing[j]``: feature j has
    missing values (NaN) in the training data, in bin ``n_bins[j]`` (module docstring).
    """

    thresholds: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    counts: np.ndarray
    n_bins: np.ndarray
    missing: np.ndarray

    @property
    def width(self) -> int:
        """``W = max(n_bins + missing)``, the width of the padded arrays."""
        return int(self.lower.shape[1])

    def missing_code(self, feature: int, missing_left: bool) -> int:
        """The code a split on ``feature`` sends left besides the codes ``<= cut``: its missing bin
        where ``missing_left`` and the feature has one, else -1 (none: the missing bin, the largest
        code, goes right with the codes above the cut)."""
        return int(self.n_bins[feature]) if missing_left and self.missing[feature] else -1


@dataclass(frozen=True, eq=False)
class BinnedFeatures:
    """A binned sample: ``codes[j, i]`` (uint8, shape (p, m), C-ordered so that each feature is
    one contiguous row for the per-feature sweeps) is the bin of ``X[i, j]`` in ``bins``."""

    codes: np.ndarray
    bins: Bins

    @property
    def thresholds(self) -> np.ndarray:
        """``bins.thresholds``: (p, W), ``[j, b]`` separates bin b from b+1."""
        return self.bins.thresholds

    @property
    def upper(self) -> np.ndarray:
        """``bins.upper``: (p, W), the largest training value in each bin."""
        return self.bins.upper


def check_max_bins(max_bins) -> int:
    if isinstance(max_bins, bool) or not isinstance(max_bins, numbers.Integral) or not 2 <= max_bins <= 255:
        raise ValueError(f"max_bins must be an integer in [2, 255] (codes are uint8), got {max_bins!r}")
    return int(max_bins)


def n_threads(n_jobs) -> int:
    """OpenMP threads for ``n_jobs``: None or 1 -> 1 (serial kernels), -1 -> all, k -> min(k, all).

    "All" is OpenMP's ``omp_get_max_threads()`` now (the CPUs, or ``OMP_NUM_THREADS``, or a
    ``threadpoolctl.threadpool_limits`` in force; 1 in a build without OpenMP), as scikit-learn
    counts them; the kernels also cap their threads at it when they run."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be None, -1 or a positive integer, got {n_jobs!r}")
    available = max_threads()
    return available if n_jobs == -1 else min(int(n_jobs), available)


def as_2d_numeric(X) -> np.ndarray:
    """X as a 2-d real array, float32/float64/integer kept as they are (no float64 copy)."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
    if X.shape[0] < 1:
        raise ValueError("X must have at least one row")
    if X.dtype == np.bool_:
        return X.view(np.uint8)
    if X.dtype.kind in "iu" or X.dtype in (np.float32, np.float64):
        return X
    return X.astype(np.float64)


def distinct_counts(column) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values (as float64, the unit of every threshold) of one column and their counts,
    missing values (NaN) left out."""
    column = np.asarray(column, dtype=np.float64)
    return np.unique(column[~np.isnan(column)], return_counts=True)


def feature_thresholds(values: np.ndarray, counts: np.ndarray, max_bins: int, feature: int) -> np.ndarray:
    """Thresholds of one feature from its sorted distinct values (no NaN) and their counts; none
    for a feature with no value (missing everywhere)."""
    return _thresholds_at(values, _checked_cuts(values, counts, max_bins, feature))


def _checked_cuts(values, counts, max_bins, feature):
    """:func:`_cut_positions` of a feature whose sorted distinct values are all finite (else ValueError)."""
    if values.shape[0] and not (math.isfinite(values[0]) and math.isfinite(values[-1])):
        raise ValueError(_infinite(feature))
    return _cut_positions(counts.astype(np.int64), max_bins)


def _infinite(feature: int) -> str:
    return (f"X must not contain infinity: feature {feature} has an infinite value (a missing value is NaN, which "
            "gets a bin of its own)")


def bin_thresholds(X, max_bins: int = 255) -> list[np.ndarray]:
    """Per feature, the thresholds of the bins of X (module docstring); e.g. fit on a sample and
    pass to :func:`bin_features` or to the Dask learners as ``thresholds``."""
    max_bins = check_max_bins(max_bins)
    X = as_2d_numeric(X)
    return [feature_thresholds(*distinct_counts(X[:, j]), max_bins, j) for j in range(X.shape[1])]


def pad_thresholds(thresholds, p: int, max_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Check user or fitted thresholds; return them as a (p, W - 1) array (+inf padded) and n_bins."""
    if len(thresholds) != p:
        raise ValueError(f"thresholds must hold one array per feature ({p}), got {len(thresholds)}")
    rows = [np.asarray(t, dtype=np.float64).reshape(-1) for t in thresholds]
    for j, t in enumerate(rows):
        if t.shape[0] > max_bins - 1:
            raise ValueError(f"thresholds[{j}] has {t.shape[0]} values; at most max_bins - 1 = {max_bins - 1}")
        if not np.all(np.isfinite(t)) or np.any(t[1:] <= t[:-1]):  # not np.diff: +-1e308 apart overflows
            raise ValueError(f"thresholds[{j}] must be finite and strictly increasing")
    n_bins = np.array([t.shape[0] + 1 for t in rows], dtype=np.int64)
    width = int(n_bins.max(initial=1))
    padded = np.full((p, width - 1), np.inf)
    for j, t in enumerate(rows):
        padded[j, : t.shape[0]] = t
    return padded, n_bins


def encode(X: np.ndarray, thresholds: np.ndarray, n_bins: np.ndarray, threads: int = 1):
    """Codes (p, m) uint8 of X and per-bin lower, upper, counts over its rows, each (p, W + 1) for
    ``W = max(n_bins)``: room for the missing bin (code ``n_bins[j]``) of NaN; :func:`trim_bins`
    then cuts them to the bins in use."""
    m, p = X.shape
    width = thresholds.shape[1] + 2
    codes = np.empty((p, m), dtype=np.uint8)
    lower = np.full((p, width), np.inf)
    upper = np.full((p, width), -np.inf)
    counts = np.zeros((p, width), dtype=np.int64)
    finite = np.ones(p, dtype=np.bool_)
    _encode(X, thresholds, n_bins, codes, lower, upper, counts, finite.view(np.uint8), threads)
    if not finite.all():
        raise ValueError(_infinite(int(np.argmin(finite))))
    return codes, lower, upper, counts


def trim_bins(thresholds, lower, upper, counts, n_bins) -> Bins:
    """The :class:`Bins` of :func:`encode`'s per-bin arrays (summed over row blocks, for a Dask
    sample): ``missing[j]`` where the missing bin holds examples, the arrays cut to the width
    ``max(n_bins + missing)`` (that of a binning without missing bin when X has no NaN)."""
    missing = counts[np.arange(n_bins.shape[0]), n_bins] > 0
    width = int((n_bins + missing).max(initial=1))
    return Bins(thresholds, np.ascontiguousarray(lower[:, :width]), np.ascontiguousarray(upper[:, :width]),
                np.ascontiguousarray(counts[:, :width]), n_bins, missing)


def bin_features(X, max_bins: int = 255, thresholds=None, n_jobs=None) -> BinnedFeatures:
    """Bin the columns of X (float32, float64 or integer; not copied to float64).

    ``thresholds``: None to fit them on X (module docstring), or one increasing array per feature.
    ``n_jobs``: OpenMP threads for the coding pass over given thresholds (None or 1: serial; the
    result is the same); thresholds fitted here come with their codes from one sort (:func:`_fit_bins`).
    """
    max_bins = check_max_bins(max_bins)
    threads = n_threads(n_jobs)
    X = as_2d_numeric(X)
    if thresholds is None:
        return _fit_bins(X, max_bins)
    padded, n_bins = pad_thresholds(thresholds, X.shape[1], max_bins)
    codes, lower, upper, counts = encode(X, padded, n_bins, threads)
    return BinnedFeatures(codes, trim_bins(padded, lower, upper, counts, n_bins))


def _fit_bins(X, max_bins: int) -> BinnedFeatures:
    """Thresholds fitted on X and X coded by them, from one sort per feature.

    The thresholds need each column's distinct values, i.e. a sort; walking the sorted order, the
    distinct value k of each x is known, and it lies in bin ``#{cuts < k}`` (``t_b < u_k``
    exactly when bin b ends before k), so the codes cost a lookup each instead of a binary search
    over the thresholds (:func:`encode`: 39 ns a value, 0.2 s at 10^5 x 50; now 0.13 s in all;
    issue 17). ``lower``, ``upper`` and ``counts`` follow from the distinct values and their
    counts. The result equals ``encode`` with the same thresholds (tested). Extra memory, for one
    column at a time: its order, its sorted copy and its distinct values with their counts, up to
    about 75 bytes a row (tracemalloc, float32 X). Serial: the sort is numpy's. NaN sort last: the
    values before them are binned, and they take the missing bin.
    """
    m, p = X.shape
    codes = np.empty((p, m), dtype=np.uint8)
    per_feature = []  # (thresholds, lower, upper, counts, missing examples) of each feature's bins
    for j in range(p):
        column = np.asarray(X[:, j], dtype=np.float64)
        order = np.argsort(column)
        ordered = column[order]
        del column
        n_finite = m
        if m and np.isnan(ordered[-1]):  # NaN sort last (and search so): where they begin
            n_finite = int(np.searchsorted(ordered, np.nan))
        values, counts = _runs(ordered[:n_finite])
        cuts = _checked_cuts(values, counts, max_bins, j)  # raises on inf
        thresholds = _thresholds_at(values, cuts)
        if values.shape[0]:
            starts = np.concatenate(([0], cuts + 1))
            ends = np.append(cuts, values.shape[0] - 1)
            bin_of_value = np.repeat(np.arange(starts.shape[0], dtype=np.uint8), ends - starts + 1)
            _scatter_codes(ordered[:n_finite], order[:n_finite], bin_of_value, codes[j])
            bounds = values[starts], values[ends], np.add.reduceat(counts, starts)
        else:  # missing everywhere: one empty value bin
            bounds = np.array([np.inf]), np.array([-np.inf]), np.array([0])
        codes[j, order[n_finite:]] = thresholds.shape[0] + 1  # the missing bin
        per_feature.append((thresholds, *bounds, m - n_finite))
    padded, n_bins = pad_thresholds([f[0] for f in per_feature], p, max_bins)
    width = padded.shape[1] + 2
    lower = np.full((p, width), np.inf)
    upper = np.full((p, width), -np.inf)
    bin_counts = np.zeros((p, width), dtype=np.int64)
    for j, (_, lower_j, upper_j, counts_j, n_missing) in enumerate(per_feature):
        lower[j, : n_bins[j]] = lower_j
        upper[j, : n_bins[j]] = upper_j
        bin_counts[j, : n_bins[j]] = counts_j
        bin_counts[j, n_bins[j]] = n_missing
    return BinnedFeatures(codes, trim_bins(padded, lower, upper, bin_counts, n_bins))
