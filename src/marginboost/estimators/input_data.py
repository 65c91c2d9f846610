"""``validate_data`` as every estimator calls it: scikit-learn's, with errors that name the column
and missing values (NaN) let through where the estimator's weak learner takes them.

scikit-learn converts a pandas DataFrame to one float array; a text, category or datetime
column then fails inside numpy ("could not convert string to float: 'x'", a ``DTypePromotionError``
for datetimes) without saying which column it was. Here, when the conversion of a DataFrame
fails, each column is converted alone, and the ``ValueError`` names those that cannot be, their
dtype and how to encode them (issue 33).

Missing values (issue 32): X may hold NaN where the estimator's ``allow_nan`` tag says so (its
weak learner takes them: the package's stumps and trees, exact and histogram, or a scikit-learn
estimator tagged ``allow_nan``); elsewhere X with NaN is refused with a ``ValueError`` naming what
cannot take them (e.g. ``weak_learner=LogisticRegression()``). Infinities are refused always, with
scikit-learn's message ("Input X contains infinity ..."). At ``fit``, columns missing in every row
warn (:class:`AllMissingColumnWarning`): no learner can split on them. Every other input, and
every other error, is scikit-learn's unchanged.

Categorical features (issue 32): the columns named by the estimator's ``categorical_features``
(:func:`categorical_mask`; by default ``'from_dtype'``, the pandas ``category`` columns of a
DataFrame) are encoded to category codes before scikit-learn's checks, code k for the k-th
category (those of the ``category`` dtype, in its order; the sorted distinct values of any other
declared column), NaN for a missing value. A fit stores the categories in ``feature_categories_``
(per feature None or the tuple of its categories, strings or integers) and the mask in
``is_categorical_``, and returns the codes as a :class:`.CategoricalMatrix`, which tells the weak
learners which columns hold codes; a weak learner that cannot take them
(``allow_categorical`` False) is refused naming it. ``predict`` encodes with the stored categories,
a category unseen at fit becoming NaN: it follows each split's missing-value rule. A column of
more than ``MAX_CATEGORIES`` categories, categories that are neither strings nor integers, and a
column of ``category`` dtype at fit given with another dtype at predict are ``ValueError``s naming
the column.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.validation import validate_data as _sklearn_validate_data

from marginboost.weak_learners.categorical import CategoricalMatrix

__all__ = ["AllMissingColumnWarning", "MAX_CATEGORIES", "categorical_mask", "is_dask_collection", "validate_data"]

MAX_CATEGORIES = 255  # per feature: codes 0..254, as the histogram learners' value bins


class AllMissingColumnWarning(UserWarning):
    """Columns of X are missing (NaN) in every training row: the weak learners never split on them."""


def is_dask_collection(X) -> bool:
    """Whether X is a dask array or dataframe (without importing dask where it is not loaded)."""
    return "dask" in type(X).__module__.split(".")[0] and hasattr(X, "__dask_graph__")


def validate_data(est, X="no_validation", y="no_validation", **kwargs):
    """:func:`sklearn.utils.validation.validate_data`, with a ``ValueError`` naming the columns of a
    DataFrame ``X`` that are not numbers when the conversion fails, and NaN in X allowed where
    ``est`` takes it (module docstring)."""
    checks_X = not (isinstance(X, str) and X == "no_validation")
    mask = None
    if checks_X and getattr(est, "_lp_over_all_rows", False) and is_dask_collection(X):
        raise TypeError(
            f"{type(est).__name__} got a dask collection as X, and it has no fit on a cluster: each of its rounds "
            "solves a linear program with one row per example, on one machine. For a fit with the rows left on "
            "the workers use marginboost.dask.DaskMLPBoostClassifier, the same soft margin by Frank-Wolfe rounds "
            "that need only sums over the examples; or compute X into memory yourself")
    if checks_X:
        X, mask = _encode_categories(est, X, kwargs.get("reset", True))
    if checks_X and "ensure_all_finite" not in kwargs:
        kwargs["ensure_all_finite"] = "allow-nan"  # infinities still refused; NaN: below
        refusal = est._nan_refusal() if hasattr(est, "_nan_refusal") else type(est).__name__
    else:
        refusal = None
    try:
        out = _sklearn_validate_data(est, X, y, **kwargs)
    except (TypeError, ValueError) as exc:
        bad = _non_numeric_columns(X)
        if not bad:
            raise
        listed = ", ".join(f"{name!r} (dtype {dtype})" for name, dtype in bad[:10])
        more = f" and {len(bad) - 10} more" if len(bad) > 10 else ""
        raise ValueError(
            f"{type(est).__name__}: X column{'s' if len(bad) > 1 else ''} {listed}{more} cannot be read as numbers. "
            "The estimators take numeric features: encode text and categories first (e.g. "
            "sklearn.preprocessing.OrdinalEncoder or OneHotEncoder in a ColumnTransformer), numbers stored as text "
            "with pandas.to_numeric, datetimes as numbers (e.g. seconds since the epoch, or year and month)"
        ) from exc
    if checks_X and kwargs["ensure_all_finite"] == "allow-nan":
        _check_missing(est, out[0] if isinstance(out, tuple) else out, refusal, kwargs.get("reset", True))
    if mask is not None:  # a fit on categorical columns: the learners read the mask off X
        if isinstance(out, tuple):
            return (CategoricalMatrix(out[0], mask), *out[1:])
        return CategoricalMatrix(out, mask)
    return out


def categorical_mask(spec, X) -> np.ndarray | None:
    """The (p,) boolean mask of the categorical columns of ``X`` by ``spec`` (an estimator's
    ``categorical_features``, as scikit-learn's HistGradientBoosting reads it): ``'from_dtype'``
    the pandas ``category`` columns of a DataFrame (none of an array); None none; indices (negative
    ones from the end); column names (X a DataFrame); or a boolean mask of length p. None where no
    column is categorical."""
    columns = getattr(X, "columns", None)
    if spec is None:
        return None
    if isinstance(spec, str) and spec == "from_dtype":  # X untouched unless a DataFrame: any array-like passes
        if columns is None or not hasattr(X, "dtypes"):
            return None
        mask = np.array([str(dtype) == "category" for dtype in X.dtypes], dtype=bool)
        return mask if mask.any() else None
    shape = getattr(X, "shape", None) or np.shape(X)
    p = shape[1] if len(shape) == 2 else 0
    values = np.asarray(spec)
    if values.ndim != 1:
        raise ValueError(f"categorical_features must be 'from_dtype', None, or a 1-D list of indices, names or "
                         f"booleans; got {spec!r:.80}")
    mask = np.zeros(p, dtype=bool)
    if values.size == 0:
        return None
    if values.dtype.kind == "b":
        if values.size != p:
            raise ValueError(f"categorical_features as a boolean mask must have one entry per column of X ({p}), "
                             f"got {values.size}")
        mask[:] = values
    elif values.dtype.kind in "iu":
        if values.min() < -p or values.max() >= p:
            raise ValueError(f"categorical_features indices must be in [{-p}, {p - 1}] (X has {p} columns), got "
                             f"{values.tolist()[:10]}")
        mask[values] = True
    elif values.dtype.kind in "UO":
        if columns is None:
            raise ValueError("categorical_features given as column names needs X as a DataFrame with those columns; "
                             f"got {type(X).__name__}")
        names = [str(c) for c in columns]
        unknown = [str(v) for v in values if str(v) not in names]
        if unknown:
            raise ValueError(f"categorical_features names {unknown[:10]} are not columns of X (its columns: "
                             f"{names[:10]}{' ...' if len(names) > 10 else ''})")
        mask[[names.index(str(v)) for v in values]] = True
    else:
        raise ValueError(f"categorical_features must hold indices, column names or booleans; got {spec!r:.80}")
    return mask if mask.any() else None


def _column_name(est, X, j: int) -> str:
    columns = getattr(X, "columns", None)
    if columns is None:
        columns = getattr(est, "feature_names_in_", None)
    return repr(str(columns[j])) if columns is not None else str(j)


def _encode_categories(est, X, fitting: bool):
    """``(X, mask)``: ``X`` with its categorical columns replaced by codes (module docstring) and,
    at a fit on categorical columns, their mask (else None). At a fit, sets or clears
    ``feature_categories_`` and ``is_categorical_``."""
    if fitting:
        if isinstance(X, CategoricalMatrix):  # codes already (one-vs-rest's binary fits on its encoded X)
            mask = X.categorical if X.categorical is not None and X.categorical.any() else None
            _check_learner(est, mask)
            return np.asarray(X), mask
        if hasattr(est, "is_categorical_"):  # an earlier fit's encoding (the command line sets its own after fit)
            del est.is_categorical_
            est.__dict__.pop("feature_categories_", None)
        mask = categorical_mask(getattr(est, "categorical_features", "from_dtype"), X)
        if mask is None:
            return X, None
        _check_learner(est, mask)
        frame = _as_frame(X)
        categories = [None] * frame.shape[1]
        for j in np.flatnonzero(mask):
            categories[j] = _fit_categories(est, X, frame.iloc[:, j], j)
            frame[frame.columns[j]] = _codes(frame.iloc[:, j], categories[j])
        est.feature_categories_ = tuple(categories)
        est.is_categorical_ = mask
        return _unframe(frame, X), mask
    mask = getattr(est, "is_categorical_", None)
    if mask is None:
        return X, None
    if np.ndim(X) != 2 or np.shape(X)[1] != mask.size:
        return X, None  # scikit-learn's check names the wrong number of columns
    by_dtype = isinstance(getattr(est, "categorical_features", "from_dtype"), str)
    frame = _as_frame(X)
    for j in np.flatnonzero(mask):
        column = frame.iloc[:, j]
        if by_dtype and str(column.dtype) != "category":
            raise ValueError(
                f"{type(est).__name__}: X column {_column_name(est, X, j)} was of pandas dtype 'category' at fit "
                f"(a categorical feature by categorical_features='from_dtype') and is {column.dtype} here: pass it "
                "as a 'category' column again (e.g. X.astype({name: 'category'}))")
        frame[frame.columns[j]] = _codes(column, est.feature_categories_[j])
    return _unframe(frame, X), None


def _check_learner(est, mask) -> None:
    if mask is None:
        return
    learner = est._weak_learner_object() if hasattr(est, "_weak_learner_object") else None
    if learner is None or not getattr(learner, "allow_categorical", False):
        what = f"weak_learner={getattr(est, 'weak_learner', None)!r}" if learner is not None else type(est).__name__
        raise ValueError(
            f"{type(est).__name__}: X has categorical features (columns {np.flatnonzero(mask).tolist()[:10]}, by "
            f"categorical_features={getattr(est, 'categorical_features', 'from_dtype')!r}), which {what} cannot "
            "take. Encode them first (e.g. sklearn.preprocessing.OneHotEncoder), or boost a weak learner that takes "
            "them: weak_learner 'stump', 'tree', 'hist_stump' or 'hist_tree'")


def _fit_categories(est, X, column, j: int) -> tuple:
    """The categories of a training column: its ``category`` dtype's, else its sorted distinct
    values; at most MAX_CATEGORIES, each a string or an integer."""
    if str(column.dtype) == "category":
        values = list(column.cat.categories)
    else:  # pandas sorts the distinct values (numbers, or strings) and leaves the missing ones out
        values = list(column.astype("category").cat.categories)
    name = _column_name(est, X, j)
    if len(values) > MAX_CATEGORIES:
        raise ValueError(f"{type(est).__name__}: categorical column {name} has {len(values)} categories, more than "
                         f"the {MAX_CATEGORIES} allowed: merge rare categories, or treat it as numeric")
    out = []
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (str, int, np.integer, float, np.floating)) or \
                (isinstance(v, (float, np.floating)) and v != int(v)):
            raise ValueError(f"{type(est).__name__}: categorical column {name} has the category {v!r:.40} of type "
                             f"{type(v).__name__}: categories must be strings or integers")
        out.append(v if isinstance(v, str) else int(v))
    return tuple(out)


def _codes(column, categories: tuple) -> np.ndarray:
    """Code k for ``categories[k]``, NaN for a missing value and for a category not in ``categories``
    (unknown at predict: the splits' missing-value rule). pandas matches by value (3.0 is 3)."""
    import pandas as pd

    codes = pd.Categorical(column, categories=list(categories)).codes.astype(np.float64)
    codes[codes < 0] = np.nan
    return codes


def _as_frame(X):
    import pandas as pd
    if hasattr(X, "iloc"):
        return X.copy()
    return pd.DataFrame(np.asarray(X, dtype=object) if np.asarray(X).dtype.kind not in "fiu" else np.asarray(X))


def _unframe(frame, X):
    """The encoded frame as X was given: a DataFrame (its column names kept for scikit-learn's
    ``feature_names_in_``; any other column left to scikit-learn's conversion, whose failure names
    it) or an array."""
    if hasattr(X, "iloc"):
        return frame
    return frame.to_numpy(dtype=np.float64)


def _check_missing(est, X, refusal: str | None, fitting: bool) -> None:
    """Refuse NaN in the validated ``X`` where ``refusal`` names what cannot take it; at a fit
    (``fitting``) warn of columns missing in every row."""
    if not (fitting or refusal is not None) or getattr(X, "dtype", None) is None or X.dtype.kind != "f":
        return
    missing = np.isnan(X)
    if not missing.any():
        return
    if refusal is not None:
        raise ValueError(
            f"{type(est).__name__}: X contains NaN (missing values), which {refusal} cannot take. Impute them "
            "first (e.g. sklearn.impute.SimpleImputer in a Pipeline), or boost a weak learner that takes them: "
            "weak_learner 'stump', 'tree', 'hist_stump' or 'hist_tree', or a scikit-learn estimator whose allow_nan "
            "tag says so")
    empty = np.flatnonzero(missing.all(axis=0))
    if fitting and empty.size:
        names = getattr(est, "feature_names_in_", None)
        listed = ", ".join(str(names[j]) if names is not None else str(j) for j in empty[:10])
        warnings.warn(f"{type(est).__name__}: X column(s) {listed}{' ...' if empty.size > 10 else ''} are missing "
                      "(NaN) in every row: no weak learner splits on them", AllMissingColumnWarning, stacklevel=3)


def _non_numeric_columns(X) -> list:
    """``(name, dtype)`` of the columns of a DataFrame ``X`` that do not convert to float64 (none
    for anything that is not a DataFrame)."""
    columns, dtypes = getattr(X, "columns", None), getattr(X, "dtypes", None)
    if columns is None or dtypes is None or not hasattr(X, "iloc"):
        return []
    bad = []
    for i, name in enumerate(columns):
        column = X.iloc[:, i]
        if getattr(column.dtype, "kind", "") in "mM":  # datetimes and timedeltas cast to float as raw ticks
            bad.append((name, column.dtype))
            continue
        try:
            np.asarray(column, dtype=np.float64)
        except (TypeError, ValueError):
            bad.append((name, column.dtype))
    return bad
