"""The engine's parallel kernels run only their ``prange`` in parallel, and items are dealt
to lanes by their cost (``kernels/lanes.py``)."""

import importlib
import pkgutil

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit, prange
from numba.core.registry import CPUDispatcher

import apsplit.kernels
from apsplit.kernels import newton_grow
from apsplit.kernels.lanes import PRANGE_ONLY, deal, share
from strategies import scaled


def _dispatchers():
    for info in pkgutil.iter_modules(apsplit.kernels.__path__):
        module = importlib.import_module(f"apsplit.kernels.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__:
                yield f"{info.name}.{name}", value


def test_every_parallel_kernel_parallelises_only_its_prange():
    """A kernel compiled with ``parallel=True`` would run its array expressions on every
    thread, whatever ``n_threads`` asks (and a dict of options is emptied by numba's first
    compile); the built-in Newton grower's scan batches (its bound globals) are checked too."""
    parallel = {name: d.targetoptions["parallel"] for name, d in _dispatchers()
                if d.targetoptions.get("parallel")}
    assert {"binning.bin_columns", "binning.coarse_columns", "coarse._build_shares",
            "coarse.survivors",
            "refine.refine_survivors",
            "search._exhaustive_lanes",
            "newton_hist._sum_slots", "newton_hist._derive_slots",
            "newton_moves.move_rows", "newton_moves.move_present_rows"} <= set(parallel)
    grower = newton_grow.grow_newton.py_func.__globals__
    for name in ("scan_batch", "scan_bins_batch"):
        parallel[f"grow_newton's {name}"] = grower[name].targetoptions["parallel"]
    for name, options in parallel.items():
        assert options == PRANGE_ONLY, name


def _count_parfors(dispatcher):
    return [cres.metadata["parfor_diagnostics"].count_parfors()
            for cres in dispatcher.overloads.values()]


def test_the_options_keep_array_expressions_serial_in_every_signature():
    """numba honours the options at every compile: the prange is the one parallel loop of
    each signature, where ``parallel=True`` makes np.zeros a second one."""
    def kernel(a):
        out = np.zeros(a.shape[0] + 1)  # not fused with the prange: a parfor of its own
        for i in prange(2):
            out[i] = a[i] * 2
        return out

    only = njit(parallel=PRANGE_ONLY)(kernel)
    everything = njit(parallel=True)(kernel)
    for dtype in (np.float64, np.float32):
        a = np.arange(6, dtype=dtype)
        np.testing.assert_array_equal(only(a), everything(a))
    assert _count_parfors(only) == [1, 1]
    assert _count_parfors(everything) == [2, 2]


@settings(max_examples=scaled(0.5))
@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=40), st.integers(1, 8))
def test_dealing_balances_within_the_largest_item(costs, lanes):
    """Longest processing time first: each lane's load is within the largest item of the
    least loaded lane's (the greedy invariant), and every item has one owner."""
    costs = np.array(costs)
    owner = deal(costs, lanes)
    assert owner.min() >= 0 and owner.max() < lanes
    load = np.bincount(owner, weights=costs, minlength=lanes)
    assert load.max() - load.min() <= costs.max() + 1e-9 * costs.sum()


@settings(max_examples=scaled(0.5))
@given(st.integers(0, 40), st.integers(1, 8), st.sampled_from([0.0, 3.5]))
def test_dealing_spreads_items_of_equal_cost(n_items, lanes, cost):
    """Items of one cost, zero included, go round the lanes: no lane holds two more than
    another (ties in load go to the lane holding the fewest items)."""
    owner = deal(np.full(n_items, cost), lanes)
    held = np.bincount(owner, minlength=lanes)
    assert held.max() - held.min() <= 1


@njit(parallel=PRANGE_ONLY)
def _shares_in_prange(lanes, n):
    bounds = np.empty((lanes, 2), np.int64)
    for lane in prange(lanes):  # an unsigned index: the shares are still integers
        bounds[lane, 0], bounds[lane, 1] = share(lane, lanes, n)
    return bounds


@given(st.integers(1, 6), st.integers(0, 50))
def test_shares_cover_the_items_once_in_order(lanes, n):
    """``lanes.share``: the lanes' contiguous shares, in lane order, cover 0 .. n - 1 once,
    differ in size by at most one, and are the same taken inside a prange."""
    bounds = np.array([share(lane, lanes, n) for lane in range(lanes)])
    assert bounds[0, 0] == 0 and bounds[-1, 1] == n
    np.testing.assert_array_equal(bounds[1:, 0], bounds[:-1, 1])
    sizes = bounds[:, 1] - bounds[:, 0]
    assert sizes.min() >= 0 and sizes.max() - sizes.min() <= 1
    np.testing.assert_array_equal(_shares_in_prange(lanes, n), bounds)
