"""The exhaustive search's survivors, scored canonically where they can win.

``coarse.survivors`` keeps the features that may hold the node's split and
flags, per coarse bin, whether a split inside it may.  For a dense numeric
survivor, ``refined_best`` sums the feature's canonical statistics
(``stats.canonical_pass``) and walks its ranks in value order exactly as
``stats.scan`` does (the same additions, in the same order, so the same
left class weights at every rank), but evaluates a split only at the last
present rank of each coarse bin (a boundary) and at the present ranks of the
flagged bins.  The splits it skips score above the survivors' limit
(``coarse`` docstring), while the feature's best, if within the search's tie
window of the node's optimum, lies below it: so whenever the feature can be
returned, its best split, score and left weights are the ones ``scan``
finds, bit for bit, and ties still go to the first such rank.

``refine_survivors`` refines the survivors on several threads: a feature's
canonical pass and walk touch only its own bins of the workspace, and each
feature's result goes to its own row, so the results (and the split chosen
from them, ``search.run_exhaustive``) are the same for any thread count.
"""

import math

import numpy as np
from numba import njit, prange

from .criteria import ERROR, split_value
from .lanes import PRANGE_ONLY, lane_count
from .stats import _error_split, canonical_pass

@njit(cache=True, inline='always')
def _present(hist_f, t):
    for c in range(hist_f.shape[1]):
        if hist_f[t, c] != 0.0:
            return True
    return False


@njit(cache=True)
def refined_best(data, work, task, coarse, refine, node_counts, k, totals, out_left):
    """(score, left rank, right rank) of dense feature k's best split among its coarse
    boundaries and the inner splits of its ``refine``-flagged bins (-1 ranks and
    +inf if none; ``node_counts``: the node's examples per coarse bin), ``task``'s
    node with class weights ``totals``; its left class weights go to ``out_left``.
    Leaves the workspace ``work`` zeroed."""
    bin_offsets, hist, counts = data.bin_offsets, work.hist, work.counts
    crit, bounds, min_leaf = task.crit, task.bounds, task.min_leaf
    off = bin_offsets[k]
    n_bins = bin_offsets[k + 1] - off
    counting = min_leaf > 1
    canonical_pass(data, work, task, k, 0, work.present)  # not listed: no new-bin list
    hist_f = hist[off:off + n_bins]
    counts_f = counts[off:off + n_bins]
    of_rank = coarse.of_rank[off:off + n_bins]
    refine_f = refine[coarse.offsets[k]:coarse.offsets[k + 1]]
    C = totals.shape[0]
    n = task.index_order.shape[0]
    first, last = 0, n_bins - 1
    while first < n_bins and not _present(hist_f, first):
        first += 1
    while last > first and not _present(hist_f, last):
        last -= 1
    left = np.zeros(C)
    right = np.empty(C)
    no_unseen = np.zeros(C)
    seen_total = 0.0
    for c in range(C):
        seen_total += totals[c]
    base = coarse.offsets[k]
    best = math.inf
    best_rank = -1
    left_count = 0
    for t in range(first, last):
        for c in range(C):
            left[c] += hist_f[t, c]
        if counting:
            left_count += counts_f[t]
        b = of_rank[t]
        if refine_f[b]:
            if not _present(hist_f, t):
                continue
        elif of_rank[t + 1] == b or node_counts[base + b] == 0:
            continue  # a skipped inner split, or the end of a bin without the node's examples
        if counting and (left_count < min_leaf or n - left_count < min_leaf):
            continue
        if crit == ERROR:
            value = _error_split(bounds, left, totals, seen_total, no_unseen, 0.0, False)[0]
        else:
            for c in range(C):
                right[c] = totals[c] - left[c]
            value = split_value(crit, bounds, left, right, no_unseen, 0.0, False)[0]
        if value < best:
            best = value
            best_rank = t
            while not _present(hist_f, best_rank):  # the bin's last present rank: same split
                best_rank -= 1
            out_left[:] = left
    right_rank = -1
    if best_rank >= 0:
        right_rank = best_rank + 1
        while not _present(hist_f, right_rank):
            right_rank += 1
    for t in range(first, last + 1):
        for c in range(C):
            hist_f[t, c] = 0.0
        if counting:
            counts_f[t] = 0
    return best, best_rank, right_rank


@njit(cache=True)
def _refine_lane(data, work, task, coarse, refine, node_counts, features, totals, scores, ranks,
                 lefts, lane, lanes):
    """``refined_best`` of the survivors ``features[j]`` with j = lane (mod lanes)."""
    for j in range(lane, features.shape[0], lanes):
        scores[j], ranks[j, 0], ranks[j, 1] = refined_best(
            data, work, task, coarse, refine, node_counts, features[j], totals, lefts[j])


@njit(cache=True, parallel=PRANGE_ONLY)
def refine_survivors(data, work, task, coarse, refine, node_counts, features, totals, scores,
                     ranks, lefts, n_threads):
    """``refined_best`` of every dense numeric survivor ``features[j]`` into ``scores[j]``,
    ``ranks[j]`` (left, right) and ``lefts[j]``, dealt round-robin to ``n_threads`` threads."""
    lanes = lane_count(n_threads, features.shape[0],
                       features.shape[0] * task.index_order.shape[0])
    if lanes == 1:
        _refine_lane(data, work, task, coarse, refine, node_counts, features, totals, scores,
                     ranks, lefts, np.int64(0), np.int64(1))
    else:
        # prange's index is unsigned: cast, or the callee compiles twice
        for lane in prange(lanes):
            _refine_lane(data, work, task, coarse, refine, node_counts, features, totals, scores,
                         ranks, lefts, np.int64(lane), lanes)
