"""The plug-in bases (issue 30, item 2): secondary rules, Frank-Wolfe rules and losses are
classes with default hooks, and the soft-margin scheme calls those hooks without probing.

* a :class:`SecondaryRule` subclass that writes only ``__call__`` runs on the defaults;
* a rule object of another class is adapted (:class:`ObjectRule`): its own hooks are called,
  the base's defaults stand in for those it lacks;
* the scheme's source has no ``hasattr``/``getattr``, and its behaviour follows the hooks
  (``skip_round`` honoured, ``observe`` told, ``forget`` after a rollback, ``fw_start`` only to a
  rule that asks for it, the matrix object only to a rule that takes it);
* every built-in rule and loss subclasses its base, and a base without its required hook
  cannot be instantiated.
"""
import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_classification

import marginboost.soft_margin.scheme as scheme
from marginboost import MLPBoostClassifier
from marginboost.functional.losses import LOSSES, Loss
from marginboost.soft_margin import algorithms
from marginboost.soft_margin.fw_rules import FW_RULES, FWRule, FWStep, ShortStep, resolve_fw_rule, toward_new
from marginboost.soft_margin.objectives import SmoothedSoftMargin, entropy_eta
from marginboost.soft_margin.secondary import SECONDARY_RULES, resolve_secondary
from marginboost.soft_margin.secondary_base import (
    CallableRule,
    Candidate,
    ObjectRule,
    SecondaryRule,
    as_secondary_rule,
)
from marginboost.weak_learners import DecisionStump

# Several fits here stop by max_iter on purpose: the hooks are under test, not convergence.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
UPDATE_SECONDARY = 2  # history_['update'] of a round the secondary candidate won (scheme.UPDATE_NAMES)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=120, n_features=6, n_informative=4, flip_y=0.05, random_state=0)
    return X, np.where(y == 1, 1.0, -1.0)


class Uniform(SecondaryRule):
    """Only ``__call__``: the uniform vote over the hypotheses so far; records what it was given."""

    def __init__(self):
        self.calls = []

    def __call__(self, margins, w_fw):
        self.calls.append((type(margins), None if w_fw is None else w_fw.shape))
        t = margins.shape[1]
        w = np.full(t, 1.0 / t)
        return Candidate(w, margins @ w)


def test_a_subclass_with_only_the_update_runs_on_the_default_hooks(data):
    X, y = data
    rule = Uniform()
    assert rule.start(120, 12.0, None, 0.1) is None and rule.forget(3) is None and rule.observe(0.5) is None
    assert rule.skip_round(1e9) is False and not rule.takes_margin_matrix and not rule.warm_from_fw
    clf = MLPBoostClassifier(nu=0.1, eps=0.05, weak_learner="stump", secondary=rule, max_iter=60).fit(X, y)
    # never skipped (the default), and handed the dense array U (takes_margin_matrix is False)
    n_updates = clf.n_iter_ - (clf.status_ == "converged")  # the stopping round has no update
    assert len(rule.calls) == n_updates and [shape for _, shape in rule.calls][:2] == [(1,), (2,)]
    assert {kind for kind, _ in rule.calls} == {np.ndarray}
    assert UPDATE_SECONDARY in set(clf.history_["update"])  # its candidate won some rounds


class DuckRule:
    """A rule object of its own class (the duck-typed contract of earlier releases) with some hooks."""

    takes_margin_matrix = True
    name = "duck"

    def __init__(self, skip_from=None):
        self.started, self.seen, self.skip_from, self.asked = None, [], skip_from, 0

    def start(self, m, nu, objective, eps):
        self.started = (m, nu, objective, eps)

    def skip_round(self, fw_gain):
        self.asked += 1
        return self.skip_from is not None and self.asked >= self.skip_from

    def __call__(self, matrix, w_fw):
        self.seen.append(type(matrix))
        w = np.full(matrix.n, 1.0 / matrix.n)
        return Candidate(w, matrix.matvec(w))


def test_a_rule_object_of_another_class_is_adapted_with_its_hooks_and_the_defaults(data):
    X, y = data
    duck = DuckRule(skip_from=3)
    adapted = resolve_secondary(duck)
    assert isinstance(adapted, ObjectRule) and adapted.rule is duck and adapted.name == "duck"
    assert adapted.takes_margin_matrix and not adapted.warm_from_fw
    assert adapted.observe(0.1) is None and adapted.forget(2) is None  # the base's defaults: it has neither
    clf = MLPBoostClassifier(nu=0.1, eps=0.05, weak_learner="stump", secondary=duck, max_iter=300).fit(X, y)
    assert duck.started[:2] == (120, 12.0) and isinstance(duck.started[2], SmoothedSoftMargin)
    assert duck.seen and np.ndarray not in set(duck.seen)  # the matrix object, as it asked
    # its skip_round is honoured: asked from round 2 on (round 1 has no FW value), it runs in
    # rounds 1-3 and is skipped from its third answer on
    n_updates = clf.n_iter_ - (clf.status_ == "converged")  # the stopping round has no update
    assert len(duck.seen) == 3 and duck.asked == n_updates - 1
    assert UPDATE_SECONDARY not in set(clf.history_["update"][3:])


def test_a_plain_function_and_a_subclass_resolve_as_before():
    fn = lambda U, w: w  # noqa: E731
    assert isinstance(resolve_secondary(fn), CallableRule) and resolve_secondary(fn).fn is fn
    rule = Uniform()
    assert resolve_secondary(rule) is rule and as_secondary_rule(rule) is rule
    with pytest.raises(ValueError, match="secondary must be one of"):
        resolve_secondary(42)


class Observer(SecondaryRule):
    """Warm-started from the FW candidate: checks fw_start and records what it observes."""

    warm_from_fw = True

    def __init__(self):
        self.starts, self.advantages, self.forgotten = 0, [], []

    def start(self, m, nu, objective, eps):
        self.objective = objective

    def __call__(self, margins, w_fw, fw_start=None):
        if fw_start is not None:
            q, d = fw_start
            np.testing.assert_allclose(q, margins @ w_fw, atol=1e-12)  # the FW candidate's margins
            np.testing.assert_allclose(d, self.objective.distribution(q), atol=1e-15)  # and distribution
            self.starts += 1
        w = w_fw if w_fw is not None else np.full(margins.shape[1], 1.0 / margins.shape[1])
        return Candidate(w, margins @ w)

    def observe(self, advantage):
        self.advantages.append(advantage)

    def forget(self, n_columns):
        self.forgotten.append(n_columns)


def test_the_scheme_calls_the_hooks_warm_start_observe_and_forget(data):
    X, y = data
    m, nu, eps = X.shape[0], 12.0, 0.05
    rule = Observer()
    result = algorithms.run(algorithms.mlpboost("short_step", rule), DecisionStump().prepare(X, y), y, nu, eps,
                            max_iter=50)
    n_updates = result.n_iter - (result.status == "converged")  # the stopping round has no update
    assert rule.starts == n_updates - 1  # every update after the first (line 3 has no FW value yet)
    assert len(rule.advantages) == n_updates - 1 and all(abs(a) <= 1e-12 for a in rule.advantages)  # FW's own w
    # a rolled-back round: the loop is given an older state, so the rule forgets the later columns
    objective = SmoothedSoftMargin(nu, entropy_eta(m, nu, eps))
    rule = Observer()
    rule.start(m, nu, objective, eps)
    loop = scheme.SoftMarginLoop(DecisionStump().prepare(X, y), y, objective, eps, ShortStep(), rule)
    s1 = loop.step(None, 1).state
    s2 = loop.step(s1, 2).state
    loop.step(s2, 3)
    assert rule.forgotten == [1, 2]
    loop.step(s1, 2)  # round 3 and 2 are rolled back: the state of round 1 again
    assert rule.forgotten == [1, 2, s1[0].shape[0]]


def test_boost_adapts_an_unresolved_rule_object(data):
    X, y = data
    m, nu, eps = X.shape[0], 12.0, 0.05
    objective = SmoothedSoftMargin(nu, entropy_eta(m, nu, eps))
    duck = DuckRule()
    duck.start(m, nu, objective, eps)
    res = scheme.boost(DecisionStump().prepare(X, y), y, objective, eps, ShortStep(), duck, max_iter=30)
    assert duck.seen and res.n_iter >= 1


def test_the_scheme_probes_no_plug_in():
    """A regression guard beside the behaviour tests above: the hooks are called, never looked for."""
    for module in (scheme, algorithms):
        source = Path(module.__file__).read_text(encoding="utf-8")
        assert not re.search(r"\b(hasattr|getattr)\(", source), module.__name__


def test_builtin_plug_ins_subclass_their_bases():
    for cls in (*SECONDARY_RULES.values(), CallableRule, ObjectRule):
        assert issubclass(cls, SecondaryRule), cls
    for name, cls in FW_RULES.items():
        assert issubclass(cls, FWRule) and isinstance(resolve_fw_rule(name), cls)
    for cls in LOSSES.values():
        assert issubclass(cls, Loss), cls


def test_a_base_without_its_required_hook_cannot_be_made():
    with pytest.raises(TypeError, match="abstract"):
        type("NoUpdate", (SecondaryRule,), {})()
    with pytest.raises(TypeError, match="abstract"):
        type("NoStep", (FWRule,), {"name": "none"})()


def test_an_fw_rule_subclass_and_a_plain_function_are_both_rules(data):
    X, y = data

    class Half(FWRule):
        name = "half"

        def __call__(self, ctx):
            return toward_new(ctx, 0.5)

    def half(ctx):
        return toward_new(ctx, 0.5)

    assert resolve_fw_rule(Half()).name == "half" and resolve_fw_rule(half) is half
    fits = [MLPBoostClassifier(nu=0.1, eps=0.05, weak_learner="stump", step=rule, secondary="none",
                               max_iter=40).fit(X, y) for rule in (Half(), half)]
    np.testing.assert_array_equal(fits[0].weights_, fits[1].weights_)
    assert isinstance(Half()(_context(X, y)), FWStep)


def _context(X, y):
    from marginboost.soft_margin.fw_rules import FWContext

    m = X.shape[0]
    U = np.column_stack([y * DecisionStump().prepare(X, y)(np.full(m, 1.0 / m))[1], np.ones(m)])
    obj = SmoothedSoftMargin(12.0, entropy_eta(m, 12.0, 0.1))
    q = U[:, 0].copy()
    return FWContext(U, np.array([1.0, 0.0]), q, obj.distribution(q), 1, 1, obj)
