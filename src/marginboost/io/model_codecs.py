"""Codecs of model files: hypotheses and fitted state to plain JSON values and back.

Decoding only ever builds the package's own hypothesis types and numpy arrays from numbers
and strings looked up in fixed tables, so a file can describe a model but never run code.
Every decoder checks type, length, range and finiteness and raises :class:`ModelFileError`
saying what it expected. The envelope of a file (format, version, estimator, parameters,
labels) is in :mod:`marginboost.io.model_io`; an estimator declares what else it stores with
:class:`~marginboost.io.model_file.ModelFileMixin`, in the fields below (:class:`Real`,
:class:`Count`, :class:`Text`, :class:`Vector`, :class:`Codes`).

Hypotheses (``type`` picks the decoder; the class is matched exactly, so a subclass of a
known type is not mistaken for it)::

    {"type": "stump", "feature": j, "threshold": t | null, "sign": +1 | -1, "missing_left": bool}
        Stump: sign if x[j] > t else -sign; null is the constant stump (threshold -inf).
    {"type": "tree", "feature": [...], "threshold": [...], "left": [...], "right": [...], "value": [...],
     "gain": [...], "missing_left": [bool, ...]}
        DecisionTree in flat arrays, node 0 the root, feature -1 a leaf, leaves +1 or -1;
        "gain" (optional: files written before trees kept it have none) the gain of each node's
        split, finite and >= 0 (DecisionTree.gain; it weighs the feature importances).
    {"type": "regression_stump", "feature": j, "threshold": t | null, "left": a, "right": b, "missing_left": bool}
        RegressionStump: a if x[j] <= t else b; null: the constant b.
    {"type": "regression_tree", ...the keys of "tree"...}
        RegressionTree: leaves hold any finite value.

``missing_left`` (format 5): where a split sends a missing value (NaN), true for the left side
(``x <= t``), per node in trees (leaves false). Files of format 4 and older, written before
missing values were taken, have none: their hypotheses send NaN right (``missing_left`` false),
as scikit-learn's HistGradientBoosting did for features never missing in training before it kept
the sample counts by which it now picks the child with more samples; those files hold no counts.

``categories`` (format 6, optional): a categorical split (:mod:`marginboost.weak_learners.categorical`)
sends the category codes listed left, every other code right (NaN by ``missing_left``; the
threshold is unused, written 0): for a stump a list of distinct codes ``>= 0``, for a tree one
entry per node, null for a numeric split. Code k is the k-th category of that feature in the
file's ``feature_categories`` (:mod:`marginboost.io.model_io`), which holds the categories by value.
Absent: every split numeric (all files of format 5 and older).

In trees, an internal node's children come after it (which rules out cycles) and lie inside
the arrays, and its feature is below ``n_features_in``: the compiled tree walk does no bounds
checks of its own.
"""
from __future__ import annotations

import math

import numpy as np

from marginboost.weak_learners import DecisionTree, Stump
from marginboost.weak_learners.regression import RegressionStump, RegressionTree

__all__ = [
    "Codes",
    "Count",
    "MAX_MODEL_BYTES",
    "ModelFileError",
    "NO_STAGES",
    "Real",
    "Reason",
    "Text",
    "Vector",
    "decode_hypothesis",
    "encode_hypothesis",
]


# The default limit on the size of a model file that loading reads (checked before reading): 16 MiB.
MAX_MODEL_BYTES = 16 * 2**20

# What staged predictions say on a loaded model whose file does not keep the per-round weights.
NO_STAGES = ("staged predictions need the weights of every round, which model files do not store: "
             "refit the estimator to get them")


class ModelFileError(ValueError):
    """A model file that is not a valid marginboost model of a supported format version."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise ModelFileError(message)


def check_keys(doc, required: set, optional: set, where: str) -> None:
    """``doc`` is a JSON object with every required key and nothing but the known ones."""
    require(isinstance(doc, dict), f"{where} must be a JSON object, got {type(doc).__name__}")
    missing = required - doc.keys()
    require(not missing, f"{where}: missing field(s) {sorted(missing)}")
    unknown = doc.keys() - required - optional
    require(not unknown, f"{where}: unknown field(s) {sorted(unknown)}; expected {sorted(required | optional)}")


def read_number(value, where: str, integer: bool = False, low=None) -> float | int:
    """A finite JSON number (an integer if asked), at least ``low`` if given."""
    kind = "an integer" if integer else "a number"
    # JSON numbers only: bool is a subclass of int but not a number here.
    require(type(value) in (int, float), f"{where} must be {kind}, got {value!r:.40}")
    finite = math.isfinite(value) if type(value) is float else abs(value) <= 2**53
    require(finite, f"{where} must be a finite number of at most 2**53 in size, got {value!r:.40}")
    require(not integer or type(value) is int or value.is_integer(), f"{where} must be {kind}, got {value!r}")
    number = int(value) if integer else float(value)
    require(low is None or number >= low, f"{where} must be >= {low}, got {value!r}")
    return number


def read_numbers(value, where: str, n: int | None = None, integer: bool = False) -> np.ndarray:
    """A list of finite JSON numbers (``n`` of them if given) as float64 or int64."""
    require(isinstance(value, list), f"{where} must be a list of numbers, got {type(value).__name__}")
    require(n is None or len(value) == n, f"{where} has {len(value)} entries, expected {n}")
    # One pass over the types, then numpy: fast enough for large arrays (codes, big trees).
    require({type(v) for v in value} <= {int, float}, f"{where} must hold numbers only")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except OverflowError:
        raise ModelFileError(f"{where} holds a number too large for a float") from None
    require(bool(np.all(np.isfinite(arr))), f"{where} must hold finite numbers only")
    if integer:
        require(bool(np.all(arr == np.rint(arr))) and bool(np.all(np.abs(arr) < 2.0**53)),
                f"{where} must hold integers only")
        return arr.astype(np.int64)
    return arr


# --------------------------------------------------------------------------- hypotheses


def _threshold_out(t: float):
    return None if t == -np.inf else float(t)


def _threshold_in(value, where: str) -> float:
    return -np.inf if value is None else read_number(value, f"{where} threshold (a finite number or null)")


def _missing_left_in(doc: dict, where: str) -> bool:
    """A stump's ``missing_left`` (false where the file has none: format 4 and older)."""
    value = doc.get("missing_left", False)
    require(type(value) is bool, f"{where} missing_left must be true or false, got {value!r:.40}")
    return value


def _encode_stump(h: Stump) -> dict:
    doc = {"feature": int(h.feature), "threshold": _threshold_out(h.threshold), "sign": float(h.sign),
           "missing_left": bool(h.missing_left)}
    if h.categories is not None:
        doc["categories"] = [int(c) for c in h.categories]
    return doc


def _categories_in(value, where: str) -> tuple:
    """A categorical split's codes: a list of distinct integers >= 0."""
    require(isinstance(value, list) and all(type(c) is int and c >= 0 for c in value) and len(set(value)) == len(value),
            f"{where} categories must be a list of distinct category codes (integers >= 0), got {value!r:.60}")
    return tuple(sorted(value))


def _decode_stump(doc: dict, n_features: int, where: str) -> Stump:
    sign = read_number(doc["sign"], f"{where} sign")
    require(sign in (1.0, -1.0), f"{where} sign must be +1 or -1, got {sign}")
    categories = _categories_in(doc["categories"], where) if "categories" in doc else None
    return Stump(_feature(doc["feature"], n_features, where), _threshold_in(doc["threshold"], where), sign,
                 _missing_left_in(doc, where), categories)


def _encode_regression_stump(h: RegressionStump) -> dict:
    doc = {"feature": int(h.feature), "threshold": _threshold_out(h.threshold), "left": float(h.left),
           "right": float(h.right), "missing_left": bool(h.missing_left)}
    if h.categories is not None:
        doc["categories"] = [int(c) for c in h.categories]
    return doc


def _decode_regression_stump(doc: dict, n_features: int, where: str) -> RegressionStump:
    categories = _categories_in(doc["categories"], where) if "categories" in doc else None
    return RegressionStump(_feature(doc["feature"], n_features, where), _threshold_in(doc["threshold"], where),
                           read_number(doc["left"], f"{where} left"), read_number(doc["right"], f"{where} right"),
                           _missing_left_in(doc, where), categories)


def _feature(value, n_features: int, where: str) -> int:
    feature = read_number(value, f"{where} feature", integer=True, low=0)
    require(feature < n_features, f"{where} feature {feature} outside [0, {n_features})")
    return feature


def _encode_tree(h: DecisionTree) -> dict:
    doc = {"feature": h.feature.tolist(), "threshold": h.threshold.tolist(), "left": h.left.tolist(),
           "right": h.right.tolist(), "value": h.value.tolist(), "missing_left": h.missing_left.tolist()}
    if h.gain is not None:
        doc["gain"] = h.gain.tolist()
    if h.categories is not None:
        doc["categories"] = [None if c is None else [int(v) for v in c] for c in h.categories]
    return doc


def _tree_decoder(cls, leaves_pm1: bool):
    def decode(doc: dict, n_features: int, where: str):
        feature = read_numbers(doc["feature"], f"{where} feature", integer=True)
        n = feature.shape[0]
        require(n >= 1, f"{where} needs at least one node")
        threshold = read_numbers(doc["threshold"], f"{where} threshold", n)
        left = read_numbers(doc["left"], f"{where} left", n, integer=True)
        right = read_numbers(doc["right"], f"{where} right", n, integer=True)
        value = read_numbers(doc["value"], f"{where} value", n)
        missing_left = doc.get("missing_left", [False] * n)  # none in files of format 4 and older
        require(isinstance(missing_left, list) and len(missing_left) == n
                and all(type(v) is bool for v in missing_left), f"{where} missing_left must be a list of {n} booleans")
        require(bool(np.all((feature >= -1) & (feature < n_features))),
                f"{where} feature index out of range [-1, {n_features})")
        internal = feature >= 0
        nodes = np.arange(n)
        require(bool(np.all((left[internal] > nodes[internal]) & (left[internal] < n)
                            & (right[internal] > nodes[internal]) & (right[internal] < n))),
                f"{where} child index out of range (children follow their parent, inside the {n} nodes)")
        if leaves_pm1:
            require(bool(np.all(np.isin(value[~internal], (-1.0, 1.0)))), f"{where} leaf values must be +1 or -1")
        gain = None
        if "gain" in doc:
            gain = read_numbers(doc["gain"], f"{where} gain", n)
            require(bool(np.all(gain >= 0.0)), f"{where} gain must hold numbers >= 0")
        categories = None
        if "categories" in doc:
            value_in = doc["categories"]
            require(isinstance(value_in, list) and len(value_in) == n,
                    f"{where} categories must be a list of {n} entries (null or a list of codes)")
            categories = tuple(None if c is None else _categories_in(c, f"{where} node {k}")
                               for k, c in enumerate(value_in))
            require(all(c is None or internal[k] for k, c in enumerate(categories)),
                    f"{where} categories must be null at the leaves")
        return cls(feature, threshold, left, right, value, n_features, gain, np.array(missing_left, dtype=np.bool_),
                   categories)

    return decode


# type name -> (class, encode, decode, fields, optional fields); the class is matched exactly
# (RegressionTree subclasses DecisionTree but its leaves are real numbers).
_TREE_FIELDS = ("feature", "threshold", "left", "right", "value")
HYPOTHESIS_CODECS = {
    "stump": (Stump, _encode_stump, _decode_stump, ("feature", "threshold", "sign"), ("categories",)),
    "tree": (DecisionTree, _encode_tree, _tree_decoder(DecisionTree, True), _TREE_FIELDS, ("gain", "categories")),
    "regression_stump": (RegressionStump, _encode_regression_stump, _decode_regression_stump,
                         ("feature", "threshold", "left", "right"), ("categories",)),
    "regression_tree": (RegressionTree, _encode_tree, _tree_decoder(RegressionTree, False), _TREE_FIELDS,
                        ("gain", "categories")),
}
# Fields of every hypothesis type that a file of format 4 or older lacks (their default is read
# instead); a type's own optional fields are the last item of its entry above.
_OPTIONAL_FIELDS = {"missing_left"}
_NAME_OF = {cls: name for name, (cls, *_) in HYPOTHESIS_CODECS.items()}


def encode_hypothesis(h) -> dict:
    """The JSON object of a hypothesis; TypeError for a type model files cannot hold."""
    name = _NAME_OF.get(type(h))
    if name is None:
        raise TypeError(f"hypotheses of type {type(h).__name__} cannot be written to a model file; "
                        f"model files hold {', '.join(cls.__name__ for cls in _NAME_OF)}")
    _, encode, *_ = HYPOTHESIS_CODECS[name]
    return {"type": name, **encode(h)}


def decode_hypothesis(doc, n_features: int, where: str = "hypothesis"):
    """The hypothesis a JSON object describes, after checking every field."""
    require(isinstance(doc, dict), f"{where} must be a JSON object, got {type(doc).__name__}")
    name = doc.get("type")
    require(isinstance(name, str) and name in HYPOTHESIS_CODECS,
            f"{where}: unknown hypothesis type {name!r:.40}; expected one of {sorted(HYPOTHESIS_CODECS)}")
    _, _, decode, fields, optional = HYPOTHESIS_CODECS[name]
    check_keys(doc, {"type", *fields}, set(optional) | _OPTIONAL_FIELDS, where)
    return decode(doc, n_features, where)


# --------------------------------------------------------------------------- fitted state


class Real:
    """A float. ``finite=False`` (diagnostics only, never used by predict) also allows +-inf and
    nan, written as the strings 'inf', '-inf', 'nan' (JSON has no such numbers)."""

    def __init__(self, low=None, finite: bool = True):
        self.low, self.finite = low, finite

    def encode(self, value):
        """The JSON value: a number, or 'inf' / '-inf' / 'nan' when not ``finite``."""
        value = float(value)
        return value if math.isfinite(value) or self.finite else str(value)

    def decode(self, value, where: str, n_hypotheses: int) -> float:
        """The float ``value`` (at ``where`` in the file) stands for; :class:`ModelFileError` if out of range."""
        if not self.finite and value in ("inf", "-inf", "nan"):
            return float(value)
        return float(read_number(value, where, low=self.low))


class Count:
    """An integer >= 0."""

    def encode(self, value):
        """The JSON value: an int."""
        return int(value)

    def decode(self, value, where: str, n_hypotheses: int) -> int:
        """The integer >= 0 ``value`` (at ``where`` in the file) holds; :class:`ModelFileError` otherwise."""
        return int(read_number(value, where, integer=True, low=0))


class Text:
    """A string."""

    def encode(self, value):
        """The JSON value: a string."""
        return str(value)

    def decode(self, value, where: str, n_hypotheses: int) -> str:
        """``value`` if it is a string (at ``where`` in the file); :class:`ModelFileError` otherwise."""
        require(isinstance(value, str), f"{where} must be a string, got {type(value).__name__}")
        return value


class Reason:
    """A string or null: the family's reason for a stop (``stop_reason_``), None where it has none."""

    def encode(self, value):
        """The JSON value: a string, or None."""
        return None if value is None else str(value)

    def decode(self, value, where: str, n_hypotheses: int) -> str | None:
        """``value`` if it is a string or null (at ``where`` in the file); :class:`ModelFileError` otherwise."""
        require(value is None or isinstance(value, str), f"{where} must be a string or null, got {type(value).__name__}")
        return value


class Vector:
    """One finite float per hypothesis; ``non_negative``: every entry >= 0 (the weights of an
    algorithm whose weights are non-negative by definition: a negative one in a file is an edit,
    refused). What the weights must satisfy together (summing to 1, the l1 ball) is the
    estimator's invariant, checked once the whole model is read (:mod:`marginboost.io.model_checks`)."""

    def __init__(self, non_negative: bool = False):
        self.non_negative = non_negative

    def encode(self, value):
        """The JSON value: a list of floats."""
        return np.asarray(value, dtype=np.float64).tolist()

    def decode(self, value, where: str, n_hypotheses: int) -> np.ndarray:
        """The float64 array of ``n_hypotheses`` finite numbers (>= 0 if ``non_negative``);
        :class:`ModelFileError` otherwise."""
        arr = read_numbers(value, where, n_hypotheses)
        if self.non_negative and arr.size and not bool(np.all(arr >= 0.0)):
            k = int(np.argmin(arr))
            raise ModelFileError(f"{where} must be non-negative, got {float(arr[k])!r} at entry {k}")
        return arr


class Codes:
    """Rows of +1/-1, one column per hypothesis (int8)."""

    def encode(self, value):
        """The JSON value: a list of rows of +1/-1."""
        return np.asarray(value).tolist()

    def decode(self, value, where: str, n_hypotheses: int) -> np.ndarray:
        """The int8 array of rows of ``n_hypotheses`` entries +1/-1; :class:`ModelFileError` otherwise."""
        require(isinstance(value, list), f"{where} must be a list of rows, got {type(value).__name__}")
        rows = [read_numbers(row, f"{where} row {i}", n_hypotheses, integer=True) for i, row in enumerate(value)]
        codes = np.array(rows, dtype=np.int64).reshape(len(rows), n_hypotheses)
        require(bool(np.all(np.abs(codes) == 1)), f"{where} must hold +1 and -1 only")
        return codes.astype(np.int8)
