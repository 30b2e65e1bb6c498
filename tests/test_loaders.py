"""Dataset loaders: the datasets bundled with apsplit, data files, and their errors."""

import bz2
import gzip

import numpy as np
import pytest
import scipy.sparse as sp

from apsplit.experiments.loaders import (BUNDLED, DataFileNotFoundError, bundled_path, load_bundled,
                                         load_file, load_satimage)

SIZES = {  # name: (train shape, test shape, number of classes), as the data README gives them
    "satimage": ((4435, 36), None, 6),
    "pendigits": ((7494, 16), None, 10),
    "a8a": ((22696, 123), None, 2),
    "agaricus": ((6513, 126), (1611, 126), 2),
    "higgs7k": ((7000, 28), (500, 28), 2),
}


def test_bundled_satimage():
    X, y, classes = load_satimage()
    assert X.shape == (4435, 36)
    assert y.shape == (4435,) and y.dtype == np.int64
    assert classes.tolist() == [1, 2, 3, 4, 5, 7]
    assert set(np.unique(y)) == set(range(6))
    assert X.min() >= 0 and X.max() <= 255 and np.all(X == np.round(X))


def test_every_bundled_set_is_described():
    assert set(BUNDLED) == set(SIZES)
    readme = bundled_path("README.md").read_text()
    for spec in BUNDLED.values():
        for filename in filter(None, (spec.train, spec.test)):
            assert bundled_path(filename).is_file()
            assert filename in readme


@pytest.mark.parametrize("name", sorted(SIZES))
def test_bundled_sets(name):
    """Every bundled set loads with the shape and classes of its origin (no test skips:
    the files are part of the repository)."""
    shape, test_shape, n_classes = SIZES[name]
    X, y, classes = load_bundled(name)
    assert X.shape == shape
    assert sp.issparse(X) == (BUNDLED[name].format == "svm")
    assert classes.size == n_classes
    assert y.min() == 0 and y.max() == n_classes - 1
    if test_shape is None:
        with pytest.raises(ValueError, match="has no test file"):
            load_bundled(name, "test")
    else:
        X_test, _, test_classes = load_bundled(name, "test")
        assert X_test.shape == test_shape
        assert set(test_classes) <= set(classes)


def test_bundled_errors():
    with pytest.raises(ValueError, match="unknown bundled dataset 'mnist'"):
        load_bundled("mnist")
    with pytest.raises(ValueError, match="part must be 'train' or 'test'"):
        load_bundled("satimage", "validation")


def test_compressed_files(tmp_path):
    text = "1 2.5 9\n3 4 -1\n"
    with gzip.open(tmp_path / "a.uci.gz", "wt") as out:
        out.write(text)
    with bz2.open(tmp_path / "a.uci.bz2", "wt") as out:
        out.write(text)
    (tmp_path / "a.uci").write_text(text)
    plain = load_file(tmp_path / "a.uci", "uci")
    for name in ("a.uci.gz", "a.uci.bz2"):
        for got, expected in zip(load_file(tmp_path / name, "uci"), plain):
            np.testing.assert_array_equal(got, expected)


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



def _write_idx(path, magic, array):
    header = magic.to_bytes(4, "big") + b"".join(d.to_bytes(4, "big") for d in array.shape)
    with gzip.open(path, "wb") as out:
        out.write(header + array.astype(np.uint8).tobytes())


def test_npz_and_idx(tmp_path):
    """MNIST's two file forms: an npz of X and y, and the canonical idx images/labels pair."""
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (5, 3, 2))
    labels = np.array([3, 1, 3, 0, 9])
    np.savez(tmp_path / "train.npz", X=images.reshape(5, 6).astype(np.uint8), y=labels)
    _write_idx(tmp_path / "t-images-idx3-ubyte.gz", 2051, images)
    _write_idx(tmp_path / "t-labels-idx1-ubyte.gz", 2049, labels)
    for got in (load_file(tmp_path / "train.npz", "npz"),
                load_file(tmp_path / "t-images-idx3-ubyte.gz", "idx")):
        X, y, classes = got
        np.testing.assert_array_equal(X, images.reshape(5, 6))
        np.testing.assert_array_equal(classes[y], labels)


def test_npz_and_idx_errors(tmp_path):
    np.savez(tmp_path / "no_y.npz", X=np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"needs arrays X and y, it lacks \['y'\]"):
        load_file(tmp_path / "no_y.npz", "npz")
    np.savez(tmp_path / "short.npz", X=np.zeros((2, 2)), y=np.zeros(3))
    with pytest.raises(ValueError, match="one label per row"):
        load_file(tmp_path / "short.npz", "npz")
    _write_idx(tmp_path / "a-images-idx3-ubyte.gz", 2051, np.zeros((2, 2, 2)))
    with pytest.raises(DataFileNotFoundError, match="no labels file a-labels-idx1-ubyte.gz"):
        load_file(tmp_path / "a-images-idx3-ubyte.gz", "idx")
    _write_idx(tmp_path / "a-labels-idx1-ubyte.gz", 2049, np.zeros(3))
    with pytest.raises(ValueError, match="expected images"):
        load_file(tmp_path / "a-images-idx3-ubyte.gz", "idx")
    _write_idx(tmp_path / "b-images-idx3-ubyte.gz", 7, np.zeros(2))
    (tmp_path / "b-labels-idx1-ubyte.gz").write_bytes(b"")
    with pytest.raises(ValueError, match="not an idx file"):
        load_file(tmp_path / "b-images-idx3-ubyte.gz", "idx")


def test_kdd_text_columns(tmp_path):
    """KDD Cup 99's layout: text columns (and labels) coded by their values in sorted order."""
    with gzip.open(tmp_path / "kdd.gz", "wt") as out:
        out.write("0,tcp,http,1.5,normal.\n2,udp,smtp,0,smurf.\n1,icmp,http,3,normal.\n")
    X, y, classes = load_file(tmp_path / "kdd.gz", "kdd")
    np.testing.assert_array_equal(X, [[0, 1, 0, 1.5], [2, 2, 1, 0], [1, 0, 0, 3]])
    assert classes.tolist() == ["normal.", "smurf."] and y.tolist() == [0, 1, 0]
    (tmp_path / "short.kdd").write_text("1,tcp,0\n2,udp\n")
    with pytest.raises(ValueError, match="short.kdd"):
        load_file(tmp_path / "short.kdd", "kdd")
    (tmp_path / "one.kdd").write_text("1\n")
    with pytest.raises(ValueError, match="one.kdd"):
        load_file(tmp_path / "one.kdd", "kdd")
