"""Instrumentation kernels: a feature's bounds after a given prefix, and the
weight-order lower bound's per-feature counts."""

import numpy as np
from numba import njit

from .search import QUICK, advance, setup, teardown
from .stats import clear_feature


@njit(cache=True)
def reset_feature(node, state, f):
    """Forget everything feature f has seen (its workspace cells are zeroed)."""
    bin_offsets, feats, bk_bounds, cursor = node[2], node[4], node[14], node[17]
    hist, mark, present, listed = node[18], node[19], node[20], node[23]
    off = bin_offsets[feats[f]]
    clear_feature(listed[f], off, bin_offsets[feats[f] + 1] - off, present, state[1][f], hist,
                  mark, node[33] > 1, node[32], False)
    state[0][f] = 0
    state[1][f] = 0
    cursor[f] = bk_bounds[f, 0]
    state[5][f] = 0
    state[6][f] = -1
    state[7][f, :] = 0.0
    state[8][f] = 0


@njit(cache=True)
def min_prefix_to_reach(node, state, scratch, target):
    """Per feature, the smallest m with LB(m) >= target (LB is monotone in m)."""
    n = node[7].shape[0]
    F = node[4].shape[0]
    lb = state[2]
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
        advance(node, state, scratch, 0, prefixes[j])
        out[j, 0] = state[2][0]
        out[j, 1] = state[3][0]
    return out


@njit(cache=True)
def run_probe(kind, target, prefixes, data, work, order, index_order, w, y, n_classes, feats, crit,
              bounds):
    """kind 0: ``min_prefix_to_reach(target)``; kind 1: ``prefix_intervals(prefixes)``
    (no minimum leaf size)."""
    node, state, scratch = setup(QUICK, data, work, order, index_order, w, y, n_classes, feats,
                                 crit, bounds, 1)
    if kind == 0:
        out = min_prefix_to_reach(node, state, scratch, target).astype(np.float64).reshape(-1, 1)
    else:
        out = prefix_intervals(node, state, scratch, prefixes)
    teardown(node, state)
    return out, node[31]
