"""A warning an example issues fails the build, as a failing example does.

sphinx-gallery runs each example of ``docs/examples`` in the build's interpreter and shows
what it prints; a warning the example issues only lands in that printed output. This module
is its ``reset_modules`` hook (``conf.py``; ``reset_modules_order = "both"``): before an example
runs it turns warnings into errors, after it it restores the filters of the build. So a warning
stops the example with a traceback on its page, and sphinx-gallery fails the build on it
(``only_warn_on_example_error = False``), with or without ``-W``. An example that expects a
warning says so (``warnings.catch_warnings()``), as ``run_controls.py`` does.

Deprecation notices (``DeprecationWarning``, ``PendingDeprecationWarning``, ``FutureWarning``,
``ImportWarning``) are left alone: they belong to the libraries underneath, not to what the
example does.
"""
from __future__ import annotations

import warnings

IGNORED = (DeprecationWarning, PendingDeprecationWarning, FutureWarning, ImportWarning)

# The filters to restore after the example now running (a catch_warnings context).
_running: list[warnings.catch_warnings] = []


def warnings_are_errors(gallery_conf, fname, when):
    """sphinx-gallery's reset hook: warnings are errors from before the example ``fname`` to after it."""
    if when == "before":
        context = warnings.catch_warnings()
        context.__enter__()
        warnings.simplefilter("error")
        for category in IGNORED:
            warnings.simplefilter("ignore", category)
        _running.append(context)
    else:
        _running.pop().__exit__(None, None, None)
