"""Categorical features: the exact best partition of a feature's categories.

A split of a categorical feature sends a subset of its categories left.  The
node's categories are the feature's distinct values among the examples seen
so far (``present``), with class weights ``hist`` per category.  The best of
the 2^(p-1) - 1 partitions of p categories is found exactly by:

* two classes, any criterion: sort the categories by their class-1
  proportion; an optimal partition is a cut of that order (Breiman et al.
  1984, Thm 4.5).  Proof for any concave f: the left class weights of the
  fractional assignments form a 2-d zonotope, the concave value
  f(L) + f(T - L) is minimal at one of its vertices, and the vertices are the
  sums of the categories' vectors taken in order of angle, i.e. of proportion.
  Ties in proportion are vectors on one ray, so any order among them is fine.
* error, any number of classes: f(L) + f(R) = S - max_a L_a - max_b R_b, so
  the best partition with leaf labels (a, b) sends each category to the side
  whose label errs less on it; the value is symmetric in (a, b), so the pairs
  a < b suffice, O(C^2 p).  A pair whose best assignment puts every category
  on one side has value S - T_a >= f(T), which every real split reaches
  (superadditivity); so if it is optimal, all real splits tie at f(T) and
  the partition {first category} | rest is also evaluated.
* gini or entropy with more than two classes: every partition is enumerated,
  up to ``MAX_SUBSET_CATEGORIES`` categories (the finders refuse larger
  features before searching).

Bounds while some examples are unseen: LB = min over the partitions of the
seen categories (including all on one side, as unseen categories may hold the
other side) of the seen value, found by the same exact rule: every final
partition restricted to the seen categories is one of them, and its seen
value is at most its final value (superadditivity).  UB = min over the
partitions the rule examines of ``criteria.split_value``'s upper bound,
unseen examples free to go either side (unseen categories may be placed
anywhere), capped by the node's impurity.  When everything is seen, LB = UB =
the exact score.

Canonical partition: the first optimal one in the rule's deterministic order
(cuts by increasing proportion, pairs (a, b) in lexicographic order, then the
fallback, masks by increasing value), with the sides swapped if needed so that
the smallest category (code) goes left.  It depends only on the feature's
final statistics, which every method accumulates identically.
"""

import math

from numba import njit

from .criteria import ERROR, NO_UB, impurity, split_value
from .sort import heapsort

MAX_SUBSET_CATEGORIES = 12


@njit(cache=True)
def _value(crit, bounds, left, right, seen_cls, unseen_cls, unseen, want_ub):
    """split_value of the split whose seen left class weights are ``left``."""
    for c in range(left.shape[0]):
        right[c] = seen_cls[c] - left[c]
    return split_value(crit, bounds, left, right, unseen_cls, unseen, want_ub)


@njit(cache=True)
def _sum_side(left, side, cats, off, hist):
    """left = class weights of the categories with ``side[j]`` set; returns their count."""
    for c in range(left.shape[0]):
        left[c] = 0.0
    count = 0
    for j in range(cats.shape[0]):
        if side[j]:
            count += 1
            for c in range(left.shape[0]):
                left[c] += hist[off + cats[j], c]
    return count


@njit(cache=True)
def evaluate_categorical(col, rule, seen, full, left, right, cat_left, side, key, by_key):
    """(lb, ub) of the categorical feature ``col`` (a ``stats.Column``) from its ``seen``
    statistics (module docstring) under the node's ``rule``.

    When ``full``, the canonical best partition is written to ``cat_left``
    (1 for the present categories going left, 0 for the others).  ``side``,
    ``key`` and ``by_key`` are workspace of at least ``n_present`` entries.
    """
    crit, bounds, parent = rule.crit, rule.bounds, rule.parent
    hist, present, off, n_present = col.hist, col.present, col.off, col.n_present
    seen_cls, unseen_cls, unseen = seen.cls, seen.unseen_cls, seen.unseen
    C = seen_cls.shape[0]
    cats = present[off:off + n_present]
    p = n_present
    want_ub = not full and bounds != NO_UB
    side = side[:p]
    side[:] = 0
    best_lb = math.inf
    best_ub = math.inf
    if p >= 2 and C == 2:
        for j in range(p):
            total = hist[off + cats[j], 0] + hist[off + cats[j], 1]
            key[j] = hist[off + cats[j], 1] / total if total > 0.0 else 0.5
        by_key = by_key[:p]
        for j in range(p):
            by_key[j] = j
        heapsort(key, by_key)
        best_cut = -1
        for c in range(C):
            left[c] = 0.0
        for t in range(p - 1):
            for c in range(C):
                left[c] += hist[off + cats[by_key[t]], c]
            seen, ub = _value(crit, bounds, left, right, seen_cls, unseen_cls, unseen, want_ub)
            if seen < best_lb:
                best_lb = seen
                best_cut = t
            best_ub = min(best_ub, ub)
        for t in range(best_cut + 1):
            side[by_key[t]] = 1
    elif p >= 2 and crit == ERROR:
        best_a = -1
        best_b = -1
        for a in range(C):
            for b in range(a + 1, C):
                for j in range(p):
                    side[j] = hist[off + cats[j], a] >= hist[off + cats[j], b]
                count = _sum_side(left, side, cats, off, hist)
                if count == 0 or count == p:
                    continue
                seen, ub = _value(crit, bounds, left, right, seen_cls, unseen_cls, unseen, want_ub)
                if seen < best_lb:
                    best_lb = seen
                    best_a = a
                    best_b = b
                best_ub = min(best_ub, ub)
        side[:] = 0
        side[0] = 1
        _sum_side(left, side, cats, off, hist)
        seen, ub = _value(crit, bounds, left, right, seen_cls, unseen_cls, unseen, want_ub)
        best_ub = min(best_ub, ub)
        if seen < best_lb:
            best_lb = seen
        elif best_a >= 0:
            for j in range(p):
                side[j] = hist[off + cats[j], best_a] >= hist[off + cats[j], best_b]
    elif p >= 2:
        best_mask = 0
        for mask in range((1 << (p - 1)) - 1):
            side[0] = 1
            for j in range(1, p):
                side[j] = (mask >> (j - 1)) & 1
            _sum_side(left, side, cats, off, hist)
            seen, ub = _value(crit, bounds, left, right, seen_cls, unseen_cls, unseen, want_ub)
            if seen < best_lb:
                best_lb = seen
                best_mask = mask
            best_ub = min(best_ub, ub)
        side[0] = 1
        for j in range(1, p):
            side[j] = (best_mask >> (j - 1)) & 1
    if full:
        flip = p > 0 and side[0] == 0
        for j in range(p):
            cat_left[off + cats[j]] = 1 - side[j] if flip else side[j]
        return best_lb, best_lb
    best_lb = min(best_lb, impurity(crit, seen_cls))
    if best_ub < math.inf:
        best_ub = min(best_ub, parent)
    return best_lb, best_ub
