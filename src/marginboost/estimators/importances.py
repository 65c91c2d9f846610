"""``feature_importances_`` of every estimator: the share of the vote's weight that each
feature's splits carry.

A binary model is a vote ``F(x) = offset + sum_j w_j h_j(x)`` (:mod:`marginboost.estimators.base`).
Hypothesis j carries the weight (:func:`carried_weights`)::

    a_j = |w_j| * max_x |h_j(x)|

of it: ``|w_j|`` in the families whose hypotheses map into [-1, 1] (the soft-margin, totally
corrective, classic and mirror-ascent families and AverageMarginBoost, whose model files check
``unit_hypotheses``), ``|w_j|`` times the largest leaf of a regression stump or tree in GBM
(``w_j`` the learning rate) and FWBoost; ``sum_j a_j`` is the l1 norm of FWBoost's ball.
GraphSepBoost has no weights: each hypothesis is one bit of the code ``c(x)`` its aggregation
compares with the training codes, every bit alike (equality with a positive code, or a Hamming
distance), so ``a_j = 1``.
With the feature shares ``s_k(h)`` of :mod:`marginboost.weak_learners.splits` (1 for a stump's
feature; a tree's weight split over its internal nodes in proportion to their gain), feature
k's importance is::

    I_k = sum_j a_j s_k(h_j) / sum_{j : h_j splits} a_j ,

the share of the weight of the hypotheses that split carried by feature k's splits. Within a
tree this is the split-gain importance of CART (Breiman, Friedman, Olshen, Stone 1984, section
5.3.4), which Friedman ("Greedy function approximation: a gradient boosting machine", Ann.
Statist. 29, 2001, section 8.1) averages over the trees of a GBM as their relative influence;
here each tree's gains are normalised to its share, and the trees weighed by their weight in
the vote. The ``I_k`` are >= 0 and sum to 1, unless no hypothesis of nonzero weight splits
(constant stumps only): then every ``I_k`` is 0, as scikit-learn's ``GradientBoosting*`` report
for trees that are all single leaves. Constant hypotheses and the offset split on no feature and
are left out of the denominator.

One-vs-rest (more than two classes): the mean of the ``I`` of the binary models that split
(each sums to 1; a model of constants only carries no feature), all 0 if none does.

It is computed from the fitted hypotheses and weights alone, so a model read from a file has
it too; a tree from a file written before trees stored their gains splits its weight equally
over its internal nodes (:func:`marginboost.weak_learners.splits.node_shares`).
"""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from marginboost.estimators.multiclass import is_one_vs_rest
from marginboost.io.model_checks import output_bound
from marginboost.weak_learners.splits import feature_shares

__all__ = ["carried_weights", "feature_importances"]


def carried_weights(model) -> np.ndarray:
    """``a_j = |w_j| max|h_j|`` of every hypothesis of the binary ``model`` (module docstring):
    ``|w_j|`` where the family's hypotheses map into [-1, 1], 1 for GraphSepBoost's code bits.
    ``TypeError`` for a hypothesis whose largest output is unknown (a scikit-learn regressor)."""
    vote = model._stored_vote()
    if vote is None:  # GraphSepBoost: code bits of equal say
        return np.ones(len(model.hypotheses_))
    weights = np.abs(np.asarray(vote.weights, dtype=np.float64))
    if vote.unit_hypotheses:
        return weights
    try:
        bounds = [output_bound(h) for h in model.hypotheses_]
    except TypeError as exc:
        raise TypeError(f"the weight a hypothesis carries, |w_j| max|h_j|, needs its largest output, which "
                        f"cannot be read off it ({exc})") from None
    return weights * np.array(bounds, dtype=np.float64)


def feature_importances(est) -> np.ndarray:
    """``I`` of the fitted estimator ``est`` (module docstring), shape ``(n_features_in_,)``.

    ``NotFittedError`` before fit; ``AttributeError`` (so that ``hasattr`` is False, as
    scikit-learn's estimators without importances have none) where a hypothesis tests no
    feature that can be read off it, or its weight cannot be known."""
    check_is_fitted(est)
    p = int(est.n_features_in_)
    if not is_one_vs_rest(est):
        return _binary_importances(est, p)
    per_class = [_binary_importances(model, p) for model in est.estimators_]
    splitting = [importances for importances in per_class if importances.any()]
    return np.mean(splitting, axis=0) if splitting else np.zeros(p)


def _binary_importances(model, p: int) -> np.ndarray:
    try:
        carried = carried_weights(model)
        shares = np.zeros((len(model.hypotheses_), p))
        for j, h in enumerate(model.hypotheses_):
            shares[j] = feature_shares(h, p)
    except TypeError as exc:
        raise AttributeError(f"{type(model).__name__} has no feature_importances_: {exc}") from None
    splits = shares.sum(axis=1) > 0.0
    total = float(carried[splits].sum())
    if total <= 0.0:
        return np.zeros(p)
    return carried @ shares / total
