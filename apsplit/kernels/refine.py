"""The exhaustive search's survivors, scored canonically where they can win.

``coarse.survivors`` keeps the features that may hold the node's split and
bounds, per coarse bin, the scores of the splits inside it: a bin is *flagged*
while its bound is within the limit.  For a dense numeric survivor,
``refined_best`` reads the canonical class weights T_b of every coarse bin b
from the node's coarse histogram (a two-level feature's T_b are those sums by
definition, ``stats``) and sums, only for the rows of the flagged bins, the
class weights of their exact ranks in index order (a one-level feature sums
every rank: its canonical sums are the running sums over them); it then walks
the coarse bins in value order and evaluates a split at every coarse boundary
(the last present rank of each bin) and at every present rank of the flagged
bins, with the canonical left class weights of ``stats`` (two-level: P_b +
S_b(t) inside bin b, P_(b+1) at its boundary; one-level: the running sums over
its ranks).  These are the left weights ``stats.scan`` /
``stats.scan_two_level`` compute at the same ranks, bit for bit: the same sums
in the same order.  A two-level feature's boundaries were scored so by the
prefilter already (``coarse.BinBounds``: P_(b+1) summed in the same order, the
same score): their scores are read.  The splits it skips score above
the survivors' limit (``coarse`` docstring), while the feature's best, if
within the search's tie window of the node's optimum, lies below it: so
whenever the feature can be returned, its best split, score and left weights
are the ones the full scan finds, and ties still go to the first such rank.
The limit starts at the node's (the best coarse boundary's score plus the
margin) and drops to s + margin as soon as a survivor's pass finds a split of
canonical score s (``coarse.survivors``: that is a limit too), for the bins,
runs and survivors after it.  A two-level survivor's pass touches the rows of
its flagged bins only (found by rank at a node of most rows, else by one pass
over the node's coarse bins), not a histogram of every distinct value and a
walk over it.

Inside a flagged bin of a two-level feature the ranks are taken in runs of
``CHUNK_RANKS``: a run's running sums S_b(t) are added first, and its splits
evaluated only if ``coarse.box_bound`` over the box L_0 <= L <= L_1 may be
within the survivors' limit, L_0 and L_1 the canonical left weights P_b +
S_b(t) before the run and at its end.  A sum of nonnegative floats only grows
under rounding, and so does P_b + S, so every split of the run has canonical
left weights inside that box: a bound on the box is a bound on them, computed
from canonical weights as a coarse bin's bound is, so the argument that
excludes a bin (``coarse`` docstring) excludes the run.  A run that may win
is summed again from L_0, the same additions, and evaluated rank by rank.

``refine_survivors`` refines the survivors on several threads, dealt by the
rows and coarse bins their passes read (``lanes.deal``): a feature's
pass touches only its own bins of the workspace, each feature's result goes to
its own row, and the threads share the limits their splits lower.  So a row may
depend on the threads where the limit pruned it, but the optimum's row and those
within the tie window of it are never pruned: the split chosen from them
(``search.run_exhaustive``) is the same for any thread count.

The walks (``refined_best`` and what it calls: ``_present``, ``_next_in``,
``stats._full_split`` inlined, ``coarse.box_bound``, ...) are compiled without
numba's reference counting (``_nrt=False``), as ``search``'s per-batch loops are.  A
function compiled with it updates the count of each array it is passed, and of
every array of a record, on entry and on exit (atomic adds), unless numba's
pruning pass removes the pair, which it did not in these branching loops: on a
Zen 1 machine the updates took 18% of higgs7k's trees, most of them in
``box_bound`` (per run of ranks) and in the per-feature calls taking the
engine's records (perf samples and their callers, a probe: docs/benchmarks.md).
So the walks allocate nothing: each lane's vectors, bin flags and listed rows
(``LaneScratch``) are allocated per node by ``refine_survivors``.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .coarse import MAX_COARSE, box_bound, is_two_level
from .lanes import PRANGE_ONLY, deal, lane_count, share
from .stats import _full_split, canonical_pass
from .unsigned import u


@njit(cache=True, _nrt=False)
def _copy(source, target):
    """``target[:] = source`` (a slice assignment needs numba's reference counting)."""
    for c in range(source.shape[0]):
        target[c] = source[c]


@njit(cache=True, _nrt=False)
def _present(hist_f, t):
    for c in range(hist_f.shape[1]):
        if hist_f[t, c] != 0.0:
            return True
    return False


CHUNK_RANKS = 16  # a flagged bin's ranks are bounded in runs of this many before evaluating
MOST_ROWS = 0.75  # a node with this share of X's rows sums them all, the others' weights 0
BIN_WALK_ROWS = 8  # a coarse bin's boundary walked costs about 8 rows read (15 vs 2 ns)


class Refined(NamedTuple):
    """The survivors' results, row j for survivor j (``refine_survivors``)."""

    scores: np.ndarray    # its best score (+inf: none)
    ranks: np.ndarray     # (S, 2) its best split's left and right ranks (an inner split)
    boundary: np.ndarray  # ... or the coarse bin whose last rank is its left side, -1 if none
    lefts: np.ndarray     # (S, C) its left class weights
    walked: np.ndarray    # the exact ranks its walk visited in bins that may win


@njit(cache=True)
def new_refined(n_survivors, n_classes):
    return Refined(np.full(n_survivors, math.inf), np.full((n_survivors, 2), -1, np.int64),
                   np.full(n_survivors, -1, np.int64), np.zeros((n_survivors, n_classes)),
                   np.zeros(n_survivors, np.int64))


class LaneScratch(NamedTuple):
    """One lane's scratch for ``refined_best``, allocated per node by ``refine_survivors``
    (so that the walks, compiled without reference counting, allocate nothing)."""

    vectors: np.ndarray  # (9, C) class vectors: a walk's left, right, sums, bounds' scratch
    flagged: np.ndarray  # (MAX_COARSE,) uint8: a feature's coarse bins within the limit
    listed: np.ndarray   # (n,) positions in the node of the rows of its flagged bins


class Survivors(NamedTuple):
    """What ``coarse.survivors`` left of a node, and the node's rows, for the refinement."""

    features: np.ndarray     # the dense numeric survivors, in the search's order
    bounds: np.ndarray       # per global coarse bin, a lower bound on its inner splits' scores
    boundary_scores: np.ndarray  # ... and its boundary's canonical score (``coarse.BinBounds``)
    limit: float             # a split whose score's lower bound exceeds it cannot win
    margin: float            # ... nor one whose bound exceeds s + margin, s a found split's score
    # the node's coarse histogram (``coarse.NodeHistogram``), its fields apart: a tuple
    # inside this one is refused by the parallel kernel's arguments (numba)
    node_counts: np.ndarray  # the node's examples per global coarse bin
    bin_weights: np.ndarray  # (bins, C) ... and class weights: its canonical T_b (``stats``)
    totals: np.ndarray       # (C,) the node's class weights
    row_w: np.ndarray        # a node of most rows (``MOST_ROWS``) where a two-level survivor
                             # has a bin within the limit: its weight per row of X, 0 at the
                             # others (the root: ``task.w``); else empty


@njit(cache=True)
def survivors_of(task, coarse, feats, prefilter, bounds, hist, totals, n_threads):
    """The ``Survivors`` of ``task``'s node, whose coarse histogram is ``hist``, kept by
    ``prefilter`` (``coarse.survivors``) from its candidates ``feats``, with, at a node of
    most rows whose two-level survivors have a bin to walk, its weights per row of X
    (``MOST_ROWS``; ``weights_in_node`` on ``n_threads`` threads)."""
    index_order = task.index_order
    n = index_order.shape[0]
    n_rows = task.w.shape[0]
    kept = feats[prefilter.keep]
    walks = False  # a two-level survivor has a bin within the limit
    for k in kept:
        if is_two_level(coarse, k):
            for b in range(coarse.offsets[k], coarse.offsets[k + 1]):
                walks = walks or bounds[b] <= prefilter.limit
    row_w = task.w  # every row: index_order is 0 .. n - 1
    if n != n_rows:
        row_w = weights_in_node(index_order, task.w, n_threads) \
            if walks and n >= MOST_ROWS * n_rows else np.zeros(0)
    return Survivors(kept, bounds, prefilter.boundary_scores, prefilter.limit,
                     prefilter.margin, hist.counts, hist.weights, totals, row_w)


@njit(cache=True, parallel=PRANGE_ONLY)
def weights_in_node(index_order, w, n_threads):
    """Per row of X, its weight ``w`` if it is one of the node's rows ``index_order``
    (ascending), else 0: the node's rows in contiguous shares, one per thread, each
    share writing the rows of X from its first row (0 for the first share) up to the
    next share's (the end of X for the last), so the shares cover X once."""
    n, N = index_order.shape[0], w.shape[0]
    row_w = np.empty(N)
    lanes = lane_count(n_threads, n, N + n)  # N zeros and n weights written
    if lanes == 1:
        _weights_of_share(index_order, w, 0, row_w)
        return row_w
    for lane in prange(lanes):
        first, last = share(lane, lanes, n)
        lo = 0 if first == 0 else index_order[first]
        hi = N if last == n else index_order[last]
        _weights_of_share(index_order[first:last], w, lo, row_w[lo:hi])
    return row_w


@njit(cache=True, _nrt=False)
def _weights_of_share(rows, w, lo, out):
    """``out`` (rows lo .. of X) zeroed, then ``w[i]`` at each of ``rows``."""
    out[:] = 0.0
    for p in range(rows.shape[0]):
        i = u(rows[p])
        out[i - lo] = w[i]


@njit(cache=True, _nrt=False)
def _next_in(hist_f, t, end):
    """The first present rank above t and below ``end``, or ``end``."""
    t += 1
    while t < end and not _present(hist_f, t):
        t += 1
    return t


@njit(cache=True, inline='always')
def _evaluation_vectors(totals, vectors):
    """The node's weight, with ``vectors`` (the lane's ``LaneScratch.vectors``) zeroed:
    ``_full_split``'s left, right and (zero) unseen weights and a walk's sums."""
    vectors[:, :] = 0.0
    seen_total = 0.0
    for c in range(totals.shape[0]):
        seen_total += totals[c]
    return seen_total


@njit(cache=True, _nrt=False)
def _list_flagged(data, task, coarse, survivors, k, flagged, hist_f, counts_f, listed):
    """The rows of feature k's flagged coarse bins (``flagged``: 1 per coarse bin) summed
    into their exact ranks (``hist_f``; ``counts_f`` their examples, under a minimum leaf
    size), in index order.  A node of most rows (``survivors.row_w``) reads them from the
    rows sorted by rank (``_sum_flagged_by_rank``); another lists them, branch-free, in
    one pass over its rows' coarse bins (none if no bin is flagged) into ``listed``
    (n positions), then takes the listed rows only."""
    index_order, w, y = task.index_order, task.w, task.y
    n = index_order.shape[0]
    base, end = coarse.offsets[k], coarse.offsets[k + 1]
    coarse_codes, codes = coarse.codes[k], data.codes[k]
    constrained = task.min_leaf > 1
    if survivors.row_w.shape[0] > 0:
        _sum_flagged_by_rank(coarse, base, end, flagged, codes, task.y, survivors.row_w, hist_f,
                             counts_f, constrained)
        return
    any_flagged = False
    for b in range(end - base):
        any_flagged = any_flagged or flagged[b] != 0
    n_listed = 0
    for p in range(n if any_flagged else 0):
        listed[n_listed] = p
        n_listed += flagged[coarse_codes[u(index_order[p])]]
    for q in range(n_listed):
        i = u(index_order[listed[q]])
        r = np.intp(codes[i])
        hist_f[r, u(y[i])] += w[i]
        if constrained:
            counts_f[r] += 1


@njit(cache=True, _nrt=False)
def _sum_flagged_by_rank(coarse, base, end, flagged, codes, y, row_w, hist_f, counts_f,
                         constrained):
    """The rows of each flagged coarse bin of a two-level feature (its bins base .. end - 1)
    summed into their exact ranks, read from the feature's rows sorted by rank
    (``coarse.by_rank``), ``row_w`` a weight per row of X, 0 at the rows outside the
    node.  Within a rank they come in index order, as the node's rows do, and a 0 adds
    nothing (x + 0 = x): the sums of the node's rows in index order, bit for bit."""
    by_rank, bin_rows = coarse.by_rank, coarse.bin_rows
    for b in range(end - base):
        if not flagged[b]:
            continue
        for q in range(bin_rows[base + b], bin_rows[base + b + 1]):
            i = u(by_rank[q])
            r = np.intp(codes[i])
            hist_f[r, u(y[i])] += row_w[i]
            if constrained and row_w[i] > 0.0:
                counts_f[r] += 1


@njit(cache=True, inline='always')
def _add_ranks(hist_f, lo, hi, sums):
    """``sums[c] += hist_f[q, c]`` for the ranks q = lo .. hi - 1 in that order, class by
    class: the same additions in the same order as rank by rank (each class's sum is its
    own), each class's running sum in a register rather than stored at every rank."""
    for c in range(sums.shape[0]):
        s = sums[c]
        for q in range(lo, hi):
            s += hist_f[q, c]
        sums[c] = s


@njit(cache=True, _nrt=False)
def _zero_ranks(hist_f, counts_f, lo, hi, counted):
    """Zero the ranks lo .. hi - 1 of a feature's workspace (``counts_f`` too if
    ``counted``): one contiguous block of ``hist_f``, cleared in one loop (rank by rank,
    LLVM called memset once per rank)."""
    flat = hist_f[lo:hi].reshape(-1)
    for x in range(flat.shape[0]):
        flat[x] = 0.0
    if counted:
        for t in range(lo, hi):
            counts_f[t] = 0


@njit(cache=True, _nrt=False)
def _flag(survivors, base, limit, flagged):
    """``flagged[b]`` = 1 for each of the coarse bins from ``base`` whose bound is within
    ``limit``, else 0."""
    bounds = survivors.bounds
    for b in range(flagged.shape[0]):
        flagged[b] = bounds[base + b] <= limit


@njit(cache=True, _nrt=False)
def _two_level_best(data, work, task, coarse, survivors, k, limit, out, j, scratch):
    """``refined_best`` of a two-level feature k: its best split among its coarse
    boundaries and the inner splits of its bins within ``limit``, an inner split by its
    ranks, a boundary by its coarse bin (``boundary_ranks`` gives its ranks).  Inside
    a flagged bin the walk adds every rank's weights, the absent ones' zeros included
    (x + 0 = x: the same sums), and evaluates after each present rank but the bin's
    last, whose split is the boundary's.  Leaves the workspace zeroed."""
    off = data.bin_offsets[k]
    n_bins = data.bin_offsets[k + 1] - off
    hist_f = work.hist[off:off + n_bins]
    counts_f = work.counts[off:off + n_bins]
    base = coarse.offsets[k]
    nb = coarse.offsets[k + 1] - base
    bounds_f = survivors.bounds[base:base + nb]
    totals = survivors.totals
    C = totals.shape[0]
    n = task.index_order.shape[0]
    crit, bounds, min_leaf = task.crit, task.bounds, task.min_leaf
    constrained = min_leaf > 1
    flagged = scratch.flagged[:nb]
    _flag(survivors, base, limit, flagged)
    _list_flagged(data, task, coarse, survivors, k, flagged, hist_f, counts_f, scratch.listed)
    sums, counts = survivors.bin_weights[base:base + nb], survivors.node_counts[base:base + nb]
    spans, boundary_scores = coarse.span[base:base + nb], survivors.boundary_scores[base:base + nb]
    vectors = scratch.vectors
    seen_total = _evaluation_vectors(totals, vectors)
    left, right, no_unseen, prefix, inner = vectors[0], vectors[1], vectors[2], vectors[3], \
        vectors[4]
    before, low, high, spare = vectors[5], vectors[6], vectors[7], vectors[8]
    out_left = out.lefts[j]
    last = nb - 1
    while last >= 0 and counts[last] == 0:
        last -= 1
    best = math.inf
    best_rank = -1
    right_rank = -1
    best_bin = -1
    walked = 0
    left_count = 0
    first_rank = 0  # bin b's ranks: first_rank .. first_rank + span - 1
    for b in range(last + 1):
        span = spans[b]
        end = first_rank + span
        if flagged[b] and bounds_f[b] <= limit:  # its inner splits: after all present but the last
            walked += span
            inner_count = 0
            for c in range(C):
                inner[c] = 0.0
            last_present = end - 1
            while last_present >= first_rank and not _present(hist_f, last_present):
                last_present -= 1
            t = first_rank
            while t < last_present:  # the run t .. stop - 1: its sums, then its bound
                stop = min(t + CHUNK_RANKS, last_present)
                count_before = inner_count
                for c in range(C):
                    before[c] = inner[c]
                    low[c] = prefix[c] + inner[c]
                _add_ranks(hist_f, t, stop, inner)
                if constrained:
                    for q in range(t, stop):
                        inner_count += counts_f[q]
                for c in range(C):
                    high[c] = prefix[c] + inner[c]
                if box_bound(crit, low, high, totals, limit, spare, right) > limit:
                    t = stop
                    continue
                for c in range(C):  # it may win: the same running sums again, evaluated
                    inner[c] = before[c]
                inner_count = count_before
                for q in range(t, stop):
                    weight = 0.0
                    for c in range(C):
                        weight += hist_f[q, c]
                        inner[c] += hist_f[q, c]
                        left[c] = prefix[c] + inner[c]
                    if constrained:
                        inner_count += counts_f[q]
                    if weight == 0.0:  # no split after an absent rank (weights >= 0)
                        continue
                    count = left_count + inner_count
                    if constrained and (count < min_leaf or n - count < min_leaf):
                        continue
                    value = _full_split(crit, bounds, left, right, totals, seen_total, no_unseen,
                                        0.0)
                    if value < best:
                        best, best_rank, best_bin = value, q, -1
                        right_rank = _next_in(hist_f, q, end)
                        _copy(left, out_left)
                        limit = min(limit, best + survivors.margin)
                t = stop
        if flagged[b]:
            _zero_ranks(hist_f, counts_f, first_rank, end, constrained)
        first_rank = end
        if b == last or counts[b] == 0:
            continue
        for c in range(C):  # the boundary after b: P_(b+1)
            prefix[c] += sums[b, c]
        left_count += counts[b]
        if not constrained or (left_count >= min_leaf and n - left_count >= min_leaf):
            value = boundary_scores[b]  # the score of these left weights
            if value < best:
                best, best_rank, right_rank, best_bin = value, -1, -1, b
                _copy(prefix, out_left)
                limit = min(limit, best + survivors.margin)
    out.scores[j], out.ranks[j, 0], out.ranks[j, 1], out.boundary[j] = \
        best, best_rank, right_rank, best_bin
    out.walked[j] = walked


@njit(cache=True, _nrt=False)
def _one_level_best(data, work, task, coarse, survivors, k, limit, out, j, scratch):
    """``refined_best`` of a one-level feature k (its canonical sums: the running sums over
    its ranks): its best split among its coarse boundaries and the inner splits of its
    bins within ``limit``.  Leaves the workspace ``work`` zeroed."""
    totals, node_counts = survivors.totals, survivors.node_counts
    bin_offsets, hist, counts = data.bin_offsets, work.hist, work.counts
    crit, bounds, min_leaf = task.crit, task.bounds, task.min_leaf
    off = bin_offsets[k]
    n_bins = bin_offsets[k + 1] - off
    counting = min_leaf > 1
    vectors = scratch.vectors
    canonical_pass(data, work, task, k, np.uint8(0), work.present,  # uint8: the search's `listed`
                   vectors[:0])
    hist_f = hist[off:off + n_bins]
    counts_f = counts[off:off + n_bins]
    of_rank = coarse.of_rank[off:off + n_bins]
    base = coarse.offsets[k]
    bounds_f = survivors.bounds[base:coarse.offsets[k + 1]]
    C = totals.shape[0]
    n = task.index_order.shape[0]
    first, last = 0, n_bins - 1
    while first < n_bins and not _present(hist_f, first):
        first += 1
    while last > first and not _present(hist_f, last):
        last -= 1
    seen_total = _evaluation_vectors(totals, vectors)
    left, right, no_unseen = vectors[0], vectors[1], vectors[2]
    out_left = out.lefts[j]
    best = math.inf
    best_rank = -1
    walked = 0
    left_count = 0
    for t in range(first, last):
        for c in range(C):
            left[c] += hist_f[t, c]
        if counting:
            left_count += counts_f[t]
        b = of_rank[t]
        if bounds_f[b] <= limit:
            walked += 1
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
            _copy(left, out_left)
            limit = min(limit, best + survivors.margin)
    right_rank = -1
    if best_rank >= 0:
        right_rank = best_rank + 1
        while not _present(hist_f, right_rank):
            right_rank += 1
    _zero_ranks(hist_f, counts_f, first, last + 1, counting)
    out.scores[j], out.ranks[j, 0], out.ranks[j, 1], out.boundary[j] = \
        best, best_rank, right_rank, -1
    out.walked[j] = walked


@njit(cache=True, _nrt=False)
def refined_best(data, work, task, coarse, survivors, j, limit, out, scratch):
    """Row j of ``out`` (a ``Refined``): the best split of survivor j (a dense numeric
    feature) in ``task``'s node among its coarse boundaries and the inner splits of its
    bins whose bound is within ``limit``, a split by its ranks or a two-level feature's
    boundary by its coarse bin (``boundary_ranks`` gives its ranks), with its score and
    left class weights (+inf and -1s if none).  Each split it finds lowers the limit of
    the bins and runs after it to its score plus the margin (``coarse.survivors``).
    Leaves the workspace ``work`` zeroed; ``scratch``: the lane's ``LaneScratch``."""
    k = survivors.features[j]
    if data.two_level[k]:
        _two_level_best(data, work, task, coarse, survivors, k, limit, out, j, scratch)
    else:
        _one_level_best(data, work, task, coarse, survivors, k, limit, out, j, scratch)


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
def _pass_costs(data, task, coarse, survivors):
    """Per survivor, about the rows its pass reads: those of its coarse bins within the
    node's limit, and the node's (a one-level feature's canonical pass; a two-level
    feature's listing of its flagged bins' rows, unless there are none or it reads them
    by rank at a node of most rows); plus its coarse bins, whose boundaries every pass
    walks, at ``BIN_WALK_ROWS`` rows each (so a survivor with no bin within the limit
    still weighs its walk).  They depend on the node alone, not on the threads' timing."""
    F = survivors.features.shape[0]
    n = task.index_order.shape[0]
    by_rank = survivors.row_w.shape[0] > 0
    costs = np.empty(F)
    for j in range(F):
        k = survivors.features[j]
        flagged = 0
        for b in range(coarse.offsets[k], coarse.offsets[k + 1]):
            if survivors.bounds[b] <= survivors.limit:
                flagged += survivors.node_counts[b]
        lists = not data.two_level[k] or (flagged > 0 and not by_rank)
        costs[j] = flagged + (n if lists else 0) + \
            BIN_WALK_ROWS * (coarse.offsets[k + 1] - coarse.offsets[k])
    return costs


@njit(cache=True, _nrt=False)
def _refine_lane(data, work, task, coarse, survivors, out, lane, lane_of, published, scratch):
    """``refined_best`` of the survivors dealt to ``lane`` (``lane_of``), in order, each under the
    least limit found so far: the node's, lowered to a found split's score plus the
    margin (``coarse.survivors``), by this lane or by another (``published[l]``: lane
    l's limit).  Each published value is a limit, whenever it is read; which one a lane
    reads depends on the threads' timing, and so may a pruned survivor's row, but not
    the rows of the optimum and the splits within the tie window of it: those are
    never pruned (``coarse.survivors``), so neither is the split chosen.  ``scratch``:
    every lane's ``LaneScratch``, of which it takes its own."""
    own = LaneScratch(scratch.vectors[lane], scratch.flagged[lane], scratch.listed[lane])
    limit = survivors.limit
    for j in range(survivors.features.shape[0]):
        if lane_of[j] != lane:
            continue
        for other in range(published.shape[0]):
            limit = min(limit, published[other])
        refined_best(data, work, task, coarse, survivors, j, limit, out, own)
        limit = min(limit, out.scores[j] + survivors.margin)
        published[lane] = limit


@njit(cache=True, parallel=PRANGE_ONLY)
def refine_survivors(data, work, task, coarse, survivors, out, n_threads):
    """``refined_best`` of every survivor ``survivors.features[j]`` into row j of ``out``
    (a ``Refined``), dealt to ``n_threads`` threads by what they read (``_pass_costs``),
    which share the limits their splits lower (``_refine_lane``)."""
    F = survivors.features.shape[0]
    lanes = lane_count(n_threads, F, F * task.index_order.shape[0])
    published = np.full(lanes, survivors.limit)
    scratch = LaneScratch(np.empty((lanes, 9, survivors.totals.shape[0])),
                          np.empty((lanes, MAX_COARSE), np.uint8),
                          np.empty((lanes, task.index_order.shape[0]), np.int64))
    if lanes == 1:
        _refine_lane(data, work, task, coarse, survivors, out, np.int64(0),
                     np.zeros(F, np.int64), published, scratch)
    else:
        lane_of = deal(_pass_costs(data, task, coarse, survivors), lanes)
        # prange's index is unsigned: cast, or the callee compiles twice
        for lane in prange(lanes):
            _refine_lane(data, work, task, coarse, survivors, out, np.int64(lane), lane_of,
                         published, scratch)
