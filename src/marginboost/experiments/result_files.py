"""Writing result files: strict JSON values, CSV with a provenance line, writes that Ctrl-C cannot cut.

Every experiment of the package writes its files through these (:mod:`.tables`,
:mod:`.fw_experiments`, :mod:`.ma_experiments`, :mod:`.nzdd_experiments`, :mod:`.worst_case`,
and the figures' PNG metadata).
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path

import numpy as np

__all__ = ["atomic_write", "csv_text", "jsonable"]


def jsonable(obj, keep_nonfinite: bool = False):
    """Plain JSON types: numpy scalars and arrays as Python values. Non-finite floats become None
    (strict JSON has no NaN/Infinity), or with ``keep_nonfinite`` stay floats (``json`` writes and
    reads them as NaN / Infinity, so a record read back equals the one written)."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v, keep_nonfinite) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v, keep_nonfinite) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist(), keep_nonfinite)
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer, int)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        return float(obj) if keep_nonfinite or math.isfinite(obj) else None
    return obj


def atomic_write(path: Path, text: str) -> Path:
    """Write via a temporary file and rename: Ctrl-C during a write never leaves half a file."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return path


def csv_text(rows, fields, metadata) -> str:
    """CSV of ``rows`` (dicts) over ``fields``, after a ``# metadata: {...}`` JSON comment line."""
    buf = io.StringIO()
    buf.write("# metadata: " + json.dumps(jsonable(metadata), sort_keys=True) + "\n")
    writer = csv.DictWriter(buf, fieldnames=list(fields), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (json.dumps(jsonable(v)) if isinstance(v, (dict, list, tuple)) else
                             ("" if v is None else v)) for k, v in row.items()})
    return buf.getvalue()
