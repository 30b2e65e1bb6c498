"""Dataset loaders: the bundled satimage, the shared data files, and their errors."""

import numpy as np
import pytest
import scipy.sparse as sp

from apsplit.datasets import DataFileNotFoundError, load_file, load_satimage, shared_data_path

SHARED = [  # file, format, n_features, shape, number of classes
    ("satimage.trn", "uci", None, (4435, 36), 6),
    ("pendigits.tra", "uci", None, (7494, 16), 10),
    ("a8a.svm", "svm", 123, (22696, 123), 2),
    ("agaricus.train.svm", "svm", 126, (6513, 126), 2),
    ("higgs7k.train.tsv", "tsv", None, (7000, 28), 2),
]


def test_bundled_satimage():
    X, y, classes = load_satimage()
    assert X.shape == (4435, 36)
    assert y.shape == (4435,) and y.dtype == np.int64
    assert classes.tolist() == [1, 2, 3, 4, 5, 7]
    assert set(np.unique(y)) == set(range(6))
    assert X.min() >= 0 and X.max() <= 255 and np.all(X == np.round(X))


@pytest.mark.parametrize("name, fmt, n_features, shape, n_classes", SHARED)
def test_shared_files(name, fmt, n_features, shape, n_classes):
    path = shared_data_path(name)
    if path is None:
        pytest.skip(f"{name} not in the shared data folder")
    X, y, classes = load_file(path, fmt, n_features)
    assert X.shape == shape
    assert sp.issparse(X) == (fmt == "svm")
    assert classes.size == n_classes
    assert y.min() == 0 and y.max() == n_classes - 1


def test_shared_satimage_is_the_bundled_copy():
    path = shared_data_path("satimage.trn")
    if path is None:
        pytest.skip("satimage.trn not in the shared data folder")
    for got, bundled in zip(load_file(path, "uci"), load_satimage()):
        np.testing.assert_array_equal(got, bundled)


def test_text_formats(tmp_path):
    (tmp_path / "a.uci").write_text("1, 2.5, 9\n3 4 -1\n")
    X, y, classes = load_file(tmp_path / "a.uci", "uci")
    np.testing.assert_array_equal(X, [[1, 2.5], [3, 4]])
    assert y.tolist() == [1, 0] and classes.tolist() == [-1, 9]

    (tmp_path / "a.tsv").write_text("1\t0.5\t7\n0\t1.5\t8\n1\t2.5\t9\n")
    X, y, classes = load_file(tmp_path / "a.tsv", "tsv")
    np.testing.assert_array_equal(X, [[0.5, 7], [1.5, 8], [2.5, 9]])
    assert y.tolist() == [1, 0, 1] and classes.tolist() == [0, 1]

    (tmp_path / "a.svm").write_text("+1 1:0.5 3:2\n-1 2:1\n")
    X, y, classes = load_file(tmp_path / "a.svm", "svm", n_features=4)
    assert sp.isspmatrix_csr(X) and X.shape == (2, 4)
    assert y.tolist() == [1, 0]


def test_errors(tmp_path):
    good = tmp_path / "good.tsv"
    good.write_text("1\t2\n")
    with pytest.raises(ValueError, match=r"unknown format 'csv' for .*good\.tsv"):
        load_file(good, "csv")
    with pytest.raises(ValueError, match="n_features applies to format='svm' only"):
        load_file(good, "tsv", n_features=3)
    missing = tmp_path / "missing.svm"
    for expected in (ValueError, FileNotFoundError, DataFileNotFoundError):
        with pytest.raises(expected, match="missing.svm"):
            load_file(missing, "svm")
    bad = tmp_path / "bad.tsv"
    bad.write_text("1\tx\n")
    with pytest.raises(ValueError, match="bad.tsv"):
        load_file(bad, "tsv")
    one_column = tmp_path / "one.uci"
    one_column.write_text("1\n2\n")
    with pytest.raises(ValueError, match="one.uci"):
        load_file(one_column, "uci")


def test_shared_data_path_follows_the_environment(tmp_path, monkeypatch):
    (tmp_path / "x.tsv").write_text("1\t2\n")
    monkeypatch.setenv("APSPLIT_DATA", str(tmp_path))
    assert shared_data_path() == tmp_path
    assert shared_data_path("x.tsv") == tmp_path / "x.tsv"
    assert shared_data_path("nope.tsv") is None
    monkeypatch.setenv("APSPLIT_DATA", str(tmp_path / "absent"))
    assert shared_data_path() is None
