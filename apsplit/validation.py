"""Checks of user input, with errors that name the problem."""

import numbers

import numpy as np

from .dataset import Dataset


def check_dataset(ds):
    if not isinstance(ds, Dataset):
        raise TypeError(f"expected an apsplit.Dataset, got {type(ds).__name__}; wrap X as apsplit.Dataset(X)")
    return ds


def check_labels(y, n_rows, n_classes=None):
    """Class codes 0..C-1 as int64; returns (y, C)."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-dimensional, got shape {y.shape}")
    if y.shape[0] != n_rows:
        raise ValueError(f"y has {y.shape[0]} labels but X has {n_rows} rows")
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
            raise ValueError("y must hold integer class codes 0..C-1 (found non-integer values)")
    elif y.dtype.kind not in "iub":
        raise TypeError(f"y must hold integer class codes 0..C-1, got dtype {y.dtype}")
    y = y.astype(np.int64)
    if y.size and y.min() < 0:
        raise ValueError(f"y must hold class codes 0..C-1, found {y.min()}")
    top = int(y.max()) + 1 if y.size else 1
    if n_classes is None:
        n_classes = max(top, 2)
    elif top > n_classes:
        raise ValueError(f"y holds class code {top - 1} but n_classes={n_classes}")
    return np.ascontiguousarray(y), int(n_classes)


def check_weights(sample_weight, n_rows):
    if sample_weight is None:
        return np.ones(n_rows)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be 1-dimensional, got shape {w.shape}")
    if w.shape[0] != n_rows:
        raise ValueError(f"sample_weight has {w.shape[0]} entries but X has {n_rows} rows")
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or inf")
    if np.any(w < 0):
        raise ValueError("sample_weight must be non-negative")
    return np.ascontiguousarray(w)


def check_indices(idx, size, what):
    """Unique in-range integer indices (None: all of them)."""
    if idx is None:
        return np.arange(size, dtype=np.int64)
    arr = np.asarray(idx)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be a 1-dimensional array of indices")
    if arr.size == 0:
        raise ValueError(f"{what} is empty")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{what} must hold integer indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.min() < 0 or arr.max() >= size:
        raise ValueError(f"{what} holds an index outside 0..{size - 1}")
    seen = np.zeros(size, bool)
    seen[arr] = True
    if np.count_nonzero(seen) != arr.size:
        raise ValueError(f"{what} holds duplicate indices")
    return np.ascontiguousarray(arr)


def check_choice(value, choices, what):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"unknown {what} {value!r}; choose one of {sorted(choices)}")
    return choices[value]


def check_positive_int(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def check_non_negative_int(value, what):
    """``value`` as a non-negative int (a column index)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer (a column), got {value!r}")
    return int(value)


def check_fraction(value, what, allow_zero=False):
    """``value`` as a float in (0, 1], or in [0, 1] with ``allow_zero``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not 0.0 <= value <= 1.0 or (value == 0.0 and not allow_zero):
        raise ValueError(f"{what} must lie in {'[' if allow_zero else '('}0, 1], got {value!r}")
    return float(value)
