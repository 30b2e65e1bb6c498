"""``quick`` and ``adaptive`` for Newton trees: bounds from a weight-ordered prefix, then the
exhaustive engine's own scan on the features that can still change the split.

Growth is the exhaustive engine's (``newton_grow``): depthwise, XGBoost's node
numbering, the same level statistics, column draws, split records, gamma
pruning and compaction.  Only the feature scan of a level changes
(``_search_level``):

1. Every open node's rows in *weight order* (``Search.order``: the tree's rows by
   a key per row, computed once per tree; a level's nodes keep that order, as a
   stable partition of their parent's would).
2. The canonical pass: the features in increasing index, each scanned by
   ``newton_split.scan_feature`` exactly as the exhaustive engine scans it, but
   only in the nodes where it can still be recorded.  Feature f is skipped in
   node s when its upper bound gets under the threshold

       T(s, f) = record_bar(max(best(s), max over the node's features g < f of LB(s, g)))

   with best(s) the gain recorded so far in the pass and ``newton_split.record_bar``
   the bar of a gain's cell on the node's tie grid (a gain <= it is in that cell or
   lower).  When T is finite, f is
   bounded on prefixes of the node's rows (``PREFIXES``: ``quick`` the prefix
   holding 0.9 of the node's key total; ``adaptive`` 1/2, 3/4, ... 63/64 of it
   in turn until the bound gets under T): the seen rows sorted by value rank
   give every candidate's seen left part, and ``newton_bounds`` bounds the
   computed gain of every candidate above (UB, abandoned as soon as one
   candidate's bound passes T) and, on candidates that exist and are
   admissible whatever the unseen rows do, below (LB).  The unseen rows'
   polygon (``newton_bounds.unseen_region``) is the same for every feature of
   a node and prefix, and computed once.
3. A categorical feature is scanned by ``newton_categorical.scan_categorical``, as
   the exhaustive engine scans it, and bounded by ``categorical_upper``: the seen
   rows' sums per category (and of the missing rows) are known, the unseen rows'
   categories are not, but an unseen row goes wherever its category goes, so every
   partition's left sums are a subset sum of those items plus a subset sum of the
   unseen rows, a point of the Minkowski sum of the items' segments and the unseen
   rows' polygon (``newton_bounds.items_region``); the gain is convex, so its
   maximum there is at a vertex (``newton_bounds.partition_gain_upper``, with the
   rounding of the scan's right child, which it sums over its own rows).  It has
   no LB (-inf), which loses next to nothing: a scanned feature's best becomes the
   running best when it is in a higher cell, and a skipped one's LB is under its
   UB, under T, so an LB would not raise a later T.

**Why the split is the exhaustive engine's, bit for bit.**  The exhaustive scan
chooses the first candidate, in a fixed order, of the highest cell of the node's
tie grid (``newton_split``'s "Ties").  Leaving out candidates that are not that
one changes nothing: the highest cell and its first candidate stay.  A skipped
feature f holds no such candidate: every computed gain of f is <= UB(f) <= T, so
f's candidates lie in a cell no higher than (a) that of best, a candidate met
before f, or (b) that of LB(g) for an earlier g of the node (scanned or not), at
most the computed gain of one of g's candidates, also met before f; either way
the earlier candidate wins.  Both rest on the bounds holding for the gains *as
computed*, which ``newton_bounds`` proves, rounding included.  The scanned
features are scanned by the exhaustive code on the same level sums, so the
returned split (feature, values, default side, gain) is the exhaustive one.

The scan's order is XGBoost's (a lower feature index wins ties), so features
are bounded in index order, not best first: a feature before the best one is
skipped only if its bound gets under the best *earlier* candidate's gain or LB.

**Assessments** are the (feature, row) pairs looked at, per node and feature
the node may split on: its rows if the feature is scanned there, else the
longest prefix it was bounded on (exhaustive: rows x features).  They are
counted in ``Search.assessments`` for every searched node, gamma-pruned or
not; a node that cannot split (fewer than two rows of h > 0, or H below twice
min_child_weight) costs none.
"""

import hashlib
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from . import newton_bounds, newton_categorical, newton_grow, newton_split
from .newton_bounds import Box, Parent, Unseen, can_split, parent_slack, unseen_region
from .newton_categorical import in_set, max_categories, new_category_sets, scan_categorical
from .newton_grow import (_new_tree, bind_globals, compact, draw_features, level_stats, prune,
                          record_split)
from .newton_split import (KRT_EPS, Rows, make_best, make_running, may_exceed_of,
                           record_bar, scan_feature, sorted_columns)

LEAF = -1
#: each method's prefixes, as shares of a node's key total, assessed in turn
PREFIXES = {"quick": (0.9,), "adaptive": (0.5, 0.75, 0.875, 0.9375, 0.96875, 0.984375)}

_SOURCE_TAG = hashlib.sha1(b"".join(Path(m.__file__).read_bytes() for m in (
    newton_split, newton_categorical, newton_grow, newton_bounds))).hexdigest()[:12]

# free names of the templates, bound per criterion by ``specialise`` (placeholders here;
# ``categorical_upper``, the same for every criterion, is compiled at the end)
score = weight = may_exceed = gain_upper = gain_lower = feature_bounds = search_level = None


class Search(NamedTuple):
    """What the batched search needs besides the exhaustive engine's inputs.

    ``codes[f, row]``: the rank of the row's value among feature f's distinct present
    values (-1: missing); ``value_indptr``/``values``: those distinct values per
    feature, ascending.  ``order``: the tree's rows in weight order; ``key``: every
    row's weight-order key (>= 0).  ``prefixes``: the method's (``PREFIXES``).
    ``assessments``: one int64, the count (output).
    """

    codes: np.ndarray
    value_indptr: np.ndarray
    values: np.ndarray
    order: np.ndarray
    key: np.ndarray
    prefixes: np.ndarray
    assessments: np.ndarray


class Slots(NamedTuple):
    """A level's open rows in weight order, grouped by slot, and each slot's sum |g|."""

    seq: np.ndarray        # slot s's rows are seq[start[s]:start[s + 1]]
    start: np.ndarray
    abs_grad: np.ndarray


@njit(cache=True)
def make_slots(order, position, gh, m):
    """The Slots of a level: ``order`` bucketed by slot, keeping its order (a counting sort)."""
    start = np.zeros(m + 1, np.int64)
    for p in range(order.shape[0]):
        s = position[order[p]]
        if s >= 0:
            start[s + 1] += 1
    for s in range(m):
        start[s + 1] += start[s]
    fill = start[:m].copy()
    seq = np.empty(start[m], np.int64)
    abs_grad = np.zeros(m)
    for p in range(order.shape[0]):
        r = order[p]
        s = position[r]
        if s < 0:
            continue
        seq[fill[s]] = r
        fill[s] += 1
        abs_grad[s] += abs(gh[r, 0])
    return Slots(seq, start, abs_grad)


@njit(cache=True)
def prefix_length(key, seq, lo, n, fraction):
    """The shortest prefix of ``seq[lo:lo + n]`` whose keys reach ``fraction`` of their
    total (at least 1 row; a share of the rows when every key is 0)."""
    total = 0.0
    for p in range(n):
        total += key[seq[lo + p]]
    if not total > 0.0:
        return max(1, int(np.ceil(fraction * n)))
    goal = fraction * total
    run = 0.0
    for p in range(n):
        run += key[seq[lo + p]]
        if run >= goal:
            return p + 1
    return n


class Prefix(NamedTuple):
    """The seen rows of a node: ``seq[lo:lo + m]``."""

    seq: np.ndarray
    lo: int
    m: int


class Seen(NamedTuple):
    """A node's seen rows' totals (present and missing)."""

    G: float
    H: float
    n_pos: int


@njit(inline='always')
def _upper_both(GL, HL, G_miss, H_miss, both, unseen, parent, params, gain_upper):
    """UB of the candidates whose seen left part holds the seen present rows (GL, HL), with the
    seen missing rows (missing left) and, if ``both``, without them (missing right).  The left
    child's H is at least min_child_weight, and so is the right one's (less the slack)."""
    mcw = params.min_child_weight
    ub = -np.inf
    for side in range(2 if both else 1):
        ub = max(ub, gain_upper(GL + (G_miss if side == 0 else 0.0),
                                HL + (H_miss if side == 0 else 0.0), unseen,
                                max(mcw - parent.slack_H, 0.0), parent.H - mcw + parent.slack_H,
                                parent, params))
    return ub


@njit(inline='always')
def _lower_both(GL, HL, pos_L, miss, both, seen, unseen, parent, params, gain_lower):
    """LB of the candidates of seen left part (GL, HL, pos_L) plus the seen missing rows
    ``miss`` = (G, H, n_pos) and, if ``both``, without them: those admissible whatever the
    unseen rows do (-inf if none)."""
    floor = max(params.min_child_weight, 0.0) + parent.slack_H
    lb = -np.inf
    for side in range(2 if both else 1):
        G = GL + (miss[0] if side == 0 else 0.0)
        H = HL + (miss[1] if side == 0 else 0.0)
        pos = pos_L + (miss[2] if side == 0 else 0)
        if pos > 0 and seen.n_pos - pos > 0 and H > floor and seen.H - H > floor:
            box = Box(G + unseen.G_neg - parent.slack_G, G + unseen.G_pos + parent.slack_G,
                      H - parent.slack_H, H + unseen.H + parent.slack_H)
            lb = max(lb, gain_lower(box, parent, params))
    return lb


def _feature_bounds(code, prefix, gh, unseen, parent, forward, cap, params):
    """(UB, LB) of the feature of ``code``'s candidates in a node seen on ``prefix``;
    (inf, -inf) as soon as a candidate's UB exceeds ``cap`` (the feature cannot be skipped).

    The seen present rows sorted by rank give the seen left parts S_0 (empty) ..
    S_k (all): every candidate's seen left part is one of them, with the seen
    missing rows added when missing goes left (the backward pass, always run)
    or not (the forward pass, when ``forward``).  UB is the largest bound over
    them; LB the largest over the candidates between two seen values, which
    the scan enumerates whatever the unseen rows are.  S_0 and S_k come first,
    before the sort: a feature that cannot be skipped often fails there.

    Free names bound by ``specialise``: ``gain_upper``, ``gain_lower``."""
    m = prefix.m
    ranks = np.empty(m, np.int64)
    grads = np.empty(m)
    hesss = np.empty(m)
    k = 0
    G_miss = H_miss = 0.0
    pos_miss = 0
    G_seen = H_seen = 0.0
    n_pos = 0
    for p in range(m):
        r = prefix.seq[prefix.lo + p]
        g = gh[r, 0]
        h = gh[r, 1]
        G_seen += g
        H_seen += h
        n_pos += h > 0.0
        c = code[r]
        if c < 0:
            G_miss += g
            H_miss += h
            pos_miss += h > 0.0
        else:
            ranks[k] = c
            grads[k] = g
            hesss[k] = h
            k += 1
    seen = Seen(G_seen, H_seen, n_pos)
    miss = (G_miss, H_miss, pos_miss)
    both = forward and m - k > 0   # a missing row seen: the two sides of it differ
    for end in range(2):
        GL, HL = (0.0, 0.0) if end == 0 else (G_seen - G_miss, H_seen - H_miss)
        if _upper_both(GL, HL, G_miss, H_miss, both, unseen, parent, params, gain_upper) > cap:
            return np.inf, -np.inf
    by_rank = np.argsort(ranks[:k])
    GL = HL = 0.0
    pos_L = 0
    ub = lb = -np.inf
    t = 0
    while True:
        ub = max(ub, _upper_both(GL, HL, G_miss, H_miss, both, unseen, parent, params,
                                 gain_upper))
        if ub > cap:
            return np.inf, -np.inf
        if 0 < t < k:
            lb = max(lb, _lower_both(GL, HL, pos_L, miss, both, seen, unseen, parent, params,
                                     gain_lower))
        if t == k:
            break
        c = ranks[by_rank[t]]
        while t < k and ranks[by_rank[t]] == c:
            i = by_rank[t]
            GL += grads[i]
            HL += hesss[i]
            pos_L += hesss[i] > 0.0
            t += 1
    return ub, lb


def _categorical_upper(code, n_values, prefix, gh, unseen, parent, params):
    """UB of every partition of the categorical feature of ``code`` (value ranks, -1
    missing; ``n_values`` of them) in a node seen on ``prefix``; its LB is -inf.

    The seen rows' sums per category and of the missing rows are the items; an
    unseen row's category is unknown, but it goes wherever its category goes, so
    every partition's left sums are a subset sum of the items plus a subset sum of
    the unseen rows: a point of ``newton_bounds.items_region``, where
    ``newton_bounds.partition_gain_upper`` bounds the computed gain (module docstring,
    which also says why no LB is needed)."""
    item_G = np.zeros(n_values + 1)     # the last: the missing rows
    item_H = np.zeros(n_values + 1)
    for p in range(prefix.m):
        r = prefix.seq[prefix.lo + p]
        c = code[r]
        i = c if c >= 0 else n_values
        item_G[i] += gh[r, 0]
        item_H[i] += gh[r, 1]
    region = newton_bounds.items_region(unseen, item_G, item_H)
    mcw = params.min_child_weight
    return newton_bounds.partition_gain_upper(region, max(mcw - parent.slack_H, 0.0),
                                              parent.H - mcw + parent.slack_H, parent, params)


def _search_level(cols, rows, level, scanned, allowed, search, params, sets):
    """Every open slot's best split over the features ``scanned`` it may split on
    (``allowed[j, s]``), as ``newton_split.scan_feature`` over all of them finds it
    (a categorical feature: ``newton_categorical.scan_categorical``, its right sets
    kept in ``sets``); see the module docstring.  Adds the level's assessments to
    ``search.assessments``.

    Feature j is bounded in slot s only when the threshold it must get under,
    ``record_bar`` of max(best, earlier LB), is finite, on the prefixes of the method in turn
    (each bound abandoned as soon as one candidate's UB passes the threshold), and
    scanned unless one prefix's UB is under it.  The unseen rows' polygons are
    computed once per slot and prefix.

    Free names bound by ``specialise``: ``score``, ``may_exceed``, ``feature_bounds``."""
    m = level.grad.shape[0]
    sorted_cols = sorted_columns(cols)
    slots = make_slots(search.order, rows.position, rows.gh, m)
    fractions = search.prefixes
    n_stages = fractions.shape[0]
    D = newton_bounds.N_DIRECTIONS
    length = np.zeros((m, n_stages), np.int64)       # the prefixes (0: not computed yet)
    region = np.zeros((m, n_stages, 5))             # their unseen sums (G_pos, G_neg, H)
    vertex = np.zeros((m, n_stages, 2, D))          # and polygons
    parents = []
    splittable = np.zeros(m, np.bool_)
    for s in range(m):
        n = level.n_rows[s]
        slack_G, slack_H = parent_slack(n, slots.abs_grad[s], level.hess[s])
        parents.append(Parent(level.grad[s], level.hess[s], level.score[s], slots.abs_grad[s],
                              slack_G, slack_H))
        splittable[s] = can_split(n, level.n_pos[s], level.hess[s], params)
    best = make_best(m)
    run = make_running(m, level.n_rows.sum())
    earlier = np.full(m, -np.inf)
    scan = np.zeros(m, np.bool_)
    count = 0
    for j in range(scanned.shape[0]):
        f = scanned[j]
        any_scan = False
        for s in range(m):
            scan[s] = False
            if not allowed[j, s]:
                continue
            n = level.n_rows[s]
            if not splittable[s]:
                continue
            cap = record_bar(max(best.gain[s], earlier[s]), level.tie[s])
            seen = 0
            scan[s] = True
            if cap > -np.inf:
                lo = slots.start[s]
                for stage in range(n_stages):
                    if length[s, stage] == 0:
                        p = prefix_length(search.key, slots.seq, lo, n, fractions[stage])
                        length[s, stage] = p
                        u = unseen_region(rows.gh, slots.seq, lo + p, lo + n,
                                          parents[s].slack_G, parents[s].slack_H)
                        region[s, stage, 0], region[s, stage, 1] = u.G_pos, u.G_neg
                        region[s, stage, 2] = u.H
                        vertex[s, stage, 0, :] = u.vertex_G
                        vertex[s, stage, 1, :] = u.vertex_H
                    p = length[s, stage]
                    if p >= n or (stage > 0 and p <= seen):
                        break
                    unseen = Unseen(region[s, stage, 0], region[s, stage, 1],
                                    region[s, stage, 2], vertex[s, stage, 0], vertex[s, stage, 1])
                    prefix = Prefix(slots.seq, lo, p)
                    if cols.categorical[f]:
                        ub = categorical_upper(search.codes[f], search.value_indptr[f + 1]
                                               - search.value_indptr[f], prefix, rows.gh,
                                               unseen, parents[s], params)
                        lb = -np.inf
                    else:
                        ub, lb = feature_bounds(search.codes[f], prefix, rows.gh, unseen,
                                                parents[s], cols.forward[f], cap, params)
                    seen = p
                    earlier[s] = max(earlier[s], lb)
                    if ub <= cap:
                        scan[s] = False
                        break
            count += n if scan[s] else seen
            any_scan = any_scan or scan[s]
        if any_scan and cols.categorical[f]:
            scan_categorical(cols, rows, f, level, best, params, scan, sets)
        elif any_scan:
            scan_feature(sorted_cols, rows, f, level, run, best, params, score, may_exceed,
                         scan)
    search.assessments[0] += count
    return best


def _grow(cols, gh, root_rows, features, params, draw, search):
    """Grow one tree as ``newton_grow._grow`` does, each level's features searched by
    ``search_level`` (the bound ``_search_level``); rows move to their children by
    their value ranks (``search.codes``; a categorical split's set holds the values of
    the ranks sent right).  Returns the finished Tree, gamma-pruned and compacted.

    Free names bound by ``specialise``: ``score``, ``weight``, ``search_level``."""
    n_rows = gh.shape[0]
    n_categories = max_categories(cols)  # 0 without categorical features
    tree = _new_tree(params.capacity, n_rows,  # room for the right sets, as newton_grow's
                     min(params.max_depth * root_rows.shape[0],
                         (params.capacity // 2) * n_categories))
    n_codes = 0
    position = np.full(n_rows, -1, np.int32)
    active = root_rows.copy()
    for p in range(active.shape[0]):
        position[active[p]] = 0
    slot_node = np.zeros(1, np.int64)
    n_nodes = 1
    per_level = min(draw.per_level, features.shape[0])
    per_node = min(draw.per_node, per_level)
    state = np.full(1, np.uint64(draw.seed))
    place = np.zeros(cols.indptr.shape[0] - 1, np.int64)
    for depth in range(params.max_depth + 1):
        m = slot_node.shape[0]
        rows = Rows(gh, position)
        level = level_stats(rows, active, m, params, score)
        for s in range(m):
            node = slot_node[s]
            tree.base_weight[node] = weight(level.grad[s], level.hess[s], params)
            tree.cover[node] = level.hess[s]
            tree.sum_grad[node] = level.grad[s]
            tree.n_node_samples[node] = level.n_rows[s]
        if depth == params.max_depth:
            break
        # the exhaustive engine's draws, in its order (newton_grow._grow)
        scanned = draw_features(features, per_level, state) \
            if per_level < features.shape[0] else features
        if per_node < per_level:
            for j in range(scanned.shape[0]):
                place[scanned[j]] = j
            allowed = np.zeros((scanned.shape[0], m), np.bool_)
            for s in range(m):
                for f in draw_features(scanned, per_node, state):
                    allowed[place[f], s] = True
        else:
            allowed = np.ones((scanned.shape[0], m), np.bool_)
        for s in range(m):
            tree.node_features[slot_node[s]] = per_node
        sets = new_category_sets(level.n_rows, n_categories)
        best = search_level(cols, rows, level, scanned, allowed, search, params, sets)
        child_slot = np.full(m, -1, np.int64)   # the left child's slot; the right one's is next
        cut = np.zeros(m, np.int64)             # the rank of the split's left value
        n_split = 0
        for s in range(m):
            if best.feature[s] < 0 or not best.gain[s] > KRT_EPS:
                continue
            node = slot_node[s]
            k = best.feature[s]
            record_split(tree, node, best, s, n_nodes)
            n_nodes += 2
            if cols.categorical[k]:
                n_codes = newton_categorical.store_set(tree, node, sets, s, n_codes)
            else:
                lo, hi = search.value_indptr[k], search.value_indptr[k + 1]
                cut[s] = np.searchsorted(search.values[lo:hi], best.left_value[s]) \
                    if best.left_value[s] > -np.inf else -1
            child_slot[s] = 2 * n_split
            n_split += 1
        if n_split == 0:
            break
        next_slot_node = np.empty(2 * n_split, np.int64)
        for s in range(m):
            if child_slot[s] >= 0:
                next_slot_node[child_slot[s]] = tree.children_left[slot_node[s]]
                next_slot_node[child_slot[s] + 1] = tree.children_right[slot_node[s]]
        kept = 0  # every row to its child: by its value's rank, a missing one by default
        for p in range(active.shape[0]):
            r = active[p]
            s = position[r]
            node = slot_node[s]
            if child_slot[s] < 0:
                tree.row_leaf[r] = node
                position[r] = -1
                continue
            k = tree.feature[node]
            c = search.codes[k, r]
            if c < 0:
                left = tree.default_left[node]
            elif tree.category_start[node] >= 0:
                left = not in_set(tree.category_codes, tree.category_start[node],
                                  tree.category_count[node],
                                  search.values[search.value_indptr[k] + c])
            else:
                left = c <= cut[s]
            position[r] = child_slot[s] + (0 if left else 1)
            active[kept] = r
            kept += 1
        active = active[:kept]
        slot_node = next_slot_node
    for p in range(active.shape[0]):
        r = active[p]
        tree.row_leaf[r] = slot_node[position[r]]
    prune(tree, n_nodes, params.gamma)
    return compact(tree, n_nodes)


def bind_feature_bounds(gain_upper, gain_lower, name, cache=False):
    """``_feature_bounds`` compiled with a criterion's gain bounds bound as globals:
    (code, prefix, gh, unseen, parent, forward, cap, params) -> (UB, LB)."""
    return bind_globals(_feature_bounds, f"bounds_{name}", cache,
                        {"gain_upper": gain_upper, "gain_lower": gain_lower})


def specialise(score, weight, gain_upper, gain_lower, name, cache=False):
    """The batched tree grower of a criterion, compiled with its jitted ``score``,
    ``weight`` and gain bounds bound as globals (``newton_grow.specialise``'s scheme;
    a cached grower's name carries a hash of the kernels it inlines)."""
    if cache:
        name = f"{name}_{_SOURCE_TAG}"
    names = dict(score=score, weight=weight, may_exceed=may_exceed_of(score),
                 feature_bounds=bind_feature_bounds(gain_upper, gain_lower, name, cache))
    names["search_level"] = bind_globals(_search_level, f"search_{name}", cache, names)
    return bind_globals(_grow, f"grow_batched_{name}", cache, names)


def user_gain_bounds(score_bounds, name, cache=False):
    """(gain_upper, gain_lower) of a user's criterion from its jitted ``score_bounds``
    (``cache``: kept on disk, for a ``name`` that tells apart the criterion's code)."""
    return tuple(bind_globals(fn, f"{fn.__name__}_{name}", cache,
                              {"score_bounds": score_bounds})
                 for fn in (newton_bounds.user_gain_upper, newton_bounds.user_gain_lower))


# under a name carrying the kernels' hash, as ``specialise``'s: a cached copy of the bounds
# it calls is never stale
categorical_upper = bind_globals(_categorical_upper, f"categorical_upper_{_SOURCE_TAG}", True,
                                 {})

grow_batched_newton = specialise(newton_split.newton_score, newton_split.newton_weight,
                                 newton_bounds.newton_gain_upper,
                                 newton_bounds.newton_gain_lower, "newton", cache=True)
