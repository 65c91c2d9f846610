"""``sample_weight`` as every estimator of the package reads it: relative to its largest entry.

Only the ratios of the weights matter (each estimator rescales them, to mean 1 or to sum
``m``). Scaling the largest entry into [1/2, 1) first keeps that rescaling finite: a sum or
mean of weights near the float maximum overflows to inf (and the weights then to 0 or NaN),
and a weight that is positive but below ``2^-1074`` times the largest one is not representable
relative to it. Such a weight underflows to 0 here, and its example counts as one of weight 0
(left out), as it would in exact arithmetic to within ``1e-308`` of its share. The scale is a
power of two, so every other weight keeps its bits, and so do the estimators' own rescalings:
ordinary weights give the same fit as before this step, bit for bit.
"""
from __future__ import annotations

import numpy as np
from marginboost.estimators.compat import check_sample_weight

__all__ = ["positive_weights", "relative_sample_weight"]


def relative_sample_weight(sample_weight, X) -> tuple[np.ndarray, np.ndarray]:
    """``sample_weight`` checked (one finite value >= 0 per row of ``X``) and scaled by the power
    of two that brings its largest entry into [1/2, 1), with the mask of the examples of positive
    weight after that scaling."""
    s = check_sample_weight(sample_weight, X, ensure_non_negative=True)
    top = s.max() if s.shape[0] else 0.0
    if top > 0.0:
        s = np.ldexp(s, -int(np.frexp(top)[1]))
    return s, s > 0.0


def positive_weights(sample_weight, X, y, check=None, by_mean: bool = False):
    """``(X, y, s)`` without the examples of weight 0, ``s`` scaled to mean 1 (None without weights).

    ``X`` is not copied when every weight is positive (one-vs-rest shares its presorting).
    ``check(y)``, if given, is called on the labels left after a drop (e.g. that two classes remain).
    The scaling is ``s * (m / sum s)``, or with ``by_mean`` ``s / mean(s)`` (FWBoost's and GBM's
    since their first version; the two differ in the last bit, and each family keeps its own so
    that its weighted fits stay the same).
    """
    if sample_weight is None:
        return X, y, None
    s, keep = relative_sample_weight(sample_weight, X)  # max < 1: the sum is finite
    if not keep.any():
        raise ValueError("sample_weight must have at least one positive entry")
    if not keep.all():
        X, y, s = X[keep], y[keep], s[keep]
        if check is not None:
            check(y)
    return X, y, s / s.mean() if by_mean else s * (s.shape[0] / s.sum())
