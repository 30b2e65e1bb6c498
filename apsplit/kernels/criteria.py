"""Impurity of a child in weight units, and the slopes used by the upper bounds.

For class weights z (total S) the impurities are, in weight units (the score of
a split is the sum over its two children divided by the node weight):

    error    f(z) = S - max_c z_c
    gini     f(z) = S - sum_c z_c^2 / S
    entropy  f(z) = S log2 S - sum_c z_c log2 z_c

Each f is concave and positively 1-homogeneous, hence superadditive:
f(a + b) >= f(a) + f(b) >= f(a).  Adding examples to a child never lowers its
impurity, which is what makes the seen part a lower bound.  Concavity also
gives, for any supergradient g of f at z, f(z + u) <= f(z) + g . u.  The
upper bounds use these supergradients (p = z / S):

    error    g_c = 0 for the first heaviest class, 1 for the others
    gini     g_c = 1 - 2 p_c + sum_j p_j^2            (in [0, 2])
    entropy  g_c = log2(S / z_c), +inf when z_c = 0
"""

import math

from numba import njit

ERROR, ENTROPY, GINI = 0, 1, 2
CRITERIA = {"error": ERROR, "entropy": ENTROPY, "gini": GINI}

PAPER, TIGHT = 0, 1
BOUNDS = {"paper": PAPER, "tight": TIGHT}


@njit(cache=True)
def impurity(crit, z):
    """f(z) in weight units; negative rounding residues count as zero."""
    total = 0.0
    for c in range(z.shape[0]):
        if z[c] > 0.0:
            total += z[c]
    if total <= 0.0:
        return 0.0
    if crit == ERROR:
        best = 0.0
        for c in range(z.shape[0]):
            if z[c] > best:
                best = z[c]
        return total - best
    if crit == GINI:
        sq = 0.0
        for c in range(z.shape[0]):
            if z[c] > 0.0:
                sq += z[c] * z[c]
        return max(total - sq / total, 0.0)
    acc = total * math.log2(total)
    for c in range(z.shape[0]):
        if z[c] > 0.0:
            acc -= z[c] * math.log2(z[c])
    return max(acc, 0.0)


@njit(cache=True)
def split_value(crit, bounds, left, right, unseen_cls, unseen, want_ub):
    """(f(L) + f(R), upper bound on the split's final value) in one pass over the classes.

    The upper bound (only when ``want_ub``) is, for unseen class weights U_c
    that may land on either side,
        paper: f(L) + f(R) + sum_c U_c                     (error: paper Sec. 3)
        tight: f(L) + f(R) + sum_c U_c max(gL_c, gR_c)     (supergradients above)
    the tangent inequality applied to each child, maximised over placements.
    A child whose seen weight rounds to zero (extreme weight ratios) counts
    as empty: impurity 0, slopes 1 (error, gini) or log2 C (entropy), valid
    since f(u) <= |u| resp. |u| log2 C.  Runs for every split of every
    re-evaluated feature, so each class loop is a single pass.
    """
    C = left.shape[0]
    sl = 0.0
    sr = 0.0
    for c in range(C):
        sl += max(left[c], 0.0)
        sr += max(right[c], 0.0)
    if crit == ERROR:
        al = 0
        ar = 0
        for c in range(1, C):
            if left[c] > left[al]:
                al = c
            if right[c] > right[ar]:
                ar = c
        seen = (sl - max(left[al], 0.0)) + (sr - max(right[ar], 0.0))
        if not want_ub:
            return seen, seen
        ub = seen + unseen
        if bounds != PAPER and al == ar:
            ub -= unseen_cls[al]
        return seen, ub
    if crit == GINI:
        ql = 0.0
        qr = 0.0
        for c in range(C):
            ql += max(left[c], 0.0) ** 2
            qr += max(right[c], 0.0) ** 2
        seen = (max(sl - ql / sl, 0.0) if sl > 0.0 else 0.0) + (max(sr - qr / sr, 0.0) if sr > 0.0 else 0.0)
        if not want_ub:
            return seen, seen
        if bounds == PAPER:
            return seen, seen + paper_excess(crit, left, sl, unseen_cls, unseen) \
                + paper_excess(crit, right, sr, unseen_cls, unseen)
        ub = seen
        for c in range(C):
            if unseen_cls[c] > 0.0:
                gl = 1.0 - 2.0 * max(left[c], 0.0) / sl + ql / (sl * sl) if sl > 0.0 else 1.0
                gr = 1.0 - 2.0 * max(right[c], 0.0) / sr + qr / (sr * sr) if sr > 0.0 else 1.0
                ub += unseen_cls[c] * max(gl, gr)
        return seen, ub
    el = 0.0
    er = 0.0
    if sl > 0.0:
        el = sl * math.log2(sl)
        for c in range(C):
            if left[c] > 0.0:
                el -= left[c] * math.log2(left[c])
    if sr > 0.0:
        er = sr * math.log2(sr)
        for c in range(C):
            if right[c] > 0.0:
                er -= right[c] * math.log2(right[c])
    seen = max(el, 0.0) + max(er, 0.0)
    if not want_ub:
        return seen, seen
    if bounds == PAPER:
        return seen, seen + paper_excess(crit, left, sl, unseen_cls, unseen) \
            + paper_excess(crit, right, sr, unseen_cls, unseen)
    ub = seen
    empty = math.log2(C)
    for c in range(C):
        if unseen_cls[c] > 0.0:
            gl = empty if sl <= 0.0 else (math.log2(sl / left[c]) if left[c] > 0.0 else math.inf)
            gr = empty if sr <= 0.0 else (math.log2(sr / right[c]) if right[c] > 0.0 else math.inf)
            ub += unseen_cls[c] * max(gl, gr)
    return seen, ub


@njit(cache=True)
def paper_excess(crit, z, s, unseen_cls, unseen):
    """What ``bounds="paper"`` adds to one child's seen impurity f(z) (entropy, gini).

    entropy (paper, App. B, Eq. 3):  U log2 C + sum_c (z_c + U_c) log2((s + U) / z_c)
    gini (its analogue):             U (1 - 1/C) + sum_c (z_c + U_c)^2 / (s + U_c) ((s + U) / z_c - 1)
    with s the child's seen weight, U the node's unseen weight (every unseen
    example may land in this child) and U_c its class-c part.  A class with
    z_c = 0 contributes 0 if U_c = 0, else +inf (as lg((Z_u + w) / Z_yu) does).
    """
    C = z.shape[0]
    acc = unseen * (math.log2(C) if crit == ENTROPY else 1.0 - 1.0 / C)
    for c in range(C):
        zc = max(z[c], 0.0)
        if zc + unseen_cls[c] <= 0.0:
            continue
        if zc <= 0.0:
            return math.inf
        ratio = (s + unseen) / zc
        if crit == ENTROPY:
            acc += (zc + unseen_cls[c]) * math.log2(ratio)
        else:
            acc += (zc + unseen_cls[c]) ** 2 / (s + unseen_cls[c]) * (ratio - 1.0)
    return acc
