"""Categorical Newton splits: the exact best partition of a node's categories.

A categorical feature's present values are non-negative integer codes.  A
split sends a set of codes right and everything else left: the other codes,
the missing values (NaN) and any code the node never saw (XGBoost's rule,
``common::Decision``: a value outside the split's set goes left).  The node's
missing rows are one more *item* beside its categories; an item c carries
v_c = (G_c, H_c), the sums of its rows.

Cuts suffice without constraints.  The gain of a partition with left sums L
is f(L) - s(P), f(L) = s(L) + s(P - L).  The score is a maximum of affine
functions of (G, H),

    s~(G, H) = max over |w| <= max_delta_step (any w without it) of
               -(2 G w + (H + lambda) w^2 + 2 alpha |w|),

since the concave function of w is maximised at the clip of its free
maximiser -T(G) / (H + lambda) (``newton_split``'s proof); so s~ is convex
(possibly +inf at H + lambda = 0), equals ``newton_score`` where H > 0, and is
>= it where H = 0 (there XGBoost's score is 0).  f~ = s~(L) + s~(P - L) is
convex on the zonotope Z = { sum_c t_c v_c : t in [0, 1]^q } of the
fractional assignments, so its maximum on Z is at a vertex.  The vertices of
a 2-d zonotope are the sums of the generators in a half-plane; as every
H_c >= 0, those are the prefixes and suffixes of the items sorted by angle,
i.e. by G_c / H_c decreasing (H_c = 0: G_c > 0 first, G_c < 0 last, a zero
vector anywhere; items of one ratio lie on one ray and any order among them
gives the same vertices).  A suffix is the complement of a prefix and f~ is
symmetric in L <-> P - L, so the q - 1 proper prefixes ("cuts") attain
U = max_Z f~ >= the gain of every partition.  At an admissible partition
(each side holds a row with h > 0, so H > 0 there) f~ = f: a best cut that
is admissible and in the cell of U on the tie grid is optimal.

With constraints, branch and bound.  min_child_weight (H_L and P_H - H_L in
[mcw, P_H - mcw]) and the positive-hessian rule can make every good cut
inadmissible, and the constrained optimum need not be a cut (subset-sum
instances: many categories of one ratio).  Then the items are assigned in
angle order, item 0 left (the sides are symmetric); a search node with
items 0..k-1 assigned (left sums A) is bounded by the maximum of f~ on
(A + Z_free) intersected with the slab mcw <= H <= P_H - mcw, a convex
polygon whose vertices are the vertices of A + Z_free in the slab (the two
chains from A that add the free items in angle order and in reverse; H
grows along both) and the points where those chains cross the slab's two
lines.  Every completion lies in that polygon, so a node whose bound does
not reach a higher cell of the tie grid than the incumbent (first the best
admissible cut) or the slot's best split from earlier features
(``newton_split.record_bar``) is cut off.  The
search is exact and usually visits few nodes; it is exponential in the
worst case (subset sum), so past ``MAX_SEARCH_NODES`` nodes at one node it
raises a ValueError rather than return an inexact split.

Each side's sums are taken over its own items (not the node's minus the
other side's), so a side of tiny hessians is not lost to a residue; the
bounds use differences, whose rounding the tie grid absorbs.

Ties and the canonical split.  As for numeric features, a candidate replaces
a slot's best only when its gain is in a higher cell of the tie grid
(``newton_split.beats``), so the split found is within a window of the
optimum; in a feature the first found wins (the best cut, then the search's
order).  The sides are then
named canonically: left is the side of the missing rows when the node has
any, else the side of the node's smallest code; ``default_left`` is True
(missing values, like unseen codes, go left).  XGBoost's model holds the
right set as its category set, LightGBM's as its bitset with the children
swapped (LightGBM sends NaN, negative values and codes outside the bitset to
its right child): both route every value as apsplit does.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .newton_split import beats, newton_score, record_bar, soft_threshold
from .sort import bisect_left, heapsort

MAX_SEARCH_NODES = 1 << 20   # branch-and-bound nodes allowed for one node's categorical split
MAX_CATEGORY = (1 << 24) - 1  # largest code: XGBoost's categories are below 2**24


class CategorySets(NamedTuple):
    """The right sets of a level's slots (``start[s]:start[s] + count[s]`` of ``codes``)."""

    start: np.ndarray
    count: np.ndarray
    codes: np.ndarray


class NodeSums(NamedTuple):
    """The node being split: its sums, rows with h > 0 and score s(P)."""

    grad: float
    hess: float
    n_pos: int
    score: float


class Items(NamedTuple):
    """The items of a node for one feature: its categories, in code order, after its
    missing rows (code -1) when it has any."""

    grad: np.ndarray
    hess: np.ndarray
    n_pos: np.ndarray
    code: np.ndarray


@njit(cache=True)
def max_categories(cols):
    """1 + the largest code of the categorical features (0 without any)."""
    out = 0
    for f in range(cols.indptr.shape[0] - 1):
        if cols.categorical[f] and cols.indptr[f + 1] > cols.indptr[f]:
            out = max(out, int(cols.values[cols.indptr[f + 1] - 1]) + 1)
    return out


@njit(cache=True)
def new_category_sets(n_rows, n_categories):
    """Room for every slot's right set: at most min(n_categories, its rows) codes."""
    m = n_rows.shape[0]
    start = np.zeros(m, np.int64)
    total = 0
    for s in range(m):
        start[s] = total
        total += min(n_categories, n_rows[s])
    return CategorySets(start, np.zeros(m, np.int64), np.empty(total, np.int64))


@njit(cache=True)
def in_set(codes, start, count, x):
    """A present value x goes right: int(x) (truncated, as XGBoost casts) is in the sorted
    ``codes[start:start + count]``; negative values and values from 2**24 never are."""
    if not (x >= 0.0 and x <= MAX_CATEGORY):
        return False
    c = np.int64(x)
    i = bisect_left(codes, start, start + count, c)
    return i < start + count and codes[i] == c


@njit(cache=True)
def convex_score(G, H, params):
    """s~(G, H): ``newton_score`` where H > 0, else its convex extension (module docstring)."""
    if H > 0.0:
        return newton_score(G, H, params)
    d = max(H, 0.0) + params.reg_lambda
    t = soft_threshold(G, params.reg_alpha)
    if d > 0.0:
        if params.max_delta_step == 0.0:
            return t * t / d
        w = -t / d
        if abs(w) > params.max_delta_step:
            w = math.copysign(params.max_delta_step, w)
        return -(2.0 * G * w + d * w * w + 2.0 * params.reg_alpha * abs(w))
    if t == 0.0:
        return 0.0
    if params.max_delta_step == 0.0:
        return np.inf
    return 2.0 * params.max_delta_step * abs(t)


@njit(cache=True)
def _gain(left, right, node, params):
    """The gain of the partition with side sums ``left`` and ``right`` (G, H, rows with
    h > 0; each summed over its own items, so neither is a difference that could leave
    a residue); -inf when not admissible."""
    if left[2] <= 0 or right[2] <= 0:
        return -np.inf
    if left[1] < params.min_child_weight or right[1] < params.min_child_weight:
        return -np.inf
    return (newton_score(left[0], left[1], params) + newton_score(right[0], right[1], params)
            - node.score)


@njit(cache=True)
def _relaxed(G, H, H_right, node, params):
    """f~(L) - s(P) for the left sums (G, H) and the right hessian sum H_right."""
    return convex_score(G, H, params) + convex_score(node.grad - G, H_right, params) - node.score


@njit(cache=True)
def _vertex(G, H, n_pos, node, params):
    """``_relaxed`` at a partition's left sums: a side without a row of h > 0 has H = 0
    exactly (the difference of the sums may leave a residue)."""
    H_right = node.hess - H if n_pos < node.n_pos else 0.0
    return _relaxed(G, H if n_pos > 0 else 0.0, H_right, node, params)


@njit(cache=True)
def _chain_bound(items, order, k, start, node, params, lo, hi, reverse):
    """Max of f~ - s(P) over one chain of the polygon (start + Z(items order[k:])) in the
    slab lo <= H <= hi: its vertices in the slab and its crossings of the slab's lines."""
    q = order.shape[0]
    G, H, pos = start[0], start[1], start[2]
    best = -np.inf
    if lo <= H <= hi:
        best = _vertex(G, H, pos, node, params)
    for i in range(q - k):
        j = order[q - 1 - i] if reverse else order[k + i]
        g, h, p = items.grad[j], items.hess[j], items.n_pos[j]
        if h > 0.0:
            for line in (lo, hi):
                if H < line < H + h:
                    t = (line - H) / h
                    best = max(best, _relaxed(G + t * g, line, node.hess - line, node, params))
        G += g
        H += h
        pos += p
        if lo <= H <= hi:
            best = max(best, _vertex(G, H, pos, node, params))
        if H > hi:
            break
    return best


@njit(cache=True)
def _search(items, order, node, params, lo, hi, floor, tie, side):
    """Branch and bound over the assignments of the items in angle order (item
    order[0] left); ``side`` holds the incumbent (True: right) and is updated in place.
    Returns the best gain found above ``floor``, or ``floor`` if none."""
    q = order.shape[0]
    acc = np.zeros((q + 1, 6))            # left then right sums of the assigned items
    choice = np.zeros(q + 1, np.int64)    # 0: next try left, 1: next try right, 2: done
    trial = np.zeros(q, np.bool_)
    best = floor
    k = 1
    acc[1, 0] = items.grad[order[0]]
    acc[1, 1] = items.hess[order[0]]
    acc[1, 2] = items.n_pos[order[0]]
    choice[1] = 0
    visited = 0
    fresh = True                          # depth k was just entered: bound it first
    while k >= 1:
        if fresh:
            fresh = False
            visited += 1
            if visited > MAX_SEARCH_NODES:
                raise ValueError("a categorical split needs more than 2**20 branch-and-bound "
                                 "nodes to be exact at one node (many categories of one "
                                 "gradient ratio with min_child_weight binding); reduce the "
                                 "categories or min_child_weight")
            if k == q:
                gain = _gain(acc[k, :3], acc[k, 3:], node, params)
                if beats(gain, best, tie):
                    best = gain
                    for i in range(q):
                        side[order[i]] = trial[i]
                k -= 1
                continue
            bound = max(_chain_bound(items, order, k, acc[k], node, params, lo, hi, False),
                        _chain_bound(items, order, k, acc[k], node, params, lo, hi, True))
            if not bound > record_bar(best, tie):
                k -= 1
                continue
            choice[k] = 0
        if choice[k] == 2:
            k -= 1
            continue
        j = order[k]
        right = choice[k] == 1
        choice[k] += 1
        trial[k] = right
        acc[k + 1, :] = acc[k, :]
        at = 3 if right else 0
        acc[k + 1, at] += items.grad[j]
        acc[k + 1, at + 1] += items.hess[j]
        acc[k + 1, at + 2] += items.n_pos[j]
        k += 1
        fresh = True
    return best


@njit(cache=True)
def best_partition(items, node, params, floor, tie, side):
    """The best admissible partition of the items (``side[i]``: item i goes to the side
    not holding item order[0]) and its gain, if it ``beats`` ``floor`` on the tie grid of
    window ``tie`` (else -inf).  Module docstring."""
    q = items.grad.shape[0]
    key = np.empty(q)
    for i in range(q):
        g, h = items.grad[i], items.hess[i]
        if h > 0.0:
            key[i] = -g / h
        elif g > 0.0:
            key[i] = -np.inf
        elif g < 0.0:
            key[i] = np.inf
        else:
            key[i] = 0.0
    order = np.arange(q)
    heapsort(key, order)                  # angle order: G/H decreasing, ties by item
    suffix = np.zeros((q + 1, 3))        # sums of the items order[t:]
    for t in range(q - 1, -1, -1):
        j = order[t]
        suffix[t, 0] = suffix[t + 1, 0] + items.grad[j]
        suffix[t, 1] = suffix[t + 1, 1] + items.hess[j]
        suffix[t, 2] = suffix[t + 1, 2] + items.n_pos[j]
    prefix = np.zeros(3)
    relaxed = 0.0                         # the trivial vertices 0 and P
    cut = -np.inf
    best_t = -1
    for t in range(q - 1):
        j = order[t]
        prefix[0] += items.grad[j]
        prefix[1] += items.hess[j]
        prefix[2] += items.n_pos[j]
        relaxed = max(relaxed, _vertex(prefix[0], prefix[1], int(prefix[2]), node, params))
        gain = _gain(prefix, suffix[t + 1], node, params)
        if beats(gain, cut, tie):
            cut = gain
            best_t = t
    for t in range(q):
        side[order[t]] = t > best_t
    threshold = max(cut, floor)
    if not relaxed > record_bar(threshold, tie):  # the best cut is optimal, or nothing can win
        return cut if beats(cut, floor, tie) else -np.inf
    found = _search(items, order, node, params, params.min_child_weight,
                    node.hess - params.min_child_weight, threshold, tie, side)
    if found > threshold:
        return found if beats(found, floor, tie) else -np.inf
    return cut if beats(cut, floor, tie) else -np.inf


@njit(cache=True)
def scan_categorical(cols, rows, f, level, best, params, allowed, sets):
    """The best partition of categorical feature ``f`` in every open slot that may split on
    it (``allowed[s]``), kept in ``best`` (default_left True, no values: NaN) with its
    right set in ``sets`` when it ``beats`` the slot's best.

    One pass over the column (sorted by code) sums every (slot, code); one pass over
    the rows sums each slot's missing rows (directly, not as the node's totals minus
    the present ones, so no residue).  O(entries + rows).
    """
    lo, hi = cols.indptr[f], cols.indptr[f + 1]
    m = level.grad.shape[0]
    n_rec = 0
    rec_slot = np.empty(hi - lo, np.int64)
    rec_code = np.empty(hi - lo, np.int64)
    rec_sum = np.zeros((hi - lo, 4))      # G, H, rows with h > 0, rows
    current = np.full(m, -1, np.int64)    # the slot's record of the code being read
    present_row = np.zeros(rows.position.shape[0], np.bool_)
    for e in range(lo, hi):
        r = cols.rows[e]
        s = rows.position[r]
        if s < 0 or not allowed[s]:
            continue
        present_row[r] = True
        c = np.int64(cols.values[e])
        if current[s] < 0 or rec_code[current[s]] != c:
            current[s] = n_rec
            rec_slot[n_rec] = s
            rec_code[n_rec] = c
            n_rec += 1
        i = current[s]
        h = rows.gh[r, 1]
        rec_sum[i, 0] += rows.gh[r, 0]
        rec_sum[i, 1] += h
        rec_sum[i, 2] += h > 0.0
        rec_sum[i, 3] += 1
    missing = np.zeros((m, 4))            # G, H, rows with h > 0, rows of the missing rows
    for r in range(rows.position.shape[0]):
        s = rows.position[r]
        if s >= 0 and allowed[s] and not present_row[r]:
            h = rows.gh[r, 1]
            missing[s, 0] += rows.gh[r, 0]
            missing[s, 1] += h
            missing[s, 2] += h > 0.0
            missing[s, 3] += 1
    first = np.zeros(m + 1, np.int64)     # records grouped by slot, in code order
    for i in range(n_rec):
        first[rec_slot[i] + 1] += 1
    for s in range(m):
        first[s + 1] += first[s]
    fill = first[:m].copy()
    by_slot = np.empty(n_rec, np.int64)
    for i in range(n_rec):
        by_slot[fill[rec_slot[i]]] = i
        fill[rec_slot[i]] += 1
    for s in range(m):
        n_cat = first[s + 1] - first[s]
        if n_cat == 0:
            continue
        q = n_cat + (1 if missing[s, 3] > 0 else 0)
        if q < 2:
            continue
        items = Items(np.empty(q), np.empty(q), np.empty(q, np.int64), np.empty(q, np.int64))
        j = 0
        if missing[s, 3] > 0:
            items.grad[0] = missing[s, 0]
            items.hess[0] = missing[s, 1]
            items.n_pos[0] = int(missing[s, 2])
            items.code[0] = -1
            j = 1
        for i in range(first[s], first[s + 1]):
            rec = by_slot[i]
            items.grad[j] = rec_sum[rec, 0]
            items.hess[j] = rec_sum[rec, 1]
            items.n_pos[j] = int(rec_sum[rec, 2])
            items.code[j] = rec_code[rec]
            j += 1
        node = NodeSums(level.grad[s], level.hess[s], level.n_pos[s], level.score[s])
        side = np.zeros(q, np.bool_)
        gain = best_partition(items, node, params, best.gain[s], level.tie[s], side)
        if gain == -np.inf:
            continue
        best.gain[s] = gain
        best.feature[s] = f
        best.default_left[s] = True
        best.left_value[s] = np.nan
        best.right_value[s] = np.nan
        count = 0
        for i in range(q):                # right: the side not holding item 0
            if side[i] != side[0]:
                sets.codes[sets.start[s] + count] = items.code[i]
                count += 1
        sets.count[s] = count


@njit(cache=True, inline='always')
def copy_set(sets, source, s):
    """Slot s's right set of ``source`` into ``sets`` (both ``new_category_sets`` of the level)."""
    for i in range(source.count[s]):
        sets.codes[sets.start[s] + i] = source.codes[source.start[s] + i]
    sets.count[s] = source.count[s]


@njit(cache=True)
def store_set(tree, node, sets, s, n_codes):
    """Write slot s's right set (``sets``) as ``node``'s category set in ``tree`` (a
    ``newton_grow.Tree``) at ``category_codes[n_codes:]``; returns the codes now held."""
    tree.category_start[node] = n_codes
    tree.category_count[node] = sets.count[s]
    for i in range(sets.count[s]):
        tree.category_codes[n_codes + i] = sets.codes[sets.start[s] + i]
    return n_codes + sets.count[s]
