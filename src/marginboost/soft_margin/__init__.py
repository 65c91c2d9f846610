"""Soft-margin boosting as Frank-Wolfe (paper 000): LPBoost, ERLPBoost, C-ERLPBoost, the generic scheme, MLPBoost."""
