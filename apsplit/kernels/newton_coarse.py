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
first call (``known`` = +inf, ``_scout_slot``) evaluates the boundary into every
``SCOUT``-th bin and the closing candidates; each node's largest such gain over the
features is ``known``, the gain of a candidate that the second call evaluates again from
the same sums and the grower's merge meets.  The second goes through the bins in groups
(``GROUP``) and then one by one, and looks at a bin's boundary and inside only where
its box can reach above both ``below_bar(known)`` (a gain under it is in a lower cell
than known's; known raised, for a thread's later features, to the gains its earlier
ones kept) and ``record_bar`` of the feature's best so far; every candidate is tested
against the same two bars.  A feature whose best ends in a lower cell than
known's has no candidate the merge can keep: its row is left empty.  The first
candidate of the feature's highest cell, when that cell is known's or higher, beats
both bars, so it is evaluated and kept, and nothing after it replaces it: the feature's
row is the column scan's, and so is the merge's choice.

Rounding.  A box holds the side sums *as computed* by the refinement (P from the
histogram, then the rows in column order): it is widened by ``DERIVE_WITHIN`` (4 n +
256) ulps of the node's sum of |g| and of its H, n the level's open rows, which covers
the bins' own sums (n additions), a derived slot's subtraction at its parent's scale (at
most ``DERIVE_WITHIN`` times the node's, ``newton_hist``), and the walk's additions.
The boundaries and P are added bin by bin rather than row by row, as in
``newton_hist``: gains a few ulps from the column scan's, whose consequences that
module's docstring sets out (measure-zero events; a derived slot whose comparison with
``min_child_weight`` is within the band is summed again from its rows and scanned
again, ``LevelBins.near``).  The chosen split's gain is then recomputed in the column's
order (``column_order_gains``): the column scan's gain to the bit.

The boundaries' values are not in the histogram: a boundary keeps its bins, and once the
feature's best is known its two values are read from the column, the last row of the
node in the bin before and the first in the bin after (``_resolve``), the same rows the
column scan meets there.

Cost per level and coarse feature: the summed slots' rows (one pass over their codes),
two walks of m x 256 bins, and the refined bins' entries, about n / 255 each; against
the column scan's every open entry with random reads of (g, h).  ``pays`` decides per
level (``PAYS_ROWS_PER_BIN``).
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .lanes import lane_count
from .newton_hist import DERIVE_WITHIN
from .newton_indicator import MIN_CHILD_BAND
from .newton_split import (beats, below_bar, exceed_limit, record_bar,
                           side_gain, tie_cell)
from .unsigned import u

PAYS_ROWS_PER_BIN = 2.0  # a level scans coarse histograms at this many open rows per node-bin
GROUP = 16  # bins bounded as a whole before any of them is looked at (``_scan_slot``)
SCOUT = 4   # the first call evaluates the boundary of every SCOUT-th bin only
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


@njit(inline='always')
def _bin_entries(cols, f, j, b):
    """Bin b of coarse feature f (column j of the coarse codes): its entries lo:hi in the
    column as built."""
    first = cols.coarse_start[j]
    lo = cols.coarse_entry[first + b]
    hi = cols.coarse_entry[first + b + 1] if first + b + 1 < cols.coarse_start[j + 1] \
        else cols.indptr[f + 1]
    return lo, hi


@njit(inline='always')
def _node_value(cols, position, lo, hi, s, from_end):
    """The value of slot s's first entry among entries lo:hi (``from_end``: its last)."""
    for k in range(hi - lo):
        e = u(hi - 1 - k if from_end else lo + k)
        if position[cols.rows[e]] == s:
            return cols.values[e]
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
def _resolve(cols, position, f, j, s, best, n_bins):
    """The two values of a boundary: those of the node's rows on either side of it, the
    rows the column scan meets there (ascending: the last of the bin before, the first
    of the bin entered; descending, the other way round)."""
    if best.bin < 0:
        return best
    lo, hi = _bin_entries(cols, f, j, best.before)
    ascending = not best.default_left
    near_value = _node_value(cols, position, lo, hi, s, ascending)  # the bin before's side
    if best.bin == n_bins:  # the closing candidate: every present row on one side
        if ascending:
            return SlotBest(best.gain, False, near_value, np.inf, -1, -1)
        return SlotBest(best.gain, True, -np.inf, near_value, -1, -1)
    lo, hi = _bin_entries(cols, f, j, best.bin)
    far_value = _node_value(cols, position, lo, hi, s, not ascending)
    if ascending:
        return SlotBest(best.gain, False, near_value, far_value, -1, -1)
    return SlotBest(best.gain, True, far_value, near_value, -1, -1)


@njit(inline='always')
def _refine(cols, rows, f, j, b, s, ascending, G, H, n_pos, level, best, known_bar, params, score,
            may_exceed):
    """The candidates inside bin b of slot s in a pass: its entries walked in the column,
    the slot's rows picked, each candidate computed as the column scan computes it from
    the sums (G, H, n_pos) of the bins before b plus the rows seen.  Returns the best
    (``SlotBest``) and whether a side's hessian sum came near ``min_child_weight`` (the
    caller flags the slot if it is derived)."""
    lo, hi = _bin_entries(cols, f, j, b)
    position, gh = rows.position, rows.gh
    node_grad, node_hess, node_pos = level.grad[s], level.hess[s], level.n_pos[s]
    node_score, tie, mcw = level.score[s], level.tie[s], params.min_child_weight
    band = MIN_CHILD_BAND * node_hess
    limit = exceed_limit(max(record_bar(best.gain, tie), known_bar), node_score)
    near = False
    seen = 0
    last = 0.0
    for i in range(hi - lo):
        e = u(lo + i if ascending else hi - 1 - i)
        r = u(cols.rows[e])
        if position[r] != s:
            continue
        v = cols.values[e]
        if seen > 0 and v != last:
            other = node_hess - H
            if n_pos > 0 and node_pos - n_pos > 0 and (abs(H - mcw) <= band
                                                        or abs(other - mcw) <= band):
                near = True
            if may_exceed(G, H, node_grad - G, other, limit, params):
                gain = side_gain(G, H, n_pos, node_grad, node_hess, node_pos, node_score,
                                 params, score)
                if beats(gain, best.gain, tie):
                    best = SlotBest(gain, not ascending, last if ascending else v,
                                    v if ascending else last, -1, -1)
                    limit = exceed_limit(max(record_bar(gain, tie), known_bar), node_score)
        h = gh[r, 1]
        G += gh[r, 0]
        H += h
        n_pos += h > 0.0
        last = v
        seen += 1
    return best, near


@njit(inline='always')
def _box_may_exceed(G, H, G_b, H_b, A_b, node_grad, node_hess, widen_G, widen_H, limit, params,
                    may_exceed):
    """False only when no side whose computed sums lie in the box [G + (G_b - A_b) / 2,
    G + (G_b + A_b) / 2] x [H, H + H_b] (widened) has a computed gain above the bar:
    ``may_exceed`` refuses one point that dominates the box.  The built-in score
    G^2 / (H + lambda) (alpha and max_delta_step 0, the only one the coarse scan runs
    with) grows with |G| and falls with H, so each side's score on the box is at most its
    value at the largest |G| and the least H of that side, and the gain at most their sum
    less the node's score: the refusal of that point bounds the whole box
    (``newton_may_exceed``'s proof, with ``newton_split._block_may_exceed``'s for the
    rounding of the candidates' sums)."""
    G_lo = G + (G_b - A_b) / 2.0 - widen_G
    G_hi = G + (G_b + A_b) / 2.0 + widen_G
    return may_exceed(max(abs(G_lo), abs(G_hi)), H - widen_H,
                      max(abs(node_grad - G_lo), abs(node_grad - G_hi)),
                      node_hess - (H + H_b + widen_H), limit, params)


@njit(inline='always')
def _group_sums(sums, spread, at, first, stop, ascending, n_bins):
    """The sums of G, H and |g| of the bins ``first`` .. ``stop - 1`` of a pass."""
    G = H = A = 0.0
    for step in range(first, stop):
        cell = u(at + (step if ascending else n_bins - 1 - step))
        G += sums[2 * cell]
        H += sums[2 * cell + 1]
        A += spread[cell]
    return G, H, A


@njit(inline='always')
def _scout_slot(cols, bins, k, s, level, params, score):
    """The largest gain of the boundaries into every ``SCOUT``-th bin of feature k of
    ``bins`` in slot s (and of the closing candidates), in both passes: the first call's
    ``known``, the gain of candidates the second call evaluates again from the same sums.
    A loop of few live values, so that the bins' sums stay in registers."""
    f = bins.features[k]
    j = cols.coarse_index[f]
    n_bins = cols.coarse_start[j + 1] - cols.coarse_start[j]
    sums, counts = bins.sums.reshape(-1), bins.counts.reshape(-1)
    at = s * bins.offset[-1] + bins.offset[k]
    node_grad, node_hess, node_pos = level.grad[s], level.hess[s], level.n_pos[s]
    node_score = level.score[s]
    has_missing = counts[u(2 * (at + n_bins))] > 0
    top = -np.inf
    for direction in range(2):
        ascending = direction == 0
        if ascending and not cols.forward[f]:
            continue
        G = H = 0.0
        n_pos = n_seen = 0
        for step in range(n_bins):
            cell = u(at + (step if ascending else n_bins - 1 - step))
            count = np.int64(counts[2 * cell])
            if step % SCOUT == 0 and n_seen > 0 and count > 0:
                gain = side_gain(G, H, n_pos, node_grad, node_hess, node_pos, node_score,
                                 params, score)
                top = gain if gain > top else top
            G += sums[2 * cell]
            H += sums[2 * cell + 1]
            n_pos += count - counts[2 * cell + 1]
            n_seen += count
        if has_missing and n_seen > 0:
            gain = side_gain(G, H, n_pos, node_grad, node_hess, node_pos, node_score, params,
                             score)
            top = gain if gain > top else top
        if ascending and not has_missing:
            break
    return top


@njit(inline='always')
def _scan_slot(cols, rows, bins, k, s, level, known, params, score, may_exceed):
    """Feature k of the level's coarse histograms ``bins`` in slot s, against ``known`` (a
    gain met in the slot): its best (``SlotBest``; gain -inf: none the merge can keep)
    and whether a derived slot met a hessian sum within the band of
    ``min_child_weight``.  The bins come in groups of ``GROUP``: a group whose box (all
    the sums of its boundaries and insides) the cheap test refuses only adds its bins'
    sums, one by one as the other bins.  The module docstring."""
    f = bins.features[k]
    j = cols.coarse_index[f]
    n_bins = cols.coarse_start[j + 1] - cols.coarse_start[j]
    sums, counts, spread = bins.sums.reshape(-1), bins.counts.reshape(-1), bins.spread.reshape(-1)
    at = s * bins.offset[-1] + bins.offset[k]  # the slot's feature's first bin
    position = rows.position
    node_grad, node_hess, node_pos = level.grad[s], level.hess[s], level.n_pos[s]
    node_score, tie, mcw = level.score[s], level.tie[s], params.min_child_weight
    known_bar = below_bar(known, tie)  # a gain under it is in a lower cell than known's
    widen = DERIVE_WITHIN * (4.0 * level.n_rows.sum() + 256.0) * _ULP
    widen_G, widen_H = widen * level.abs_grad[s], widen * node_hess
    band = MIN_CHILD_BAND * node_hess
    check = bins.derived[s]
    near = False
    has_missing = counts[u(2 * (at + n_bins))] > 0
    best = SlotBest(-np.inf, False, np.nan, np.nan, -1, -1)
    for direction in range(2):
        ascending = direction == 0
        if ascending and not cols.forward[f]:
            continue
        G = H = 0.0
        n_pos = n_seen = 0
        before = -1
        limit = exceed_limit(max(record_bar(best.gain, tie), known_bar), node_score)
        step = 0
        while step < n_bins:
            stop = min(step + GROUP, n_bins)
            G_g, H_g, A_g = _group_sums(sums, spread, at, step, stop, ascending, n_bins)
            if not _box_may_exceed(G, H, G_g, H_g, A_g, node_grad, node_hess, widen_G, widen_H,
                                   limit, params, may_exceed):
                for inside in range(step, stop):  # no candidate to record: the sums only
                    b = inside if ascending else n_bins - 1 - inside
                    cell = u(at + b)
                    count = counts[2 * cell]
                    G += sums[2 * cell]
                    H += sums[2 * cell + 1]
                    n_pos += np.int64(count - counts[2 * cell + 1])
                    n_seen += np.int64(count)
                    before = b if count > 0 else before
                step = stop
                continue
            for inside in range(step, stop):
                b = inside if ascending else n_bins - 1 - inside
                cell = u(at + b)
                count = counts[2 * cell]
                if count == 0:
                    continue
                G_b, H_b = sums[2 * cell], sums[2 * cell + 1]
                # the bin's box holds its boundary's sums (G, H) and its insides' (a bin of
                # one row has no inside: its boundary is tested alone)
                inner = count >= 2
                boundary = n_seen > 0
                if (boundary or inner) and (not inner or _box_may_exceed(
                        G, H, G_b, H_b, spread[cell], node_grad, node_hess, widen_G, widen_H,
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
                                best = SlotBest(gain, not ascending, np.nan, np.nan, b, before)
                                limit = exceed_limit(max(record_bar(gain, tie), known_bar),
                                                     node_score)
                    if inner and _box_may_exceed(G, H, G_b, H_b, spread[cell], node_grad,
                                                 node_hess, widen_G, widen_H, limit, params,
                                                 may_exceed):
                        refined = _refine(cols, rows, f, j, b, s, ascending, G, H, n_pos, level,
                                          best, known_bar, params, score, may_exceed)
                        best, near = refined[0], near or (check and refined[1])
                        limit = exceed_limit(max(record_bar(best.gain, tie), known_bar),
                                             node_score)
                G += G_b
                H += H_b
                n_pos += np.int64(count - counts[2 * cell + 1])
                n_seen += np.int64(count)
                before = b
            step = stop
        if has_missing and n_seen > 0:  # the closing candidate: the missing rows on the
            gain = side_gain(G, H, n_pos, node_grad, node_hess, node_pos, node_score,  # other
                             params, score)                                            # side
            if check and n_pos > 0 and node_pos - n_pos > 0 and (
                    abs(H - mcw) <= band or abs(node_hess - H - mcw) <= band):
                near = True
            if gain > known_bar and beats(gain, best.gain, tie):
                best = SlotBest(gain, not ascending, np.nan, np.nan, n_bins, before)
        if ascending and not has_missing:
            break  # no missing row: the backward pass would repeat the forward one
    if not tie_cell(best.gain, tie) >= tie_cell(known, tie):
        return SlotBest(-np.inf, False, np.nan, np.nan, -1, -1), near
    return _resolve(cols, position, f, j, s, best, n_bins), near


def _scan_coarse_lane(cols, rows, bins, known, features, allowed, level, params, batch, lane,
                      lanes):
    """The coarse features ``features[i]`` of ``bins`` (in its order), i = lane (mod lanes),
    each into row i of ``batch`` (``newton_parallel.Batch``) in the slots ``allowed[i]``
    marks (the others keep what the row holds), against ``known`` (``_scan_slot``); a
    derived slot near ``min_child_weight`` is flagged in ``bins.near`` (True only: the
    same for any thread count).  ``known`` +inf (the first call): only each feature's
    ``_scout_slot`` gain, in ``batch.gain``.  ``score`` and ``may_exceed``: free names,
    bound per criterion."""
    scout = known.shape[0] > 0 and known[0] == np.inf  # the first call: +inf
    # the largest gain the lane's features have kept so far, per slot: a later feature's
    # candidate in a lower cell cannot be chosen
    running = known.copy()
    for i in range(lane, features.shape[0], lanes):
        k = bins.place[features[i]]
        for s in range(level.grad.shape[0]):
            if not allowed[i, s]:
                continue
            if scout:
                batch.gain[i, s] = _scout_slot(cols, bins, k, s, level, params, score)
                continue
            best, near = _scan_slot(cols, rows, bins, k, s, level, running[s], params, score,
                                    may_exceed)
            running[s] = max(running[s], best.gain)
            batch.gain[i, s] = best.gain
            batch.feature[i, s] = features[i] if best.gain > -np.inf else -1
            batch.default_left[i, s] = best.default_left
            batch.left_value[i, s] = best.left_value
            batch.right_value[i, s] = best.right_value
            if near:
                bins.near[s] = True


def _scan_coarse_batch(cols, rows, bins, known, features, allowed, level, params, batch):
    """Every coarse feature ``features[i]`` into row i of ``batch``, dealt round-robin to
    ``params.n_threads`` threads.  ``scan_coarse_lane``: a free name, ``_scan_coarse_lane``
    of the criterion."""
    lanes = lane_count(params.n_threads, features.shape[0],
                       bins.offset[-1] * level.grad.shape[0])
    if lanes == 1:
        scan_coarse_lane(cols, rows, bins, known, features, allowed, level, params, batch,
                         np.int64(0), np.int64(1))
    else:
        # prange's index is unsigned: cast, or the callee compiles twice
        for lane in prange(lanes):
            scan_coarse_lane(cols, rows, bins, known, features, allowed, level, params, batch,
                             np.int64(lane), lanes)


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
    scan_coarse_batch(cols, rows, bins, boundaries_only, features, allowed, level, params,
                      batch)
    known_gains(batch, allowed, known)
    scan_coarse_batch(cols, rows, bins, known, features, allowed, level, params, batch)


@njit(cache=True)
def no_coarse_scan(cols, rows, bins, known, features, allowed, level, params, batch):
    """``_scan_chunk``'s stand-in in the grower of a criterion without a cheap test (a
    user's), which never takes the coarse path: its grower does not compile the scan."""
    raise AssertionError("the coarse scan needs the built-in criterion")
