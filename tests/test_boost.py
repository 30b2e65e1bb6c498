"""The boosting clients' per-round bookkeeping (kernels.boost) against plain numpy: ties
between classes' votes, rows of weight 0, two classes and more."""

import numpy as np
import pytest

from apsplit.kernels.boost import add_round_votes, reweight, tree_misses


@pytest.mark.parametrize("C", [2, 3, 5])
@pytest.mark.parametrize("seed", [0, 1])
def test_round_votes_and_training_error_are_numpys(C, seed):
    """Each row votes for the first class of largest vote (np.argmax), ties included;
    the error sums the original weights of the rows voted wrong."""
    rng = np.random.default_rng(seed)
    n = 1001
    votes = rng.integers(-2, 3, size=(n, C)).astype(float)  # many ties
    leaf_class, leaves = rng.integers(0, C, 7), rng.integers(0, 7, n)
    predicted = leaf_class[leaves]
    codes = rng.integers(0, C, n)
    w0 = rng.random(n) * (rng.random(n) < 0.8)
    alpha = 0.5 if seed else 0.0  # alpha 0 leaves the ties as drawn
    expected = votes + np.where(np.arange(C) == predicted[:, None], alpha, -alpha / (C - 1))
    error = add_round_votes(votes, leaf_class, leaves, alpha, codes, w0)
    np.testing.assert_array_equal(votes, expected)
    wrong = np.argmax(expected, axis=1) != codes
    assert wrong.any() and not wrong.all()
    assert error == pytest.approx(w0[wrong].sum(), rel=1e-12)
    assert error == _row_order_sum(w0[wrong])


def _row_order_sum(terms):
    total = 0.0
    for term in terms:
        total += term
    return total


def test_tree_misses_and_reweighting_are_numpys():
    rng = np.random.default_rng(2)
    n = 999
    leaf_class, leaves, codes = rng.integers(0, 3, 8), rng.integers(0, 8, n), rng.integers(0, 3, n)
    w = rng.random(n)
    miss, err = tree_misses(leaf_class, leaves, codes, w)
    assert miss.dtype == np.bool_
    np.testing.assert_array_equal(miss, leaf_class[leaves] != codes)
    assert err == _row_order_sum(w[miss])  # the flagged rows' weights, in row order
    expected = np.where(miss, w * 3.0, w)
    expected /= _row_order_sum(expected)
    zero = np.zeros(n, np.bool_)
    zero[:5] = True
    floor = np.sort(expected)[20]
    n_positive = reweight(w, miss, 3.0, zero, floor)
    expected = np.where(zero, 0.0, np.maximum(expected, floor))
    np.testing.assert_array_equal(w, expected)  # the same products and quotients
    assert n_positive == n - 5
