"""Growing a tree in one call, and routing rows down a fitted tree.

``grow`` is the tree builder of the built-in finders: it splits the nodes
depth-first (left child first), one ``search.search`` per node, and keeps
each node's rows as a contiguous segment of two arrays, one in weight order
and one in index order; a child's segments are stable partitions of its
parent's, so neither is ever sorted again.  The tree it
returns is flat parallel arrays (``apsplit.tree.Tree``).

``apply_rows`` gives the leaf of every row of the binned Dataset (codes) or
of raw X (values): a walk from the root per row.
"""

import numpy as np
from numba import njit

from . import coarse as cs
from .search import EXHAUSTIVE, run, run_exhaustive
from .sort import bisect_left, bisect_right
from .stats import candidate_slots, sorted_rows

LEAF = -1


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
def _class_weights(rows, w, y, out):
    for c in range(out.shape[0]):
        out[c] = 0.0
    for p in range(rows.shape[0]):
        out[y[rows[p]]] += w[rows[p]]


@njit(cache=True)
def _split_rows(seg, k, r, cat_mask, is_sparse, codes, zero_rank, rowcode, spare, w, y,
                left_value, right_value):
    """Stable partition of the rows ``seg``: those going left (code <= r, or, when
    r < 0, code in ``cat_mask``) first; returns their count.  Sparse:
    ``rowcode`` holds the codes of column k's stored entries (-1 elsewhere).
    With ``left_value`` non-empty, the class weights of both sides are summed
    into ``left_value`` and ``right_value`` (in the rows' order)."""
    values = left_value.shape[0] > 0
    n_left = 0
    n_right = 0
    for p in range(seg.shape[0]):
        i = seg[p]
        if is_sparse:
            code = rowcode[i]
            goes_left = (code if code >= 0 else zero_rank[k]) <= r
        elif r < 0:
            goes_left = cat_mask[codes[k, i]] != 0
        else:
            goes_left = codes[k, i] <= r
        if goes_left:
            seg[n_left] = i
            n_left += 1
            if values:
                left_value[y[i]] += w[i]
        else:
            spare[n_right] = i
            n_right += 1
            if values:
                right_value[y[i]] += w[i]
    seg[n_left:] = spare[:n_right]
    return n_left


@njit(cache=True)
def _build_histogram(coarse, feats, slot, rows, w, y, data, hist):
    if data[0]:
        cs.build_sparse(coarse, feats, slot, rows, w, y, data[7], data[8], hist)
    else:
        cs.build_dense(coarse, feats, rows, w, y, hist)


@njit(cache=True)
def grow(method, params, max_depth, data, work, values, order, w, y, n_classes, feats, crit,
         bounds, min_leaf, coarse):
    """Grow a tree of depth at most ``max_depth`` from the root's rows ``order``
    (positive weights, decreasing weight order), one search per node.

    The exhaustive search is prefiltered by coarse histograms (``coarse``, the
    Dataset's ``coarse_bins``; ``search.run_exhaustive``): a split node's
    smaller child's is summed from its rows, the larger child's is the
    parent's minus it, in the parent's slot of a pool of ``max_depth`` + 1
    (at most 8: deeper pending nodes sum their own).

    A node is a leaf at ``max_depth``, when it holds fewer than two rows (or
    fewer than 2 ``min_leaf``: each child must keep ``min_leaf`` rows), when
    one class holds all its weight, or when the search finds no split.
    Returns the tree's arrays: feature, threshold, left_rank, children_left,
    children_right, value (class weights), n_node_samples, node_assessments,
    the categorical splits' left codes (a node's codes are
    cat_codes[cat_start[node]:cat_end[node]]; empty for other nodes), and the
    leaf of every row of ``order`` (``leaf_of``, per row of X; -1 elsewhere).
    """
    (is_sparse, codes, bin_offsets, zero_rank, csc_indptr, csc_rows, csc_codes, csr_indptr,
     csr_features, csr_codes, categorical, csr_bins) = data
    n = order.shape[0]
    C = n_classes
    cap = 2 * n - 1
    if max_depth < 30:
        cap = min(cap, 2 ** (max_depth + 1) - 1)
    feature = np.full(cap, LEAF, np.int64)
    threshold = np.full(cap, np.nan)
    left_rank = np.full(cap, -1, np.int64)
    children_left = np.full(cap, LEAF, np.int64)
    children_right = np.full(cap, LEAF, np.int64)
    value = np.zeros((cap, C))
    n_samples = np.zeros(cap, np.int64)
    assessments = np.zeros(cap, np.int64)
    cat_start = np.zeros(cap, np.int64)
    cat_end = np.zeros(cap, np.int64)
    cat_codes = np.empty(16, np.int64)
    n_cat_codes = 0
    by_weight = order.copy()
    n_rows = csr_indptr.shape[0] - 1 if is_sparse else codes.shape[1]
    by_index = sorted_rows(order, n_rows)
    spare = np.empty(n, np.int64)
    rowcode = np.full(n_rows if is_sparse else 0, -1, np.int64)
    no_mask = np.zeros(0, np.uint8)
    no_values = np.zeros(0)
    stack = np.empty((cap, 4), np.int64)  # node, start, end, depth
    segment = np.zeros((cap, 2), np.int64)  # each node's rows: by_weight[start:end]
    _class_weights(by_weight, w, y, value[0])
    n_samples[0] = n
    prefiltered = method == EXHAUSTIVE
    n_slots = min(max_depth + 1, 8) if prefiltered else 0
    pool = [cs.new_histogram(coarse, C) for _ in range(n_slots)]
    free = list(range(n_slots))
    slot_of = np.full(cap, -1, np.int64)  # each pending node's histogram, or -1
    slot = candidate_slots(feats, bin_offsets.shape[0] - 1)
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
        if prefiltered and not cs.pays(coarse, bin_offsets, feats, end - start):
            if slot_of[node] >= 0:  # nor will it below: the plain search from here down
                free.append(slot_of[node])
                slot_of[node] = -1
            best, lr, rr, _, total, _, _, left_codes, _ = run(method, params, data, work, seg_w,
                                                              seg_i, w, y, C, feats, crit, bounds,
                                                              min_leaf)
        elif prefiltered:
            ready = slot_of[node] >= 0
            if not ready and len(free) > 0:
                slot_of[node] = free.pop()
            hist = pool[slot_of[node]] if slot_of[node] >= 0 else cs.new_histogram(coarse, C)
            best, lr, rr, _, total, _, _, left_codes, _ = run_exhaustive(
                params, data, work, seg_w, seg_i, w, y, C, feats, crit, bounds, min_leaf, coarse,
                hist, ready)
        else:
            best, lr, rr, _, total, _, _, left_codes, _ = run(method, params, data, work, seg_w,
                                                              seg_i, w, y, C, feats, crit, bounds,
                                                              min_leaf)
        assessments[node] = total
        if best < 0:
            if slot_of[node] >= 0:
                free.append(slot_of[node])
            continue
        k = feats[best]
        off = bin_offsets[k]
        n_bins = bin_offsets[k + 1] - off
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
            t, r = threshold_of(values, off, n_bins, lr, rr)
            threshold[node] = t
            left_rank[node] = r
        left, right = n_nodes, n_nodes + 1
        n_nodes += 2
        if is_sparse:
            for e in range(csc_indptr[k], csc_indptr[k + 1]):
                rowcode[csc_rows[e]] = csc_codes[e]
        n_left = _split_rows(seg_w, k, r, cat_mask, is_sparse, codes, zero_rank, rowcode, spare, w, y,
                             value[left], value[right])
        if depth + 1 < max_depth:  # the children will be searched: they need both orders
            _split_rows(seg_i, k, r, cat_mask, is_sparse, codes, zero_rank, rowcode, spare, w, y,
                        no_values, no_values)
        if is_sparse:
            for e in range(csc_indptr[k], csc_indptr[k + 1]):
                rowcode[csc_rows[e]] = -1
        if slot_of[node] >= 0:
            _children_histograms(coarse, feats, slot, seg_i, n_left, w, y, data, pool, free,
                                 slot_of, node, left, right, depth + 1 < max_depth, value[node])
        feature[node] = k
        children_left[node] = left
        children_right[node] = right
        n_samples[left] = n_left
        n_samples[right] = end - start - n_left
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = right, start + n_left, end, depth + 1
        stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3] = left, start, start + n_left, depth + 1
        top += 2
    leaf_of = np.full(n_rows, -1, np.int64)
    for node in range(n_nodes):
        if feature[node] == LEAF:
            for p in range(segment[node, 0], segment[node, 1]):
                leaf_of[by_weight[p]] = node
    return (feature[:n_nodes], threshold[:n_nodes], left_rank[:n_nodes], children_left[:n_nodes],
            children_right[:n_nodes], value[:n_nodes], n_samples[:n_nodes], assessments[:n_nodes],
            cat_start[:n_nodes], cat_end[:n_nodes], cat_codes[:n_cat_codes], leaf_of)


@njit(cache=True)
def _children_histograms(coarse, feats, slot, seg_i, n_left, w, y, data, pool, free, slot_of,
                         node, left, right, searched, node_value):
    """Give a split node's children their histograms (the smaller's summed from its
    rows ``seg_i``, the larger's by subtraction in the node's slot), if they will be
    searched and a slot is free; else free the node's slot."""
    parent = slot_of[node]
    if not searched or len(free) == 0:
        free.append(parent)
        return
    small = free.pop()
    left_smaller = 2 * n_left <= seg_i.shape[0]
    rows = seg_i[:n_left] if left_smaller else seg_i[n_left:]
    _build_histogram(coarse, feats, slot, rows, w, y, data, pool[small])
    parent_weight = 0.0
    for c in range(node_value.shape[0]):
        parent_weight += node_value[c]
    cs.subtract(coarse, feats, pool[parent], pool[small], parent_weight)
    slot_of[left], slot_of[right] = (small, parent) if left_smaller else (parent, small)


@njit(cache=True, inline='always')
def _sparse_entry(csr_indptr, csr_features, i, k):
    """Position of column k in row i of a CSR matrix with sorted indices, or -1."""
    e = bisect_left(csr_features, csr_indptr[i], csr_indptr[i + 1], k)
    return e if e < csr_indptr[i + 1] and csr_features[e] == k else -1


@njit(cache=True, inline='always')
def _among(items, start, end, x):
    """x is one of the sorted items[start:end]."""
    j = bisect_left(items, start, end, x)
    return j < end and items[j] == x


@njit(cache=True)
def apply_rows(feature, cut, is_categorical, children_left, children_right, cat_start, cat_end,
               cat_items, dense, feature_major, indptr, indices, entries, absent, n_rows):
    """Leaf id of every row, walking the tree from the root.

    A row's value x of feature k is ``dense[k, i]`` (``feature_major``) or
    ``dense[i, k]``, or, when ``dense`` is empty, its CSR entry (sorted
    indices), ``absent[k]`` if none.  x <= cut[node] goes left; at a
    categorical node, x among the sorted cat_items[cat_start:cat_end] goes
    left.  Codes of the binned Dataset (cut: left ranks, absent: the zero's
    rank) and raw values (cut: thresholds, absent: 0) both walk here.
    """
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
