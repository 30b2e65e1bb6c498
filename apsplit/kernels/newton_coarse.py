"""Continuous features at histogram speed: coarse bins, exact boundaries, bounded insides.

A *coarse feature* (``apsplit.newton.NewtonData``: numeric, dense enough, more distinct
values than ``coarse_bins``, 255 by default) has every row's coarse bin
(``Columns.coarse_codes``): at most that many runs of consecutive distinct values, each
about as many of the column's entries.
At a level of few open nodes (``pays``) the grower sums per-node histograms of these
bins (``newton_hist.accumulate`` with a spread: per bin G, H, the sum A of |g|, rows and
rows of h = 0; the smaller child summed, its sibling derived), and ``_scan_coarse_lane``
finds every node's best split of each coarse feature from them, the column scan's
(``newton_split.scan_feature``) candidates in its order:

- a *boundary*, the candidate between two bins holding rows of the node, has one side
  the node's rows of the bins before it in the pass: its sums are the histogram's, its
  gain computed as the column scan computes a candidate's;
- a candidate *inside* bin b has one side P + x: P the sums of the bins before b in the
  pass, x those of a prefix (in the pass's order) of b's rows in the node, so x lies in
  the box [neg_b, pos_b] x [0, H_b] (neg_b, pos_b: the sums of b's negative and of its
  positive g, (G_b -+ A_b) / 2).  The gain is jointly convex in the side's (G, H)
  (``newton_split._block_may_exceed``), so when the criterion's cheap test refuses the
  box's four corners (``box_may_exceed``) against a bar, no candidate inside exceeds
  it.  Otherwise the bin is *refined*: its entries in the sorted column
  (``Columns.coarse_entry``) are walked, the node's rows picked by their slot, and each
  candidate is computed as the column scan computes it, from P plus the rows seen.

Which candidates can be left out.  The grower keeps the first candidate, in XGBoost's
order, of the highest cell of the node's tie grid (``newton_split``, "Ties"): a
candidate can be left out when another one, met anywhere, is in a higher cell, or one
met before it in the same cell or higher.  So each level calls the scan twice.  The
first call (``known`` = +inf, ``_scout_feature``) sums each pass's bins per group of
``GROUP`` (``GroupSums``: G, H, rows, the last bin holding rows, and the range of G
[low, high] over the boxes of the group's bins, from the group's start) and evaluates
the boundary into each group's first bin holding rows of the node, and the closing
candidates; each node's largest such gain over the features is ``known``, the gain of a
candidate that the second call evaluates again from the same sums and the grower's
merge meets.  The second tests each group's box, [start + low, start + high] x [H,
H + H_group], passes a refused group in O(1), looks at the bins of the others one by
one, and at a bin's boundary and inside only where its box can reach above both
``below_bar(known)`` (a gain under it is in a lower cell than known's; known raised,
for a thread's later features, to the gains its earlier ones kept) and ``record_bar``
of the feature's best so far; every candidate is tested against the same two bars.  A
feature whose best ends in a lower cell than known's has no candidate the merge can
keep: its row is left empty.  The first candidate of the feature's highest cell, when
that cell is known's or higher, beats both bars, so it is evaluated and kept, and
nothing after it replaces it: the feature's row is the column scan's, and so is the
merge's choice.

Rounding.  A box holds the side sums *as computed* by the refinement (P from the
histogram, then the rows in column order): it is widened by ``DERIVE_WITHIN`` (4 n +
256) ulps of the node's sum of |g| and of its H, n the level's open rows, which covers
the bins' own sums (n additions), a derived slot's subtraction at its parent's scale (at
most ``DERIVE_WITHIN`` times the node's, ``newton_hist``), the walk's additions and a
group range's few roundings.  The boundaries and P are added group by group, each
group bin by bin (the same additions in both calls), rather than row by row as the
column scan adds them: gains a few ulps from the column scan's, as in ``newton_hist``,
whose consequences that module's docstring sets out (measure-zero events; a derived
slot whose comparison with ``min_child_weight`` is within the band is summed again
from its rows and scanned again, ``LevelBins.near``).  The chosen split's gain is
then recomputed in the column's order (``column_order_gains``): the column scan's gain
to the bit.

The boundaries' values are not in the histogram: a boundary keeps its bins, and once the
feature's best is known its two values are read from the column, the last row of the
node in the bin before and the first in the bin after (``_resolve``), the same rows the
column scan meets there.

Cost per level and coarse feature: the summed slots' rows (one pass over their codes),
one walk of m x 256 bins, m x 16 groups, the bins of the groups whose box passes, and
the refined bins' entries, about n / 255 each; against the column scan's every open
entry with random reads of (g, h).  ``pays`` decides per level (``PAYS_ROWS_PER_BIN``;
1.5 instead of 2, which takes higgs7k's 16-node level, was no faster, measured).
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .lanes import lane_count
from .newton_hist import DERIVE_WITHIN
from .newton_indicator import MIN_CHILD_BAND
from .newton_split import (beats, below_bar, exceed_limit, level_node, record_bar,
                           side_gain, tie_cell)
from .unsigned import u

PAYS_ROWS_PER_BIN = 2.0  # a level scans coarse histograms at this many open rows per node-bin
GROUP = 16  # bins summed and bounded as a whole (``GroupSums``)
_ULP = 2.0 ** -53

# The criterion's child score and cheap test, and the lane scanner: free names, bound per
# criterion by ``newton_grow.specialise`` (placeholders here).
score = may_exceed = scan_coarse_lane = scan_coarse_batch = None


@njit(cache=True)
def pays(cols, n_open_rows, m):
    """A level of ``m`` open nodes and ``n_open_rows`` rows scans its coarse features from
    histograms: m x (bins + 1) per feature, against about one entry per open row for
    the column scan (``PAYS_ROWS_PER_BIN``, measured)."""
    n_bins = 0
    for j in range(cols.coarse_start.shape[0] - 1):
        n_bins = max(n_bins, cols.coarse_start[j + 1] - cols.coarse_start[j])
    return n_open_rows >= PAYS_ROWS_PER_BIN * m * (n_bins + 1)


class Walk(NamedTuple):
    """What the refinement and a boundary's values read of one coarse feature: its
    column's entries, where each bin's start (``bin_entry``; the last ends at ``end``),
    and the rows' slots and (g, h).  Taken out of ``Columns`` and ``Rows`` once per
    feature (``_walk``): numba counts a reference to every array passed to an inlined
    function, per call, and ``Columns`` holds 17."""

    entry_rows: np.ndarray
    entry_values: np.ndarray
    bin_entry: np.ndarray
    end: int
    position: np.ndarray
    gh: np.ndarray


class Side(NamedTuple):
    """Sums of one side of a candidate (or of a node): G, H and the rows of h > 0."""

    grad: float
    hess: float
    n_pos: int


@njit(inline='always')
def _walk(cols, rows, f):
    """The ``Walk`` of coarse feature f."""
    j = cols.coarse_index[f]
    return Walk(cols.rows, cols.values,
                cols.coarse_entry[cols.coarse_start[j]:cols.coarse_start[j + 1]],
                cols.indptr[f + 1], rows.position, rows.gh)


@njit(inline='always')
def _bin_entries(walk, b):
    """Bin b's entries lo:hi in the column as built."""
    lo = walk.bin_entry[b]
    hi = walk.bin_entry[b + 1] if b + 1 < walk.bin_entry.shape[0] else walk.end
    return lo, hi


@njit(inline='always')
def _node_value(walk, lo, hi, s, from_end):
    """The value of slot s's first entry among entries lo:hi (``from_end``: its last)."""
    for k in range(hi - lo):
        e = u(hi - 1 - k if from_end else lo + k)
        if walk.position[walk.entry_rows[e]] == s:
            return walk.entry_values[e]
    return np.nan


class SlotBest(NamedTuple):
    """A feature's best in one slot: a boundary keeps its bins (``bin``: the bin the pass
    enters, the bins' count for the closing candidate; ``before``: the bin before it in
    the pass), its values read once it is final (``_resolve``)."""

    gain: float
    default_left: bool
    left_value: float
    right_value: float
    bin: int          # -1: inside a bin (its values known)
    before: int


@njit(inline='always')
def _resolve(walk, s, best, n_bins):
    """The two values of a boundary: those of the node's rows on either side of it, the
    rows the column scan meets there (ascending: the last of the bin before, the first
    of the bin entered; descending, the other way round)."""
    if best.bin < 0:
        return best
    lo, hi = _bin_entries(walk, best.before)
    ascending = not best.default_left
    near_value = _node_value(walk, lo, hi, s, ascending)  # the bin before's side
    if best.bin == n_bins:  # the closing candidate: every present row on one side
        if ascending:
            return SlotBest(best.gain, False, near_value, np.inf, -1, -1)
        return SlotBest(best.gain, True, -np.inf, near_value, -1, -1)
    lo, hi = _bin_entries(walk, best.bin)
    far_value = _node_value(walk, lo, hi, s, not ascending)
    if ascending:
        return SlotBest(best.gain, False, near_value, far_value, -1, -1)
    return SlotBest(best.gain, True, far_value, near_value, -1, -1)


@njit(inline='always')
def _refine(walk, b, s, ascending, before, node, best, known_bar, params, score, may_exceed):
    """The candidates inside bin b of slot s (``node``) in a pass: its entries walked in
    the column, the slot's rows picked, each candidate computed as the column scan
    computes it from the sums ``before`` (a ``Side``) of the bins before b plus the rows
    seen.  Returns the best (``SlotBest``) and whether a side's hessian sum came near
    ``min_child_weight`` (the caller flags the slot if it is derived)."""
    lo, hi = _bin_entries(walk, b)
    position, gh, entry_rows, entry_values = walk.position, walk.gh, walk.entry_rows, \
        walk.entry_values
    G, H, n_pos = before.grad, before.hess, before.n_pos
    tie, mcw = node.tie, params.min_child_weight
    band = MIN_CHILD_BAND * node.hess
    limit = exceed_limit(max(record_bar(best.gain, tie), known_bar), node.score)
    near = False
    seen = 0
    last = 0.0
    for i in range(hi - lo):
        e = u(lo + i if ascending else hi - 1 - i)
        r = u(entry_rows[e])
        if position[r] != s:
            continue
        v = entry_values[e]
        if seen > 0 and v != last:
            other = node.hess - H
            if n_pos > 0 and node.n_pos - n_pos > 0 and (abs(H - mcw) <= band
                                                          or abs(other - mcw) <= band):
                near = True
            if may_exceed(G, H, node.grad - G, other, limit, params):
                gain = side_gain(G, H, n_pos, node.grad, node.hess, node.n_pos, node.score,
                                 params, score)
                if beats(gain, best.gain, tie):
                    best = SlotBest(gain, not ascending, last if ascending else v,
                                    v if ascending else last, -1, -1)
                    limit = exceed_limit(max(record_bar(gain, tie), known_bar), node.score)
        h = gh[r, 1]
        G += gh[r, 0]
        H += h
        n_pos += h > 0.0
        last = v
        seen += 1
    return best, near


@njit(inline='always')
def _box_may_exceed(G, H, low, high, H_b, node_grad, node_hess, widen_G, widen_H, limit,
                    params, may_exceed):
    """False only when no side whose computed sums lie in the box [G + low, G + high] x
    [H, H + H_b] (widened) has a computed gain above the bar: ``may_exceed`` refuses one
    point that dominates the box.  The built-in score G^2 / (H + lambda) (alpha and
    max_delta_step 0, the only one the coarse scan runs with) grows with |G| and falls
    with H, so each side's score on the box is at most its value at the largest |G| and
    the least H of that side, and the gain at most their sum less the node's score: the
    refusal of that point bounds the whole box (``newton_may_exceed``'s proof, with
    ``newton_split._block_may_exceed``'s for the rounding of the candidates' sums).
    A bin's insides lie in low, high = (G_b -+ A_b) / 2 (its negative and its positive
    g's sums), a group's in the range of its bins' boxes (``GroupSums``)."""
    G_lo = G + low - widen_G
    G_hi = G + high + widen_G
    return may_exceed(max(abs(G_lo), abs(G_hi)), H - widen_H,
                      max(abs(node_grad - G_lo), abs(node_grad - G_hi)),
                      node_hess - (H + H_b + widen_H), limit, params)


class GroupSums(NamedTuple):
    """The sums of each group of ``GROUP`` bins of a pass, as the first call added them
    (``_scout_feature``), at [slot, k, pass (0 ascending, 1 descending), group]: the second
    call (``_scan_feature``) passes a group the cheap test refuses as a whole in O(1)."""

    grad: np.ndarray     # G of the group's bins, added in the pass's order
    hess: np.ndarray     # H, the same
    low: np.ndarray      # the least G (from the group's start) of its bins' boxes
    high: np.ndarray     # the largest
    n_pos: np.ndarray    # int64: rows of h > 0
    n_rows: np.ndarray   # int64: rows
    last: np.ndarray     # int64: the group's last bin holding rows in the pass (-1: none)


@njit(cache=True)
def new_group_sums(cols, bins, m):
    """Room for the group sums of ``bins``' features in ``m`` slots."""
    most = 1
    for k in range(bins.features.shape[0]):
        j = cols.coarse_index[bins.features[k]]
        most = max(most, cols.coarse_start[j + 1] - cols.coarse_start[j])
    shape = (m, bins.features.shape[0], 2, (most + GROUP - 1) // GROUP)
    return GroupSums(np.empty(shape), np.empty(shape), np.empty(shape), np.empty(shape),
                     np.empty(shape, np.int64), np.empty(shape, np.int64),
                     np.empty(shape, np.int64))


@njit(inline='always')
def _scout_pass(bins, groups, k, n_bins, ascending, forward, allowed, level, params, score):
    """One pass (``ascending`` a constant where it is inlined, so that the loop is compiled
    for its direction) of ``_scout_feature`` over feature k of ``bins`` in every slot
    ``allowed`` marks: writes its ``groups`` and returns each slot's largest gain (-inf
    where the slot has no pass).  Every slot in one call: numba counts references to the
    arrays taken out of the tuples once per call, 35% of the time when called per slot
    (perf)."""
    m = allowed.shape[0]
    sums, counts = bins.sums.reshape(-1), bins.counts.reshape(-1)
    spread = bins.spread.reshape(-1)
    out_grad, out_hess, out_low, out_high = groups.grad, groups.hess, groups.low, groups.high
    out_pos, out_rows, out_last = groups.n_pos, groups.n_rows, groups.last
    direction = 0 if ascending else 1
    tops = np.full(m, -np.inf)
    for s in range(m):
        at = s * bins.offset[-1] + bins.offset[k]
        has_missing = counts[u(2 * (at + n_bins))] > 0
        # the ascending pass when the column has one, the descending one when it has no
        # ascending pass or the slot has missing rows (else it repeats the ascending one)
        if not (allowed[s] and (forward if ascending else not forward or has_missing)):
            continue
        node_grad, node_hess, node_pos = level.grad[s], level.hess[s], level.n_pos[s]
        node_score = level.score[s]
        G = H = 0.0  # the groups before
        n_pos = n_seen = 0
        for group in range((n_bins + GROUP - 1) // GROUP):
            G_g = H_g = low = high = 0.0  # the group's bins before; its boxes' range
            pos_g = rows_g = 0
            last = -1
            for step in range(group * GROUP, min(group * GROUP + GROUP, n_bins)):
                b = step if ascending else n_bins - 1 - step
                cell = u(at + b)
                count = np.int64(counts[2 * cell])
                G_b, A_b = sums[2 * cell], spread[cell]
                low = min(low, G_g + (G_b - A_b) / 2.0)
                high = max(high, G_g + (G_b + A_b) / 2.0)
                G_g += G_b
                H_g += sums[2 * cell + 1]
                pos_g += count - counts[2 * cell + 1]
                rows_g += count
                last = b if count > 0 else last
            if n_seen > 0 and rows_g > 0:  # the boundary into the group's first nonempty bin
                gain = side_gain(G, H, n_pos, node_grad, node_hess, node_pos, node_score,
                                 params, score)
                tops[s] = max(tops[s], gain)
            out_grad[s, k, direction, group] = G_g
            out_hess[s, k, direction, group] = H_g
            out_low[s, k, direction, group] = low
            out_high[s, k, direction, group] = high
            out_pos[s, k, direction, group] = pos_g
            out_rows[s, k, direction, group] = rows_g
            out_last[s, k, direction, group] = last
            G += G_g
            H += H_g
            n_pos += pos_g
            n_seen += rows_g
        if has_missing and n_seen > 0:  # the closing candidate
            gain = side_gain(G, H, n_pos, node_grad, node_hess, node_pos, node_score, params,
                             score)
            tops[s] = max(tops[s], gain)
    return tops


@njit(inline='always')
def _scout_feature(cols, bins, groups, k, allowed, level, params, score, gains):
    """Each allowed slot's largest gain (into ``gains``), in both passes over feature k of
    ``bins``, of the boundaries into each group's first bin holding rows of the slot and
    of the closing candidates: the first call's ``known``, the gain of candidates the
    second call evaluates again from the same sums.  Writes the passes' ``groups``.  A
    pass's sums are added group by group, each group's bin by bin from zero: the side
    before bin b is (the groups before b's) + (the bins of b's group before b), the same
    additions in both calls."""
    f = bins.features[k]
    j = cols.coarse_index[f]
    n_bins = cols.coarse_start[j + 1] - cols.coarse_start[j]
    forward = cols.forward[f]
    up = _scout_pass(bins, groups, k, n_bins, True, forward, allowed, level, params, score)
    down = _scout_pass(bins, groups, k, n_bins, False, forward, allowed, level, params, score)
    for s in range(allowed.shape[0]):
        if allowed[s]:
            gains[s] = max(up[s], down[s])


class FeatureScan(NamedTuple):
    """One coarse feature's scan in every slot of a level (``_scan_feature``), arrays of
    the level's slots: what to scan and against what, and what was found."""

    scan: np.ndarray          # bool: the slot is scanned (the others are left as they are)
    known: np.ndarray         # a gain met in the slot; raised to the slot's best found
    gain: np.ndarray          # the feature's best gain (-inf: none the merge can keep)
    default_left: np.ndarray
    left_value: np.ndarray
    right_value: np.ndarray
    near: np.ndarray          # bool: a derived slot met a hessian sum near min_child_weight


@njit(cache=True)
def new_feature_scan(m):
    """A ``FeatureScan`` for ``m`` slots, nothing scanned or known yet."""
    return FeatureScan(np.zeros(m, np.bool_), np.full(m, -np.inf), np.full(m, -np.inf),
                       np.zeros(m, np.bool_), np.full(m, np.nan), np.full(m, np.nan),
                       np.zeros(m, np.bool_))


@njit(inline='always')
def _scan_feature(cols, rows, bins, groups, k, level, params, score, may_exceed, found):
    """Feature k of the level's coarse histograms ``bins`` in every slot s that
    ``found.scan`` marks, against ``found.known[s]`` (a gain met in the slot): its best
    into ``found`` (gain -inf: none the merge can keep; known raised to it), and whether
    a derived slot met a hessian sum within the band of ``min_child_weight``.  A group of
    ``GROUP`` bins whose box (all the sums of its boundaries and insides, from
    ``groups``) the cheap test refuses is passed whole; the others' bins are looked at
    one by one.  Every slot in one call, as ``_scout_pass``.  The module docstring."""
    f = bins.features[k]
    j = cols.coarse_index[f]
    n_bins = cols.coarse_start[j + 1] - cols.coarse_start[j]
    sums, counts, spread = bins.sums.reshape(-1), bins.counts.reshape(-1), bins.spread.reshape(-1)
    group_grad, group_hess, group_low, group_high = groups.grad, groups.hess, groups.low, \
        groups.high
    group_pos, group_rows, group_last = groups.n_pos, groups.n_rows, groups.last
    walk = _walk(cols, rows, f)
    forward = cols.forward[f]
    widen = DERIVE_WITHIN * (4.0 * level.n_rows.sum() + 256.0) * _ULP
    mcw = params.min_child_weight
    for s in range(found.scan.shape[0]):
        if not found.scan[s]:
            continue
        known = found.known[s]
        at = s * bins.offset[-1] + bins.offset[k]  # the slot's feature's first bin
        node = level_node(level, s)
        node_grad, node_hess, node_pos, node_score, tie = node  # locals of every bin's test
        known_bar = below_bar(known, tie)  # a gain under it is in a lower cell than known's
        widen_G, widen_H = widen * level.abs_grad[s], widen * node_hess
        band = MIN_CHILD_BAND * node_hess
        check = bins.derived[s]
        near = False
        has_missing = counts[u(2 * (at + n_bins))] > 0
        best = SlotBest(-np.inf, False, np.nan, np.nan, -1, -1)
        for direction in range(2):
            ascending = direction == 0
            if ascending and not forward:
                continue
            G_start = H_start = 0.0  # the groups before
            pos_start = seen_start = 0
            before = -1
            limit = exceed_limit(max(record_bar(best.gain, tie), known_bar), node_score)
            for group in range((n_bins + GROUP - 1) // GROUP):
                G_g = group_grad[s, k, direction, group]
                H_g = group_hess[s, k, direction, group]
                if _box_may_exceed(G_start, H_start, group_low[s, k, direction, group],
                                   group_high[s, k, direction, group], H_g, node_grad, node_hess,
                                   widen_G, widen_H, limit, params, may_exceed):
                    G_in = H_in = 0.0  # the group's bins before
                    pos_in = seen_in = 0
                    for step in range(group * GROUP, min(group * GROUP + GROUP, n_bins)):
                        b = step if ascending else n_bins - 1 - step
                        cell = u(at + b)
                        count = counts[2 * cell]
                        if count == 0:
                            continue
                        G, H = G_start + G_in, H_start + H_in
                        n_pos, n_seen = pos_start + pos_in, seen_start + seen_in
                        G_b, H_b = sums[2 * cell], sums[2 * cell + 1]
                        low, high = (G_b - spread[cell]) / 2.0, (G_b + spread[cell]) / 2.0
                        # the bin's box holds its boundary's sums (G, H) and its insides' (a bin
                        # of one row has no inside: its boundary is tested alone)
                        inner = count >= 2
                        boundary = n_seen > 0
                        if (boundary or inner) and (not inner or _box_may_exceed(
                                G, H, low, high, H_b, node_grad, node_hess, widen_G, widen_H,
                                limit, params, may_exceed)):
                            if boundary:  # the boundary into bin b
                                other = node_hess - H
                                if check and n_pos > 0 and node_pos - n_pos > 0 and (
                                        abs(H - mcw) <= band or abs(other - mcw) <= band):
                                    near = True
                                if may_exceed(G, H, node_grad - G, other, limit, params):
                                    gain = side_gain(G, H, n_pos, node_grad, node_hess, node_pos,
                                                     node_score, params, score)
                                    if beats(gain, best.gain, tie):
                                        best = SlotBest(gain, not ascending, np.nan, np.nan, b,
                                                        before)
                                        limit = exceed_limit(max(record_bar(gain, tie), known_bar),
                                                             node_score)
                            if inner and _box_may_exceed(G, H, low, high, H_b, node_grad,
                                                         node_hess, widen_G, widen_H, limit, params,
                                                         may_exceed):
                                refined = _refine(walk, b, s, ascending, Side(G, H, n_pos), node,
                                                  best, known_bar, params, score, may_exceed)
                                best, near = refined[0], near or (check and refined[1])
                                limit = exceed_limit(max(record_bar(best.gain, tie), known_bar),
                                                     node_score)
                        G_in += G_b
                        H_in += H_b
                        pos_in += np.int64(count - counts[2 * cell + 1])
                        seen_in += np.int64(count)
                        before = b
                G_start += G_g
                H_start += H_g
                pos_start += group_pos[s, k, direction, group]
                seen_start += group_rows[s, k, direction, group]
                last = group_last[s, k, direction, group]
                before = last if last >= 0 else before
            if has_missing and seen_start > 0:
                # the closing candidate: the missing rows on the other side
                G, H = G_start, H_start
                gain = side_gain(G, H, pos_start, node_grad, node_hess, node_pos, node_score,
                                 params, score)
                if check and pos_start > 0 and node_pos - pos_start > 0 and (
                        abs(H - mcw) <= band or abs(node_hess - H - mcw) <= band):
                    near = True
                if gain > known_bar and beats(gain, best.gain, tie):
                    best = SlotBest(gain, not ascending, np.nan, np.nan, n_bins, before)
            if ascending and not has_missing:
                break  # no missing row: the backward pass would repeat the forward one
        if not tie_cell(best.gain, tie) >= tie_cell(known, tie):
            best = SlotBest(-np.inf, False, np.nan, np.nan, -1, -1)
        best = _resolve(walk, s, best, n_bins)
        found.known[s] = max(known, best.gain)
        found.gain[s] = best.gain
        found.default_left[s] = best.default_left
        found.left_value[s] = best.left_value
        found.right_value[s] = best.right_value
        found.near[s] = near


def _scan_coarse_lane(cols, rows, bins, groups, known, features, allowed, level, params, batch,
                      lane, lanes):
    """The coarse features ``features[i]`` of ``bins`` (in its order), i = lane (mod lanes),
    each into row i of ``batch`` (``newton_parallel.Batch``) in the slots ``allowed[i]``
    marks (the others keep what the row holds), against ``known`` (``_scan_feature``); a
    derived slot near ``min_child_weight`` is flagged in ``bins.near`` (True only: the
    same for any thread count).  ``known`` +inf (the first call): only each feature's
    ``_scout_feature`` gains, in ``batch.gain``.  ``score`` and ``may_exceed``: free names,
    bound per criterion."""
    scout = known.shape[0] > 0 and known[0] == np.inf  # the first call: +inf
    # found.known: the largest gain the lane's features have kept so far, per slot: a later
    # feature's candidate in a lower cell cannot be chosen
    found = new_feature_scan(level.grad.shape[0])
    found.known[:] = known
    for i in range(lane, features.shape[0], lanes):
        k = bins.place[features[i]]
        if scout:
            _scout_feature(cols, bins, groups, k, allowed[i], level, params, score, batch.gain[i])
            continue
        found.scan[:] = allowed[i]
        _scan_feature(cols, rows, bins, groups, k, level, params, score, may_exceed, found)
        for s in range(level.grad.shape[0]):
            if not allowed[i, s]:
                continue
            batch.gain[i, s] = found.gain[s]
            batch.feature[i, s] = features[i] if found.gain[s] > -np.inf else -1
            batch.default_left[i, s] = found.default_left[s]
            batch.left_value[i, s] = found.left_value[s]
            batch.right_value[i, s] = found.right_value[s]
            if found.near[s]:
                bins.near[s] = True


def _scan_coarse_batch(cols, rows, bins, groups, known, features, allowed, level, params, batch):
    """Every coarse feature ``features[i]`` into row i of ``batch``, dealt round-robin to
    ``params.n_threads`` threads.  ``scan_coarse_lane``: a free name, ``_scan_coarse_lane``
    of the criterion."""
    lanes = lane_count(params.n_threads, features.shape[0],
                       bins.offset[-1] * level.grad.shape[0])
    if lanes == 1:
        scan_coarse_lane(cols, rows, bins, groups, known, features, allowed, level, params,
                         batch, np.int64(0), np.int64(1))
    else:
        # prange's index is unsigned: cast, or the callee compiles twice
        for lane in prange(lanes):
            scan_coarse_lane(cols, rows, bins, groups, known, features, allowed, level,
                             params, batch, np.int64(lane), lanes)


@njit(cache=True)
def known_gains(batch, allowed, known):
    """``known`` raised, per slot, to the largest gain of the batch's rows that may split it
    (the first call's boundary gains)."""
    for i in range(batch.gain.shape[0]):
        for s in range(known.shape[0]):
            if allowed[i, s] and batch.gain[i, s] > known[s]:
                known[s] = batch.gain[i, s]


@njit(inline='always')
def column_order_gains(cols, position, gh, level, best, scanned, params, score):
    """Recompute the gain of every slot whose best split is on a coarse feature the level
    scanned from histograms (``scanned[f]``) from its side's sums added in the column's
    order (the side: the present rows of value <= left_value ascending, or of value >
    left_value descending, of the slot), so that the gain is the column scan's to the bit.
    O(the column's entries up to the split) per such slot."""
    for s in range(level.grad.shape[0]):
        f = best.feature[s]
        if f < 0 or not scanned[f]:
            continue
        lo, hi = cols.indptr[f], cols.indptr[f + 1]
        backward = best.default_left[s]
        cut = best.left_value[s]
        G = H = 0.0
        n_pos = 0
        for i in range(hi - lo):
            e = u(hi - 1 - i if backward else lo + i)
            v = cols.values[e]
            if (v <= cut) if backward else (v > cut):
                break
            r = u(cols.rows[e])
            if position[r] != s:
                continue
            h = gh[r, 1]
            G += gh[r, 0]
            H += h
            n_pos += h > 0.0
        best.gain[s] = side_gain(G, H, n_pos, level.grad[s], level.hess[s], level.n_pos[s],
                                 level.score[s], params, score)


def _scan_chunk(cols, rows, bins, known, features, allowed, level, params, batch):
    """A chunk of the level's coarse features (``bins``) into ``batch``, in the slots
    ``allowed`` marks: the boundaries first (``known`` raised to the largest boundary
    gain per slot), then the full scan against them (the module docstring).
    ``scan_coarse_batch``: a free name, ``_scan_coarse_batch`` of the criterion."""
    boundaries_only = np.full(known.shape[0], np.inf)
    groups = new_group_sums(cols, bins, known.shape[0])
    scan_coarse_batch(cols, rows, bins, groups, boundaries_only, features, allowed, level,
                      params, batch)
    known_gains(batch, allowed, known)
    scan_coarse_batch(cols, rows, bins, groups, known, features, allowed, level, params,
                      batch)


@njit(cache=True)
def no_coarse_scan(cols, rows, bins, known, features, allowed, level, params, batch):
    """``_scan_chunk``'s stand-in in the grower of a criterion without a cheap test (a
    user's), which never takes the coarse path: its grower does not compile the scan."""
    raise AssertionError("the coarse scan needs the built-in criterion")
