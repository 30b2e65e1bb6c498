"""Hypothesis strategies for random split-search nodes."""

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from hypothesis import settings
from hypothesis import strategies as st

SPARSE_FORMATS = {"csr": sp.csr_matrix, "csc": sp.csc_matrix, "coo": sp.coo_matrix}


def scaled(fraction, minimum=10):
    """A share of the active profile's ``max_examples``."""
    return max(minimum, int(settings.default.max_examples * fraction))


@dataclass
class Node:
    """A feature matrix, labels, weights and the node (rows, features) to split."""

    X: np.ndarray              # dense copy of the matrix
    y: np.ndarray
    w: np.ndarray
    rows: np.ndarray | None    # None: every row
    features: np.ndarray | None
    sparse_format: str | None  # None: pass X dense

    def matrix(self):
        """X as handed to ``apsplit.Dataset``."""
        if self.sparse_format is None:
            return self.X
        return SPARSE_FORMATS[self.sparse_format](self.X)

    def kwargs(self):
        """Keyword arguments of ``find_split`` describing the node."""
        return dict(sample_weight=self.w, rows=self.rows, features=self.features)

    @property
    def feature_list(self):
        return np.arange(self.X.shape[1]) if self.features is None else self.features

    @property
    def n_positive(self):
        """Rows of the node with positive weight."""
        rows = np.arange(len(self.w)) if self.rows is None else self.rows
        return int(np.count_nonzero(self.w[rows] > 0))


_FEW = st.sampled_from([-2.0, -1.0, 0.0, 0.5, 3.0])
_MANY = st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False)
_MOSTLY_ZERO_FEW = st.sampled_from([0.0] * 6 + [-3.0, -1.0, 2.0, 5.5])
_MOSTLY_ZERO_MANY = st.one_of(st.just(0.0), st.just(0.0), st.just(0.0), _MANY)

COLUMN_KINDS = {
    "binary": st.sampled_from([0.0, 1.0]),
    "few": _FEW,
    "many": _MANY,
    "constant": None,
    "mostly_zero_few": _MOSTLY_ZERO_FEW,
    "mostly_zero_many": _MOSTLY_ZERO_MANY,
}
DENSE_KINDS = ("binary", "few", "many", "constant")
SPARSE_KINDS = ("mostly_zero_few", "mostly_zero_many", "few", "constant")

WEIGHT_KINDS = {
    "ones": st.just(1.0),
    "int": st.integers(0, 3).map(float),
    "uniform": st.one_of(st.just(0.0), st.floats(1e-3, 1.0)),
    "extreme": st.one_of(st.just(0.0), st.integers(-8, 8).map(lambda e: 10.0 ** e),
                         st.floats(1e-8, 1e8)),
    "boosting": st.floats(-6.0, 6.0).map(math.exp),
}


@st.composite
def columns(draw, n, kinds):
    """One feature column of length ``n``."""
    kind = draw(st.sampled_from(kinds))
    if kind == "constant":
        return [draw(st.sampled_from([0.0, -1.5, 7.0]))] * n
    return draw(st.lists(COLUMN_KINDS[kind], min_size=n, max_size=n))


@st.composite
def subsets(draw, size):
    """None (all) or a random non-empty subset of range(size), in random order."""
    if draw(st.booleans()):
        return None
    perm = draw(st.permutations(range(size)))
    return np.array(perm[:draw(st.integers(1, size))], dtype=np.int64)


@st.composite
def nodes(draw, sparse=False, max_rows=40, max_features=5, max_classes=6,
          weight_kinds=tuple(WEIGHT_KINDS), subsets_allowed=True):
    """A random node: duplicate rows, ties, zero weights, constant features, few classes...

    ``sparse``: False (dense), True (a scipy.sparse format, mostly-zero columns)
    or None (either).
    """
    if sparse is None:
        sparse = draw(st.booleans())
    n_unique = draw(st.integers(1, max_rows))
    K = draw(st.integers(1, max_features))
    kinds = SPARSE_KINDS if sparse else DENSE_KINDS
    X = np.array([draw(columns(n_unique, kinds)) for _ in range(K)], dtype=float).T
    C = draw(st.integers(2, max_classes))
    if draw(st.integers(0, 4)) == 0:
        y = np.full(n_unique, draw(st.integers(0, C - 1)))
    else:
        y = np.array(draw(st.lists(st.integers(0, C - 1), min_size=n_unique, max_size=n_unique)))
    dup = draw(st.lists(st.integers(0, n_unique - 1), max_size=n_unique // 2 + 1))
    X = np.vstack([X, X[dup]])
    y = np.concatenate([y, y[dup]]).astype(np.int64)
    n = X.shape[0]
    weight = WEIGHT_KINDS[draw(st.sampled_from(weight_kinds))]
    w = np.array(draw(st.lists(weight, min_size=n, max_size=n)))
    rows = draw(subsets(n)) if subsets_allowed else None
    features = draw(subsets(K)) if subsets_allowed else None
    node_rows = np.arange(n) if rows is None else rows
    if not np.any(w[node_rows] > 0):
        w[node_rows[0]] = 1.0
    fmt = draw(st.sampled_from(sorted(SPARSE_FORMATS))) if sparse else None
    return Node(X, y, w, rows, features, fmt)
