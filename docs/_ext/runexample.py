"""``.. runexample:: examples/NAME.py``: show an example script and the output of running it.

The script runs when the page is read, in the build's own interpreter (``runpy``), in an empty
temporary working directory, with its standard output captured. The page then shows the
script (as ``literalinclude`` would) and what it printed. A script that raises fails the
build: the error is reported at the directive and the build exits with status 1 even
without ``-W``. Warnings the script issues (but deprecation notices, which belong to the libraries
underneath) are reported as build warnings, so ``sphinx-build -W`` fails on them too.

Options: ``:lines:`` (show only these lines of the script, as ``literalinclude``) and
``:no-output:`` (run it, show no output block).
"""
from __future__ import annotations

import contextlib
import io
import os
import runpy
import tempfile
import time
import traceback
import warnings

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

# Warnings from the libraries beneath an example, not about what the example does.
_IGNORED = (DeprecationWarning, PendingDeprecationWarning, FutureWarning, ImportWarning)


def run_script(path: str) -> tuple[str, list[str], str | None, float]:
    """Run ``path`` as ``__main__`` in a fresh temporary directory.

    Returns ``(stdout, warnings, error, seconds)``: ``error`` is the formatted traceback if the
    script raised (SystemExit with code 0 or None counts as success), else None.
    """
    out = io.StringIO()
    error = None
    cwd = os.getcwd()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="runexample-") as tmp, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        os.chdir(tmp)
        try:
            with contextlib.redirect_stdout(out):
                runpy.run_path(path, run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (0, None):
                error = f"SystemExit({exc.code!r})"
        except BaseException:  # noqa: BLE001 -- any failure of the example fails the build
            error = traceback.format_exc()
        finally:
            os.chdir(cwd)
    seconds = time.perf_counter() - start
    issued = [f"{w.category.__name__}: {w.message}" for w in caught if not issubclass(w.category, _IGNORED)]
    return out.getvalue(), issued, error, seconds


class RunExample(SphinxDirective):
    """The ``runexample`` directive (see the module docstring)."""

    required_arguments = 1
    has_content = False
    option_spec = {"lines": directives.unchanged, "no-output": directives.flag}

    def run(self):
        """Run the script and return the nodes of its source and its output."""
        rel, path = self.env.relfn2path(self.arguments[0])
        self.env.note_dependency(rel)
        if not os.path.isfile(path):
            raise self.error(f"runexample: no such file {self.arguments[0]!r}")
        with open(path, encoding="utf-8") as f:
            source = f.read()
        stdout, issued, error, seconds = run_script(path)
        location = self.get_location()
        for message in issued:
            logger.warning("example %s issued %s", self.arguments[0], message, location=location)
        logger.info("example %s ran in %.1f s", self.arguments[0], seconds)
        if error is not None:
            failures = self.env.runexample_failures if hasattr(self.env, "runexample_failures") else {}
            failures.setdefault(self.env.docname, []).append(self.arguments[0])
            self.env.runexample_failures = failures
            logger.error("example %s failed:\n%s", self.arguments[0], error, location=location)

        shown = source
        if "lines" in self.options:
            keep = _line_selection(self.options["lines"], source.count("\n") + 1)
            shown = "".join(line for i, line in enumerate(source.splitlines(True), 1) if i in keep)
        code = nodes.literal_block(shown, shown, language="python")
        code["classes"].append("runexample-source")
        self.set_source_info(code)
        result = [nodes.paragraph("", "", nodes.strong("", f"{os.path.basename(path)}"),
                                  nodes.Text(f" (run while building this page, {seconds:.1f} s)")),
                  code]
        if "no-output" not in self.options:
            text = stdout.rstrip("\n") or "(no output)"
            out = nodes.literal_block(text, text, language="text")
            out["classes"].append("runexample-output")
            result += [nodes.paragraph("", "Output:"), out]
        return result


def _line_selection(spec: str, n: int) -> set[int]:
    """``'1-3,7,10-'`` -> {1, 2, 3, 7, 10, ..., n} (1-based, as ``literalinclude``)."""
    keep: set[int] = set()
    for part in spec.split(","):
        lo, sep, hi = part.strip().partition("-")
        first = int(lo) if lo else 1
        last = (int(hi) if hi else n) if sep else first
        keep.update(range(first, last + 1))
    return keep


def _purge(app, env, docname):
    getattr(env, "runexample_failures", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    failures = getattr(env, "runexample_failures", {})
    failures.update(getattr(other, "runexample_failures", {}))
    env.runexample_failures = failures


def _check(app, exception):
    failures = getattr(app.env, "runexample_failures", {}) if exception is None else {}
    if failures:
        listed = ", ".join(f"{doc}: {', '.join(files)}" for doc, files in sorted(failures.items()))
        logger.error("examples failed (%s): the build fails", listed)
        app.statuscode = 1  # even without -W


def setup(app):
    """Register the directive and the end-of-build check."""
    app.add_directive("runexample", RunExample)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", _check)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
