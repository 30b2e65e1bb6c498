"""Loaders for the real datasets used by the tests, the benchmarks and the demo.

Every loader returns ``(X, y, classes)``: the feature matrix, class codes
0..C-1 (int64) and the original label of each code (``classes[y]`` gives the
labels back).  The small sets ship with apsplit (``apsplit/data``, gzip; its
README gives each set's origin and licence): ``load_bundled(name)``.  Larger
sets are read from a file the user has: ``load_file(path, format)``.
"""

import bz2
import gzip
import itertools
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

__all__ = ["BUNDLED", "BundledSet", "load_bundled", "load_satimage", "load_file", "FORMATS",
           "DataFileNotFoundError"]

FORMATS = ("svm", "uci", "tsv", "npz", "idx", "kdd")


class DataFileNotFoundError(FileNotFoundError, ValueError):
    """A data file is missing (both a FileNotFoundError and a ValueError)."""


@dataclass(frozen=True)
class BundledSet:
    """A dataset shipped in ``apsplit/data``: its training file, optional test file, format."""

    train: str
    format: str
    n_features: int | None = None
    test: str | None = None


BUNDLED = {
    "satimage": BundledSet("satimage.trn.gz", "uci"),
    "pendigits": BundledSet("pendigits.tra.gz", "uci"),
    "a8a": BundledSet("a8a.svm.gz", "svm", 123),
    "agaricus": BundledSet("agaricus.train.svm.gz", "svm", 126, test="agaricus.test.svm.gz"),
    "higgs7k": BundledSet("higgs7k.train.tsv.gz", "tsv", test="higgs7k.test.tsv.gz"),
}


def _encode(X, labels):
    classes, y = np.unique(labels, return_inverse=True)
    return X, y.astype(np.int64), classes


def _read_table(lines, source, delimiter, label_first):
    try:
        table = np.loadtxt(lines, delimiter=delimiter, ndmin=2)
    except ValueError as exc:
        raise ValueError(f"{source}: not a numeric table: {exc}") from None
    if table.shape[1] < 2:
        raise ValueError(f"{source}: needs a label column and at least one feature column")
    if label_first:
        return _encode(table[:, 1:], table[:, 0])
    return _encode(table[:, :-1], table[:, -1])


def _read_uci(lines, source):
    """Whitespace- or comma-separated numbers, label last."""
    return _read_table((line.replace(",", " ") for line in lines), source, None, label_first=False)


def _read_kdd(lines, source):
    """Comma-separated, label last, some columns text (KDD Cup 99: protocol, service, flag, and
    the label): every text column, found from the first line, is coded 0..m-1 by its values in
    sorted order."""
    lines = iter(lines)
    first = next(lines, "")
    fields = first.strip().split(",")
    if len(fields) < 2:
        raise ValueError(f"{source}: needs a label column and at least one feature column")
    text = [j for j, field in enumerate(fields) if not _is_number(field)]
    seen = {j: {} for j in text}

    def coder(j):
        codes = seen[j]
        return lambda value: codes.setdefault(value, len(codes))
    try:
        table = np.loadtxt(itertools.chain([first], lines), delimiter=",", ndmin=2,
                           converters={j: coder(j) for j in text}, encoding="utf-8")
    except ValueError as exc:
        raise ValueError(f"{source}: not a comma-separated table of the first line's columns: "
                         f"{exc}") from None
    for j, codes in seen.items():  # first-seen codes -> sorted-value codes
        names = np.array(list(codes))
        table[:, j] = np.argsort(np.argsort(names))[table[:, j].astype(np.int64)]
    label = table[:, -1]
    if len(fields) - 1 in seen:
        label = np.array(sorted(seen[len(fields) - 1]))[label.astype(np.int64)]
    return _encode(table[:, :-1], label)


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _open_text(path):
    """``path`` opened as text, decompressed if it ends in .gz or .bz2."""
    if path.suffix == ".gz":
        return gzip.open(path, "rt")
    if path.suffix == ".bz2":
        return bz2.open(path, "rt")
    return open(path)


def _read_npz(path):
    """A numpy .npz archive holding arrays ``X`` (rows x features) and ``y`` (labels)."""
    with np.load(path) as archive:
        missing = {"X", "y"} - set(archive.files)
        if missing:
            raise ValueError(f"{path}: an npz data file needs arrays X and y, it lacks "
                             f"{sorted(missing)}")
        X, labels = archive["X"], archive["y"]
    if X.ndim != 2 or labels.shape != (X.shape[0],):
        raise ValueError(f"{path}: X must be 2-d and y hold one label per row, got shapes "
                         f"{X.shape} and {labels.shape}")
    return _encode(X, labels)


IDX_MAGIC = {2049: 1, 2051: 3}  # labels (n,), images (n, rows, cols): magic number -> dimensions


def _read_idx_array(path):
    """An MNIST idx file of unsigned bytes (plain or .gz): magic, sizes, then the data."""
    with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as raw:
        data = raw.read()
    magic = int.from_bytes(data[:4], "big")
    if magic not in IDX_MAGIC:
        raise ValueError(f"{path}: not an idx file of unsigned bytes (magic {magic}, expected "
                         f"2049 for labels or 2051 for images)")
    ndim = IDX_MAGIC[magic]
    shape = tuple(int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    values = np.frombuffer(data, np.uint8, offset=4 + 4 * ndim)
    if values.size != np.prod(shape):
        raise ValueError(f"{path}: the header gives shape {shape}, the file holds {values.size} bytes")
    return values.reshape(shape)


def _read_idx(path):
    """MNIST's idx pair: ``path`` is the images file (``*-images-idx3-ubyte[.gz]``); the labels
    are the file beside it named ``*-labels-idx1-ubyte[.gz]``."""
    labels_path = path.with_name(path.name.replace("images-idx3", "labels-idx1"))
    if labels_path == path or not labels_path.is_file():
        raise DataFileNotFoundError(f"{path}: no labels file {labels_path.name} beside the images "
                                    "file (format 'idx' reads MNIST's images-idx3/labels-idx1 pair)")
    images, labels = _read_idx_array(path), _read_idx_array(labels_path)
    if images.ndim != 3 or labels.ndim != 1 or images.shape[0] != labels.shape[0]:
        raise ValueError(f"{path}: expected images (n, rows, cols) and n labels, got "
                         f"{images.shape} and {labels.shape}")
    return _encode(images.reshape(images.shape[0], -1), labels)


def bundled_path(filename):
    """The path of a file in ``apsplit/data``."""
    with resources.as_file(resources.files("apsplit.data").joinpath(filename)) as path:
        return Path(path)


def load_bundled(name, part="train"):
    """(X, y, classes) of a dataset shipped with apsplit (``BUNDLED``); ``part`` "train" or
    "test" (the sets with a test file; its classes are the training file's)."""
    if name not in BUNDLED:
        raise ValueError(f"unknown bundled dataset {name!r}; choose from {sorted(BUNDLED)}")
    spec = BUNDLED[name]
    if part not in ("train", "test"):
        raise ValueError(f"part must be 'train' or 'test', got {part!r}")
    if part == "test" and spec.test is None:
        raise ValueError(f"the bundled dataset {name!r} has no test file")
    return load_file(bundled_path(spec.train if part == "train" else spec.test), spec.format,
                     spec.n_features)


def load_satimage():
    """The UCI Statlog (Landsat Satellite) training set bundled with apsplit: 4435 x 36, 6 classes."""
    return load_bundled("satimage")


def load_file(path, format, n_features=None):
    """Load a dataset file (plain, .gz or .bz2).

    format : "svm"  LIBSVM / svmlight (X is a scipy.sparse CSR matrix; ``n_features``
                    fixes the number of columns, e.g. 123 for a8a)
             "uci"  whitespace- or comma-separated numbers, label last
             "tsv"  tab-separated numbers, label first
             "npz"  numpy archive with arrays X and y (e.g. MNIST's training set)
             "idx"  MNIST's idx images file, its labels file beside it
             "kdd"  comma-separated, label last, text columns coded by sorted value
                    (KDD Cup 99's protocol, service and flag; its labels such as "normal.")
    """
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r} for {path}; choose one of {list(FORMATS)}")
    if n_features is not None and format != "svm":
        raise ValueError(f"n_features applies to format='svm' only, not {format!r} ({path})")
    path = Path(path)
    if not path.is_file():
        raise DataFileNotFoundError(f"no such data file: {path}")
    if format == "npz":
        return _read_npz(path)
    if format == "idx":
        return _read_idx(path)
    if format == "svm":
        try:
            X, labels = load_svmlight_file(str(path), n_features=n_features)
        except ValueError as exc:
            raise ValueError(f"{path}: not a valid LIBSVM file: {exc}") from None
        return _encode(X.tocsr(), labels)
    with _open_text(path) as lines:
        if format == "uci":
            return _read_uci(lines, path)
        if format == "kdd":
            return _read_kdd(lines, path)
        return _read_table(lines, path, "\t", label_first=True)
