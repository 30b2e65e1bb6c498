"""How many threads a parallel loop of the engine uses (its *lanes*).

A lane is a share of a loop's independent items (features) run by one thread;
what each item computes does not depend on the lanes, so neither do the
results.  Waking a thread costs tens of microseconds, so a loop gets one lane
per ``MIN_WORK_PER_LANE`` visits of its work (rows x features, entries, bins),
at most ``n_threads`` and its number of items; with one lane the caller runs
the loop on its own thread, without a parallel region.  Items of unequal cost are
dealt to the lanes by it (``deal``): numba's OpenMP layer splits a ``prange`` into
equal static shares, so a loop over lanes balances only what it is given.
"""

import numpy as np
from numba import njit
from numba.core.cpu import ParallelOptions

MIN_WORK_PER_LANE = 1 << 15  # visits: about 30-100 microseconds of a scan

# numba's ``parallel`` option for a kernel whose one parallel loop is its ``prange``.
# ``parallel=True`` also turns the kernel's array expressions (``np.zeros``, ``.sum()``,
# slice assignments) into parallel loops on every thread numba has, whatever
# ``n_threads`` asks: a one-thread fit then ran on both cores, and, with the OpenMP
# layer, its threads spun after each such loop (beside one other busy process on the 2
# cores, a one-thread fit took 4-5x the CPU time it takes with these options:
# ``python -m benchmarks.newton_against <a checkout before>``, docs/benchmarks.md).  An
# options object, not a dict: numba empties a dict at the first compile and compiles the
# next signatures with every option on.
PRANGE_ONLY = ParallelOptions({"prange": True, "numpy": False, "reduction": False,
                               "setitem": False, "inplace_binop": False,
                               "comprehension": False, "stencil": False, "fusion": False})


@njit(cache=True)
def lane_count(n_threads, n_items, work):
    """The lanes of a loop over ``n_items`` items holding ``work`` visits in all."""
    return max(1, min(n_threads, n_items, work // MIN_WORK_PER_LANE))


@njit(cache=True, inline='always')
def share(lane, lanes, n):
    """(first, last): lane ``lane``'s contiguous share first .. last - 1 of n items, the
    shares of ``lanes`` lanes covering 0 .. n - 1 in order.  ``lane`` may be a prange's
    index, which is unsigned: it is cast, so the bounds are integers."""
    lane = np.int64(lane)
    return lane * n // lanes, (lane + 1) * n // lanes


@njit(cache=True)
def deal(costs, lanes):
    """The lane of each item: by decreasing cost, each to the least loaded lane, of
    those the one holding the fewest items (a lane then carries at most the least
    loaded one's cost plus the largest item's, and items of equal cost, zero included,
    are spread over the lanes rather than piled on the first)."""
    owner = np.zeros(costs.shape[0], np.int64)
    load = np.zeros(lanes)
    items = np.zeros(lanes, np.int64)
    for i in np.argsort(-costs, kind="mergesort"):
        lane = 0
        for other in range(1, lanes):
            if load[other] < load[lane] or (load[other] == load[lane]
                                            and items[other] < items[lane]):
                lane = other
        owner[i] = lane
        load[lane] += costs[i]
        items[lane] += 1
    return owner
