"""Boosting with an average-margin oracle over NZDDs (paper 003)."""
