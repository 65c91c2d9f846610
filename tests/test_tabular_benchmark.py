"""The verdict of benchmarks/tabular.py (issue 32, item 5), which decides whether native handling
of categories and missing values is no worse than the workaround: a paired comparison on the
same splits, checked here on rows made up for it (no fit)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pandas")

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "tabular.py"
_spec = importlib.util.spec_from_file_location("tabular_benchmark", _PATH)
tabular = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tabular)


def _row(method, errors, refused=None, name="crx", missing=0.1):
    return {"set": name, "missing": missing, "method": method, "refused": refused, "errors": list(errors),
            "error": float(np.mean(errors)) if errors else None}


def test_paired_difference_and_its_standard_error():
    D, se = tabular.paired([0.20, 0.22, 0.21], [0.19, 0.20, 0.21])
    diff = np.array([0.01, 0.02, 0.0])
    assert D == pytest.approx(diff.mean())
    assert se == pytest.approx(diff.std(ddof=1) / np.sqrt(3))


def test_verdicts_pair_every_method_with_its_workaround():
    rows = [
        _row("MLPBoost native", [0.10, 0.12, 0.11]),
        _row("MLPBoost workaround", [0.10, 0.10, 0.10]),  # D = +0.01, SE(D) = 0.0058: WORSE
        _row("LPBoost native", [0.10, 0.11, 0.12]),
        _row("LPBoost workaround", [0.10, 0.10, 0.13]),  # D = 0, ok
        _row("LightGBM native", [0.2, 0.2, 0.2]),
        _row("LightGBM workaround", [0.21, 0.19, 0.2]),  # a reference's pair gets its verdict too
        _row("HistGradientBoosting native", [0.3, 0.3, 0.3]),  # no workaround row: no verdict
        _row("MLPBoost native", [], refused="X contains NaN", name="ring"),
        _row("MLPBoost workaround", [0.1, 0.1, 0.1], name="ring"),
    ]
    lines = tabular.verdicts(rows)[2:]
    assert len(lines) == 4
    mlp, lp, lgbm, refused = lines
    assert mlp.startswith("| crx | 10% | MLPBoost |") and mlp.endswith("**WORSE** |") and "+0.0100" in mlp
    assert lp.startswith("| crx | 10% | LPBoost |") and lp.endswith("| ok |")
    assert lgbm.startswith("| crx | 10% | LightGBM |") and lgbm.endswith("| ok |")
    assert refused.startswith("| ring | 10% | MLPBoost |") and "not comparable" in refused
