"""One BLAS thread inside every boosting loop.

The loops' BLAS calls are small (dot products and products with ``t << m`` columns). With
more than one thread, OpenBLAS splits a dot product of more than about 10^4 entries across
threads, and the partial sums round differently: the same seed then gives a model that
differs in the last bits between machines (measured at m = 20000 for AdaBoostV, MABoost and
FWBoost). On a loaded 2-core machine two threads also made MLPBoost's Newton rule 4.5x
slower (ringnorm: 11.8 s against 2.6 s). The decorator restores the caller's limits on exit.
"""
from __future__ import annotations

from threadpoolctl import threadpool_limits

__all__ = ["single_blas_thread"]

single_blas_thread = threadpool_limits.wrap(limits=1, user_api="blas")
