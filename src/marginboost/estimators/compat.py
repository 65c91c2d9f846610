"""Every scikit-learn name the estimators use that is not in scikit-learn's public API.

scikit-learn keeps its parameter-constraint types, ``available_if`` and
``_check_sample_weight`` in private modules that may move between releases; the estimators
import them from here only, so a move is mended in one place.
"""
from __future__ import annotations

from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import HasMethods, Hidden, Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight as check_sample_weight

__all__ = ["HasMethods", "Hidden", "Interval", "StrOptions", "available_if", "check_sample_weight"]
