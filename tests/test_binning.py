"""The radix binning of dense features: np.unique's values and ranks, for any thread count."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit.kernels.binning import bin_columns

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


@settings(max_examples=300, deadline=None)
@given(column_sets())
def test_each_feature_gets_np_uniques_values_and_ranks(columns):
    ranks, sorted_values, n_values = bin_columns(columns, 1)
    for k in range(columns.shape[0]):
        expected_values, expected_ranks = np.unique(columns[k], return_inverse=True)
        got = sorted_values[k, :n_values[k]]
        np.testing.assert_array_equal(got, expected_values)
        np.testing.assert_array_equal(ranks[k], expected_ranks)
        assert not np.signbit(got[got == 0.0]).any()  # one zero, stored as +0.0


def test_signed_zeros_are_one_value():
    ranks, sorted_values, n_values = bin_columns(np.array([[0.0, -0.0, -1.0, 0.0, -0.0]]), 1)
    assert n_values[0] == 2
    np.testing.assert_array_equal(sorted_values[0, :2], [-1.0, 0.0])
    np.testing.assert_array_equal(ranks[0], [1, 1, 0, 1, 1])


def test_many_values_sort_as_np_unique_on_every_thread_count():
    """Enough values for two lanes' work, in every radix digit (continuous, integer-valued
    and heavily tied columns)."""
    rng = np.random.default_rng(0)
    n = 40_000
    columns = np.array([rng.normal(size=n) * 1e3, rng.integers(-50, 50, n).astype(float),
                        rng.choice(EDGES, n), -np.abs(rng.standard_cauchy(n))])
    one = bin_columns(columns, 1)
    two = bin_columns(columns, 2)
    for got_one, got_two in zip(one, two):
        np.testing.assert_array_equal(got_one, got_two)
    for k in range(columns.shape[0]):
        expected_values, expected_ranks = np.unique(columns[k], return_inverse=True)
        np.testing.assert_array_equal(one[1][k, :one[2][k]], expected_values)
        np.testing.assert_array_equal(one[0][k], expected_ranks)
