"""The statistics kernels (kernels.stats): the scalar two-class score with which the
prefilter scores every coarse boundary is the generic canonical score, bit for bit."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import scaled

from apsplit.kernels.criteria import CRITERIA, NO_UB
from apsplit.kernels.stats import _full_split, generic_full_split, two_class_split

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
