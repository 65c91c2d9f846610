"""Parameters that several families of estimators read the same way.

``nu``, the capping parameter of the soft margin (``1 <= nu <= m``: the soft margin is the mean
of the ``nu`` smallest training margins; docs/notation.rst), is given as a count or a
fraction: an ``int`` is a count of examples, a ``float`` in (0, 1] a fraction of ``m`` (raised
to 1 if smaller: nu = 1 is the hard margin), a ``float`` > 1 a (possibly fractional) count. So
``nu=1`` is the hard margin and ``nu=1.0`` is ``nu = m``. The soft-margin boosters (LPBoost,
ERLPBoost, C-ERLPBoost, MLPBoost), SoftBoost and AverageMarginBoost take it so.
"""
from __future__ import annotations

import numbers

__all__ = ["resolve_nu"]


def resolve_nu(nu, m: int, rows: str = "") -> float:
    """Turn the ``nu`` parameter (count or fraction, see module doc) into a count in [1, m].
    ``rows``: where ``m`` comes from, said in the error when it is not the rows given to fit
    (:meth:`marginboost.estimators.base.BoostingEstimator._training_rows`)."""
    if isinstance(nu, numbers.Integral):
        value = float(nu)
    elif nu <= 1.0:
        value = max(float(nu) * m, 1.0)
    else:
        value = float(nu)
    if not 1.0 <= value <= m:
        raise ValueError(
            f"nu must be a count in [1, m] = [1, {m}] or a fraction in (0, 1]; got nu={nu!r}{rows}"
        )
    return value
