"""Totally corrective boosting by relative-entropy projections: TotalBoost, SoftBoost."""
