"""Python threads for per-feature numpy work (apsplit.parallel.each_feature)."""

import threading

import numba
import pytest

from apsplit.kernels.lanes import MIN_WORK_PER_LANE
from apsplit.parallel import each_feature


def _calls(n_features, n_values, n_threads):
    seen, lock = [], threading.Lock()

    def work(k):
        with lock:
            seen.append((k, threading.get_ident()))

    each_feature(work, n_features, n_values, n_threads)
    return seen


def test_little_work_stays_on_the_callers_thread_in_feature_order():
    seen = _calls(5, MIN_WORK_PER_LANE, 2)
    assert [k for k, _ in seen] == list(range(5))
    assert {ident for _, ident in seen} == {threading.get_ident()}


@pytest.mark.skipif(numba.get_num_threads() < 2, reason="one thread: nothing to deal")
def test_features_are_dealt_once_each_to_threads_that_run_together():
    # each call waits for a call on another thread: on one thread the barrier times out
    barrier, seen = threading.Barrier(2, timeout=20), []

    def work(k):
        barrier.wait()
        seen.append(k)

    each_feature(work, 6, 100 * MIN_WORK_PER_LANE, 2)
    assert sorted(seen) == list(range(6))


def test_an_error_in_the_work_reaches_the_caller():
    def work(k):
        if k == 3:
            raise RuntimeError("feature 3")

    with pytest.raises(RuntimeError, match="feature 3"):
        each_feature(work, 6, 100 * MIN_WORK_PER_LANE, 2)
