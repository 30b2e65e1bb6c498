"""The indexed heap that orders features in the adaptive searches."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit.kernels import heap as hp

operations = st.lists(st.tuples(st.sampled_from(["update", "remove"]), st.integers(0, 7),
                                st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0, np.inf])),
                      max_size=60)


@settings(max_examples=300, deadline=None)
@given(operations)
def test_heap_matches_a_dict(ops):
    """After any sequence of updates and removals, top and top_other agree with
    a plain dict, ties going to the smaller id."""
    h = hp.new_heap(8)
    reference = {}
    for op, ident, key in ops:
        if op == "update":
            hp.update(h, ident, key)
            reference[ident] = key
        else:
            hp.remove(h, ident)
            reference.pop(ident, None)
        ranked = sorted(reference, key=lambda i: (reference[i], i))
        assert hp.top(h) == (ranked[0] if ranked else -1)
        for ident in range(8):
            others = [i for i in ranked if i != ident]
            assert hp.top_other(h, ident) == (others[0] if others else -1)
