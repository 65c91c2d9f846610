"""scikit-learn estimators of every family, and what they share."""
