"""The radix binning of dense features: np.unique's values and ranks, for any thread count."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit.kernels.binning import BLOCK, bin_columns, coarse_columns

# values whose bits differ in every radix digit, signed zeros, subnormals and the extremes
EDGES = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, -1.0, 1.0, 1.5, -1.5,
         np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0), 1.7976931348623157e308,
         -1.7976931348623157e308, 123456.789, -3e-200]

finite = st.floats(allow_nan=False, allow_infinity=False)
values = st.one_of(finite, st.sampled_from(EDGES), st.integers(-3, 3).map(float))


@st.composite
def column_sets(draw):
    n = draw(st.integers(1, 60))
    K = draw(st.integers(1, 4))
    return np.array([[draw(values) for _ in range(n)] for _ in range(K)])


def _values(binned, k):
    return binned.values[binned.offsets[k]:binned.offsets[k + 1]]


@settings(max_examples=300, deadline=None)
@given(column_sets())
def test_each_feature_gets_np_uniques_values_and_ranks(columns):
    binned = bin_columns(columns.T, 1)
    assert binned.finite.all() and binned.offsets[0] == 0
    assert binned.offsets[-1] == binned.values.size
    for k in range(columns.shape[0]):
        expected_values, expected_ranks = np.unique(columns[k], return_inverse=True)
        got = _values(binned, k)
        np.testing.assert_array_equal(got, expected_values)
        np.testing.assert_array_equal(binned.ranks[k], expected_ranks)
        assert not np.signbit(got[got == 0.0]).any()  # one zero, stored as +0.0


def test_signed_zeros_are_one_value():
    binned = bin_columns(np.array([[0.0, -0.0, -1.0, 0.0, -0.0]]).T, 1)
    np.testing.assert_array_equal(binned.offsets, [0, 2])
    np.testing.assert_array_equal(binned.values, [-1.0, 0.0])
    np.testing.assert_array_equal(binned.ranks[0], [1, 1, 0, 1, 1])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_column_holding_nan_or_inf_is_flagged_and_gets_no_values(bad, threads):
    """Only the bad column is flagged, wherever the bad value sits in it; the others are
    binned as usual (enough rows for two lanes)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20_000, BLOCK + 2))
    for k, row in [(1, 0), (BLOCK, 19_999), (BLOCK + 1, 7)]:
        X[row, k] = bad
    binned = bin_columns(X, threads)
    flagged = [1, BLOCK, BLOCK + 1]
    np.testing.assert_array_equal(np.flatnonzero(~binned.finite), flagged)
    for k in range(X.shape[1]):
        expected = [] if k in flagged else np.unique(X[:, k])
        np.testing.assert_array_equal(_values(binned, k), expected)


@pytest.mark.parametrize("order", ["C", "F"])
def test_many_values_sort_as_np_unique_on_every_thread_count(order):
    """Enough values for two lanes' work, in every radix digit (continuous, integer-valued
    and heavily tied columns), X in either memory layout, more features than a block
    (``BLOCK``) and not a multiple of it, so the lanes' shares end inside blocks."""
    rng = np.random.default_rng(0)
    n = 20_000
    kinds = [rng.normal(size=n) * 1e3, rng.integers(-50, 50, n).astype(float),
             rng.choice(EDGES, n), -np.abs(rng.standard_cauchy(n))]
    columns = np.array([rng.permutation(kinds[k % 4]) for k in range(BLOCK + 3)])
    X = np.asarray(columns.T, order=order)
    one = bin_columns(X, 1)
    for threads in (2, 3):
        other = bin_columns(X, threads)
        for got, want in zip(other, one):
            np.testing.assert_array_equal(got, want)
    for k in range(columns.shape[0]):
        expected_values, expected_ranks = np.unique(columns[k], return_inverse=True)
        np.testing.assert_array_equal(_values(one, k), expected_values)
        np.testing.assert_array_equal(one.ranks[k], expected_ranks)


REFERENCE_FIELDS = ("of_rank", "offsets", "span", "codes", "by_rank", "bin_rows")


def _coarse_reference(codes, bin_offsets, two_level, max_bins):
    """The CoarseBins fields of dense codes (``REFERENCE_FIELDS``), feature by feature in
    numpy: ``group_ranks`` of each feature's rank counts, its examples' coarse bins, and a
    two-level feature's rows in a stable argsort by rank, with where each coarse bin's rows
    start."""
    from apsplit.kernels.coarse import group_ranks
    of_rank, offsets, span, coarse_codes, by_rank, bin_rows = [], [0], [], [], [], []
    position = 0
    for k, row in enumerate(codes):
        n_ranks = bin_offsets[k + 1] - bin_offsets[k]
        counts = np.bincount(row, minlength=n_ranks)
        local = np.arange(n_ranks) if n_ranks <= max_bins else group_ranks(counts, max_bins)
        of_rank.append(local)
        offsets.append(offsets[-1] + local.max() + 1)
        span.append(np.bincount(local))
        coarse_codes.append(local[row])
        bin_counts = np.bincount(local, weights=counts).astype(np.int64) if two_level[k] \
            else np.zeros(local.max() + 1, np.int64)
        bin_rows.append(position + np.concatenate([[0], np.cumsum(bin_counts)[:-1]]))
        if two_level[k]:
            by_rank.append(np.argsort(row, kind="stable"))
            position += row.size
    return (np.concatenate(of_rank), np.array(offsets), np.concatenate(span),
            np.array(coarse_codes), np.concatenate(by_rank + [np.zeros(0, np.int64)]),
            np.concatenate(bin_rows + [[position]]))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=5), st.integers(30, 120),
       st.integers(2, 6), st.randoms(use_true_random=False))
def test_coarse_columns_group_each_features_ranks_and_sort_its_rows(n_values, n, max_bins,
                                                                    random):
    """Features of few values (one coarse bin each), of many (grouped, heavy values alone)
    and two-level ones, on one and two threads."""
    codes = np.array([[random.randrange(m) ** 2 % m for _ in range(n)] for m in n_values])
    codes = np.array([np.unique(row, return_inverse=True)[1] for row in codes], np.uint16)
    bin_offsets = np.concatenate([[0], np.cumsum(codes.max(axis=1).astype(np.int64) + 1)])
    two_level = np.array([random.random() < 0.6 and bin_offsets[k + 1] - bin_offsets[k] > 1
                          for k in range(len(n_values))])
    expected = _coarse_reference(codes, bin_offsets, two_level, max_bins)
    for threads in (1, 2):
        got = coarse_columns(codes, bin_offsets, two_level, max_bins, 0, threads)
        for name, want in zip(REFERENCE_FIELDS, expected):
            np.testing.assert_array_equal(getattr(got, name), want, err_msg=name)


def test_coarse_columns_are_the_same_on_two_threads_with_two_lanes_of_work():
    rng = np.random.default_rng(1)
    n = 30_000
    columns = np.array([rng.normal(size=n), rng.integers(0, 300, n).astype(float),
                        rng.integers(0, 3, n).astype(float), rng.normal(size=n).round(2)])
    binned = bin_columns(columns.T, 1)
    ranks, bin_offsets = binned.ranks, binned.offsets
    two_level = np.diff(bin_offsets) > 16 * 256
    expected = _coarse_reference(ranks, bin_offsets, two_level, 256)
    got = coarse_columns(ranks, bin_offsets, two_level, 256, 0, 2)
    for name, want in zip(REFERENCE_FIELDS, expected):
        np.testing.assert_array_equal(getattr(got, name), want, err_msg=name)
