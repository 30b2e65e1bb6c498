"""Bounds on a Newton split's gain over the placements of the rows not seen yet.

A node P (sums G_P, H_P, score s_P, A = sum |g|) has been *seen* on some of its
rows.  A candidate split of one feature puts a known part of the seen rows left
(a seen prefix in value order, with the seen missing rows when missing goes
left); each unseen row goes left or right, we do not know which.  The unseen
rows add to the left child's sums a subset sum of their vectors (g_i, h_i): a
point of their zonotope, held in the polygon ``unseen_region`` computes once
per node and prefix (inside the box [G_neg, G_pos] x [0, H_U] of the unseen
negative and positive gradient sums and hessian sum, and much smaller when g
and h go together).  So the left child's (G, H) lies in the seen part plus
that polygon, and the right child's is (G_P - G, H_P - H).

**Upper bound** (``newton_gain_upper``).  The child score is jointly convex in
(G, H): s(G, H) = max over |w| <= max_delta_step (any w if 0) of
-(2 G w + (H + lambda) w^2 + 2 alpha |w|), a maximum of functions affine in
(G, H) (``kernels/newton_split.py`` shows that the maximiser is the clipped
Newton weight where H + lambda > 0).  ``extended_score`` evaluates that maximum
for every H (+inf where it is unbounded: H + lambda <= 0 without a clip); it
equals ``newton_score`` for H > 0 and is >= its 0 elsewhere.  The gain
f(G, H) = s(G, H) + s(G_P - G, H_P - H) - s_P is a sum of convex functions of
affine maps, hence convex, and a convex function's maximum over a polygon is
at one of its vertices.  The polygon is clipped to the band where both
children's H are at least min_child_weight (a candidate outside it is not
admissible and is never recorded): the clipped polygon's vertices are the
vertices inside the band and the edges' crossings of its two lines.

**Lower bound** (``newton_gain_lower``).  s is even in G, nondecreasing in |G|
and nonincreasing in H (each affine piece has -(H + lambda) w^2 <= 0 and the
set of w is symmetric), so each child's least score over the box is at the G
of least |G| and the largest H: f >= min s(L) + min s(R) - s_P.  Used only on
candidates that exist whatever the placement and are admissible whatever it
is (``newton_search``).

**Rounding** (the bounds hold for the gains the exhaustive engine *computes*).
Sums of n terms differ from the exact ones by at most gamma_n sum |terms|
(gamma_n = n eps / (1 - n eps), eps = 2^-53) in any order; the polygon and the
lower bound's box are widened by ``Parent.slack_G`` = 8 gamma_n A and
``slack_H`` = 8 gamma_n H_P (``parent_slack``), which covers this module's
seen and unseen sums and the engine's prefix sums.  The engine's right child
is fl(G_P - G_L), a point off the line G_R = G_P - G_L by at most 2 eps A
(eps H_P in H): along that step s changes by at most 2|w| 2 eps A + w^2 2 eps
H_P (its subgradient is (-2w, -w^2)), with |w| <= W = Gabs / (H_min + lambda)
(H_min the lesser child H, less the slack; also |w| <= max_delta_step).  Each
score is evaluated with a relative error of a few eps of its terms' magnitude
2|G||w| + (H+lambda) w^2 + 2 alpha |w| <= 5 Gabs W, and the gain adds three of
them.  Hence the margin ``512 eps (Gabs W + H_P W^2)`` (about 8x the sum of
these terms, which also covers the polygon's computed vertices and band
crossings) added to the upper bound and subtracted from the lower one, with
Gabs its largest and H_min its least over the region (Gabs is convex and H_min
concave in (G, H): both extremes are at vertices).  W = inf (no bound) where
H_min + lambda <= 0 and there is no clip.

A user's criterion (``apsplit.register_criterion(..., bounds=)``) supplies
``bounds(G_lo, G_hi, H_lo, H_hi, params) -> (lo, hi)`` on its child score over
a box; ``user_gain_upper`` / ``user_gain_lower`` combine them separately per
child (hi_L + hi_R - s_P), which needs no convexity: each child's computed
(G, H) is in its widened box.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .newton_split import soft_threshold

EPS = 2.0 ** -53
MARGIN = 512.0 * EPS   # the rounding margin's factor (module docstring)
WIDEN = 8.0            # the box's widening in units of gamma_n A (G) and gamma_n H_P (H)

# the user's bounds function of ``user_gain_upper`` / ``user_gain_lower``: a free name,
# bound per criterion by ``newton_search.specialise`` (a placeholder here)
score_bounds = None


class Box(NamedTuple):
    """The left child's (G, H) over the placements of the unseen rows."""

    G_lo: float
    G_hi: float
    H_lo: float
    H_hi: float


class Parent(NamedTuple):
    """The node being split: its sums, score, sum |g| and the box's rounding slack."""

    G: float
    H: float
    score: float
    abs_grad: float
    slack_G: float
    slack_H: float


@njit(cache=True)
def parent_slack(n_rows, abs_grad, H):
    """(slack_G, slack_H) = 8 gamma_{n+2} (A, H): see the module docstring."""
    k = (n_rows + 2) * EPS
    gamma = k / (1.0 - k)
    return WIDEN * gamma * abs_grad, WIDEN * gamma * H


@njit(cache=True)
def can_split(n_rows, n_pos, H, params):
    """Whether a node of ``n_rows`` rows, ``n_pos`` of them with h > 0, and hessian sum
    ``H`` may have an admissible split (False: it has none, and need not be scanned).

    Proof: an admissible split has a row of h > 0 on each side (n_pos >= 2) and each
    side's hessian sum >= min_child_weight.  The two sides' exact sums add up to the
    node's exact one; each computed sum (a side's in any order, or fl(H - a side's))
    is within ``parent_slack``'s slack_H (8 gamma_{n+2} H) of it, so both reach
    min_child_weight only if H + slack_H >= 2 min_child_weight."""
    return n_pos >= 2 and H + parent_slack(n_rows, 0.0, H)[1] >= 2.0 * params.min_child_weight


@njit(cache=True, inline='always')
def extended_score(G, H, params):
    """max over |w| <= max_delta_step (any w if 0) of -(2 G w + (H + lambda) w^2 + 2 alpha |w|).

    The convex extension of ``newton_score`` to every H (module docstring): where
    H + lambda > 0 the maximiser is the Newton weight, clipped; where H + lambda <= 0
    the concave-up function of w is largest at w = -sign(G) max_delta_step, or
    unbounded (+inf) without a clip."""
    d = H + params.reg_lambda
    mds = params.max_delta_step
    alpha = params.reg_alpha
    if d <= 0.0:
        if mds == 0.0:
            return np.inf
        return max(0.0, 2.0 * abs(G) * mds - d * mds * mds - 2.0 * alpha * mds)
    t = soft_threshold(G, alpha)
    if mds == 0.0:
        return t * t / d
    w = -t / d
    if abs(w) > mds:
        w = math.copysign(mds, w)
    return -(2.0 * G * w + d * w * w + 2.0 * alpha * abs(w))


@njit(cache=True, inline='always')
def _margin(box, parent, params):
    """The rounding margin 256 eps (Gabs W + H_P W^2) over the box (inf: none known)."""
    G_P = parent.G
    gabs = max(max(abs(box.G_lo), abs(box.G_hi)),
               max(abs(G_P - box.G_lo), abs(G_P - box.G_hi)), parent.abs_grad)
    h_min = min(box.H_lo, parent.H - box.H_hi) - parent.slack_H
    W = np.inf
    if params.max_delta_step > 0.0:
        W = params.max_delta_step
    d = h_min + params.reg_lambda
    if d > 0.0:
        W = min(W, gabs / d)
    if W == np.inf:
        return np.inf
    return MARGIN * (gabs * W + (parent.H + parent.slack_H) * W * W)


class Unseen(NamedTuple):
    """The unseen rows of a node (the same for every feature of it): their sums, and the
    vertices of a polygon holding every sum of a subset of them, rounding slack included."""

    G_pos: float          # sum of the positive g
    G_neg: float          # sum of the negative g
    H: float
    vertex_G: np.ndarray  # the polygon's vertices, in order (N_DIRECTIONS of them)
    vertex_H: np.ndarray


N_DIRECTIONS = 16


@njit(cache=True)
def unseen_region(gh, seq, lo, hi, slack_G, slack_H):
    """The ``Unseen`` of the rows ``seq[lo:hi]``.

    The subset sums of vectors v_i = (g_i, h_i) form a zonotope Z; in a direction
    n its support is sum_i max(0, n . v_i).  The polygon is the intersection of
    the supporting half-planes of Z + [-slack_G, slack_G] x [-slack_H, slack_H]
    in N_DIRECTIONS directions evenly spread in the space scaled by Z's extent
    (the axes among them: the polygon lies in the box), each pushed out by
    (8 gamma_n + 64 eps)(|n_G| scale_G + |n_H| scale_H) for the rounding of its
    support and of the vertices; its vertices are the intersections of
    consecutive lines (each line supports the set, so each holds an edge, maybe
    of length 0; were one redundant, those points span a larger polygon).  A
    convex function's maximum over it is at a vertex.  Where that scaling
    overflows (sums near the subnormal range), the polygon is the box
    [G_neg, G_pos] x [0, H] widened by the slacks, which holds Z as well.
    """
    G_pos = G_neg = H = 0.0
    for p in range(lo, hi):
        g = gh[seq[p], 0]
        if g > 0.0:
            G_pos += g
        else:
            G_neg += g
        H += gh[seq[p], 1]
    scale_G = G_pos - G_neg + slack_G
    scale_H = H + slack_H
    scale_G = scale_G if scale_G > 0.0 else 1.0
    scale_H = scale_H if scale_H > 0.0 else 1.0
    k = (hi - lo + 2) * EPS
    push = 2.0 * (WIDEN * k / (1.0 - k) + 64.0 * EPS)
    D = N_DIRECTIONS
    cG, cH, support = np.empty(D), np.empty(D), np.empty(D)
    for d in range(D):
        angle = 2.0 * np.pi * d / D
        a, b = math.cos(angle) / scale_G, math.sin(angle) / scale_H
        if d % (D // 4) == 0:  # the axes exactly
            a = (1.0 if d == 0 else -1.0 if d == D // 2 else 0.0) / scale_G
            b = (1.0 if d == D // 4 else -1.0 if d == 3 * D // 4 else 0.0) / scale_H
        total = 0.0
        for p in range(lo, hi):
            total += max(0.0, a * gh[seq[p], 0] + b * gh[seq[p], 1])
        cG[d], cH[d] = a, b
        support[d] = total + abs(a) * slack_G + abs(b) * slack_H \
            + push * (abs(a) * scale_G + abs(b) * scale_H)
    vertex_G, vertex_H = np.empty(D), np.empty(D)
    for d in range(D):
        e = (d + 1) % D
        det = cG[d] * cH[e] - cH[d] * cG[e]
        vertex_G[d] = (support[d] * cH[e] - cH[d] * support[e]) / det
        vertex_H[d] = (cG[d] * support[e] - support[d] * cG[e]) / det
    if not (np.isfinite(vertex_G).all() and np.isfinite(vertex_H).all()):
        # the scaling overflowed (sums near the subnormal range): the box itself, its
        # four corners each repeated (repeated vertices are edges of length 0)
        corner_G = (G_neg - slack_G, G_pos + slack_G, G_pos + slack_G, G_neg - slack_G)
        corner_H = (-slack_H, -slack_H, H + slack_H, H + slack_H)
        for d in range(D):
            vertex_G[d], vertex_H[d] = corner_G[4 * d // D], corner_H[4 * d // D]
    return Unseen(G_pos, G_neg, H, vertex_G, vertex_H)


@njit(cache=True, inline='always')
def _value_at(G, H, parent, params):
    """(gain, Gabs, least child H + lambda less the slack) at left sums (G, H)."""
    G_P, H_P = parent.G, parent.H
    gain = extended_score(G, H, params) + extended_score(G_P - G, H_P - H, params) - parent.score
    gabs = max(max(abs(G), abs(G_P - G)), parent.abs_grad) + parent.slack_G
    return gain, gabs, min(H, H_P - H) - parent.slack_H + params.reg_lambda


@njit(cache=True)
def newton_gain_upper(GL, HL, unseen, H_lo, H_hi, parent, params):
    """An upper bound of the computed gain of every split whose left child is the seen
    part (GL, HL) plus a subset of the unseen rows, with H_lo <= H <= H_hi: the largest
    gain over the polygon clipped to that band (at its vertices in the band and its edges'
    crossings of the band's lines), plus the rounding margin at the largest Gabs (convex:
    at a vertex) and the least child H + lambda (concave: at a vertex); -inf if the
    polygon misses the band."""
    D = unseen.vertex_G.shape[0]
    top = -np.inf
    gabs_max = 0.0
    d_min = np.inf
    for d in range(D):
        e = (d + 1) % D
        Ga, Ha = GL + unseen.vertex_G[d], HL + unseen.vertex_H[d]
        Gb, Hb = GL + unseen.vertex_G[e], HL + unseen.vertex_H[e]
        for c in (np.nan, H_lo, H_hi):  # the vertex itself, then the band's two lines
            if c != c:
                if not H_lo <= Ha <= H_hi:
                    continue
                G, H = Ga, Ha
            elif (Ha - c) * (Hb - c) < 0.0:
                G, H = Ga + (Gb - Ga) * ((c - Ha) / (Hb - Ha)), c
            else:
                continue
            gain, gabs, least = _value_at(G, H, parent, params)
            top = max(top, gain)
            gabs_max = max(gabs_max, gabs)
            d_min = min(d_min, least)
    if top == -np.inf:
        return top
    W = np.inf
    if params.max_delta_step > 0.0:
        W = params.max_delta_step
    if d_min > 0.0:
        W = min(W, gabs_max / d_min)
    if W == np.inf:
        return np.inf
    return top + MARGIN * (gabs_max * W + (parent.H + parent.slack_H) * W * W)


@njit(cache=True, inline='always')
def _nearest_zero(lo, hi):
    return min(max(0.0, lo), hi)


@njit(cache=True)
def newton_gain_lower(box, parent, params):
    """A lower bound of the computed gain of a split whose left child is in ``box`` (both
    children of positive hessian over the box): each child's least score, at its G of
    least |G| and its largest H, minus the parent's score and the rounding margin."""
    left = extended_score(_nearest_zero(box.G_lo, box.G_hi), box.H_hi, params)
    right = extended_score(_nearest_zero(parent.G - box.G_hi, parent.G - box.G_lo),
                           parent.H - box.H_lo, params)
    return left + right - parent.score - _margin(box, parent, params)


@njit(inline='always')
def _child_boxes(box, parent):
    """The two children's boxes, H clipped at 0 (an admissible child's computed H is >= 0)."""
    return ((box.G_lo, box.G_hi, max(box.H_lo, 0.0), max(box.H_hi, 0.0)),
            (parent.G - box.G_hi, parent.G - box.G_lo, max(parent.H - box.H_hi, 0.0),
             max(parent.H - box.H_lo, 0.0)))


def user_gain_upper(GL, HL, unseen, H_lo, H_hi, parent, params):
    """hi_L + hi_R - s_P from the user's ``score_bounds`` over the box of the seen part
    plus any subset of the unseen rows (H in [H_lo, H_hi]), plus 256 eps of the terms."""
    box = Box(GL + unseen.G_neg - parent.slack_G, GL + unseen.G_pos + parent.slack_G,
              max(HL - parent.slack_H, H_lo), min(HL + unseen.H + parent.slack_H, H_hi))
    if box.H_lo > box.H_hi:
        return -np.inf
    left, right = _child_boxes(box, parent)
    hi_L = score_bounds(left[0], left[1], left[2], left[3], params)[1]
    hi_R = score_bounds(right[0], right[1], right[2], right[3], params)[1]
    return hi_L + hi_R - parent.score + MARGIN * (abs(hi_L) + abs(hi_R) + abs(parent.score))


def user_gain_lower(box, parent, params):
    """lo_L + lo_R - s_P from the user's ``score_bounds``, minus 256 eps of the terms."""
    left, right = _child_boxes(box, parent)
    lo_L = score_bounds(left[0], left[1], left[2], left[3], params)[0]
    lo_R = score_bounds(right[0], right[1], right[2], right[3], params)[0]
    return lo_L + lo_R - parent.score - MARGIN * (abs(lo_L) + abs(lo_R) + abs(parent.score))


@njit(cache=True)
def items_region(unseen, item_G, item_H):
    """A polygon holding the unseen rows' polygon plus every subset sum of the items
    (item_G[c], item_H[c]): the Minkowski sum of ``unseen`` and the segments [0, v_c],
    widened by a box for its own rounding; an ``Unseen`` (its sums: the box of the region).

    A convex polygon is its edges taken in order of angle, from the right start; the
    Minkowski sum of convex polygons is the polygon of all their edges so taken (a
    segment [0, v]: the two edges v and -v; a zero v adds nothing; the box [-d_G, d_G] x
    [-d_H, d_H]: four).  The walk starts at the origin, and the result is then moved so
    that its largest G and largest H are the sums of the parts' (the largest H of the
    unseen vertices plus the items' H plus d_H; the same in G with the positive item G):
    a translate is fixed by these two supports.  The angles are taken in the space
    scaled by the edges' spread in G and in H (a positive scaling keeps their order), so
    that two edges whose order atan2 cannot resolve are parallel to within eps there,
    and swapping them moves a vertex by eps of the spread at most, whatever the ratio
    of the G and H extents.  The unseen polygon's computed edges may turn by a
    rounding's angle (and a zero-length one point anywhere): sorted by angle, they
    still make a convex polygon, off the exact one by about the vertices' rounding.
    The box covers that and the walk's own rounding, at most gamma_k (|start| + sum
    |edges|) per coordinate for k edges: d is 16 times that (plus k of the least
    subnormal, for sums near it), and a vertex moved by less than d/2 per coordinate
    leaves the exact polygon inside (scaled by (d_G, d_H), the box pushes every edge out
    by at least 1).
    """
    D = unseen.vertex_G.shape[0]
    q = item_G.shape[0]
    n_edges = D + 2 * q + 4
    edge_G, edge_H = np.empty(n_edges), np.empty(n_edges)
    top_G, top_H = unseen.vertex_G.max(), unseen.vertex_H.max()
    spread_G, spread_H = abs(top_G), abs(top_H)
    G_pos, G_neg, H = unseen.G_pos, unseen.G_neg, unseen.H
    k = 0
    for d in range(D):
        edge_G[k] = unseen.vertex_G[d] - unseen.vertex_G[d - 1]
        edge_H[k] = unseen.vertex_H[d] - unseen.vertex_H[d - 1]
        k += 1
    for c in range(q):
        g, h = item_G[c], item_H[c]
        if g == 0.0 and h == 0.0:
            continue
        edge_G[k], edge_H[k] = g, h
        edge_G[k + 1], edge_H[k + 1] = -g, -h
        k += 2
        top_G += max(g, 0.0)
        top_H += max(h, 0.0)
        G_pos += max(g, 0.0)
        G_neg += min(g, 0.0)
        H += h
    for i in range(k):
        spread_G += 2.0 * abs(edge_G[i])
        spread_H += 2.0 * abs(edge_H[i])
    m = (k + 8) * EPS
    tiny = (k + 8) * 5e-324
    d_G = 16.0 * m / (1.0 - m) * spread_G + tiny
    d_H = 16.0 * m / (1.0 - m) * spread_H + tiny
    for g, h in ((2.0 * d_G, 0.0), (0.0, 2.0 * d_H), (-2.0 * d_G, 0.0), (0.0, -2.0 * d_H)):
        edge_G[k], edge_H[k] = g, h
        k += 1
    scale_G = spread_G if 0.0 < spread_G < np.inf else 1.0
    scale_H = spread_H if 0.0 < spread_H < np.inf else 1.0
    angle = np.empty(k)   # in the space scaled by the spreads, which keeps the order of angles
    for i in range(k):
        angle[i] = math.atan2(edge_H[i] / scale_H, edge_G[i] / scale_G)
    by_angle = np.argsort(angle, kind="mergesort")
    vertex_G, vertex_H = np.empty(k), np.empty(k)
    G = H_run = 0.0
    for i in range(k):
        vertex_G[i], vertex_H[i] = G, H_run
        G += edge_G[by_angle[i]]
        H_run += edge_H[by_angle[i]]
    vertex_G += top_G + d_G - vertex_G.max()
    vertex_H += top_H + d_H - vertex_H.max()
    return Unseen(G_pos + d_G, G_neg - d_G, H + d_H, vertex_G, vertex_H)


@njit(cache=True)
def partition_gain_upper(region, H_lo, H_hi, parent, params):
    """An upper bound of the computed gain of every partition of a categorical feature
    whose left sums lie in ``region`` (``items_region``), H_lo <= H <= H_hi:
    ``newton_gain_upper`` over it, plus what the exact scan's right child adds.

    That scan (``newton_categorical``) sums each side over its own rows, so its right
    child R is not fl(G_P - G_L) but within gamma_n (A_L + A_R + A) <= slack_G of
    G_P - G_L (slack_H in H).  s is convex with subgradient (-2w, -w^2) at R (w its
    maximiser), so s(R) <= s(P - L) + 2|w| slack_G + w^2 slack_H; an admissible R has
    |G_R| <= A + slack_G and H_R >= max(min_child_weight, 0), hence |w| <= W = (A +
    slack_G) / (max(min_child_weight, 0) + lambda) (and <= max_delta_step); no bound
    (inf) when neither caps w.  The term is doubled for its own rounding."""
    top = newton_gain_upper(0.0, 0.0, region, H_lo, H_hi, parent, params)
    if top == -np.inf or top == np.inf:
        return top
    W = np.inf
    if params.max_delta_step > 0.0:
        W = params.max_delta_step
    d = max(params.min_child_weight, 0.0) + params.reg_lambda
    if d > 0.0:
        W = min(W, (parent.abs_grad + parent.slack_G) / d)
    if W == np.inf:
        return np.inf
    return top + 2.0 * (2.0 * W * parent.slack_G + W * W * parent.slack_H)
