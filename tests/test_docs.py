"""The documentation site (docs/) builds cleanly and every public symbol has a docstring.

1. ``sphinx-build -W --keep-going -b html`` of a copy of docs/ in a temporary folder (the
   gallery writes its pages beside the sources; the copy keeps the checkout clean and starts
   from nothing): a warning (a broken docstring, a duplicate object, a missing page) or a
   failing or warning example under docs/examples (sphinx-gallery runs them during the build)
   fails the test; the key pages, the API entries of every name of ``marginboost.__all__``,
   a gallery page per example with its output, figures and downloads, and the architecture
   picture with every subpackage must be there.
2. Every public symbol has a docstring: the modules of the package, the public names of
   each (its ``__all__``, or else the classes and functions it defines), and the public
   methods and properties of every public class (an override inherits its base's docstring,
   as ``inspect.getdoc`` and autodoc read it).

Sphinx comes with the ``test`` extra (and the ``docs`` extra); without it test 1 fails with
the command that installs it rather than skipping, so that CI cannot pass without building
the documentation.
"""
from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import pkgutil
import re
import shutil
import subprocess
import warnings
import sys
from pathlib import Path

import pytest

import marginboost

DOCS = Path(__file__).resolve().parents[1] / "docs"

KEY_PAGES = [
    "index.html",
    "getting_started.html",
    "architecture.html",
    "auto_examples/index.html",
    "notation.html",
    "user_guide.html",
    "references.html",
    "algorithms/soft_margin.html",
    "algorithms/fwboost.html",
    "algorithms/maboost.html",
    "algorithms/average_margin.html",
    "algorithms/classic.html",
    "algorithms/gbm.html",
    "extending/weak_learner.html",
    "extending/fw_rule.html",
    "extending/secondary_rule.html",
    "extending/estimator.html",
    "api/index.html",
    "api/estimators.html",
    "api/loop.html",
    "api/weak_learners.html",
    "api/io.html",
]

# Modules that need an optional dependency (an extra) to import.
OPTIONAL = {"marginboost.weak_learners.dask_histogram": "dask"}


# Examples that must draw, and how many figures each (the gallery names them
# sphx_glr_<example>_001.png, ...): the gap per round, the soft margin against time and the
# nonzero weights per round; the worst case's rounds against m; the weights of a first fit; a
# readable model's importances and margin distributions.
FIGURES = {"soft_margin": 3, "worst_case": 1, "first_fit": 1, "readable_model": 2, "tabular_data": 1}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Build the site once for this module, from a copy of docs/ without any earlier build's
    output; return (returncode, output, html folder, files beside the examples before and after)."""
    missing = [m for m in ("sphinx", "sphinx_gallery", "pydata_sphinx_theme", "matplotlib")
               if importlib.util.find_spec(m) is None]
    if missing:
        pytest.fail(f'{missing} not installed: python -m pip install -e ".[docs]" (the test extra has them too)')
    out = tmp_path_factory.mktemp("docs")
    source, html = out / "source", out / "html"
    shutil.copytree(DOCS, source, ignore=shutil.ignore_patterns("_build", "auto_examples", "sg_execution_times.rst"))
    before = sorted(p.name for p in (source / "examples").iterdir())
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q",
           "-d", str(out / "doctrees"), str(source), str(html)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    after = sorted(p.name for p in (source / "examples").iterdir())
    return proc.returncode, proc.stdout + proc.stderr, html, (before, after)


def test_site_builds_without_warnings(site):
    returncode, output, html, _ = site
    assert returncode == 0, f"sphinx-build -W failed:\n{output}"
    missing = [page for page in KEY_PAGES if not (html / page).is_file()]
    assert not missing, f"pages not built: {missing}"


def test_api_reference_documents_all_exports(site):
    returncode, output, html, _ = site
    assert returncode == 0, output
    api = "".join(p.read_text(encoding="utf-8") for p in (html / "api").glob("*.html"))
    undocumented = [name for name in marginboost.__all__
                    if not name.startswith("__") and f'id="marginboost.{name}"' not in api]
    assert not undocumented, f"names of marginboost.__all__ missing from the API reference: {undocumented}"


def test_every_example_has_a_gallery_page_with_its_output(site):
    """A page per docs/examples/*.py with what the run printed, its figures, and the script and
    notebook to download; the gallery's index lists them all."""
    returncode, output, html, _ = site
    assert returncode == 0, output
    examples = sorted(p.stem for p in (DOCS / "examples").glob("*.py"))
    index = (html / "auto_examples" / "index.html").read_text(encoding="utf-8")
    for name in examples:
        page = (html / "auto_examples" / f"{name}.html").read_text(encoding="utf-8")
        assert 'class="sphx-glr-script-out' in page, f"{name}: no printed output on its page"
        for suffix in (".py", ".ipynb"):
            links = re.findall(rf'href="\.\./(_downloads/\w+/{name}{re.escape(suffix)})"', page)
            assert links and (html / links[0]).is_file(), f"{name}: no {suffix} to download"
        figures = FIGURES.get(name, 0)
        for k in range(1, figures + 1):
            image = f"sphx_glr_{name}_{k:03d}.png"
            assert image in page and (html / "_images" / image).is_file(), f"{name}: figure {k} missing"
        assert f"sphx_glr_{name}_{figures + 1:03d}.png" not in page, f"{name}: more figures than FIGURES says"
        assert f'href="{name}.html' in index, f"{name} is not in the gallery's index"
    # what the run printed, not the source: the source has "status: {clf.status_}"
    first_fit = (html / "auto_examples" / "first_fit.html").read_text(encoding="utf-8")
    assert re.search(r"status: converged after \d+ weak-learner calls", first_fit)


def test_examples_write_nothing_beside_themselves(site):
    """The gallery runs an example in its own folder: files it writes belong in a temporary one."""
    returncode, output, html, (before, after) = site
    assert returncode == 0, output
    assert after == before, f"written into docs/examples: {sorted(set(after) - set(before))}"


def test_pages_show_their_examples(site):
    """A page that shows an example's code links to its gallery page (output and figures)."""
    returncode, output, html, _ = site
    assert returncode == 0, output
    for rst in DOCS.rglob("*.rst"):
        for name in re.findall(r"^\.\. literalinclude:: /examples/(\w+)\.py", rst.read_text(encoding="utf-8"), re.M):
            page = html / rst.relative_to(DOCS).with_suffix(".html")
            assert re.search(rf'href="[./]*auto_examples/{name}\.html', page.read_text(encoding="utf-8")), \
                f"{page.name} shows {name}.py without a link to its gallery page"


def test_architecture_page_draws_every_subpackage(site):
    returncode, output, html, _ = site
    assert returncode == 0, output
    page = (html / "architecture.html").read_text(encoding="utf-8")
    svg = re.search(r'<svg[^>]*class="import-layers".*?</svg>', page, re.S)
    assert svg, "no import-layers picture on the architecture page"
    package = Path(marginboost.__file__).parent
    groups = ({p.parent.name for p in package.glob("*/__init__.py")}
              | {p.stem for p in package.glob("*.py") if p.stem != "__init__"} | {"marginboost (__init__)"})
    drawn = set(re.findall(r"<text[^>]*>([^<]+)</text>", svg.group(0)))
    assert drawn == groups, f"missing {sorted(groups - drawn)}, unknown {sorted(drawn - groups)}"
    assert "Floor 0. " in page


def _extension(name: str):
    """A module of docs/_ext, loaded from its file (docs/ is no package)."""
    spec = importlib.util.spec_from_file_location(name, DOCS / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_import_layers_floors_from_the_graph():
    """Floors are longest paths down; of a circle, the arrow of fewest imports is the exception."""
    importlayers = _extension("importlayers")
    weights = {("a", "b"): 3, ("b", "a"): 1, ("b", "c"): 1, ("a", "c"): 2, ("d", "c"): 1}
    floor, upward = importlayers.floors({"a", "b", "c", "d"}, weights)
    assert floor == {"c": 0, "d": 1, "b": 1, "a": 2}
    assert upward == {("b", "a")}
    assert importlayers.floors({"x", "y"}, {}) == ({"x": 0, "y": 0}, set())


def test_import_layers_reads_function_level_and_relative_imports(tmp_path):
    importlayers = _extension("importlayers")
    pkg = tmp_path / "pkg"
    for folder in ("low", "high"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("from pkg.high import top\n")
    (pkg / "low" / "base.py").write_text("def f():\n    from ..high import top\n")
    (pkg / "high" / "top.py").write_text("from pkg.low import base\n")
    (pkg / "high" / "_kernel.pyx").write_text("from pkg.low.base cimport thing\n")
    groups, edges = importlayers.group_graph(pkg)
    assert groups == {"pkg", "low", "high"}
    assert edges[("low", "high")] == {"pairs": {("pkg.low.base", "pkg.high.top")}, "in_function": True}
    assert edges[("high", "low")] == {"pairs": {("pkg.high.top", "pkg.low.base"), ("pkg.high._kernel", "pkg.low.base")},
                                      "in_function": False}
    assert set(edges) == {("low", "high"), ("high", "low"), ("pkg", "high")}
    floor, upward = importlayers.floors(groups, {e: len(v["pairs"]) for e, v in edges.items()})
    assert floor == {"low": 0, "high": 1, "pkg": 2} and upward == {("low", "high")}
    svg = importlayers.render_svg(floor, edges, upward, {g: g for g in groups})
    assert svg.count('class="upward"') == 1 and svg.count('class="downward"') == 2
    assert svg.count("stroke-dasharray") == 1  # low imports high only inside a function


def test_example_warnings_are_errors_while_an_example_runs():
    """docs/_ext/examplewarnings.py: between 'before' and 'after' a warning raises (but a
    deprecation notice); after, the build's filters are back."""
    examplewarnings = _extension("examplewarnings")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        examplewarnings.warnings_are_errors({}, "example.py", when="before")
        try:
            with pytest.raises(UserWarning):
                warnings.warn("from the example", UserWarning)
            warnings.warn("from a library", DeprecationWarning)
        finally:
            examplewarnings.warnings_are_errors({}, "example.py", when="after")
        warnings.warn("after the example", UserWarning)  # ignored again, as the filter says


def test_field_sections_read_as_written():
    """docs/_ext/fieldsections.py: one-line descriptions, free paragraphs, prose attributes."""
    fieldsections = _extension("fieldsections")
    doc = ["Summary.", "", "Parameters", "----------", "nu : int or float, default=0.1",
           "    Capping parameter.", "eps : the accuracy.", "", "Ctrl-C keeps the model.", "",
           "Attributes", "----------", "classes_, coef_ (the weights), n_iter_", ""]
    assert fieldsections.rewrite(doc) == [
        "Summary.", "", "Parameters", "----------", "nu : int or float, default=0.1",
        "    Capping parameter.", "eps", "    the accuracy.", "", "Notes", "-----",
        "Ctrl-C keeps the model.", "", "Fitted attributes", "-----------------",
        "``classes_``, ``coef_`` (the weights), ``n_iter_``", ""]


def public_modules():
    """The package and its submodules whose dotted path has no component starting with '_'."""
    modules = [marginboost]
    for info in pkgutil.walk_packages(marginboost.__path__, "marginboost."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        needs = OPTIONAL.get(info.name)
        if needs is not None and importlib.util.find_spec(needs) is None:
            continue
        modules.append(importlib.import_module(info.name))
    return modules


def public_names(module):
    """``__all__``, or else the classes and functions the module defines, without a leading '_'."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name, obj in vars(module).items()
                 if (inspect.isclass(obj) or inspect.isfunction(obj))
                 and getattr(obj, "__module__", None) == module.__name__]
    return [name for name in names if not name.startswith("_")]


def _has_doc(obj) -> bool:
    return bool((inspect.getdoc(obj) or "").strip())


def _class_doc(cls) -> bool:
    """A docstring of the class itself: not its base's (which ``inspect.getdoc`` would lend),
    nor the signature a dataclass writes when it has none."""
    doc = (cls.__doc__ or "").strip()
    if dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}("):
        return False
    return bool(doc)


def undocumented_symbols() -> list[str]:
    """Every public symbol without a docstring, by qualified name."""
    missing: set[str] = set()
    classes: dict[str, type] = {}
    for module in public_modules():
        if not (module.__doc__ or "").strip():
            missing.add(f"{module.__name__} (module)")
        for name in public_names(module):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue  # constants: documented in their module's docstring
            qualname = f"{obj.__module__}.{obj.__qualname__}"
            if not (_class_doc(obj) if inspect.isclass(obj) else _has_doc(obj)):
                missing.add(qualname)
            if inspect.isclass(obj):
                classes[qualname] = obj
    for cls in classes.values():
        for name in dir(cls):
            if name.startswith("_"):
                continue
            owner = next(base for base in cls.__mro__ if name in vars(base))
            if not owner.__module__.startswith("marginboost"):
                continue  # scikit-learn's, documented there
            raw = vars(owner)[name]
            if isinstance(raw, (staticmethod, classmethod)):
                raw = raw.__func__
            if isinstance(raw, property):
                documented = bool((raw.__doc__ or "").strip())
            elif inspect.isfunction(raw):
                documented = _has_doc(getattr(cls, name))
            else:
                continue  # attributes and constants
            if not documented:
                missing.add(f"{owner.__module__}.{owner.__qualname__}.{name}")
    return sorted(missing)


def test_every_public_symbol_has_a_docstring():
    missing = undocumented_symbols()
    assert not missing, f"{len(missing)} public symbols without a docstring:\n" + "\n".join(missing)


def test_docstring_check_finds_a_missing_docstring(monkeypatch):
    """The check is not vacuous: a public function without a docstring is reported."""
    def no_doc():
        pass

    no_doc.__module__ = "marginboost.soft_margin.objectives"
    no_doc.__qualname__ = "no_doc"
    monkeypatch.setattr(importlib.import_module("marginboost.soft_margin.objectives"), "no_doc", no_doc, raising=False)
    assert "marginboost.soft_margin.objectives.no_doc" in undocumented_symbols()
