"""The MABoost experiments (paper 002) in quick mode: files, sane numbers, reproducibility."""
import json

import numpy as np
import pytest

from marginboost.cli import main
from marginboost.experiments.ma_experiments import NOISE_RATES, flip_labels, noise_boosters, run_ma_experiments

FILES = ("results.json", "maboost.md", "training_error.csv", "sparsity.csv", "noise.csv", "trusted.csv",
         "training_error.png", "sparsity.png", "noise.png", "noise_curves.png")


def _numbers(results):
    """Everything but the metadata and the clocks."""
    return {k: [{f: v for f, v in row.items() if f != "seconds"} for row in rows] if isinstance(rows, list) else rows
            for k, rows in results.items() if k != "metadata"}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("ma")
    return out, run_ma_experiments(out, quick=True, seed=0, progress=lambda *a: None)


def test_files_and_provenance(quick):
    out, results = quick
    for name in FILES:
        assert (out / name).stat().st_size > 0, name
    stored = json.loads((out / "results.json").read_text())
    assert stored["metadata"]["parameters"]["quick"] is True and "machine" in stored["metadata"]
    assert (out / "noise.csv").read_text().startswith("# metadata: ")
    text = (out / "maboost.md").read_text()
    for section in ("Training error vs rounds", "SparseBoost", "Label noise", "Trusted subset"):
        assert section in text


def test_numbers_are_sane(quick):
    _, r = quick
    for c in r["training_error"]:
        err = np.asarray(c["train_error"])
        assert np.all((0 <= err) & (err <= 1)) and len(err) == c["rounds"]
        if c["variant"] in ("AdaBoost", "entropy normal"):  # Theorem 1 (eq. 9) along the run
            assert np.all(err <= np.asarray(c["entropy_bound"]) + 1e-12)
    for c in r["sparsity"]:
        z = np.asarray(c["zero_fraction"])
        assert np.all((0 <= z) & (z < 1))
    assert max(max(c["zero_fraction"]) for c in r["sparsity"]) > 0  # SparseBoost's zeros exist
    datasets = {row["dataset"] for row in r["noise"]}
    assert len(datasets) >= 3
    assert {(row["dataset"], row["noise"], row["booster"]) for row in r["noise"]} == {
        (d, n, b) for d in datasets for n in NOISE_RATES for b in noise_boosters()}
    for row in r["noise"] + r["trusted"]:
        assert 0 <= row["test_error"] < 0.5  # better than chance on every set
    clean = [row for row in r["noise"] if row["noise"] == 0]
    for row in clean:
        assert row["train_error_noisy"] == row["train_error_clean"]
    assert {row["booster"] for row in r["trusted"]} >= {"AdaBoost (all)", "AdaBoost (trusted only)"}


def test_same_seed_same_numbers_and_cli(quick, tmp_path, capsys):
    _, first = quick
    assert main(["bench-ma", "--quick", "--out", str(tmp_path)]) == 0
    again = json.loads((tmp_path / "results.json").read_text())
    assert _numbers(again) == _numbers(json.loads(json.dumps(first)))
    assert "results written to" in capsys.readouterr().out


def test_flip_labels_flips_exactly_the_rate():
    y = np.where(np.arange(200) % 3 == 0, 1.0, -1.0)
    flipped = flip_labels(y, 0.1, np.random.default_rng(0))
    assert (flipped != y).sum() == 20
    np.testing.assert_array_equal(flipped, flip_labels(y, 0.1, np.random.default_rng(0)))
