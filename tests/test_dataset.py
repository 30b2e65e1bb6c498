"""Dataset: binning into ranks, dense and sparse alike, thresholds, pickling."""

import pickle
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import apsplit
from strategies import SPARSE_FORMATS, columns

VALUE_KINDS = ("binary", "few", "many", "constant", "mostly_zero_few", "mostly_zero_many")


@st.composite
def matrices(draw):
    """A dense float matrix mixing few-valued, many-valued, constant and mostly-zero columns."""
    n = draw(st.integers(1, 30))
    K = draw(st.integers(1, 4))
    return np.array([draw(columns(n, VALUE_KINDS)) for _ in range(K)], dtype=float).T


def all_codes(ds, k):
    return ds.column_codes(k, np.arange(ds.n_rows))


@given(matrices(), st.randoms(use_true_random=False))
def test_feature_values_are_sorted_distinct_values_and_codes_their_ranks(X, random):
    ds = apsplit.Dataset(X)
    assert ds.shape == X.shape and not ds.is_sparse
    rows = np.array(random.sample(range(X.shape[0]), X.shape[0]), dtype=np.int64)
    for k in range(X.shape[1]):
        values = np.unique(X[:, k])
        np.testing.assert_array_equal(ds.feature_values(k), values)
        np.testing.assert_array_equal(ds.column_codes(k, rows), np.searchsorted(values, X[rows, k]))


@given(matrices(), st.sampled_from(sorted(SPARSE_FORMATS)))
def test_sparse_input_bins_like_dense_input(X, fmt):
    dense = apsplit.Dataset(X)
    sparse = apsplit.Dataset(SPARSE_FORMATS[fmt](X))
    assert sparse.is_sparse and sparse.shape == X.shape
    assert sparse.codes.size == 0
    for k in range(X.shape[1]):
        np.testing.assert_array_equal(sparse.feature_values(k), dense.feature_values(k))
        np.testing.assert_array_equal(all_codes(sparse, k), all_codes(dense, k))


def test_sparse_duplicates_are_summed_and_explicit_zeros_are_zeros():
    coo = sp.coo_matrix(([2.0, 3.0, 0.0, -1.0], ([0, 0, 1, 2], [0, 0, 0, 1])), shape=(3, 2))
    ds = apsplit.Dataset(coo)
    np.testing.assert_array_equal(ds.feature_values(0), [0.0, 5.0])
    np.testing.assert_array_equal(all_codes(ds, 0), [1, 0, 0])
    np.testing.assert_array_equal(ds.feature_values(1), [-1.0, 0.0])
    np.testing.assert_array_equal(all_codes(ds, 1), [1, 1, 0])


def test_sparse_arrays_are_accepted():
    X = np.array([[0.0, 1.0], [2.0, 0.0], [0.0, -3.0]])
    ds = apsplit.Dataset(sp.csr_array(X))
    assert ds.is_sparse
    for k in range(2):
        np.testing.assert_array_equal(all_codes(ds, k), all_codes(apsplit.Dataset(X), k))


def test_sparse_input_is_not_densified():
    """A 200000 x 5000 matrix with 1000 entries bins in far less memory than one dense byte each."""
    rng = np.random.default_rng(0)
    X = sp.csr_matrix((rng.normal(size=1000), (rng.integers(0, 200_000, 1000),
                                                rng.integers(0, 5000, 1000))), shape=(200_000, 5000))
    tracemalloc.start()
    try:
        ds = apsplit.Dataset(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert ds.codes.size == 0
    assert ds.csr_codes.size == X.nnz
    assert peak < 50e6


@pytest.mark.parametrize("n_values, dtype", [(2, np.uint8), (256, np.uint8), (257, np.uint16)])
def test_codes_use_the_smallest_unsigned_type(n_values, dtype):
    X = np.arange(n_values, dtype=float).reshape(-1, 1)
    assert apsplit.Dataset(X).codes.dtype == dtype
    assert apsplit.Dataset(sp.csr_matrix(X)).csr_codes.dtype == dtype


# ---------------------------------------------------------------- thresholds
@pytest.mark.parametrize("lo, hi, expected", [(1.0, 2.0, 1.5), (-3.0, 5.0, 1.0), (0.0, 1e-3, 5e-4),
                                              (-1.7e308, 1.7e308, 0.0)])
def test_threshold_is_the_midpoint(lo, hi, expected):
    ds = apsplit.Dataset(np.array([[hi], [lo]]))
    assert ds.threshold(0, 0, 1) == (expected, 0)


def test_threshold_falls_back_to_the_left_value_when_the_midpoint_rounds_up():
    lo = 1.0
    hi = np.nextafter(lo, 2.0)
    assert apsplit.Dataset(np.array([[lo], [hi]])).threshold(0, 0, 1) == (lo, 0)


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=2, max_size=10, unique=True))
def test_threshold_separates_consecutive_values(values):
    ds = apsplit.Dataset(np.array(values).reshape(-1, 1))
    distinct = ds.feature_values(0)
    for r in range(distinct.size - 1):
        t, left_rank = ds.threshold(0, r, r + 1)
        assert distinct[r] <= t < distinct[r + 1]
        assert left_rank == r


def test_threshold_left_rank_counts_values_between_the_two():
    """Values of X that lie between the two (absent from a node) go where x <= t sends them."""
    ds = apsplit.Dataset(np.array([[1.0], [3.0], [5.0]]))
    assert ds.threshold(0, 0, 2) == (3.0, 1)


# ------------------------------------------------------------------ pickling
@pytest.mark.parametrize("fmt", [None, "csr"])
def test_pickle_round_trip(fmt):
    rng = np.random.default_rng(1)
    X = rng.integers(-2, 3, size=(40, 3)).astype(float)
    y = rng.integers(0, 3, 40)
    w = rng.random(40)
    ds = apsplit.Dataset(X if fmt is None else SPARSE_FORMATS[fmt](X))
    before = apsplit.find_split(ds, y, w, criterion="gini", method="exhaustive")
    restored = pickle.loads(pickle.dumps(ds))
    assert restored._workspaces == {}
    assert repr(restored) == repr(ds)
    for name in ("values", "bin_offsets", "codes", "zero_rank", "csr_indptr", "csr_features",
                 "csr_codes", "csc_indptr", "csc_rows", "csc_codes"):
        np.testing.assert_array_equal(getattr(restored, name), getattr(ds, name))
    after = apsplit.find_split(restored, y, w, criterion="gini", method="adaptive")
    assert (after.feature, after.threshold, after.score) == (before.feature, before.threshold,
                                                            before.score)
