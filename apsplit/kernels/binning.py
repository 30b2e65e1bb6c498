"""Binning a dense feature: its sorted distinct values and each example's rank among them.

``np.unique(x, return_inverse=True)`` computes the same with a comparison sort
(``argsort``); here the values are sorted by an LSD radix sort of their bits,
about 3.5x faster on 56,000 continuous values, and the features are dealt to
``n_threads`` threads (``bin_columns``).

Why the order is right.  A finite float64's bits, with the sign bit flipped
for a nonnegative value and every bit flipped for a negative one, read as an
unsigned integer, order the values as the floats order them, -0.0 just below
+0.0 (IEEE 754's sign-magnitude layout).  An LSD radix sort by those keys,
``DIGIT`` bits per pass from the lowest, is stable, so it sorts by the whole
key.  A pass whose digit is the same for every key moves nothing and is
skipped.  The distinct values are then read in sorted order, a new one where
a value differs from the last distinct one (``!=``, so -0.0 and +0.0 are one
value, stored as +0.0); an example's rank is the number of distinct values
below its own.  The input must be finite (``Dataset`` checks it first).
"""

import numpy as np
from numba import njit, prange

from .lanes import PRANGE_ONLY, lane_count

DIGIT = 11  # bits sorted per radix pass: 2048 counters stay in L1; 6 passes cover 64 bits


@njit(cache=True)
def _sortable_keys(x, keys, order):
    """Each value's order-preserving unsigned key (module docstring), and 0 .. n - 1."""
    bits = x.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    for i in range(x.shape[0]):
        b = bits[i]
        keys[i] = ~b if b & sign else b | sign
        order[i] = np.uint32(i)


@njit(cache=True)
def distinct_values(x, ranks, values, scratch_keys, scratch_order, counts):
    """Sort ``x`` (finite, contiguous) by radix; ``values[:m]`` its m distinct values in
    increasing order and ``ranks[i]`` the rank of ``x[i]`` among them; returns m.
    ``scratch_keys`` (2, n) uint64, ``scratch_order`` (2, n) uint32 and ``counts``
    (2^DIGIT) int64 are scratch."""
    n = x.shape[0]
    keys, spare_keys = scratch_keys[0], scratch_keys[1]
    order, spare_order = scratch_order[0], scratch_order[1]
    _sortable_keys(x, keys, order)
    buckets = counts.shape[0]
    mask = np.uint64(buckets - 1)
    for shift in range(0, 64, DIGIT):
        s = np.uint64(shift)
        counts[:] = 0
        for i in range(n):
            counts[np.intp((keys[i] >> s) & mask)] += 1
        if n == 0 or counts[np.intp((keys[0] >> s) & mask)] == n:
            continue  # one digit for every key: the pass moves nothing
        start = 0
        for d in range(buckets):
            start, counts[d] = start + counts[d], start
        for i in range(n):
            d = np.intp((keys[i] >> s) & mask)
            q = counts[d]
            counts[d] = q + 1
            spare_keys[q] = keys[i]
            spare_order[q] = order[i]
        keys, spare_keys = spare_keys, keys
        order, spare_order = spare_order, order
    m = 0
    for q in range(n):
        i = order[q]
        if m == 0 or x[i] != values[m - 1]:
            values[m] = x[i] + 0.0  # -0.0 + 0.0 is +0.0
            m += 1
        ranks[i] = m - 1
    return m


@njit(cache=True)
def _bin_lane(columns, ranks, values, n_values, lane, lanes):
    """``distinct_values`` of the columns k = lane (mod lanes), with this lane's scratch."""
    n = columns.shape[1]
    scratch_keys = np.empty((2, n), np.uint64)
    scratch_order = np.empty((2, n), np.uint32)
    counts = np.empty(1 << DIGIT, np.int64)
    for k in range(lane, columns.shape[0], lanes):
        n_values[k] = distinct_values(columns[k], ranks[k], values[k], scratch_keys,
                                      scratch_order, counts)


@njit(cache=True, parallel=PRANGE_ONLY)
def bin_columns(columns, n_threads):
    """(ranks (K, n) uint32, values (K, n), n_values (K,)): ``distinct_values`` of every
    row of ``columns`` (K features by n examples, finite, C order), row k's distinct
    values in ``values[k, :n_values[k]]``; the features dealt to ``n_threads`` threads,
    each computed alone, so the result is the same for any count."""
    K, n = columns.shape
    ranks = np.empty((K, n), np.uint32)
    values = np.empty((K, n))
    n_values = np.zeros(K, np.int64)
    lanes = lane_count(n_threads, K, K * n)
    if lanes == 1:
        _bin_lane(columns, ranks, values, n_values, np.int64(0), np.int64(1))
    else:
        # prange's index is unsigned: cast, or the callee compiles twice
        for lane in prange(lanes):
            _bin_lane(columns, ranks, values, n_values, np.int64(lane), lanes)
    return ranks, values, n_values
