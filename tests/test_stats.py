"""The statistics kernels (kernels.stats): the scalar two-class score with which the
prefilter scores every coarse boundary is the generic canonical score, bit for bit; a
node's two class totals, summed in registers, are the sums in index order, bit for bit."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import WEIGHT_KINDS, scaled

from apsplit.kernels.criteria import CRITERIA, NO_UB
from apsplit.kernels.stats import (_full_split, class_totals, generic_full_split,
                                   two_class_split)

WEIGHT = st.one_of(st.just(0.0), st.just(-1e-17), st.just(5e-324),  # empty, a rounding
                   st.floats(1e-300, 1e300), st.floats(0.0, 1.0))    # residue, the least float


@settings(max_examples=scaled(3.0))
@given(st.sampled_from(sorted(CRITERIA)), WEIGHT, WEIGHT, WEIGHT, WEIGHT)
def test_two_class_split_is_the_generic_full_split_bit_for_bit(criterion, l0, l1, r0, r1):
    """Left weights and the node's (left + right), with empty children, negative
    rounding residues, subnormals and ratios up to 1e600, for every criterion."""
    crit = CRITERIA[criterion]
    totals = np.array([l0 + max(r0, 0.0), l1 + max(r1, 0.0)])
    seen_total = totals[0] + totals[1]
    left = np.array([l0, l1])
    generic = generic_full_split(crit, NO_UB, left, np.empty(2), totals, seen_total,
                                 np.zeros(2), 0.0)
    scalar = two_class_split(crit, l0, l1, totals[0], totals[1], seen_total)
    assert np.array_equal(np.float64(scalar), np.float64(generic), equal_nan=True)
    dispatched = _full_split(crit, NO_UB, left, np.empty(2), totals, seen_total, np.zeros(2), 0.0)
    assert np.array_equal(np.float64(dispatched), np.float64(generic), equal_nan=True)


@settings(max_examples=scaled(1.0))
@given(st.sampled_from(sorted(WEIGHT_KINDS)), st.integers(0, 60), st.integers(1, 3), st.data())
def test_class_totals_are_the_sums_in_index_order(kind, n, n_classes, data):
    """``class_totals`` (two classes: two registers, each row adding 0.0 to the other
    class) against each class's weights added one by one in index order, bit for bit:
    zero and extreme weights, one class only, an empty node, rows skipped."""
    weights = np.array(data.draw(st.lists(WEIGHT_KINDS[kind], min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)),
                 np.int64)
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, max(n - 1, 0)), max_size=n))),
                    np.int64) if n else np.zeros(0, np.int64)
    expected = np.zeros(n_classes)
    for i in rows:
        expected[y[i]] = expected[y[i]] + weights[i]
    got = class_totals(rows, weights, y, n_classes)
    assert got.tobytes() == expected.tobytes()
