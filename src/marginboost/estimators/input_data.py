"""``validate_data`` as every estimator calls it: scikit-learn's, with errors that name the column.

scikit-learn converts a pandas DataFrame to one float array; a text, category or datetime
column then fails inside numpy ("could not convert string to float: 'x'", a ``DTypePromotionError``
for datetimes) without saying which column it was. Here, when the conversion of a DataFrame
fails, each column is converted alone, and the ``ValueError`` names those that cannot be, their
dtype and how to encode them (issue 33). Every other input, and every other error, is
scikit-learn's unchanged.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data as _sklearn_validate_data

__all__ = ["validate_data"]


def validate_data(est, X="no_validation", y="no_validation", **kwargs):
    """:func:`sklearn.utils.validation.validate_data`, with a ``ValueError`` naming the columns of a
    DataFrame ``X`` that are not numbers when the conversion fails."""
    try:
        return _sklearn_validate_data(est, X, y, **kwargs)
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
