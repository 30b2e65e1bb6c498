"""Binning dense features: each one's sorted distinct values and every example's rank
among them (``bin_columns``), then its coarse bins (``coarse_columns``).

``np.unique(x, return_inverse=True)`` computes the ranks with a comparison sort
(``argsort``); here the values are sorted by an LSD radix sort of their bits:
with the coarse bins, binning takes 41-53% of its former time at 56,000 rows and
38% at 112,000 (higgs7k, ijcnn1: the scaling benchmark's memory table,
docs/benchmarks.md).  Both kernels deal the features to ``n_threads`` threads;
each feature is computed alone, so the result does not depend on the count.

Why the order is right.  A finite float64's bits, with the sign bit flipped
for a nonnegative value and every bit flipped for a negative one, read as an
unsigned integer, order the values as the floats order them, -0.0 just below
+0.0 (IEEE 754's sign-magnitude layout).  An LSD radix sort by those keys,
``DIGIT`` bits per pass from the lowest, is stable, so it sorts by the whole
key.  A pass whose digit is the same for every key moves nothing and is
skipped.  The distinct values are then read in sorted order, a new one where
a value differs from the last distinct one (``!=``, so -0.0 and +0.0 are one
value, stored as +0.0); an example's rank is the number of distinct values
below its own.  A column holding NaN or inf is not sorted: the key pass finds it
(its exponent bits are all ones) and ``distinct_values`` returns -1, so the caller
can refuse X without a pass of its own.
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .coarse import (CoarseBins, group_ranks, list_other_rows, no_listed_entries, no_other_rows,
                     sort_by_rank)
from .lanes import PRANGE_ONLY, lane_count, share

DIGIT = 11  # bits sorted per radix pass: 2048 counters stay in L1; 6 passes cover 64 bits
BLOCK = 8   # features gathered in one pass over the rows: a 64-byte line of float64
EXPONENT = np.uint64(0x7FF) << np.uint64(52)  # all ones: inf or NaN


class BinnedColumns(NamedTuple):
    """The dense features binned (``bin_columns``)."""
    ranks: np.ndarray    # (K, n) uint32: each example's rank among its feature's values
    values: np.ndarray   # feature k's sorted distinct values: values[offsets[k]:offsets[k + 1]]
    offsets: np.ndarray  # (K + 1,) int64
    finite: np.ndarray   # (K,) bool: feature k holds no NaN or inf (else its bins are empty)


@njit(cache=True)
def _sortable_keys(x, keys, order):
    """Each value's order-preserving unsigned key (module docstring), and 0 .. n - 1;
    returns how many values are NaN or inf."""
    bits = x.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    not_finite = 0
    for i in range(x.shape[0]):
        b = bits[i]
        keys[i] = ~b if b & sign else b | sign
        order[i] = np.uint32(i)
        not_finite += (b & EXPONENT) == EXPONENT
    return not_finite


@njit(cache=True)
def distinct_values(x, ranks, values, scratch_keys, scratch_order, counts):
    """Sort ``x`` (contiguous) by radix; ``values[:m]`` its m distinct values in
    increasing order and ``ranks[i]`` the rank of ``x[i]`` among them; returns m, or -1
    (ranks and values unset) if ``x`` holds NaN or inf.  ``scratch_keys`` (2, n) uint64,
    ``scratch_order`` (2, n) uint32 and ``counts`` (2^DIGIT) int64 are scratch."""
    n = x.shape[0]
    keys, spare_keys = scratch_keys[0], scratch_keys[1]
    order, spare_order = scratch_order[0], scratch_order[1]
    if _sortable_keys(x, keys, order):
        return -1
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
def _bin_lane(X, ranks, values, n_values, lane, lanes):
    """``distinct_values`` of this lane's contiguous share of the features, ``BLOCK``
    at a time: a block's columns are gathered into this lane's scratch in one pass over
    the rows (a row's block is one cache line of a C-order X), then sorted one by one."""
    n, K = X.shape
    block = np.empty((BLOCK, n))
    scratch_keys = np.empty((2, n), np.uint64)
    scratch_order = np.empty((2, n), np.uint32)
    counts = np.empty(1 << DIGIT, np.int64)
    first, end = share(lane, lanes, K)
    for start in range(first, end, BLOCK):
        width = min(BLOCK, end - start)
        for i in range(n):
            for j in range(width):
                block[j, i] = X[i, start + j]
        for j in range(width):
            k = start + j
            n_values[k] = distinct_values(block[j], ranks[k], values[k], scratch_keys,
                                          scratch_order, counts)


@njit(cache=True)
def _pack_lane(padded, offsets, values, lane, lanes):
    """Copy this lane's share of the features' distinct values from their rows of
    ``padded`` to their stretches of ``values``."""
    first, end = share(lane, lanes, padded.shape[0])
    for k in range(first, end):
        values[offsets[k]:offsets[k + 1]] = padded[k, :offsets[k + 1] - offsets[k]]


@njit(cache=True, parallel=PRANGE_ONLY)
def bin_columns(X, n_threads):
    """The ``BinnedColumns`` of ``X`` (n examples by K features, in any memory layout):
    ``distinct_values`` of every column, the features in ``n_threads`` contiguous
    shares, one per thread, each feature computed alone, so the result is the same for
    any count.  X is read in place, without a transposed copy.  A feature holding NaN
    or inf is flagged in ``finite`` and gets no values."""
    n, K = X.shape
    ranks = np.empty((K, n), np.uint32)
    padded = np.empty((K, n))
    n_values = np.zeros(K, np.int64)
    lanes = lane_count(n_threads, K, K * n)
    if lanes == 1:
        _bin_lane(X, ranks, padded, n_values, np.int64(0), np.int64(1))
    else:
        # prange's index is unsigned: cast, or the callee compiles twice
        for lane in prange(lanes):
            _bin_lane(X, ranks, padded, n_values, np.int64(lane), lanes)
    finite = np.empty(K, np.bool_)
    offsets = np.zeros(K + 1, np.int64)
    for k in range(K):
        finite[k] = n_values[k] >= 0
        offsets[k + 1] = offsets[k] + max(n_values[k], 0)
    values = np.empty(offsets[K])
    if lanes == 1:
        _pack_lane(padded, offsets, values, np.int64(0), np.int64(1))
    else:
        for lane in prange(lanes):
            _pack_lane(padded, offsets, values, np.int64(lane), lanes)
    return BinnedColumns(ranks, values, offsets, finite)


@njit(cache=True)
def _rank_counts(codes_k, n_ranks):
    counts = np.zeros(n_ranks, np.int64)
    for i in range(codes_k.shape[0]):
        counts[codes_k[i]] += 1
    return counts


@njit(cache=True)
def _group_lane(codes, bin_offsets, max_bins, of_rank, n_coarse, lane, lanes):
    """Feature k's coarse bin of each rank (``coarse.group_ranks``; one per rank for a
    feature of at most ``max_bins`` values) and its number of coarse bins, for the
    features k = lane (mod lanes)."""
    for k in range(lane, codes.shape[0], lanes):
        lo, hi = bin_offsets[k], bin_offsets[k + 1]
        if hi - lo <= max_bins:
            for r in range(hi - lo):
                of_rank[lo + r] = r
        else:
            of_rank[lo:hi] = group_ranks(_rank_counts(codes[k], hi - lo), max_bins)
        n_coarse[k] = of_rank[hi - 1] + 1


@njit(cache=True)
def _fill_lane(codes, bin_offsets, of_rank, first_row, out, lane, lanes):
    """``out``'s span, codes, by_rank and bin_rows of the features k = lane (mod lanes);
    a two-level feature's rows sorted by rank start at ``first_row[k]`` in by_rank (none:
    ``first_row[k + 1] == first_row[k]``)."""
    n = codes.shape[1]
    for k in range(lane, codes.shape[0], lanes):
        lo, hi = out.offsets[k], out.offsets[k + 1]
        local = of_rank[bin_offsets[k]:bin_offsets[k + 1]]
        for r in range(local.shape[0]):
            out.span[lo + local[r]] += 1
        for i in range(n):
            out.codes[k, i] = local[codes[k, i]]
        position = first_row[k]
        out.bin_rows[lo:hi] = position  # each bin's first row (bin_rows[hi]: the next's)
        if first_row[k + 1] == position:
            continue
        counts = _rank_counts(codes[k], local.shape[0])
        sort_by_rank(codes[k], counts, out.by_rank[position:position + n])
        r = 0
        for g in range(lo, hi):
            out.bin_rows[g] = position
            while r < local.shape[0] and lo + local[r] == g:
                position += counts[r]
                r += 1


@njit(cache=True, parallel=PRANGE_ONLY)
def coarse_columns(codes, bin_offsets, two_level, max_bins, min_mean_bins, n_threads):
    """The ``coarse.CoarseBins`` of dense ``codes`` (K, n) with exact bins ``bin_offsets``
    (``min_mean_bins``: ``coarse.pays``'s): each feature's ranks grouped into at most
    ``max_bins`` coarse bins (``coarse.group_ranks``), its examples' coarse bins, for
    the ``two_level`` features their rows sorted by rank (``coarse.sort_by_rank``), for
    the others with a dominant bin their other rows (``coarse.list_other_rows``); the
    features dealt to ``n_threads`` threads, each computed alone, so the result is the
    same for any count."""
    K, n = codes.shape
    lanes = lane_count(n_threads, K, K * n)
    of_rank = np.empty(bin_offsets[-1], np.int64)
    n_coarse = np.zeros(K, np.int64)
    if lanes == 1:
        _group_lane(codes, bin_offsets, max_bins, of_rank, n_coarse, np.int64(0), np.int64(1))
    else:
        # prange's index is unsigned: cast, or the callee compiles twice
        for lane in prange(lanes):
            _group_lane(codes, bin_offsets, max_bins, of_rank, n_coarse, np.int64(lane), lanes)
    offsets = np.zeros(K + 1, np.int64)
    first_row = np.zeros(K + 1, np.int64)  # where each feature's rows sorted by rank start
    for k in range(K):
        offsets[k + 1] = offsets[k] + n_coarse[k]
        first_row[k + 1] = first_row[k] + (n if two_level[k] else 0)
    bin_rows = np.empty(offsets[K] + 1, np.int64)
    bin_rows[offsets[K]] = first_row[K]  # the others: each feature's lane
    none, unlisted = no_other_rows(K), no_listed_entries(K)
    out = CoarseBins(np.empty((K, n), np.uint8), unlisted.indptr, unlisted.bins, unlisted.rest_bin,
                     unlisted.rows, unlisted.bin_feature, offsets, np.zeros(offsets[K], np.int64),
                     of_rank.astype(np.uint8), min_mean_bins, np.empty(first_row[K], np.int32),
                     bin_rows, none.dominant, none.offsets, none.rows, none.codes)
    if lanes == 1:
        _fill_lane(codes, bin_offsets, of_rank, first_row, out, np.int64(0), np.int64(1))
    else:
        for lane in prange(lanes):
            _fill_lane(codes, bin_offsets, of_rank, first_row, out, np.int64(lane), lanes)
    others = list_other_rows(out.codes, offsets, two_level)
    return CoarseBins(out.codes, unlisted.indptr, unlisted.bins, unlisted.rest_bin,
                      unlisted.rows, unlisted.bin_feature, offsets, out.span, out.of_rank,
                      min_mean_bins, out.by_rank, bin_rows, others.dominant, others.offsets,
                      others.rows, others.codes)
