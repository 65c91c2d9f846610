"""A fit that raises leaves its estimator unfitted.

Bad input, a :class:`marginboost.soft_margin.restricted_lp.SolverError` or Ctrl-C before the first round can stop a
``fit`` after some fitted attributes were set (``n_features_in_`` by ``validate_data``,
``classes_``), or while an earlier fit's model is still there; either would pass
``check_is_fitted`` and mix with the new fit. :func:`unfitted_on_failure` deletes every fitted
attribute before the exception propagates.
"""
from __future__ import annotations

import functools

__all__ = ["forget_fit", "unfitted_on_failure"]


def forget_fit(est) -> None:
    """Delete every fitted attribute (public, ending in ``_``) of ``est``, and the loop a warm start
    would continue: an estimator left unfitted has no fit to continue (a continuation would lack
    what only a fit's start sets, and would go on from a fit that is no longer its model)."""
    for name in [n for n in vars(est) if n.endswith("_") and not n.startswith("_")]:
        delattr(est, name)
    est.__dict__.pop("_fit_result", None)


def unfitted_on_failure(fit):
    """Decorate ``fit(self, ...)``: if it raises anything, ``self`` is left with no fitted attribute."""

    @functools.wraps(fit)
    def fit_or_forget(self, *args, **kwargs):
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            forget_fit(self)
            raise

    return fit_or_forget
