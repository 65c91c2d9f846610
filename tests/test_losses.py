"""Losses of FWBoost (paper 001): gradients against finite differences, smoothness constants
against the largest second difference on the feasible box, the protocol for user losses."""
import numpy as np
import pytest

from marginboost.functional.losses import (
    AbsoluteLoss,
    ExponentialLoss,
    HuberLoss,
    LOSSES,
    LogisticLoss,
    Loss,
    ProtocolLoss,
    SquaredLoss,
    check_targets,
    loss_probability,
    resolve_loss,
)

SMOOTH = [SquaredLoss(), HuberLoss(0.7), ExponentialLoss(), LogisticLoss()]


def _data(loss, m=12, seed=0):
    rng = np.random.default_rng(seed)
    if loss.kind == "classification":
        y = rng.choice([-1.0, 1.0], size=m)
    else:
        y = rng.normal(size=m)
    return y, rng.normal(size=m), rng.uniform(0.2, 3.0, size=m)


@pytest.mark.parametrize("loss", SMOOTH + [AbsoluteLoss()], ids=repr)
@pytest.mark.parametrize("weighted", [False, True])
def test_gradient_matches_central_differences(loss, weighted):
    y, F, s = _data(loss)
    s = s if weighted else None
    grad = loss.gradient(F, y, s)
    h = 1e-6
    for i in range(F.shape[0]):
        e = np.zeros_like(F)
        e[i] = h
        fd = (loss.value(F + e, y, s) - loss.value(F - e, y, s)) / (2 * h)
        assert grad[i] == pytest.approx(fd, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("loss", SMOOTH, ids=repr)
def test_smoothness_bounds_every_second_difference_on_the_box(loss):
    """C >= |l''| p_i on [lo, hi], and it is attained up to the grid (not a loose bound)."""
    y, _, s = _data(loss)
    lo, hi = -1.5, 2.5
    C = loss.smoothness(y, lo, hi, s)
    grid = np.linspace(lo, hi, 801)
    h = grid[1] - grid[0]
    p = s / s.sum()
    worst = 0.0
    for i in range(y.shape[0]):
        vals = loss.pointwise(grid, np.full_like(grid, y[i]))
        second = (vals[2:] - 2 * vals[1:-1] + vals[:-2]) / h**2
        worst = max(worst, p[i] * second.max())
    assert worst <= C * (1 + 1e-6)
    assert worst >= 0.95 * C


def test_absolute_loss_is_not_smooth_and_known_constants():
    y = np.array([1.0, -1.0])
    assert AbsoluteLoss().smoothness(y, -1.0, 1.0) == np.inf
    assert SquaredLoss().smoothness(y, -1.0, 1.0) == pytest.approx(0.5)  # 1/m
    assert ExponentialLoss().smoothness(y, -2.0, 2.0) == pytest.approx(np.exp(2.0) / 2)
    assert LogisticLoss().smoothness(y, -2.0, 2.0) == pytest.approx(0.25 / 2)


def test_closed_forms_at_a_point():
    F, y = np.array([0.5]), np.array([-1.0])
    assert SquaredLoss().value(F, y) == pytest.approx(1.125)
    assert HuberLoss(1.0).value(F, y) == pytest.approx(1.0 * (1.5 - 0.5))
    assert AbsoluteLoss().value(F, y) == pytest.approx(1.5)
    assert ExponentialLoss().value(F, y) == pytest.approx(np.exp(0.5))
    assert LogisticLoss().value(F, y) == pytest.approx(np.log1p(np.exp(0.5)))


class Quartic:  # a user loss of its own class: only the three protocol methods
    def value(self, F, y, sample_weight=None):
        return float(np.mean((F - y) ** 4))

    def gradient(self, F, y, sample_weight=None):
        return 4 * (F - y) ** 3 / F.shape[0]

    def smoothness(self, y, lo, hi, sample_weight=None):
        return 12 * float(np.max(np.maximum(hi - y, y - lo)) ** 2) / y.shape[0]


def test_resolve_loss_and_user_defined_protocol():
    for name, cls in LOSSES.items():
        assert isinstance(resolve_loss(name), cls)
    q = Quartic()
    adapted = resolve_loss(q)  # not a Loss: adapted, with the base's defaults for what it lacks
    assert isinstance(adapted, ProtocolLoss) and adapted.loss is q
    assert (adapted.name, adapted.kind, adapted.probability) == ("Quartic", "any", None)
    F, y = np.array([0.5, -1.0]), np.array([1.0, 2.0])
    assert adapted.value(F, y) == q.value(F, y)
    np.testing.assert_array_equal(adapted.gradient(F, y), q.gradient(F, y))
    assert adapted.smoothness(y, -1.0, 1.0) == q.smoothness(y, -1.0, 1.0)
    squared = SquaredLoss()
    assert resolve_loss(squared) is squared  # a Loss is used as it is
    with pytest.raises(ValueError, match="loss must be one of"):
        resolve_loss("hinge")
    with pytest.raises(ValueError, match="loss must be one of"):
        resolve_loss(object())
    with pytest.raises(ValueError, match="delta must be"):
        HuberLoss(0.0)


def test_a_loss_subclass_with_the_three_methods_gets_the_defaults():
    class Quartic4(Loss):
        value, gradient, smoothness = Quartic.value, Quartic.gradient, Quartic.smoothness

    loss = Quartic4()
    assert (loss.name, loss.kind, loss.probability) == ("Quartic4", "any", None)
    assert resolve_loss(loss) is loss
    assert loss_probability(loss) is None and loss_probability("logistic") is LogisticLoss.probability
    with pytest.raises(TypeError, match="abstract"):  # the three methods are the contract
        type("NoSmoothness", (Loss,), {"value": Quartic.value, "gradient": Quartic.gradient})()


def test_a_protocol_loss_keeps_its_optional_parts_and_fits():
    """The adapter forwards kind, name and probability the object has; the loops then read them
    (here: GBM refuses a classification loss on one-signed targets, naming the loss)."""
    from marginboost.functional.gbm import gbm
    from marginboost.weak_learners.regression import LeastSquaresStump

    class Margin(Quartic):
        name, kind = "quartic-margin", "classification"

        @staticmethod
        def probability(F):
            return 1.0 / (1.0 + np.exp(-F))

    adapted = resolve_loss(Margin())
    assert (adapted.name, adapted.kind) == ("quartic-margin", "classification")
    assert adapted.probability is Margin.probability
    X = np.arange(8.0)[:, None]
    with pytest.raises(ValueError, match="loss='quartic-margin' needs targets of both signs"):
        gbm(LeastSquaresStump(), X, Margin(), np.ones(8))
    y = np.where(X[:, 0] > 3, 1.0, -1.0)
    res = gbm(LeastSquaresStump(), X, Quartic(), y, max_iter=20)  # the functional loop takes the raw object
    assert res.history["loss"][-1] < res.history["loss"][0]


def test_classification_loss_on_continuous_targets_names_loss():
    with pytest.raises(ValueError, match="loss='logistic' is a classification loss"):
        check_targets(LogisticLoss(), np.array([0.3, 1.0, -1.0]))
    check_targets(LogisticLoss(), np.array([1.0, -1.0]))
    check_targets(SquaredLoss(), np.array([0.3, 2.0]))
