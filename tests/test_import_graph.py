"""The package's imports go down its floors, and form no cycle.

Every ``import`` and ``from ... import`` of a package module is an edge to the module it loads:
``from a.b import c`` loads ``a.b.c`` if that is a module, else ``a.b``. Both kinds count: those
that run when a module is imported (module level, class bodies, under ``if``/``try``) and those
inside functions, which run later but tie the modules together all the same.

* Floors (:data:`FLOORS`, lowest first): a module imports from its own floor or below, never
  from above, so each floor can be read, tested and changed without the ones above it.
* No cycle, through any kind of import: a cycle means some module is used half-initialised,
  or works only by the order of imports.
* An import inside a function of the package must say why it is not at the top of its module,
  with the marker ``# lazy: <reason>`` on its (first) line, e.g. ``# lazy: bench only (start-up
  time)`` for a command that alone needs a slow-to-import module. Breaking a cycle is no
  reason: that cycle is still there (above). Imports of other packages are free (an optional
  dependency is imported where it is used).
"""
import ast
from pathlib import Path

import marginboost

PACKAGE = Path(marginboost.__file__).parent
ROOT = "marginboost"
LAZY = "# lazy:"

# Lowest first. A module belongs to the entry naming it or the package holding it (the longest
# such name); the root package itself (``marginboost/__init__.py``, the public API) is named
# exactly and holds no other module.
FLOORS = [
    # imports nothing of the package: the version, and the table of estimators that model
    # files, the command line and the docs read (filled by the estimators as they are defined)
    ("marginboost._version", "marginboost.registry"),
    # the round driver, projections, kernels, interrupts, threads
    ("marginboost.core",),
    # the oracles: stumps, trees, histograms, adapters
    ("marginboost.weak_learners",),
    # the soft-margin objectives and solvers, which other families reuse
    ("marginboost.soft_margin",),
    # the other algorithm families
    ("marginboost.totally_corrective", "marginboost.classic", "marginboost.average_margin", "marginboost.mirror",
     "marginboost.functional"),
    # data sets and the model-file format: codecs of hypotheses and fitted fields, the file's
    # envelope, ModelFileMixin; it knows estimators only through the registry and the mixin
    ("marginboost.io",),
    # the scikit-learn front ends: they declare their model files with io's fields
    ("marginboost.estimators",),
    # reading a fitted model: describe() and the plots of margins and importances
    ("marginboost.inspection",),
    # fits on a Dask cluster (optional: ``import marginboost`` does not load it): the in-memory
    # estimators and loops with per-example vectors on the workers
    ("marginboost.dask",),
    # the public API: ``import marginboost``
    (ROOT,),
    # the papers' experiments, run on the public API
    ("marginboost.experiments",),
    # the command line
    ("marginboost.cli", "marginboost.__main__"),
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _nodes(tree):
    """Every node of ``tree`` with whether it lies inside a function (or lambda)."""
    stack = [(node, False) for node in tree.body]
    while stack:
        node, in_function = stack.pop()
        yield node, in_function
        inside = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        stack.extend((child, inside) for child in ast.iter_child_nodes(node))


def imports(name: str, source: str, modules) -> list[tuple[str, int, bool, bool]]:
    """``(target, line, in_function, lazy)`` for each import of a module of ``modules`` in the
    module ``name`` whose text is ``source``, in the order of the lines; ``lazy``: its line
    carries the ``# lazy:`` marker."""
    is_pkg = modules.get(name, Path()).name == "__init__.py"
    lines = source.splitlines()
    out = []
    nodes = sorted(_nodes(ast.parse(source)), key=lambda item: getattr(item[0], "lineno", 0))
    for node, in_function in nodes:
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                source_module = ".".join(base + ([node.module] if node.module else []))
            else:
                source_module = node.module
            targets = [f"{source_module}.{a.name}" if f"{source_module}.{a.name}" in modules else source_module
                       for a in node.names]
        else:
            continue
        lazy = LAZY in lines[node.lineno - 1]
        out.extend((t, node.lineno, in_function, lazy) for t in dict.fromkeys(targets) if t in modules and t != name)
    return out


def all_imports() -> dict[str, list[tuple[str, int, bool, bool]]]:
    modules = _modules()
    return {name: imports(name, path.read_text(), modules) for name, path in modules.items()}


def import_graph(kinds=(False, True)) -> dict[str, set[str]]:
    """Module -> the modules it imports; ``kinds``: module-level (False) and/or in functions (True)."""
    return {name: {t for t, _, in_function, _ in found if in_function in kinds}
            for name, found in all_imports().items()}


def floor_of(module: str, floors=FLOORS) -> int | None:
    """The index in ``floors`` of the entry ``module`` belongs to (the longest name that is it or
    a package holding it; the root only as itself), or None."""
    best, best_len = None, -1
    for i, names in enumerate(floors):
        for entry in names:
            if (module == entry or (entry != ROOT and module.startswith(entry + "."))) and len(entry) > best_len:
                best, best_len = i, len(entry)
    return best


def upward_imports(found: dict, floors=FLOORS) -> list[str]:
    """Each import of ``found`` (as :func:`all_imports` gives) from a lower floor to a higher one."""
    return [f"{name}:{line} imports {target} (floor {floor_of(name, floors)} < {floor_of(target, floors)})"
            for name, edges in sorted(found.items()) for target, line, _, _ in edges
            if floor_of(target, floors) > floor_of(name, floors)]


def find_cycle(graph):
    """One cycle of ``graph`` as a list of nodes, or None (iterative depth-first search)."""
    state = {}
    for root in sorted(graph):
        if root in state:
            continue
        path, stack = [], [(root, iter(sorted(graph[root])))]
        state[root] = "open"
        path.append(root)
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = "done"
                stack.pop()
                path.pop()
            elif state.get(child) == "open":
                return path[path.index(child):] + [child]
            elif child not in state:
                state[child] = "open"
                path.append(child)
                stack.append((child, iter(sorted(graph[child]))))
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_checks_see_imports_inside_functions_and_upward_ones():
    modules = {"marginboost": Path("__init__.py"), "marginboost.core.a": Path("a.py"),
               "marginboost.estimators.b": Path("b.py")}
    source = ("from marginboost.estimators import b\n"
              "def f():\n"
              "    from marginboost.estimators import b  # lazy: a reason\n"
              "    import marginboost\n")
    found = {"marginboost.core.a": imports("marginboost.core.a", source, modules)}
    assert found["marginboost.core.a"] == [("marginboost.estimators.b", 1, False, False),
                                           ("marginboost.estimators.b", 3, True, True),
                                           ("marginboost", 4, True, False)]
    assert [line.split(" imports ")[0] for line in upward_imports(found)] == [
        "marginboost.core.a:1", "marginboost.core.a:3", "marginboost.core.a:4"]
    assert floor_of("marginboost.weak_learners.trees") == floor_of("marginboost.weak_learners")
    assert floor_of("marginboost.unknown") is None  # the root holds no module but itself


def test_the_graph_sees_the_estimators():
    graph = import_graph()
    assert "marginboost.estimators.soft_margin" in graph["marginboost"]
    assert "marginboost.experiments.worst_case" in import_graph(kinds=(True,))["marginboost.cli"]


def test_every_module_has_a_floor():
    lost = [name for name in _modules() if floor_of(name) is None]
    assert not lost, f"modules on no floor of FLOORS (add their package): {lost}"


def test_no_import_from_a_lower_floor_to_a_higher_one():
    upward = upward_imports(all_imports())
    assert not upward, "imports against the floors (FLOORS):\n" + "\n".join(upward)


def test_every_import_in_a_function_says_why():
    unexplained = [f"{name}:{line} imports {target}" for name, found in sorted(all_imports().items())
                   for target, line, in_function, lazy in found if in_function and not lazy]
    assert not unexplained, (f"imports inside functions without a '{LAZY} <reason>' comment (move them to the "
                             "top of the module, or say why not):\n" + "\n".join(unexplained))


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)
