"""Model files: round trips for every estimator, and refusal of anything that is not a valid
model of our format (unknown version, truncated, hand-edited fields)."""
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from marginboost.estimators.soft_margin import _SoftMarginBoostClassifier
from marginboost import (
    AdaBoostClassifier,
    AdaBoostVClassifier,
    AverageMarginBoostClassifier,
    CERLPBoostClassifier,
    ERLPBoostClassifier,
    FWBoostClassifier,
    FWBoostRegressor,
    GBMClassifier,
    GBMRegressor,
    GraphSepBoostClassifier,
    LPBoostClassifier,
    MABoostClassifier,
    MadaBoostClassifier,
    MLPBoostClassifier,
    SmoothBoostClassifier,
    SoftBoostClassifier,
    TotalBoostClassifier,
)
from marginboost.io.model_codecs import NO_STAGES, encode_hypothesis
from marginboost.io.model_io import (
    FORMAT_VERSION,
    ModelFileError,
    load_model,
    model_from_dict,
    model_to_dict,
    save_model,
)
from marginboost.registry import ESTIMATORS
from marginboost.weak_learners import GaussianNaiveBayes
from marginboost.weak_learners.sklearn_adapter import SklearnHypothesis

DATA = Path(__file__).parent / "data"
X, Y = make_classification(n_samples=80, n_features=4, random_state=0)
LABELS = np.where(Y == 1, "spam", "ham")
Y_REG = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * np.sin(7 * X[:, 3])
# Training rows and unseen ones: a round trip must keep every threshold exactly.
X_ALL = np.vstack([X, 2.0 * np.random.default_rng(0).normal(size=(50, 4))])
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

# A few rounds each: enough for several hypotheses, fast to fit.
CASES = {
    "LPBoost": lambda wl: LPBoostClassifier(nu=0.2, weak_learner=wl, max_iter=10),
    "ERLPBoost": lambda wl: ERLPBoostClassifier(nu=0.2, weak_learner=wl, max_iter=10),
    "CERLPBoost": lambda wl: CERLPBoostClassifier(nu=0.2, weak_learner=wl, max_iter=10),
    "MLPBoost": lambda wl: MLPBoostClassifier(nu=3, weak_learner=wl, max_iter=10, step="pairwise"),
    "TotalBoost": lambda wl: TotalBoostClassifier(weak_learner=wl, max_iter=10),
    "SoftBoost": lambda wl: SoftBoostClassifier(nu=0.2, weak_learner=wl, max_iter=10),
    "AdaBoostV": lambda wl: AdaBoostVClassifier(weak_learner=wl, max_iter=10),
    "SmoothBoost": lambda wl: SmoothBoostClassifier(weak_learner=wl, max_iter=10),
    "MABoost": lambda wl: MABoostClassifier(regularizer="l2", variant="smooth", weak_learner=wl, max_iter=10),
    "MadaBoost": lambda wl: MadaBoostClassifier(weak_learner=wl, max_iter=10),
    "AdaBoost": lambda wl: AdaBoostClassifier(learning_rate=0.5, weak_learner=wl, max_iter=10),
    "AverageMargin": lambda wl: AverageMarginBoostClassifier(nu=0.2, eps=0.1, max_iter=10),
    "FWBoostClassifier": lambda wl: FWBoostClassifier(weak_learner=wl, max_iter=10, away_steps=True),
    "FWBoostRegressor": lambda wl: FWBoostRegressor(weak_learner=wl, max_iter=10, loss="huber"),
    "FWBoostRegressor-R": lambda wl: FWBoostRegressor(variant="R", weak_learner=wl, max_iter=10),
    "GBMClassifier": lambda wl: GBMClassifier(weak_learner=wl, max_iter=10, subsample=0.7, random_state=1),
    "GBMRegressor": lambda wl: GBMRegressor(weak_learner=wl, max_iter=10, loss="absolute"),
    "GraphSepBoost": lambda wl: GraphSepBoostClassifier(weak_learner=wl, max_iter=10,
                                                        aggregation="positive_match"),
}
# Staged predictions that work on a loaded model: those computed from the stored hypotheses alone.
STAGED_AFTER_LOAD = {MABoostClassifier, MadaBoostClassifier, AdaBoostClassifier, GBMClassifier, GBMRegressor,
                     GraphSepBoostClassifier}


def _fit(case, weak_learner, labels=Y):
    return CASES[case](weak_learner).fit(X, Y_REG if "Regressor" in case else labels)


def test_every_estimator_is_covered_and_documented():
    import marginboost.io.model_io as model_io

    assert {type(CASES[c]("tree")) for c in CASES} == set(ESTIMATORS.values())
    for cls in ESTIMATORS.values():
        for attr in cls._model_state:
            assert f"``{attr.rstrip('_')}``" in model_io.__doc__, (cls.__name__, attr)


@pytest.mark.parametrize("weak_learner", ["stump", "tree"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_round_trip_predicts_identically(tmp_path, case, weak_learner):
    est = _fit(case, weak_learner, LABELS)
    path = tmp_path / "model.json"
    est.save(path)
    loaded = type(est).load(path)
    assert type(loaded) is type(est) and loaded.get_params() == est.get_params()
    assert np.array_equal(loaded.predict(X_ALL), est.predict(X_ALL))
    if hasattr(est, "classes_"):
        assert np.array_equal(loaded.decision_function(X_ALL), est.decision_function(X_ALL))
        assert loaded.classes_.dtype == est.classes_.dtype and list(loaded.classes_) == ["ham", "spam"]
    for attr, field in type(est)._model_state.items():
        if type(field).__name__ not in ("Vector", "Codes"):  # vectors may lose zero weights
            assert getattr(loaded, attr) == getattr(est, attr), attr
    # A loaded model saves to the same document.
    assert model_to_dict(loaded) == json.loads(path.read_text())
    staged = "staged_decision_function" if hasattr(est, "classes_") else "staged_predict"
    if type(est) in STAGED_AFTER_LOAD:
        for a, b in zip(getattr(loaded, staged)(X_ALL), getattr(est, staged)(X_ALL), strict=True):
            assert np.array_equal(a, b)
    elif hasattr(est, staged):
        with pytest.raises(ValueError, match="model files do not store"):
            next(getattr(loaded, staged)(X))


@pytest.mark.parametrize("labels", [Y, Y * 2 - 1, (Y * 2 - 1).astype(float), Y.astype(bool),
                                    np.where(Y == 1, "yes", "no").astype(object)])
@pytest.mark.parametrize("case", ["LPBoost", "GBMClassifier", "GraphSepBoost"])
def test_label_types_survive(tmp_path, case, labels):
    est = _fit(case, "stump", labels)
    est.save(tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    assert loaded.classes_.dtype == est.classes_.dtype
    assert loaded.classes_.tolist() == est.classes_.tolist()
    assert np.array_equal(loaded.predict(X), est.predict(X))


def test_feature_names_survive(tmp_path):
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    est = GBMRegressor(max_iter=5).fit(frame, Y_REG)
    est.save(tmp_path / "m.json")
    loaded = GBMRegressor.load(tmp_path / "m.json")
    assert list(loaded.feature_names_in_) == ["a", "b", "c", "d"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X does not have valid feature names"
        assert np.array_equal(loaded.predict(frame), est.predict(frame))


def test_constant_stump_survives(tmp_path):
    y = np.ones(10)
    y[0] = -1  # a mostly-positive sample: the constant +1 hypothesis is a natural choice
    Xc = np.arange(10.0)[:, None]
    est = LPBoostClassifier(nu=1, weak_learner="stump").fit(Xc, y)
    save_model(est, tmp_path / "m.json")
    assert np.array_equal(load_model(tmp_path / "m.json").predict(Xc), est.predict(Xc))


def test_non_finite_diagnostics_survive(tmp_path):
    est = _fit("FWBoostRegressor", "stump")
    est.gap_ = float("inf")
    est.save(tmp_path / "m.json")
    assert '"gap": "inf"' in (tmp_path / "m.json").read_text()
    assert FWBoostRegressor.load(tmp_path / "m.json").gap_ == float("inf")


def test_unsavable_models_are_refused(tmp_path):
    path = tmp_path / "m.json"
    with pytest.raises(TypeError, match="weak_learner"):
        LPBoostClassifier(weak_learner=DecisionTreeClassifier(max_depth=1), max_iter=5).fit(X, Y).save(path)
    with pytest.raises(TypeError, match="weak_learner"):
        MadaBoostClassifier(weak_learner=GaussianNaiveBayes(), max_iter=5).fit(X, Y).save(path)
    with pytest.raises(TypeError, match="random_state"):
        GBMRegressor(max_iter=2, random_state=np.random.RandomState(0)).fit(X, Y_REG).save(path)
    with pytest.raises(ValueError, match="not fitted"):
        GBMClassifier().save(path)

    class MyBoost(LPBoostClassifier):
        pass

    with pytest.raises(TypeError, match="cannot save a MyBoost"):
        MyBoost(max_iter=5).fit(X, Y).save(path)
    with pytest.raises(TypeError, match="SklearnHypothesis cannot be written"):
        encode_hypothesis(SklearnHypothesis(DecisionTreeClassifier()))
    est = _fit("AdaBoost", "stump")
    est.hypotheses_[3] = SklearnHypothesis(DecisionTreeClassifier())
    with pytest.raises(TypeError, match="SklearnHypothesis"):
        est.save(path)
    est = _fit("MLPBoost", "tree")
    est.weights_ = est.weights_ * 2  # off the simplex: the file would be refused, so it is not written
    with pytest.raises(ValueError, match="cannot be saved faithfully.*sum to 1"):
        est.save(path)
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_load_checks_the_class(tmp_path):
    _fit("LPBoost", "stump").save(tmp_path / "m.json")
    assert type(_SoftMarginBoostClassifier.load(tmp_path / "m.json")) is LPBoostClassifier
    with pytest.raises(ModelFileError, match="holds a LPBoostClassifier, not a GBMRegressor"):
        GBMRegressor.load(tmp_path / "m.json")


@pytest.fixture(scope="module")
def documents():
    """A valid document per hypothesis kind: trees (MLPBoost), stumps (AdaBoost), regression trees
    and stumps (GBM), code tables (GraphSepBoost)."""
    return {
        "tree": model_to_dict(_fit("MLPBoost", "tree")),
        "stump": model_to_dict(_fit("AdaBoost", "stump")),
        "regression_tree": model_to_dict(_fit("GBMRegressor", "tree")),
        "regression_stump": model_to_dict(_fit("GBMRegressor", "stump")),
        "codes": model_to_dict(_fit("GraphSepBoost", "stump")),
    }


def _h(doc):
    return doc["hypotheses"][0]


INVALID = [
    ("tree", lambda d: d.update(format_version=FORMAT_VERSION + 1), f"format_version {FORMAT_VERSION + 1} is not supported"),
    ("tree", lambda d: d.update(format_version=0), "format_version 0 is not supported"),
    ("tree", lambda d: d.update(format_version="2"), "format_version '2' is not supported"),
    ("tree", lambda d: d.update(format="pickle"), "field 'format'"),
    ("tree", lambda d: d.update(estimator="os.system"), "unknown estimator 'os.system'"),
    ("tree", lambda d: d.update(estimator=["LPBoostClassifier"]), "unknown estimator"),
    ("tree", lambda d: d.update(extra=1), r"unknown field\(s\) \['extra'\]"),
    ("tree", lambda d: d.pop("state"), r"missing field\(s\) \['state'\]"),
    ("regression_tree", lambda d: d.update(classes=[0, 1], classes_dtype="<i8"), r"unknown field\(s\)"),
    ("tree", lambda d: d["params"].update(nu=-1), "invalid parameters"),
    ("tree", lambda d: d["params"].update(evil=1), "unknown parameters"),
    ("tree", lambda d: d["params"].update(weak_learner={"fit": "os.system"}), "parameter 'weak_learner' must be"),
    ("tree", lambda d: d["params"].update(weak_learner="__import__('os')"), "invalid parameters"),
    ("tree", lambda d: d.update(n_features_in=0), "n_features_in' must be >= 1"),
    ("tree", lambda d: d.update(n_features_in=True), "n_features_in' must be an integer"),
    ("tree", lambda d: d.update(feature_names_in=["a"]), "feature_names_in' must be a list of 4 strings"),
    ("tree", lambda d: d.update(classes=["ham", "ham"]), "two or more distinct labels"),
    ("tree", lambda d: d.update(classes=[0, 1, 2]), r"missing field\(s\) \['estimators'\]"),  # K > 2: K models
    ("tree", lambda d: d.update(classes=[0, 2.5]), "do not fit classes_dtype"),
    ("tree", lambda d: d.update(classes_dtype="V8"), "not a label type"),
    ("tree", lambda d: d.update(classes_dtype="no such dtype"), "not a label type"),
    ("tree", lambda d: d.update(hypotheses={}), "'hypotheses' must be a list"),
    ("tree", lambda d: d["state"].update(weights=d["state"]["weights"][:-1]), "entries, expected"),
    ("tree", lambda d: d["state"].update(weights=["0.5"] * len(d["state"]["weights"])), "numbers only"),
    ("tree", lambda d: d["state"].update(weights=[1.0] * len(d["state"]["weights"])), "sum to 1"),
    ("tree", lambda d: d["state"].update(weights=[1.5, -0.5] + [0.0] * (len(d["state"]["weights"]) - 2)),
     "non-negative"),
    ("tree", lambda d: d["state"].update(weights="all"), "must be a list of numbers"),
    ("tree", lambda d: d["state"].update(n_iter=-1), "must be >= 0"),
    ("tree", lambda d: d["state"].update(n_iter=1.5), "must be an integer"),
    ("tree", lambda d: d["state"].update(margin="huge"), "'margin' must be a number"),
    ("tree", lambda d: d["state"].update(status=3), "'status' must be a string"),
    ("tree", lambda d: d["state"].pop("eta"), r"missing field\(s\) \['eta'\]"),
    ("tree", lambda d: d["state"].update(history=[]), r"unknown field\(s\) \['history'\]"),
    ("tree", lambda d: _h(d).update(type="lambda"), "unknown hypothesis type 'lambda'"),
    ("tree", lambda d: _h(d).update(code="print(1)"), r"unknown field\(s\) \['code'\]"),
    ("tree", lambda d: _h(d).update(feature=[99] * len(_h(d)["feature"])), "feature index out of range"),
    ("tree", lambda d: _h(d).update(left=[0] * len(_h(d)["left"])), "child index out of range"),
    ("tree", lambda d: _h(d).update(right=[10**6] * len(_h(d)["right"])), "child index out of range"),
    ("tree", lambda d: _h(d).update(value=[0.5] * len(_h(d)["value"])), "leaf values must be"),
    ("tree", lambda d: _h(d).update(threshold=_h(d)["threshold"][:-1]), "entries, expected"),
    ("tree", lambda d: _h(d).update(feature=[]), "at least one node"),
    ("tree", lambda d: _h(d).update(feature=[10**400] * len(_h(d)["feature"])), "too large|integers only"),
    ("stump", lambda d: _h(d).update(feature=4), r"feature 4 outside \[0, 4\)"),
    ("stump", lambda d: _h(d).update(feature=-1), "must be >= 0"),
    ("stump", lambda d: _h(d).update(feature=10**400), "finite number of at most"),
    ("stump", lambda d: _h(d).update(sign=0), "sign must be"),
    ("stump", lambda d: _h(d).update(sign=True), "sign must be a number"),
    ("stump", lambda d: _h(d).update(threshold="-inf"), "threshold"),
    ("stump", lambda d: _h(d).pop("sign"), r"missing field\(s\) \['sign'\]"),
    ("stump", lambda d: d["state"].update(weights=d["state"]["weights"] + [1.0]), "entries, expected"),
    ("regression_tree", lambda d: d["state"].update(offset=None), "'offset' must be a number"),
    ("regression_tree", lambda d: _h(d).update(type="tree"), "leaf values must be"),
    ("regression_stump", lambda d: _h(d).update(left="x"), "left must be a number"),
    ("codes", lambda d: d["state"]["pos_codes"][0].__setitem__(0, 0), r"\+1 and -1 only"),
    ("codes", lambda d: d["state"]["neg_codes"][0].append(1), "entries, expected"),
    ("codes", lambda d: d["state"].update(neg_codes=[1, -1]), "must be a list of numbers"),
]


@pytest.mark.parametrize("kind,edit,match", INVALID)
def test_invalid_files_are_refused(tmp_path, documents, kind, edit, match):
    doc = json.loads(json.dumps(documents[kind]))
    edit(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match=match):
        load_model(path)


def test_truncated_and_non_json_files_are_refused(tmp_path, documents):
    text = json.dumps(documents["tree"])
    for cut in (1, len(text) // 3, len(text) - 1):
        truncated = tmp_path / "truncated.json"
        truncated.write_text(text[:cut])
        with pytest.raises(ModelFileError, match="invalid JSON"):
            load_model(truncated)
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x80\x04\x95pickle")
    with pytest.raises(ModelFileError, match="not a marginboost model file"):
        load_model(garbage)
    nan = tmp_path / "nan.json"
    nan.write_text(text.replace(str(documents["tree"]["state"]["weights"][0]), "NaN", 1))
    with pytest.raises(ModelFileError, match="NaN is not a JSON number"):
        load_model(nan)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ModelFileError, match="invalid JSON"):
        load_model(deep)
    for top in ("[]", "null", '"marginboost-model"'):
        with pytest.raises(ModelFileError, match="top level must be a JSON object"):
            model_from_dict(json.loads(top))
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "missing.json")


def test_version_1_files_still_load():
    # tests/data/model_v1_*.json were written by the format-1 code (git ba2a36f): MLPBoostClassifier(nu=0.2,
    # max_iter=30) on string labels and LPBoostClassifier(nu=3, weak_learner='stump', max_iter=30) on 0/1
    # labels, both fitted on make_classification(n_samples=80, n_features=4, random_state=1); the expected
    # outputs on 12 of its rows (rounded to 6 decimals) were computed by the fitted estimators then.
    expected = json.loads((DATA / "model_v1_expected.json").read_text())
    Xq = np.asarray(expected["X"])
    for kind, cls in (("trees", MLPBoostClassifier), ("stumps", LPBoostClassifier)):
        doc = json.loads((DATA / f"model_v1_{kind}.json").read_text())
        assert doc["format_version"] == 1
        loaded = load_model(DATA / f"model_v1_{kind}.json")
        assert type(loaded) is cls and loaded.status_ == doc["fit"]["status"]
        assert loaded.decision_function(Xq).tolist() == expected[kind]["decision_function"]
        assert loaded.predict(Xq).tolist() == expected[kind]["predict"]
        # Saved again, it is a version-2 file of the same model.
        again = model_to_dict(loaded)
        assert again["format_version"] == FORMAT_VERSION and again["state"]["weights"] == doc["weights"]


@pytest.mark.parametrize(
    "edit,match",
    [
        (lambda d: d.update(estimator="GBMRegressor"), "unknown estimator 'GBMRegressor' for format_version 1"),
        (lambda d: d.pop("fit"), r"missing field\(s\) \['fit'\]"),
        (lambda d: d["fit"].pop("eta"), r"field 'fit': missing field\(s\) \['eta'\]"),
        (lambda d: d.update(weights=d["weights"][1:]), "entries, expected"),
    ],
)
def test_invalid_version_1_files_are_refused(edit, match):
    doc = json.loads((DATA / "model_v1_trees.json").read_text())
    edit(doc)
    with pytest.raises(ModelFileError, match=match):
        model_from_dict(doc)


def test_no_stages_message_is_the_documented_one(tmp_path):
    est = _fit("TotalBoost", "stump")
    est.save(tmp_path / "m.json")
    with pytest.raises(ValueError) as exc:
        next(load_model(tmp_path / "m.json").staged_predict(X))
    assert str(exc.value) == NO_STAGES


# ----------------------------------------------------------------------------- issue 18: hostile files
def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    import pathlib

    import marginboost.io.model_io as model_io

    assert model_io.MAX_MODEL_BYTES == 16 * 2**20
    path = tmp_path / "m.json"
    _fit("AdaBoost", "stump").save(path)
    size = path.stat().st_size
    assert type(load_model(path, max_bytes=size)) is AdaBoostClassifier  # at the limit: read
    big = tmp_path / "big.json"
    with big.open("wb") as f:  # 16 MiB + 1 (sparse, zeros): never parsed, never even read
        f.truncate(model_io.MAX_MODEL_BYTES + 1)

    def no_read(*args, **kwargs):
        raise AssertionError("the file was read")

    monkeypatch.setattr(pathlib.Path, "read_bytes", no_read)
    monkeypatch.setattr(model_io.json, "loads", no_read)
    for target, limit, call in ((big, model_io.MAX_MODEL_BYTES, lambda p: load_model(p)),
                                (path, size - 1, lambda p: load_model(p, max_bytes=size - 1)),
                                (path, 100, lambda p: AdaBoostClassifier.load(p, max_bytes=100))):
        with pytest.raises(ModelFileError) as exc:
            call(target)
        assert str(exc.value) == (f"{target}: the file is {target.stat().st_size} bytes, over the limit of {limit} "
                                  f"bytes ({limit / 2**20:.4g} MiB) for a model file; load_model(path, "
                                  "max_bytes=...) reads a larger one")
    monkeypatch.undo()
    assert type(load_model(path, max_bytes=None)) is AdaBoostClassifier
    with pytest.raises(ValueError, match="max_bytes must be"):
        load_model(path, max_bytes=-1)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_stream_of_unknown_size_is_cut_at_the_limit():
    with pytest.raises(ModelFileError, match="more than 1000 bytes, over the limit of 1000 bytes"):
        load_model("/dev/zero", max_bytes=1000)


def test_save_warns_about_a_file_over_the_default_limit(tmp_path, monkeypatch):
    import marginboost.io.model_io as model_io

    monkeypatch.setattr(model_io, "MAX_MODEL_BYTES", 100)
    with pytest.warns(UserWarning, match=r"over load_model's default limit of 100 bytes: load it with load_model\("):
        _fit("AdaBoost", "stump").save(tmp_path / "m.json")


@pytest.mark.parametrize("saved,claimed", [
    ("LPBoost", "SoftBoostClassifier"),  # the soft-margin state -> TotalBoost's and nu
    ("SoftBoost", "LPBoostClassifier"),
    ("MLPBoost", "AverageMarginBoostClassifier"),
    ("FWBoostClassifier", "AdaBoostClassifier"),
    ("GraphSepBoost", "SmoothBoostClassifier"),
    ("GBMClassifier", "FWBoostClassifier"),
])
def test_a_file_naming_another_estimator_is_refused_on_its_state(saved, claimed):
    """'estimator' edited to a class whose stored state has other fields: refused, even with
    parameters every class takes (none), naming the fields that do not match."""
    doc = model_to_dict(_fit(saved, "stump"))
    doc["estimator"] = claimed
    doc["params"] = {}
    with pytest.raises(ModelFileError, match=r"field 'state': (missing|unknown) field\(s\)"):
        model_from_dict(doc)


def test_the_same_fields_under_another_family_meet_its_invariants():
    """One name per concept (format 4): AdaBoost and TotalBoost both store ``weights``. An AdaBoost
    file claimed by TotalBoost is refused on TotalBoost's invariant (its steps do not sum to 1);
    a TotalBoost file claimed by MABoost (non-negative weights, normalised by their sum) loads and
    predicts the same."""
    doc = model_to_dict(_fit("AdaBoost", "stump"))
    doc["estimator"], doc["params"] = "TotalBoostClassifier", {}
    with pytest.raises(ModelFileError, match="in TotalBoostClassifier, the weights' absolute values sum to 1"):
        model_from_dict(doc)
    est = _fit("TotalBoost", "stump")
    doc = model_to_dict(est)
    doc["estimator"], doc["params"] = "MABoostClassifier", {}
    loaded = model_from_dict(doc)
    assert type(loaded) is MABoostClassifier
    assert loaded.predict(X_ALL).tolist() == est.predict(X_ALL).tolist()


def test_a_file_naming_an_estimator_of_the_same_state_predicts_the_same():
    """Classes storing the same fields and taking the parameters (AdaBoost -> MABoost): the file
    loads as the class it names and predicts as the model saved."""
    est = _fit("AdaBoost", "stump")
    doc = model_to_dict(est)
    doc["estimator"] = "MABoostClassifier"
    loaded = model_from_dict(doc)
    assert type(loaded) is MABoostClassifier
    assert loaded.predict(X_ALL).tolist() == est.predict(X_ALL).tolist()


def test_vector_non_negative_refuses_a_negative_entry_naming_the_field(tmp_path):
    from marginboost.io.model_codecs import Vector

    assert Vector().decode([0.5, -0.25], "state field 'weights'", 2).tolist() == [0.5, -0.25]
    assert Vector(non_negative=True).decode([0.5, 0.0, -0.0], "state field 'weights'", 3).tolist() == [0.5, 0.0, 0.0]
    with pytest.raises(ModelFileError, match=r"state field 'weights' must be non-negative, got -0\.001 at entry 1"):
        Vector(non_negative=True).decode([0.5, -1e-3, 0.2], "state field 'weights'", 3)
    # in a file: AdaBoost's weights (its steps eta_t) are non-negative
    doc = model_to_dict(_fit("AdaBoost", "stump"))
    model_from_dict(json.loads(json.dumps(doc)))
    doc["state"]["weights"][-1] = -doc["state"]["weights"][-1]
    path = tmp_path / "negative.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match=re.escape(str(path)) + r": state field 'weights' must be non-negative, "
                                             rf"got -[0-9.e-]+ at entry {len(doc['state']['weights']) - 1}"):
        load_model(path)


def test_version_2_files_load_with_the_iteration_cap_renamed():
    """Files written by the code before the rename (format 2, 'n_estimators'; made at 7f93926)
    load as max_iter and predict as they did then."""
    import json

    from sklearn.datasets import load_breast_cancer, make_regression

    data = Path(__file__).parent / "data"
    expected = json.loads((data / "model_v2_expected.json").read_text())
    X, _ = make_regression(n_samples=60, n_features=3, noise=1.0, random_state=0)
    gbm = load_model(data / "model_v2_gbm.json")
    assert gbm.get_params()["max_iter"] == 5 and "n_estimators" not in gbm.get_params()
    # to rounding: GBM's prediction now sums offset + sum_j lr * tree_j (the shared weighted vote)
    np.testing.assert_allclose(gbm.predict(X[:5]), expected["gbm_predict_first5"], rtol=1e-13)
    Xc, _ = load_breast_cancer(return_X_y=True)
    fw = load_model(data / "model_v2_fwboost.json")
    assert fw.get_params()["max_iter"] == 6
    np.testing.assert_allclose(fw.decision_function(Xc[:5, :4]), expected["fwboost_decision_first5"], rtol=1e-13)


def test_format_3_files_load_under_todays_names(tmp_path):
    """tests/data/model_v3_*.json were written by the format-3 code (commit c148f95): FWBoost's
    ``coef`` and parameter ``tol``, MABoost's ``coef``, GBM's ``init``. They load under today's names
    (weights_, eps, offset_), predict bit for bit as then, and the old names still read, warning."""
    from sklearn.datasets import load_breast_cancer, make_regression

    data = Path(__file__).parent / "data"
    expected = json.loads((data / "model_v3_expected.json").read_text())
    Xr, _ = make_regression(150, 5, noise=5.0, random_state=0)
    Xc, _ = load_breast_cancer(return_X_y=True)
    Xc = Xc[:200, :8]
    fw = load_model(data / "model_v3_fwboost.json")
    assert fw.eps == 1e-9 and fw.tol == "deprecated"
    np.testing.assert_array_equal(fw.predict(Xr[:5]), expected["fwboost_predict_first5"])
    ma = load_model(data / "model_v3_maboost.json")
    np.testing.assert_array_equal(ma.decision_function(Xc[:5]), expected["maboost_decision_first5"])
    gbm = load_model(data / "model_v3_gbm.json")
    np.testing.assert_array_equal(gbm.decision_function(Xc[:5]), expected["gbm_decision_first5"])
    with pytest.warns(FutureWarning, match="coef_ was renamed weights_"):
        np.testing.assert_array_equal(fw.coef_, fw.weights_)
    with pytest.warns(FutureWarning, match="init_ was renamed offset_"):
        assert gbm.init_ == gbm.offset_
    for est, name in [(fw, "fw"), (ma, "ma"), (gbm, "gbm")]:  # written again: today's format and names
        est.save(tmp_path / f"{name}.json")
        doc = json.loads((tmp_path / f"{name}.json").read_text())
        assert doc["format_version"] == FORMAT_VERSION == 6
        assert not {"coef", "init"} & set(doc["state"]) and "tol" not in doc["params"] or doc["params"]["tol"] == "deprecated"


def test_callbacks_are_not_stored(tmp_path):
    est = LPBoostClassifier(max_iter=5, weak_learner="stump", callbacks=[lambda record: None]).fit(X, Y)
    est.save(tmp_path / "m.json")
    assert load_model(tmp_path / "m.json").get_params()["callbacks"] is None


NON_NEGATIVE = {"TotalBoost": "weights", "SoftBoost": "weights", "SmoothBoost": "weights", "MABoost": "weights",
                "MadaBoost": "weights", "AdaBoost": "weights", "FWBoostClassifier": "weights",
                "FWBoostRegressor": "weights", "FWBoostRegressor-R": "weights"}


@pytest.mark.parametrize("name", sorted(NON_NEGATIVE))
def test_negative_weights_are_refused_where_the_algorithm_has_none(name, tmp_path):
    """Issue 18: these algorithms' weights are >= 0 by definition; a file with -0.1 is corrupt."""
    path = tmp_path / "m.json"
    _fit(name, "stump").save(path)
    doc = json.loads(path.read_text())
    field = NON_NEGATIVE[name]
    assert min(doc["state"][field]) >= 0.0
    doc["state"][field][0] = -0.1
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFileError, match=f"'{field}' must be non-negative"):
        load_model(path)


def test_adaboostv_keeps_the_weight_of_a_perfectly_wrong_hypothesis(tmp_path):
    """AdaBoostV's 'perfect' stop may weigh a hypothesis -1 (edge -1): its file allows a negative
    weight (the absolute values still summing to 1, issue 33)."""
    path = tmp_path / "m.json"
    _fit("AdaBoostV", "stump").save(path)
    doc = json.loads(path.read_text())
    doc["state"]["weights"][0] *= -1.0
    path.write_text(json.dumps(doc))
    assert load_model(path).weights_[0] == doc["state"]["weights"][0] < 0.0


# ----------------------------------------------------------------------------- issue 33: stored categories
def test_feature_categories_round_trip_and_hostile_edits_are_refused(tmp_path):
    """The command line's encoding of text columns (``feature_categories``) is stored, read back
    as it was written, and checked on load: one entry per feature, null or distinct strings or
    integers (format 6: the categories of categorical features, tests/test_categorical.py)."""
    est = _fit("AdaBoost", "stump")
    assert "feature_categories" not in model_to_dict(est)  # the Python API's files: unchanged
    est.feature_categories_ = (None, ("blue", "green", "red"), None, ("no", "yes"))
    path = tmp_path / "m.json"
    est.save(path)
    loaded = load_model(path)
    assert loaded.feature_categories_ == est.feature_categories_
    np.testing.assert_array_equal(loaded.predict(X_ALL), est.predict(X_ALL))
    doc = json.loads(path.read_text())
    assert doc["feature_categories"] == [None, ["blue", "green", "red"], None, ["no", "yes"]]
    for bad in ([None, ["a"], None], [None, ["a"], None, ["b"], None], "abcd", {"1": ["a"]},
                [None, [], None, None], [None, ["a", "a"], None, None], [None, [1.5, 2], None, None], [None, [True], None, None],
                [None, "ab", None, None], [None, [None], None, None]):
        with pytest.raises(ModelFileError, match="field 'feature_categories'"):
            model_from_dict({**doc, "feature_categories": bad})
    for version in (1, 2):  # older files hold no categories and still load
        old = load_model(DATA / f"model_v{version}_stumps.json" if version == 1 else DATA / "model_v2_gbm.json")
        assert not hasattr(old, "feature_categories_")


# ----------------------------------------------------------------------------- issue 33: model invariants
# Hand edits of every estimator's file (hostile round 3): each is refused on load, or the model
# loaded gives finite outputs on any finite input. Today's code loaded weights of 1e308
# (TotalBoost, SmoothBoost, FWBoost, MABoost, ...) and decision_function returned inf or NaN.
MAX = float(np.finfo(np.float64).max)
X_EXTREME = np.vstack([X_ALL, np.full((1, 4), MAX), np.full((1, 4), -MAX), [[MAX, -MAX, 0.0, 5e-324]]])


def _largest_output(h) -> float:
    """``max_x |h(x)|`` of a hypothesis in a file, computed from its JSON (independently of the
    package's own bound)."""
    if h["type"] == "stump":
        return 1.0
    if h["type"] == "regression_stump":
        return abs(h["right"]) if h["threshold"] is None else max(abs(h["left"]), abs(h["right"]))
    return max(abs(v) for v, f in zip(h["value"], h["feature"]) if f < 0)


def _set_leaves(doc, value):
    for h in doc["hypotheses"]:
        if h["type"] == "regression_stump":
            h["left"] = h["right"] = value
        elif h["type"] == "regression_tree":
            h["value"] = [value] * len(h["value"])


def _outside_the_ball(doc):
    """FWBoost: the first coefficient alone takes the model to twice the l1 radius beta."""
    doc["state"]["weights"][0] = 2.0 * doc["params"]["beta"] / _largest_output(doc["hypotheses"][0])


CONVEX = {"LPBoost", "ERLPBoost", "CERLPBoost", "MLPBoost", "TotalBoost", "SoftBoost", "AdaBoostV", "SmoothBoost",
          "AverageMargin"}
MIRROR = {"MABoost", "MadaBoost", "AdaBoost"}
FWBOOST = {"FWBoostClassifier", "FWBoostRegressor", "FWBoostRegressor-R"}
GBM = {"GBMClassifier", "GBMRegressor"}
WEIGHTED = CONVEX | MIRROR | FWBOOST


def _offset(doc) -> str:
    return "offset" if "offset" in doc["state"] else "init"


EDITS = {  # name -> (the cases whose files it edits, the edit)
    "all_weights_1e308": (WEIGHTED, lambda d: d["state"].update({"weights": [1e308] * len(d["state"]["weights"])})),
    "one_weight_1e308": (WEIGHTED, lambda d: d["state"]["weights"].__setitem__(0, 1e308)),
    "one_weight_-1": (WEIGHTED, lambda d: d["state"]["weights"].__setitem__(0, -1.0)),
    "one_weight_nan": (WEIGHTED, lambda d: d["state"]["weights"].__setitem__(0, float("nan"))),
    "one_weight_0": (WEIGHTED, lambda d: d["state"]["weights"].__setitem__(0, 0.0)),
    "weights_doubled": (WEIGHTED, lambda d: d["state"].update({"weights": [2 * w for w in d["state"]["weights"]]})),
    "weights_halved": (WEIGHTED, lambda d: d["state"].update({"weights": [w / 2 for w in d["state"]["weights"]]})),
    "outside_the_l1_ball": (FWBOOST, _outside_the_ball),
    "offset_1e308": (FWBOOST | GBM, lambda d: d["state"].update({_offset(d): 1e308})),
    "offset_8e307": (FWBOOST | GBM, lambda d: d["state"].update({_offset(d): 8e307})),  # below the bound
    "leaves_1e308": (GBM | {"FWBoostRegressor-R"}, lambda d: _set_leaves(d, 1e308)),
    "learning_rate_1e308": (GBM | MIRROR, lambda d: d["params"].update(learning_rate=1e308)),
    "codes_1e308": ({"GraphSepBoost"}, lambda d: d["state"]["pos_codes"][0].__setitem__(0, 1e308)),
}
# Edits that leave a model of the family, which must load (the mirror family's coef are
# unnormalised; a smaller FWBoost vector stays in its ball; an offset of 8e307 is large but
# bounded), and those that may (twice an FWBoost vector leaves its ball unless the fit was well
# inside it); every other edit must be refused.
ADMITTED = {*((name, edit) for name in MIRROR for edit in ("one_weight_0", "weights_doubled", "weights_halved")),
            *((name, edit) for name in FWBOOST for edit in ("one_weight_0", "weights_halved")),
            *((name, "offset_8e307") for name in FWBOOST | GBM)}
EITHER = {(name, "weights_doubled") for name in FWBOOST}
_DOCUMENTS: dict = {}


def _document(case):
    if case not in _DOCUMENTS:
        weak_learner = "tree" if case in ("GBMRegressor", "FWBoostRegressor-R") else "stump"
        _DOCUMENTS[case] = model_to_dict(_fit(case, weak_learner))
    return json.loads(json.dumps(_DOCUMENTS[case]))


def _outputs(model):
    """Every output of a model on the extreme rows: decision values, predictions, probabilities,
    and the stages where a loaded model has them."""
    yield model.predict(X_EXTREME) if not hasattr(model, "classes_") else model.decision_function(X_EXTREME)
    if hasattr(model, "predict_proba"):
        yield model.predict_proba(X_EXTREME)
    if type(model) in STAGED_AFTER_LOAD:
        staged = model.staged_decision_function if hasattr(model, "classes_") else model.staged_predict
        yield from staged(X_EXTREME)


# scikit-learn's finiteness check of X sums it first (MAX + -MAX), which warns; the models do not
@pytest.mark.filterwarnings("ignore:invalid value encountered in reduce:RuntimeWarning")
@pytest.mark.parametrize("case,edit", [(case, edit) for edit, (cases, _) in EDITS.items() for case in sorted(cases)])
def test_an_edited_file_is_refused_or_gives_finite_outputs(tmp_path, case, edit):
    """Issue 33: each estimator's file with its weights (offset, leaves, learning rate, codes)
    edited is refused, naming the field, unless the edit leaves a model of the family, whose
    every output on finite input (up to +-the largest float) is then finite."""
    doc = _document(case)
    EDITS[edit][1](doc)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))  # NaN is written as the non-JSON token NaN
    try:
        model = load_model(path)
    except ModelFileError as exc:
        assert (case, edit) not in ADMITTED, exc
        assert re.search(r"field '|hypothesis|parameter|NaN", str(exc)), exc
        return
    assert (case, edit) in ADMITTED | EITHER, f"{case}: the edit {edit} loaded"
    for out in _outputs(model):
        assert np.all(np.isfinite(out)), (case, edit)


@pytest.mark.parametrize("case,edit,match", [
    ("TotalBoost", "weights_doubled",
     r"state field 'weights': in TotalBoostClassifier, the weights' absolute values sum to 1 .*; got sum 2"),
    ("SmoothBoost", "one_weight_1e308", r"state field 'weights': in SmoothBoostClassifier, .* sum to 1"),
    ("AdaBoostV", "weights_doubled", r"in AdaBoostVClassifier, the weights' absolute values sum to 1"),
    ("LPBoost", "weights_doubled", r"in LPBoostClassifier, the weights' absolute values sum to 1"),
    ("FWBoostClassifier", "outside_the_l1_ball",
     r"state field 'weights': in FWBoostClassifier, the weights lie in the l1 ball sum_j \|w_j\| max\|h_j\| <= "
     r"parameter 'beta' = 5; got 1\d\."),
    ("FWBoostRegressor-R", "leaves_1e308", r"state field 'weights': in FWBoostRegressor, .* l1 ball"),
    ("FWBoostRegressor", "offset_1e308", r"state field 'weights' and state field 'offset', .* in FWBoostRegressor, the "
                                         r"outputs are bounded by .* = 1e\+308, which must be at most 8.98847e\+307"),
    ("GBMRegressor", "learning_rate_1e308", r"parameter 'learning_rate' and state field 'offset', .* GBMRegressor"),
    ("GBMClassifier", "leaves_1e308", r"parameter 'learning_rate' and state field 'offset', .* = 1e\+308"),
    ("MABoost", "all_weights_1e308", r"state field 'weights', .* in MABoostClassifier, the outputs are bounded"),
])
def test_a_refused_edit_names_the_field_the_family_and_the_invariant(case, edit, match):
    doc = _document(case)
    EDITS[edit][1](doc)
    with pytest.raises(ModelFileError, match=match):
        model_from_dict(doc)


def test_hypotheses_outside_the_unit_range_are_refused_in_a_vote_in_it():
    """A vote in [-1, 1] (LPBoost, MABoost) holds hypotheses into [-1, 1]; a regression stump
    reaching 2 put into its file is refused, naming the hypothesis."""
    for case, family in (("LPBoost", "LPBoostClassifier"), ("MABoost", "MABoostClassifier")):
        doc = _document(case)
        doc["hypotheses"][0] = {"type": "regression_stump", "feature": 0, "threshold": 0.0, "left": 2.0, "right": 1.0}
        with pytest.raises(ModelFileError, match=rf"hypothesis 0: in {family}, every hypothesis maps into \[-1, 1\]"
                                                 r".*reaches 2"):
            model_from_dict(doc)
        doc["hypotheses"][0].update(left=-0.5, right=1.0)  # within [-1, 1]: a model of the family
        assert np.all(np.abs(model_from_dict(doc).decision_function(X_ALL)) <= 1.0 + 1e-12)


@pytest.mark.parametrize("cls", [TotalBoostClassifier, SmoothBoostClassifier, FWBoostClassifier, GBMClassifier])
def test_an_edited_one_vs_rest_file_names_the_binary_model(cls):
    X3 = np.vstack([X, X[:20] + 3.0])
    y3 = np.r_[Y, np.full(20, 2)]
    doc = model_to_dict(cls(max_iter=5, weak_learner="stump").fit(X3, y3))
    state = doc["estimators"][1]["state"]
    field = next(k for k in ("weights", "offset") if k in state)
    state[field] = [1e308] * len(state[field]) if isinstance(state[field], list) else 1e308
    with pytest.raises(ModelFileError, match=rf"estimators\[1\] state field '{field}'"):
        model_from_dict(doc)


def test_every_estimator_describes_its_model_for_the_checks():
    """Each class says what its model is (a weighted vote and its invariants, or None)."""
    for name in CASES:
        est = _fit(name, "stump")
        vote = est._stored_vote() if not hasattr(est, "estimators_") else est.estimators_[0]._stored_vote()
        assert (vote is None) == (name == "GraphSepBoost"), name
        if vote is not None:
            assert vote.convex == (name in CONVEX), name
            assert (vote.radius is not None) == (name in FWBOOST), name
