"""Model files: a versioned JSON format for the fitted soft-margin boosters, no pickle.

A file holds everything ``predict`` and ``decision_function`` need, and nothing executable::

    {
      "format": "marginboost-model", "format_version": 1, "marginboost_version": "...",
      "estimator": "MLPBoostClassifier", "params": {...},
      "classes": [...], "classes_dtype": "int64", "n_features_in": p,
      "weights": [...],
      "hypotheses": [{"type": "stump", "feature": j, "threshold": t | null, "sign": s}
                     | {"type": "tree", "feature": [...], "threshold": [...], "left": [...],
                        "right": [...], "value": [...]}],
      "fit": {"margin": ..., "objective": ..., "gap": ..., "n_iter": ..., "status": ..., "nu": ..., "eta": ...}
    }

``threshold: null`` is the constant stump (``-inf``). Only hypotheses of positive weight are
stored. Per-round data (``history_``, ``weights_path_``) is not: staged predictions need the
fitted object. Loading checks the format name and version and every field's type, length and
range, and refuses anything else with a ``ValueError`` that says what is wrong.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from . import __version__
from .estimators import (
    CERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    MLPBoostClassifier,
)
from .weak_learners import DecisionTree, Stump

FORMAT = "marginboost-model"
FORMAT_VERSION = 1
ESTIMATORS = {cls.__name__: cls for cls in
              (LPBoostClassifier, ERLPBoostClassifier, CERLPBoostClassifier, MLPBoostClassifier)}


class ModelFileError(ValueError):
    """A model file that is not a valid marginboost model of a supported format version."""


def save_model(estimator, path) -> None:
    """Write a fitted soft-margin booster to ``path`` as JSON."""
    name = type(estimator).__name__
    if name not in ESTIMATORS:
        raise TypeError(f"cannot save a {name}: model files support {sorted(ESTIMATORS)}")
    if not hasattr(estimator, "weights_"):
        raise ValueError(f"this {name} is not fitted yet: call fit before saving")
    params = estimator.get_params()
    for key, value in params.items():
        if not (value is None or isinstance(value, (str, int, float, bool))):
            raise TypeError(f"parameter {key}={value!r} cannot be written to a model file "
                            "(only strings and numbers can); use a named weak learner / rule")
    keep = np.flatnonzero(estimator.weights_ > 0)
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "marginboost_version": __version__,
        "estimator": name,
        "params": params,
        "classes": estimator.classes_.tolist(),
        "classes_dtype": estimator.classes_.dtype.str,
        "n_features_in": int(estimator.n_features_in_),
        "weights": estimator.weights_[keep].tolist(),
        "hypotheses": [_hypothesis_to_json(estimator.hypotheses_[j]) for j in keep],
        "fit": {"margin": estimator.margin_, "objective": estimator.objective_, "gap": estimator.gap_,
                "n_iter": int(estimator.n_iter_), "status": estimator.status_, "nu": estimator.nu_,
                "eta": estimator.eta_},
    }
    Path(path).write_text(json.dumps(doc, allow_nan=False))


def load_model(path):
    """Read a model file written by :func:`save_model`; returns a fitted estimator."""
    try:
        doc = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"{path}: not a marginboost model file (invalid JSON: {exc})") from exc
    try:
        return _from_json(doc)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None


def _hypothesis_to_json(h) -> dict:
    if isinstance(h, Stump):
        threshold = None if h.threshold == -np.inf else float(h.threshold)
        return {"type": "stump", "feature": int(h.feature), "threshold": threshold, "sign": float(h.sign)}
    if isinstance(h, DecisionTree):
        return {"type": "tree", "feature": h.feature.tolist(), "threshold": h.threshold.tolist(),
                "left": h.left.tolist(), "right": h.right.tolist(), "value": h.value.tolist()}
    raise TypeError(f"hypotheses of type {type(h).__name__} cannot be written to a model file "
                    "(stumps and trees can)")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ModelFileError(message)


def _field(doc: dict, key: str, kind, what: str):
    _require(isinstance(doc, dict) and key in doc, f"missing field '{key}' ({what})")
    value = doc[key]
    _require(isinstance(value, kind) and not isinstance(value, bool),
             f"field '{key}' must be {what}, got {type(value).__name__}")
    return value


def _number_list(doc: dict, key: str, n: int | None = None, integer: bool = False) -> np.ndarray:
    values = _field(doc, key, list, "a list of numbers")
    ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)
    _require(ok, f"field '{key}' must hold finite numbers only")
    if integer:
        _require(all(float(v).is_integer() for v in values), f"field '{key}' must hold integers only")
    if n is not None:
        _require(len(values) == n, f"field '{key}' has {len(values)} entries, expected {n}")
    return np.asarray(values, dtype=np.int64 if integer else np.float64)


def _from_json(doc):
    _require(isinstance(doc, dict), "the top level must be a JSON object")
    _require(doc.get("format") == FORMAT, f"field 'format' must be '{FORMAT}', got {doc.get('format')!r}")
    version = _field(doc, "format_version", int, "an integer")
    _require(version == FORMAT_VERSION,
             f"format_version {version} is not supported (this marginboost {__version__} reads "
             f"version {FORMAT_VERSION})")
    name = _field(doc, "estimator", str, "an estimator class name")
    _require(name in ESTIMATORS, f"unknown estimator {name!r}; expected one of {sorted(ESTIMATORS)}")
    params = _field(doc, "params", dict, "an object of parameters")
    estimator = ESTIMATORS[name]()
    valid = estimator.get_params()
    unknown = set(params) - set(valid)
    _require(not unknown, f"unknown parameters for {name}: {sorted(unknown)}")
    estimator.set_params(**params)
    try:
        estimator._validate_params()
    except ValueError as exc:
        raise ModelFileError(f"invalid parameters: {exc}") from None

    n_features = _field(doc, "n_features_in", int, "an integer")
    _require(n_features >= 1, "n_features_in must be >= 1")
    classes = _field(doc, "classes", list, "a list of two labels")
    _require(len(classes) == 2 and classes[0] != classes[1], "classes must hold two distinct labels")
    dtype = _field(doc, "classes_dtype", str, "a numpy dtype string")
    try:
        classes_array = np.asarray(classes, dtype=np.dtype(dtype))
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"classes do not fit classes_dtype {dtype!r}: {exc}") from None
    _require(classes_array.dtype.kind in "biufUS", f"classes_dtype {dtype!r} is not a label type")

    hyps = _field(doc, "hypotheses", list, "a list of hypotheses")
    weights = _number_list(doc, "weights", len(hyps))
    _require(len(hyps) >= 1, "a model needs at least one hypothesis")
    _require(np.all(weights > 0) and abs(weights.sum() - 1.0) <= 1e-6,
             "weights must be positive and sum to 1")

    fit = _field(doc, "fit", dict, "an object of fit results")
    estimator.classes_ = classes_array
    estimator.n_features_in_ = n_features
    estimator.hypotheses_ = [_hypothesis_from_json(h, n_features) for h in hyps]
    estimator.weights_ = weights
    estimator.margin_ = float(_field(fit, "margin", (int, float), "a number"))
    estimator.objective_ = float(_field(fit, "objective", (int, float), "a number"))
    estimator.gap_ = float(_field(fit, "gap", (int, float), "a number"))
    estimator.n_iter_ = _field(fit, "n_iter", int, "an integer")
    estimator.status_ = _field(fit, "status", str, "a status string")
    estimator.nu_ = float(_field(fit, "nu", (int, float), "a number"))
    estimator.eta_ = float(_field(fit, "eta", (int, float), "a number"))
    estimator.history_ = None
    estimator.weights_path_ = None
    return estimator


def _hypothesis_from_json(h, n_features: int):
    kind = _field(h, "type", str, "'stump' or 'tree'")
    if kind == "stump":
        feature = _field(h, "feature", int, "an integer")
        _require(0 <= feature < n_features, f"stump feature {feature} outside [0, {n_features})")
        threshold = h.get("threshold")
        _require(threshold is None or (isinstance(threshold, (int, float)) and math.isfinite(threshold)),
                 "stump threshold must be a finite number or null")
        sign = _field(h, "sign", (int, float), "+1 or -1")
        _require(sign in (1, -1), "stump sign must be +1 or -1")
        return Stump(feature, -np.inf if threshold is None else float(threshold), float(sign))
    if kind == "tree":
        feature = _number_list(h, "feature", integer=True)
        n = feature.shape[0]
        _require(n >= 1, "a tree needs at least one node")
        threshold = _number_list(h, "threshold", n)
        left = _number_list(h, "left", n, integer=True)
        right = _number_list(h, "right", n, integer=True)
        value = _number_list(h, "value", n)
        internal = feature >= 0
        _require(np.all(feature < n_features) and np.all(feature >= -1), "tree feature index out of range")
        # children come after their parent: this also rules out cycles
        nodes = np.arange(n)
        _require(np.all((left[internal] > nodes[internal]) & (left[internal] < n))
                 and np.all((right[internal] > nodes[internal]) & (right[internal] < n)),
                 "tree child index out of range")
        _require(np.all(np.isin(value[~internal], (-1.0, 1.0))), "tree leaf values must be +1 or -1")
        return DecisionTree(feature, threshold, left, right, value, n_features)
    raise ModelFileError(f"unknown hypothesis type {kind!r}; expected 'stump' or 'tree'")
