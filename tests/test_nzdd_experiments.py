"""Paper 003's Table 2 experiment (marginboost.experiments.nzdd_experiments), quick mode."""
import json

import numpy as np
import pytest

from marginboost.cli import main
from marginboost.experiments.nzdd_experiments import BOOSTERS, FIELDS, QUICK, load, run_nzdd_experiments


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("nzdd")
    return out, run_nzdd_experiments(out, quick=True)


def test_quick_run_writes_every_booster_with_provenance(quick):
    out, results = quick
    rows = results["rows"]
    assert len(rows) == len(QUICK["datasets"]) * len(BOOSTERS)
    assert {r["booster"] for r in rows} == set(BOOSTERS)
    for r in rows:
        assert set(FIELDS) <= set(r)
        assert r["status"] in ("converged", "max_iter", "TIMEOUT") and r["rounds"] >= 1 and r["seconds"] > 0
        assert r["n_hypotheses"] <= 2 * r["p"] * (r["m"] + 1)  # |H_S| <= 2p(m+1)
    for r in rows:  # AverageMarginBoost's time includes the NZDD's build
        if r["booster"] == "averagemargin":
            assert r["seconds"] == pytest.approx(r["fit_seconds"] + r["build_seconds"])
            assert 0 < r["oracle_seconds"] <= r["fit_seconds"]
    md = (out / "table2.md").read_text()
    assert "AverageMarginBoost faster than LPBoost on" in md and "load average" in md
    assert all(label in md for label, _ in BOOSTERS.values())
    data = json.loads((out / "table2.json").read_text())
    assert data["metadata"]["parameters"]["nu"] == 0.8 and data["metadata"]["versions"]["numpy"]
    assert (out / "table2.csv").read_text().startswith("# metadata: ")


def test_quick_soft_margins_agree_within_eps(quick):
    """Each booster stopped by its own rule is eps-optimal over all stumps (checked against the
    exact LP in test_average_margin.py and test_boosters.py), so any two converged ones differ
    by at most eps: the times of Table 2 are to the same accuracy."""
    _, results = quick
    for name in {r["dataset"] for r in results["rows"]}:
        margins = [r["soft_margin"] for r in results["rows"] if r["dataset"] == name and r["status"] == "converged"]
        assert len(margins) >= 2 and max(margins) - min(margins) <= QUICK["eps"] + 1e-9, name


def test_generated_twonorm_and_subsets():
    a, b = load("twonorm_300", seed=1), load("twonorm_300", seed=1)
    assert a.shape == (300, 20) and np.array_equal(a.X, b.X)
    sub = load("ringnorm", rows=50)
    assert sub.shape == (50, 20) and "50 rows" in sub.name


def test_cli_rejects_unknown_data_sets(capsys):
    assert main(["bench-nzdd", "--datasets", "iris", "--out", "unused"]) == 2
    assert "unknown data set" in capsys.readouterr().err
    assert main(["bench-nzdd", "--max-time", "0", "--out", "unused"]) == 2
