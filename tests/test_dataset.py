"""Dataset: binning into ranks, dense and sparse alike, thresholds, pickling."""

import pickle
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import apsplit
from apsplit.experiments.loaders import load_bundled
from apsplit.kernels.binning import coarse_columns
from apsplit.kernels.coarse import MAX_COARSE
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


def test_sparse_columns_of_one_stored_value_bin_like_dense_columns():
    """Columns binned without a sort (one value stored): positive, negative, full (no
    zero), beside an empty column and one of two values."""
    X = np.array([[1.0, -2.0, 3.0, 0.0, 4.0],
                  [0.0, 0.0, 3.0, 0.0, 0.0],
                  [1.0, -2.0, 3.0, 0.0, 5.0]])
    dense, sparse = apsplit.Dataset(X), apsplit.Dataset(sp.csr_matrix(X))
    for k in range(X.shape[1]):
        np.testing.assert_array_equal(sparse.feature_values(k), dense.feature_values(k))
        np.testing.assert_array_equal(all_codes(sparse, k), all_codes(dense, k))
    np.testing.assert_array_equal(sparse.zero_rank, [0, 1, -1, 0, 0])


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


# ---------------------------------------------------------------- workspace
def dirty_workspace(work):
    """Set every cell a kernel must leave zeroed, as a kernel stopped midway could."""
    hist, mark, present, _, _, in_node, counts = work
    for array in (hist, mark, present, in_node, counts):
        array[...] = 1


def assert_workspaces_zeroed(ds):
    for hist, mark, present, _, _, in_node, counts in ds._workspaces.values():
        for array in (hist, mark, present, in_node, counts):
            assert not array.any()


def assert_searches_as_on_a_fresh_dataset(ds, X, y, w):
    fresh = apsplit.Dataset(X)
    rows = np.arange(0, X.shape[0], 2)
    for method in ("exhaustive", "quick", "adaptive"):
        for node in (None, rows):
            got, want = (apsplit.find_split(d, y, w, "gini", method, rows=node) for d in (ds, fresh))
            assert (got.feature, got.threshold, got.score, got.assessments) == \
                (want.feature, want.threshold, want.score, want.assessments)
        got, want = (apsplit.grow_tree(d, y, w, 3, "entropy", method) for d in (ds, fresh))
        for name in ("feature", "threshold", "value", "node_assessments"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    assert_workspaces_zeroed(ds)


def workspace_problem(fmt):
    rng = np.random.default_rng(5)
    X = rng.integers(-2, 4, size=(60, 4)).astype(float)
    X[rng.random(X.shape) < 0.5] = 0.0
    y = rng.integers(0, 3, 60)
    return (X if fmt is None else SPARSE_FORMATS[fmt](X)), y, rng.random(60)


def failing_kernel(real, work_at, exc):
    """``real`` that dirties its workspace (argument ``work_at``) and raises ``exc`` after it."""
    def kernel(*args):
        real(*args)
        dirty_workspace(args[work_at])
        raise exc("stopped midway")
    return kernel


@pytest.mark.parametrize("fmt", [None, "csr"])
@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("entry", ["node", "tree"])
def test_a_kernel_stopped_midway_leaves_later_searches_exact(monkeypatch, fmt, exc, entry):
    """A kernel call that raises (an error or an interrupt) after setting its workspace:
    every later search on the Dataset is that of a fresh Dataset, the kept workspaces zero."""
    from apsplit import finders, tree
    X, y, w = workspace_problem(fmt)
    ds = apsplit.Dataset(X)
    apsplit.grow_tree(ds, y, w, 3, "gini", "exhaustive")  # a workspace is kept for 3 classes
    if entry == "node":
        monkeypatch.setattr(finders, "run", failing_kernel(finders.run, 3, exc))
        call = lambda: apsplit.find_split(ds, y, w, "gini", "adaptive")  # noqa: E731
    else:
        monkeypatch.setattr(tree.build, "grow", failing_kernel(tree.build.grow, 4, exc))
        call = lambda: apsplit.grow_tree(ds, y, w, 3, "gini", "quick")  # noqa: E731
    with pytest.raises(exc, match="stopped midway"):
        call()
    monkeypatch.undo()
    assert_workspaces_zeroed(ds)
    assert_searches_as_on_a_fresh_dataset(ds, X, y, w)


@pytest.mark.parametrize("exc", [ValueError, KeyboardInterrupt])
def test_a_users_finder_stopped_midway_in_a_python_loop_tree_leaves_later_searches_exact(exc):
    """A user's finder that runs the kernels on the workspace (the built-in ones for its
    first nodes) and raises on the third node, with the workspace in use."""
    X, y, w = workspace_problem("csr")
    ds = apsplit.Dataset(X)

    class Stops(apsplit.Finder):
        calls = 0

        def find(self, problem):
            self.calls += 1
            if self.calls < 3:
                return apsplit.Exhaustive().find(problem)
            with problem.dataset.workspace(problem.n_classes) as work:
                dirty_workspace(work)
                raise exc("stopped midway")

    with pytest.raises(exc, match="stopped midway"):
        apsplit.grow_tree(ds, y, w, 3, "gini", Stops())
    assert_workspaces_zeroed(ds)
    assert_searches_as_on_a_fresh_dataset(ds, X, y, w)


def test_a_workspace_is_kept_for_the_next_call_and_never_shared():
    ds = apsplit.Dataset(np.arange(6.0).reshape(3, 2))
    with ds.workspace(2) as first:
        with ds.workspace(2) as nested:  # a call inside a call gets its own arrays
            assert nested[0] is not first[0]
    with ds.workspace(2) as again:  # a block that completes hands its arrays on
        assert again[0] is first[0] or again[0] is nested[0]
    with pytest.raises(ValueError):
        with ds.workspace(2) as work:
            raise ValueError
    with ds.workspace(2) as fresh:  # a block that raised: its arrays are gone
        assert fresh[0] is not work[0]


@pytest.mark.parametrize("prefilter, built", [("auto", True), (False, False), (True, True)])
def test_coarse_bins_are_made_only_where_they_can_serve(prefilter, built):
    """At most B values per feature: one coarse bin per value, unless the prefilter is off
    (no feature sums in two levels then).  More values per feature: made, two-level
    at 25 values per coarse bin (more than 16) even with the prefilter off."""
    few = np.tile(np.arange(4.0), 50)[:, None]
    coarse = apsplit.Dataset(few, prefilter=prefilter, coarse_bins=8).coarse_bins()
    assert coarse.offsets[-1] == (4 if built else 0)
    many = np.arange(200.0)[:, None]
    made = apsplit.Dataset(many, prefilter=prefilter, coarse_bins=8).coarse_bins()
    assert 1 < made.offsets[-1] <= 8


@pytest.mark.parametrize("name", ["satimage", "pendigits"])
def test_ungrouped_coarse_bins_share_the_codes(name):
    """No feature has more values than coarse bins: the coarse bins are the exact ones,
    field for field what the grouping kernel makes, and their codes are the Dataset's."""
    X, _, _ = load_bundled(name)
    ds = apsplit.Dataset(X)
    coarse = ds.coarse_bins()
    assert coarse.codes is ds.codes
    made = coarse_columns(ds.codes, ds.bin_offsets, ds._two_level_mask(), MAX_COARSE,
                          coarse.min_mean_bins, 1)
    for field in coarse._fields:
        np.testing.assert_array_equal(getattr(coarse, field), getattr(made, field), err_msg=field)
        assert np.asarray(getattr(coarse, field)).dtype == np.asarray(getattr(made, field)).dtype


def _binned(ds):
    return [ds.values, ds.bin_offsets, ds.codes, ds.zero_rank, ds.csc_indptr, ds.csc_rows,
            ds.csc_codes, ds.csr_indptr, ds.csr_features, ds.csr_codes, ds.csr_bins]


@pytest.mark.parametrize("fmt", [None, "csr"])
def test_the_threads_that_bin_x_do_not_change_the_dataset(fmt):
    # 40 features x 4000 rows: 160,000 values, several lanes of kernels.binning (dense)
    # or parallel.each_feature (sparse); the coarse bins are made on the same threads
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(4000, 40)), 2) * (rng.random((4000, 40)) < 0.6)
    X = sp.csr_matrix(X) if fmt else X

    def binned(ds):
        coarse = [field for field in ds.coarse_bins() if isinstance(field, np.ndarray)]
        return _binned(ds) + coarse

    one = apsplit.Dataset(X, n_threads=1, prefilter=True)
    for threads in (2, -1):
        for a, b in zip(binned(one), binned(apsplit.Dataset(X, n_threads=threads,
                                                            prefilter=True))):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def test_more_rows_than_the_binning_counts_are_refused():
    """2**32 rows (a view of one value, no memory): the ranks would overflow uint32."""
    X = np.lib.stride_tricks.as_strided(np.zeros(1), shape=(2 ** 32, 1), strides=(0, 0))
    with pytest.raises(ValueError, match=r"X has 4294967296 rows; apsplit bins at most"):
        apsplit.Dataset(X)


@pytest.mark.parametrize("threads", [0, -2, 1.5, True, "2"])
def test_bad_binning_threads_are_refused(threads):
    with pytest.raises(ValueError, match="n_threads must be a positive integer or -1"):
        apsplit.Dataset(np.ones((3, 2)), n_threads=threads)


@pytest.mark.parametrize("fmt", [None, "csr"])
@pytest.mark.parametrize("bad, name", [(np.nan, "NaN"), (np.inf, "inf"), (-np.inf, "inf")])
def test_nan_or_inf_in_x_is_refused_by_name(bad, name, fmt):
    X = np.arange(12.0).reshape(4, 3)
    X[2, 1] = bad
    with pytest.raises(ValueError, match=f"X contains {name}; apsplit needs finite"):
        apsplit.Dataset(sp.csr_matrix(X) if fmt else X)
