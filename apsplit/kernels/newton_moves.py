"""Every open row of a level to its child, on several threads: the same tree for any count.

After a level's splits are chosen (``newton_grow._grow``), each open row gets its
next slot (``moved``): -1 when its node became a leaf (``row_leaf`` then names
the leaf), else its node's left child's slot when its value goes left, the
right child's when it goes right.  Two passes:

1. over the open rows (``_move_row_range``), slot by slot (``OpenRows``): rows of
   nodes that became leaves leave; the others go to the default side, or, when the
   node splits on a histogram feature, by the row's code: a present value v goes
   right iff not v <= threshold, iff its code is at least the count c of the
   feature's values <= threshold (the values are its codes' in ascending order),
   so the slot's rule is found once and each row costs one comparison of its code,
   without a branch;
2. over the entries of the column features some node split on
   (``_move_entry_range``): a row with a present value goes by that value (x <=
   threshold goes left; a categorical split sends its set right).

Why any number of threads gives the same ``moved``: every write is to the row's own
entry, by a rule of that row's node, its split and its value only.  In pass 1 each
row is written once.  In pass 2 a row is written only by an entry of the feature its
node splits on, and a column holds one entry per row, so at most once; pass 2 follows
pass 1.  The lanes therefore split the work any way: pass 1 takes contiguous shares
of the open rows, pass 2 contiguous shares of the concatenated split columns (a lane
may start and end inside a column, so one long column does not leave the others
idle).  A lane gets ``lanes.MIN_WORK_PER_LANE`` visits at least: small levels run on
the caller's thread.
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .lanes import PRANGE_ONLY, lane_count, share
from .newton_categorical import in_set
from .unsigned import u


class OpenRows(NamedTuple):
    """A level's open rows by slot: slot s's are ``rows[start[s]:start[s + 1]]``, ascending."""

    rows: np.ndarray
    start: np.ndarray


@njit(cache=True)
def regroup(open_rows, position, moved, child_slot):
    """The next level's ``OpenRows`` after ``move_rows``: each split slot's rows go to its
    left child's segment, then its right child's (children are numbered in the order of
    their parents, left first, so the segments are in slot order), each keeping its
    order; the rows of slots that became leaves leave.  ``position`` takes ``moved``.
    Each row is read twice and written twice, without a branch: every row is written at
    the cursor, which moves on only past the child's rows (a child's rows interleave
    unpredictably, so a branch per row would be mispredicted half the time)."""
    rows, start = open_rows.rows, open_rows.start
    m = child_slot.shape[0]
    n_split = 0
    kept = 0
    for s in range(m):
        if child_slot[s] >= 0:
            n_split += 1
            kept += start[s + 1] - start[s]
    out = np.empty(kept + 1, rows.dtype)  # + 1: the last write past the last kept row
    out_start = np.zeros(2 * n_split + 1, np.int64)
    q = 0
    for s in range(m):
        left = child_slot[s]
        for p in range(start[s], start[s + 1]):
            r = u(rows[u(p)])
            position[r] = moved[r]
        if left < 0:
            continue
        for child in (left, left + 1):
            for p in range(start[s], start[s + 1]):
                r = rows[u(p)]
                out[u(q)] = r
                q += moved[u(r)] == child
            out_start[child + 1] = q
    return OpenRows(out[:kept], out_start)


# The range functions take the arrays out of the tuples once, before their loop: an array
# read from a tuple inside the loop costs a reference count update per use (3-10x slower).

@njit(cache=True)
def _move_row_range(first, stop, open_rows, tree, cols, moved, child_slot, slot_node):
    """Pass 1 over the open rows ``open_rows.rows[first:stop]`` (the module docstring)."""
    rows, start = open_rows.rows, open_rows.start
    row_leaf, default_left = tree.row_leaf, tree.default_left
    split_feature, threshold = tree.feature, tree.threshold
    hist_index, codes = cols.hist_index, cols.hist_codes
    hist_start, hist_values = cols.hist_start, cols.hist_values
    s = np.searchsorted(start, first, side="right") - 1
    p = first
    while p < stop:
        end = min(stop, start[s + 1])
        node = slot_node[s]
        if child_slot[s] < 0:
            for q in range(p, end):
                moved[u(rows[u(q)])] = -1
                row_leaf[u(rows[u(q)])] = node
        else:
            default = child_slot[s] + (0 if default_left[node] else 1)
            j = hist_index[split_feature[node]]
            if j < 0:  # a column feature: pass 2 moves the present values
                for q in range(p, end):
                    moved[u(rows[u(q)])] = default
            else:
                values = hist_values[hist_start[j]:hist_start[j + 1]]
                n_present = values.shape[0]
                at_most = np.searchsorted(values, threshold[node], side="right")
                left = child_slot[s]
                for q in range(p, end):
                    r = u(rows[u(q)])
                    code = np.int64(codes[r, u(j)])
                    moved[r] = default if code >= n_present else left + (code >= at_most)
        p = end
        s += 1


@njit(cache=True)
def _move_entry_range(first, stop, split_columns, offsets, tree, cols, position, moved,
                      child_slot, slot_node):
    """Pass 2 over the concatenated entries ``first:stop`` of the columns ``split_columns``
    (column i's entries at ``offsets[i]:offsets[i + 1]`` of the concatenation)."""
    split_feature, threshold = tree.feature, tree.threshold
    category_start, category_count = tree.category_start, tree.category_count
    category_codes = tree.category_codes
    indptr, col_rows, col_values = cols.indptr, cols.rows, cols.values
    i = np.searchsorted(offsets, first, side="right") - 1
    g = first
    while g < stop:
        k = split_columns[i]
        end = min(stop, offsets[i + 1])
        base = indptr[k] - offsets[i]
        for e in range(g + base, end + base):
            r = u(col_rows[u(e)])  # unsigned subscripts: no sign tests
            signed_slot = position[r]
            if signed_slot < 0:
                continue
            s = u(signed_slot)
            if child_slot[s] < 0:
                continue
            node = slot_node[s]
            if split_feature[node] != k:
                continue
            if category_start[node] >= 0:
                right = in_set(category_codes, category_start[node], category_count[node],
                               col_values[e])
            else:
                right = not col_values[e] <= threshold[node]
            moved[r] = child_slot[s] + (1 if right else 0)
        g = end
        i += 1


@njit(cache=True, parallel=PRANGE_ONLY)
def move_rows(tree, cols, open_rows, position, moved, child_slot, slot_node, split_columns,
              n_threads):
    """Every open row (``open_rows``, an ``OpenRows``) to its next slot in ``moved`` (the
    module docstring): ``child_slot[s]`` the left child's slot of slot s (-1: a leaf),
    ``slot_node`` the level's nodes, ``split_columns`` the column features some node
    splits on (pass 2: ``move_present_rows``)."""
    n = open_rows.rows.shape[0]
    lanes = lane_count(n_threads, n, n)
    if lanes == 1:
        _move_row_range(0, n, open_rows, tree, cols, moved, child_slot, slot_node)
    else:
        for lane in prange(lanes):
            first, last = share(lane, lanes, n)
            _move_row_range(first, last, open_rows, tree, cols, moved, child_slot, slot_node)
    move_present_rows(tree, cols, position, moved, child_slot, slot_node, split_columns,
                      n_threads)


@njit(cache=True, parallel=PRANGE_ONLY)
def move_present_rows(tree, cols, position, moved, child_slot, slot_node, split_columns,
                      n_threads):
    """Pass 2 of ``move_rows`` over the columns ``split_columns`` of ``cols``: after pass 1,
    and for disjoint sets of features, in any order (a row is written only by its node's
    split feature), so the columns of some features may come from another ``Columns``."""
    offsets = np.zeros(split_columns.shape[0] + 1, np.int64)
    for i in range(split_columns.shape[0]):
        k = split_columns[i]
        offsets[i + 1] = offsets[i] + cols.indptr[k + 1] - cols.indptr[k]
    total = offsets[-1]
    lanes = lane_count(n_threads, total, total)
    if lanes == 1:
        _move_entry_range(0, total, split_columns, offsets, tree, cols, position, moved,
                          child_slot, slot_node)
    else:
        for t in prange(lanes):
            lane = np.int64(t)
            _move_entry_range(lane * total // lanes, (lane + 1) * total // lanes,
                              split_columns, offsets, tree, cols, position, moved,
                              child_slot, slot_node)
