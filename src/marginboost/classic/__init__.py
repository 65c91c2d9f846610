"""Margin boosters the papers compare against: AdaBoost*_nu (AdaBoostV), SmoothBoost, GraphSepBoost."""
