"""The O(n) merge that keeps the weight order across boosting rounds equals a stable sort."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit.kernels.order import merge_groups
from strategies import scaled

# few distinct values (ties inside and between the groups), zeros, and spread ones
WEIGHTS = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0]), st.floats(1e-6, 1e3))
# factors that create ties between the groups (2 * 0.5 == 1 * 1.0) and ones that do not
FACTORS = st.one_of(st.sampled_from([0.5, 1.0, 2.0, 3.0]), st.floats(1e-3, 1e3))


def stable_sort(order, w):
    """``order`` by decreasing ``w``; ties keep their place in ``order``."""
    return order[np.argsort(-w[order], kind="stable")]


def boosting_step(old, flagged, flagged_factor, other_factor):
    """New weights as a boosting round makes them: one factor per group, then normalised."""
    new = old * np.where(flagged, flagged_factor, other_factor)
    total = new.sum()
    return new / total if total > 0 else new


@st.composite
def rounds(draw):
    """(previous order, new weights, flagged) as a boosting round hands them to the merge."""
    n = draw(st.integers(0, 60))
    old = np.array(draw(st.lists(WEIGHTS, min_size=n, max_size=n)))
    flagged = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    # the previous order: a stable sort of a random subset of the rows (boosting keeps
    # only rows of positive weight; trimmed clients look at a prefix)
    rows = np.array(draw(st.permutations(range(n))), dtype=np.int64)[:draw(st.integers(0, n))]
    order = stable_sort(rows, old)
    new = boosting_step(old, flagged, draw(FACTORS), draw(FACTORS))
    return order, new, flagged


@settings(max_examples=scaled(1.0))
@given(rounds())
def test_merge_equals_stable_sort(case):
    order, w, flagged = case
    merged = merge_groups(order, w, flagged)
    np.testing.assert_array_equal(merged, stable_sort(order, w))
    assert merged.dtype == order.dtype


@settings(max_examples=scaled(0.3))
@given(st.lists(WEIGHTS, min_size=1, max_size=40), st.lists(FACTORS, min_size=2, max_size=12),
       st.randoms(use_true_random=False))
def test_repeated_merges_equal_one_sort_per_round(weights, factors, random):
    """Several rounds in a row, each flagging a random group: the order never drifts."""
    w = np.array(weights)
    order = stable_sort(np.arange(w.size, dtype=np.int64), w)
    for a, b in zip(factors[::2], factors[1::2]):
        flagged = np.array([random.random() < 0.4 for _ in range(w.size)])
        w = boosting_step(w, flagged, a, b)
        expected = stable_sort(order, w)
        order = merge_groups(order, w, flagged)
        np.testing.assert_array_equal(order, expected)


def test_ties_between_groups_go_to_the_row_listed_first():
    order = np.array([3, 0, 2, 1], dtype=np.int64)
    w = np.array([1.0, 1.0, 1.0, 1.0])
    for flagged in ([True, False, True, False], [False, False, False, True], [True] * 4):
        np.testing.assert_array_equal(merge_groups(order, w, np.array(flagged)), order)


def test_heavier_group_moves_ahead():
    # rows 0, 1 correct (weights halved), rows 2, 3 misclassified (doubled)
    order = np.array([0, 1, 2, 3], dtype=np.int64)
    w = np.array([4.0, 3.0, 2.0, 1.0]) * np.array([0.5, 0.5, 2.0, 2.0])  # 2, 1.5, 4, 2
    flagged = np.array([False, False, True, True])
    np.testing.assert_array_equal(merge_groups(order, w, flagged), [2, 0, 3, 1])


def test_empty_order():
    assert merge_groups(np.zeros(0, np.int64), np.ones(3), np.zeros(3, bool)).size == 0
