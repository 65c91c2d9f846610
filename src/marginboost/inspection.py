"""A readable model: the ensemble printed as weighted rules, its margins and importances drawn.

A sparse, large-margin vote of a few dozen stumps or small trees can be read by a person, which
a 500-tree GBDT cannot; these functions show it.

* :func:`describe` prints the model: a header (the estimator and its parameters, the soft
  margin and its gap, the rounds, the status and stop reason, the number of nonzero weights,
  the offset) and the hypotheses as rules, heaviest first. ``marginboost show model.json``
  prints the same for a model file.
* :func:`normalised_margins` and :func:`plot_margins`: the cumulative distribution of the
  normalised margins on training and test data, the figure of Schapire, Freund, Bartlett and
  Lee ("Boosting the margin: a new explanation for the effectiveness of voting methods",
  Ann. Statist. 26, 1998), their margin distribution graphs.
* :func:`plot_importances`: ``feature_importances_`` (:mod:`marginboost.estimators.importances`)
  as bars.

The plots need the ``plot`` extra (matplotlib) only, imported when a plot is drawn.

Rules
-----
A stump of sign s on feature j with threshold t (``h(x) = s if x_j > t else -s``) reads
``[name <= t ? -s : +s]``; a constant reads ``[+1]``. A tree nests the same rule at each internal
node, its leaves' values in place of the signs (``x <= t`` goes left, the first branch). A
regression stump or tree (GBM, FWBoost) shows its real leaf values. Thresholds are in the units
of the data given to ``fit``; a feature the command line encoded from text
(``feature_categories_``, code k the k-th category) reads ``name in {a, b}``, the categories of
the ``<=`` side; a categorical split (``categorical_features``) reads ``name in {a, b}`` too,
the categories it sends left (``?`` takes the first branch). Missing values (NaN) go to the ``>`` side of a split unless it learned to send
them the other way (:func:`marginboost.weak_learners.splits.missing_side`); such a condition says
so: ``[name <= t (missing -> left) ? -1 : +1]``. Each rule is printed after its weight ``w_j``, and
the rules are sorted by the weight they carry, ``|w_j| max|h_j|``
(:func:`marginboost.estimators.importances.carried_weights`; ``|w_j|`` for hypotheses in
[-1, 1]). GraphSepBoost has no weights: its hypotheses are listed in order as the bits of its
code.

Normalised margins
------------------
For a binary model with labels ``y in {-1, +1}`` (``classes_[1]`` is +1) and decision value
``D(x)``, the normalised margin is ``y D(x) / B`` with ``B`` a bound on ``|D|``, so that it lies in
[-1, 1] (up to rounding), positive where the prediction is right and negative where it is wrong
(0 where ``D(x) = 0``, which ``predict`` takes for ``classes_[0]``):

* the weighted-vote classifiers (soft margin: LPBoost, ERLPBoost, C-ERLPBoost, MLPBoost;
  TotalBoost, SoftBoost, AdaBoostV, SmoothBoost; MABoost, MadaBoost, AdaBoost;
  AverageMarginBoost) return ``D(x) = sum_j w_j h_j(x) / sum_j |w_j|`` already (weights on the
  simplex, or MABoost's division by ``sum eta_t``), with hypotheses in [-1, 1]: ``B = 1``, and
  the margin is Schapire et al.'s ``y f(x) / ||w||_1``;
* GBM and FWBoost classifiers return ``D(x) = F(x) = offset + sum_j w_j h_j(x)``:
  ``B = |offset| + sum_j |w_j| max_x |h_j(x)|``, the l1 norm of the weights times the largest
  output of each hypothesis (its largest leaf; 1 for a stump or edge tree), the offset counted
  as the weight of the constant hypothesis 1.

With K > 2 classes (one-vs-rest, ``D_k`` the value of class k's model) the margin of ``(x, y)``
is ``(D_y(x) - max_{k != y} D_k(x)) / (2 max_k B_k)``: the multiclass margin of Schapire et al.,
the vote for the right class less the largest vote for a wrong one, in [-1, 1], positive where
``predict`` is right and negative where it is wrong (0 on ties, which ``predict`` breaks by the
first class). Regressors have no margin, and
GraphSepBoost's score is a difference of distances between codes, no vote: both are refused.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from marginboost.estimators.base import RUN_CONTROLS
from marginboost.estimators.importances import carried_weights
from marginboost.estimators.multiclass import is_one_vs_rest
from marginboost.estimators.renamed import DEPRECATED
from marginboost.weak_learners import DecisionTree, Stump
from marginboost.weak_learners.regression import RegressionStump
from marginboost.weak_learners.sklearn_adapter import SklearnHypothesis
from marginboost.weak_learners.splits import missing_side, split_categories

__all__ = ["describe", "normalised_margins", "plot_importances", "plot_margins"]

_PLOT_EXTRA = "pip install marginboost[plot]"


# --------------------------------------------------------------------------- describe


def describe(estimator, feature_names=None, top=20) -> str:
    """The fitted ``estimator`` as text: a header and its hypotheses as weighted rules, heaviest first.

    The header names the estimator with the parameters that define its model, then per
    model: the soft margin ``margin_`` (with ``nu_``; the smallest margin where the family has
    no ``nu``) and its certificate ``gap_`` where the estimator has them, the offset of GBM and
    FWBoost, ``n_iter_``, ``status_`` and ``stop_reason_``, and the number of nonzero weights.
    Then ``top`` rules, each ``w_j x [rule]`` (the module docstring says how rules read and how
    they are sorted), and what the rules left out carry. More than two classes: one block per
    class, its model against the rest.

    ``feature_names``: one name per feature (default: ``feature_names_in_`` where ``fit`` saw a
    DataFrame, else ``x[j]``). ``top``: the most rules per model (None: all). A model read from
    a file (:func:`marginboost.load_model`) prints as the fitted one.
    """
    check_is_fitted(estimator)
    if not hasattr(estimator, "hypotheses_") and not is_one_vs_rest(estimator):
        raise TypeError(f"describe needs a fitted marginboost estimator, got {type(estimator).__name__}")
    if top is not None and (isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 1):
        raise ValueError(f"top must be an integer >= 1 or None (all rules), got {top!r}")
    reader = _RuleReader(estimator, feature_names)
    lines = [_heading(estimator)]
    if not is_classifier(estimator):
        lines += _model_lines(estimator, reader, top, "")
    elif is_one_vs_rest(estimator):
        lines.append(f"{len(estimator.classes_)} classes, one model per class against the rest")
        for label, model in zip(estimator.classes_.tolist(), estimator.estimators_):
            lines.append(f"class {label!r} vs rest:")
            lines += _model_lines(model, reader, top, "  ")
    else:
        negative, positive = estimator.classes_.tolist()
        lines.append(f"classes: {negative!r} is -1, {positive!r} is +1")
        lines += _model_lines(estimator, reader, top, "")
    return "\n".join(lines)


def _heading(estimator) -> str:
    """``Name(param=value, ...)``: the parameters that define the model and ``max_iter``, not the
    run controls (``max_time``, ``verbose``, callbacks, early stopping, ``warm_start``), nor a
    renamed parameter left at its placeholder."""
    params = estimator.get_params(deep=False)
    shown = {k: v for k, v in params.items() if (k == "max_iter" or k not in RUN_CONTROLS) and v is not DEPRECATED}
    return f"{type(estimator).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


def _model_lines(model, reader, top, indent: str) -> list[str]:
    """The summary and the rules of one binary model (or a regressor)."""
    lines = [indent + ", ".join(_summary(model))]
    hypotheses = list(model.hypotheses_)
    vote = model._stored_vote()
    if vote is None:  # GraphSepBoost: the bits of a code, in order, no weights
        shown = hypotheses if top is None else hypotheses[:top]
        lines.append(f"{indent}{len(hypotheses)} hypotheses, the bits of the code (no weights):")
        lines += [f"{indent}  bit {j + 1}: {reader.rule(h)}" for j, h in enumerate(shown)]
        if len(shown) < len(hypotheses):
            lines.append(f"{indent}  ... and {_count(len(hypotheses) - len(shown), 'more bit')}")
        return lines
    weights = np.asarray(vote.weights, dtype=np.float64)
    try:
        carried = carried_weights(model)
    except TypeError:  # a scikit-learn regressor's largest output is unknown: by |w_j| alone
        carried = np.abs(weights)
    order = [j for j in np.argsort(-carried, kind="stable") if weights[j] != 0.0]
    shown = order if top is None else order[:top]
    lines.append(f"{indent}{len(order)} of {len(hypotheses)} weights nonzero; rules by weight "
                 f"({len(shown)} shown):")
    texts = [f"{weights[j]:.4g}" for j in shown]
    width = max((len(t) for t in texts), default=0)
    lines += [f"{indent}  {text:>{width}} x {reader.rule(hypotheses[j])}" for j, text in zip(shown, texts)]
    if len(shown) < len(order):
        rest = float(carried[order[len(shown):]].sum()) / float(carried.sum())
        lines.append(f"{indent}  ... and {_count(len(order) - len(shown), 'more rule')}, carrying {rest:.1%} of "
                     "the weight")
    return lines


def _summary(model) -> list[str]:
    """The header parts of one model that it has: margin and gap, offset, rounds, status."""
    parts = []
    if hasattr(model, "margin_"):
        parts.append(f"soft margin {model.margin_:.4g} (nu = {model.nu_:g})" if hasattr(model, "nu_")
                     else f"margin {model.margin_:.4g} (the smallest)")
    if hasattr(model, "gap_"):
        parts.append(f"gap {model.gap_:.3g}")
    if hasattr(model, "offset_"):
        parts.append(f"offset {model.offset_:.6g}")
    parts.append(f"n_iter {model.n_iter_}")
    status = getattr(model, "status_", None)
    if status is not None:  # a GBM read from a file keeps no status
        reason = getattr(model, "stop_reason_", None)
        parts.append(f"status {status}" + (f" ({reason})" if reason is not None else ""))
    return parts


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _number(value: float) -> str:
    """A sign or a leaf value, signed and short: ``+1``, ``-1``, ``+0.3521``."""
    return f"{value:+.4g}"


class _RuleReader:
    """Rules of the hypotheses of one estimator, with its feature names and text categories."""

    def __init__(self, estimator, feature_names):
        p = int(estimator.n_features_in_)
        if feature_names is None:
            names = getattr(estimator, "feature_names_in_", None)
            names = [f"x[{j}]" for j in range(p)] if names is None else [str(n) for n in names]
        else:
            names = [str(n) for n in feature_names]
            if len(names) != p:
                raise ValueError(f"feature_names must hold one name per feature ({p}), got {len(names)}")
        self.names = names
        self.categories = getattr(estimator, "feature_categories_", None) or (None,) * p

    def rule(self, h) -> str:
        if isinstance(h, Stump):
            if h.threshold == -np.inf:
                return f"[{_number(h.sign)}]"
            return f"[{self._condition(h, 0, h.feature, h.threshold)} ? {_number(-h.sign)} : {_number(h.sign)}]"
        if isinstance(h, RegressionStump):
            if h.threshold == -np.inf:
                return f"[{_number(h.right)}]"
            return f"[{self._condition(h, 0, h.feature, h.threshold)} ? {_number(h.left)} : {_number(h.right)}]"
        if isinstance(h, DecisionTree):  # RegressionTree too
            return self._node(h, 0)
        if isinstance(h, SklearnHypothesis):
            return f"<{type(h.estimator).__name__}>"
        return f"<{type(h).__name__}>"

    def _node(self, tree, k: int) -> str:
        if tree.feature[k] < 0:
            return _number(tree.value[k]) if k else f"[{_number(tree.value[k])}]"  # a lone leaf is a constant
        condition = self._condition(tree, k, int(tree.feature[k]), float(tree.threshold[k]))
        return f"[{condition} ? {self._node(tree, tree.left[k])} : {self._node(tree, tree.right[k])}]"

    def _condition(self, h, node: int, feature: int, threshold: float) -> str:
        """``name <= t`` (or ``name in {...}`` for a categorical split, or a text column encoded by
        the command line), with the side missing values go to where ``h`` records one."""
        categories = self.categories[feature]
        codes = split_categories(h, node)
        if codes is not None:  # a categorical split: the categories of its left side by value
            named = [str(categories[c]) if categories is not None and c < len(categories) else str(c) for c in codes]
            text = f"{self.names[feature]} in {{{', '.join(named)}}}"
        elif categories is None:
            text = f"{self.names[feature]} <= {threshold:.6g}"
        else:  # code k is the k-th category: the <= side holds the codes up to the threshold
            left = categories[: int(np.floor(threshold)) + 1]
            text = f"{self.names[feature]} in {{{', '.join(str(c) for c in left)}}}"
        # NaN goes right (the side of x > t) unless the split learned otherwise: only that is said
        return f"{text} (missing -> left)" if missing_side(h, node) == "left" else text


# --------------------------------------------------------------------------- margins


def normalised_margins(estimator, X, y) -> np.ndarray:
    """The normalised margin of every example ``(X[i], y[i])`` under the fitted classifier
    ``estimator``, in [-1, 1], positive where it predicts ``y[i]`` and negative where not (definitions per
    family in the module docstring: ``y D(x) / B``; one-vs-rest ``(D_y - max_{k != y} D_k) / (2 B)``).

    ``ValueError`` for a regressor, for GraphSepBoost (no weighted vote), and for labels of ``y``
    the estimator was not fitted on."""
    check_is_fitted(estimator)
    if not is_classifier(estimator):
        raise ValueError(f"margins need a classifier: {type(estimator).__name__} is a regressor, whose y f(x) is no "
                         "margin")
    models = estimator.estimators_ if is_one_vs_rest(estimator) else [estimator]
    bound = max(_decision_bound(model) for model in models)
    scores = np.asarray(estimator.decision_function(X), dtype=np.float64)
    y = np.asarray(y)
    if y.shape != (scores.shape[0],):
        raise ValueError(f"y must hold one label per row of X ({scores.shape[0]}), got shape {y.shape}")
    unknown = np.setdiff1d(y, estimator.classes_)
    if unknown.size:
        raise ValueError(f"y holds labels the estimator was not fitted on: {unknown.tolist()[:10]}; its classes_ are "
                         f"{estimator.classes_.tolist()[:10]}")
    index = np.searchsorted(estimator.classes_, y)
    if scores.ndim == 1:
        return np.where(index == 1, 1.0, -1.0) * scores / bound
    rows = np.arange(scores.shape[0])
    right = scores[rows, index]
    others = scores.copy()
    others[rows, index] = -np.inf
    return (right - others.max(axis=1)) / (2.0 * bound)


def _decision_bound(model) -> float:
    """``B``, a bound on ``|decision_function|`` of a binary model (module docstring)."""
    vote = model._stored_vote()
    if vote is None:
        raise ValueError(f"{type(model).__name__} has no margins: its score is a difference of distances between "
                         "codes, not a weighted vote")
    if vote.unit_hypotheses:
        # hypotheses in [-1, 1]: these families return the vote divided by sum |w_j| (weights on
        # the simplex, or MABoost's division by sum eta), in [-1, 1] already
        return 1.0
    bound = abs(float(vote.offset)) + float(carried_weights(model).sum())
    return bound if bound > 0.0 else 1.0  # the zero model: its margins are all 0


def plot_margins(estimator, X, y, X_test=None, y_test=None, ax=None):
    """Draw the cumulative distribution of the normalised margins (:func:`normalised_margins`)
    on ``(X, y)`` and, if given, on ``(X_test, y_test)``: at each ``theta`` in [-1, 1] the share of
    the examples with margin at most ``theta`` (Schapire, Freund, Bartlett, Lee 1998, "Boosting
    the margin": their margin distribution graphs). The curve's height at 0 is the error rate; a large-margin model's
    curve stays low until far right. A dotted vertical line marks 0.

    ``ax``: the matplotlib Axes to draw on (default: a new figure's). Returns the Axes, with
    one line per data set labelled ``training`` and ``test``. Needs the ``plot`` extra
    (``pip install marginboost[plot]``)."""
    if (X_test is None) != (y_test is None):
        raise ValueError("X_test and y_test must be given together")
    curves = [("training", normalised_margins(estimator, X, y))]
    if X_test is not None:
        curves.append(("test", normalised_margins(estimator, X_test, y_test)))
    ax = _axes(ax)
    for label, margins in curves:
        n = margins.shape[0]
        ax.step(np.r_[-1.0, np.sort(margins), 1.0], np.r_[0.0, np.arange(1, n + 1) / n, 1.0], where="post",
                label=f"{label} ({n} examples)")
    ax.axvline(0.0, color="grey", linestyle=":", linewidth=1)
    ax.set_xlim(-1.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("normalised margin y f(x) / ||w||_1")
    ax.set_ylabel("cumulative share of examples")
    ax.legend(loc="upper left")
    return ax


def plot_importances(estimator, top=20, ax=None, *, feature_names=None):
    """Draw ``feature_importances_`` of the fitted ``estimator`` as horizontal bars, the ``top``
    largest (None: all), the largest at the top; ``feature_names`` as in :func:`describe`.
    Features of importance 0 are not drawn. Returns the Axes (``ax``, or a new figure's). Needs
    the ``plot`` extra (``pip install marginboost[plot]``)."""
    if top is not None and (isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 1):
        raise ValueError(f"top must be an integer >= 1 or None (all features), got {top!r}")
    importances = estimator.feature_importances_
    names = _RuleReader(estimator, feature_names).names
    order = [k for k in np.argsort(-importances, kind="stable") if importances[k] > 0.0]
    order = order if top is None else order[:top]
    ax = _axes(ax)
    ax.barh(np.arange(len(order)), importances[order], tick_label=[names[k] for k in order])
    ax.invert_yaxis()  # the largest first, at the top
    ax.set_xlabel("share of the vote's weight (feature_importances_)")
    return ax


def _axes(ax):
    """``ax``, or the Axes of a new matplotlib figure."""
    if ax is not None:
        return ax
    try:
        import matplotlib.pyplot as plt  # the plots alone need matplotlib: the optional 'plot' extra
    except ImportError as exc:
        raise ImportError(f"the plots of marginboost.inspection need matplotlib: {_PLOT_EXTRA}") from exc
    return plt.subplots()[1]
