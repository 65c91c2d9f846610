"""FWBoost's experiments (paper 001, section 5) in quick mode: files, provenance, sane numbers.

``marginboost bench-fw --quick`` into a temporary folder must write the tables (markdown, CSV,
JSON) and the two PNGs, each carrying the command and the provenance of
:func:`marginboost.experiments.metadata.collect`; the training losses of the descent methods
must not increase with the rounds; the same seed must give the same numbers.
"""
import json
import math

import numpy as np
import pytest
from PIL import Image

from marginboost.cli import main
from marginboost.experiments.fw_experiments import run_fw_experiments

FILES = ("summary.md", "overfitting.csv", "overfitting.json", "timing.csv", "timing.json", "results.json",
         "regression_curves.png", "classification_curves.png")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("fw")
    argv = ["bench-fw", "--quick", "--out", str(out)]
    with pytest.MonkeyPatch.context() as mp:  # the command line the files must record
        mp.setattr("sys.argv", ["marginboost", *argv])
        code = main(argv)
    return code, out, json.loads((out / "results.json").read_text())


def test_quick_mode_writes_every_file_with_its_provenance(quick_run):
    code, out, results = quick_run
    assert code == 0
    for name in FILES:
        assert (out / name).stat().st_size > 0, name
    md = results["metadata"]
    assert "bench-fw" in md["command"] and "--quick" in md["command"]
    assert md["versions"]["scikit-learn"] and md["machine"]["load_average"] is not None
    summary = (out / "summary.md").read_text()
    assert "bench-fw --quick" in summary and "load average" in summary and "scikit-learn" in summary
    for name in ("overfitting.csv", "timing.csv"):
        first = (out / name).read_text().splitlines()[0]
        assert first.startswith("# metadata: ") and json.loads(first[len("# metadata: "):])["metadata"]["command"]
    for name in ("regression_curves.png", "classification_curves.png"):
        comment = json.loads(Image.open(out / name).text["Comment"])
        assert comment["metadata"]["command"] == md["command"]


def test_numbers_are_sane(quick_run):
    _, _, results = quick_run
    rounds = results["metadata"]["parameters"]["rounds"]
    for name, res in results["regression"].items():
        for method, curve in res["curves"].items():
            train, test = np.asarray(curve["train"]), np.asarray(curve["test"])
            assert train.shape == test.shape == (rounds,)
            assert np.all(np.isfinite(train)) and np.all(train >= 0) and np.all(np.isfinite(test))
        # Line search on the squared loss (FWBoost) and gradient boosting without subsampling
        # never raise the training loss (BLasso's backward steps may, by design).
        for method in ("fwboost_c", "fwboost_r", "gb_plain", "gb_shrinkage"):
            train = np.asarray(res["curves"][method]["train"])
            assert np.all(np.diff(train) <= 1e-12), (name, method)
            assert train[-1] < train[0], (name, method)
        # The standardised targets have training variance 1: one round already fits better.
        assert res["curves"]["gb_shrinkage"]["train"][0] < 1.0
    for res in results["classification"].values():
        for curve in res["curves"].values():
            assert all(0.0 <= e <= 1.0 for e in curve["train"] + curve["test"])
    for row in results["overfitting"]:
        assert row["overfits"] == (row["final_test"] > 1.05 * row["min_test"])
    for timing in results["timing"].values():
        for key in ("ratio_fwboost_c", "ratio_fwboost_r", "ratio_blasso"):
            assert math.isfinite(timing[key]) and timing[key] > 0


def test_same_seed_same_numbers(quick_run):
    _, _, results = quick_run
    again = json.loads(json.dumps(run_fw_experiments(None, quick=True, seed=0)["overfitting"]))
    assert again == results["overfitting"]


def test_bad_arguments_are_one_line_errors(tmp_path, capsys):
    assert main(["bench-fw", "--quick", "--splits", "0", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("marginboost: error: --splits") and err.count("\n") == 1
