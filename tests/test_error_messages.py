"""Errors that name what is wrong and the fix (issue 33, item 15): each case failed with an error
from deep inside (an AttributeError about another method, a TypeError from numpy, a range of m
that did not say where m came from)."""
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import is_regressor
from sklearn.datasets import make_classification

import marginboost
from marginboost import AverageMarginBoostClassifier, LPBoostClassifier, SoftBoostClassifier

ESTIMATORS = [getattr(marginboost, n) for n in marginboost.__all__
              if isinstance(getattr(marginboost, n), type) and hasattr(getattr(marginboost, n), "_parameter_constraints")]


def _frame(m=40, seed=0):
    X, y = make_classification(m, 3, n_informative=2, n_redundant=0, random_state=seed)
    return pd.DataFrame(X, columns=["height", "width", "depth"]), y


def test_average_margin_boost_says_why_it_has_no_stages():
    X, y = _frame()
    est = AverageMarginBoostClassifier(max_iter=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X.to_numpy(), y)
    assert not hasattr(est, "staged_predict")
    with pytest.raises(AttributeError, match="has no attribute 'staged_predict'") as caught:
        est.staged_predict(X.to_numpy())
    assert re.search(r"AverageMarginBoostClassifier has no staged outputs: each round's output is a distribution "
                     r"over all the stumps.*max_iter=t", str(caught.value.__cause__))


@pytest.mark.parametrize("cls", [LPBoostClassifier, SoftBoostClassifier, AverageMarginBoostClassifier])
def test_nu_above_the_rows_left_by_early_stopping_says_so(cls):
    X, y = _frame(80)
    with pytest.raises(ValueError, match=r"\[1, 72\].*got nu=80 \(m = 72: the 80 rows given to fit less the 8 that "
                                         r"early_stopping holds out at validation_fraction=0\.1; lower nu, or pass "
                                         r"eval_set"):
        cls(nu=80, early_stopping=True).fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match=r"got nu=81$"):  # no split: the rows given, nothing to explain
        cls(nu=81).fit(X.to_numpy(), y)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
# a category column is a categorical feature (tests/test_categorical.py): taken or refused by the weak learner
@pytest.mark.parametrize("column, dtype", [(["a", "b"] * 20, "object"), (pd.date_range("2020", periods=40), "datetime64")])
def test_a_column_that_is_no_number_is_named(cls, column, dtype):
    X, y = _frame()
    if is_regressor(cls()):
        y = y + X["height"].to_numpy()
    bad = X.assign(colour=column)
    pattern = rf"{cls.__name__}: X column 'colour' \(dtype {dtype}.*\) cannot be read as numbers.*OrdinalEncoder"
    with pytest.raises(ValueError, match=pattern):
        cls().fit(bad, y)
    est = cls(max_iter=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X.assign(colour=np.arange(40.0)), y)
    with pytest.raises(ValueError, match=pattern):
        est.predict(bad)
