"""The side of a split that the missing values (NaN) join, for the edge learners (issue 32).

A split of a node N (the whole sample, for a stump) into L and R may send the node's examples that
miss the split's feature, of weighted sum ``M = sum_{i missing} d_i y_i``, either way: their side
changes the split's score ``|S(L)| + |S(R)|`` by up to ``2 |M|``. LightGBM and scikit-learn's
HistGradientBoosting always take the side of larger gain. For a sparse, LP-weighted vote that fits
noise: where the missing examples' labels carry no signal, the larger edge is chance, and the
booster keeps the split that exploits it (issue 32's table: 1.4 to 3.9 standard errors lost to mean
imputation on ringnorm and twonorm with values removed at random).

So the side is chosen by edge only where ``M`` departs from what missing examples drawn at random
from the node would carry, their share ``n_M S(N) / n(N)`` of the node's sum, by more than chance
allows, a z-test:

    (M - n_M S(N) / n(N))^2 > z^2 n_M Q(N) / n(N),

with ``n_M`` the node's examples missing the feature, ``n(N)`` all of its examples and ``Q(N) =
sum_{i in N} (d_i y_i)^2``: ``n_M Q(N) / n(N)`` bounds the variance of ``M`` for ``n_M`` examples
drawn at random from the node, so one statistic serves the exact learners and the histogram ones,
whose bins hold the counts but not the squares. Otherwise the missing values go to the side where
the cut sends the feature's mean (of its finite training values, :func:`column_means`; for the
histogram learners from the bins, :func:`bin_means`): the side where mean imputation sends them,
so that a split whose missing values carry no evidence is the split of the mean-imputed data. The
split of the finite values against the missing ones is the same kind of choice: it is made where
``M`` passes the test, or where the mean lies past the node's largest value (a cut of the
imputed data), not elsewhere. (The median's side instead tested at 0.202 against mean
imputation's 0.185 on crx at 10% missing, MLPBoost: its money columns are skewed, their median far
below the mean.)

``z = 0`` is the larger-edge rule (the mean's side then only where the departure is 0). The
default :data:`MISSING_Z` = 3 allows for the many tests of a search: every feature at every node
of every round is one, and the booster keeps the best candidate, so a test passed by chance is
what it picks. It was chosen on ``benchmarks/results/tabular.md``'s rows, z = 2, 3 and 4 in
turn: at z = 2 (the median's side) twonorm with 30% of its values missing lost 1.6 and 6 standard
errors to mean imputation (MLPBoost, LPBoost); z = 3 leaves ringnorm at 10%, LPBoost, at 2.4; z = 4
brings that row within 1 SE but puts crx at 10%, LPBoost, at 2.5 and twonorm at 30%, LPBoost, at
1.5: LPBoost's rows move by one to two standard errors with any change of the rule.

The test is for numeric cuts, where the side of the missing values is a choice beside the cut. A
categorical split treats the missing values as one more category, whose side the exact sign split
picks as every other category's (:mod:`.categorical`): a small category is as noisy as they are.
The least-squares learners (GBM, FWBoost's regression) keep the side of larger gain, as
HistGradientBoosting does.

The compiled sweeps take ``noise = z^2 Q(N) / n(N)`` per node (:func:`node_noise`) and compare
``(M - n_M S / n)^2 > n_M noise`` (``missing_by_edge`` of ``_stumps.pxd``). Testing ``M = 0``
instead sent examples missing at random to the side of the node's majority label wherever the
node has one (M then carries its share of S): twonorm at 30% missing lost 3.7 and 5.4 standard
errors to imputation that way.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = ["MISSING_Z", "check_missing_z", "bin_means", "column_means", "missing_z_repr", "node_noise",
           "node_squares", "sample_noise", "squares_noise"]

MISSING_Z = 3.0


def check_missing_z(missing_z) -> float:
    """``missing_z`` as a float, or a ValueError naming it and its range."""
    if isinstance(missing_z, bool) or not isinstance(missing_z, numbers.Real) or not 0 <= missing_z < np.inf:
        raise ValueError(f"missing_z must be a real number >= 0 (0: the side of larger edge), got {missing_z!r}")
    return float(missing_z)


def sample_noise(w: np.ndarray, z: float) -> float:
    """``z^2 Q / m`` of the whole sample (a stump's only node)."""
    m = w.shape[0]
    return z * z * float(w @ w) / m if m and z else 0.0


def node_noise(w: np.ndarray, node_of: np.ndarray, n_nodes: int, z: float) -> np.ndarray:
    """``z^2 Q(N) / n(N)`` per node of a level (``node_of[i]``: example i's node, -1 for none)."""
    if not z:
        return np.zeros(n_nodes)
    count = np.bincount(node_of[node_of >= 0], minlength=n_nodes)
    return squares_noise(node_squares(w, node_of, n_nodes), count, z)


def node_squares(w: np.ndarray, node_of: np.ndarray, n_nodes: int) -> np.ndarray:
    """Per node of a level, ``Q(N) = sum w_i^2`` over its examples (``node_of[i]``: example i's
    node, -1 for none)."""
    inside = node_of >= 0
    return np.bincount(node_of[inside], weights=np.square(w[inside]), minlength=n_nodes)


def squares_noise(square: np.ndarray, count: np.ndarray, z: float) -> np.ndarray:
    """``z^2 square / count`` per node, 0 for a node of no example."""
    count = np.asarray(count, dtype=np.float64)
    return np.divide(z * z * np.asarray(square, dtype=np.float64), count, out=np.zeros(count.shape), where=count > 0)


def column_means(vals: np.ndarray) -> np.ndarray:
    """The mean of each row's finite values of ``vals`` (:func:`.stumps.presort`'s (p, m) sorted
    values, NaN last; NaN where none): the value mean imputation gives the missing ones."""
    finite = ~np.isnan(vals)
    count = finite.sum(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):  # near the largest double: _within_range
        total = np.where(finite, vals, 0.0).sum(axis=1)
        means = np.divide(total, count, out=np.full(vals.shape[0], np.nan), where=count > 0)
    for j in np.flatnonzero((count > 0) & ~np.isfinite(means)):
        means[j] = _within_range(vals[j, : count[j]], np.ones(count[j]))  # (sorted: the finite ones first)
    return means


def _within_range(values: np.ndarray, counts: np.ndarray) -> float:
    """The mean ``sum counts * values / sum counts`` where the plain sum overflows (values near the
    largest double), as a convex combination, kept within ``[min, max]`` of the values."""
    with np.errstate(over="ignore", invalid="ignore"):
        mean = float((counts / counts.sum()) @ values)
    return float(np.clip(mean, values.min(), values.max())) if not np.isnan(mean) else float(values[0])


def bin_means(bins) -> np.ndarray:
    """Per feature the mean of its finite training values from :class:`.binning.Bins`, each bin's
    examples counted at its midpoint ``(lower + upper) / 2`` (exact where a bin holds one value, as
    for every feature of at most ``max_bins`` distinct values; within a bin's width otherwise);
    NaN where none."""
    p = bins.n_bins.shape[0]
    out = np.full(p, np.nan)
    for j in range(p):
        nb = int(bins.n_bins[j])
        counts = bins.counts[j, :nb].astype(np.float64)
        if counts.sum() > 0:
            used = counts > 0
            middle = 0.5 * bins.lower[j, :nb][used] + 0.5 * bins.upper[j, :nb][used]
            with np.errstate(over="ignore", invalid="ignore"):
                out[j] = float(counts[used] @ middle / counts.sum())
            if not np.isfinite(out[j]):
                out[j] = _within_range(middle, counts[used])
    return out


def missing_z_repr(missing_z) -> str:
    """The ``, missing_z=...`` of a learner's repr, empty at the default."""
    return "" if missing_z == MISSING_Z else f", missing_z={missing_z!r}"
