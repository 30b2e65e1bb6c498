"""How many of numba's threads the kernels use: ``n_jobs`` as scikit-learn,
XGBoost and LightGBM users pass it.

The threaded kernels (``kernels.coarse``: a node's coarse histograms and
survivor bounds, one feature per thread) give the same result for any
number of threads: each feature's sums are made by one thread, in one order.
"""

from contextlib import contextmanager
from numbers import Integral

import numba

__all__ = ["resolve_n_jobs", "threads"]


def resolve_n_jobs(n_jobs):
    """Threads for ``n_jobs``: None or -1 all cores (as XGBoost and LightGBM),
    k > 0 at most k, -k all but k - 1 (as joblib)."""
    available = numba.config.NUMBA_NUM_THREADS
    if n_jobs is None:
        return available
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    if n_jobs > 0:
        return min(int(n_jobs), available)
    return max(1, available + 1 + int(n_jobs))


@contextmanager
def threads(n_jobs):
    """Run the enclosed kernels on ``resolve_n_jobs(n_jobs)`` threads, then restore."""
    previous = numba.get_num_threads()
    numba.set_num_threads(resolve_n_jobs(n_jobs))
    try:
        yield
    finally:
        numba.set_num_threads(previous)
