"""One table of estimators (:mod:`marginboost.registry`) feeds every list of them.

A toy booster registered as the package's are (``booster=`` in its class statement) reaches
each list it should: the command line's boosters (``marginboost fit --booster`` fits it and
writes its model file), the model registry (the file loads back as the toy), and the API docs'
list (``docs/_ext/estimatorlist.py``, which shows every registered class). A user's subclass,
without ``booster=``, reaches none. The package's own classes are all registered, exported by
``marginboost`` and known to the command line by the names it always had.
"""
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator

import marginboost
from marginboost import registry
from marginboost.cli import boosters, main
from marginboost.io.model_io import load_model

DOCS_EXT = Path(__file__).resolve().parents[1] / "docs" / "_ext" / "estimatorlist.py"
CLI_NAMES = ["adaboost", "adaboostv", "averagemargin", "cerlpboost", "erlpboost", "fwboost", "gbm", "graphsepboost",
             "lpboost", "maboost", "madaboost", "mlpboost", "smoothboost", "softboost", "totalboost"]


def _docs_list():
    spec = importlib.util.spec_from_file_location("estimatorlist", DOCS_EXT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def restored_registry():
    """The registry as it was before the test, whatever the test registered."""
    saved = dict(registry.ESTIMATORS)
    yield registry.ESTIMATORS
    registry.ESTIMATORS.clear()
    registry.ESTIMATORS.update(saved)


@pytest.fixture
def toy(restored_registry):
    """A toy booster, a classifier and a regressor registered under one booster name."""

    class ToyBoostClassifier(marginboost.LPBoostClassifier, booster="toyboost"):
        """LPBoost under another name."""

    class ToyBoostRegressor(marginboost.GBMRegressor, booster="toyboost"):
        """GBM under another name."""

    return ToyBoostClassifier, ToyBoostRegressor


def _csv(path: Path, labels) -> Path:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(len(labels), 2))
    path.write_text("a,b,y\n" + "".join(f"{a},{b},{t}\n" for (a, b), t in zip(X.tolist(), labels)))
    return path


def test_the_package_registers_each_estimator_it_exports():
    exported = {name for name in marginboost.__all__ if isinstance(getattr(marginboost, name), type)
                and issubclass(getattr(marginboost, name), BaseEstimator)}
    assert set(registry.ESTIMATORS) == exported and len(exported) == 17
    assert all(getattr(marginboost, name) is cls for name, cls in registry.ESTIMATORS.items())
    assert sorted(boosters()) == CLI_NAMES
    assert {name: cls.__name__ for name, cls in registry.regressors().items()} == {
        "fwboost": "FWBoostRegressor", "gbm": "GBMRegressor"}


def test_a_registered_booster_reaches_the_cli_the_model_files_and_the_docs(toy, tmp_path, capsys):
    classifier, regressor = toy
    assert registry.ESTIMATORS["ToyBoostClassifier"] is classifier
    assert boosters()["toyboost"] is classifier and registry.regressors()["toyboost"] is regressor

    model = tmp_path / "toy.json"
    data = _csv(tmp_path / "d.csv", [0, 1] * 20)
    code = main(["fit", "--data", str(data), "--booster", "toyboost", "--weak-learner", "stump", "--max-iter", "5",
                 "--model", str(model)])
    out, err = capsys.readouterr()
    assert code == 0, err
    loaded = load_model(model)
    assert type(loaded) is classifier and loaded.n_features_in_ == 2

    real = _csv(tmp_path / "r.csv", np.linspace(0.0, 1.0, 40).tolist())
    code = main(["fit", "--data", str(real), "--booster", "toyboost", "--max-iter", "3"])
    assert code == 2 and "marginboost.ToyBoostRegressor (--booster toyboost's regressor)" in capsys.readouterr().err

    docs = _docs_list()
    assert docs.registered_in(classifier.__module__) == [classifier, regressor]
    lines = docs.autoclass_lines(classifier.__module__)
    assert ".. autoclass:: marginboost.ToyBoostClassifier" in lines
    assert ".. autoclass:: marginboost.ToyBoostRegressor" in lines


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # 3 rounds: enough to save
def test_a_users_subclass_reaches_no_list(restored_registry, tmp_path):
    class MyLPBoost(marginboost.LPBoostClassifier):
        """A user's own variant."""

    assert MyLPBoost not in registry.ESTIMATORS.values() and MyLPBoost not in boosters().values()
    assert _docs_list().registered_in(MyLPBoost.__module__) == []
    est = MyLPBoost(weak_learner="stump", max_iter=3).fit(np.arange(20.0).reshape(10, 2), [0, 1] * 5)
    with pytest.raises(TypeError, match="cannot save a MyLPBoost"):
        est.save(tmp_path / "mine.json")


def test_a_booster_name_is_taken_once_per_kind(restored_registry):
    with pytest.raises(ValueError, match="'lpboost' is taken by LPBoostClassifier"):
        class Again(marginboost.LPBoostClassifier, booster="lpboost"):
            """A second lpboost."""
    with pytest.raises(ValueError, match="lower-case word"):
        class Spaced(marginboost.LPBoostClassifier, booster="my boost"):
            """A name the command line could not take."""


def test_the_docs_show_every_registered_estimator_once():
    docs = _docs_list()
    modules = dict.fromkeys(cls.__module__ for cls in registry.ESTIMATORS.values())
    entries = [line for module in modules for line in docs.autoclass_lines(module) if line.startswith(".. autoclass::")]
    assert sorted(entries) == sorted(f".. autoclass:: marginboost.{name}" for name in registry.ESTIMATORS)
