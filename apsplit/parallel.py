"""Python threads for per-feature numpy work that releases the GIL (numpy's sorts).

The engine's kernels run their parallel loops with numba (``kernels.lanes``); the
preparation of X (binning, sorting columns) is numpy's, one feature at a time, and
numpy releases the GIL while it sorts.  ``each_feature`` runs such work on a few
Python threads; each call writes only its own feature's outputs, so the result
does not depend on the threads.
"""

import numbers
from concurrent.futures import ThreadPoolExecutor

import numba

from .kernels.lanes import lane_count

__all__ = ["check_threads", "each_feature"]


def check_threads(n_threads, what="n_threads"):
    """The threads to use for ``n_threads``: a positive integer, capped at numba's thread
    count (``numba.get_num_threads()``: every core unless lowered), or -1 for all of them."""
    available = numba.get_num_threads()
    if isinstance(n_threads, numbers.Integral) and not isinstance(n_threads, bool) \
            and n_threads == -1:
        return available
    if isinstance(n_threads, bool) or not isinstance(n_threads, numbers.Integral) \
            or n_threads < 1:
        raise ValueError(f"{what} must be a positive integer or -1 (every thread), "
                         f"got {n_threads!r}")
    return min(int(n_threads), available)


def each_feature(work, n_features, n_values, n_threads):
    """``work(k)`` for every feature k < ``n_features``, the features dealt round-robin to
    up to ``n_threads`` threads, one per ``kernels.lanes.MIN_WORK_PER_LANE`` of the
    ``n_values`` values at least (one lane: the caller's thread alone)."""
    lanes = lane_count(n_threads, n_features, n_values)
    if lanes == 1:
        for k in range(n_features):
            work(k)
        return

    def lane(first):
        for k in range(first, n_features, lanes):
            work(k)

    with ThreadPoolExecutor(lanes) as pool:
        list(pool.map(lane, range(lanes)))
