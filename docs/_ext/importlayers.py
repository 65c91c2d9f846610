"""``.. import-layers:: PACKAGE``: the package's layers, drawn from its imports at build time.

The directive reads every module of the installed ``PACKAGE`` (so the picture cannot drift from
the code), groups the modules by subpackage (a top-level module is a group of its own; the
package's ``__init__`` is the group ``PACKAGE``) and draws one box per group and one arrow per
pair of groups with an import between them, as inline SVG: no graphviz, nothing fetched.

Imports read:

* ``.py`` files by ``ast``, as ``tests/test_import_graph.py`` does (``from a.b import c`` loads
  ``a.b.c`` if that is a module, else ``a.b``), at module level *and inside functions*; an
  arrow whose imports all sit inside functions is dashed;
* ``.pyx``/``.pxd`` files (the compiled kernels) by a regular expression over their absolute
  ``import``/``cimport`` lines, all taken as module level.

Floors come from the graph: a group that imports no other is on floor 0, any other one floor
above the highest group it imports (the longest path down). Where imports go round in a
circle, the arrow carried by the fewest module-to-module imports is taken as the exception
and left out of the floors; such an arrow, which goes up or sideways, is drawn red and listed
under the picture.

The directive's content is a definition list: a term per group (in double backquotes), its
description below. The page shows one paragraph per floor, bottom up, made of the
descriptions of that floor's groups; a group without a description, or a description of no
group, is a build warning (so ``sphinx-build -W`` fails).
"""
from __future__ import annotations

import ast
import importlib
import re
from collections import defaultdict
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+c?import\b|c?import\s+([\w.]+))", re.MULTILINE)


def package_modules(package_dir: Path) -> dict[str, list[Path]]:
    """Dotted module name -> its source files (``.py``, or ``.pyx`` and ``.pxd``)."""
    modules: dict[str, list[Path]] = defaultdict(list)
    for path in sorted(package_dir.rglob("*")):
        if path.suffix in (".py", ".pyx", ".pxd"):
            parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)].append(path)
    return dict(modules)


def file_imports(name: str, path: Path, modules) -> list[tuple[str, bool]]:
    """The modules of ``modules`` that the file ``path`` of module ``name`` imports, each with
    whether the import sits inside a function."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        found = (m.group(1) or m.group(2) for m in _CYTHON_IMPORT.finditer(text))
        return [(target, False) for target in found if target in modules]
    tree = ast.parse(text, filename=str(path))
    in_function = {id(inner) for node in ast.walk(tree)
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                   for inner in ast.walk(node) if inner is not node}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = node.module
            if node.level:
                base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
        else:
            continue
        out += [(target, id(node) in in_function) for target in targets if target in modules]
    return out


def group_of(module: str) -> str:
    """``pkg.sub.mod`` -> ``sub``; a top-level module ``pkg.mod`` -> ``mod``; ``pkg`` -> ``pkg``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def group_graph(package_dir: Path) -> tuple[set[str], dict[tuple[str, str], dict]]:
    """The groups, and per pair of groups with an import between them: ``pairs`` (the
    module-to-module imports) and ``in_function`` (whether all of them sit inside functions)."""
    modules = package_modules(package_dir)
    edges: dict[tuple[str, str], dict] = {}
    for name, paths in modules.items():
        for path in paths:
            for target, inside in file_imports(name, path, modules):
                key = (group_of(name), group_of(target))
                if key[0] != key[1]:
                    edge = edges.setdefault(key, {"pairs": set(), "in_function": True})
                    edge["pairs"].add((name, target))
                    edge["in_function"] &= inside
    return {group_of(name) for name in modules}, edges


def _reaches(edges, start: str, goal: str) -> bool:
    seen, stack = {start}, [start]
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        for a, b in edges:
            if a == node and b not in seen:
                seen.add(b)
                stack.append(b)
    return False


def floors(groups, weights: dict[tuple[str, str], int]) -> tuple[dict[str, int], set[tuple[str, str]]]:
    """Each group's floor (the longest import path down from it), and the arrows left out to
    break circles: while any arrow lies on a circle, the lightest such one (fewest imports;
    ties by name) goes."""
    kept = set(weights)
    while True:
        circular = [e for e in kept if _reaches(kept, e[1], e[0])]
        if not circular:
            break
        kept.remove(min(circular, key=lambda e: (weights[e], e)))
    floor: dict[str, int] = {}

    def height(group: str) -> int:
        if group not in floor:
            floor[group] = 1 + max((height(b) for a, b in kept if a == group), default=-1)
        return floor[group]

    for group in groups:
        height(group)
    return floor, set(weights) - kept


def _rows(floor: dict[str, int], edges) -> tuple[list[list], dict]:
    """The rows of the picture, floor 0 first, and each arrow's chain of nodes.

    An arrow that skips floors gets a waypoint in every row it crosses, so that it passes
    between the boxes, not behind them. Each row is ordered by the mean position of what it
    is linked to in the row below, then in the row above (two sweeps each way): fewer crossings
    than alphabetical order, and as stable.
    """
    rows = [sorted(g for g in floor if floor[g] == k) for k in range(max(floor.values()) + 1)]
    chains = {}
    for a, b in sorted(edges):
        step = -1 if floor[a] > floor[b] else 1
        via = [("via", a, b, k) for k in range(floor[a] + step, floor[b], step)]
        for node in via:
            rows[node[3]].append(node)
        chains[(a, b)] = [a, *via, b]
    links = [pair for chain in chains.values() for pair in zip(chain, chain[1:])]
    for _ in range(2):
        for order in (range(1, len(rows)), range(len(rows) - 2, -1, -1)):
            for k in order:
                near = rows[k - 1] if order.step == 1 else rows[k + 1]
                pos = {node: i / max(len(near) - 1, 1) for i, node in enumerate(near)}
                current = {node: i / max(len(rows[k]) - 1, 1) for i, node in enumerate(rows[k])}

                def barycentre(node):
                    xs = [pos[q] for p, q in links if p == node and q in pos] + \
                         [pos[p] for p, q in links if q == node and p in pos]
                    return sum(xs) / len(xs) if xs else current[node]
                rows[k].sort(key=barycentre)
    return rows, chains


def render_svg(floor: dict[str, int], edges: dict[tuple[str, str], dict], upward: set, label: dict) -> str:
    """The picture: a row of boxes per floor (floor 0 at the bottom), an arrow per import edge
    (grey; dashed where only functions import; red where it goes up or sideways)."""
    char_w, box_h, pad, gap, row_gap, margin, spacing = 8.0, 30.0, 12.0, 14.0, 56.0, 16.0, 7.0
    rows, chains = _rows(floor, edges)
    # which arrows end on each side of each box, and the node next to the box on the way
    sides: dict[tuple[str, str], list] = defaultdict(list)
    for edge, chain in chains.items():
        a, b = edge
        sides[(a, "bottom" if floor[a] > floor[b] else "top")].append((edge, chain[1]))
        sides[(b, "top" if floor[a] >= floor[b] else "bottom")].append((edge, chain[-2]))
    width = {}
    for row in rows:
        for node in row:
            if isinstance(node, tuple):
                width[node] = 2.0
            else:
                crowd = max(len(sides[(node, "top")]), len(sides[(node, "bottom")]))
                width[node] = max(len(label[node]) * char_w + 2 * pad, (crowd + 1) * spacing)

    def space(left, right):  # waypoints side by side sit closer than boxes
        return gap / 3 if isinstance(left, tuple) and isinstance(right, tuple) else gap

    row_w = [sum(width[n] for n in row) + sum(space(p, q) for p, q in zip(row, row[1:])) for row in rows]
    canvas_w, canvas_h = max(row_w) + 2 * margin, len(rows) * box_h + (len(rows) - 1) * row_gap + 2 * margin
    x0, y0 = {}, {}
    for k, row in enumerate(rows):
        x = (canvas_w - row_w[k]) / 2
        for node, right in zip(row, row[1:] + [None]):
            x0[node], y0[node] = x, margin + (len(rows) - 1 - k) * (box_h + row_gap)
            x += width[node] + space(node, right)

    def centre(node):
        return x0[node] + width[node] / 2

    anchor = {}
    for (g, side), items in sides.items():
        items.sort(key=lambda item: (centre(item[1]), str(item[1])))
        y = y0[g] + (box_h if side == "bottom" else 0)
        for i, (edge, _) in enumerate(items):
            anchor[(edge, g)] = (x0[g] + width[g] * (i + 1) / (len(items) + 1), y)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="import-layers" viewBox="0 0 {canvas_w:.0f} '
           f'{canvas_h:.0f}" width="{canvas_w:.0f}" height="{canvas_h:.0f}" role="img" '
           'style="max-width: 100%; height: auto" font-family="monospace" font-size="13">',
           "<title>Import layers of the package, from its sources</title>",
           '<rect width="100%" height="100%" fill="white"/>', "<defs>"]
    for name, color in (("down", "#777777"), ("up", "#d62728")):
        out.append(f'<marker id="import-layers-{name}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" '
                   f'markerHeight="8" markerUnits="userSpaceOnUse" orient="auto">'
                   f'<path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>')
    out.append("</defs>")
    for edge, chain in sorted(chains.items(), key=lambda item: (item[0] in upward, item[0])):
        a, b = edge
        points = [anchor[(edge, a)]]
        for node in chain[1:-1]:  # through a waypoint's row: straight, in the direction of travel
            top, bottom = (centre(node), y0[node]), (centre(node), y0[node] + box_h)
            points += [top, bottom] if floor[a] > floor[b] else [bottom, top]
        points.append(anchor[(edge, b)])
        d = f"M{points[0][0]:.1f},{points[0][1]:.1f}"
        for i, ((x1, y1), (x2, y2)) in enumerate(zip(points, points[1:])):
            if i % 2:  # inside a waypoint's row
                d += f" L{x2:.1f},{y2:.1f}"
            else:  # between rows, leaving and entering vertically (sideways: an arch over the row)
                mid = (y1 + y2) / 2 if y1 != y2 else y1 - row_gap / 2
                d += f" C{x1:.1f},{mid:.1f} {x2:.1f},{mid:.1f} {x2:.1f},{y2:.1f}"
        up = edge in upward
        style = 'stroke="#d62728" stroke-width="2"' if up else 'stroke="#999999" stroke-width="1.2"'
        dash = ' stroke-dasharray="5,4"' if edges[edge]["in_function"] else ""
        pairs = "; ".join(f"{s} imports {t}" for s, t in sorted(edges[edge]["pairs"]))
        out.append(f'<path class="{"upward" if up else "downward"}" d="{d}" fill="none" {style}{dash} '
                   f'marker-end="url(#import-layers-{"up" if up else "down"})"><title>{escape(pairs)}</title></path>')
    for g in sorted(floor):
        x, y, w = x0[g], y0[g], width[g]
        out.append(f'<g class="group"><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{box_h:.0f}" rx="5" '
                   f'fill="#eef3fb" stroke="#4a6fa5"/><text x="{x + w / 2:.1f}" y="{y + box_h / 2 + 4.5:.1f}" '
                   f'text-anchor="middle" fill="#1a1a1a">{escape(label[g])}</text></g>')
    out.append("</svg>")
    return "\n".join(out)


class ImportLayers(SphinxDirective):
    """The ``import-layers`` directive (see the module docstring)."""

    required_arguments = 1
    has_content = True

    def run(self):
        """Read the package, draw it, and order the content's descriptions by floor."""
        package = self.arguments[0]
        package_dir = Path(importlib.import_module(package).__file__).parent
        for paths in package_modules(package_dir).values():
            for path in paths:  # an incremental build redraws when the code changes
                self.env.note_dependency(str(path))
        groups, edges = group_graph(package_dir)
        floor, upward = floors(groups, {e: len(v["pairs"]) for e, v in edges.items()})
        label = {g: f"{g} (__init__)" if g == package else g for g in groups}

        described = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, described)
        text = {}
        for item in described.findall(nodes.definition_list_item):
            name = item.next_node(nodes.term).astext()
            paragraphs = list(item.next_node(nodes.definition).findall(nodes.paragraph))
            if name not in groups or len(paragraphs) != 1:
                logger.warning("import-layers: %r is no group of %s, or its description is not one paragraph",
                               name, package, location=self.get_location())
                continue
            text[name] = paragraphs[0]
        for name in sorted(groups - set(text)):
            logger.warning("import-layers: no description of %s's group %r", package, name,
                           location=self.get_location())

        svg = nodes.raw("", render_svg(floor, edges, upward, label), format="html")
        result = [nodes.container("", svg, classes=["import-layers"]), self._upward_note(edges, upward)]
        for k in range(max(floor.values()) + 1):
            para = nodes.paragraph("", "", nodes.strong("", f"Floor {k}. "))
            for g in sorted(g for g in groups if floor[g] == k and g in text):
                para += [nodes.literal("", label[g]), nodes.Text(": "), *text[g].children, nodes.Text(" ")]
            result.append(para)
        return result

    @staticmethod
    def _upward_note(edges, upward) -> nodes.paragraph:
        """The arrows against the floors, with the imports that make them (or that there are none)."""
        if not upward:
            return nodes.paragraph("", "No import goes up or sideways: the floors are a strict order.")
        para = nodes.paragraph("", "Imports against the floors (red): ")
        pairs = sorted(pair for e in upward for pair in edges[e]["pairs"])
        for i, (source, target) in enumerate(pairs):
            para += [nodes.Text("; " if i else ""), nodes.literal("", source), nodes.Text(" imports "),
                     nodes.literal("", target)]
        para += nodes.Text(".")
        return para


def setup(app):
    """Register the directive."""
    app.add_directive("import-layers", ImportLayers)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
