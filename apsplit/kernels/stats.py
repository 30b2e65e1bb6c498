"""Per-feature running statistics of a node: assessing examples and bounding scores.

A node's examples are numbered 0..n-1 in weight order.  Feature f has *seen*
the prefix [0, m_f).  Its statistics are the class weights per distinct value
(``hist``, indexed by global bin) and the sorted list of values seen so far
(``present``).  Sparse features never store the implicit zero: its class
weights are the seen class totals minus the stored entries' (exact count kept
separately, so an absent zero contributes exactly nothing).

All arrays are plain numpy arrays; ``hist``, ``mark`` and ``present`` are the
Dataset's workspace, which every search leaves zeroed again (``release``).
"""

import math

import numpy as np
from numba import njit

from .criteria import ERROR, NO_UB, TIGHT, impurity, split_value
from .sort import heapsort

NO_KEYS = np.empty(0)


@njit(cache=True)
def node_prefix_sums(order, w, y, n_classes):
    """Weight-ordered copies of w and y, prefix sums of weight and of class weight."""
    n = order.shape[0]
    w_ord = np.empty(n)
    y_ord = np.empty(n, np.int64)
    cumw = np.zeros(n + 1)
    cumcls = np.zeros((n + 1, n_classes))
    for p in range(n):
        i = order[p]
        w_ord[p] = w[i]
        y_ord[p] = y[i]
        cumw[p + 1] = cumw[p] + w[i]
        for c in range(n_classes):
            cumcls[p + 1, c] = cumcls[p, c]
        cumcls[p + 1, y[i]] += w[i]
    return w_ord, y_ord, cumw, cumcls


@njit(cache=True)
def candidate_slots(feats, n_features):
    """slot[k] = position of column k among the candidate features, or -1."""
    slot = np.full(n_features, -1, np.int64)
    for f in range(feats.shape[0]):
        slot[feats[f]] = f
    return slot


@njit(cache=True)
def sparse_buckets(order, feats, slot, csc_indptr, csr_indptr, csr_features, csr_codes,
                   bucket_pos, bucket_code):
    """Stored entries of the node's rows, per candidate feature, in weight order.

    One pass over the node's rows.  Feature f's entries land in the Dataset's
    bucket workspace at [bounds[f, 0], bounds[f, 1]) (inside the slots of its
    CSC column), with the example's position in the weight order and its code.
    """
    F = feats.shape[0]
    bounds = np.empty((F, 2), np.int64)
    for f in range(F):
        bounds[f, 0] = csc_indptr[feats[f]]
        bounds[f, 1] = bounds[f, 0]
    for p in range(order.shape[0]):
        i = order[p]
        for e in range(csr_indptr[i], csr_indptr[i + 1]):
            f = slot[csr_features[e]]
            if f >= 0:
                j = bounds[f, 1]
                bucket_pos[j] = p
                bucket_code[j] = csr_codes[e]
                bounds[f, 1] = j + 1
    return bounds


@njit(cache=True)
def assess_rows(order, y_ord, w_ord, slot, bin_offsets, csr_indptr, csr_features, csr_codes,
                nzcls, nzcnt, hist, mark):
    """Assess every candidate feature on every example in one row-wise pass (sparse).

    Adds to each histogram cell in weight order, as feature-wise passes do, so
    scores are bit-identical to theirs.  The present lists are left to the caller.
    """
    for p in range(order.shape[0]):
        i = order[p]
        c = y_ord[p]
        wp = w_ord[p]
        for e in range(csr_indptr[i], csr_indptr[i + 1]):
            k = csr_features[e]
            f = slot[k]
            if f >= 0:
                b = bin_offsets[k] + csr_codes[e]
                mark[b] = 1
                hist[b, c] += wp
                nzcls[f, c] += wp
                nzcnt[f] += 1


@njit(cache=True)
def rebuild_present(present, off, n_bins, mark):
    """Feature's present list from its marks (O(bins)); returns its length."""
    j = 0
    for r in range(n_bins):
        if mark[off + r]:
            present[off + j] = r
            j += 1
    return j


@njit(cache=True, inline='always')
def merge_new(present, off, n_old, newbuf, n_new, n_bins, mark):
    """Merge the ``n_new`` newly seen ranks into feature's sorted present list."""
    if n_new == 0:
        return n_old
    total = n_old + n_new
    if n_new * (math.log2(n_new) + 1.0) > n_bins:  # cheaper than sorting the new ranks
        return rebuild_present(present, off, n_bins, mark)
    new = newbuf[:n_new]
    if n_new <= 32:
        for a in range(1, n_new):  # insertion sort: no allocation for small batches
            x = new[a]
            b = a - 1
            while b >= 0 and new[b] > x:
                new[b + 1] = new[b]
                b -= 1
            new[b + 1] = x
    else:
        heapsort(NO_KEYS, new)
    i, j = n_old - 1, n_new - 1
    for t in range(total - 1, -1, -1):
        if j < 0:
            break
        if i >= 0 and present[off + i] > new[j]:
            present[off + t] = present[off + i]
            i -= 1
        else:
            present[off + t] = new[j]
            j -= 1
    return total


@njit(cache=True, inline='always')
def assess(f, k, lo, hi, is_sparse, codes, off, w_ord, y_ord, order, bk_bounds, bk_pos, bk_code,
           cursor, nzcls, nzcnt, hist, mark, newbuf, n_new, zero_rank, cumcls, track_rank,
           track_left):
    """Add examples [lo, hi) of the weight order to feature f (column k).

    Values seen for the first time are appended to ``newbuf`` after its first
    ``n_new`` entries; returns the new count (``merge_new`` sorts them in).
    The class weights of the examples with code <= ``track_rank`` (the left
    child of a followed split; -1: none) are added to ``track_left``.
    Sparse: a batch's zeros are its class totals minus its stored entries'.
    """
    if is_sparse:
        zeros_left = 0 <= zero_rank <= track_rank
        if zeros_left:  # count the whole batch as zeros, then correct for stored entries
            for c in range(track_left.shape[0]):
                track_left[c] += cumcls[hi, c] - cumcls[lo, c]
        e = cursor[f]
        end = bk_bounds[f, 1]
        while e < end and bk_pos[e] < hi:
            p = bk_pos[e]
            c = y_ord[p]
            b = off + bk_code[e]
            if mark[b] == 0:
                mark[b] = 1
                newbuf[n_new] = bk_code[e]
                n_new += 1
            hist[b, c] += w_ord[p]
            nzcls[f, c] += w_ord[p]
            nzcnt[f] += 1
            if (bk_code[e] <= track_rank) != zeros_left:
                track_left[c] += -w_ord[p] if zeros_left else w_ord[p]
            e += 1
        cursor[f] = e
    else:
        for p in range(lo, hi):
            r = codes[k, order[p]]
            c = y_ord[p]
            b = off + r
            if mark[b] == 0:
                mark[b] = 1
                newbuf[n_new] = r
                n_new += 1
            hist[b, c] += w_ord[p]
            if r <= track_rank:
                track_left[c] += w_ord[p]
    return n_new


@njit(cache=True, inline='always')
def _error_split(bounds, left, seen_cls, seen_total, unseen_cls, unseen, want_ub):
    """``criteria.split_value`` for the error criterion, in one pass over the classes.

    f(L) + f(R) = S_seen - max_c L_c - max_c R_c with R = T_seen - L.
    """
    ml = -1.0
    mr = -1.0
    al = 0
    ar = 0
    for c in range(left.shape[0]):
        lc = left[c]
        rc = seen_cls[c] - lc
        if lc > ml:
            ml = lc
            al = c
        if rc > mr:
            mr = rc
            ar = c
    seen = max(seen_total - ml - mr, 0.0)
    if not want_ub:
        return seen, seen
    ub = seen + unseen
    if bounds == TIGHT and al == ar and ml > 0.0 and mr > 0.0:  # an empty child has slopes 1
        ub -= unseen_cls[al]
    return seen, ub


@njit(cache=True, inline='always')
def evaluate(f, m, n, full, crit, bounds, off, zero_rank, is_sparse,
             hist, present, n_present, nzcls, nzcnt, cumw, cumcls, parent,
             left, right, zero, unseen_cls, out_ranks, lb_left):
    """Bounds on feature f's best score (weight units) after seeing [0, m).

    Returns (lb, ub).  Writes into ``out_ranks`` the ranks (left value, right
    value) of the split attaining ub (of the best split when m == n; -1 if
    none) and, at index 2, the left rank of the split attaining lb (-1: the
    one-sided seen partition), whose seen left class weights go to ``lb_left``.

    lb: min over the splits the seen values allow of f(L_seen) + f(R_seen),
        and, unless all examples are seen, of f(T_seen) (unseen values may
        lie outside the seen range).  Superadditivity makes it a lower bound.
    ub: min over splits with both children seen (hence real splits) of an
        upper bound on their final score:
          paper: f(L) + f(R) + the paper's unseen terms (Sec. 3; App. B, Eq. 3)
          tight: f(L) + f(R) + sum_c U_c max(gL_c, gR_c)
        with U_c the unseen weight of class c and g supergradients of f
        (``criteria``), both capped by the node's own
        impurity ``parent`` (no split is better than none).  +inf when no
        split has two seen children, or when ``bounds`` is NO_UB.  When
        m == n, lb == ub == exact score.
    """
    C = cumcls.shape[1]
    want_ub = not full and bounds != NO_UB
    n_zero = m - nzcnt[f] if is_sparse and zero_rank >= 0 else 0
    for c in range(C):
        left[c] = 0.0
        zero[c] = cumcls[m, c] - nzcls[f, c] if n_zero > 0 else 0.0
    unseen = cumw[n] - cumw[m]
    seen_total = 0.0
    seen_cls = cumcls[m]
    for c in range(C):
        unseen_cls[c] = cumcls[n, c] - cumcls[m, c]
        seen_total += cumcls[m, c]
    n_items = n_present[f] + (1 if n_zero > 0 else 0)
    best_lb = math.inf
    best_ub = math.inf
    out_ranks[0] = -1
    out_ranks[1] = -1
    out_ranks[2] = -1
    i = 0
    zero_pending = n_zero > 0
    prev_rank = -1
    for t in range(n_items):
        if zero_pending and (i >= n_present[f] or zero_rank < present[off + i]):
            rank = zero_rank
            zero_pending = False
            from_zero = True
        else:
            rank = present[off + i]
            i += 1
            from_zero = False
        if t > 0:
            if crit == ERROR:
                seen, ub = _error_split(bounds, left, seen_cls, seen_total, unseen_cls, unseen, want_ub)
            else:
                for c in range(C):
                    right[c] = cumcls[m, c] - left[c]
                seen, ub = split_value(crit, bounds, left, right, unseen_cls, unseen, want_ub)
            if seen < best_lb:
                best_lb = seen
                out_ranks[2] = prev_rank
                for c in range(C):
                    lb_left[c] = left[c]
                if full:
                    out_ranks[0] = prev_rank
                    out_ranks[1] = rank
            if want_ub and ub < best_ub:
                best_ub = ub
                out_ranks[0] = prev_rank
                out_ranks[1] = rank
        for c in range(C):
            left[c] += zero[c] if from_zero else hist[off + rank, c]
        prev_rank = rank
    if full:
        return best_lb, best_lb
    one_sided = impurity(crit, cumcls[m])
    if one_sided < best_lb:
        best_lb = one_sided
        out_ranks[2] = -1
        for c in range(C):
            lb_left[c] = 0.0
    if best_ub < math.inf:
        best_ub = min(best_ub, parent)
    return best_lb, best_ub


@njit(cache=True, inline='always')
def seen_value(crit, left, seen_cls, right):
    """f(L) + f(T - L) for seen class totals T: the seen value of one split."""
    for c in range(left.shape[0]):
        right[c] = seen_cls[c] - left[c]
    return impurity(crit, left) + impurity(crit, right)


@njit(cache=True)
def release(feats, bin_offsets, present, n_present, hist, mark):
    """Zero the workspace cells touched by a search."""
    C = hist.shape[1]
    for f in range(feats.shape[0]):
        off = bin_offsets[feats[f]]
        for j in range(n_present[f]):
            b = off + present[off + j]
            mark[b] = 0
            for c in range(C):
                hist[b, c] = 0.0
        n_present[f] = 0
