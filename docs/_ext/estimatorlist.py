"""``.. registered-estimators:: MODULE``: the API entries of the estimators MODULE defines.

The estimators of the API reference are not listed by hand: they are those of
:data:`marginboost.registry.ESTIMATORS`, which every estimator class of the package joins in
its class statement (``class LPBoostClassifier(..., booster="lpboost")``). The directive emits
an ``autoclass`` of each registered class defined in MODULE, in the order of registration (the
order of the source). The first of them, and each later one whose public methods are not those
of an earlier one, is shown with its members (inherited ones too, but scikit-learn's base
classes'); the others, which add a docstring and defaults only, with their docstring and bases.

A registered estimator that no directive of the build shows is a warning (an error under
``-W``): a new module of estimators needs its section in ``docs/api/estimators.rst``.
"""
from __future__ import annotations

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from marginboost import registry

logger = logging.getLogger(__name__)

MEMBERS = ("   :members:", "   :inherited-members: BaseEstimator, ClassifierMixin, RegressorMixin")


def registered_in(module: str) -> list[type]:
    """The registered estimators defined in ``module``, in the order of registration."""
    return [cls for cls in registry.ESTIMATORS.values() if cls.__module__ == module]


def _routing(name: str) -> bool:
    """scikit-learn's metadata-routing methods, which it makes anew for every class (and which
    conf.py leaves out of the pages)."""
    return (name.startswith("set_") and name.endswith("_request")) or name == "get_metadata_routing"


def _package_members(cls) -> dict:
    """The public members ``cls`` takes from classes of the package (not scikit-learn's):
    name -> the object defining it."""
    out = {}
    for name in dir(cls):
        owner = next((base for base in cls.__mro__ if name in vars(base)), None)
        public = not (name.startswith("_") or _routing(name))
        if public and owner is not None and owner.__module__.startswith("marginboost"):
            out[name] = vars(owner)[name]
    return out


def autoclass_lines(module: str) -> list[str]:
    """The reStructuredText of the entries of ``module``'s registered estimators, each under its
    public name ``marginboost.NAME``."""
    lines, shown = [], []
    for cls in registered_in(module):
        members = _package_members(cls)
        lines.append(f".. autoclass:: marginboost.{cls.__name__}")
        if members not in shown:
            lines.extend(MEMBERS)
            shown.append(members)
        lines.extend(["   :show-inheritance:", ""])
    return lines


class RegisteredEstimators(SphinxDirective):
    """``.. registered-estimators:: MODULE`` (module docstring)."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """The autoclass entries of the module's estimators, parsed in place."""
        module = self.arguments[0]
        classes = registered_in(module)
        if not classes:
            logger.warning(f"registered-estimators: {module} defines no registered estimator",
                           location=self.get_location())
        _documented(self.env).setdefault(self.env.docname, set()).update(cls.__name__ for cls in classes)
        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(autoclass_lines(module), source=module), container)
        return container.children


def _documented(env) -> dict:
    """docname -> the names of the estimators its directives showed (kept in the environment)."""
    if not hasattr(env, "registered_estimators"):
        env.registered_estimators = {}
    return env.registered_estimators


def _purge(app, env, docname):
    _documented(env).pop(docname, None)


def _merge(app, env, docnames, other):
    _documented(env).update({name: shown for name, shown in _documented(other).items() if name in docnames})


def _check(app, env):
    """Warn for every registered estimator that no directive showed."""
    shown = set().union(*_documented(env).values())
    for name in registry.ESTIMATORS:
        if name not in shown:
            logger.warning(f"marginboost.{name} is registered but on no page: add a '.. registered-estimators:: "
                           f"{registry.ESTIMATORS[name].__module__}' section to docs/api/estimators.rst")


def setup(app):
    """Register the directive and the check that every registered estimator is shown."""
    app.add_directive("registered-estimators", RegisteredEstimators)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
