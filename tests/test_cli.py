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
        (["fit", "--data", "heart", "--booster", "lpboost", "--fw", "pairwise"], "apply to --booster mlpboost"),
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
        main(["fit", "--data", "heart", "--booster", "adaboost"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'adaboost'" in err


def test_three_classes_and_bad_model_file(tmp_path, capsys):
    three = tmp_path / "three.csv"
    three.write_text("1,0\n2,1\n3,2\n")
    code, _, err = run(capsys, "fit", "--data", str(three))
    assert code == 2 and "expected exactly two classes" in err
    code, _, err = run(capsys, "predict", "--data", "heart", "--model", str(three))
    assert code == 2 and "not a marginboost model file" in err


def test_bench_runs_and_rejects_unknown_names(tmp_path, capsys):
    code, _, err = run(capsys, "bench", "--datasets", "iris", "--out", str(tmp_path))
    assert code == 2 and "unknown data set(s) ['iris']" in err
    code, _, err = run(capsys, "bench", "--datasets", "heart", "--boosters", "adaboost_v", "--out", str(tmp_path))
    assert code == 2 and "unknown booster" in err
    code, out, _ = run(capsys, "bench", "--datasets", "heart", "--boosters", "lpboost", "--nu", "0.2",
                       "--folds", "0", "--max-time", "5", "--out", str(tmp_path))
    assert code == 0 and "(complete)" in out
    assert (tmp_path / "table2.md").is_file()
