"""Per-feature running statistics of a node: assessing examples and scanning a feature's splits.

A node's examples are numbered 0..n-1 in weight order.  Feature f has *seen*
the prefix [0, m_f).  Its statistics are the class weights per bin (its rows
of the Dataset's ``hist`` workspace), accumulated batch by batch in weight
order.  Once f has seen every example, its statistics are recomputed in one
*canonical* pass over the node's rows in index order (``canonical_pass``),
which is how the exhaustive search computes them in the first place: a fully
assessed feature's statistics, hence its score and split, are then
bit-identical in every method, and the exhaustive search reads the rows in
memory order.  A scan visits the feature's bins in value order, in one of two
layouts chosen per feature and node (``search.setup``'s ``listed``):

dense   every bin of the feature, empty ones skipped: the exhaustive search's
        features with ``n_bins <= DENSE_RATIO * n``, the batched searches'
        with at most ``search.LIST_MIN_BINS`` bins, or once half of a
        feature's bins are seen (``search.merge_listed``)
listed  a sorted list of the bins seen so far (``present``, ``mark``): new
        values are merged in after each batch, and a scan costs O(values
        seen): for many-valued features in small nodes, and categorical ones

A *two-level* feature (dense, numeric, more than 4 distinct values per coarse
bin of the Dataset; ``BinnedData.two_level``) defines its canonical left
class weights through its coarse bins (``kernels.coarse``), so that they can be
computed without summing every rank (``refine.refined_best``): with T_b the
class weights of coarse bin b in the node, P_b = T_0 + ... + T_(b-1) summed in
bin order, and S_b(t) the running sum of the ranks of bin b up to t, the split
after rank t of bin b has left weights P_b + S_b(t), or P_(b+1) when t is the
last present rank of b (a coarse boundary) (``scan_two_level``).  T_b is the
node's coarse histogram as the tree builder keeps it (``Task.coarse_sums``,
``build.grow``): summed over the node's rows in index order at the root and
at a smaller child, its parent's minus its sibling's at the larger one (as
LightGBM's histograms are), so that no search sums a larger child's rows again;
a node without one (a search on its own) sums its rows in index order.  The
other features' canonical left weights are the running sums over their ranks
(one level).  Either way each is a sum of the same weights, within
(n + 2 B) u W of the real one (u = 2^-53, W the node's weight, B <= 256 coarse
bins), plus, at a larger child, the error its histogram carries
(``coarse.subtract``: its parent's and its sibling's, and one rounding per bin).

Sparse features never store the implicit zero: its class weights are the
seen class totals minus the stored entries' (``stored_seen`` counts the stored
entries seen, so an absent zero contributes exactly nothing).

The statistics live in the Dataset's ``Workspace`` (``hist``, ``mark``,
``present``, ``counts``), which every search leaves zeroed again.  The
kernels a search calls per batch (``assess``, ``zero_weights``, ``scan``) take
small records of the arrays they read (``Column``, ``Stream``, ``Seen``,
``Rule``), which the search builds per call: an ordinary kernel updates the
reference count of every array it is passed, and passing the search's whole
records (some 60 arrays) made quick and adaptive 1.2x slower; compiled
without reference counting instead, these loops ran 1.3-2x slower.  The score
of one split (``_full_split``) is inlined where it is called: the exhaustive
search's walks call it per rank, and a call spilled the walk's registers
around it; ``generic_full_split``, ``_error_split`` and ``two_class_totals``
are compiled without the counts (``refine``'s docstring says what they cost
there).
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .criteria import ERROR, GINI, NO_UB, TIGHT, impurity, split_value
from .sort import bisect_left, bisect_right, heapsort
from .unsigned import u

NO_KEYS = np.empty(0)
DENSE_RATIO = 4  # a feature with at most DENSE_RATIO * n bins scans them all


class Column(NamedTuple):
    """Candidate feature f's statistics, as the per-batch kernels see them."""

    f: int               # its position among the candidates
    k: int               # its column
    off: int             # its first bin
    n_bins: int
    listed: int          # it keeps a sorted list of its seen values (``present``)
    n_present: int       # ... their count
    zero_rank: int       # sparse: the rank of its implicit zero, -1 if none
    counting: bool       # count the examples per bin (a minimum leaf size)
    hist: np.ndarray     # the workspace's arrays
    mark: np.ndarray
    present: np.ndarray
    counts: np.ndarray
    two_level: bool          # its canonical sums are two-level (module docstring)
    of_rank: np.ndarray      # ... its coarse bin per rank (two-level; else empty)
    coarse_sums: np.ndarray  # ... its coarse bins' class weights (two-level, once canonical)


class Stream(NamedTuple):
    """The node's examples in weight order, as ``assess`` adds them."""

    order: np.ndarray        # the rows
    w_ord: np.ndarray        # their weights
    y_ord: np.ndarray        # their labels
    cumcls: np.ndarray       # (n + 1, C) prefix sums of the class weights
    codes: np.ndarray        # dense: the Dataset's codes
    is_sparse: bool
    buckets: np.ndarray      # sparse: (F, 2) feature f's entries in bucket_pos/code
    bucket_pos: np.ndarray   # ... their weight-order positions
    bucket_code: np.ndarray  # ... their ranks
    cursor: np.ndarray       # ... each feature's next entry
    stored_seen: np.ndarray  # ... each feature's stored entries seen


class Seen(NamedTuple):
    """What a feature has seen, as ``scan`` bounds it."""

    cls: np.ndarray         # (C) its seen class totals
    unseen_cls: np.ndarray  # (C) the class weights it has not seen
    unseen: float           # ... their total
    count: int              # its seen examples
    has_zero: bool          # sparse: it has seen its implicit zero
    zero: np.ndarray        # ... whose class weights (``zero_weights``)
    zero_count: int         # ... and examples these are


class Rule(NamedTuple):
    """The node's split rule."""

    crit: int        # ``criteria.CRITERIA`` code
    bounds: int      # ``criteria.BOUNDS`` code, or ``criteria.NO_UB``
    min_leaf: int    # examples each child must keep
    parent: float    # the node's impurity: no split's bound exceeds it


@njit(cache=True)
def node_arrays(order, w, y, n_classes, prefixes):
    """With ``prefixes``, weight-ordered copies of w and y and the prefix sums of weight
    and of class weight ((n + 1) and (n + 1) x C), which the batched searches need
    (else empty arrays)."""
    n = order.shape[0] if prefixes else 0
    w_ord = np.empty(n)
    y_ord = np.empty(n, np.int64)
    cumw = np.zeros(n + 1 if prefixes else 0)
    cumcls = np.zeros((n + 1 if prefixes else 0, n_classes))
    for p in range(n):
        i = u(order[p])
        w_ord[p] = w[i]
        y_ord[p] = y[i]
        cumw[p + 1] = cumw[p] + w[i]
        for c in range(n_classes):
            cumcls[p + 1, c] = cumcls[p, c]
        cumcls[p + 1, u(y[i])] += w[i]
    return w_ord, y_ord, cumw, cumcls


@njit(cache=True)
def class_totals(index_order, w, y, n_classes):
    """A node's class weights, summed over its rows in index order: the canonical totals
    of every search of it (the tree builder sums its children's so as it splits it)."""
    totals = np.zeros(n_classes)
    if n_classes == 2:
        totals[0], totals[1] = two_class_totals(index_order, w, y, unit_factors())
        return totals
    for p in range(index_order.shape[0]):
        i = u(index_order[p])
        totals[u(y[i])] += w[i]
    return totals


@njit(cache=True, inline='always')
def unit_factors():
    """[0.0, 1.0], made at run time, for ``flagged``."""
    return np.array([0.0, 1.0])


@njit(cache=True, inline='always')
def flagged(weight, flag, unit):
    """``weight`` if ``flag`` (0/1) else 0.0, as ``weight * unit[flag]`` (``unit``:
    ``unit_factors()``): for a finite weight >= 0 the same value, and x + 0.0 = x for
    x >= 0.  A select between floats would be the same too, but x86 has no conditional
    move for floats, and LLVM compiles a select, even a 0/1 integer's conversion to a
    float, into a branch, which mispredicts on a flag that follows the data (a row's
    class, its side).  It cannot see through a load from an array made at run time, so
    the product stays a product (a partition of 56,000 rows of random classes 2.9x
    faster, *(probe)*)."""
    return weight * unit[flag]


@njit(cache=True, _nrt=False)
def two_class_totals(index_order, w, y, unit):
    """``class_totals`` of two classes, in two registers: each row adds its weight to
    its class's sum and 0.0 to the other's (``flagged``), so the sums are the same bit
    for bit, without a branch on the class and without each add waiting on the
    previous one's store."""
    t0, t1 = 0.0, 0.0
    for p in range(index_order.shape[0]):
        i = u(index_order[p])
        second = flagged(w[i], np.intp(y[i] != 0), unit)
        t0 += w[i] - second  # w - w = 0.0, w - 0.0 = w
        t1 += second
    return t0, t1


@njit(cache=True)
def candidate_slots(feats, n_features):
    """slot[k] = position of column k among the candidate features, or -1."""
    slot = np.full(n_features, -1, np.int64)
    for f in range(feats.shape[0]):
        slot[feats[f]] = f
    return slot


@njit(cache=True)
def sparse_buckets(data, work, order, feats, slot):
    """Stored entries of the node's rows, per candidate feature, in weight order.

    One pass over the node's rows.  Feature f's entries land in the Dataset's
    bucket workspace at [bounds[f, 0], bounds[f, 1]) (inside the slots of its
    CSC column), with the example's position in the weight order and its code.
    """
    csc_indptr, csr_indptr, csr_features, csr_codes = (data.csc_indptr, data.csr_indptr,
                                                       data.csr_features, data.csr_codes)
    bucket_pos, bucket_code = work.bucket_pos, work.bucket_code
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
def sorted_rows(order, n_rows):
    """The rows of ``order`` in increasing order, in O(n_rows) (no comparison sort);
    ``order`` itself if it is (the exhaustive rounds' rows are)."""
    descents = 0  # counted without a branch, so the pass runs in vector registers
    for p in range(1, order.shape[0]):
        descents += order[p] <= order[p - 1]
    if descents == 0:
        return order
    flag = np.zeros(n_rows, np.uint8)
    for p in range(order.shape[0]):
        flag[u(order[p])] = 1
    out = np.empty(order.shape[0], np.int64)
    j = 0
    for i in range(n_rows):
        if flag[i]:
            out[j] = i
            j += 1
    return out


@njit(cache=True)
def assess_rows(data, work, task, slot, all_features, listed):
    """Assess every candidate feature on every example in one pass over the rows in
    index order (sparse): the canonical statistics of every feature.

    ``all_features``: every column is a candidate, in column order (slot[k] == k);
    then, without listed features, each entry is one load of its global bin
    (``csr_bins``).  ``counts`` (per bin) counts the stored entries (per-feature
    counters cost three times more here).  The bins first seen by a listed feature are
    collected in the workspace's ``bucket_pos``; returns their count.
    """
    index_order, w, y = task.index_order, task.w, task.y
    bin_offsets, csr_indptr, csr_features, csr_codes, csr_bins = (
        data.bin_offsets, data.csr_indptr, data.csr_features, data.csr_codes, data.csr_bins)
    hist, mark, counts, newbins = work.hist, work.mark, work.counts, work.bucket_pos
    n_new = 0
    any_listed = False
    for f in range(listed.shape[0]):
        any_listed = any_listed or listed[f] != 0
    if all_features and not any_listed:  # the common case, as one tight loop
        for p in range(index_order.shape[0]):
            i = u(index_order[p])
            c = u(y[i])
            wi = w[i]
            for e in range(u(csr_indptr[i]), u(csr_indptr[i + 1])):
                b = u(csr_bins[e])
                hist[b, c] += wi
                counts[b] += 1
        return 0
    for p in range(index_order.shape[0]):
        i = index_order[p]
        c = y[i]
        wi = w[i]
        lo, hi = csr_indptr[i], csr_indptr[i + 1]
        row_features = csr_features[lo:hi]
        row_codes = csr_codes[lo:hi]
        for e in range(row_features.shape[0]):
            k = row_features[e]
            f = k if all_features else slot[k]
            if f >= 0:
                b = bin_offsets[k] + row_codes[e]
                hist[b, c] += wi
                counts[b] += 1
                if listed[f] and mark[b] == 0:
                    mark[b] = 1
                    newbins[n_new] = b
                    n_new += 1
    return n_new


@njit(cache=True)
def _add_example(r, c, wi, hist_f, mark_f, counts_f, newbuf, n_new, listed, counting):
    """Add one example (bin ``r``, class ``c``, weight ``wi``) to a feature's
    statistics; mark and append its bin if new.  Returns the new bins' count."""
    hist_f[r, c] += wi
    if counting:
        counts_f[r] += 1
    if listed and mark_f[r] == 0:
        mark_f[r] = 1
        newbuf[n_new] = r
        n_new += 1
    return n_new


@njit(cache=True)
def canonical_pass(data, work, task, k, listed, newbuf, coarse_sums):
    """Add every example of the node to feature k's (zeroed) statistics, in index
    order: the canonical statistics.  Dense: one pass over the node's rows;
    sparse: one pass over column k, keeping the rows flagged ``in_node``.  A
    listed feature's bins not marked yet are marked and appended to
    ``newbuf``; with a minimum leaf size, ``counts`` counts the examples per bin;
    a two-level feature (``data.two_level``) also gets its coarse bins' class
    weights T_b in the zeroed ``coarse_sums``: the tree builder's
    (``task.coarse_sums``), or, without them, summed here.
    Returns (the new bins' count, stored entries added)."""
    index_order, w, y, counting = task.index_order, task.w, task.y, task.min_leaf > 1
    csc_indptr, csc_rows, csc_codes, in_node = (data.csc_indptr, data.csc_rows, data.csc_codes,
                                                work.in_node)
    off = data.bin_offsets[k]
    n_new = 0
    stored = 0
    hist_f = work.hist[off:]
    mark_f = work.mark[off:]
    counts_f = work.counts[off:]
    if data.is_sparse:
        rows = csc_rows[csc_indptr[k]:csc_indptr[k + 1]]
        col_codes = csc_codes[csc_indptr[k]:csc_indptr[k + 1]]
        for e in range(rows.shape[0]):
            i = u(rows[e])
            if in_node[i]:
                n_new = _add_example(col_codes[e], u(y[i]), w[i], hist_f, mark_f, counts_f,
                                     newbuf, n_new, listed, counting)
                stored += 1
        return n_new, stored
    row = data.codes[k]
    given = task.coarse_sums.shape[0] > 0
    if data.two_level[k] and given:
        base = task.coarse_offsets[k]
        for b in range(task.coarse_offsets[k + 1] - base):
            for c in range(coarse_sums.shape[1]):
                coarse_sums[b, c] = task.coarse_sums[base + b, c]
    if data.two_level[k] and not given:
        of_rank = data.coarse_of_rank[off:]
        if listed or counting:
            for p in range(index_order.shape[0]):
                i = u(index_order[p])
                r = row[i]
                c = u(y[i])
                n_new = _add_example(r, c, w[i], hist_f, mark_f, counts_f, newbuf, n_new,
                                     listed, counting)
                coarse_sums[of_rank[r], c] += w[i]
        else:
            for p in range(index_order.shape[0]):
                i = u(index_order[p])
                r = row[i]
                c = u(y[i])
                wi = w[i]
                hist_f[r, c] += wi
                coarse_sums[of_rank[r], c] += wi
    elif listed or counting:
        for p in range(index_order.shape[0]):
            i = u(index_order[p])
            n_new = _add_example(row[i], u(y[i]), w[i], hist_f, mark_f, counts_f,
                                 newbuf, n_new, listed, counting)
    else:
        for p in range(index_order.shape[0]):
            i = u(index_order[p])
            hist_f[row[i], u(y[i])] += w[i]
    return n_new, stored


@njit(cache=True)
def collect_counts(data, work, feats, state, keep):
    """Stored entries per feature (``state.stored_seen``) from the per-bin ``counts``
    (zeroed unless ``keep``)."""
    bin_offsets, present, counts = data.bin_offsets, work.present, work.counts
    listed, n_present, stored = state.listed, state.n_present, state.stored_seen
    for f in range(feats.shape[0]):
        off = bin_offsets[feats[f]]
        items = n_present[f] if listed[f] else bin_offsets[feats[f] + 1] - off
        total = 0
        for j in range(items):
            b = off + (present[off + j] if listed[f] else j)
            total += counts[b]
            if not keep:
                counts[b] = 0
        stored[f] = total


@njit(cache=True)
def distribute_new_bins(data, work, feats, state, n_new):
    """Present lists of the listed features from the ``n_new`` global bins first seen by a
    pass (``assess_rows``)."""
    bin_offsets, present = data.bin_offsets, work.present
    listed, n_present = state.listed, state.n_present
    bins = work.bucket_pos[:n_new]
    heapsort(NO_KEYS, bins)
    for f in range(feats.shape[0]):
        if not listed[f]:
            continue
        off = bin_offsets[feats[f]]
        end = bin_offsets[feats[f] + 1]
        lo = bisect_left(bins, 0, n_new, off)
        j = 0
        while lo < n_new and bins[lo] < end:
            present[off + j] = bins[lo] - off
            j += 1
            lo += 1
        n_present[f] = j


@njit(cache=True, inline='always')
def merge_new(present, off, n_old, newbuf, n_new):
    """Merge the ``n_new`` newly seen ranks into the feature's sorted present list."""
    if n_new == 0:
        return n_old
    total = n_old + n_new
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


@njit(cache=True)
def assess(col, ex, lo, hi, n_new, newbuf, track_rank, track_left):
    """Add examples [lo, hi) of the weight order ``ex`` to the feature ``col``.

    A listed feature's values seen for the first time are appended to
    ``newbuf`` after its first ``n_new`` entries; returns the new count
    (``merge_new`` sorts them in).  With ``track_rank >= 0``, the class
    weights of the examples with code <= ``track_rank`` (the left child of a
    followed split) are added to ``track_left``.  With a minimum leaf size,
    ``counts`` counts the examples per bin.  Sparse: a batch's zeros are its
    class totals minus its stored entries'.
    """
    f, off, listed, counting = col.f, col.off, col.listed, col.counting
    w_ord, y_ord, cumcls = ex.w_ord, ex.y_ord, ex.cumcls
    tracking = track_rank >= 0
    hist_f = col.hist[off:]  # views indexed from 0: numba's negative-index checks then fold away
    mark_f = col.mark[off:]
    counts_f = col.counts[off:]
    if ex.is_sparse:
        cursor, bk_pos, bk_code = ex.cursor, ex.bucket_pos, ex.bucket_code
        zeros_left = tracking and 0 <= col.zero_rank <= track_rank
        if zeros_left:  # count the whole batch as zeros, then correct for stored entries
            for c in range(track_left.shape[0]):
                track_left[c] += cumcls[hi, c] - cumcls[lo, c]
        e = cursor[f]
        end = ex.buckets[f, 1]
        while e < end and bk_pos[e] < hi:
            p = bk_pos[e]
            c = y_ord[p]
            r = bk_code[e]
            n_new = _add_example(r, c, w_ord[p], hist_f, mark_f, counts_f, newbuf, n_new, listed,
                                 counting)
            if tracking and (r <= track_rank) != zeros_left:
                track_left[c] += -w_ord[p] if zeros_left else w_ord[p]
            e += 1
        ex.stored_seen[f] += e - cursor[f]
        cursor[f] = e
        return n_new
    row = ex.codes[col.k]
    rows = ex.order[lo:hi]
    ys = y_ord[lo:hi]
    ws = w_ord[lo:hi]
    if listed or tracking or counting:
        for p in range(rows.shape[0]):
            r = row[rows[p]]
            c = ys[p]
            n_new = _add_example(r, c, ws[p], hist_f, mark_f, counts_f, newbuf, n_new, listed,
                                 counting)
            if r <= track_rank:
                track_left[c] += ws[p]
    else:
        for p in range(rows.shape[0]):
            hist_f[row[rows[p]], ys[p]] += ws[p]
    return n_new


@njit(cache=True)
def zero_weights(col, seen_cls, zero):
    """Class weights (into ``zero``) of the implicit zero of a sparse feature that has
    seen one: the seen class totals minus the stored entries'.  (Not inlined: inlined
    into ``rebound`` it slowed every dense scan by half.)"""
    listed, off, n_bins, zero_rank = col.listed, col.off, col.n_bins, col.zero_rank
    hist, present, n_present = col.hist, col.present, col.n_present
    C = zero.shape[0]
    for c in range(C):
        zero[c] = 0.0
    items = n_present if listed else n_bins
    for j in range(items):
        r = present[off + j] if listed else j
        if r != zero_rank:
            for c in range(C):
                zero[c] += hist[off + r, c]
    for c in range(C):
        zero[c] = max(seen_cls[c] - zero[c], 0.0)


@njit(cache=True, inline='always')
def _present(rank, off, hist, has_zero, zero_rank):
    """Whether a dense feature's bin holds seen examples (the sparse zero: ``has_zero``)."""
    if has_zero and rank == zero_rank:
        return True
    for c in range(hist.shape[1]):
        if hist[off + rank, c] != 0.0:
            return True
    return False


@njit(cache=True)
def scan(col, rule, seen, full, left, right, out_ranks, lb_left):
    """Bounds on the feature ``col``'s best score (weight units) from its ``seen``
    statistics, under the node's ``rule``.

    One pass over the feature's bins in value order, from its first present
    bin to its last (listed: its present list; the sparse zero, if
    ``seen.has_zero``, class weights ``seen.zero``, at its rank): after adding
    bin b to the left class weights L (in ``left``), the split "values <= b go
    left" is evaluated, R = T_seen - L (in ``right``).
    An empty bin repeats the split of the present bin before it, and ties
    keep the first, so the best split's left rank is a present bin.
    Returns (lb, ub); writes into ``out_ranks`` the ranks (left value, right
    value) of the best split when ``full`` (-1 if none) and, at index 2, the
    left rank of the split attaining lb (-1: the one-sided seen partition),
    whose seen left class weights go to ``lb_left``.

    lb: min over the splits the seen values allow of f(L_seen) + f(R_seen),
        and, unless ``full``, of f(T_seen) (unseen values may lie outside the
        seen range).  Superadditivity makes it a lower bound.
    ub: min over splits with both children seen (hence real splits) of
        ``criteria.split_value``'s upper bound on their final value, capped by
        the node's own impurity ``parent`` (no split is better than none).
        +inf when no split has two seen children, or when ``bounds`` is NO_UB.
        When ``full``, lb == ub == the exact score.

    A minimum leaf size ``min_leaf`` > 1 (examples per child, ``counts`` per
    bin, ``seen.count`` in all, ``seen.zero_count`` at the sparse zero) admits, when
    ``full``, only the splits whose children both hold at least ``min_leaf``
    examples, and the ub only from splits whose seen children already do (they
    stay admissible); the lb still ranges over every split, a superset, so it
    stays a lower bound on the best admissible one.
    """
    listed, off, n_bins, n_present, zero_rank = (col.listed, col.off, col.n_bins, col.n_present,
                                                 col.zero_rank)
    hist, present, counts = col.hist, col.present, col.counts
    crit, bounds, min_leaf, parent = rule.crit, rule.bounds, rule.min_leaf, rule.parent
    seen_cls, unseen_cls, unseen, seen_count = seen.cls, seen.unseen_cls, seen.unseen, seen.count
    has_zero, zero, zero_count = seen.has_zero, seen.zero, seen.zero_count
    C = left.shape[0]
    constrained = min_leaf > 1
    left_count = 0
    want_ub = not full and bounds != NO_UB
    seen_total = 0.0
    for c in range(C):
        left[c] = 0.0
        seen_total += seen_cls[c]
    best_lb = math.inf
    best_ub = math.inf
    best_rank = -1
    out_ranks[0] = -1
    out_ranks[1] = -1
    out_ranks[2] = -1
    # the items (ranks) in value order: listed: present list with the zero merged in
    items = n_present + (1 if has_zero else 0) if listed else n_bins
    first, last = 0, items - 1
    if not listed:
        while first < items and not _present(first, off, hist, has_zero, zero_rank):
            first += 1
        while last > first and not _present(last, off, hist, has_zero, zero_rank):
            last -= 1
    i = 0  # listed: next position in the present list
    zero_pending = has_zero
    for t in range(first, last):
        if listed:
            if zero_pending and (i >= n_present or zero_rank < present[off + i]):
                rank = zero_rank
                zero_pending = False
            else:
                rank = present[off + i]
                i += 1
        else:
            rank = t
        if has_zero and rank == zero_rank:
            for c in range(C):
                left[c] += zero[c]
            left_count += zero_count
        else:
            for c in range(C):
                left[c] += hist[off + rank, c]
            if constrained:
                left_count += counts[off + rank]
        admissible = not constrained or (left_count >= min_leaf
                                         and seen_count - left_count >= min_leaf)
        if full and not admissible:
            continue
        if crit == ERROR:
            seen, ub = _error_split(bounds, left, seen_cls, seen_total, unseen_cls, unseen, want_ub)
        else:
            for c in range(C):
                right[c] = seen_cls[c] - left[c]
            seen, ub = split_value(crit, bounds, left, right, unseen_cls, unseen, want_ub)
        if seen < best_lb:
            best_lb = seen
            best_rank = rank
            for c in range(C):
                lb_left[c] = left[c]
        if want_ub and admissible and ub < best_ub:
            best_ub = ub
    out_ranks[2] = best_rank
    if full:
        if best_rank >= 0:  # the right value: the next present item
            out_ranks[0] = best_rank
            if listed:
                nxt = _next_listed(best_rank, present, off, n_present, zero_rank, has_zero)
            else:
                nxt = best_rank + 1
                while not _present(nxt, off, hist, has_zero, zero_rank):
                    nxt += 1
            out_ranks[1] = nxt
        return best_lb, best_lb
    one_sided = impurity(crit, seen_cls)
    if one_sided < best_lb:
        best_lb = one_sided
        out_ranks[2] = -1
        for c in range(C):
            lb_left[c] = 0.0
    if best_ub < math.inf:
        best_ub = min(best_ub, parent)
    return best_lb, best_ub


@njit(cache=True)
def scan_two_level(col, rule, seen, left, right, out_ranks, lb_left, prefix, inner):
    """``scan`` of a fully assessed two-level feature (``seen``: its node's class totals):
    its exact score and best split, the split after present rank t of coarse bin
    b having left class weights P_b + S_b(t), or P_(b+1) when t is b's last
    present rank (module docstring; ``col.coarse_sums`` holds the T_b).  The same
    splits as ``scan`` (one after every present rank but the last), in the same
    order, ties to the first; ``prefix`` and ``inner`` (C) are scratch for P_b
    and S_b(t).  Returns (score, score); writes ``out_ranks`` and ``lb_left`` as
    ``scan`` does."""
    listed, off, n_bins, n_present = col.listed, col.off, col.n_bins, col.n_present
    hist, present, counts, of_rank, sums = (col.hist, col.present, col.counts, col.of_rank,
                                            col.coarse_sums)
    crit, bounds, min_leaf = rule.crit, rule.bounds, rule.min_leaf
    seen_cls, unseen_cls, unseen, seen_count = seen.cls, seen.unseen_cls, seen.unseen, seen.count
    C = left.shape[0]
    constrained = min_leaf > 1
    seen_total = 0.0
    for c in range(C):
        seen_total += seen_cls[c]
        prefix[c] = 0.0
        inner[c] = 0.0
    best = math.inf
    best_rank = -1
    best_next = -1
    left_count = 0
    j = 0  # listed: the position of t in the present list
    t = _next_present(listed, present, off, n_present, hist, n_bins, -1, -1)
    while t >= 0:
        nxt = _next_present(listed, present, off, n_present, hist, n_bins, t, j)
        if nxt < 0:
            break
        b = of_rank[t]
        for c in range(C):
            inner[c] += hist[off + t, c]
        if constrained:
            left_count += counts[off + t]
        if of_rank[nxt] != b:  # t is b's last present rank: the coarse boundary
            for c in range(C):
                prefix[c] += sums[b, c]
                inner[c] = 0.0
                left[c] = prefix[c]
        else:
            for c in range(C):
                left[c] = prefix[c] + inner[c]
        admissible = not constrained or (left_count >= min_leaf
                                         and seen_count - left_count >= min_leaf)
        if admissible:
            value = _full_split(crit, bounds, left, right, seen_cls, seen_total, unseen_cls, unseen)
            if value < best:
                best = value
                best_rank = t
                best_next = nxt
                for c in range(C):
                    lb_left[c] = left[c]
        t = nxt
        j += 1
    out_ranks[0] = best_rank
    out_ranks[1] = best_next
    out_ranks[2] = best_rank
    return best, best


@njit(cache=True, inline='always')
def _next_present(listed, present, off, n_present, hist, n_bins, t, j):
    """The first present rank above t (-1: none): listed, present[off + j + 1], t being
    present[off + j]; else the next bin with class weight."""
    if listed:
        return present[off + j + 1] if j + 1 < n_present else -1
    t += 1
    while t < n_bins and not _present(t, off, hist, False, -1):
        t += 1
    return t if t < n_bins else -1


@njit(cache=True, inline='always')
def _full_split(crit, bounds, left, right, seen_cls, seen_total, unseen_cls, unseen):
    """The exact score f(L) + f(T - L) of a fully assessed split, as ``scan`` computes it:
    for two classes by ``two_class_split`` (the same value without arrays), else by
    ``generic_full_split``."""
    if left.shape[0] == 2:
        return two_class_split(crit, left[0], left[1], seen_cls[0], seen_cls[1], seen_total)
    return generic_full_split(crit, bounds, left, right, seen_cls, seen_total, unseen_cls, unseen)


@njit(cache=True, _nrt=False)
def generic_full_split(crit, bounds, left, right, seen_cls, seen_total, unseen_cls, unseen):
    """``_full_split`` for any number of classes (``right``: scratch)."""
    if crit == ERROR:
        return _error_split(bounds, left, seen_cls, seen_total, unseen_cls, unseen, False)[0]
    for c in range(left.shape[0]):
        right[c] = seen_cls[c] - left[c]
    return split_value(crit, bounds, left, right, unseen_cls, unseen, False)[0]


@njit(cache=True, inline='always')
def two_class_split(crit, l0, l1, t0, t1, seen_total):
    """``generic_full_split`` of two classes from scalars: left class weights (l0, l1), the
    node's (t0, t1) of total ``seen_total``.  The same operations in the same order
    (a sum that starts at 0.0 adds its first term exactly), so the same value bit for
    bit, without arrays (``coarse`` scores every coarse boundary with it)."""
    r0 = t0 - l0
    r1 = t1 - l1
    if crit == ERROR:
        ml = -1.0
        mr = -1.0
        if l0 > ml:
            ml = l0
        if r0 > mr:
            mr = r0
        if l1 > ml:
            ml = l1
        if r1 > mr:
            mr = r1
        return max(seen_total - ml - mr, 0.0)
    sl = max(l0, 0.0) + max(l1, 0.0)
    sr = max(r0, 0.0) + max(r1, 0.0)
    if crit == GINI:
        ql = max(l0, 0.0) ** 2 + max(l1, 0.0) ** 2
        qr = max(r0, 0.0) ** 2 + max(r1, 0.0) ** 2
        return (max(sl - ql / sl, 0.0) if sl > 0.0 else 0.0) + \
            (max(sr - qr / sr, 0.0) if sr > 0.0 else 0.0)
    return max(_entropy_terms(sl, l0, l1), 0.0) + max(_entropy_terms(sr, r0, r1), 0.0)


@njit(cache=True, inline='always')
def _entropy_terms(s, x, y):
    """s log2 s - x log2 x - y log2 y, the terms of ``split_value``'s entropy in its order
    (those of weights <= 0 left out; 0 for s <= 0)."""
    if s <= 0.0:
        return 0.0
    e = s * math.log2(s)
    if x > 0.0:
        e -= x * math.log2(x)
    if y > 0.0:
        e -= y * math.log2(y)
    return e


@njit(cache=True, inline='always')
def _next_listed(rank, present, off, n_present, zero_rank, has_zero):
    """The smallest present rank (the sparse zero included) above ``rank``."""
    j = bisect_right(present, off, off + n_present, rank)
    nxt = present[j] if j < off + n_present else -1
    if has_zero and zero_rank > rank and (nxt < 0 or zero_rank < nxt):
        nxt = zero_rank
    return nxt


@njit(cache=True, _nrt=False)
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
def seen_value(crit, left, seen_cls, right):
    """f(L) + f(T - L) for seen class totals T: the seen value of one split."""
    for c in range(left.shape[0]):
        right[c] = seen_cls[c] - left[c]
    return impurity(crit, left) + impurity(crit, right)


@njit(cache=True, inline='always')
def clear_feature(node, state, f, keep_marks):
    """Zero feature f's workspace cells (listed: its present bins, and their marks
    unless ``keep_marks``; dense: all bins; with a minimum leaf size, their example
    counts too)."""
    hist, mark, present, counts = node.work.hist, node.work.mark, node.work.present, node.work.counts
    counting = node.task.min_leaf > 1
    k = node.task.feats[f]
    off = node.data.bin_offsets[k]
    n_bins = node.data.bin_offsets[k + 1] - off
    C = hist.shape[1]
    if state.listed[f]:
        for j in range(state.n_present[f]):
            b = off + present[off + j]
            if not keep_marks:
                mark[b] = 0
            for c in range(C):
                hist[b, c] = 0.0
            if counting:
                counts[b] = 0
    else:
        for b in range(off, off + n_bins):
            for c in range(C):
                hist[b, c] = 0.0
            if counting:
                counts[b] = 0


@njit(cache=True)
def release(node, state):
    """Zero the workspace cells a search left set (listed: the present bins; dense: all),
    except those of the final non-categorical features, which ``finalize`` zeroed."""
    feats = node.task.feats
    for f in range(feats.shape[0]):
        if not (state.final[f] and not node.data.categorical[feats[f]]):
            clear_feature(node, state, f, False)
        state.n_present[f] = 0
