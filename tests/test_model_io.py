"""Model files: round trips, and refusal of anything that is not a valid model of our format."""
import json

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from marginboost import LPBoostClassifier, MLPBoostClassifier, SoftMarginBoostClassifier
from marginboost.model_io import FORMAT_VERSION, ModelFileError, load_model, save_model

X, Y = make_classification(n_samples=120, n_features=5, random_state=0)
LABELS = np.where(Y == 1, "spam", "ham")


@pytest.mark.parametrize("weak_learner", ["stump", "tree"])
@pytest.mark.parametrize("labels", [Y, LABELS, Y * 2.0 - 1.0])
def test_round_trip_predicts_identically(tmp_path, weak_learner, labels):
    est = MLPBoostClassifier(nu=0.2, weak_learner=weak_learner).fit(X, labels)
    path = tmp_path / "model.json"
    est.save(path)
    loaded = SoftMarginBoostClassifier.load(path)
    assert type(loaded) is MLPBoostClassifier and loaded.get_params() == est.get_params()
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    assert loaded.classes_.dtype == est.classes_.dtype
    assert loaded.margin_ == est.margin_ and loaded.status_ == est.status_
    with pytest.raises(ValueError, match="model files do not store"):
        next(loaded.staged_decision_function(X))


def test_constant_stump_survives(tmp_path):
    y = np.ones(10)
    y[0] = -1  # a mostly-positive sample: the constant +1 hypothesis is a natural choice
    est = LPBoostClassifier(nu=1, weak_learner="stump").fit(np.arange(10.0)[:, None], y)
    save_model(est, tmp_path / "m.json")
    np.testing.assert_array_equal(load_model(tmp_path / "m.json").predict(np.arange(10.0)[:, None]),
                                  est.predict(np.arange(10.0)[:, None]))


def test_unsavable_models_are_refused(tmp_path):
    est = LPBoostClassifier(weak_learner=DecisionTreeClassifier(max_depth=1)).fit(X, Y)
    with pytest.raises(TypeError, match="weak_learner"):
        est.save(tmp_path / "m.json")
    with pytest.raises(ValueError, match="not fitted"):
        LPBoostClassifier().save(tmp_path / "m.json")


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "model.json"
    MLPBoostClassifier(nu=0.2).fit(X, Y).save(path)
    return path, json.loads(path.read_text())


def _write(path, doc):
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    "edit,match",
    [
        (lambda d: d.update(format_version=FORMAT_VERSION + 1), "format_version 2 is not supported"),
        (lambda d: d.update(format="pickle"), "field 'format'"),
        (lambda d: d.update(estimator="os.system"), "unknown estimator"),
        (lambda d: d["params"].update(nu=-1), "invalid parameters"),
        (lambda d: d["params"].update(evil=1), "unknown parameters"),
        (lambda d: d.update(weights=d["weights"][:-1]), "entries, expected"),
        (lambda d: d.update(weights=[float("nan")] * len(d["weights"])), "finite numbers|invalid JSON"),
        (lambda d: d["hypotheses"][0].update(type="lambda"), "unknown hypothesis type"),
        (lambda d: d["hypotheses"][0].update(feature=[99] * len(d["hypotheses"][0]["feature"])),
         "feature index out of range"),
        (lambda d: d["hypotheses"][0].update(left=[0] * len(d["hypotheses"][0]["left"])),
         "child index out of range"),
        (lambda d: d.update(classes=["a", "a"]), "two distinct labels"),
        (lambda d: d.pop("fit"), "missing field 'fit'"),
    ],
)
def test_invalid_files_are_refused(tmp_path, saved, edit, match):
    _, doc = saved
    edit(doc)
    with pytest.raises(ModelFileError, match=match):
        load_model(_write(tmp_path / "bad.json", doc))


def test_truncated_and_non_json_files_are_refused(tmp_path, saved):
    path, _ = saved
    text = path.read_text()
    truncated = tmp_path / "truncated.json"
    truncated.write_text(text[: len(text) // 2])
    with pytest.raises(ModelFileError, match="invalid JSON"):
        load_model(truncated)
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x80\x04\x95pickle")
    with pytest.raises(ModelFileError, match="not a marginboost model file"):
        load_model(garbage)
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "missing.json")
