"""How many threads a parallel loop of the engine uses (its *lanes*).

A lane is a share of a loop's independent items (features) run by one thread;
what each item computes does not depend on the lanes, so neither do the
results.  Waking a thread costs tens of microseconds, so a loop gets one lane
per ``MIN_WORK_PER_LANE`` visits of its work (rows x features, entries, bins),
at most ``n_threads`` and its number of items; with one lane the caller runs
the loop on its own thread, without a parallel region.
"""

from numba import njit

MIN_WORK_PER_LANE = 1 << 15  # visits: about 30-100 microseconds of a scan


@njit(cache=True)
def lane_count(n_threads, n_items, work):
    """The lanes of a loop over ``n_items`` items holding ``work`` visits in all."""
    return max(1, min(n_threads, n_items, work // MIN_WORK_PER_LANE))
