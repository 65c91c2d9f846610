"""docs/extending: the estimator page's example runs as written, and each page names every hook
of the base class it documents (issue 30, item 2).

The other pages' examples are scripts under docs/examples, which the docs build runs
(tests/test_docs.py); the estimator page's is a literal block, run here.
"""
import re
import textwrap
import warnings
from pathlib import Path

import pytest

from marginboost.core.rounds import RoundLoop
from marginboost.functional.losses import Loss
from marginboost.soft_margin.fw_rules import FWRule
from marginboost.soft_margin.secondary_base import SecondaryRule
from marginboost.weak_learners import EdgeOracle, Hypothesis, WeakLearner

EXTENDING = Path(__file__).resolve().parents[1] / "docs" / "extending"


def _python_blocks(page: str) -> list[str]:
    """The bodies of the page's ``.. code-block:: python`` directives, dedented."""
    text = (EXTENDING / page).read_text(encoding="utf-8")
    blocks = re.findall(r"^\.\. code-block:: python\n\n((?:(?:   .*)?\n)+)", text, flags=re.M)
    return [textwrap.dedent(block) for block in blocks]


def test_the_estimator_page_example_runs(capsys):
    (code,) = _python_blocks("estimator.rst")
    namespace = {"__name__": "estimator_example"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a converged fit: no ConvergenceWarning either
        exec(compile(code, "docs/extending/estimator.rst", "exec"), namespace)
    clf = namespace["clf"]
    assert clf.status_ == "converged" and clf.score(*namespace["load_breast_cancer"](return_X_y=True)) > 0.9
    assert "rounds, status converged" in capsys.readouterr().out
    # it is a scikit-learn estimator: cloned, its parameters set, and one-vs-rest for three classes
    from sklearn.base import clone
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    three = clone(clf).set_params(nu=5.0, max_iter=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter before the stop: a ConvergenceWarning per class
        three.fit(X, y)
    assert len(three.estimators_) == 3 and three.score(X, y) > 0.8


def _hooks(base) -> set[str]:
    """The hooks a base declares: its public methods and class attributes, and ``__call__``."""
    own = {name for name in vars(base) if not name.startswith("_")}
    return own | ({"__call__"} & set(vars(base)))


@pytest.mark.parametrize("page, bases", [
    ("secondary_rule.rst", [SecondaryRule]),
    ("fw_rule.rst", [FWRule]),
    ("weak_learner.rst", [WeakLearner, EdgeOracle, Hypothesis]),
    ("loop.rst", [RoundLoop]),
    ("index.rst", [SecondaryRule, FWRule, Loss, RoundLoop]),
])
def test_each_page_names_every_hook_of_its_bases(page, bases):
    text = (EXTENDING / page).read_text(encoding="utf-8")
    spelled = {"__call__": ("__call__", "rule(", "oracle(")}  # a call is written as a call
    missing = [f"{base.__name__}.{hook}" for base in bases for hook in sorted(_hooks(base))
               if not any(f"``{form}" in text for form in spelled.get(hook, (hook,)))]
    assert not missing, f"{page} does not document {missing}"
