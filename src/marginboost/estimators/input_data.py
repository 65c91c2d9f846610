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
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.validation import validate_data as _sklearn_validate_data

__all__ = ["AllMissingColumnWarning", "validate_data"]


class AllMissingColumnWarning(UserWarning):
    """Columns of X are missing (NaN) in every training row: the weak learners never split on them."""


def validate_data(est, X="no_validation", y="no_validation", **kwargs):
    """:func:`sklearn.utils.validation.validate_data`, with a ``ValueError`` naming the columns of a
    DataFrame ``X`` that are not numbers when the conversion fails, and NaN in X allowed where
    ``est`` takes it (module docstring)."""
    checks_X = not (isinstance(X, str) and X == "no_validation")
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
    return out


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
