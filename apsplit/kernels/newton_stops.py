"""The weight-order lower bound of a Newton node: each feature's stopping point.

A node of n rows in weight order (``newton_search``'s order: decreasing key,
ties by row) has the exhaustive optimum best* (the gain the exhaustive scan
records, -inf if it records none) and tie window t; let cap* =
``newton_split.record_bar(best*, t)``, the bar of best*'s cell of the tie grid
(no gain above it is in a lower cell).
For a candidate feature k and a prefix length m (0 <= m < n), UB_k(m) is the
upper bound ``newton_search``'s finders compute on k's gains from the first m
rows (its ``feature_bounds``, with ``newton_bounds``' polygon of the other
n - m rows).  The *stopping point* of k is

    stop(k) = min {m in 0..n-1 : cap* > -inf and UB_k(m) <= cap*},  n if there is none,

and stop(k*) = n for the feature k* of the optimum.  The bound of the node is
sum_k stop(k) (0 for a node the finders do not search: fewer than two rows of
h > 0, or H below twice min_child_weight less the rounding slack).

**Every weight-order finder that prunes with these bounds assesses at least
that many** (``newton_search``'s quick and adaptive; any choice of prefixes).
Such a finder returns the exhaustive split, so it scans k* on all n rows.  It
skips another feature k only on a prefix m < n with UB_k(m) <= cap, where cap
= record_bar(max(best, LB(g) for earlier features g), t), best being its
running best, and then counts m assessments of k (n if k is scanned).  Now cap
<= cap*: ``record_bar`` only grows with its argument's cell; best's cell is at
most best*'s (best* is in the highest cell), and so is LB(g)'s, LB(g) being at
most the computed gain of one of g's admissible candidates; this assumes no
computed gain overflows to +inf (never recorded).  When cap* = -inf
so is cap, and the finder bounds nothing.  Hence UB_k(m) <= cap*, i.e. m >=
stop(k), for the very prefix m the finder counted.

**Why every prefix is tried.**  UB_k(m) is not monotone in m: the polygon's
directions are rescaled by the extent of the unseen rows, which changes with
m, and its push-outs and the rounding margin are taken at the new vertices.
So the least m is found by trying m = 0, 1, ... in turn, which is the exact
least m whatever the shape of UB_k; a binary search, or a grid of m, could
return a larger m and overstate the bound (``tests/test_newton_stops.py``
holds a node where UB_k(m) <= cap* at m = 0 and 4 but not at 1..3).  The cost
is O(n) bound evaluations per feature, each O(m log m) at worst; three things
make it cheaper without changing any decision:

- *A witness for every feature at once.*  Every feature's bound includes the
  end "all seen rows left" (``feature_bounds``' last seen part, with the seen
  missing rows added), and ``newton_bounds`` proves that UB bounds the computed
  gain of *every* split whose left child is that seen part plus any subset T of
  the unseen rows, H in the band (its sums taken in any order, the right child
  by subtraction).  So if such a split, computed so, gains more than cap* (both
  children's H >= min_child_weight), UB_k(m) > cap* for every k and prefix m is
  skipped.  T is taken as {i unseen : a g_i + b h_i > 0} for WITNESSES fixed
  directions (a, b), whose sums over the unseen rows are suffix sums computed
  once per node: O(1) per direction and prefix.
- The unseen rows' polygon of a prefix is computed once for all features.
- The two cheap ends of a feature's bound (``feature_bounds`` evaluates them
  first and returns as soon as one exceeds the cap) are kept incrementally, the
  full bound evaluated only where they pass.  They use the running sums of the
  prefix exactly as ``feature_bounds`` accumulates them (a left fold in prefix
  order), so they decide as ``feature_bounds`` would, bit for bit.
"""

import hashlib
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from . import newton_bounds, newton_grow, newton_search, newton_split
from .newton_bounds import Parent, parent_slack, unseen_region
from .newton_grow import bind_globals, level_stats
from .newton_search import Prefix, _upper_both, bind_feature_bounds, make_slots
from .newton_split import (Rows, make_best, make_running, may_exceed_of, record_bar,
                           scan_feature, sorted_columns)

_SOURCE_TAG = hashlib.sha1(b"".join(Path(m.__file__).read_bytes() for m in (
    newton_split, newton_grow, newton_bounds, newton_search))).hexdigest()[:12]

WITNESSES = 16   # directions of the witness splits (module docstring)

# free names of the template, bound per criterion by ``specialise`` (placeholders here)
score = may_exceed = gain_upper = feature_bounds = None


class NodeStops(NamedTuple):
    """A node's stopping points: ``stops[j]`` for ``features[j]`` (n for the optimum's
    feature; all 0 if the node is not searched), the optimum's position in ``features``
    (-1: no admissible candidate) and gain (-inf: none), and the number of rows."""

    stops: np.ndarray
    best_position: int
    best_gain: float
    n_rows: int


@njit(cache=True)
def witness_sums(gh, seq, n, A, H):
    """Suffix sums over the rows seq[m:n], for m = 0..n, of (g, h) restricted to the rows
    with a g + b h > 0, per witness direction (a, b) (spread over the circle, scaled by the
    node's sum |g| ``A`` and hessian sum ``H``): shape (WITNESSES, n + 1) each."""
    G_sum, H_sum = np.zeros((WITNESSES, n + 1)), np.zeros((WITNESSES, n + 1))
    for d in range(WITNESSES):
        angle = 2.0 * np.pi * (d + 0.5) / WITNESSES
        a, b = math.cos(angle) / max(A, 1e-300), math.sin(angle) / max(H, 1e-300)
        for p in range(n - 1, -1, -1):
            g, h = gh[seq[p], 0], gh[seq[p], 1]
            take = a * g + b * h > 0.0
            G_sum[d, p] = G_sum[d, p + 1] + (g if take else 0.0)
            H_sum[d, p] = H_sum[d, p + 1] + (h if take else 0.0)
    return G_sum, H_sum


@njit(inline='always')
def _witnessed(G_seen, H_seen, G_sum, H_sum, m, level, cap, params, score):
    """Whether a split "the seen rows and a witness subset of the unseen ones | the rest",
    computed as the engine computes a gain, is admissible by H and gains more than ``cap``."""
    for d in range(G_sum.shape[0]):
        G = G_seen + G_sum[d, m]
        H = H_seen + H_sum[d, m]
        H2 = level.hess[0] - H
        if H < params.min_child_weight or H2 < params.min_child_weight:
            continue
        if score(G, H, params) + score(level.grad[0] - G, H2, params) - level.score[0] > cap:
            return True
    return False


def _node_stops(cols, codes, gh, active, order, features, params):
    """The NodeStops of the node of rows ``active`` (ascending) = ``order`` (weight order),
    split on ``features`` (ascending); see the module docstring.

    Free names bound by ``specialise``: ``score``, ``may_exceed``, ``gain_upper``,
    ``feature_bounds``."""
    F = features.shape[0]
    position = np.full(gh.shape[0], -1, np.int32)
    for p in range(active.shape[0]):
        position[active[p]] = 0
    rows = Rows(gh, position)
    level = level_stats(rows, active, 1, params, score)
    slots = make_slots(order, position, gh, 1)
    n = level.n_rows[0]
    slack_G, slack_H = parent_slack(n, slots.abs_grad[0], level.hess[0])
    if not (level.n_pos[0] >= 2 and level.hess[0] + slack_H >= 2.0 * params.min_child_weight):
        return NodeStops(np.zeros(F, np.int64), -1, -np.inf, n)
    best = make_best(1)
    run = make_running(1, n)
    everywhere = np.ones(1, np.bool_)
    sorted_cols = sorted_columns(cols)
    for j in range(F):
        scan_feature(sorted_cols, rows, features[j], level, run, best, params, score,
                     may_exceed, everywhere)
    stops = np.full(F, n, np.int64)
    if best.feature[0] < 0:
        return NodeStops(stops, -1, -np.inf, n)
    best_position = np.searchsorted(features, best.feature[0])
    cap = record_bar(best.gain[0], level.tie[0])
    parent = Parent(level.grad[0], level.hess[0], level.score[0], slots.abs_grad[0],
                    slack_G, slack_H)
    pending = np.ones(F, np.bool_)
    pending[best_position] = False
    n_pending = F - 1
    G_miss, H_miss = np.zeros(F), np.zeros(F)   # the seen missing rows' sums, per feature
    n_miss = np.zeros(F, np.int64)
    G_seen = H_seen = 0.0
    seq = slots.seq
    G_sum, H_sum = witness_sums(gh, seq, n, slots.abs_grad[0], level.hess[0])
    for m in range(n):
        if n_pending == 0:
            break
        # a witness split proves UB(m) > cap for every feature: nothing to try at m
        if not _witnessed(G_seen, H_seen, G_sum, H_sum, m, level, cap, params, score):
            unseen = unseen_region(gh, seq, m, n, slack_G, slack_H)
            for j in range(F):
                if not pending[j]:
                    continue
                f = features[j]
                both = cols.forward[f] and n_miss[j] > 0
                ends = max(_upper_both(0.0, 0.0, G_miss[j], H_miss[j], both, unseen, parent,
                                       params, gain_upper),
                           _upper_both(G_seen - G_miss[j], H_seen - H_miss[j], G_miss[j],
                                       H_miss[j], both, unseen, parent, params, gain_upper))
                if ends > cap:
                    continue
                ub, _ = feature_bounds(codes[f], Prefix(seq, 0, m), gh, unseen, parent,
                                       cols.forward[f], cap, params)
                if ub <= cap:
                    stops[j] = m
                    pending[j] = False
                    n_pending -= 1
        r = seq[m]
        g, h = gh[r, 0], gh[r, 1]
        G_seen += g
        H_seen += h
        for j in range(F):
            if codes[features[j], r] < 0:
                G_miss[j] += g
                H_miss[j] += h
                n_miss[j] += 1
    return NodeStops(stops, best_position, best.gain[0], n)


def specialise(score, gain_upper, gain_lower, name, cache=False):
    """``_node_stops`` of a criterion, compiled with its jitted ``score`` and gain bounds
    bound as globals (``newton_search.specialise``'s scheme):
    (cols, codes, gh, active, order, features, params) -> NodeStops.  A cached one's name
    carries a hash of the kernels it inlines (numba's cache checks only this file)."""
    name = f"stops_{name}_{_SOURCE_TAG}" if cache else f"stops_{name}"
    names = dict(score=score, gain_upper=gain_upper, may_exceed=may_exceed_of(score),
                 feature_bounds=bind_feature_bounds(gain_upper, gain_lower, name, cache))
    return bind_globals(_node_stops, f"node_{name}", cache, names)


node_stops_newton = specialise(newton_split.newton_score, newton_bounds.newton_gain_upper,
                               newton_bounds.newton_gain_lower, "newton", cache=True)
