"""Growing a tree in one call, and routing rows down a fitted tree.

``grow`` is the tree builder of the built-in finders: it splits the nodes
depth-first (left child first), one ``search.search`` per node, and keeps
each node's rows as a contiguous segment of two arrays, one in index order
and, for the batched finders (quick, adaptive), one in weight order; a
child's segments are stable partitions of its parent's, so neither is ever
sorted again.  The children of a node at depth ``max_depth`` - 1 are leaves:
its rows stay in place, and one pass gives each its leaf and sums the leaves'
class weights (``_split_into_leaves``).  A node's class weights are summed in
index order, whatever the finder, so every finder's tree holds the same values.
The tree it returns is flat parallel arrays (``apsplit.tree.Tree``).

``apply_rows`` gives the leaf of every row of the binned Dataset (codes) or
of raw X (values): a walk from the root per row.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from . import coarse as cs
from .search import EXHAUSTIVE, run, run_exhaustive
from .sort import bisect_left, bisect_right
from .state import Task
from .stats import candidate_slots, class_totals, flagged, unit_factors
from .unsigned import u

LEAF = -1


class Grown(NamedTuple):
    """A tree as ``grow`` returns it: per node (depth first, a node's children
    consecutive, left first), and the leaf of every row."""

    feature: np.ndarray          # split column, LEAF at leaves
    threshold: np.ndarray        # numeric split: x <= threshold goes left (NaN otherwise)
    left_rank: np.ndarray        # numeric split: code <= left_rank goes left (-1 otherwise)
    left_value: np.ndarray       # numeric split: the training values of ranks left_rank
    right_value: np.ndarray      # and left_rank + 1, either side of threshold (NaN otherwise)
    children_left: np.ndarray
    children_right: np.ndarray
    value: np.ndarray            # (nodes, C) class weights
    n_node_samples: np.ndarray
    node_assessments: np.ndarray
    cat_start: np.ndarray        # a categorical split's codes going left are
    cat_end: np.ndarray          # cat_codes[cat_start[node]:cat_end[node]]
    cat_codes: np.ndarray
    leaf_of: np.ndarray          # per row of X: its leaf, -1 for rows not in the root


class Cut(NamedTuple):
    """A chosen split as the rows test it."""

    feature: int            # column k
    left_rank: int          # code <= left_rank goes left; -1: categorical
    cat_mask: np.ndarray    # categorical: per code, 1 if it goes left
    rowcode: np.ndarray     # sparse: per row, its stored code of column k (-1 elsewhere)


class Walk(NamedTuple):
    """A fitted tree as ``apply_rows`` walks it, per node."""

    feature: np.ndarray         # split column, LEAF at leaves
    cut: np.ndarray             # x <= cut goes left (thresholds, or left ranks for codes)
    is_categorical: np.ndarray  # bool: a categorical split
    children_left: np.ndarray
    children_right: np.ndarray
    cat_start: np.ndarray       # its values going left: sorted cat_items[cat_start:cat_end]
    cat_end: np.ndarray
    cat_items: np.ndarray


class RowValues(NamedTuple):
    """The rows to route: x of feature k in row i is ``dense[k, i]`` (``feature_major``)
    or ``dense[i, k]``, or, when ``dense`` is empty, its CSR entry (sorted indices),
    ``absent[k]`` if none."""

    dense: np.ndarray
    feature_major: bool
    indptr: np.ndarray
    indices: np.ndarray
    entries: np.ndarray
    absent: np.ndarray
    n_rows: int


class Prefilter(NamedTuple):
    """The nodes' coarse histograms (``grow``): inputs and a pool of slots."""

    coarse: cs.CoarseBins
    slot: np.ndarray        # candidate position of every column (``candidate_slots``)
    pool: list              # NodeHistograms, one per slot
    free: list              # the free slots
    slot_of: np.ndarray     # per tree node: its histogram's slot, -1 if none


@njit(cache=True)
def threshold_of(values, off, n_bins, left_rank, right_rank):
    """(t, r): the midpoint t of two consecutive distinct values of a feature and the
    rank r of the largest value <= t, so that ``x <= t`` and ``code <= r`` select
    the same rows.  If rounding puts the midpoint on the right value, the left
    value is used (the split still separates the two values)."""
    lo = values[off + left_rank]
    hi = values[off + right_rank]
    t = lo / 2.0 + hi / 2.0
    if t >= hi or not np.isfinite(t):
        t = lo
    return t, bisect_right(values, off, off + n_bins, t) - off - 1


@njit(cache=True)
def _marks(data, seg, cut):
    """Per row of ``seg``, 1 if ``cut`` sends it right, else 0: a sparse cut (code > its
    left rank r, the implicit zero's code its ``zero_rank``) or a categorical one (code
    not in its ``cat_mask``).  A dense numeric cut's rows are tested in the pass
    (``_partition``, ``_split_into_leaves``)."""
    is_sparse, codes, zero_rank = data.is_sparse, data.codes, data.zero_rank
    k, r, cat_mask, rowcode = cut.feature, cut.left_rank, cut.cat_mask, cut.rowcode
    n = seg.shape[0]
    right = np.empty(n, np.uint8)
    if is_sparse:
        for p in range(n):
            code = rowcode[u(seg[p])]
            right[p] = (code if code >= 0 else zero_rank[k]) > r
    else:
        for p in range(n):
            right[p] = cat_mask[codes[k, u(seg[p])]] == 0
    return right


@njit(cache=True, inline='always')
def _add_to_side(sums, side, second, weight, unit):
    """Two classes: the (left 0, left 1, right 0, right 1) class weights ``sums`` with a
    row's ``weight`` added to its (``side``, class: ``second`` 0/1) and 0.0 to the three
    others: in registers and without a branch (``stats.flagged``), the same sums bit for
    bit as adding it to its own only (``stats.two_class_totals``' rule, for two sides)."""
    l0, l1, r0, r1 = sums
    right = flagged(weight, side, unit)
    left = weight - right
    left_1 = flagged(left, second, unit)
    right_1 = flagged(right, second, unit)
    return l0 + (left - left_1), l1 + left_1, r0 + (right - right_1), r1 + right_1


@njit(cache=True)
def _partition(seg, spare, column, rank, marks, w, y):
    """Stable partition of the rows ``seg``, those going left first: a row goes right
    if ``column[i] > rank`` (i its number in X), or, when ``marks`` is given (not None),
    if ``marks[p]`` (p its place in ``seg``).  Returns (the left count, the two sides'
    two-class sums, ``_add_to_side``, in the rows' order: when ``w`` is given).  The
    None arguments are known when numba compiles, so each variant's loop holds its
    test and sums only.  Each row is placed without a branch on its side."""
    sums = (0.0, 0.0, 0.0, 0.0)
    unit = unit_factors()
    n_left = 0
    n_right = 0
    for p in range(seg.shape[0]):
        i = seg[p]
        if marks is None:
            side = np.intp(column[u(i)] > rank)
        else:
            side = np.intp(marks[p])
        seg[n_left] = i  # n_left <= p: row p is read already
        spare[n_right] = i
        n_left += 1 - side
        n_right += side
        if w is not None:
            sums = _add_to_side(sums, side, np.intp(y[u(i)] != 0), w[u(i)], unit)
    seg[n_left:] = spare[:n_right]
    return n_left, sums


@njit(cache=True)
def _partition_by(data, seg, cut, spare, w, y):
    """``_partition`` of the rows ``seg`` by ``cut``: code <= its left rank r goes left
    (a dense numeric cut: tested in the pass), or, when r < 0, code in its
    ``cat_mask`` (``_marks``); ``w`` None: without the sums."""
    if not data.is_sparse and cut.left_rank >= 0:
        return _partition(seg, spare, data.codes[cut.feature], cut.left_rank, None, w, y)
    return _partition(seg, spare, np.empty(0, data.codes.dtype), 0, _marks(data, seg, cut),
                      w, y)


@njit(cache=True)
def _split_rows(data, seg, cut, spare, w, y, left_value, right_value):
    """Stable partition of the rows ``seg`` by ``cut`` (``_partition_by``), those going
    left first; returns their count.  With ``left_value`` non-empty, the class weights
    of both sides are summed into ``left_value`` and ``right_value``: ``class_totals``
    of each side, bit for bit, since a stable partition keeps the rows' order (two
    classes: as the rows are placed)."""
    C = left_value.shape[0]
    if C == 2:
        n_left, sums = _partition_by(data, seg, cut, spare, w, y)
        left_value[0], left_value[1], right_value[0], right_value[1] = sums
        return n_left
    n_left, _ = _partition_by(data, seg, cut, spare, None, y)
    if C > 0:  # each side's rows are in the order they had
        left_value[:] = class_totals(seg[:n_left], w, y, C)
        right_value[:] = class_totals(seg[n_left:], w, y, C)
    return n_left


@njit(cache=True)
def _split_into_leaves(data, seg, cut, w, y, left, leaf_of, value):
    """Split the rows ``seg`` by ``cut`` into two leaves, ``left`` and its right sibling
    ``left`` + 1, without moving them: each row's leaf goes to ``leaf_of`` and each
    leaf's class weights to ``value``; returns the left leaf's row count.  The sums are
    ``_split_rows``'s bit for bit: each (side, class) sum adds the same weights in
    the same order, the rows' order, which a stable partition keeps."""
    if not data.is_sparse and cut.left_rank >= 0:
        return _leaves(seg, data.codes[cut.feature], cut.left_rank, None, w, y, left, leaf_of,
                       value)
    return _leaves(seg, np.empty(0, data.codes.dtype), 0, _marks(data, seg, cut), w, y, left,
                   leaf_of, value)


@njit(cache=True)
def _leaves(seg, column, rank, marks, w, y, left, leaf_of, value):
    """``_split_into_leaves``, a row's side found as ``_partition`` finds it."""
    two_classes = value.shape[1] == 2
    sums = (0.0, 0.0, 0.0, 0.0)
    unit = unit_factors()
    n_left = 0
    for p in range(seg.shape[0]):
        i = u(seg[p])
        if marks is None:
            side = np.intp(column[i] > rank)
        else:
            side = np.intp(marks[p])
        leaf_of[i] = left + side
        n_left += 1 - side
        if two_classes:
            sums = _add_to_side(sums, side, np.intp(y[i] != 0), w[i], unit)
        else:
            value[left + side, u(y[i])] += w[i]
    if two_classes:
        value[left, 0], value[left, 1], value[left + 1, 0], value[left + 1, 1] = sums
    return n_left


@njit(cache=True)
def _build_histogram(prefilter, data, task, rows, totals, hist, n_threads):
    """The coarse histogram of ``rows`` (of ``task``'s candidates; ``totals`` their class
    totals) in ``hist`` (dense: on ``n_threads`` threads)."""
    if data.is_sparse:
        cs.build_sparse(prefilter.coarse, data, task.feats, prefilter.slot, rows, task.w, task.y,
                        totals, hist)
    else:
        cs.build_dense(prefilter.coarse, task.feats, rows, task.w, task.y, totals, hist, n_threads)


@njit(cache=True)
def grow(method, params, max_depth, data, work, values, task, coarse):
    """Grow a tree of depth at most ``max_depth`` from the root's ``task`` (its rows
    ``order``: positive weights, decreasing weight order; ``index_order``: sorted),
    one search per node (``search.run`` by ``method`` with its ``params``).

    Nodes keep coarse histograms (``coarse``, the Dataset's ``coarse_bins``) in a
    pool of ``max_depth`` + 1 slots (at most 8: a node without a free one sums its
    own): a node's is summed from its rows where none was made for it (the root), a
    split node's smaller child's is summed from its rows, the larger child's is the
    parent's minus it, in the parent's slot.  They serve the exhaustive search's
    prefilter (``search.run_exhaustive``) where it pays (``coarse.pays``), and, when
    a feature is two-level, they are its canonical coarse sums at every node, whatever
    the finder (``Task.coarse_sums``, ``stats``): so every node of a tree with a
    two-level feature keeps one while slots are free, every finder alike, and the trees
    are the same bit for bit whatever the finder and the prefilter.

    A node is a leaf at ``max_depth``, when it holds fewer than two rows (or
    fewer than 2 ``min_leaf``: each child must keep ``min_leaf`` rows), when
    one class holds all its weight, or when the search finds no split.
    Returns the tree as a ``Grown``.
    """
    is_sparse, bin_offsets, categorical = data.is_sparse, data.bin_offsets, data.categorical
    csc_indptr, csc_rows, csc_codes = data.csc_indptr, data.csc_rows, data.csc_codes
    w, y, feats, min_leaf = task.w, task.y, task.feats, task.min_leaf
    n = task.order.shape[0]
    C = task.n_classes
    cap = 2 * n - 1
    if max_depth < 30:
        cap = min(cap, 2 ** (max_depth + 1) - 1)
    feature = np.full(cap, LEAF, np.int64)
    threshold = np.full(cap, np.nan)
    left_rank = np.full(cap, -1, np.int64)
    left_value = np.full(cap, np.nan)
    right_value = np.full(cap, np.nan)
    children_left = np.full(cap, LEAF, np.int64)
    children_right = np.full(cap, LEAF, np.int64)
    value = np.zeros((cap, C))
    n_samples = np.zeros(cap, np.int64)
    assessments = np.zeros(cap, np.int64)
    cat_start = np.zeros(cap, np.int64)
    cat_end = np.zeros(cap, np.int64)
    cat_codes = np.empty(16, np.int64)
    n_cat_codes = 0
    by_weight = task.order.copy() if method != EXHAUSTIVE else task.order
    by_index = task.index_order.copy()
    n_rows = data.csr_indptr.shape[0] - 1 if is_sparse else data.codes.shape[1]
    spare = np.empty(n, np.int64)
    rowcode = np.full(n_rows if is_sparse else 0, -1, np.int64)
    no_mask = np.zeros(0, np.uint8)
    no_values = np.zeros(0)
    stack = np.empty((cap, 4), np.int64)  # node, start, end, depth
    segment = np.zeros((cap, 2), np.int64)  # each stacked node's rows: by_index[start:end]
    leaf_of = np.full(n_rows, -1, np.int64)
    value[0] = class_totals(by_index, w, y, C)
    n_samples[0] = n
    tracked = False  # two-level features: their canonical coarse sums follow the tree
    for k in range(data.two_level.shape[0]):
        tracked = tracked or data.two_level[k] != 0
    n_slots = min(max_depth + 1, 8) if method == EXHAUSTIVE or tracked else 0
    no_sums = np.zeros((0, C))
    pre = Prefilter(coarse, candidate_slots(feats, bin_offsets.shape[0] - 1),
                    [cs.new_histogram(coarse, C) for _ in range(n_slots)], list(range(n_slots)),
                    np.full(cap, -1, np.int64))
    free, slot_of = pre.free, pre.slot_of
    n_nodes = 1
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, 0, n, 0
    top = 1
    while top > 0:
        top -= 1
        node, start, end, depth = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        segment[node, 0] = start
        segment[node, 1] = end
        classes = 0
        for c in range(C):
            if value[node, c] > 0.0:
                classes += 1
        if depth >= max_depth or end - start < max(2, 2 * min_leaf) or classes < 2:
            if slot_of[node] >= 0:
                free.append(slot_of[node])
            continue
        seg_w = by_weight[start:end]
        seg_i = by_index[start:end]
        prefilter = method == EXHAUSTIVE and cs.pays(coarse, bin_offsets, feats, end - start, C)
        if (tracked or prefilter) and slot_of[node] < 0 and len(free) > 0:
            slot_of[node] = free.pop()
            _build_histogram(pre, data, task, seg_i, value[node], pre.pool[slot_of[node]],
                             params.n_threads)
        elif not (tracked or prefilter) and slot_of[node] >= 0:
            free.append(slot_of[node])  # nor will it below: the plain search from here down
            slot_of[node] = -1
        kept = slot_of[node] >= 0
        # the exhaustive search reads no weight order: its rows' order is the index order
        here = Task(seg_i if method == EXHAUSTIVE else seg_w, seg_i, w, y, C, feats, task.crit,
                    task.bounds, min_leaf, pre.pool[slot_of[node]].weights if kept else no_sums,
                    coarse.offsets, value[node])
        if prefilter:
            found = run_exhaustive(params, data, work, here, coarse,
                                   pre.pool[slot_of[node]] if kept else cs.new_histogram(coarse, C),
                                   kept, value[node])
        else:
            found = run(method, params, data, work, here)
        assessments[node] = found.assessments
        if found.position < 0:
            if slot_of[node] >= 0:
                free.append(slot_of[node])
            continue
        k = feats[found.position]
        off = bin_offsets[k]
        n_bins = bin_offsets[k + 1] - off
        left_codes = found.left_codes
        cat_mask = no_mask
        r = -1
        if categorical[k]:
            cat_mask = np.zeros(n_bins, np.uint8)
            if n_cat_codes + left_codes.shape[0] > cat_codes.shape[0]:
                grown = np.empty(2 * (n_cat_codes + left_codes.shape[0]), np.int64)
                grown[:n_cat_codes] = cat_codes[:n_cat_codes]
                cat_codes = grown
            cat_start[node] = n_cat_codes
            for j in range(left_codes.shape[0]):
                cat_mask[left_codes[j]] = 1
                cat_codes[n_cat_codes] = left_codes[j]
                n_cat_codes += 1
            cat_end[node] = n_cat_codes
        else:
            t, r = threshold_of(values, off, n_bins, found.left_rank, found.right_rank)
            threshold[node] = t
            left_rank[node] = r
            left_value[node] = values[off + r]
            right_value[node] = values[off + r + 1]  # r < n_bins - 1: a value exceeds t
        left, right = n_nodes, n_nodes + 1
        n_nodes += 2
        if is_sparse:
            for e in range(csc_indptr[k], csc_indptr[k + 1]):
                rowcode[u(csc_rows[e])] = csc_codes[e]
        cut = Cut(k, r, cat_mask, rowcode)
        searched = depth + 1 < max_depth
        if searched:
            n_left = _split_rows(data, seg_i, cut, spare, w, y, value[left], value[right])
            if method != EXHAUSTIVE:  # the children's batches
                _split_rows(data, seg_w, cut, spare, w, y, no_values, no_values)
        else:
            n_left = _split_into_leaves(data, seg_i, cut, w, y, left, leaf_of, value)
        if is_sparse:
            for e in range(csc_indptr[k], csc_indptr[k + 1]):
                rowcode[u(csc_rows[e])] = -1
        if slot_of[node] >= 0:
            _children_histograms(pre, data, task, seg_i, n_left, node, left, right, searched,
                                 value, params.n_threads)
        feature[node] = k
        children_left[node] = left
        children_right[node] = right
        n_samples[left] = n_left
        n_samples[right] = end - start - n_left
        if searched:
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = right, start + n_left, end, depth + 1
            stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3] = left, start, start + n_left, depth + 1
            top += 2
    for node in range(n_nodes):  # stacked leaves (``_split_into_leaves`` set the others')
        if feature[node] == LEAF:
            for p in range(segment[node, 0], segment[node, 1]):
                leaf_of[u(by_index[p])] = node
    return Grown(feature[:n_nodes], threshold[:n_nodes], left_rank[:n_nodes],
                 left_value[:n_nodes], right_value[:n_nodes], children_left[:n_nodes],
                 children_right[:n_nodes], value[:n_nodes], n_samples[:n_nodes],
                 assessments[:n_nodes], cat_start[:n_nodes], cat_end[:n_nodes],
                 cat_codes[:n_cat_codes], leaf_of)


@njit(cache=True)
def _children_histograms(pre, data, task, seg_i, n_left, node, left, right, searched, value,
                         n_threads):
    """Give a split node's children their histograms (the smaller's summed from its
    rows ``seg_i``, the larger's by subtraction in the node's slot), if they will be
    searched and a slot is free; else free the node's slot.  ``value``: the nodes'
    class totals."""
    free, slot_of = pre.free, pre.slot_of
    parent = slot_of[node]
    if not searched or len(free) == 0:
        free.append(parent)
        return
    small = free.pop()
    left_smaller = 2 * n_left <= seg_i.shape[0]
    rows = seg_i[:n_left] if left_smaller else seg_i[n_left:]
    _build_histogram(pre, data, task, rows, value[left] if left_smaller else value[right],
                     pre.pool[small], n_threads)
    parent_weight = 0.0
    for c in range(value.shape[1]):
        parent_weight += value[node, c]
    cs.subtract(pre.coarse, task.feats, pre.pool[parent], pre.pool[small], parent_weight)
    slot_of[left], slot_of[right] = (small, parent) if left_smaller else (parent, small)


@njit(cache=True, _nrt=False)
def _sparse_entry(csr_indptr, csr_features, i, k):
    """Position of column k in row i of a CSR matrix with sorted indices, or -1."""
    e = bisect_left(csr_features, csr_indptr[i], csr_indptr[i + 1], k)
    return e if e < csr_indptr[i + 1] and csr_features[e] == k else -1


@njit(cache=True, _nrt=False)
def _among(items, start, end, x):
    """x is one of the sorted items[start:end]."""
    j = bisect_left(items, start, end, x)
    return j < end and items[j] == x


@njit(cache=True)
def apply_rows(walk, rows):
    """Leaf id of every row of ``rows`` (a ``RowValues``), walking the tree ``walk`` from
    the root.

    x <= cut[node] goes left; at a categorical node, x among the sorted
    cat_items[cat_start:cat_end] goes left.  Codes of the binned Dataset (cut:
    left ranks, absent: the zero's rank) and raw values (cut: thresholds,
    absent: 0) both walk here.
    """
    feature, cut, is_categorical, children_left, children_right, cat_start, cat_end, cat_items = walk
    dense, feature_major, indptr, indices, entries, absent, n_rows = rows
    has_dense = dense.shape[0] > 0
    out = np.empty(n_rows, np.int64)
    for i in range(n_rows):
        node = 0
        while feature[node] != LEAF:
            k = feature[node]
            if has_dense:
                x = np.float64(dense[k, i] if feature_major else dense[i, k])
            else:
                e = _sparse_entry(indptr, indices, i, k)
                x = np.float64(entries[e]) if e >= 0 else absent[k]
            if is_categorical[node]:
                left = _among(cat_items, cat_start[node], cat_end[node], x)
            else:
                left = x <= cut[node]
            node = children_left[node] if left else children_right[node]
        out[i] = node
    return out
