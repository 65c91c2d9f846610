"""The command line: fit / predict round trip, and one-line errors with exit status 2."""
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
    ("fwboost", ["--param", "n_estimators=10", "--param", "away_steps=true"]),
    ("gbm", ["--max-depth", "2", "--param", "n_estimators=10", "--param", "random_state=none"]),
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
    GBMRegressor(n_estimators=2).fit(np.random.default_rng(0).normal(size=(20, 13)), np.arange(20.0)).save(model)
    code, _, err = run(capsys, "predict", "--data", "heart", "--model", str(model))
    assert code == 2 and "holds a GBMRegressor: the command line predicts with classifiers only" in err


def test_fit_a_csv_file(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    labels = np.where(X[:, 0] > 0, "yes", "no")
    path = tmp_path / "data.csv"
    path.write_text("a,b,c,target\n" + "\n".join(f"{r[0]},{r[1]},{r[2]},{t}" for r, t in zip(X, labels)))
    code, out, _ = run(capsys, "fit", "--data", str(path), "--label-column", "target", "--booster", "mlpboost",
                       "--fw", "pairwise", "--weak-learner", "stump")
    assert code == 0 and "training accuracy 1.0000" in out


@pytest.mark.parametrize(
    "argv,match",
    [
        (["fit", "--data", "nope"], "no bundled data set or file named 'nope'"),
        (["fit", "--data", "heart", "--nu", "5000"], r"nu must be a count in \[1, m\]"),
        (["fit", "--data", "heart", "--eps", "0"], "'eps' parameter"),
        (["fit", "--data", "heart", "--booster", "lpboost", "--fw", "pairwise"],
         "--fw does not apply to --booster lpboost \\(it applies to mlpboost\\)"),
        (["fit", "--data", "heart", "--booster", "gbm", "--nu", "0.2"], "--nu does not apply to --booster gbm"),
        (["fit", "--data", "heart", "--booster", "gbm", "--param", "beta=2"], "has no parameter 'beta'"),
        (["fit", "--data", "heart", "--booster", "gbm", "--param", "max_depth=2", "--max-depth", "2"],
         "'max_depth' given twice"),
        (["fit", "--data", "heart", "--booster", "gbm", "--param", "n_estimators=0"], "'n_estimators' parameter"),
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
        main(["fit", "--data", "heart", "--param", "n_estimators"])
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
    options = ["--param", "n_estimators=20"] if booster == "gbm" else ["--max-iter", "50"]
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
