"""The exact scan of a feature with few distinct values: per-node histograms, one bin per value.

A *histogram feature* (``apsplit.newton.NewtonData`` chooses them: at most
``MAX_BINS`` distinct present values, dense enough, numeric) has every row's
value as a rank code (``Columns.hist_codes``, n x F_hist uint8, row-major):
code c < n_bins is the c-th smallest distinct present value
(``Columns.hist_values``), code n_bins marks a missing value.  A level then

1. ``accumulate``: one pass over the rows of the nodes it sums
   (``newton_moves.OpenRows``: slot by slot, each slot's ascending) adds each
   row's (g, h) and (1, [h = 0]) to the bin of its code in its node's histogram
   of every histogram feature the level scans (a missing row's code is a last
   bin that nothing reads: no branch per entry; the rows with h > 0 of a bin
   are its rows minus those with h = 0, a count only the rows of zero hessian,
   rare, add to: three additions per entry instead of four, 0.88-0.89x of a fit
   on satimage and pendigits, measured).  A bin is 24 bytes: its sums (two
   float64) in ``LevelBins.sums``, its counts (two int32) in ``LevelBins.counts``;
   the other nodes' histograms are derived (sibling subtraction, below);
2. ``scan_bins``: per open node, the bins in value order stand for the
   column's entries: descending for the backward pass, ascending for the
   forward pass, a bin empty in the node skipped.

Why the candidates, their order and the tie-breaking are the column scan's
(``newton_split.scan_feature``), so that the trees are the same.  In one
node, the column scan visits the node's present rows in value order and
considers a candidate each time the value changes, with the sums of the rows
seen so far as one side.  The rows seen before the first row of value v are
exactly the rows of the bins before v's (all rows of a value are
consecutive in the column), so the candidate at the change to v is the
candidate at v's bin, with the same side (as a set of rows), the same
(left_value, right_value) (the two consecutive present values of the node:
the bin values are the column's values, and the features with both 0.0 and
-0.0, equal but not the same float, are not histogram features) and the
same default side; the closing candidate (every present row on one side,
the missing rows on the other) is considered under the same condition (the
node has a present and a missing row).  The passes run in the same order per
node (forward, closing, backward, closing; the backward pass skipped where
the forward ran and the node has no missing row), the features in index
order (``newton_grow._grow``), and every candidate goes through the same rule
(``newton_split.beats``: a candidate replaces the node's best only when its gain
is in a higher cell of the node's tie grid).  Nodes are independent (a node's
best depends on its own candidates only), so scanning node by node instead of
interleaved changes nothing.  The one difference is the order of additions in a
side's sums (per bin in row order, then bin after bin, instead of row after row
in value order): the sums, hence the gains, may differ by a few ulps of the node's
sum of |g|, far below the tie window (``Level.tie``, 1e-10 of the node's gain
scale); the counts (rows, rows with h > 0) are integers and equal.
The chosen split's gain is then recomputed from its side's sums added in the
column's order (``column_order_gains``): the column scan's gain to the bit.
A gain within a few ulps of a cell's edge on the tie grid, next to another
candidate's in the same or the next cell, or a hessian sum within a few ulps
of ``min_child_weight``, can come out the other way: measure-zero events,
which the dyadic tests (exact sums) exclude and which the column scan itself
meets when its rows are reordered.

Sibling subtraction (``pair_siblings``, ``_derive_share``).  Below the root,
the open nodes come in pairs, the children of one split node, whose rows are
its rows.  The child with more rows is *derived*: each bin is its parent's
minus its sibling's (the previous level's histograms, kept when one chunk held
them all, ``chunk_end``, and the level sums the same features); the other
child is summed.  A level then sums at most
half of its open rows (the root's level sums all), as LightGBM does.  A slot
that cannot split (``newton_bounds.can_split``) gets no bins, unless its
sibling is derived from it (its sibling's derivation needs them): as LightGBM
skips a leaf below 2 min_sum_hessian_in_leaf.  Counts
are integers, exact, so a bin of no row is exactly 0 and skipped as before.
A derived G or H differs from the summed one by rounding, a few ulps of the
parent's sums: a child is derived only if its parent's sum of |g|, and its
hessian sum plus lambda, are at most ``DERIVE_WITHIN`` (64) times its own, so
the difference stays within 64 x a few ulps of the child's own scale, far
below the tie window (1e-10 of it), and the choice is the summed histogram's
but for gains within that much of a cell's edge (the measure-zero events
above; the chosen split's gain is recomputed in the column's order all the
same).  The admissibility is a comparison of hessian
sums with ``min_child_weight``, where rounding decides exactly at the line:
``scan_bins`` checks every comparison it makes on a derived slot, and a slot
where a candidate's side, or the other side, has a hessian sum within
``MIN_CHILD_BAND`` (1e-9 of the node's H) of it is flagged (``LevelBins.near``),
summed from its rows (``resum_near``) and scanned again.  The scan stops a pass
once the other side's H is below ``min_child_weight`` minus that band: a side's
H only grows along a pass (h >= 0; a derived bin's H may be a few ulps below 0,
far less than the band), so no later candidate is admissible or near.  With
dyadic statistics (the tests) every sum and difference is exact and the trees
are the column scan's to the bit.

Cost: O(rows of the summed nodes x histogram features) for the pass,
O(open nodes x bins) for the scan and the subtraction, against O(entries)
for the column scan with random access to ``gh[row]``, ``position[row]`` and
per-node running sums held in memory.  With sibling subtraction and the rows
by slot, a fit of 100 rounds took 0.73x its CPU time before on satimage,
0.85x on pendigits, the same trees (``python -m benchmarks.newton_against
<the checkout before> --repeats 5``, docs/gradient-boosting.md).
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .lanes import PRANGE_ONLY, lane_count
from .newton_indicator import MIN_CHILD_BAND
from .newton_split import beats, side_gain
from .unsigned import u

MAX_BINS = 255   # distinct present values of a histogram feature; code 255 at most = missing
GRAD, HESS = 0, 1      # a bin's sums (``LevelBins.sums``)
N_ROWS, N_ZERO = 0, 1  # a bin's counts (``LevelBins.counts``): rows, rows of h = 0
BIN_BYTES = 24         # two float64 sums, two int32 counts (+ 8 with a spread)
BIN_BUDGET = 4 << 20  # bytes of a level's histograms at a time (``chunk_end``; measured)


class BinCodes(NamedTuple):
    """Where a level's histograms find their rows' bins: feature f's bin of row r is
    ``codes[r, index[f]]`` (``index[f]`` = j >= 0), one of ``start[j + 1] - start[j]``
    bins, the missing code after them; ``with_spread``: the bins also sum |g|
    (``LevelBins.spread``).  The histogram features' (``hist_codes``) or the coarse
    features' (``newton_coarse``)."""

    codes: np.ndarray      # (n, F) uint8
    index: np.ndarray      # (K,) int64
    start: np.ndarray      # (F + 1,) int64
    with_spread: bool


@njit(cache=True)
def hist_codes(cols):
    """The histogram features' ``BinCodes``: one bin per distinct value, no spread."""
    return BinCodes(cols.hist_codes, cols.hist_index, cols.hist_start, False)


class LevelBins(NamedTuple):
    """The histograms of a level: ``sums[slot, offset[k] + code]`` and ``counts[...]``
    for the k-th feature of ``features`` (its bins, then the missing code's).  Two
    arrays, not one of four float64 channels: 24 bytes a bin instead of 32 (satimage's
    fit 0.95-0.98x, measured); a third, ``spread``, only where the scan bounds a bin's
    inside (``BinCodes.with_spread``)."""

    sums: np.ndarray       # (m, offset[-1], 2) float64: G, H
    counts: np.ndarray     # (m, offset[-1], 2) int32: rows, rows of h = 0 (< 2**31)
    spread: np.ndarray     # (m, offset[-1]) float64: sum of |g|; (m, 0) without
    features: np.ndarray   # the level's histogram features summed (a chunk), ascending
    offset: np.ndarray     # where each one's bins start; offset[-1]: bins of the level
    place: np.ndarray      # place[f]: k of feature f in ``features`` (-1: not accumulated)
    derived: np.ndarray    # (m,) bool: the slot's bins are its parent's minus its sibling's
    near: np.ndarray       # (m,) bool: a derived slot whose scan met a hessian sum near
    #                        min_child_weight (``scan_bins``): summed again (``resum_near``)


@njit(cache=True)
def chunk_end(source, features, in_histograms, start, m):
    """The end of the chunk of ``features`` from ``start`` (a histogram feature) whose
    histogram features' bins (``source``'s), for ``m`` slots, fit in ``BIN_BUDGET``
    bytes (one feature at least): a level accumulates and scans its histogram features
    chunk by chunk, in feature order, so that its histograms stay within the budget."""
    n_bins = 0
    end = start
    bin_bytes = BIN_BYTES + 8 * source.with_spread
    while end < features.shape[0]:
        if in_histograms[end]:
            j = source.index[features[end]]
            more = source.start[j + 1] - source.start[j] + 1
            if end > start and m * (n_bins + more) * bin_bytes > BIN_BUDGET:
                break
            n_bins += more
        end += 1
    return end


@njit(cache=True)
def _sum_share(source, gh, open_rows, chosen, level_bins, first, last):
    """Add the rows of every ``chosen`` slot (``newton_moves.OpenRows``), in order, to
    the slot's bins (``source``'s codes) of the features ``first:last`` of ``level_bins``.

    The bins are read as one flat array each, (slot x bins of the level + bin) x 2 +
    channel, every subscript unsigned: a 3-d subscript multiplies by the arrays' run-time
    strides and tests signs, about half of a loop of a few instructions per entry."""
    codes, rows, start, offset = source.codes, open_rows.rows, open_rows.start, \
        level_bins.offset
    sums = level_bins.sums.reshape(-1)
    counts = level_bins.counts.reshape(-1)
    spread = level_bins.spread.reshape(-1)
    with_spread = source.with_spread
    n_level = offset[-1]
    columns = np.empty(last, np.int64)
    every = True
    for k in range(first, last):
        columns[k] = source.index[level_bins.features[k]]
        every = every and columns[k] == k
    for s in range(chosen.shape[0]):
        if not chosen[s]:
            continue
        slot = s * n_level
        for p in range(start[s], start[s + 1]):
            r = u(rows[p])
            g = gh[r, 0]
            h = gh[r, 1]
            for k in range(first, last):
                # every: column k is k, one load less per entry (2-5% of a fit, satimage)
                at = u(slot + offset[u(k)] + codes[r, u(k if every else columns[u(k)])])
                b = u(2 * at)
                sums[b] += g
                sums[b + u(HESS)] += h
                counts[b] += 1
                if with_spread:
                    spread[at] += abs(g)
            if not h > 0.0:
                for k in range(first, last):
                    counts[u(2 * (slot + offset[u(k)] + codes[r, u(columns[u(k)])]) + N_ZERO)] += 1


@njit(cache=True, parallel=PRANGE_ONLY)
def _sum_slots(source, gh, open_rows, chosen, level_bins, lanes):
    """``_sum_share`` of every feature, in ``lanes`` contiguous shares of the features, one
    a thread (a bin is summed by one thread, in row order: the same sums for any count)."""
    k_count = level_bins.features.shape[0]
    if lanes == 1:
        _sum_share(source, gh, open_rows, chosen, level_bins, np.int64(0), k_count)
        return
    for lane in prange(lanes):
        share = np.int64(lane)  # prange's index is unsigned: cast, or the callee compiles twice
        _sum_share(source, gh, open_rows, chosen, level_bins, share * k_count // lanes,
                   (share + 1) * k_count // lanes)


class Siblings(NamedTuple):
    """Where a level's histograms come from (module docstring, sibling subtraction):
    slot t's are summed from its rows when ``summed[t]``, derived as its parent's minus
    its sibling's, ``parent_sums[parent[t]] - sums[t ^ 1]`` and the same for the counts
    (a split node's children are consecutive slots, left even), when ``derived[t]``;
    a slot that cannot split (``newton_bounds.can_split``) and that no sibling is
    derived from has none."""

    summed: np.ndarray         # (m,) bool
    derived: np.ndarray        # (m,) bool
    parent: np.ndarray         # (m,) the parent's slot in the parent's arrays
    # the previous level's LevelBins' arrays (the same features), not the tuple:
    # numba's parallel lowering refuses a tuple nested in a tuple passed into a prange
    parent_sums: np.ndarray    # the previous level's ``LevelBins.sums``
    parent_counts: np.ndarray  # ``LevelBins.counts``
    parent_spread: np.ndarray  # and ``LevelBins.spread``


@njit(cache=True)
def summed_where(wanted):
    """``Siblings`` summing the slots ``wanted`` from their rows (none derived)."""
    m = wanted.shape[0]
    none = no_bins()
    return Siblings(wanted.copy(), np.zeros(m, np.bool_), np.zeros(m, np.int64), none.sums,
                    none.counts, none.spread)


@njit(cache=True)
def no_bins():
    """A ``LevelBins`` of no slot and no feature (a level before any histogram)."""
    return LevelBins(np.zeros((0, 0, 2)), np.zeros((0, 0, 2), np.int32), np.zeros((0, 0)),
                     np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64),
                     np.zeros(0, np.bool_), np.zeros(0, np.bool_))


DERIVE_WITHIN = 64.0  # a child is derived only if its parent's sums are <= this x its own


@njit(cache=True)
def pair_siblings(parent_bins, child_slot, parent_level, level, reg_lambda, wanted):
    """``Siblings`` for the ``wanted`` slots of a level whose slots are the children of
    ``parent_level``'s (``child_slot[p]``: p's left child, -1 if p did not split), with
    the previous level's ``LevelBins`` ``parent_bins``: of each pair the child with more
    rows (the right one on a tie), if wanted, is derived, if its parent's sum of |g|
    and hessian sum + lambda are at most ``DERIVE_WITHIN`` times its own (so that the
    subtraction's rounding, a few ulps of the parent's sums, stays a few ulps of the
    child's too), and its sibling summed, wanted or not; the other wanted slots are
    summed."""
    m = level.grad.shape[0]
    summed = wanted.copy()
    derived = np.zeros(m, np.bool_)
    parent = np.zeros(m, np.int64)
    for p in range(child_slot.shape[0]):
        left = child_slot[p]
        if left < 0:
            continue
        parent[left] = p
        parent[left + 1] = p
        t = left if level.n_rows[left] > level.n_rows[left + 1] else left + 1
        small_grad = parent_level.abs_grad[p] <= DERIVE_WITHIN * level.abs_grad[t]
        small_hess = (parent_level.hess[p] + reg_lambda
                      <= DERIVE_WITHIN * (level.hess[t] + reg_lambda))
        if wanted[t] and small_grad and small_hess:
            derived[t] = True
            summed[t] = False
            summed[t ^ 1] = True
    return Siblings(summed, derived, parent, parent_bins.sums, parent_bins.counts,
                    parent_bins.spread)


@njit(cache=True)
def _derive_share(level_bins, siblings, first, last):
    """Derive the bins of the features ``first:last`` of every derived slot: its parent's
    minus its sibling's, a bin of no row exactly zero (counts are exact; a bin's sums
    would otherwise keep the rounding of the parent's).  No branch per bin."""
    derived, parent = siblings.derived, siblings.parent
    # flat bins (``_sum_share``): the parent's level has the same features, so the same
    # bins per slot
    sums, counts = level_bins.sums.reshape(-1), level_bins.counts.reshape(-1)
    parent_sums = siblings.parent_sums.reshape(-1)
    parent_counts = siblings.parent_counts.reshape(-1)
    n_level = level_bins.offset[-1]
    offset = level_bins.offset
    for t in range(derived.shape[0]):
        if not derived[t]:
            continue
        here = 2 * t * n_level
        there = 2 * parent[t] * n_level
        other = 2 * (t ^ 1) * n_level
        for i in range(2 * offset[first], 2 * offset[last]):
            counts[u(here + i)] = parent_counts[u(there + i)] - counts[u(other + i)]
        for i in range(2 * offset[first], 2 * offset[last], 2):
            empty = counts[u(here + i)] == 0
            for c in range(2):
                difference = parent_sums[u(there + i + c)] - sums[u(other + i + c)]
                sums[u(here + i + c)] = 0.0 if empty else difference
        if level_bins.spread.shape[1] == 0:
            continue
        spread, parent_spread = level_bins.spread.reshape(-1), siblings.parent_spread.reshape(-1)
        for i in range(offset[first], offset[last]):
            difference = parent_spread[u(there // 2 + i)] - spread[u(other // 2 + i)]
            spread[u(here // 2 + i)] = 0.0 if counts[u(here + 2 * i)] == 0 else difference


@njit(cache=True, parallel=PRANGE_ONLY)
def _derive_slots(level_bins, siblings, lanes):
    """``_derive_share`` of every feature, in ``lanes`` contiguous shares of the features."""
    k_count = level_bins.features.shape[0]
    if lanes == 1:
        _derive_share(level_bins, siblings, np.int64(0), k_count)
        return
    for lane in prange(lanes):
        share = np.int64(lane)
        _derive_share(level_bins, siblings, share * k_count // lanes,
                      (share + 1) * k_count // lanes)


@njit(cache=True)
def accumulate(source, gh, open_rows, features, n_threads, siblings):
    """The ``LevelBins`` of the level's slots (``siblings``: which are summed, which
    derived, which have none) for the ``features`` (ascending) of ``source``
    (``BinCodes``): every row of a summed slot (``open_rows``) added to its slot's bin of
    its code, in row order, then the derived slots' bins as their parent's minus their
    sibling's.  The bins of a slot with none are left unwritten: nothing reads them."""
    m = siblings.summed.shape[0]
    k_count = features.shape[0]
    offset = np.zeros(k_count + 1, np.int64)
    place = np.full(source.index.shape[0], -1, np.int64)
    for k in range(k_count):
        j = source.index[features[k]]
        place[features[k]] = k
        offset[k + 1] = offset[k] + source.start[j + 1] - source.start[j] + 1
    # a derived slot's bins are all written by _derive_share: only the summed are zeroed
    level_bins = LevelBins(np.empty((m, offset[k_count], 2)),
                           np.empty((m, offset[k_count], 2), np.int32),
                           np.empty((m, offset[k_count] if source.with_spread else 0)),
                           features, offset, place, siblings.derived.copy(),
                           np.zeros(m, np.bool_))
    for t in range(m):
        if siblings.summed[t]:
            level_bins.sums[t] = 0.0
            level_bins.counts[t] = 0
            level_bins.spread[t] = 0.0
    if k_count == 0:
        return level_bins
    lanes = lane_count(n_threads, k_count, open_rows.rows.shape[0] * k_count)
    _sum_slots(source, gh, open_rows, siblings.summed, level_bins, lanes)
    if siblings.derived.any():
        _derive_slots(level_bins, siblings, lanes)
    return level_bins


@njit(cache=True)
def resum_near(source, gh, open_rows, level_bins, n_threads):
    """Sum the bins of the slots ``level_bins.near`` marks from their rows, as a summed
    slot's (no longer derived, no longer near): their scan met a hessian sum within
    ``MIN_CHILD_BAND`` of ``min_child_weight``, where the subtraction's rounding could
    decide the admissibility (module docstring).  The caller scans them again."""
    near = level_bins.near.copy()
    for t in range(near.shape[0]):
        if near[t]:
            level_bins.sums[t] = 0.0
            level_bins.counts[t] = 0
            level_bins.spread[t] = 0.0
            level_bins.derived[t] = False
            level_bins.near[t] = False
    k_count = level_bins.features.shape[0]
    lanes = lane_count(n_threads, k_count, open_rows.rows.shape[0] * k_count)
    _sum_slots(source, gh, open_rows, near, level_bins, lanes)
    return near


@njit(inline='always')
def scan_bins(cols, level_bins, features, first, step, allowed, level, batch, params, score):
    """Every candidate split of the histogram features ``features[i]``, i = first,
    first + step, ..., in every open slot that may split on it (``allowed[i, s]``), kept
    in row i of ``batch`` (``newton_parallel.Batch``; the slots not allowed keep what
    the row holds, so a rescan of some slots leaves the others' bests):
    ``newton_split.scan_feature``'s candidates in its order (module docstring), read
    from the slot's bins.  A pass stops once no later candidate can be admissible, and a
    derived slot where a compared hessian sum lies within the band of
    ``min_child_weight`` is flagged in ``level_bins.near`` (every lane writes True only:
    the same for any thread count; module docstring).

    The record of a candidate is ``newton_split.beats``'s rule written out on the arrays,
    taken out of the tuples once for all the features (as ``newton_split._pass`` does):
    per feature, views of the batch's rows and the tuples' arrays cost numba's reference
    counting, 16 atomic increments and as many decrements a feature (gdb, a probe).
    """
    # flat bins, (slot x bins of the level + bin) x 2 + channel (``_sum_share``)
    sums, counts = level_bins.sums.reshape(-1), level_bins.counts.reshape(-1)
    derived, near, n_level = level_bins.derived, level_bins.near, level_bins.offset[-1]
    hist_values, hist_start, hist_index = cols.hist_values, cols.hist_start, cols.hist_index
    node_grad, node_hess, node_pos, node_score, tie = (level.grad, level.hess, level.n_pos,
                                                        level.score, level.tie)
    best_gain, best_feature = batch.gain, batch.feature
    best_default, best_left, best_right = batch.default_left, batch.left_value, batch.right_value
    min_child_weight = params.min_child_weight
    for i in range(first, features.shape[0], step):
        f = features[i]
        j = hist_index[f]
        start = hist_start[j]
        n_bins = hist_start[j + 1] - start
        base = level_bins.offset[level_bins.place[f]]
        forward = cols.forward[f]
        for s in range(node_grad.shape[0]):
            if not allowed[i, s]:
                continue
            # the slot's sums and best in locals: the loop's stores (a record) would
            # otherwise make every candidate reload them from the arrays
            grad_s, hess_s, pos_s, score_s, tie_s = (node_grad[s], node_hess[s], node_pos[s],
                                                      node_score[s], tie[s])
            gain_best, feature_best, default_best = -np.inf, -1, False
            left_best, right_best = np.nan, np.nan
            is_near = False
            at = 2 * (s * n_level + base)  # the slot's feature's first bin
            has_missing = counts[u(at + 2 * n_bins)] > 0
            # a side's H only grows along a pass (h >= 0), so once the other side's is
            # below min_child_weight no later candidate is admissible (the band: a
            # derived bin's H may be a few ulps below 0, far less than it)
            band = MIN_CHILD_BAND * hess_s
            stop_below = min_child_weight - band
            check = derived[s]
            for direction in range(2):
                ascending = direction == 0
                if ascending and not forward:
                    continue
                G = 0.0
                H = 0.0
                n_pos = 0
                n_rows = 0
                last = 0.0
                for k in range(n_bins + 1):
                    if k < n_bins:
                        b = k if ascending else n_bins - 1 - k
                        cell = u(at + 2 * b)
                        count = counts[cell]
                        if count == 0:
                            continue
                        v = hist_values[start + b]
                    elif has_missing:  # the closing candidate: every present row on one
                        v = np.inf if ascending else -np.inf  # side, the missing ones
                    else:                                     # on the other
                        break
                    if n_rows > 0:
                        other = hess_s - H
                        if other < stop_below:
                            break
                        if check and n_pos > 0 and pos_s - n_pos > 0 and (
                                abs(H - min_child_weight) <= band
                                or abs(other - min_child_weight) <= band):
                            is_near = True
                        gain = side_gain(G, H, n_pos, grad_s, hess_s, pos_s, score_s, params,
                                         score)
                        if beats(gain, gain_best, tie_s):
                            gain_best = gain
                            feature_best = f
                            default_best = not ascending
                            left_best = last if ascending else v
                            right_best = v if ascending else last
                    if k == n_bins:
                        break
                    G += sums[cell]
                    H += sums[cell + u(HESS)]
                    n_pos += np.int64(count - counts[cell + u(N_ZERO)])
                    n_rows += np.int64(count)
                    last = v
                if ascending and not has_missing:
                    break  # no missing row: the backward pass would repeat the forward one
            best_gain[i, s] = gain_best
            best_feature[i, s] = feature_best
            best_default[i, s] = default_best
            best_left[i, s] = left_best
            best_right[i, s] = right_best
            if is_near:
                near[s] = True


@njit(inline='always')
def column_order_gains(cols, gh, open_rows, level, best, params, score):
    """Recompute the gain of every slot whose best split is on a histogram feature from
    its side's sums added in the column scan's order, so that the gain is the column
    scan's to the bit (the bins' sums are the same rows added in another order).

    The side of a backward candidate (missing rows left) is the present rows of value
    > left_value, met in the column in descending (value, row); a forward one's, the
    rows of value <= left_value in ascending (value, row).  Each slot's rows in
    ``open_rows`` (``newton_moves.OpenRows``) are ascending, so a counting sort of each
    such slot's rows by code gives that order, and the side is a range of it: O(rows +
    bins of those slots).
    """
    m = level.grad.shape[0]
    by_slot, start = open_rows.rows, open_rows.start
    count = np.empty(MAX_BINS + 2, np.int64)
    ordered = np.empty(by_slot.shape[0], np.int64)  # a slot's rows by code, then row
    for s in range(m):
        f = best.feature[s]
        if f < 0 or cols.hist_index[f] < 0:
            continue
        j = cols.hist_index[f]
        values = cols.hist_values[cols.hist_start[j]:cols.hist_start[j + 1]]
        n_bins = values.shape[0]
        count[:n_bins + 2] = 0  # by code (the missing code last), + 1
        codes = cols.hist_codes
        for p in range(start[s], start[s + 1]):
            count[codes[u(by_slot[p]), u(j)] + 1] += 1
        for c in range(n_bins + 1):
            count[c + 1] += count[c]
        # the rows of codes < c are ordered[:count[c]] once the rows are placed
        cut = np.searchsorted(values, best.left_value[s], side="right")  # values <= left
        below, present = count[cut], count[n_bins]
        for p in range(start[s], start[s + 1]):
            c = codes[u(by_slot[p]), u(j)]
            ordered[count[c]] = by_slot[p]
            count[c] += 1
        G = 0.0
        H = 0.0
        n_pos = 0
        backward = best.default_left[s]
        for i in range(present - below if backward else below):
            r = u(ordered[present - 1 - i] if backward else ordered[i])
            h = gh[r, 1]
            G += gh[r, 0]
            H += h
            n_pos += h > 0.0
        best.gain[s] = side_gain(G, H, n_pos, level.grad[s], level.hess[s], level.n_pos[s],
                                 level.score[s], params, score)
