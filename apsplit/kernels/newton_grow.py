"""Depthwise growth of a Newton tree, as XGBoost's exact method grows it, and gamma pruning.

``grow`` splits the tree level by level (XGBoost's ``ColMaker``): a level's
open nodes are slots 0..m-1 and every row of an open node carries its slot
(``Rows.position``).  Per level:

1. one pass over the open rows sums each node's (G, H) (``level_stats``); a
   node that cannot split (``newton_bounds.can_split``: fewer than two rows of
   h > 0, or H below 2 min_child_weight beyond the rounding) is not scanned and
   gets no histogram or indicator sums unless its sibling is derived from them
   (30-38% of the scanned nodes of satimage's, pendigits' and agaricus' fits, a probe;
   the fits 0.90-0.94x, 0.93-0.98x, 0.97-0.99x, measured);
2. one ``newton_split.scan_feature`` per candidate feature finds every open
   node's best split at once (one or two passes over the feature's sorted column);
   a categorical feature's, ``newton_categorical.scan_categorical`` (a set of
   codes goes right); a histogram feature's (``Columns.hist_index``: dense, few
   values), ``newton_hist.scan_bins`` on the level's per-node histograms, summed
   by one pass over the rows of each split node's smaller child and derived for
   the other from the previous level's (``newton_hist.accumulate``): the same
   candidates in the same order, features by index whatever their path; a node
   whose best split is on a histogram feature gets its gain recomputed in the
   column's order (``newton_hist.column_order_gains``), the column scan's gain
   to the bit; an indicator feature's (``Columns.indicator_index``: one present
   value), ``newton_indicator.scan_indicators`` on the level's per-node sums of its
   present rows, added from the rows of each split node's smaller child and
   derived for the other (``newton_indicator.level_sums``); at a level of few nodes
   (``newton_coarse.pays``), a coarse feature's (``Columns.coarse_index``: dense,
   many values), ``newton_coarse``'s scan of per-node histograms of its coarse bins,
   summed and derived as the histogram features' are, refined through its column
   only where a bound says the chosen split can lie, and the chosen split's gain
   recomputed in the column's order;
3. a node whose best gain exceeds 1e-6 gets two children, numbered in the
   order of the level's nodes (XGBoost's numbering: a node's children are
   consecutive, left first, and a level's nodes follow the previous level's);
4. the rows move to their child: the rows with a present value of the split
   feature by one pass over that feature's column (x <= threshold goes left;
   a categorical split sends its set right), or, for a histogram feature, by
   the value of the row's code in the pass over the open rows,
   the others (missing) to the default side (``newton_moves.move_rows``, on
   ``Params.n_threads`` threads); the open rows are kept by slot, each slot's
   ascending (``newton_moves.OpenRows``): each split node's rows go to its left
   child's segment, then its right child's, and rows of nodes that became
   leaves leave (``newton_moves.regroup``).

So a level costs O(open rows + stored entries of the candidate features), and
a tree O(depth x entries), whatever the number of nodes.  Before a level, when
the open rows have fallen below 3/4 of the rows the columns hold, the columns
of the candidate features that are neither histogram nor indicator features are
compacted to the open rows' entries (``compact_columns``: the passes then read
fewer entries, and meet the same ones in the same order).  An indicator
feature's scan reads row lists and its moves one column: leaving its column as
built took agaricus' fit to 0.92-0.99x (four ``newton_against`` runs).

Column sampling per level and per node (XGBoost's ``colsample_bylevel`` and
``colsample_bynode``; ``ColumnDraw``): at every level a uniform draw without
replacement of ``per_level`` of the tree's candidate features, then for every
open node of the level (in slot order) a draw of ``per_node`` of the level's
features.  The level scans the union of its nodes' features, and a node's
candidates come only from its own (``scan_feature``'s ``allowed``).  The draws
come from a splitmix64 stream seeded by ``ColumnDraw.seed``, so a tree is
reproducible from it.  Without sampling (``per_level`` and ``per_node`` at
least the number of candidates) nothing is drawn and every node takes every
candidate.

A node becomes a leaf at ``max_depth`` or when no admissible split gains more
than 1e-6.

``prune`` then applies gamma as XGBoost's ``prune`` updater does: a node
whose two children are leaves and whose gain is below gamma becomes a leaf,
repeatedly upward.  Children are numbered after their parent, so one pass in
decreasing node order reaches the fixed point: when a node is visited, its
children's subtrees are final.  (The fixed point is unique: a node is
collapsed exactly when its gain is below gamma and both children are leaves
or are collapsed, a condition on its subtree only.)  ``compact`` renumbers the
remaining nodes, keeping their order.
"""

import hashlib
from pathlib import Path
from types import FunctionType
from typing import NamedTuple

import numpy as np
from numba import njit

from . import (newton_categorical, newton_coarse, newton_hist, newton_indicator, newton_moves,
               newton_parallel, newton_split)
from .newton_categorical import (copy_set, max_categories, new_category_sets,
                                 scan_categorical, store_set)
from .lanes import PRANGE_ONLY
from .newton_bounds import can_split
from .newton_coarse import (_scan_chunk, _scan_coarse_batch, _scan_coarse_lane, no_coarse_scan,
                            pays)
from .newton_coarse import column_order_gains as coarse_column_gains
from .newton_hist import (BinCodes, accumulate, chunk_end, column_order_gains, hist_codes,
                          no_bins, pair_siblings, resum_near, summed_where)
from .newton_indicator import level_sums, no_sums, scan_indicators
from .newton_moves import OpenRows, move_present_rows, move_rows, regroup
from .newton_parallel import (_scan_batch, _scan_bins_batch, _scan_bins_lane, _scan_lane,
                              batch_end, merge_row, merge_slot, new_batch,
                              reset_best, slots_allowed)
from .newton_split import (KRT_EPS, TIE_WINDOW, Columns, Rows, make_best, make_level,
                           may_exceed_of, newton_score, newton_weight)
from .unsigned import u

LEAF = -1


def split_source_tag(*files):
    """A hash of the source of the kernels the grower calls (``newton_split``,
    ``newton_categorical``, ``newton_hist``, ``newton_indicator``, ``newton_parallel``,
    ``newton_moves``, ``newton_coarse``) and of ``files``: the tag in a cached grower's name
    (``specialise``)."""
    paths = (newton_split.__file__, newton_categorical.__file__, newton_hist.__file__,
             newton_indicator.__file__, newton_parallel.__file__, newton_moves.__file__,
             newton_coarse.__file__) + files
    return hashlib.sha1(b"".join(Path(p).read_bytes() for p in paths)).hexdigest()[:12]


_SPLIT_SOURCE_TAG = split_source_tag()

# The criterion of ``_grow`` and its scanners: free names of the templates, bound per
# criterion by ``specialise`` (placeholders here).
score = weight = scan_batch = scan_lane = scan_bins_batch = scan_bins_lane = None
may_exceed = scan_coarse_chunk = None


class Tree(NamedTuple):
    """A grown tree as parallel arrays (node 0 is the root; a leaf has feature == -1)."""

    feature: np.ndarray
    threshold: np.ndarray       # x <= threshold goes left
    left_value: np.ndarray      # the consecutive present values the split separates
    right_value: np.ndarray
    default_left: np.ndarray    # missing values go left
    children_left: np.ndarray
    children_right: np.ndarray
    base_weight: np.ndarray     # w(G, H) of every node
    gain: np.ndarray            # gain of every split (0 at leaves)
    cover: np.ndarray           # H of every node
    sum_grad: np.ndarray        # G of every node
    n_node_samples: np.ndarray  # rows reaching the node
    parent: np.ndarray          # -1 at the root
    node_features: np.ndarray   # candidate features of the node's split search (0: none)
    row_leaf: np.ndarray        # leaf of every row of the data (-1: not in the tree's rows)
    category_start: np.ndarray  # a categorical split's right set: category_codes[start:start
    category_count: np.ndarray  # + count], sorted (start -1: not a categorical split)
    category_codes: np.ndarray


class ColumnDraw(NamedTuple):
    """Features drawn per level and per node (``per_level`` >= the candidates: no draw)."""

    per_level: int   # features of each level, drawn from the tree's candidates
    per_node: int    # features of each node, drawn from its level's
    seed: int        # of the splitmix64 stream (non-negative, below 2**63)


NO_DRAW = ColumnDraw(2 ** 62, 2 ** 62, 0)


@njit(cache=True)
def _next_random(state):
    """splitmix64: the next 64-bit value of the stream held in ``state[0]`` (uint64)."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def draw_features(pool, k, state):
    """k of the sorted features ``pool``, uniformly without replacement (a partial
    Fisher-Yates shuffle; each pick is ``next % remaining``), sorted."""
    out = pool.copy()
    n = out.shape[0]
    for i in range(k):
        j = i + np.int64(_next_random(state) % np.uint64(n - i))
        out[i], out[j] = out[j], out[i]
    return np.sort(out[:k])


@njit(cache=True)
def _new_tree(capacity, n_rows, n_codes):
    return Tree(np.full(capacity, LEAF, np.int64), np.full(capacity, np.nan),
                np.full(capacity, np.nan), np.full(capacity, np.nan),
                np.zeros(capacity, np.bool_), np.full(capacity, LEAF, np.int64),
                np.full(capacity, LEAF, np.int64), np.zeros(capacity), np.zeros(capacity),
                np.zeros(capacity), np.zeros(capacity), np.zeros(capacity, np.int64),
                np.full(capacity, -1, np.int64), np.zeros(capacity, np.int64),
                np.full(n_rows, -1, np.int64), np.full(capacity, -1, np.int64),
                np.zeros(capacity, np.int64), np.empty(n_codes, np.int64))


@njit(cache=True)
def split_threshold(left_value, right_value):
    """The threshold t of a split between two consecutive present values, x <= t going left.

    Two finite values: their midpoint, or the left value if rounding puts the
    midpoint on the right one.  ``right_value`` = +inf (every present row
    left): left_value + (|left_value| + 1e-6); ``left_value`` = -inf (every
    present row right): right_value - (|right_value| + 1e-6): XGBoost's
    thresholds for these splits.
    """
    if right_value == np.inf:
        return left_value + (abs(left_value) + KRT_EPS)
    if left_value == -np.inf:
        return right_value - (abs(right_value) + KRT_EPS)
    t = left_value / 2.0 + right_value / 2.0
    if t >= right_value or not np.isfinite(t):
        t = left_value
    return t


@njit(inline='always')
def level_stats(rows, active, m, params, score):
    """The Level of ``m`` slots: sums over the ``active`` rows (in their order) per slot.

    A run of consecutive rows of one slot (the whole slot when ``active`` is by slot, as
    ``newton_moves.OpenRows`` holds them) is added in registers, from the slot's sums
    so far: the same additions in the same order as slot by slot in memory, without
    each waiting for the previous one's store (fits: satimage 0.87-0.98x, pendigits
    0.96-0.99x, a8a 0.92-0.94x, measured)."""
    level = make_level(m)
    position, gh = rows.position, rows.gh  # arrays out of the tuples once (newton_split._pass)
    grad, hess, n_pos, n_rows = level.grad, level.hess, level.n_pos, level.n_rows
    abs_grad = level.abs_grad
    p = 0
    while p < active.shape[0]:
        s = position[active[p]]
        G, H, A, pos, count = grad[s], hess[s], abs_grad[s], n_pos[s], n_rows[s]
        while p < active.shape[0] and position[active[p]] == s:
            r = u(active[p])  # unsigned: no sign tests
            g = gh[r, 0]
            h = gh[r, 1]
            G += g
            H += h
            A += abs(g)
            pos += h > 0.0
            count += 1
            p += 1
        grad[s], hess[s], abs_grad[s], n_pos[s], n_rows[s] = G, H, A, pos, count
    for s in range(m):
        level.score[s] = score(level.grad[s], level.hess[s], params)
        denominator = level.hess[s] + params.reg_lambda
        if denominator > 0.0:
            level.tie[s] = TIE_WINDOW * abs_grad[s] * abs_grad[s] / denominator
    return level


COMPACT_BELOW = 0.75  # compact the columns when the open rows fall below this share of theirs


@njit(cache=True, inline='always')
def record_split(tree, node, best, s, first_child):
    """Write slot s's best split (``Best``) into ``tree`` at ``node``, its children
    numbered ``first_child`` (left) and ``first_child + 1``."""
    tree.feature[node] = best.feature[s]
    tree.left_value[node] = best.left_value[s]
    tree.right_value[node] = best.right_value[s]
    tree.threshold[node] = split_threshold(best.left_value[s], best.right_value[s])
    tree.default_left[node] = best.default_left[s]
    tree.gain[node] = best.gain[s]
    tree.children_left[node] = first_child
    tree.children_right[node] = first_child + 1
    tree.parent[first_child] = node
    tree.parent[first_child + 1] = node


@njit(cache=True)
def compact_columns(cols, position, features, private):
    """``cols`` keeping only the entries of the open rows (``position`` >= 0) of the
    candidate ``features`` (the other features' ranges left empty), in their order.

    A level's passes skip the other entries anyway (``newton_split._pass``), so the
    candidates, their sums and their order are unchanged; what goes is the cost of
    reading and skipping them, level after level (in a boosting fit, up to a quarter
    of the row visits on satimage and half on pendigits and agaricus are rows in
    finished leaves; with row sampling, the rows not drawn are skipped too).  Branch-free: every entry is
    written at the cursor, which advances for open rows only.  ``private``: the arrays
    are this tree's own copy (from an earlier compaction) and are compacted in place
    (the cursor never passes the entry read); otherwise new arrays are filled.
    """
    if private:
        out_rows, out_values = cols.rows, cols.values
    else:
        out_rows, out_values = np.empty_like(cols.rows), np.empty_like(cols.values)
    indptr = np.zeros_like(cols.indptr)
    col_rows, col_values = cols.rows, cols.values
    k = 0
    j = 0  # the next candidate feature (``features`` is sorted)
    for f in range(indptr.shape[0] - 1):
        if j < features.shape[0] and features[j] == f:
            j += 1
            for e in range(cols.indptr[f], cols.indptr[f + 1]):
                r = col_rows[u(e)]  # unsigned subscripts: no sign tests
                out_rows[u(k)] = r
                out_values[u(k)] = col_values[u(e)]
                k += position[u(r)] >= 0
        indptr[f + 1] = k
    return Columns(indptr, out_rows, out_values, cols.forward, cols.categorical, cols.hist_index,
                   cols.hist_codes, cols.hist_start, cols.hist_values, cols.indicator_index,
                   cols.indicator_value, cols.indicator_indptr, cols.indicator_entries,
                   cols.coarse_index, cols.coarse_codes, cols.coarse_start, cols.coarse_entry)


def _grow(cols, gh, root_rows, features, params, draw):
    """Grow one tree on the rows ``root_rows`` (sorted) and the candidate ``features``
    (sorted): ``cols`` a ``newton_split.Columns``, ``gh`` the (n, 2) array of every
    row's (g, h), ``params`` a ``newton_split.Params``, ``draw`` a ``ColumnDraw``.
    Returns the finished ``Tree``: gamma-pruned (``prune``) and compacted (``compact``).

    The criterion's jitted functions ``score(G, H, params)`` and ``weight(G, H,
    params)`` are free names here, bound as compile-time constants by ``specialise``.
    """
    n_rows = gh.shape[0]
    n_features = cols.indptr.shape[0] - 1
    n_categories = max_categories(cols)  # 0 without categorical features
    # a level's right sets hold at most min(categories, rows) codes per split node
    tree = _new_tree(params.capacity, n_rows,
                     min(params.max_depth * root_rows.shape[0],
                         (params.capacity // 2) * n_categories))
    n_codes = 0
    position = np.full(n_rows, -1, np.int32)
    moved = np.full(n_rows, -1, np.int32)
    open_rows = OpenRows(root_rows.copy(), np.array([0, root_rows.shape[0]], np.int64))
    active = open_rows.rows  # in slot order, each slot's ascending
    for p in range(active.shape[0]):
        position[active[p]] = 0
    slot_node = np.zeros(1, np.int64)
    split_on = np.zeros(n_features, np.bool_)
    n_nodes = 1
    per_level = min(draw.per_level, features.shape[0])
    per_node = min(draw.per_node, per_level)
    by_level = per_level < features.shape[0]
    by_node = per_node < per_level
    state = np.full(1, np.uint64(draw.seed))
    position_in_level = np.zeros(n_features, np.int64)
    node_allowed = np.zeros((1, 1), np.bool_)  # [the feature's place in the level, slot]
    in_cols = n_rows  # the rows whose entries ``cols`` holds
    private = False
    hist_index = cols.hist_index
    hist_source = hist_codes(cols)
    indicator_index = cols.indicator_index
    # the features whose columns a level's scans and moves read (compacted): not those of
    # histograms nor indicators (their scans read codes and row lists; the indicators'
    # moves and recounts read their columns as built, ``full_cols``)
    column_features = features[(hist_index[features] < 0) & (indicator_index[features] < 0)]
    full_cols = cols  # the columns as built: the coarse bins' entries (``newton_coarse``)
    coarse_index = cols.coarse_index
    coarse_source = BinCodes(cols.coarse_codes, coarse_index, cols.coarse_start, True)
    # coarse histograms need the criterion's cheap test on their bins' boxes (no alpha)
    coarse_ok = ((coarse_index[features] >= 0).any() and params.reg_alpha == 0.0
                 and not may_exceed(1.0, 1.0, 1.0, 1.0, 1e99, params))
    parent_coarse_bins = no_bins()
    parent_coarse_features = features[:0]
    use_indicators = (indicator_index[features] >= 0).any()
    sums = no_sums(cols.indicator_value.shape[0])  # the level's indicator sums
    child_slot = np.zeros(0, np.int64)  # the previous level's slots' left child's slot
    # the previous level's sums, and its histograms when one chunk held them all
    parent_level = make_level(0)
    parent_bins = no_bins()
    parent_features = features[:0]
    for depth in range(params.max_depth + 1):
        m = slot_node.shape[0]
        if depth < params.max_depth and column_features.shape[0] > 0 \
                and active.shape[0] < COMPACT_BELOW * in_cols:
            cols = compact_columns(cols, position, column_features, private)
            in_cols = active.shape[0]
            private = True
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
        # the slots that may split: the others are not scanned and get no histograms
        splittable = np.empty(m, np.bool_)
        for s in range(m):
            splittable[s] = can_split(level.n_rows[s], level.n_pos[s], level.hess[s], params)
        if use_indicators:
            sums = level_sums(cols, gh, position, active, level.n_rows, sums, child_slot,
                              splittable)
        best = make_best(m)
        sets = new_category_sets(level.n_rows, n_categories)
        scanned = draw_features(features, per_level, state) if by_level else features
        if by_node:
            for j in range(scanned.shape[0]):
                position_in_level[scanned[j]] = j
            node_allowed = np.zeros((scanned.shape[0], m), np.bool_)
            for s in range(m):
                for f in draw_features(scanned, per_node, state):
                    node_allowed[position_in_level[f], s] = splittable[s]
        for s in range(m):
            tree.node_features[slot_node[s]] = per_node
        # every feature into a best of its own, merged in feature order (newton_parallel):
        # the level's histogram, coarse, column and indicator features in batches (the
        # others, categorical ones, one by one)
        in_histograms = np.zeros(scanned.shape[0], np.bool_)
        is_column = np.zeros(scanned.shape[0], np.bool_)
        in_coarse = np.zeros(scanned.shape[0], np.bool_)
        is_indicator = np.zeros(scanned.shape[0], np.bool_)
        use_coarse = coarse_ok and pays(cols, active.shape[0], m)
        for j in range(scanned.shape[0]):
            if by_node and not node_allowed[j].any():  # no node of the level drew it
                continue
            f = scanned[j]
            in_histograms[j] = hist_index[f] >= 0
            in_coarse[j] = use_coarse and coarse_index[f] >= 0
            is_column[j] = hist_index[f] < 0 and not cols.categorical[f] \
                and indicator_index[f] < 0 and not in_coarse[j]
            is_indicator[j] = indicator_index[f] >= 0  # never histogram nor coarse (NewtonData)
        one = make_best(m)  # a categorical feature's best
        one_sets = new_category_sets(level.n_rows, n_categories)
        batch = new_batch(0, m)  # the bests of the column features before batch_stop
        batch_stop = 0
        row = 0  # the batch's row of the next column feature
        level_bins = no_bins()  # none summed yet (numba needs the variable typed here)
        n_chunks = 0
        end = 0  # the histograms of scanned[:end] have been summed and scanned
        hist_batch = new_batch(0, m)  # their features' bests, in order
        hist_row = 0
        coarse_bins = no_bins()  # the same for the coarse features
        n_coarse_chunks = 0
        coarse_end = 0
        coarse_batch = new_batch(0, m)
        coarse_row = 0
        known = np.full(m, -np.inf)  # the largest coarse boundary gain so far
        in_indicators = np.flatnonzero(is_indicator)  # the indicator features' bests, in order
        indicator_batch = new_batch(in_indicators.shape[0], m)
        if in_indicators.shape[0] > 0:
            scan_indicators(full_cols, rows, sums, scanned[in_indicators], level,
                            indicator_batch, params, score,
                            slots_allowed(node_allowed, in_indicators, splittable, by_node))
        indicator_row = 0
        for j in range(scanned.shape[0]):
            allowed = node_allowed[j] if by_node else splittable
            if by_node and not allowed.any():  # no node of the level drew this feature
                continue
            if is_column[j]:
                if j >= batch_stop:
                    batch_stop = batch_end(is_column, j, m)
                    in_batch = np.flatnonzero(is_column[j:batch_stop]) + j
                    batch = new_batch(in_batch.shape[0], m)
                    scan_batch(cols, rows, scanned[in_batch],
                               slots_allowed(node_allowed, in_batch, splittable, by_node),
                               level, params, batch)
                    row = 0
                merge_row(best, level, batch, row)
                row += 1
                continue
            if in_coarse[j]:
                if j >= coarse_end:
                    coarse_end = chunk_end(coarse_source, scanned, in_coarse, j, m)
                    in_chunk = np.flatnonzero(in_coarse[j:coarse_end]) + j
                    chunk = scanned[in_chunk]
                    siblings = summed_where(splittable)
                    if np.array_equal(parent_coarse_features, chunk):
                        siblings = pair_siblings(parent_coarse_bins, child_slot, parent_level,
                                                 level, params.reg_lambda, splittable)
                    coarse_bins = accumulate(coarse_source, gh, open_rows, chunk,
                                             params.n_threads, siblings)
                    n_coarse_chunks += 1
                    coarse_batch = new_batch(in_chunk.shape[0], m)
                    chunk_allowed = slots_allowed(node_allowed, in_chunk, splittable, by_node)
                    known_before = known.copy()
                    scan_coarse_chunk(full_cols, rows, coarse_bins, known, chunk, chunk_allowed,
                                      level, params, coarse_batch)
                    if coarse_bins.near.any():  # derived, a side near min_child_weight
                        resummed = resum_near(coarse_source, gh, open_rows, coarse_bins,
                                              params.n_threads)
                        known[resummed] = known_before[resummed]
                        scan_coarse_chunk(full_cols, rows, coarse_bins, known, chunk,
                                          chunk_allowed & resummed, level, params, coarse_batch)
                    coarse_row = 0
                merge_row(best, level, coarse_batch, coarse_row)
                coarse_row += 1
                continue
            if in_histograms[j]:
                if j >= end:
                    end = chunk_end(hist_source, scanned, in_histograms, j, m)
                    in_chunk = np.flatnonzero(in_histograms[j:end]) + j
                    chunk = scanned[in_chunk]
                    siblings = summed_where(splittable)
                    if np.array_equal(parent_features, chunk):  # the parent's held these
                        siblings = pair_siblings(parent_bins, child_slot, parent_level, level,
                                                 params.reg_lambda, splittable)
                    level_bins = accumulate(hist_source, gh, open_rows, chunk, params.n_threads,
                                            siblings)
                    n_chunks += 1
                    hist_batch = new_batch(in_chunk.shape[0], m)
                    chunk_allowed = slots_allowed(node_allowed, in_chunk, splittable, by_node)
                    scan_bins_batch(cols, level_bins, chunk, chunk_allowed, level, params,
                                    hist_batch)
                    if level_bins.near.any():  # derived, a side near min_child_weight
                        resummed = resum_near(hist_source, gh, open_rows, level_bins,
                                              params.n_threads)
                        scan_bins_batch(cols, level_bins, chunk, chunk_allowed & resummed, level,
                                        params, hist_batch)
                    hist_row = 0
                merge_row(best, level, hist_batch, hist_row)
                hist_row += 1
                continue
            if is_indicator[j]:
                merge_row(best, level, indicator_batch, indicator_row)
                indicator_row += 1
                continue
            reset_best(one)
            scan_categorical(cols, rows, scanned[j], level, one, params, allowed, one_sets)
            for s in range(m):
                if merge_slot(best, level, one, s):
                    copy_set(sets, one_sets, s)
        column_order_gains(cols, gh, open_rows, level, best, params, score)
        if n_coarse_chunks > 0:
            coarse_scanned = np.zeros(n_features, np.bool_)
            coarse_scanned[scanned[in_coarse]] = True
            coarse_column_gains(cols, position, gh, level, best, coarse_scanned, params, score)
        parent_level = level
        parent_bins = level_bins
        parent_features = level_bins.features if n_chunks == 1 else features[:0]
        parent_coarse_bins = coarse_bins
        parent_coarse_features = coarse_bins.features if n_coarse_chunks == 1 else features[:0]
        child_slot = np.full(m, -1, np.int64)  # the left child's slot; the right one's is next
        n_split = 0
        for s in range(m):
            if best.feature[s] < 0 or not best.gain[s] > KRT_EPS:
                continue
            node = slot_node[s]
            k = best.feature[s]
            record_split(tree, node, best, s, n_nodes)
            if cols.categorical[k]:
                n_codes = store_set(tree, node, sets, s, n_codes)
            n_nodes += 2
            child_slot[s] = 2 * n_split
            n_split += 1
            split_on[k] = True
        if n_split == 0:
            break
        next_slot_node = np.empty(2 * n_split, np.int64)
        for s in range(m):
            if child_slot[s] >= 0:
                node = slot_node[s]
                next_slot_node[child_slot[s]] = tree.children_left[node]
                next_slot_node[child_slot[s] + 1] = tree.children_right[node]
        # every row to its child: missing ones by default, present ones by their value
        split_columns = np.flatnonzero(split_on & (hist_index < 0) & (indicator_index < 0))
        split_indicators = np.flatnonzero(split_on & (indicator_index >= 0))
        split_on[:] = False
        move_rows(tree, cols, open_rows, position, moved, child_slot, slot_node, split_columns,
                  params.n_threads)
        if split_indicators.shape[0] > 0:
            move_present_rows(tree, full_cols, position, moved, child_slot, slot_node,
                              split_indicators, params.n_threads)
        open_rows = regroup(open_rows, position, moved, child_slot)
        active = open_rows.rows
        slot_node = next_slot_node
    for p in range(active.shape[0]):
        r = active[p]
        tree.row_leaf[r] = slot_node[position[r]]
    prune(tree, n_nodes, params.gamma)
    return compact(tree, n_nodes)


@njit(cache=True)
def prune(tree, n_nodes, gamma):
    """Collapse, bottom-up, every split whose children are leaves and whose gain < gamma."""
    for node in range(n_nodes - 1, -1, -1):
        if tree.feature[node] == LEAF:
            continue
        left, right = tree.children_left[node], tree.children_right[node]
        if tree.feature[left] == LEAF and tree.feature[right] == LEAF and tree.gain[node] < gamma:
            tree.feature[node] = LEAF
            tree.threshold[node] = np.nan
            tree.left_value[node] = np.nan
            tree.right_value[node] = np.nan
            tree.default_left[node] = False
            tree.children_left[node] = LEAF
            tree.children_right[node] = LEAF
            tree.gain[node] = 0.0
            tree.category_start[node] = -1
            tree.category_count[node] = 0


@njit(cache=True)
def compact(tree, n_nodes):
    """The tree of the nodes reachable from the root, renumbered in their order; every
    row's leaf mapped to its nearest kept ancestor."""
    reachable = np.zeros(n_nodes, np.bool_)
    reachable[0] = True
    new_id = np.full(n_nodes, -1, np.int64)
    target = np.zeros(n_nodes, np.int64)  # the kept node standing for each node
    count = 0
    n_codes = 0
    for node in range(n_nodes):
        if node > 0:
            reachable[node] = reachable[tree.parent[node]] and tree.feature[tree.parent[node]] != LEAF
        if reachable[node]:
            new_id[node] = count
            target[node] = node
            count += 1
            n_codes += tree.category_count[node]
        else:
            target[node] = target[tree.parent[node]]
    out = _new_tree(count, tree.row_leaf.shape[0], n_codes)
    n_codes = 0
    for node in range(n_nodes):
        i = new_id[node]
        if i < 0:
            continue
        out.feature[i] = tree.feature[node]
        out.threshold[i] = tree.threshold[node]
        out.left_value[i] = tree.left_value[node]
        out.right_value[i] = tree.right_value[node]
        out.default_left[i] = tree.default_left[node]
        if tree.feature[node] != LEAF:
            out.children_left[i] = new_id[tree.children_left[node]]
            out.children_right[i] = new_id[tree.children_right[node]]
        out.base_weight[i] = tree.base_weight[node]
        out.gain[i] = tree.gain[node]
        out.cover[i] = tree.cover[node]
        out.sum_grad[i] = tree.sum_grad[node]
        out.n_node_samples[i] = tree.n_node_samples[node]
        out.node_features[i] = tree.node_features[node]
        out.parent[i] = new_id[tree.parent[node]] if node > 0 else -1
        if tree.category_start[node] >= 0:
            out.category_start[i] = n_codes
            out.category_count[i] = tree.category_count[node]
            for c in range(tree.category_count[node]):
                out.category_codes[n_codes + c] = tree.category_codes[tree.category_start[node] + c]
            n_codes += tree.category_count[node]
    for r in range(tree.row_leaf.shape[0]):
        leaf = tree.row_leaf[r]
        if leaf >= 0:
            out.row_leaf[r] = new_id[target[leaf]]
    return out


def specialise(score, weight, name, cache=False):
    """The tree grower of the criterion (``score``, ``weight``): ``_grow`` compiled with
    the two jitted functions bound as globals, under the name ``grow_<name>``.

    Written once, compiled per criterion (scikit-learn's fused types, by hand): the
    criterion is a compile-time constant, inlined in the scan like a direct call, and
    the compiled grower can be cached on disk (``cache=True``, under its own name: use
    it only for criteria whose code lives in a file, such as the built-in one).
    Passing the functions as run-time arguments instead cost either the cache (numba
    keeps a jitted function argument as a "dynamic global") or, inlining the whole
    grower to avoid that, 40x in speed (measured).

    numba's disk cache checks only the source file of the cached function (this one),
    not the kernels it inlines from ``newton_split``: a cached grower's name carries a
    hash of that file, so that an edited scan is compiled afresh, not loaded stale.
    """
    if cache:
        name = f"{name}_{_SPLIT_SOURCE_TAG}"
    names = {"score": score, "weight": weight, "may_exceed": may_exceed_of(score)}
    names["scan_lane"] = bind_globals(_scan_lane, f"scan_lane_{name}", cache, names)
    names["scan_batch"] = bind_globals(_scan_batch, f"scan_batch_{name}", cache, names,
                                       parallel=True)
    names["scan_bins_lane"] = bind_globals(_scan_bins_lane, f"scan_bins_lane_{name}", cache,
                                           names)
    names["scan_bins_batch"] = bind_globals(_scan_bins_batch, f"scan_bins_batch_{name}", cache,
                                            names, parallel=True)
    if score is newton_score:  # the coarse scan needs the built-in criterion's cheap test
        names["scan_coarse_lane"] = bind_globals(_scan_coarse_lane, f"scan_coarse_lane_{name}",
                                                 cache, names)
        names["scan_coarse_batch"] = bind_globals(_scan_coarse_batch,
                                                  f"scan_coarse_batch_{name}", cache, names,
                                                  parallel=True)
        names["scan_coarse_chunk"] = bind_globals(_scan_chunk, f"scan_coarse_chunk_{name}",
                                                  cache, names)
    else:  # never called (no cheap test: ``coarse_ok`` is False); not compiled for it
        names["scan_coarse_chunk"] = no_coarse_scan
    return bind_globals(_grow, f"grow_{name}", cache, names)


def bind_globals(template, qualname, cache, names, parallel=False):
    """``template`` jitted under ``qualname`` with the free names ``names`` (a dict) bound
    as its globals: compile-time constants of the compiled function (``parallel``: numba's
    ``lanes.PRANGE_ONLY``, for a template with a ``prange``)."""
    fn = FunctionType(template.__code__, {**template.__globals__, **names}, qualname,
                      template.__defaults__, template.__closure__)
    fn.__qualname__ = qualname
    fn.__doc__ = template.__doc__
    return njit(cache=cache, parallel=PRANGE_ONLY if parallel else False)(fn)


grow_newton = specialise(newton_score, newton_weight, "newton", cache=True)
grow_newton.__doc__ = """XGBoost's Newton tree: ``_grow`` with ``newton_score`` and ``newton_weight``.

(cols, gh, root_rows, features, params, draw) -> Tree; see ``_grow``."""
