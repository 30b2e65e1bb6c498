"""Indicator features: their per-node sums by rows, and by subtraction from the parent's.

An *indicator feature* (``apsplit.newton.NewtonData`` marks them:
``Columns.indicator_index``) is a numeric column feature whose present entries
all hold one float v, such as a sparse one-hot or binary column (every column
of a8a and agaricus).  No value changes inside a node, so the column scan
(``newton_split.scan_feature``, its backward pass) considers one candidate
per node: every present row right and the missing rows left (default left,
values (-inf, v)), when the node has both.  Its side's sums are those of the
node's present rows, added in the backward pass's order, descending rows (the
column holds them by row: one value).  That sum per (node, feature) is all a
level needs of the feature.

``level_sums`` gets it with sibling subtraction, as histogram methods do.  A
split node's two children share its present rows, so the child with fewer
rows is *summed*: one pass over its rows (descending, the scan's order), each
adding (g, h, [h > 0], 1) to every indicator feature it holds, read from the
features' row-major copy (``Columns.indicator_indptr``/``indicator_entries``).
The other child is *derived*: its parent's sums minus the summed child's.  A
level then costs the summed children's entries, at most half of the open
rows' (the root's level sums all), against every open entry for the column
scan (a one-off loop on a8a's rows, one thread: 0.88 ms for one level's column
passes, 0.47 ms for the rows of half the nodes).

Why the trees are the column scan's.  A summed node's sums are the scan's
additions in the scan's order: the same floats.  A derived node's counts are
integers, exact; its G and H differ from the scan's by rounding, a few ulps of
the parent's sum of |g| (resp. h).  The candidate's gain moves by as much
(tests/test_newton_indicator.py bounds it by 1e-12 relative), against a tie window (``Level.tie``) of
1e-10 of the node's squared sum of |g|: only a gain within a few ulps of a
cell's edge on the tie grid, or a hessian sum within a few
ulps of ``min_child_weight``, can come out the other way, the measure-zero
events the histogram path (``newton_hist``) documents.  The second is not rare
in tests (a child holding one row of h = min_child_weight), so a derived sum
that close to it is recomputed from the column (``scan_indicators``).  With dyadic
statistics (the tests) every sum is exact, the subtraction too, and the trees
are the scan's to the bit.  A derived node's recorded gain (the tree's
``gain``, XGBoost's ``loss_chg``) keeps that rounding: recomputing it in the
column's order, as ``newton_hist`` does, took a pass over the open rows per
level, a fifth of a fit on a8a (a version that did, not kept), for digits beyond
XGBoost's float32.

Threads: the rows' pass stays on the caller's thread.  Lanes by rows would add
a (node, feature)'s rows in another order per thread count; lanes by ranges of
the features each read every summed row, and two of them took 1.16x one
lane's time on a8a's root level (4x while they wrote one slot's sums side by
side, sharing cache lines; a one-off loop, not kept).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .newton_split import beats, side_gain
from .unsigned import u


class IndicatorSums(NamedTuple):
    """Per (slot, indicator feature): the sums of the slot's present rows."""

    grad: np.ndarray     # (m, J)
    hess: np.ndarray
    n_pos: np.ndarray    # rows with h > 0
    n_rows: np.ndarray
    summed: np.ndarray   # (m,) the slot's sums were added from its rows (else derived, or
    #                      none: a slot that cannot split, and no sibling's derivation needs)


@njit(cache=True)
def no_sums(n_indicators):
    """The sums of an empty level (before the root's)."""
    return IndicatorSums(np.zeros((0, n_indicators)), np.zeros((0, n_indicators)),
                         np.zeros((0, n_indicators), np.int64),
                         np.zeros((0, n_indicators), np.int64), np.zeros(0, np.bool_))


@njit(cache=True)
def level_sums(cols, gh, position, active, level_rows, parent, child_slot, wanted):
    """The level's ``IndicatorSums`` of the slots ``wanted`` (those that may split;
    a pair's smaller child is summed also when only the other is wanted):
    ``level_rows`` its slots' row counts, ``parent`` the previous level's sums
    (``no_sums`` at the root) and ``child_slot`` its slots' left child's slot (-1: not
    split; the right child's is next).  ``active``: the open rows, ascending;
    ``position``: their slots.  On the caller's thread (the module docstring)."""
    m = level_rows.shape[0]
    J = cols.indicator_value.shape[0]
    summed = wanted.copy()
    derived = np.zeros(m, np.bool_)
    for s in range(child_slot.shape[0]):
        c = child_slot[s]
        if c >= 0:
            larger = c + 1 if level_rows[c] <= level_rows[c + 1] else c
            if wanted[larger]:
                derived[larger] = True
                summed[larger] = False
                summed[larger ^ 1] = True
    sums = IndicatorSums(np.zeros((m, J)), np.zeros((m, J)), np.zeros((m, J), np.int64),
                         np.zeros((m, J), np.int64), summed)
    grad, hess, n_pos, n_rows = sums.grad, sums.hess, sums.n_pos, sums.n_rows
    indptr, features = cols.indicator_indptr, cols.indicator_entries
    for p in range(active.shape[0] - 1, -1, -1):  # descending rows: the backward pass's order
        r = u(active[p])  # unsigned subscripts: no sign tests
        s = u(position[r])  # an active row's slot, >= 0
        if not summed[s]:
            continue
        g = gh[r, 0]
        h = gh[r, 1]
        positive = h > 0.0
        for e in range(indptr[r], indptr[r + 1]):
            j = u(features[u(e)])
            grad[s, j] += g
            hess[s, j] += h
            n_pos[s, j] += positive
            n_rows[s, j] += 1
    for s in range(child_slot.shape[0]):
        c = child_slot[s]
        if c < 0 or not (derived[c] or derived[c + 1]):
            continue
        t, added = (c, c + 1) if derived[c] else (c + 1, c)
        for j in range(J):
            grad[t, j] = parent.grad[s, j] - grad[added, j]
            hess[t, j] = parent.hess[s, j] - hess[added, j]
            n_pos[t, j] = parent.n_pos[s, j] - n_pos[added, j]
            n_rows[t, j] = parent.n_rows[s, j] - n_rows[added, j]
    return sums


MIN_CHILD_BAND = 1e-9  # derived sums this close to min_child_weight (x the node's H): rescanned


@njit(inline='always')
def scan_indicators(cols, rows, sums, features, level, batch, params, score, allowed):
    """The candidate of each indicator feature ``features[i]`` (present rows right, missing
    left) in every slot that may split on it (``allowed[i, s]``) and holds both, into row
    i of ``batch`` (``newton_parallel.Batch``; the other slots keep the row's empty
    best): the column scan's candidate, for the grower to merge in feature order.

    A derived slot whose side's hessian sum, or the other side's, lies within
    ``MIN_CHILD_BAND`` of the node's hessian sum from ``min_child_weight`` takes its sums
    from the column instead (``column_sums``, the scan's additions): there the rounding of
    the subtraction could decide the admissibility.  The level's features in one call,
    the arrays taken out of the tuples once: numba counts a reference to each per
    inlined call (per feature, that was a third of agaricus' fit, perf)."""
    indicator_index, indicator_value = cols.indicator_index, cols.indicator_value
    n_rows, grad, hess, n_pos, summed = sums.n_rows, sums.grad, sums.hess, sums.n_pos, \
        sums.summed
    node_rows, node_grad, node_hess, node_pos = level.n_rows, level.grad, level.hess, \
        level.n_pos
    node_score, tie = level.score, level.tie
    best_gain, best_feature, best_default = batch.gain, batch.feature, batch.default_left
    best_left, best_right = batch.left_value, batch.right_value
    mcw = params.min_child_weight
    for i in range(features.shape[0]):
        f = features[i]
        j = indicator_index[f]
        v = indicator_value[j]
        for s in range(node_rows.shape[0]):
            n = n_rows[s, j]
            if not (allowed[i, s] and n > 0 and n < node_rows[s]):
                continue
            G, H = grad[s, j], hess[s, j]
            band = MIN_CHILD_BAND * node_hess[s]
            if not summed[s] and (abs(H - mcw) <= band or abs(node_hess[s] - H - mcw) <= band):
                G, H = column_sums(cols, rows, f, s)
            gain = side_gain(G, H, n_pos[s, j], node_grad[s], node_hess[s], node_pos[s],
                             node_score[s], params, score)
            if beats(gain, -np.inf, tie[s]):  # admissible (the row's best is empty)
                best_gain[i, s] = gain
                best_feature[i, s] = f
                best_default[i, s] = True
                best_left[i, s] = -np.inf
                best_right[i, s] = v


@njit(cache=True)
def column_sums(cols, rows, f, s):
    """(G, H) of slot ``s``'s present rows of feature ``f``, added in the column scan's
    backward order."""
    col_rows, gh, position = cols.rows, rows.gh, rows.position
    G = 0.0
    H = 0.0
    for e in range(cols.indptr[f + 1] - 1, cols.indptr[f] - 1, -1):
        r = col_rows[e]
        if position[r] == s:
            G += gh[r, 0]
            H += gh[r, 1]
    return G, H
