"""Sphinx configuration of the marginboost documentation.

Builds offline: no intersphinx, no remote images; MathJax is only referenced by the HTML.
The examples under ``docs/examples`` run during the build (``_ext/runexample.py``); a failing
example fails the build.
"""
import importlib.util
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_ext"))

import marginboost  # noqa: E402  (installed: the API reference documents the installed package)

project = "marginboost"
author = "the marginboost developers"
copyright = "the marginboost developers, BSD-3-Clause"
version = release = marginboost.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "fieldsections",
    "runexample",
    "estimatorlist",  # the estimators' entries, from marginboost.registry (_ext/estimatorlist.py)
]

exclude_patterns = ["_build"]
templates_path = []
html_static_path = []
html_theme = "alabaster"
html_theme_options = {"description": "Boosting as convex optimisation", "fixed_sidebar": True,
                      "page_width": "1180px"}  # room for 100-character code lines
html_title = f"marginboost {release}"

# Docstrings: numpy style ("Parameters\n----------"), plain double-backtick formulas.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_custom_sections = [
    ("Common parameters", "params_style"),
    "Fitted attributes",  # prose: "classes_, hypotheses_, coef_ (...), ..." (_ext/fieldsections.py)
]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# An object documented once (at its public location); the class signature shows __init__'s.
autoclass_content = "class"
autodoc_class_signature = "mixed"

# weak_learners.dask_histogram imports dask at the top: documented from a mock without the
# "dask" extra (its annotations are strings, so nothing else touches the mock).
autodoc_mock_imports = [] if importlib.util.find_spec("dask") else ["dask"]

default_role = "code"  # `x` in a docstring renders as code, not as a (failing) reference


def _skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated metadata-routing methods (``set_fit_request``, ``get_metadata_routing``...)."""
    if (name.startswith("set_") and name.endswith("_request")) or name == "get_metadata_routing":
        return True
    return None


def setup(app):
    """Connect the member filter."""
    app.connect("autodoc-skip-member", _skip_member)
