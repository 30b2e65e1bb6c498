"""Instrumentation kernels: a feature's bounds after a given prefix, and the
weight-order lower bound's per-feature counts."""

import numpy as np
from numba import njit

from .search import QUICK, advance, setup, teardown
from .stats import clear_feature


@njit(cache=True)
def reset_feature(node, state, f):
    """Forget everything feature f has seen (its workspace cells are zeroed)."""
    clear_feature(node, state, f, False)
    state.seen[f] = 0
    state.n_present[f] = 0
    state.cursor[f] = node.buckets[f, 0]
    state.stored_seen[f] = 0
    state.lb_rank[f] = -1
    state.lb_left[f, :] = 0.0
    state.final[f] = 0


@njit(cache=True)
def min_prefix_to_reach(node, state, scratch, target):
    """Per feature, the smallest m with LB(m) >= target (LB is monotone in m)."""
    n = node.task.order.shape[0]
    F = node.task.feats.shape[0]
    lb = state.lb
    counts = np.empty(F, np.int64)
    for f in range(F):
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) // 2
            reset_feature(node, state, f)
            advance(node, state, scratch, f, mid)
            if lb[f] >= target:
                hi = mid
            else:
                lo = mid + 1
        counts[f] = lo
        reset_feature(node, state, f)
    return counts


@njit(cache=True)
def prefix_intervals(node, state, scratch, prefixes):
    """[LB, UB] (weight units) of feature 0 after each prefix length (increasing)."""
    out = np.empty((prefixes.shape[0], 2))
    for j in range(prefixes.shape[0]):
        advance(node, state, scratch, np.int64(0), prefixes[j])  # not a literal: search's advance
        out[j, 0] = state.lb[0]
        out[j, 1] = state.ub[0]
    return out


@njit(cache=True)
def run_probe(kind, target, prefixes, data, work, task):
    """kind 0: ``min_prefix_to_reach(target)``; kind 1: ``prefix_intervals(prefixes)``
    (``task`` without a minimum leaf size)."""
    # np.int64, not the literal (see search.ZERO): the search's compiled setup, not another
    node, state, scratch = setup(np.int64(QUICK), data, work, task)
    if kind == 0:
        out = min_prefix_to_reach(node, state, scratch, target).astype(np.float64).reshape(-1, 1)
    else:
        out = prefix_intervals(node, state, scratch, prefixes)
    teardown(node, state)
    return out, node.weight
