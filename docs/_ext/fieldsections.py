"""Read the package's numpy-style field sections the way their authors wrote them.

The docstrings of marginboost use numpy sections (``Parameters``, ``Attributes``, and
``Common parameters`` / ``Fitted attributes`` in module docstrings) with liberties that
napoleon would misread:

* ``name : text`` with no indented line below it, or a sentence that ends with a full stop
  or that the indented lines below continue (they start in lower case): a *description*,
  not a type (``classes_ : the labels; with two, classes_[1] is the positive class.``).
  Rewritten as ``name`` with ``text`` indented below it, before the rest of the body.
* a free paragraph after the fields (``Other parameters as in ...``, a note on Ctrl-C):
  napoleon would take each of its lines for a field. The section ends there and the
  paragraphs follow under a ``Notes`` heading; an ``Attributes`` section of prose only
  (``classes_, hypotheses_, coef_ (...), ...``) becomes a ``Fitted attributes`` section.
* bare ``name_`` words in such prose, which reStructuredText reads as hyperlink
  references, are quoted as literals.

This runs on ``autodoc-process-docstring`` before napoleon (priority 400 < 500).
"""
from __future__ import annotations

import re

FIELD_SECTIONS = {"parameters", "other parameters", "attributes", "common parameters"}
# napoleon renders these as a heading over free text (conf.py: napoleon_custom_sections)
PROSE_SECTIONS = {"fitted attributes", "notes"}
_FIELD = re.compile(r"^(\*{0,2}[A-Za-z_][\w.]*(?:\s*,\s*\*{0,2}[A-Za-z_][\w.]*)*)(?:\s+:(?:\s+(.*))?)?$")
_LITERAL = re.compile(r"(``.+?``|:[\w:]+:`[^`]+`|`[^`]+`)")
_TRAILING_UNDERSCORE = re.compile(r"(?<![\w`*|])([A-Za-z]\w*_)(?![\w`])")


def _is_header(lines: list[str], i: int) -> bool:
    if i + 1 >= len(lines) or not lines[i].strip() or lines[i].startswith(" "):
        return False
    rule = lines[i + 1].strip()
    return len(rule) >= 3 and set(rule) == {"-"} and len(rule) == len(lines[i].rstrip())


def literal_names(line: str) -> str:
    """Quote bare ``name_`` words (fitted attributes), which reStructuredText reads as links."""
    parts = _LITERAL.split(line)
    for k in range(0, len(parts), 2):  # the even parts lie outside literals and roles
        parts[k] = _TRAILING_UNDERSCORE.sub(r"``\1``", parts[k])
    return "".join(parts)


def rewrite(lines: list[str]) -> list[str]:
    """Return the docstring ``lines`` with the liberties above made explicit."""
    out: list[str] = []
    i, n = 0, len(lines)
    prose = False  # inside a section of free text: quote the attribute names
    while i < n:
        if _is_header(lines, i):
            title = lines[i].strip().lower()
            prose = title in PROSE_SECTIONS
            if title in FIELD_SECTIONS:
                i = _field_section(lines, i, out)
                prose = True  # what _field_section left unread is free text under "Notes"
                continue
        out.append(literal_names(lines[i]) if prose else lines[i])
        i += 1
    return out


def _field_section(lines: list[str], i: int, out: list[str]) -> int:
    """Copy the field section at ``lines[i]`` to ``out``; return the index where it ends."""
    n = len(lines)
    title = lines[i].strip()
    header = len(out)
    out += lines[i:i + 2]
    i += 2
    fields = 0
    while i < n and not _is_header(lines, i):
        line = lines[i]
        if not line.strip() or line.startswith(" "):
            out.append(line)
            i += 1
            continue
        match = _FIELD.match(line.rstrip())
        if match is None:  # a free paragraph: the field list ends here
            if fields == 0:  # a section of prose only: napoleon's heading over free text
                prose_title = "Fitted attributes" if "attributes" in title.lower() else "Notes"
                out[header:] = [prose_title, "-" * len(prose_title)]
            else:
                if out and out[-1].strip():
                    out.append("")
                out += ["Notes", "-----"]
            return i
        fields += 1
        body = lines[i + 1].strip() if i + 1 < n and lines[i + 1].startswith(" ") else ""
        text = match.group(2)
        # a description, not a type: no body below it, or a sentence the body continues
        if text and (not body or text.endswith(".") or body[:1].islower()):
            out += [match.group(1), "    " + text]
        else:
            out.append(line)
        i += 1
    return i


def _process(app, what, name, obj, options, lines):
    lines[:] = rewrite(lines)


def setup(app):
    """Run before napoleon on every docstring autodoc reads."""
    app.connect("autodoc-process-docstring", _process, priority=400)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
