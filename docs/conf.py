"""Sphinx configuration of the marginboost documentation.

Builds offline: no intersphinx, no remote images or fonts; MathJax is only referenced by the HTML.
The examples under ``docs/examples`` run during the build (sphinx-gallery writes their pages,
figures, scripts and notebooks to ``docs/auto_examples``, which git ignores); a failing example,
or a warning an example issues (``_ext/examplewarnings.py``), fails the build.
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
    "sphinx_gallery.gen_gallery",
    "fieldsections",
    "importlayers",
    "estimatorlist",  # the estimators' entries, from marginboost.registry (_ext/estimatorlist.py)
]

exclude_patterns = ["_build", "examples"]  # the examples are read through the gallery (auto_examples)
templates_path = []
html_static_path = []
html_theme = "pydata_sphinx_theme"
# No icon links, logos, analytics or version switcher: nothing that would be fetched.
html_theme_options = {
    "navigation_with_keys": False,  # the theme warns unless it is set
    "show_toc_level": 2,  # the page's sections in the right-hand column
}
html_title = f"marginboost {release}"

# The gallery: every docs/examples/*.py runs at every build (run_stale_examples: no result
# of an earlier build is reused), on matplotlib's Agg backend, with its printed output (stdout
# and stderr, not the repr of a last expression) and its figures on its page.
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"\.py$",  # run them all, not only plot_*.py
    "run_stale_examples": True,
    "capture_repr": (),
    "abort_on_example_error": False,  # run every example, then fail on the failed ones
    "only_warn_on_example_error": False,
    "write_computation_times": False,  # sg_execution_times.rst would land in the source tree
    "within_subsection_order": "FileNameSortKey",
    # before each example: a warning it issues is an error (it fails the build); after: as before
    "reset_modules": ("examplewarnings.warnings_are_errors", "matplotlib"),
    "reset_modules_order": "both",
}

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
