"""The in-place heap sorts used inside the search kernels."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit.kernels.sort import heapsort


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 50), max_size=80))
def test_heapsort_by_value(values):
    items = np.array(values, np.int64)
    heapsort(np.empty(0), items)
    assert items.tolist() == sorted(values)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 0.5]), max_size=80))
def test_heapsort_by_key_is_a_stable_argsort(keys):
    keys = np.array(keys, np.float64)
    items = np.arange(keys.shape[0], dtype=np.int64)
    heapsort(keys, items)
    assert items.tolist() == np.argsort(keys, kind="stable").tolist()
