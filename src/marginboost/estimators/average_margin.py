"""scikit-learn front end of the average-margin booster over decision stumps (paper 003).

:class:`AverageMarginBoostClassifier` builds the NZDD of all distinct stumps on the sample
(:func:`marginboost.average_margin.nzdd_stumps.build_stump_nzdd`), runs Frank-Wolfe on
``F(d) = (1/eta) ln sum_{h in H_S} exp(eta d @ u_h)`` over ``P(m, nu)``
(:func:`marginboost.average_margin.frank_wolfe.average_margin_boost`) and outputs the weighted majority
``H(x) = sum_h w_h h(x)`` with ``w_h = Pr[h | d^T] ~ exp(eta d^T @ u_h)`` (003 Algorithm 1).

``w`` lives on all of ``H_S`` (up to ``2p(m+1)`` stumps); only stumps with ``w_h >
min_weight`` are stored, renormalised to sum one. The mass left out is ``dropped_mass_``; it
moves every margin by at most ``2 * dropped_mass_`` and so the soft margin too: ``margin_``
is the soft margin of the stored classifier, ``full_margin_`` that of ``w``.

No ``staged_*`` methods: each round's output is a distribution over all of ``H_S``, and
storing it per round would cost ``O(|H_S|)`` memory a round.

More than two classes: one-vs-rest (:mod:`marginboost.estimators.multiclass`), one NZDD per class (the sorting of the
features is shared); the fitted attributes are then those of ``estimators_[k]``, class k against
the rest, and ``n_iter_``, ``status_``, ``history_`` hold one entry per class.
``predict_proba`` is ``(1 + H) / 2`` (normalised over the classes): not calibrated.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from marginboost.average_margin.frank_wolfe import STEPS, STOPS, average_margin_loop, stump_eta
from marginboost.average_margin.nzdd import MAX_ETA, MIN_ETA
from marginboost.average_margin.nzdd_stumps import StumpNZDD, build_stump_nzdd, data_fingerprint
from marginboost.estimators.base import COMMON_PARAMETER_CONSTRAINTS, BoostingEstimator, DegenerateModelWarning
from marginboost.estimators.binary import BinaryClassifierMixin, vote_probability
from marginboost.estimators.compat import Interval, StrOptions
from marginboost.estimators.input_data import validate_data
from marginboost.estimators.multiclass import one_vs_rest, per_class
from marginboost.estimators.parameters import resolve_nu
from marginboost.io.model_checks import StoredVote
from marginboost.io.model_codecs import Count, Real, Reason, Text, Vector
from marginboost.io.model_file import ModelFileMixin
from marginboost.soft_margin.objectives import soft_margin

__all__ = ["AverageMarginBoostClassifier"]


class _AverageMarginOracle:
    """``d -> nzdd.average_margin(d, eta)``: the loop's oracle. An object, not a closure: a
    warm-started estimator keeps its loop for the rounds to come, and must pickle."""

    def __init__(self, nzdd: StumpNZDD, eta: float):
        self.nzdd, self.eta = nzdd, eta

    def __call__(self, d: np.ndarray):
        return self.nzdd.average_margin(d, self.eta)


class _StoredVote:
    """The classifier the estimator stores for a distribution ``d`` over the examples: the stumps
    of ``w_h = Pr[h | d] > min_weight`` (the heaviest alone if none is), renormalised to sum one.

    ``_make_loop`` builds one for the training part ``(X, y)`` and hands it to the loop as its
    ``model``: ``fit`` derives the stored model from the final ``d^T`` with :meth:`stored`, and a
    callback's ``record.ensemble()`` (early stopping among them) calls it at round ``t``'s ``d^t``:
    the model the estimator stores had it stopped there.
    """

    def __init__(self, nzdd: StumpNZDD, eta: float, min_weight: float, X: np.ndarray, y: np.ndarray):
        self.nzdd, self.eta, self.min_weight, self.X, self.y = nzdd, eta, min_weight, X, y
        self._position: dict[int, int] = {}  # hypothesis of H_S -> its place in _stumps
        self._stumps: list = []

    def stored(self, d: np.ndarray, min_weight: float):
        """``(kept, weights, dropped)``: the hypotheses of ``H_S`` stored (ascending), their
        weights, and the weight ``Pr[. | d]`` left out."""
        w = self.nzdd.hypothesis_weights(d, self.eta)
        kept = np.flatnonzero(w > min_weight)
        if kept.size == 0:  # min_weight at or above every weight: store the heaviest stump, not an empty vote
            kept = np.array([int(np.argmax(w))])
        dropped = float(max(w.sum() - w[kept].sum(), 0.0))
        return kept, w[kept] / w[kept].sum(), dropped

    def __call__(self, d: np.ndarray):
        """``(stumps, weights, 0.0)``: the vote :meth:`stored` at ``d`` (one oracle pass), over
        the stumps stored at any round so far, in order of first appearance, with weight 0 where
        not stored at ``d``. The list only grows and keeps its stump objects, so early stopping
        evaluates each stump on the held-out rows once."""
        kept, weights, _ = self.stored(d, self.min_weight)
        for h in kept.tolist():
            if h not in self._position:
                self._position[h] = len(self._stumps)
                self._stumps.extend(self.nzdd.stumps([h]))
        full = np.zeros(len(self._stumps))
        full[[self._position[h] for h in kept.tolist()]] = weights
        return list(self._stumps), full, 0.0


class AverageMarginBoostClassifier(BoostingEstimator, ModelFileMixin, BinaryClassifierMixin, ClassifierMixin,
                                   BaseEstimator, booster="averagemargin"):
    """Boosting with an average-margin oracle over an NZDD of decision stumps (paper 003).

    Parameters
    ----------
    nu : int or float, default=0.1
        Capping parameter: an int is a count in [1, m], a float in (0, 1] a fraction of m,
        a float > 1 a count (as :func:`marginboost.estimators.parameters.resolve_nu`).
    eps : float > 0, default=0.01
        Target accuracy: at convergence the soft margin of ``w`` is within ``eps`` of the
        optimum over all stumps.
    eta : 'exact', 'stump_bound' or float in [1e-12, 1e9], default='exact'
        ``'exact'``: ``2 ln|H_S| / eps`` with ``|H_S|`` the NZDD's path count (Lemma 3.1);
        ``'stump_bound'``: ``2 ln(2p(m+1)) / eps`` (003 section 3.1); a float: that value (the
        eps guarantee needs at least the exact one). At most ``nzdd.MAX_ETA`` = 1e9 and at
        least ``nzdd.MIN_ETA`` = 1e-12, also where derived from ``eps`` (else ``ValueError``,
        naming ``eps``): the output weights ``w_h ~ exp(eta d @ u_h)`` are uniform up to a
        relative ``2 eta``, and the uniform vote over all stumps (each with its negation) is 0,
        so the classifier lives in that deviation; at 1e-12 it keeps about four digits above
        double rounding, below ~1e-16 none (the decision is rounding noise, no better than the
        majority class; at ``eps = 1e300`` or ``eta = 1e-300`` it was NaN everywhere).
    step : 'classic', 'line_search' or 'short_step', default='classic'
        FW step: ``2/(t+2)`` (Algorithm 1), exact line search on ``F`` (about ten oracle
        calls a round), or the eta-smoothness step ``min(1, gap / (eta ||s - d||_1^2))``.
    stop : 'gap' or 'certified', default='gap'
        ``'gap'``: FW gap <= eps/2 (Algorithm 1); ``'certified'``: also stop once
        ``min_t max_h d^t @ u_h - soft margin <= eps`` (same guarantee, see
        :mod:`marginboost.average_margin.frank_wolfe`). ``history_['best_edge']`` is computed with ``'certified'`` only
        (about one stump call a round), else NaN.
    min_weight : float in [0, 1), default=1e-6
        Stumps with ``w_h <= min_weight`` are not stored (but for the heaviest, if none is above).
    max_iter : int >= 1, default=10000
        Maximum number of rounds (oracle calls at iterates; line-search calls not counted).
    max_time : float > 0 or None, default=None
        Stop after this many seconds (``status_ == 'max_time'``). Ctrl-C during ``fit`` keeps
        the last iterate with its row (``status_ == 'interrupted'``, :mod:`marginboost.core.interrupts`).
    verbose, callbacks, early_stopping, validation_fraction, n_iter_no_change, warm_start
        The run controls every estimator shares (:mod:`marginboost.estimators.base`; defaults
        0, None, False, 0.1, 10, False): a progress line every ``verbose`` rounds; ``fn(record)``
        after every round, True stopping the fit; a stop once ``n_iter_no_change`` rounds did
        not improve the score on ``validation_fraction`` of the data (or ``fit``'s
        ``eval_set``); a second ``fit`` on the same data continuing the first. It takes a
        changed ``min_weight``, and a changed ``eps`` where ``eta`` is a number (``eps`` is then
        the stopping tolerance alone); any other change is refused (ValueError naming it).

    Attributes
    ----------
    classes_, n_features_in_ : as usual; ``classes_[1]`` is the positive class.
    nu_, eta_ : the capping parameter as a count, the eta used.
    nzdd_ : :class:`marginboost.average_margin.nzdd_stumps.StumpNZDD`; pass it to a later ``fit`` on the same data.
    n_hypotheses_ : ``|H_S|``, distinct stump margin vectors.
    nzdd_build_time_ : seconds to build the NZDD's chains (what the oracle needs).
    nzdd_size_, nzdd_n_edges_ : ``|G|`` (labels) and edges of the explicit NZDD, assembled on
        first access (properties: fit does not need the explicit DAG).
    hypotheses_ : list of the stored :class:`.weak_learners.Stump`; ``weights_`` their weights.
    dropped_mass_ : float, the weight of the stumps not stored.
    margin_ : soft margin of the stored classifier on the training sample.
    full_margin_ : soft margin of the full output ``w`` (the last round's ``history_['soft_margin']``).
    objective_, gap_ : ``F(d^T)`` and the final FW gap.
    distribution_ : ``d^T``.
    n_iter_, status_ : rounds, the iterations of 003 Algorithm 1 (oracle calls at iterates, FW
        steps + 1); 'converged', 'max_iter', 'max_time', 'interrupted', 'callback' or 'early_stopping'.
    history_ : dict of arrays, one row per iterate ``d^0, ..., d^T`` (rounds 1 to ``n_iter_``; see
        ``average_margin.HISTORY_COLUMNS``).
    best_iteration_, validation_scores_ : with ``early_stopping`` (:mod:`marginboost.estimators.base`).

    With ``early_stopping`` and no ``eval_set`` the fit trains on the other part of ``X``: the
    NZDD, ``nu_``, ``margin_`` and ``distribution_`` are those of that part.

    ``save(path)`` / ``load(path)``: a model file (:mod:`marginboost.io.model_io`) keeps the stored
    stumps and the attributes above but ``nzdd_``, ``distribution_`` and ``history_`` (None
    after load; ``nzdd_size_`` and ``nzdd_n_edges_`` then raise ``ValueError``).
    """

    _parameter_constraints: dict = {
        "nu": [Interval(numbers.Real, 0, None, closed="neither")],
        "eps": [Interval(numbers.Real, 0, None, closed="neither")],
        "eta": [StrOptions({"exact", "stump_bound"}), Interval(numbers.Real, MIN_ETA, MAX_ETA, closed="both")],
        "step": [StrOptions(set(STEPS))],
        "stop": [StrOptions(set(STOPS))],
        "min_weight": [Interval(numbers.Real, 0, 1, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        **COMMON_PARAMETER_CONSTRAINTS,
    }
    # weights_ on the simplex: >= 0 here, summing to 1 in _stored_vote
    _model_state = {"weights_": Vector(non_negative=True), "nu_": Real(low=1.0), "eta_": Real(low=0.0),
                    "n_hypotheses_": Count(), "nzdd_build_time_": Real(low=0.0),
                    "dropped_mass_": Real(finite=False), "margin_": Real(finite=False),
                    "full_margin_": Real(finite=False), "objective_": Real(finite=False),
                    "gap_": Real(finite=False), "n_iter_": Count(), "status_": Text(), "stop_reason_": Reason()}
    _model_unsaved = ("nzdd_", "distribution_", "history_")
    _no_stages = ("each round's output is a distribution over all the stumps of H_S (O(|H_S|) memory a round to "
                  "keep); fit with max_iter=t for the model of round t, or pass callbacks=[fn] to see "
                  "record.ensemble() after every round")

    def __init__(self, nu=0.1, eps=0.01, eta="exact", step="classic", stop="gap", min_weight=1e-6,
                 max_iter=10000, max_time=None, verbose=0, callbacks=None, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=10, warm_start=False):
        self.nu = nu
        self.eps = eps
        self.eta = eta
        self.step = step
        self.stop = stop
        self.min_weight = min_weight
        self.max_iter = max_iter
        self.max_time = max_time
        self.verbose = verbose
        self.callbacks = callbacks
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start

    @one_vs_rest
    def fit(self, X, y, nzdd: StumpNZDD | None = None, eval_set=None):
        """Boost on ``(X, y)`` (more than two classes: one-vs-rest). ``nzdd``: a ``nzdd_`` from an
        earlier two-class fit on the same data. ``eval_set = (X_val, y_val)``: the held-out set
        of ``early_stopping``."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=False)
        _, y_pm = self._binary_targets(y)
        self._given_nzdd = nzdd
        try:
            result = self._fit_rounds(X, y_pm, None, self._binary_eval_set(eval_set))
        finally:
            del self._given_nzdd
        self._store_rounds(result)
        vote = result.loop.model  # the training part's NZDD and rows (all of X but with early stopping)
        kept, self.weights_, self.dropped_mass_ = vote.stored(result.d, self.min_weight)
        self.hypotheses_ = vote.nzdd.stumps(kept)
        self._derive_from_stored()
        score = self._score(vote.X)
        self.margin_ = soft_margin(vote.y * score, self.nu_)
        self._warn_if_degenerate(vote, score)
        self.full_margin_ = result.soft_margin
        self.objective_ = result.objective
        self.gap_ = result.gap
        self.distribution_ = result.d
        return self

    def _nan_refusal(self) -> str:
        return "its oracle (an NZDD of the sample's decision stumps)"

    def _make_loop(self, X, y_pm, weights):
        m = X.shape[0]
        self.nu_ = resolve_nu(self.nu, m, self._training_rows(m))
        start = time.perf_counter()
        nzdd = self._given_nzdd
        if nzdd is None:
            nzdd = build_stump_nzdd(X, y_pm)
        elif not isinstance(nzdd, StumpNZDD) or nzdd.fingerprint != data_fingerprint(X, y_pm):
            split = " (early_stopping without eval_set trains on a part of X)" if self.early_stopping else ""
            raise ValueError(f"nzdd was built for other data than the (X, y) passed to fit{split}: "
                             "pass the nzdd_ of a fit on the same X and y, or None")
        self.nzdd_ = nzdd
        self.nzdd_build_time_ = time.perf_counter() - start
        self.n_hypotheses_ = nzdd.n_hypotheses
        if self.eta == "exact":
            self.eta_ = 2.0 * math.log(nzdd.n_hypotheses) / self.eps
        elif self.eta == "stump_bound":
            self.eta_ = stump_eta(X.shape[1], m, self.eps)
        else:
            self.eta_ = float(self.eta)
        if self.eta_ > MAX_ETA:
            raise ValueError(f"eta = {self.eta_:.3g} (from eps={self.eps!r}) exceeds {MAX_ETA:g}, beyond which "
                             f"the average margin is inaccurate even in log space: raise eps")
        if self.eta_ < MIN_ETA:  # only from eps: a float eta is checked with the parameters
            raise ValueError(f"eta = {self.eta_:.3g} (from eps={self.eps!r}) is below {MIN_ETA:g}, where the stumps' "
                             f"weights exp(eta d @ u_h) are uniform to within rounding and their vote does not "
                             f"classify: lower eps (at most {self.eps * self.eta_ / MIN_ETA:.3g} on this data)")
        eta = self.eta_
        # The best edge costs about one stump call a round: computed only where it decides the stop.
        max_edge = nzdd.max_edge if self.stop == "certified" else None
        return average_margin_loop(_AverageMarginOracle(nzdd, eta), m, self.nu_, self.eps, eta, self.step, self.stop,
                                   max_edge, last_round=self.max_iter,
                                   model=_StoredVote(nzdd, eta, self.min_weight, X, y_pm))

    def _unfinished_detail(self, result) -> str:
        return f" (gap {result.gap:.3g} > eps/2)"

    def _warn_if_degenerate(self, vote: _StoredVote, score: np.ndarray) -> None:
        """``DegenerateModelWarning`` when the stored vote has no positive soft margin and
        misclassifies more training examples than the constant majority class (issue 33: binary
        features, defaults, 0.60 accuracy against a majority of 0.625 and a best stump of 0.79).

        The cause is the objective, not the oracle: a stump erring on ``k`` examples has soft margin
        ``1 - 2k / nu`` (its ``nu`` smallest margins: ``k`` at -1, the rest at +1), positive only
        for ``nu > 2k``. Below that, the optimum over all stumps is typically a stump and its
        negation at equal weight (soft margin 0, LPBoost's decision 0 everywhere), and the
        exponential weights ``w_h ~ exp(eta d @ u_h)`` approach that cancellation: the vote is its
        small remainder, whose sign classifies no better than chance."""
        if self.margin_ > 0.0:
            return
        y, m = vote.y, vote.y.shape[0]
        errors = int(np.count_nonzero(np.where(y > 0, score <= 0.0, score > 0.0)))  # a decision 0 is classes_[0]
        minority = int(min(np.count_nonzero(y > 0), np.count_nonzero(y < 0)))
        if errors <= minority:
            return
        best_stump_errors = int(round(m * (1.0 - vote.nzdd.max_edge(np.full(m, 1.0 / m))) / 2.0))
        warnings.warn(
            f"{type(self).__name__}: the stored vote has soft margin {self.margin_:.3g} <= 0 and misclassifies "
            f"{errors} of the {m} training examples, more than the {minority} the constant majority class does. "
            f"At nu={self.nu_:g} the soft-margin optimum over the stumps cancels (a stump erring on k examples has "
            f"soft margin 1 - 2k/nu; the best one here errs on {best_stump_errors}), and the vote is what is left "
            f"of the cancellation. Raise nu above {2 * best_stump_errors} (a fraction above "
            f"{2 * best_stump_errors / m:.3g}).",
            DegenerateModelWarning,
            stacklevel=4,
        )

    # min_weight is read when fit stores the vote; eps is the stopping tolerance alone where eta is
    # given as a number (derived from eps, eta is part of the objective the rounds went by)
    _warm_start_applies = ("min_weight", "eps")

    def _warm_start_applicable(self) -> set:
        return {"min_weight"} | ({"eps"} if not isinstance(self.eta, str) else set())

    def _warm_start_apply(self, result, changed):
        loop = result.loop
        loop.model.min_weight = self.min_weight
        if "eps" not in changed:
            return result, None
        loop.eps = float(self.eps)
        state = result.state
        certified = loop.stop == "certified" and state.best_edge - state.rho <= loop.eps
        converged = state.gap <= loop.eps / 2.0 or certified  # the loop's test (frank_wolfe.AverageMarginLoop)
        if converged != state.converged:  # a state no longer converged takes its step in the next round
            result = dataclasses.replace(result, state=state._replace(converged=converged))
        return result, converged

    def _stored_vote(self) -> StoredVote:
        """A convex vote of stumps (model files: :mod:`marginboost.io.model_checks`)."""
        return StoredVote(self.weights_, "state field 'weights'", convex=True, unit_hypotheses=True)

    def _derive_from_stored(self) -> None:
        """The stumps' fields as arrays, for :meth:`_score` (after fit and after load alike)."""
        self._features = np.array([h.feature for h in self.hypotheses_], dtype=np.int64)
        self._thresholds = np.array([h.threshold for h in self.hypotheses_], dtype=np.float64)
        self._signs = np.array([h.sign for h in self.hypotheses_], dtype=np.float64)

    def _fitted_nzdd(self):
        check_is_fitted(self, "nzdd_")
        if self.nzdd_ is None:
            raise ValueError("model files do not store the NZDD: refit the estimator to get it")
        return self.nzdd_

    @property
    def nzdd_size_(self) -> int:
        """Number of nodes of the NZDD of all stumps on the training sample (needs the fit, not a loaded model)."""
        return self._fitted_nzdd().nzdd.size

    @property
    def nzdd_n_edges_(self) -> int:
        """Number of edges of the NZDD of all stumps on the training sample (needs the fit, not a loaded model)."""
        return self._fitted_nzdd().nzdd.n_edges

    def _score(self, X: np.ndarray) -> np.ndarray:
        """``sum_h w_h s_h (2 [x_f > theta_h] - 1) = -sum_h w_h s_h + 2 sum_f C_f(x_f)`` with
        ``C_f(v) = sum_{h on f, theta_h < v} w_h s_h``: per feature one sort of its thresholds
        and a binary search per example, O((n + m) log n) instead of the O(nm) of a dense
        stump-by-example matrix (which dominated fit on 7400 rows with ~10^4 stored stumps)."""
        ws = self.weights_ * self._signs
        score = np.full(X.shape[0], -ws.sum())
        # Constants (threshold -inf) satisfy x > theta for every x.
        const = self._thresholds == -np.inf
        score += 2.0 * ws[const].sum()
        for f in np.unique(self._features[~const]):
            on = np.flatnonzero((self._features == f) & ~const)
            order = np.argsort(self._thresholds[on], kind="stable")
            thresholds = self._thresholds[on][order]
            cum = np.concatenate([[0.0], np.cumsum(ws[on][order])])
            score += 2.0 * cum[np.searchsorted(thresholds, X[:, f], side="left")]
        return score

    def _probability_link(self):
        return vote_probability

    @per_class
    def decision_function(self, X) -> np.ndarray:
        """``H(x) = sum_h w_h h(x)`` in [-1, 1] over the stored stumps; positive means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._score(X)
