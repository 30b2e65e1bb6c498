"""Impurity of a child in weight units, and the bounds on a split's final value.

For class weights z (total S) the impurities are, in weight units (the score of
a split is the sum over its two children divided by the node weight):

    error    f(z) = S - max_c z_c
    gini     f(z) = S - sum_c z_c^2 / S           = sum_c z_c (1 - p_c)
    entropy  f(z) = S log2 S - sum_c z_c log2 z_c = sum_c z_c log2(1 / p_c)

with p = z / S.  A split's seen children have class weights L and R; the
node's unseen examples (weight U, U_c of class c: labels are known) may each
land on either side, so the split's final value is f(L + a) + f(R + U - a)
for some 0 <= a <= U.  Every bound below holds for every such a.

Lower bound (both ``bounds``): the seen value f(L) + f(R).  Each f is
concave and positively 1-homogeneous, hence superadditive:
f(a + b) >= f(a) + f(b) >= f(a), so adding examples never lowers a child's
impurity.

Upper bounds, ``tight`` (the default).  Concavity gives, for any
supergradient g of f at z, f(z + u) <= f(z) + g . u; applied to each child
and maximised over the placements, f(L) + f(R) + sum_c U_c max(gL_c, gR_c) with

    error    g_c = 0 for the first heaviest class, 1 for the others
    gini     g_c = 1 - 2 p_c + sum_j p_j^2            (in [0, 2])
    entropy  g_c = log2(S / z_c), +inf when z_c = 0

Upper bounds, ``paper``: f(L) + f(R) + unseen terms of each child, each
child taking the whole unseen weight U (as the paper's w):

    error    U in total                                          (paper, Sec. 3)
    entropy  U log2 C + sum_c (z_c + U_c) log2((S + U) / z_c)     (paper, App. B, Eq. 3)
    gini     U (1 - 1/C) + sum_c (z_c + U_c)^2 / (S + U_c) ((S + U) / z_c - 1)

(a class with z_c = U_c = 0 adds 0; z_c = 0 < U_c gives +inf.)  Entropy is
Eq. 3 term by term: Z_u eps_u = f(z), w = U, w_y = U_c, Z_yu = z_c, |Y| = C.
Proof sketch (the paper's): with Z = z + a the final child, Lemma 2 splits
f(Z) = f(z) + f(a) + sum_c Z_c KL(B(z_c / Z_c) || B(S / |Z|)); f(a) <= U log2 C,
Z_c <= z_c + U_c, and KL <= log2 of the largest probability ratio (Renyi
D_inf), both ratios being <= (S + U) / z_c (Lemma 1).  Gini, not in the
paper, is its analogue derived the same way: the same split holds with the
chi-square divergence, f(Z) = f(z) + f(a) + sum_c (Z_c^2 / |Z|)
chi2(B(z_c / Z_c) || B(S / |Z|)) (expand both sides); f(a) <= U (1 - 1/C),
chi2 <= (largest ratio) - 1 <= (S + U) / z_c - 1, and
Z_c / |Z| <= (z_c + U_c) / (S + U_c).  Like Eq. 3, it is a naive bound: it
does not tend to the seen value as U -> 0 (it tends to 2 f(z)).  A fully
assessed feature's value is exact whatever ``bounds`` (``stats.scan``).

tight <= paper for every split.  Error: the tight bound subtracts U_c for a
class heaviest on both sides.  Entropy: 0 <= log2(S / z_c) <= log2((S + U) / z_c),
so each child's paper term for class c is at least U_c g_c, and the sum of
the two children's terms at least U_c max(gL_c, gR_c).  Gini: per child and
class, g_c = (1 - p_c)^2 + sum_{j != c} p_j^2 <= 2 (1 - p_c)^2, and with S = 1,
(z + u)^2 / (1 + u) (1 - z) / z >= 2 u (1 - z)^2 because
(z + u)^2 - 2 u z (1 - z) (1 + u) = z^2 + 2 z^2 u + u^2 (z^2 + (1 - z)^2) >= 0;
the paper term is at least the left-hand side (homogeneity covers any S).

Why the lower bound stays the seen value.  The unseen weight of each class
must land somewhere, and f's slope along e_c anywhere between z and
z + a (a_c <= U_c) is at least h_c(z, U_c):

    entropy  log2((S + U_c) / (z_c + U_c))
    gini     C / (C - 1) ((S - z_c) / (S + U_c))^2
    error    1 if z_j >= z_c + U_c for some j != c, else 0

so seen + sum_c U_c min(hL_c, hR_c) is a valid, monotone lower bound (commit
aea0ac4, reverted).  On the benchmark nodes it cut adaptive's assessments
(satimage: gini -16%, error -17%, weight-order bound -21%; a8a and higgs7k
under 1%) but raised CPU time (satimage gini and error by 20-40%, higgs7k
gini by ~40%): tighter lower bounds shrink the gaps, so more and smaller
batches each pay an O(values) re-evaluation.  The exact minimum over the
2^C vertices of the placement box costs more still.
"""

import math

from numba import njit

ERROR, ENTROPY, GINI = 0, 1, 2
CRITERIA = {"error": ERROR, "entropy": ENTROPY, "gini": GINI}

PAPER, TIGHT = 0, 1
NO_UB = -1  # kernel-internal: a search that uses only lower bounds skips the upper ones
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


@njit(cache=True, inline='always')
def split_value(crit, bounds, left, right, unseen_cls, unseen, want_ub):
    """(f(L) + f(R), upper bound on the split's final value) in one pass over the classes.

    The upper bound (only when ``want_ub``) is, for unseen class weights U_c
    that may land on either side, the module's ``paper`` or ``tight`` bound.
    With tight bounds, a child whose seen weight rounds to zero (extreme
    weight ratios) counts as empty: impurity 0, slopes 1 (error, gini) or
    log2 C (entropy), valid since f(u) <= |u| resp. |u| log2 C.  Runs for
    every split of every re-evaluated feature, so each class loop is a
    single pass, and it is inlined: a call copies its three array arguments,
    which halved adaptive's Gini time on higgs7k's continuous features.
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
    """The ``paper`` bound's unseen terms for one child (module docstring): entropy
    Eq. 3, or its gini analogue, for seen class weights z of total s."""
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
