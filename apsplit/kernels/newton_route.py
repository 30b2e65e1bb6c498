"""Routing rows down a Newton tree: x <= threshold goes left, a missing value the default way.

A categorical split (``category_start[node] >= 0``) sends a present value right
when its integer code is in the node's set, every other value left: other
codes, codes unseen in training, negative values (XGBoost's ``Decision``).
The code of x is int(x) for x >= 0 (XGBoost: a value below 0 is no code);
with ``truncate_codes`` (a tree read from LightGBM) it is int(x) for x > -1,
LightGBM's cast toward zero, which makes a value in (-1, 0) the code 0.

A value is missing when it is NaN (dense X or a stored entry of sparse X) or,
in sparse X, when the row stores no entry for the feature: XGBoost's DMatrix
reads scipy.sparse input the same way (an absent entry is missing, not zero).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .newton_categorical import in_set
from .sort import bisect_left

LEAF = -1


class Splits(NamedTuple):
    """The arrays of a tree that routing reads."""

    feature: np.ndarray
    threshold: np.ndarray
    default_left: np.ndarray
    children_left: np.ndarray
    children_right: np.ndarray
    category_start: np.ndarray   # -1: a numeric split
    category_count: np.ndarray
    category_codes: np.ndarray
    truncate_codes: bool         # True: a value in (-1, 0) is the code 0 (LightGBM's cast)


@njit(cache=True, inline='always')
def _next(splits, node, x):
    if np.isnan(x):
        go_left = splits.default_left[node]
    elif splits.category_start[node] >= 0:
        code = np.trunc(x) if splits.truncate_codes else x  # trunc(-0.5) = -0.0 >= 0
        go_left = not in_set(splits.category_codes, splits.category_start[node],
                             splits.category_count[node], code)
    else:
        go_left = x <= splits.threshold[node]
    return splits.children_left[node] if go_left else splits.children_right[node]


@njit(cache=True)
def apply_dense(splits, X):
    """Leaf of every row of the dense (n, K) matrix X (NaN = missing)."""
    out = np.empty(X.shape[0], np.int64)
    for i in range(X.shape[0]):
        node = 0
        while splits.feature[node] != LEAF:
            node = _next(splits, node, X[i, splits.feature[node]])
        out[i] = node
    return out


@njit(cache=True)
def apply_csr(splits, indptr, indices, data):
    """Leaf of every row of a CSR matrix with sorted indices (absent or NaN = missing)."""
    n = indptr.shape[0] - 1
    out = np.empty(n, np.int64)
    for i in range(n):
        node = 0
        while splits.feature[node] != LEAF:
            k = splits.feature[node]
            e = bisect_left(indices, indptr[i], indptr[i + 1], k)
            x = data[e] if e < indptr[i + 1] and indices[e] == k else np.nan
            node = _next(splits, node, x)
        out[i] = node
    return out


@njit(cache=True)
def xgboost_conditions(feature, category_start, left_value, right_value):
    """XGBoost's float32 threshold t (``x < t`` goes left) of every numeric split node
    (NaN at leaves and categorical splits), and the first node whose two values are one
    float32 (-1: none), for which no t exists.

    Each operation in float32, as XGBoost's: for the float32 values a < b of the split,
    t = (a + b) * 0.5, or b if that rounds down to a; a + (|a| + 1e-6) when b = +inf
    (every present row left); b - (|b| + 1e-6) when a = -inf (every present row right).
    One call per tree: a round's thresholds cost a few microseconds, not the dozen
    array operations per tree of numpy (0.1-0.2 ms a tree, a probe)."""
    n = feature.shape[0]
    out = np.full(n, np.float32(np.nan))
    half, eps = np.float32(0.5), np.float32(1e-6)
    one_float = -1
    for node in range(n):
        if feature[node] == LEAF or category_start[node] >= 0:
            continue
        a, b = np.float32(left_value[node]), np.float32(right_value[node])
        if np.isinf(a):
            out[node] = b - (abs(b) + eps)
        elif np.isinf(b):
            out[node] = a + (abs(a) + eps)
        else:
            if not a < b and one_float < 0:
                one_float = node
            t = (a + b) * half
            out[node] = b if t <= a else t
    return out, one_float
