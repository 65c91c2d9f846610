"""Model files: one versioned JSON format for every estimator of the package, no pickle.

A file holds everything ``predict`` and ``decision_function`` need, and nothing executable::

    {
      "format": "marginboost-model", "format_version": 6, "marginboost_version": "0.1.0",
      "estimator": "GBMClassifier",                 a class name of marginboost.registry.ESTIMATORS
      "params": {...},                              get_params(): strings, numbers, booleans, null
                                                    ('callbacks' is stored as null: run-time only)
      "n_features_in": p,
      "feature_names_in": ["age", ...],             only if fit saw named columns
      "feature_categories": [null, ["blue", "red"], ...]   only if the command line encoded text
                                                    columns or fit saw categorical features: per
                                                    feature, null (numbers) or its categories
                                                    (strings or integers), code k = the k-th
      "is_categorical": [false, true, ...]          only if fit saw categorical features (see below)
      "classes": [a, b], "classes_dtype": "<U4",    classifiers: the label mapping (b is +1)
      "hypotheses": [...],                          see marginboost.io.model_codecs
      "state": {...}                                the fitted attributes below
    }

A classifier of K > 2 classes (one-vs-rest, :mod:`marginboost.estimators.multiclass`) lists its K labels in
``classes`` and, instead of ``hypotheses`` and ``state``, ``"estimators": [{"hypotheses": [...],
"state": {...}}, ...]``: its K binary models, model k separating ``classes[k]`` from the rest,
each in the layout of a binary model of the same estimator and parameters (labels ``[0, 1]``).

``state`` per estimator: each fitted attribute under its name without the trailing underscore
(V: a list of one number per hypothesis, in order; D: a diagnostic, a number or one of the
strings 'inf', '-inf', 'nan'; other numbers are finite); every ``status`` comes with
``stop_reason`` (a string or null):

* LPBoost, ERLPBoost, CERLPBoost, MLPBoost: ``weights`` (V, on the simplex), ``margin``,
  ``objective``, ``gap`` (D), ``n_iter``, ``status``, ``nu``, ``eta``;
* TotalBoost, SoftBoost, AdaBoostV, SmoothBoost: ``weights`` (V, on the simplex but AdaBoostV's,
  whose 'perfect' stop may weigh a perfectly wrong hypothesis -1: absolute values summing to 1),
  ``margin`` (D), ``n_iter``, ``status``, and SoftBoost's ``nu``;
* MABoost, MadaBoost, AdaBoost (ours): ``weights`` (V, >= 0), ``margin`` (D), ``n_iter``, ``status``;
* AverageMarginBoost: ``weights`` (V, on the simplex), ``nu``, ``eta``, ``n_hypotheses``,
  ``nzdd_build_time``, ``dropped_mass``, ``margin``, ``full_margin``, ``objective``, ``gap``
  (the last five D), ``n_iter``, ``status``;
* FWBoostRegressor, FWBoostClassifier: ``weights`` (V, >= 0: the sign is in the hypotheses; in
  the l1 ball ``sum_j weights_j max|h_j| <= beta``), ``offset``, ``train_loss``, ``gap`` (D),
  ``n_iter``, ``status``;
* GBMRegressor, GBMClassifier: ``offset``, ``train_loss`` (D), ``n_iter``;
* GraphSepBoost: ``pos_codes``, ``neg_codes`` (lists of rows of +1/-1, one column per
  hypothesis), ``n_iter``, ``status``.

The weighted-vote families (soft margin, TotalBoost and its relatives) store only hypotheses of
nonzero weight, which their ``decision_function`` skips anyway; the others store every
hypothesis, so that staged predictions over them still work. Per-round and per-example data
(``history_``, ``weights_path_``, ``distribution_``, ``nzdd_``) is not stored and is None on a
loaded model: the staged predictions that need it (soft margin, TotalBoost family, FWBoost)
then raise ``ValueError``. A loaded one-vs-rest model takes ``n_iter_`` and ``status_`` from its
binary models; its ``history_`` is a list of None.

``feature_categories`` and ``is_categorical`` (format 6) are written by a fit on categorical
features (:mod:`marginboost.estimators.input_data`): the categories of each categorical column by
value (strings or integers; code k is the k-th), and which columns the estimator encodes at
predict; the categorical splits name codes (:mod:`marginboost.io.model_codecs`).
Without ``is_categorical``, ``feature_categories`` is the encoding of a CSV file's text columns that ``marginboost fit``
learned (:func:`marginboost.io.datasets.read_csv`), for ``marginboost predict`` to encode
another file the same way; it is set as the estimator's ``feature_categories_`` (a tuple of
None or tuples of strings), which :func:`save_model` writes when present. Only the command line
sets it: after a refit from Python it may remain from the earlier data (delete it then). A file
without it (every file of the Python API, and older ones) has numbers only; a marginboost older
than this field refuses a file with it, naming the field.

Trees (edge and regression trees) keep the gain of every split (``gain``, see
:mod:`marginboost.io.model_codecs`), which weighs ``feature_importances_``; a tree of a file
written before trees kept it has no gains and splits its weight equally over its internal nodes
(:mod:`marginboost.weak_learners.splits`). As with ``feature_categories``, a marginboost older
than this field refuses a file with it, naming the field.

Loading checks the format name and version and every field's type, length and range, and
refuses anything else, and any parameter that is not a plain value, with
:class:`ModelFileError` (a ``ValueError``) saying what was expected. The ``state`` object must
hold exactly the fields the named estimator class stores (its ``_model_state``), and
``params`` only parameters of that class: a file whose ``estimator`` was changed to another
class is refused, unless that class stores the same fields and takes those parameters (e.g.
AdaBoost to MABoost, LPBoost to ERLPBoost), where the model loaded predicts as the original.
Then the model as a whole must keep its family's invariants (:mod:`marginboost.io.model_checks`):
weights summing to 1 where the model is a convex vote, hypotheses in [-1, 1] where the vote
is, FWBoost's l1 ball ``sum_j weights_j max|h_j| <= beta``, and for every weighted vote a bound
``sum_j |w_j| max|h_j| + |offset|`` on its outputs below half the largest float, so that no
loaded model gives inf or NaN on finite input.
Version 1 (the soft-margin family only: ``weights`` and a ``fit`` object at the top level)
and version 2 are still read. Version 3 names the iteration cap ``max_iter`` in every
estimator and the step rule ``step``; a version-1 or -2 file's ``n_estimators`` (FWBoost, GBM) is
read as ``max_iter``, its ``fw`` (MLPBoost) as ``step``. Version 4 gives one fitted concept one
name in every estimator: a version-3 file's state field ``coef`` (FWBoost, the mirror-ascent
family) is read as ``weights``, ``init`` (GBM) as ``offset``, and FWBoost's parameter ``tol`` as
``eps``; its ``status`` is split into a status every loop shares and the family's
``stop_reason`` (``'perfect'`` is read as ``'converged'`` with reason ``'perfect'``,
``'lambda<=0'`` as ``'converged'`` with ``'path_end'``, ...). Version 5 stores the side each split
sends missing values (NaN) to, ``missing_left`` (:mod:`marginboost.io.model_codecs`); the
hypotheses of older files, which have none, send NaN right. Version 6 adds categorical features:
``is_categorical``, integer categories in ``feature_categories`` and the ``categories`` of
categorical splits, all optional, so files of versions 1 to 5 load as before.

Size: :func:`load_model` refuses a file larger than ``max_bytes`` (default
``MAX_MODEL_BYTES``, 16 MiB) before reading or parsing it, since parsing JSON takes several
times the file's size in memory. Models of the package are far smaller (GBM's 100 depth-2
trees: about 40 KB, 1000 depth-5 trees: under 2 MB); pass a larger ``max_bytes`` (or None,
no limit) to read a larger file you trust. :func:`save_model` writes files of any size, with
a warning above ``MAX_MODEL_BYTES``.
"""
from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import ClassifierMixin, clone

from marginboost._version import __version__
from marginboost.io.model_codecs import (
    MAX_MODEL_BYTES,
    ModelFileError,
    check_keys,
    decode_hypothesis,
    encode_hypothesis,
    read_number,
    require,
)
from marginboost.io.model_checks import check_stored_vote
from marginboost.registry import ESTIMATORS

__all__ = ["FORMAT", "FORMAT_VERSION", "MAX_MODEL_BYTES", "ModelFileError", "load_model",
           "model_from_dict", "model_to_dict", "save_model"]

FORMAT = "marginboost-model"
FORMAT_VERSION = 6
# Parameters renamed since a format version: the name in files of that version and older -> today's.
_RENAMED_PARAMS = {2: {"n_estimators": "max_iter", "fw": "step"}, 3: {"tol": "eps"}}
# State fields renamed since a format version (one name per fitted concept, issue 30), likewise.
_RENAMED_STATE = {3: {"coef": "weights", "init": "offset"}}
# The statuses of format 3 that were a family's reason: status and stop_reason they are read as.
_V3_STATUSES = {"perfect": ("converged", "perfect"), "separated": ("converged", "separated"),
                "zero_weights": ("converged", "zero_weights"), "lambda<=0": ("converged", "path_end"),
                "no_edge": ("no_progress", "no_edge")}
_RUN_ONLY_PARAMS = ("callbacks",)
_HEADER = {"format", "format_version", "marginboost_version", "estimator", "params", "n_features_in"}
_MODEL = {"hypotheses", "state"}  # one binary model (or a regressor); K of them under "estimators"
_LABELS = {"classes", "classes_dtype"}
_V1_ESTIMATORS = ("LPBoostClassifier", "ERLPBoostClassifier", "CERLPBoostClassifier", "MLPBoostClassifier")
_V1_FIT = {"margin", "objective", "gap", "n_iter", "status", "nu", "eta"}
_PLAIN = (str, bool, int, float)


def save_model(estimator, path) -> None:
    """Write a fitted estimator to ``path`` as JSON.

    TypeError for an estimator, a parameter or a hypothesis the format cannot hold (a
    weak-learner object, a scikit-learn hypothesis); ValueError for an unfitted estimator.
    The document is decoded before it is written, so a file that :func:`load_model` would
    refuse is never written (but for its size: a file over ``MAX_MODEL_BYTES`` is written,
    with a ``UserWarning``, and loads with a larger ``max_bytes``); the write goes through a
    temporary file, so an interrupted save leaves no truncated model behind.
    """
    doc = model_to_dict(estimator)
    try:
        model_from_dict(doc)
    except ModelFileError as exc:
        raise ValueError(f"this {type(estimator).__name__} cannot be saved faithfully: {exc}") from None
    path = Path(path)
    text = json.dumps(doc, allow_nan=False)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    size = len(text.encode())
    if size > MAX_MODEL_BYTES:
        warnings.warn(f"{path} is {size} bytes, over load_model's default limit of {MAX_MODEL_BYTES} bytes: "
                      f"load it with load_model(path, max_bytes={size})", UserWarning, stacklevel=2)


def load_model(path, expected: type | None = None, max_bytes: int | None = MAX_MODEL_BYTES):
    """Read a model file written by :func:`save_model`; returns the fitted estimator.

    ``expected``: refuse a file holding anything but an instance of this class.
    ``max_bytes``: refuse a file larger than this many bytes (default ``MAX_MODEL_BYTES``,
    16 MiB; None: no limit), before reading or parsing it.
    """
    data = _read_bounded(Path(path), max_bytes)
    try:
        doc = json.loads(data, parse_constant=_refuse_constant)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ModelFileError) as exc:
        raise ModelFileError(f"{path}: not a marginboost model file (invalid JSON: {exc})") from None
    try:
        estimator = model_from_dict(doc)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    if expected is not None and not isinstance(estimator, expected):
        raise ModelFileError(f"{path} holds a {type(estimator).__name__}, not a {expected.__name__}")
    return estimator


def _read_bounded(path: Path, max_bytes: int | None) -> bytes:
    """The bytes of ``path``; :class:`ModelFileError` naming the size and the limit for a file
    over ``max_bytes``, checked on its size before reading, and while reading (a file that
    grows, or a device or pipe whose size is not known beforehand)."""
    if max_bytes is None:
        return path.read_bytes()
    if type(max_bytes) is not int or max_bytes < 0:
        raise ValueError(f"max_bytes must be a non-negative int or None, got {max_bytes!r}")
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > max_bytes:
            raise ModelFileError(_too_large(path, f"{size} bytes", max_bytes))
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ModelFileError(_too_large(path, f"more than {max_bytes} bytes", max_bytes))
    return data


def _too_large(path: Path, size: str, max_bytes: int) -> str:
    return (f"{path}: the file is {size}, over the limit of {max_bytes} bytes ({max_bytes / 2**20:.4g} MiB) for a "
            "model file; load_model(path, max_bytes=...) reads a larger one")


def _refuse_constant(name: str):
    # Python's json reads NaN and Infinity, which are not JSON: no model field may hold one.
    raise ModelFileError(f"{name} is not a JSON number")


def model_to_dict(estimator) -> dict:
    """The JSON document of a fitted estimator (what :func:`save_model` writes)."""
    cls = type(estimator)
    name = cls.__name__
    if ESTIMATORS.get(name) is not cls:
        raise TypeError(f"cannot save a {name}: model files support {sorted(ESTIMATORS)}")
    if not (hasattr(estimator, "hypotheses_") or _is_one_vs_rest(estimator)):
        raise ValueError(f"this {name} is not fitted yet: call fit before saving")
    params = _params_to_json(estimator)
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "marginboost_version": __version__,
        "estimator": name,
        "params": params,
        "n_features_in": int(estimator.n_features_in_),
    }
    if hasattr(estimator, "feature_names_in_"):
        doc["feature_names_in"] = [str(f) for f in estimator.feature_names_in_]
    if getattr(estimator, "feature_categories_", None) is not None:
        doc["feature_categories"] = [None if c is None else [v if isinstance(v, str) else int(v) for v in c]
                                     for c in estimator.feature_categories_]
    if getattr(estimator, "is_categorical_", None) is not None:
        doc["is_categorical"] = [bool(v) for v in estimator.is_categorical_]
    if issubclass(cls, ClassifierMixin):
        doc["classes"] = _labels_to_json(estimator.classes_)
        doc["classes_dtype"] = estimator.classes_.dtype.str
    if _is_one_vs_rest(estimator):
        doc["estimators"] = [_model_to_dict(model) for model in estimator.estimators_]
    else:
        doc.update(_model_to_dict(estimator))
    return doc


def _is_one_vs_rest(estimator) -> bool:
    """A classifier of more than two classes: its K binary models are its ``estimators_``
    (:mod:`marginboost.estimators.multiclass`)."""
    return hasattr(estimator, "estimators_")


def _model_to_dict(estimator) -> dict:
    """``hypotheses`` and ``state`` of one fitted binary model (or regressor)."""
    cls = type(estimator)
    hypotheses = list(estimator.hypotheses_)
    state = {attr: getattr(estimator, attr) for attr in cls._model_state}
    if cls._model_prune is not None:
        keep = np.flatnonzero(np.asarray(state[cls._model_prune]) != 0.0)
        hypotheses = [hypotheses[j] for j in keep]
        state[cls._model_prune] = np.asarray(state[cls._model_prune])[keep]
    return {"hypotheses": [encode_hypothesis(h) for h in hypotheses],
            "state": {attr.rstrip("_"): field.encode(state[attr]) for attr, field in cls._model_state.items()}}


def _params_to_json(estimator) -> dict:
    out = {}
    for key, value in estimator.get_params(deep=False).items():
        if key in _RUN_ONLY_PARAMS:
            value = None
        if isinstance(value, np.generic):
            value = value.item()
        if key == "categorical_features" and isinstance(value, (list, tuple, np.ndarray)):
            out[key] = _plain_list(value, key)
            continue
        if not (value is None or isinstance(value, _PLAIN)) or (isinstance(value, float) and not np.isfinite(value)):
            raise TypeError(f"parameter {key}={value!r:.80} cannot be written to a model file (only strings, "
                            "finite numbers, booleans and None can): use a named weak learner / rule / loss, "
                            "or an integer random_state")
        out[key] = value
    return out


def _plain_list(values, key: str) -> list:
    """A list parameter (``categorical_features``: indices, names or booleans) as plain JSON values."""
    out = [v.item() if isinstance(v, np.generic) else v for v in np.asarray(values, dtype=object).tolist()]
    if not all(isinstance(v, _PLAIN) for v in out):
        raise TypeError(f"parameter {key}={values!r:.80} cannot be written to a model file: its entries must be "
                        "indices, column names or booleans")
    return out


def _labels_to_json(classes: np.ndarray) -> list:
    labels = classes.tolist()
    for label in labels:
        if not isinstance(label, _PLAIN) or (isinstance(label, float) and not np.isfinite(label)):
            raise TypeError(f"class label {label!r:.40} cannot be written to a model file (labels must be "
                            "strings, finite numbers or booleans)")
    return labels


def model_from_dict(doc):
    """The fitted estimator a JSON document describes, after checking every field."""
    require(isinstance(doc, dict), "the top level must be a JSON object")
    require(doc.get("format") == FORMAT, f"field 'format' must be '{FORMAT}', got {doc.get('format')!r:.40}")
    version = doc.get("format_version")
    require(type(version) is int and 1 <= version <= FORMAT_VERSION,
            f"format_version {version!r:.20} is not supported (this marginboost {__version__} reads versions "
            f"1 to {FORMAT_VERSION})")
    if version == 1:
        doc = _upgrade_v1(doc)
    for old_version, renamed in _RENAMED_PARAMS.items():
        if version <= old_version and isinstance(doc.get("params"), dict):
            doc = {**doc, "params": {renamed.get(k, k): v for k, v in doc["params"].items()}}
    for old_version, renamed in _RENAMED_STATE.items():
        if version <= old_version:
            doc = _each_state(doc, lambda state: {renamed.get(k, k): v for k, v in state.items()})
    if version <= 3:
        doc = _each_state(doc, _split_v3_status)
    name = doc.get("estimator")
    require(isinstance(name, str) and name in ESTIMATORS,
            f"unknown estimator {name!r:.60}; expected one of {sorted(ESTIMATORS)}")
    cls = ESTIMATORS[name]
    classifier = issubclass(cls, ClassifierMixin)
    multiclass = classifier and isinstance(doc.get("classes"), list) and len(doc["classes"]) > 2
    check_keys(doc, _HEADER | (_LABELS if classifier else set()) | ({"estimators"} if multiclass else _MODEL),
               {"feature_names_in", "feature_categories", "is_categorical"}, "the model file")
    require(isinstance(doc["marginboost_version"], str), "field 'marginboost_version' must be a string")
    estimator = cls()
    _set_params(estimator, doc["params"])

    n_features = read_number(doc["n_features_in"], "field 'n_features_in'", integer=True, low=1)
    estimator.n_features_in_ = n_features
    if "feature_names_in" in doc:
        names = doc["feature_names_in"]
        require(isinstance(names, list) and len(names) == n_features and all(isinstance(f, str) for f in names),
                f"field 'feature_names_in' must be a list of {n_features} strings")
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    if "feature_categories" in doc:
        estimator.feature_categories_ = _categories_from_json(doc["feature_categories"], n_features)
    if "is_categorical" in doc:
        mask = doc["is_categorical"]
        require(isinstance(mask, list) and len(mask) == n_features and all(type(v) is bool for v in mask)
                and "feature_categories" in doc
                and all((c is not None) == v for c, v in zip(estimator.feature_categories_, mask)),
                f"field 'is_categorical' must be a list of {n_features} booleans, true exactly where "
                "'feature_categories' lists categories")
        estimator.is_categorical_ = np.array(mask, dtype=bool)
    if classifier:
        estimator.classes_ = _labels_from_json(doc["classes"], doc["classes_dtype"])
    if not multiclass:
        _model_from_dict(estimator, doc, n_features, "")
        return estimator
    models = doc["estimators"]
    n_classes = len(estimator.classes_)
    require(isinstance(models, list) and len(models) == n_classes,
            f"field 'estimators' must be a list of {n_classes} models, one per class")
    estimator.estimators_ = []
    for k, body in enumerate(models):
        where = f"estimators[{k}]"
        check_keys(body, _MODEL, set(), f"field '{where}'")
        model = clone(estimator)
        model.n_features_in_ = n_features
        model.classes_ = np.array([0, 1])  # 1: classes_[k], as one_vs_rest fits it
        _model_from_dict(model, body, n_features, f"{where} ")
        estimator.estimators_.append(model)
    estimator._summarise_classes()
    return estimator


def _each_state(doc: dict, upgrade) -> dict:
    """``doc`` with ``upgrade(state)`` for the ``state`` of its one model or of each of its
    ``estimators``; anything malformed is left for the checks."""
    def body(model):
        if isinstance(model, dict) and isinstance(model.get("state"), dict):
            return {**model, "state": upgrade(model["state"])}
        return model
    doc = body(doc)
    if isinstance(doc.get("estimators"), list):
        doc = {**doc, "estimators": [body(model) for model in doc["estimators"]]}
    return doc


def _split_v3_status(state: dict) -> dict:
    """A format-3 ``state`` with its status split into today's status and ``stop_reason``."""
    if "status" not in state:  # (GBM stores none)
        return state
    status, reason = _V3_STATUSES.get(state["status"], (state["status"], None)) \
        if isinstance(state["status"], str) else (state["status"], None)
    return {**state, "status": status, "stop_reason": reason}


def _model_from_dict(estimator, body: dict, n_features: int, where: str) -> None:
    """Set the hypotheses and fitted state of one binary model (or regressor) from its fields."""
    hypotheses = body["hypotheses"]
    require(isinstance(hypotheses, list), f"field '{where}hypotheses' must be a list")
    estimator.hypotheses_ = [decode_hypothesis(h, n_features, f"{where}hypothesis {i}")
                             for i, h in enumerate(hypotheses)]
    spec = type(estimator)._model_state
    state = body["state"]
    check_keys(state, {attr.rstrip("_") for attr in spec}, set(), f"field '{where}state'")
    for attr, field in spec.items():
        key = attr.rstrip("_")
        setattr(estimator, attr, field.decode(state[key], f"{where}state field '{key}'", len(hypotheses)))
    for attr in type(estimator)._model_unsaved:
        setattr(estimator, attr, None)
    check_stored_vote(estimator, where)
    estimator._derive_from_stored()


def _set_params(estimator, params) -> None:
    require(isinstance(params, dict), "field 'params' must be a JSON object")
    valid = estimator.get_params(deep=False)
    unknown = params.keys() - valid.keys()
    require(not unknown, f"unknown parameters for {type(estimator).__name__}: {sorted(unknown)}; "
                         f"expected some of {sorted(valid)}")
    for key, value in params.items():
        if key == "categorical_features" and isinstance(value, list):
            require(all(isinstance(v, _PLAIN) for v in value),
                    "parameter 'categorical_features' must list indices, column names or booleans")
            continue
        require(value is None or isinstance(value, _PLAIN),
                f"parameter '{key}' must be a string, number, boolean or null, got {type(value).__name__}")
    estimator.set_params(**params)
    try:
        estimator._validate_params()
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"invalid parameters: {exc}") from None


def _labels_from_json(classes, dtype) -> np.ndarray:
    require(isinstance(classes, list) and len(classes) >= 2 and all(isinstance(c, _PLAIN) for c in classes)
            and len(set(classes)) == len(classes),
            "field 'classes' must hold two or more distinct labels (strings, numbers or booleans)")
    require(isinstance(dtype, str), "field 'classes_dtype' must be a numpy dtype string")
    try:
        kind = np.dtype(dtype).kind
    except (TypeError, ValueError):
        kind = None
    require(kind is not None and kind in "biufUO", f"classes_dtype {dtype!r:.40} is not a label type")
    try:
        labels = np.asarray(classes, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        labels = None
    # A dtype that changes a label (a string cut short, a float made an integer) would change predict.
    require(labels is not None and labels.tolist() == classes,
            f"classes {classes!r:.60} do not fit classes_dtype {dtype!r}")
    return labels


def _categories_from_json(categories, n_features: int) -> tuple:
    """``feature_categories``: per feature, null or a non-empty list of distinct strings or integers."""
    require(isinstance(categories, list) and len(categories) == n_features,
            f"field 'feature_categories' must be a list of {n_features} entries, one per feature")
    for j, column in enumerate(categories):
        require(column is None or (isinstance(column, list) and len(column) > 0
                                   and all(isinstance(c, str) or type(c) is int for c in column)
                                   and len(set(column)) == len(column)),
                f"field 'feature_categories' entry {j} must be null (a column of numbers) or a non-empty list of "
                "distinct strings or integers (its categories in code order)")
    return tuple(None if column is None else tuple(column) for column in categories)


def _upgrade_v1(doc) -> dict:
    """A version-1 document (soft-margin family; weights and a 'fit' object at the top level) in
    the layout of version 2."""
    check_keys(doc, _HEADER | {"hypotheses"} | _LABELS | {"weights", "fit"}, set(), "the version-1 model file")
    require(doc["estimator"] in _V1_ESTIMATORS,
            f"unknown estimator {doc['estimator']!r:.60} for format_version 1; expected one of {list(_V1_ESTIMATORS)}")
    check_keys(doc["fit"], _V1_FIT, set(), "field 'fit'")
    upgraded = {k: v for k, v in doc.items() if k not in ("weights", "fit")}
    upgraded["state"] = {"weights": doc["weights"], **doc["fit"]}
    return upgraded
