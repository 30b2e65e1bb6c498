"""Loaders for the real datasets used by the benchmarks and the demo.

Every loader returns ``(X, y, classes)``: the feature matrix, class codes
0..C-1 (int64) and the original label of each code (``classes[y]`` gives the
labels back).
"""

import gzip
import os
from importlib import resources
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

__all__ = ["load_satimage", "load_file", "shared_data_path", "FORMATS", "DataFileNotFoundError"]

FORMATS = ("svm", "uci", "tsv")


class DataFileNotFoundError(FileNotFoundError, ValueError):
    """A data file is missing (both a FileNotFoundError and a ValueError)."""


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


def load_satimage():
    """The UCI Statlog (Landsat Satellite) training set bundled with apsplit: 4435 x 36, 6 classes."""
    source = resources.files("apsplit.data").joinpath("satimage.trn.gz")
    with source.open("rb") as raw, gzip.open(raw, "rt") as lines:
        return _read_uci(lines, "satimage.trn.gz")


def load_file(path, format, n_features=None):
    """Load a dataset file.

    format : "svm"  LIBSVM / svmlight (X is a scipy.sparse CSR matrix; ``n_features``
                    fixes the number of columns, e.g. 123 for a8a)
             "uci"  whitespace- or comma-separated numbers, label last
             "tsv"  tab-separated numbers, label first
    """
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r} for {path}; choose one of {list(FORMATS)}")
    if n_features is not None and format != "svm":
        raise ValueError(f"n_features applies to format='svm' only, not {format!r} ({path})")
    path = Path(path)
    if not path.is_file():
        raise DataFileNotFoundError(f"no such data file: {path}")
    if format == "svm":
        try:
            X, labels = load_svmlight_file(str(path), n_features=n_features)
        except ValueError as exc:
            raise ValueError(f"{path}: not a valid LIBSVM file: {exc}") from None
        return _encode(X.tocsr(), labels)
    with open(path) as lines:
        if format == "uci":
            return _read_uci(lines, path)
        return _read_table(lines, path, "\t", label_first=True)


def shared_data_path(name=None):
    """The shared data folder (or the file ``name`` in it); None if it does not exist.

    The folder is ``$APSPLIT_DATA`` if set, else ``../shared/data`` beside the
    repository root (the layout of the development checkout and of CI).
    """
    env = os.environ.get("APSPLIT_DATA")
    folder = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "data"
    path = folder / name if name else folder
    return path if path.exists() else None
