"""The engine every boosting loop shares: the round driver, interrupts, BLAS pinning, projections, line search."""
