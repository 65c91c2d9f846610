"""Boosting over a function space with general losses: FWBoost (paper 001), BLasso, gradient boosting."""
