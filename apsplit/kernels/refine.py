"""The exhaustive search's survivors, scored canonically where they can win.

``coarse.survivors`` keeps the features that may hold the node's split and
flags, per coarse bin, whether a split inside it may.  For a dense numeric
survivor, ``refined_best`` makes one pass over the node's rows in index order
that sums the class weights T_b of every coarse bin b and, only for the rows
of the flagged bins, the class weights of their exact ranks; it then walks the
coarse bins in value order and evaluates a split at every coarse boundary
(the last present rank of each bin) and at every present rank of the flagged
bins, with the canonical left class weights of ``stats`` (two-level: P_b +
S_b(t) inside bin b, P_(b+1) at its boundary; a one-level feature has one rank
per coarse bin, so only boundaries, P_(b+1), its running sums).  These are the
left weights ``stats.scan`` / ``stats.scan_two_level`` compute at the same
ranks, bit for bit: the same rows summed in the same order.  The splits it
skips score above the survivors' limit (``coarse`` docstring), while the
feature's best, if within the search's tie window of the node's optimum, lies
below it: so whenever the feature can be returned, its best split, score and
left weights are the ones the full scan finds, and ties still go to the first
such rank.  The pass touches the exact ranks of the flagged bins only, so a
survivor costs one pass over the node's rows into at most 256 coarse bins, not
a histogram of every distinct value and a walk over it.

``refine_survivors`` refines the survivors on several threads: a feature's
pass touches only its own bins of the workspace, and each feature's result
goes to its own row, so the results (and the split chosen from them,
``search.run_exhaustive``) are the same for any thread count.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .lanes import PRANGE_ONLY, lane_count
from .stats import _full_split, canonical_pass


@njit(cache=True, inline='always')
def _present(hist_f, t):
    for c in range(hist_f.shape[1]):
        if hist_f[t, c] != 0.0:
            return True
    return False


class Refined(NamedTuple):
    """The survivors' results, row j for survivor j (``refine_survivors``)."""

    scores: np.ndarray    # its best score (+inf: none)
    ranks: np.ndarray     # (S, 2) its best split's left and right ranks (an inner split)
    boundary: np.ndarray  # ... or the coarse bin whose last rank is its left side, -1 if none
    lefts: np.ndarray     # (S, C) its left class weights


@njit(cache=True)
def new_refined(n_survivors, n_classes):
    return Refined(np.full(n_survivors, math.inf), np.full((n_survivors, 2), -1, np.int64),
                   np.full(n_survivors, -1, np.int64), np.zeros((n_survivors, n_classes)))


@njit(cache=True, inline='always')
def _next_in(hist_f, t, end):
    """The first present rank above t and below ``end``, or ``end``."""
    t += 1
    while t < end and not _present(hist_f, t):
        t += 1
    return t


@njit(cache=True, inline='always')
def _evaluation_arrays(totals):
    """(left, right, no unseen weights, the node's weight) for ``_full_split``."""
    C = totals.shape[0]
    seen_total = 0.0
    for c in range(C):
        seen_total += totals[c]
    return np.zeros(C), np.empty(C), np.zeros(C), seen_total


@njit(cache=True)
def _coarse_pass(data, task, coarse, refine_f, k, hist_f, counts_f, sums, counts):
    """One pass over the node's rows (index order): the class weights ``sums`` of every
    coarse bin of feature k (and its examples ``counts``, with a minimum leaf size);
    the rows of the ``refine_f``-flagged bins also into their exact ranks (``hist_f``,
    ``counts_f``)."""
    index_order, w, y, counting = task.index_order, task.w, task.y, task.min_leaf > 1
    coarse_codes, codes = coarse.codes[k], data.codes[k]
    for p in range(index_order.shape[0]):
        i = index_order[p]
        b = np.intp(coarse_codes[i])
        c = y[i]
        sums[b, c] += w[i]
        if counting:
            counts[b] += 1
        if refine_f[b]:
            r = np.intp(codes[i])
            hist_f[r, c] += w[i]
            if counting:
                counts_f[r] += 1


@njit(cache=True)
def _two_level_best(data, work, task, coarse, refine, k, totals, out_left):
    """``refined_best`` of a two-level feature k: (score, left rank, right rank, boundary
    bin) of its best split among
    its coarse boundaries and the inner splits of its ``refine``-flagged bins (+inf
    and -1s if none), ``task``'s node with class weights ``totals``: an inner split
    by its ranks, a boundary by its coarse bin (``boundary_ranks`` gives its ranks);
    its left class weights go to ``out_left``.  Leaves the workspace zeroed."""
    off = data.bin_offsets[k]
    n_bins = data.bin_offsets[k + 1] - off
    hist_f = work.hist[off:off + n_bins]
    counts_f = work.counts[off:off + n_bins]
    base = coarse.offsets[k]
    nb = coarse.offsets[k + 1] - base
    refine_f = refine[base:base + nb]
    C = totals.shape[0]
    n = task.index_order.shape[0]
    crit, bounds, min_leaf = task.crit, task.bounds, task.min_leaf
    constrained = min_leaf > 1
    sums = np.zeros((nb, C))
    counts = np.zeros(nb, np.int64)
    _coarse_pass(data, task, coarse, refine_f, k, hist_f, counts_f, sums, counts)
    prefix = np.zeros(C)
    inner = np.zeros(C)
    left, right, no_unseen, seen_total = _evaluation_arrays(totals)
    last = nb - 1
    while last >= 0 and not _present(sums, last):
        last -= 1
    best = math.inf
    best_rank = -1
    right_rank = -1
    best_bin = -1
    left_count = 0
    first_rank = 0  # bin b's ranks: first_rank .. first_rank + span - 1
    for b in range(last + 1):
        span = coarse.span[base + b]
        if refine_f[b]:  # its inner splits: after every present rank but its last
            inner_count = 0
            for c in range(C):
                inner[c] = 0.0
            end = first_rank + span
            t = _next_in(hist_f, first_rank - 1, end)
            while t < end:
                nxt = _next_in(hist_f, t, end)
                if nxt == end:
                    break
                for c in range(C):
                    inner[c] += hist_f[t, c]
                    left[c] = prefix[c] + inner[c]
                if constrained:
                    inner_count += counts_f[t]
                count = left_count + inner_count
                if not constrained or (count >= min_leaf and n - count >= min_leaf):
                    value = _full_split(crit, bounds, left, right, totals, seen_total, no_unseen, 0.0)
                    if value < best:
                        best, best_rank, right_rank, best_bin = value, t, nxt, -1
                        out_left[:] = left
                t = nxt
            for t in range(first_rank, end):
                for c in range(C):
                    hist_f[t, c] = 0.0
                if constrained:
                    counts_f[t] = 0
        first_rank += span
        if b == last or not _present(sums, b):
            continue
        for c in range(C):  # the boundary after b: P_(b+1)
            prefix[c] += sums[b, c]
            left[c] = prefix[c]
        left_count += counts[b]
        if not constrained or (left_count >= min_leaf and n - left_count >= min_leaf):
            value = _full_split(crit, bounds, left, right, totals, seen_total, no_unseen, 0.0)
            if value < best:
                best, best_rank, right_rank, best_bin = value, -1, -1, b
                out_left[:] = left
    return best, best_rank, right_rank, best_bin


@njit(cache=True)
def _one_level_best(data, work, task, coarse, refine, node_counts, k, totals, out_left):
    """``refined_best`` of a one-level feature k (its canonical sums: the running sums over
    its ranks): (score, left rank, right rank) of its best split among its coarse
    boundaries and the inner splits of its ``refine``-flagged bins (-1 ranks and
    +inf if none; ``node_counts``: the node's examples per coarse bin), ``task``'s
    node with class weights ``totals``; its left class weights go to ``out_left``.
    Leaves the workspace ``work`` zeroed."""
    bin_offsets, hist, counts = data.bin_offsets, work.hist, work.counts
    crit, bounds, min_leaf = task.crit, task.bounds, task.min_leaf
    off = bin_offsets[k]
    n_bins = bin_offsets[k + 1] - off
    counting = min_leaf > 1
    canonical_pass(data, work, task, k, 0, work.present, np.zeros((0, totals.shape[0])))
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
    left, right, no_unseen, seen_total = _evaluation_arrays(totals)
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
        value = _full_split(crit, bounds, left, right, totals, seen_total, no_unseen, 0.0)
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
def refined_best(data, work, task, coarse, refine, node_counts, k, totals, out_left):
    """(score, left rank, right rank, boundary bin) of dense numeric feature k's best split
    among its coarse boundaries and the inner splits of its ``refine``-flagged bins
    (+inf and -1s if none) in ``task``'s node (class weights ``totals``, examples per
    coarse bin ``node_counts``): a split by its ranks, or a two-level feature's
    boundary by its coarse bin (``boundary_ranks`` gives its ranks); its left class
    weights go to ``out_left``.  Leaves the workspace ``work`` zeroed."""
    if data.two_level[k]:
        return _two_level_best(data, work, task, coarse, refine, k, totals, out_left)
    score, left_rank, right_rank = _one_level_best(data, work, task, coarse, refine, node_counts,
                                                   k, totals, out_left)
    return score, left_rank, right_rank, -1


@njit(cache=True)
def boundary_ranks(data, task, coarse, k, b):
    """(the last present rank of feature k's coarse bin b, the first present rank above
    it) in ``task``'s node: one pass over its rows."""
    coarse_codes, codes = coarse.codes[k], data.codes[k]
    last = -1
    above = data.bin_offsets[k + 1] - data.bin_offsets[k]
    for p in range(task.index_order.shape[0]):
        i = task.index_order[p]
        r = np.intp(codes[i])
        if coarse_codes[i] == b:
            last = max(last, r)
        elif coarse_codes[i] > b:
            above = min(above, r)
    return last, above


@njit(cache=True)
def _refine_lane(data, work, task, coarse, refine, node_counts, features, totals, out, lane,
                 lanes):
    """``refined_best`` of the survivors ``features[j]`` with j = lane (mod lanes)."""
    for j in range(lane, features.shape[0], lanes):
        out.scores[j], out.ranks[j, 0], out.ranks[j, 1], out.boundary[j] = refined_best(
            data, work, task, coarse, refine, node_counts, features[j], totals, out.lefts[j])


@njit(cache=True, parallel=PRANGE_ONLY)
def refine_survivors(data, work, task, coarse, refine, node_counts, features, totals, out,
                     n_threads):
    """``refined_best`` of every dense numeric survivor ``features[j]`` into row j of
    ``out`` (a ``Refined``), dealt round-robin to ``n_threads`` threads."""
    lanes = lane_count(n_threads, features.shape[0],
                       features.shape[0] * task.index_order.shape[0])
    if lanes == 1:
        _refine_lane(data, work, task, coarse, refine, node_counts, features, totals, out,
                     np.int64(0), np.int64(1))
    else:
        # prange's index is unsigned: cast, or the callee compiles twice
        for lane in prange(lanes):
            _refine_lane(data, work, task, coarse, refine, node_counts, features, totals, out,
                         np.int64(lane), lanes)
