"""The package version, in a module of its own: model files record it, and marginboost/__init__ imports what records it."""
__version__ = "0.1.0"
