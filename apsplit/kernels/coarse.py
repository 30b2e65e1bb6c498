"""The exhaustive search's prefilter: coarse histograms that prove most features cannot win.

Every feature's distinct values (its exact ranks) are grouped once into at
most ``MAX_COARSE`` contiguous *coarse bins* (``Dataset.coarse_bins``), each
holding about n / 256 rows; a feature with at most 256 values keeps one bin
per value.  Per node, the class weights and example counts of every coarse
bin (``build_dense``, ``build_sparse``, or ``subtract`` from the parent's for
the larger child, as LightGBM does) fit in L1, and:

* every boundary between two coarse bins holding node examples is a real
  split, evaluated in O(C): g is the least boundary score over all features;
* the splits *inside* a coarse bin b (left weights L = P + x, P the class
  weights of the bins before b, x between 0 and the bin's class weights B,
  componentwise) score at least the minimum of f(L) + f(T - L) over that box.
  The score is concave in x (f is concave), so its minimum over the box is
  at a vertex: ``inner_bound`` takes the least of the 2^C vertices for C <= 4
  (two of them, P and P + B, are the bin's boundaries, scored already: each
  feature's boundaries and bounds take one pass over its bins), and for more
  classes f(P) + f(T - P - B) (superadditivity: f(P + x) >= f(P) and
  f(T - P - x) >= f(T - P - B)).

A feature *survives* when its least boundary score or inner bound is within
``margin`` of g; ``survivors`` returns them in the order given, and the
exhaustive search then runs on them alone (``search.run_exhaustive``): it
computes their canonical scores, so the split and its score are the ones the
search over every feature returns, bit for bit.

Why no excluded feature can be returned.  Let every computed score be within
delta of its real value (both the coarse and the canonical computations).
The canonical optimum s* is at most the canonical score of the boundary
attaining g, so s* <= g + 2 delta.  An excluded feature's every split has a
real score above g + margin - delta (a boundary: its computed score exceeds
g + margin; inside a bin: its real score is at least the real vertex
minimum, within delta of the computed bound), so its canonical score exceeds
g + margin - 2 delta = g + 2 delta + tie >= s* + tie with
``margin = tie + 4 delta``: it is neither the optimum nor within the search's
tie window of it.

The rounding bound delta (``margin``).  With eta a bound on the summed
absolute error of any child's computed class weights: error and gini change
by at most 2 eta per child (slopes in [0, 2], ``criteria``), entropy by at
most 2 eta (2 + log2(1 + W / eta)) (the modulus of continuity of z log z),
and evaluating f costs a few ulps of W per class.  A histogram summed from
n rows has eta <= (n + 2 MAX_COARSE) u W (u = 2^-53: each bin's sum, then a
prefix over at most MAX_COARSE bins and the total); one whose dominant bin is
the node's totals minus the other bins (a listed feature, ``_sum_listed``, or
a sparse feature's rest bin, ``build_sparse``) adds the totals' n u W and a
subtraction: (2 n + 3 MAX_COARSE) u W; the larger child's,
parent minus smaller, adds both histograms' eta and one rounding per bin
(u W_parent per prefix); the canonical sums (``stats``: one-level, or
two-level through the node's coarse bins) have eta <= (n + 2 MAX_COARSE) u W
beyond the histogram's own, so eta = error + (2 n + 2 MAX_COARSE) u W bounds both.

The helpers called per feature or per bin (the bounds, the sums into a
feature's bins, ``is_two_level``, ``_is_listed``) are compiled without numba's
reference counting (``_nrt=False``; why: ``refine``'s docstring) and so
allocate nothing; the kernels that call them per node allocate their scratch.
Those per-node loops keep the counts, though a feature's views cost two
updates there: moving ``build_sparse``'s zero bins, ``_bounds_lane``'s loop and
``_clear`` out of them made a8a's trees 15-20% slower on a Zen 1 machine,
for a reason not found (docs/benchmarks.md, "tried, not kept").
"""

import math
from collections import namedtuple

import numpy as np
from numba import njit, prange

from .criteria import ERROR, GINI, TIGHT, split_value
from .lanes import PRANGE_ONLY, lane_count, share
from .stats import DENSE_RATIO, _full_split, flagged, two_class_split, unit_factors
from .unsigned import u

MAX_COARSE = 256  # coarse bins per feature: codes fit in uint8
ULP = 2.0 ** -53
TINY = 1e-300  # a positive floor for a division by a sum of weights that may be 0
MAX_VERTEX_CLASSES = 4  # inner bounds enumerate the 2^C vertices up to this many classes
PAYS_VALUES_PER_BIN = 2  # prefilter="auto": once the plain scans would visit 2 values per coarse bin
TWO_LEVEL_VALUES_PER_BIN = 4  # a dense feature with more values per coarse bin sums in two levels
UNGROUPED_ROWS_PER_BIN = 8  # no grouped candidate, > 2 classes: once the node holds 8 rows per bin
LANE_ROWS_PER_BIN = 8  # a level feature sums in four lanes at a node of this many rows per bin
ROW_GROUP = 4  # two-level features summed in one pass at a node of every row (``_add_four_rows``)
NEVER = 2 ** 31  # a min_mean_bins no node reaches (a feature has fewer bins than rows)
LISTED_SHARE = 0.5  # a feature whose one coarse bin holds this share of the rows lists the others
LISTED_ROW_COST = 2  # a listed row costs about two rows of a node summed in full (three gathers)

CoarseBins = namedtuple("CoarseBins", [
    "codes",     # dense: (K, n) uint8 coarse bin of every example; sparse: empty
    # sparse: each row's entries outside its feature's rest bin (``list_sparse_entries``)
    "listed_indptr",    # (n + 1) int64: row i's entries are listed_indptr[i]:listed_indptr[i + 1]
    "listed_bins",      # int32: each entry's global coarse bin
    "rest_bin",  # sparse: per feature, the global coarse bin of its rows not listed (the one
                 # holding the most rows, its implicit zeros' on a tie); dense: -1
    "listed_rows",  # sparse: per feature, how many rows it lists; dense: 0
    "bin_feature",  # sparse: per global coarse bin, its feature (int32); dense: empty
    "offsets",   # (K + 1) int64: feature k's coarse bins are offsets[k]:offsets[k + 1]
    "span",      # per global coarse bin, how many exact ranks (distinct values) it holds
    "of_rank",   # per exact bin (Dataset.bin_offsets layout), its coarse bin within its feature
    "min_mean_bins",  # the prefilter runs where the plain scans average this many bins (``pays``)
    "by_rank",   # dense two-level features: each one's rows sorted by rank, in index order
                 # within a rank (int32), the features one after another; else empty
    "bin_rows",  # per global coarse bin, + 1: where its rows start in ``by_rank``; bin g's
                 # rows are by_rank[bin_rows[g]:bin_rows[g + 1]] (none: not two-level)
    # dense: the rows outside each feature's dominant bin (``OtherRows``' fields; numba's
    # parallel loops take no namedtuple inside a namedtuple)
    "dominant", "other_offsets", "other_rows", "other_codes",
])

ListedEntries = namedtuple("ListedEntries", [  # CoarseBins' sparse fields, in order
    "indptr", "bins", "rest_bin", "rows", "bin_feature",
])

OtherRows = namedtuple("OtherRows", [
    "dominant",  # per feature, its coarse bin (within it) of LISTED_SHARE of the rows or more,
                 # -1 if none (or two-level: its histogram is its canonical sums)
    "offsets",   # (K + 1) int64: feature k's other rows are rows[offsets[k]:offsets[k + 1]]
    "rows",      # int32: the rows outside each listed feature's dominant bin, ascending
    "codes",     # uint8: their coarse bins within the feature
])

BinBounds = namedtuple("BinBounds", [
    "inner",     # per global coarse bin, a lower bound on its inner splits' scores
    "boundary",  # ... the canonical score of the split after it (+inf: an empty bin): the
                 # node's coarse sums are a two-level feature's canonical sums (``stats``)
])

BoundsScratch = namedtuple("BoundsScratch", [
    # a lane's scratch for ``_feature_bounds``, sized for its widest feature (w bins)
    "scores",   # (4, w + 1): ``_two_class_scores``' rows
    "listed",   # (w,) int64: a small node's nonempty bins
    "vectors",  # (4, C): class vectors (``generic_feature_bounds``, f(T))
])

BinSums = namedtuple("BinSums", [
    # what a feature's bounds read, and no more: a call per feature is passed every
    # field of the records it takes, and CoarseBins has 16
    "offsets",  # CoarseBins': feature k's coarse bins are offsets[k]:offsets[k + 1]
    "span",     # CoarseBins': the exact ranks (distinct values) each bin holds
    "weights",  # NodeHistogram's (bins, C) class weights of the node's examples
    "counts",   # NodeHistogram's examples per bin
])

NodeHistogram = namedtuple("NodeHistogram", [
    "weights",   # (total coarse bins, C) class weights of the node's examples per coarse bin
    "counts",    # (total coarse bins,) int64 examples per coarse bin
    "error",     # (1,) bound on the summed absolute rounding error of any prefix (eta)
])


@njit(cache=True)
def group_ranks(counts, max_bins):
    """Coarse bin (0, 1, ...) of every rank of a feature with ``counts`` examples per rank:
    consecutive ranks filled greedily up to 2 n / max_bins examples, a rank that
    would overflow the current bin starting the next.  Two consecutive bins hold
    more than that together, so there are at most ``max_bins``; a value holding
    many examples gets a bin of its own, whose inside has no split."""
    n = 0
    for r in range(counts.shape[0]):
        n += counts[r]
    capacity = 2 * n / max_bins
    out = np.empty(counts.shape[0], np.int64)
    b = 0
    filled = 0
    for r in range(counts.shape[0]):
        if filled > 0 and filled + counts[r] > capacity:
            b += 1
            filled = 0
        out[r] = b
        filled += counts[r]
    return out


@njit(cache=True)
def pays(coarse, bin_offsets, feats, n, n_classes):
    """Whether the prefilter is used at a node of n rows of ``n_classes`` classes.

    Two classes: at every node.  Their bounds are scored in vectorized loops
    (``_two_class_scores``), and every binary set was as fast or faster so, at depth 3
    and deeper (``benchmarks.stock --depth 8 --rounds 30``: higgs7k 0.53 -> 0.33 s,
    a8a 0.23 -> 0.21 s with the day's other changes; docs/benchmarks.md).

    More classes: the search without it scans
    up to min(values, DENSE_RATIO n) bins per feature (``stats``); the prefilter runs
    once they average at least ``coarse.min_mean_bins`` over the features whose values
    are grouped into coarse bins, the ones whose bins it bounds (``Dataset(prefilter=)``:
    "auto" ``PAYS_VALUES_PER_BIN`` per coarse bin, 512 at 256 bins; a feature of one
    coarse bin per value costs about the same either way).  Measured with the scaling
    benchmark on higgs7k and ijcnn1 (docs/benchmarks.md): faster or level over 10
    rounds at every size, over 100 rounds but at higgs7k's 7,000 rows (20% slower).

    Without a grouped candidate its histograms are the exact ones: it buys the sibling
    subtraction (the larger child's histogram costs its bins, not its rows), and only
    the features within the margin of the best boundary are summed again canonically.
    Its scans (a boundary score per bin) and the subtraction cost about C + 5 visits
    per bin, the plain search about one pass of the node's rows per feature: it runs
    where the node holds ``UNGROUPED_ROWS_PER_BIN`` rows per bin of its candidates, so
    deep trees' small nodes stay plain (docs/stock.md: faster at depth 3 on every set
    without a grouped feature; at every node down to half the bins, depth-12 trees
    were 18-23% slower)."""
    if coarse.min_mean_bins == 0 or coarse.min_mean_bins >= NEVER:  # forced on, or off
        return coarse.min_mean_bins == 0
    if n_classes == 2:
        return True
    total = 0
    grouped = 0
    every = 0  # every candidate's bins
    for j in range(feats.shape[0]):
        k = feats[j]
        values = bin_offsets[k + 1] - bin_offsets[k]
        if values > coarse.offsets[k + 1] - coarse.offsets[k]:
            total += min(values, DENSE_RATIO * n)
            grouped += 1
        every += values
    if grouped == 0:
        return n * feats.shape[0] >= UNGROUPED_ROWS_PER_BIN * every
    return total >= coarse.min_mean_bins * grouped


def no_coarse_bins():
    """An empty CoarseBins, for the kernels' searches that use none (``pays`` never)."""
    empty = np.zeros(0, np.int64)
    return CoarseBins(np.zeros((0, 0), np.uint8), *no_listed_entries(0), np.zeros(1, np.int64),
                      empty, np.zeros(0, np.uint8), NEVER, np.zeros(0, np.int32), np.zeros(1, np.int64),
                      *no_other_rows(0))


@njit(cache=True)
def no_listed_entries(n_features):
    """The ``ListedEntries`` of dense CoarseBins (of ``n_features`` features): none."""
    return ListedEntries(np.zeros(1, np.int64), np.zeros(0, np.int32),
                         np.full(n_features, -1, np.int64), np.zeros(n_features, np.int64),
                         np.zeros(0, np.int32))


@njit(cache=True)
def no_other_rows(n_features):
    """OtherRows listing none of ``n_features`` features."""
    return OtherRows(np.full(n_features, -1, np.int64), np.zeros(n_features + 1, np.int64),
                     np.zeros(0, np.int32), np.zeros(0, np.uint8))


@njit(cache=True)
def list_other_rows(codes, offsets, two_level):
    """The ``OtherRows`` of dense coarse ``codes`` (K, n), feature k's coarse bins
    offsets[k]:offsets[k + 1]: a feature not ``two_level`` whose most frequent bin holds
    LISTED_SHARE of the rows or more lists the rows outside it, with their bins."""
    K, n = codes.shape
    dominant = np.full(K, -1, np.int64)
    list_offsets = np.zeros(K + 1, np.int64)
    for k in range(K):
        listed = 0
        if not two_level[k]:
            counts = np.zeros(offsets[k + 1] - offsets[k], np.int64)
            for i in range(n):
                counts[codes[k, i]] += 1
            d = np.argmax(counts)
            if counts[d] >= LISTED_SHARE * n:
                dominant[k] = d
                listed = n - counts[d]
        list_offsets[k + 1] = list_offsets[k] + listed
    rows = np.empty(list_offsets[K], np.int32)
    list_codes = np.empty(list_offsets[K], np.uint8)
    for k in range(K):
        e = list_offsets[k]
        for i in range(n if dominant[k] >= 0 else 0):
            if codes[k, i] != dominant[k]:
                rows[e] = i
                list_codes[e] = codes[k, i]
                e += 1
    return OtherRows(dominant, list_offsets, rows, list_codes)


@njit(cache=True)
def list_sparse_entries(csr_indptr, csr_features, entry_bins, zero_bin, offsets):
    """The ``ListedEntries`` of sparse coarse bins: CSR rows whose entries have global
    coarse bins ``entry_bins``; feature k's bins offsets[k]:offsets[k + 1], its implicit
    zeros' ``zero_bin[k]`` (-1: none).

    Each feature's *rest bin* is its coarse bin holding the most rows, zeros
    included (its zeros' on a tie); a row is listed under feature k when its bin
    differs from it: its stored entries outside the rest bin, and, where the rest
    bin is not the zeros' (a column mostly stored, one-hot's common values), its
    implicit zeros.  A node's histogram adds the listed entries and gives the rest
    bin the node's totals minus them (``build_sparse``).  A column whose rest bin is
    not its zeros' lists fewer rows than it stores (the rest bin holds more rows than
    the zeros' bin): agaricus's rows list 16.2 entries instead of 22, a8a's 9.9
    instead of 13.9.  A row lists its stored entries first, then its zeros."""
    n, K = csr_indptr.shape[0] - 1, offsets.shape[0] - 1
    rows_in = np.zeros(offsets[K], np.int64)
    stored = np.zeros(K, np.int64)
    for e in range(entry_bins.shape[0]):
        rows_in[entry_bins[e]] += 1
        stored[csr_features[e]] += 1
    rest_bin = np.empty(K, np.int64)
    zeros_listed = np.zeros(K, np.bool_)
    for k in range(K):
        if zero_bin[k] >= 0:
            rows_in[zero_bin[k]] += n - stored[k]
        rest_bin[k] = offsets[k] + np.argmax(rows_in[offsets[k]:offsets[k + 1]])
        if zero_bin[k] >= 0 and rows_in[zero_bin[k]] == rows_in[rest_bin[k]]:
            rest_bin[k] = zero_bin[k]
        zeros_listed[k] = zero_bin[k] >= 0 and rest_bin[k] != zero_bin[k]
    filled = np.flatnonzero(zeros_listed)
    indptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        listed = filled.shape[0]
        for e in range(csr_indptr[i], csr_indptr[i + 1]):
            k = csr_features[e]
            listed += np.int64(entry_bins[e] != rest_bin[k]) - np.int64(zeros_listed[k])
        indptr[i + 1] = indptr[i] + listed
    bins = np.empty(indptr[n], np.int32)
    stored_in = np.full(K, -1, np.int64)  # the last row that stores each feature
    for i in range(n):
        m = indptr[i]
        for e in range(csr_indptr[i], csr_indptr[i + 1]):
            k = csr_features[e]
            stored_in[k] = i
            if entry_bins[e] != rest_bin[k]:
                bins[m] = entry_bins[e]
                m += 1
        for k in filled:
            if stored_in[k] != i:  # an implicit zero, outside its feature's rest bin
                bins[m] = zero_bin[k]
                m += 1
    listed_rows = np.empty(K, np.int64)
    bin_feature = np.empty(offsets[K], np.int32)
    for k in range(K):
        listed_rows[k] = n - rows_in[rest_bin[k]]
        bin_feature[offsets[k]:offsets[k + 1]] = k
    return ListedEntries(indptr, bins, rest_bin, listed_rows, bin_feature)


@njit(cache=True)
def sort_by_rank(codes, counts, out):
    """Rows 0 .. n - 1 into ``out`` sorted by their rank ``codes`` (a counting sort, so
    stable: index order within a rank), ``counts`` the rows per rank."""
    start = np.empty(counts.shape[0], np.int64)
    position = 0
    for r in range(counts.shape[0]):
        start[r] = position
        position += counts[r]
    for i in range(codes.shape[0]):
        r = codes[i]
        out[start[r]] = i
        start[r] += 1


@njit(cache=True)
def new_histogram(coarse, n_classes):
    """A zeroed NodeHistogram for every coarse bin of ``coarse``."""
    total = coarse.offsets[-1]
    return NodeHistogram(np.zeros((total, n_classes)), np.zeros(total, np.int64), np.zeros(1))


@njit(cache=True)
def _clear(coarse, feats, hist):
    for j in range(feats.shape[0]):
        k = feats[j]
        for b in range(coarse.offsets[k], coarse.offsets[k + 1]):
            hist.counts[b] = 0
            for c in range(hist.weights.shape[1]):
                hist.weights[b, c] = 0.0


@njit(cache=True, _nrt=False)
def is_two_level(coarse, k):
    """Whether feature k is two-level (``BinnedData.two_level``): only a two-level
    feature's coarse bins list its rows by rank (``by_rank``)."""
    return coarse.bin_rows[coarse.offsets[k + 1]] > coarse.bin_rows[coarse.offsets[k]]


@njit(cache=True, _nrt=False)
def _sum_in_order(codes, w_node, y_node, weights, counts):
    for p in range(codes.shape[0]):
        b = np.intp(codes[p])
        weights[b, u(y_node[p])] += w_node[p]
        counts[b] += 1


@njit(cache=True, _nrt=False)
def _sum_in_lanes(codes, w_node, y_node, weights, counts, lane_weights, lane_counts):
    """Row p into lane p mod 4, the lanes added pairwise at the end: four independent
    chains of adds where one bin holds most rows (few values, or one dominant value),
    whose adds would otherwise each wait on the previous one's store (ijcnn1's root
    at 56,000 rows, ten of its features 4-valued: 2.09 -> 1.13 ms, benchmarks.phases).
    Each lane's sum rounds within (n / 4) u W and the pairwise adds within 2 u W more,
    inside the margin's (n + 2 MAX_COARSE) u W."""
    m = weights.shape[0]
    lane_weights[:, :m] = 0.0
    lane_counts[:, :m] = 0
    n = codes.shape[0]
    whole = n - n % 4
    for p in range(0, whole, 4):
        for lane in range(4):  # unrolled by LLVM: four independent load-add-stores
            b = np.intp(codes[p + lane])
            lane_weights[lane, b, u(y_node[p + lane])] += w_node[p + lane]
            lane_counts[lane, b] += 1
    _sum_in_order(codes[whole:], w_node[whole:], y_node[whole:], lane_weights[0], lane_counts[0])
    for b in range(m):
        counts[b] = ((lane_counts[0, b] + lane_counts[1, b])
                     + (lane_counts[2, b] + lane_counts[3, b]))
        for c in range(weights.shape[1]):
            weights[b, c] = ((lane_weights[0, b, c] + lane_weights[1, b, c])
                             + (lane_weights[2, b, c] + lane_weights[3, b, c]))


NodeRows = namedtuple("NodeRows", [
    "index_order",  # the node's rows, ascending
    "w",            # their weights, in that order
    "y",            # their classes
    "totals",       # (C,) their class weights, summed in that order
    "w_all",        # per row of X, its weight if in the node, else 0 (for listed features)
    "y_all",        # per row of X, its class
    "in_node",      # per row of X, 1 if in the node, else 0 (uint8; for listed features)
])


@njit(cache=True, _nrt=False)
def _is_listed(coarse, k, n):
    """Whether feature k's histogram at a node of n rows is summed from its other rows."""
    return coarse.dominant[k] >= 0 and \
        LISTED_ROW_COST * (coarse.other_offsets[k + 1] - coarse.other_offsets[k]) <= n


@njit(cache=True, _nrt=False)
def _sum_listed(coarse, k, node, weights, counts, sums):
    """A listed feature's histogram from its rows outside the dominant bin (the node's
    weights and marks of every row of X, 0 outside it: adding 0.0 changes no sum), then
    the dominant bin's as the rest of the node (``_add_the_rest``, as ``build_sparse``
    derives a sparse feature's rest bin)."""
    weights[:] = 0.0
    counts[:] = 0
    w_all, y_all, in_node = node.w_all, node.y_all, node.in_node
    for e in range(coarse.other_offsets[k], coarse.other_offsets[k + 1]):
        i = u(coarse.other_rows[e])
        b = np.intp(coarse.other_codes[e])
        weights[b, u(y_all[i])] += w_all[i]
        counts[b] += in_node[i]
    _add_the_rest(weights, counts, coarse.dominant[k], node.totals, node.index_order.shape[0],
                  sums)


@njit(cache=True, _nrt=False)
def _add_the_rest(weights, counts, d, totals, n, stored):
    """Add to bin d of one feature's histogram (``weights``, ``counts``: its bins) the node's
    n rows not counted in it: the counts exactly, the weights as the node's class
    ``totals`` minus the bins' sums (clamped at 0; none added when no row is left).  A
    sparse feature's rest bin (``build_sparse``) and a listed feature's dominant
    bin (``_sum_listed``).  ``stored``: (C,) scratch."""
    stored[:] = 0.0
    n_stored = 0
    for b in range(weights.shape[0]):
        n_stored += counts[b]
        for c in range(stored.shape[0]):
            stored[c] += weights[b, c]
    if n_stored < n:
        counts[d] += n - n_stored
        for c in range(stored.shape[0]):
            weights[d, c] += max(totals[c] - stored[c], 0.0)


FeatureScratch = namedtuple("FeatureScratch", [
    "gathered",      # (n) uint8: a feature's codes of the node's rows (unused at every row)
    "lane_weights",  # (4, MAX_COARSE, C), ``_sum_in_lanes``
    "lane_counts",   # (4, MAX_COARSE)
    "sums",          # (C), ``_sum_listed``
])


@njit(cache=True)
def _build_features(coarse, feats, first, last, node, hist):
    """Sum the coarse bins of the candidates ``feats[first:last]`` (each its own bins),
    cleared first (``_sum_feature``); at a node of every row, the two-level features
    ROW_GROUP at a time (``_sum_every_row``)."""
    n = node.index_order.shape[0]
    every_row = n == coarse.codes.shape[1]  # index_order is 0 .. n - 1
    scratch = FeatureScratch(np.empty(0 if every_row else n, np.uint8),
                             np.empty((4, MAX_COARSE, hist.weights.shape[1])),
                             np.empty((4, MAX_COARSE), np.int64), np.empty(hist.weights.shape[1]))
    group = np.empty(ROW_GROUP, np.int64)
    grouped = 0
    for j in range(first, last):
        k = feats[j]
        if every_row and is_two_level(coarse, k) and not _is_listed(coarse, k, n):
            group[grouped] = k
            grouped += 1
            if grouped == ROW_GROUP:
                _sum_every_row(coarse, group, node.w, node.y, hist)
                grouped = 0
            continue
        _sum_feature(coarse, k, node, hist, scratch)
    for j in range(grouped):
        _sum_feature(coarse, group[j], node, hist, scratch)


@njit(cache=True)
def _sum_feature(coarse, k, node, hist, scratch):
    """Feature k's coarse bins, cleared first: a listed feature's from its other rows
    where they are few enough (``_sum_listed``), a two-level feature's in row order, the
    others' in lanes."""
    index_order = node.index_order
    n = index_order.shape[0]
    lo, hi = coarse.offsets[k], coarse.offsets[k + 1]
    weights = hist.weights[lo:hi]
    counts = hist.counts[lo:hi]
    if _is_listed(coarse, k, n):
        _sum_listed(coarse, k, node, weights, counts, scratch.sums)
        return
    gathered = coarse.codes[k]
    if n != coarse.codes.shape[1]:
        gathered = scratch.gathered
        for p in range(n):
            gathered[p] = coarse.codes[k, u(index_order[p])]
    # a two-level feature's histogram is its canonical sums (``stats``); lanes pay
    # where the rows outnumber the four lanes' bins to clear and add
    if is_two_level(coarse, k) or n < LANE_ROWS_PER_BIN * (hi - lo):
        weights[:] = 0.0
        counts[:] = 0
        _sum_in_order(gathered, node.w, node.y, weights, counts)
    else:
        _sum_in_lanes(gathered, node.w, node.y, weights, counts, scratch.lane_weights,
                      scratch.lane_counts)


@njit(cache=True, _nrt=False)
def _sum_every_row(coarse, group, w, y, hist):
    """At a node of every row, the coarse bins of the ROW_GROUP two-level features
    ``group``: their counts are the whole data's (``bin_rows``), and their weights are
    summed in one pass over the rows (``_add_four_rows``)."""
    weights, counts, offsets = hist.weights, hist.counts, coarse.offsets
    for f in range(ROW_GROUP):
        for g in range(offsets[group[f]], offsets[group[f] + 1]):
            counts[g] = coarse.bin_rows[g + 1] - coarse.bin_rows[g]
            for c in range(weights.shape[1]):
                weights[g, c] = 0.0
    k0, k1, k2, k3 = group[0], group[1], group[2], group[3]
    _add_four_rows(coarse.codes[k0], coarse.codes[k1], coarse.codes[k2], coarse.codes[k3], w, y,
                   weights[offsets[k0]:], weights[offsets[k1]:], weights[offsets[k2]:],
                   weights[offsets[k3]:])


@njit(cache=True, _nrt=False)
def _add_four_rows(codes_0, codes_1, codes_2, codes_3, w, y, hist_0, hist_1, hist_2, hist_3):
    """Row i's weight added to its class in its bin of each of four features (codes
    ``codes_f``, bins ``hist_f``), rows in order: each (bin, class) adds its rows in
    row order, as ``_sum_in_order`` does, and no count is added per row.  The four
    features' adds are independent, and a store per (row, feature) is saved: 28.6
    against 44 us for four higgs7k features at 7,000 rows *(probe)*."""
    for i in range(w.shape[0]):
        c = u(y[i])
        weight = w[i]
        hist_0[np.intp(codes_0[i]), c] += weight
        hist_1[np.intp(codes_1[i]), c] += weight
        hist_2[np.intp(codes_2[i]), c] += weight
        hist_3[np.intp(codes_3[i]), c] += weight


@njit(cache=True)
def _node_rows(coarse, feats, index_order, w, y, totals):
    """The ``NodeRows`` of the node's rows ``index_order`` with its class ``totals``
    (every row of X's weight and mark only if a candidate is listed at this node,
    ``_is_listed``; else ``in_node`` is empty)."""
    n = index_order.shape[0]
    N = coarse.codes.shape[1]
    w_node, y_node = w, y
    if n != N:
        w_node = np.empty(n)
        y_node = np.empty(n, y.dtype)
        for p in range(n):
            i = u(index_order[p])
            w_node[p] = w[i]
            y_node[p] = y[i]
    listed = False
    for j in range(feats.shape[0]):
        listed = listed or _is_listed(coarse, feats[j], n)
    w_all, in_node = w, np.zeros(0, np.uint8)
    if listed and n == N:
        in_node = np.ones(N, np.uint8)
    elif listed:
        w_all = np.zeros(N)
        in_node = np.zeros(N, np.uint8)
        for p in range(n):
            i = u(index_order[p])
            w_all[i] = w_node[p]
            in_node[i] = 1
    return NodeRows(index_order, w_node, y_node, totals, w_all, y, in_node)


@njit(cache=True)
def build_dense(coarse, feats, index_order, w, y, totals, hist, n_threads):
    """The node's coarse histogram of every candidate feature: per feature, its codes
    gathered for the node's rows (index order), then summed into its bins, or its rows
    outside its dominant bin summed (``_sum_listed``); the features in ``n_threads``
    contiguous shares, one per thread (``_build_shares``).  A feature's bins are summed
    by one thread in row order, so the histogram is the same for any thread count.  A
    node of every row reads the weights and classes in place (index_order is 0 .. n - 1)."""
    n = index_order.shape[0]
    node = _node_rows(coarse, feats, index_order, w, y, totals)
    _build_shares(coarse, feats, node, hist, n_threads)
    total = 0.0
    for c in range(node.totals.shape[0]):
        total += node.totals[c]
    # a listed feature's dominant bin adds one subtraction of two sums of n rows each
    listed = node.in_node.shape[0] > 0
    hist.error[0] = ((2 * n + 3 * MAX_COARSE) if listed else (n + 2 * MAX_COARSE)) * ULP * total


@njit(cache=True, parallel=PRANGE_ONLY)
def _build_shares(coarse, feats, node, hist, n_threads):
    """``_build_features`` of ``feats`` in ``n_threads`` contiguous shares (a parallel
    loop of its own: numba's parallel loops take a namedtuple made outside them only)."""
    F = feats.shape[0]
    lanes = lane_count(n_threads, F, node.index_order.shape[0] * F)
    if lanes == 1:
        _build_features(coarse, feats, np.int64(0), F, node, hist)
    else:
        for lane in prange(lanes):
            first, last = share(lane, lanes, F)
            _build_features(coarse, feats, first, last, node, hist)


@njit(cache=True)
def build_sparse(coarse, data, feats, slot, index_order, w, y, totals, hist):
    """The node's coarse histogram from its rows' listed entries (one pass over them,
    ``slot[k] >= 0`` marking the candidate columns; ``list_sparse_entries``); each
    feature's rest bin gets the node's class ``totals`` minus its listed entries'.

    At a node of every row with two classes, a one-hot column (one stored value
    beside its zeros) is summed down its stored rows instead (``_sum_one_hot``),
    in registers: the row pass's adds to a bin shared by consecutive rows wait on
    each other through memory, and the stored rows' counts are known."""
    C = hist.weights.shape[1]
    n = index_order.shape[0]
    weights, counts = hist.weights, hist.counts
    _clear(coarse, feats, hist)
    wanted, n_summed = slot, 0
    if C == 2 and n == data.csr_indptr.shape[0] - 1:
        wanted, n_summed = _sum_one_hot(coarse, data, feats, slot, w, y, totals, hist)
    indptr, bins, bin_feature = coarse.listed_indptr, coarse.listed_bins, coarse.bin_feature
    every_column = n_summed == 0 and feats.shape[0] == slot.shape[0]  # no test per entry
    if _lists_any(coarse, feats, wanted):
        for p in range(n):
            i = u(index_order[p])
            c = u(y[i])
            wi = w[i]
            for e in range(u(indptr[i]), u(indptr[i + 1])):
                b = u(bins[e])
                if every_column or wanted[u(bin_feature[b])] >= 0:
                    weights[b, c] += wi
                    counts[b] += 1
    stored = np.empty(C)
    for j in range(feats.shape[0]):
        k = feats[j]
        lo, hi = coarse.offsets[k], coarse.offsets[k + 1]
        if wanted[k] >= 0:
            _add_the_rest(weights[lo:hi], counts[lo:hi], coarse.rest_bin[k] - lo, totals, n,
                          stored)
    total = 0.0
    for c in range(C):
        total += totals[c]
    # the rest bins add one subtraction of two sums of at most n rows each
    hist.error[0] = (2 * n + 3 * MAX_COARSE) * ULP * total


@njit(cache=True)
def _lists_any(coarse, feats, wanted):
    """Whether a feature of ``feats`` that is ``wanted`` (>= 0) lists a row."""
    for j in range(feats.shape[0]):
        k = feats[j]
        if wanted[k] >= 0 and coarse.listed_rows[k] > 0:
            return True
    return False


@njit(cache=True)
def _sum_one_hot(coarse, data, feats, slot, w, y, totals, hist):
    """At a node of every row (two classes), the histogram of each one-hot candidate
    column: its stored value's bin counts the column's stored entries, its class
    weights summed down its stored rows (ascending) in registers, in two interleaved
    running sums each (their sum is a sum of the same terms: the same error bound);
    its zeros' bin gets the rest of the node (``_add_the_rest``).  Returns ``slot``
    with those columns marked -1, for the row pass to skip, and their count."""
    unit = unit_factors()
    second = np.empty(w.shape[0])  # each row's weight if of class 1, else 0.0
    for i in range(w.shape[0]):
        second[i] = flagged(w[i], np.intp(y[i] != 0), unit)
    wanted = slot.copy()
    n_summed = 0
    stored = np.empty(2)
    rows = data.csc_rows
    for j in range(feats.shape[0]):
        k = feats[j]
        first_rank, end_rank = data.bin_offsets[k], data.bin_offsets[k + 1]
        if end_rank - first_rank != 2 or data.zero_rank[k] < 0:
            continue
        b = coarse.offsets[k] + coarse.of_rank[first_rank + 1 - data.zero_rank[k]]
        first, last = data.csc_indptr[k], data.csc_indptr[k + 1]
        even_0, even_1, odd_0, odd_1 = 0.0, 0.0, 0.0, 0.0  # class sums, alternate rows
        e = first
        while e + 1 < last:
            i, i2 = u(rows[e]), u(rows[e + 1])
            even_1 += second[i]
            even_0 += w[i] - second[i]
            odd_1 += second[i2]
            odd_0 += w[i2] - second[i2]
            e += 2
        if e < last:
            i = u(rows[e])
            even_1 += second[i]
            even_0 += w[i] - second[i]
        hist.weights[b, 0] = even_0 + odd_0
        hist.weights[b, 1] = even_1 + odd_1
        hist.counts[b] = last - first
        f_lo, f_hi = coarse.offsets[k], coarse.offsets[k + 1]
        zero = coarse.of_rank[first_rank + data.zero_rank[k]]
        _add_the_rest(hist.weights[f_lo:f_hi], hist.counts[f_lo:f_hi], np.intp(zero), totals,
                      w.shape[0], stored)
        wanted[k] = -1
        n_summed += 1
    return wanted, n_summed


@njit(cache=True)
def subtract(coarse, feats, parent, smaller, parent_weight):
    """Turn ``parent`` into its larger child's histogram: parent minus ``smaller``
    (counts exactly; weights with one rounding per bin, added to the error, and
    clamped to the real weights' range: 0 in a bin without the child's examples, at
    least 0 elsewhere, which only brings them closer).  These are the larger child's
    canonical coarse sums (``stats``)."""
    C = parent.weights.shape[1]
    for j in range(feats.shape[0]):
        k = feats[j]
        for b in range(coarse.offsets[k], coarse.offsets[k + 1]):
            parent.counts[b] -= smaller.counts[b]
            empty = parent.counts[b] == 0
            for c in range(C):
                parent.weights[b, c] = 0.0 if empty else \
                    max(parent.weights[b, c] - smaller.weights[b, c], 0.0)
    parent.error[0] += smaller.error[0] + 2 * MAX_COARSE * ULP * parent_weight


@njit(cache=True)
def margin(crit_classes, error, n, node_weight, tie):
    """``tie + 4 delta`` for histogram error ``error`` (module docstring)."""
    eta = error + (2.0 * n + 2 * MAX_COARSE) * ULP * node_weight
    if eta <= 0.0 or node_weight <= 0.0:
        return tie
    delta = 2.0 * eta * (2.0 + math.log2(1.0 + node_weight / eta)) * 2.0 \
        + 16.0 * crit_classes * ULP * node_weight
    return tie + 4.0 * delta


@njit(cache=True, _nrt=False)
def _split_score(crit, left, totals, right):
    """f(L) + f(T - L) (``criteria.split_value``, inlined into this call)."""
    for c in range(left.shape[0]):
        right[c] = totals[c] - left[c]
    return split_value(crit, TIGHT, left, right, right, 0.0, False)[0]


@njit(cache=True, _nrt=False)
def box_bound(crit, low, high, totals, limit, left, right):
    """A lower bound on f(L) + f(T - L) over the box low <= L <= high (componentwise):
    the least value at its vertices for C <= MAX_VERTEX_CLASSES (the score is concave
    in L), else, or when that is already above ``limit`` (the vertex minimum is at
    least it), f(low) + f(T - high) (f is superadditive and nonnegative, so f(L) >=
    f(low) and f(T - L) >= f(T - high)); two classes without arrays
    (``_two_class_box_bound``)."""
    C = low.shape[0]
    if C == 2:
        return _two_class_box_bound(crit, low[0], low[1], high[0], high[1], totals[0], totals[1],
                                    limit)
    for c in range(C):
        right[c] = totals[c] - high[c]
    superadditive = split_value(crit, TIGHT, low, right, right, 0.0, False)[0]
    if C > MAX_VERTEX_CLASSES or superadditive > limit:
        return superadditive
    corners = min(_split_score(crit, low, totals, right), _split_score(crit, high, totals, right))
    return min(corners, _other_vertices(crit, low, high, totals, left, right))


@njit(cache=True, inline='always')
def _two_class_box_bound(crit, low0, low1, high0, high1, t0, t1, limit):
    """``box_bound`` of two classes: f(low) + f(T - high) when above ``limit``, else the
    least score at the box's four vertices (``stats.two_class_split``)."""
    superadditive = _two_class_impurity(crit, low0, low1) + \
        _two_class_impurity(crit, t0 - high0, t1 - high1)
    if superadditive > limit:
        return superadditive
    W = t0 + t1
    return min(two_class_split(crit, low0, low1, t0, t1, W),
               two_class_split(crit, high0, high1, t0, t1, W),
               two_class_split(crit, high0, low1, t0, t1, W),
               two_class_split(crit, low0, high1, t0, t1, W))


@njit(cache=True, _nrt=False)
def _other_vertices(crit, prefix, high, totals, left, right):
    """The least score at the vertices of the box ``prefix`` <= L <= ``high`` other than
    its corners P and P + B, for C <= MAX_VERTEX_CLASSES; for more classes
    f(P) + f(T - P - B) (``inner_bound``).  ``left``, ``right``: scratch."""
    C = prefix.shape[0]
    if C > MAX_VERTEX_CLASSES:
        for c in range(C):
            right[c] = totals[c] - high[c]
        return split_value(crit, TIGHT, prefix, right, right, 0.0, False)[0]
    best = math.inf
    for mask in range(1, (1 << C) - 1):
        for c in range(C):
            left[c] = high[c] if (mask >> c) & 1 else prefix[c]
        best = min(best, _split_score(crit, left, totals, right))
    return best


@njit(cache=True, _nrt=False)
def inner_bound(crit, prefix, high, totals, before, after, left, right):
    """A lower bound on the score of a split inside a coarse bin whose left weights
    range over the box ``prefix`` <= L <= ``high`` (P, the bins before it, and P + B):
    for C <= MAX_VERTEX_CLASSES the least score at the box's vertices (the score is
    concave in L), of which P and P + B are the bin's boundaries, scored ``before``
    and ``after``; for more classes f(P) + f(T - P - B) (f is superadditive and
    nonnegative, so f(L) >= f(P) and f(T - L) >= f(T - P - B); the least with
    ``before`` and ``after`` is lower still).  ``left``, ``right``: scratch."""
    return min(before, after, _other_vertices(crit, prefix, high, totals, left, right))


@njit(cache=True, inline='always')
def _two_class_impurity(crit, x, y):
    """f of class weights (x, y), negative rounding residues as 0 (``criteria.impurity``
    for two classes, without arrays): error min(x, y), gini S - (x^2 + y^2) / S =
    2xy / S, entropy S log2 S - x log2 x - y log2 y (S = x + y)."""
    x = max(x, 0.0)
    y = max(y, 0.0)
    if crit == ERROR:
        return min(x, y)
    if crit == GINI:
        return 2.0 * x * y / max(x + y, TINY)  # x + y = 0: x y = 0
    if x <= 0.0 or y <= 0.0:
        return 0.0
    s = x + y
    return max(s * math.log2(s) - x * math.log2(x) - y * math.log2(y), 0.0)


@njit(cache=True, inline='always')
def _scores_at(crit, prefix0, prefix1, t0, t1, after, inner, inner_too):
    """``_two_class_scores``' loops over the bins, inlined where ``crit`` is a constant."""
    W = t0 + t1
    for i in range(after.shape[0]):
        after[i] = two_class_split(crit, prefix0[i + 1], prefix1[i + 1], t0, t1, W)
    if inner_too:  # a loop of its own: each loop vectorizes
        for i in range(after.shape[0]):
            inner[i] = min(two_class_split(crit, prefix0[i + 1], prefix1[i], t0, t1, W),
                           two_class_split(crit, prefix0[i], prefix1[i + 1], t0, t1, W))


@njit(cache=True, _nrt=False)
def _two_class_scores(weights, lo, m, listed, totals, crit, scratch, inner_too):
    """For two classes, each of m coarse bins, lo .. lo + m - 1 or, when ``listed`` is
    given (not None), the bins ``listed[:m]`` (class weights B, P those of the bins
    before it): into ``scratch[0]`` the canonical score of its
    boundary after it (left weights P + B, summed in bin order as ``refine`` sums them,
    scored by ``stats.two_class_split``: ``_full_split``'s value bit for bit), and, if
    ``inner_too``, into ``scratch[1]`` the least score at the other two vertices of its
    box, (P_0 + B_0, P_1) and (P_0, P_1 + B_1).  The prefixes (m + 1 of them, in
    ``scratch[2]`` and ``scratch[3]``) are summed first, so that the scores are loops
    without dependences, compiled per criterion (a constant ``crit``: no criterion test
    per bin), which LLVM vectorizes for gini and error (with ``_two_class_bounds``,
    MNIST's bounds at 7,000 rows: 0.88-1.33 -> 0.65-1.08 ms a node, benchmarks.phases).
    Listing only a node's nonempty bins (in order) gives their prefixes bit for bit: an
    empty bin's weights are 0.0 (``build_dense``, ``subtract``), and P + 0 = P."""
    prefix0, prefix1 = scratch[2, :m + 1], scratch[3, :m + 1]
    after, inner = scratch[0, :m], scratch[1, :m]
    p0, p1 = 0.0, 0.0
    prefix0[0] = 0.0
    prefix1[0] = 0.0
    for i in range(m):
        b = lo + i if listed is None else listed[i]
        p0 += weights[b, 0]
        p1 += weights[b, 1]
        prefix0[i + 1] = p0
        prefix1[i + 1] = p1
    t0, t1 = totals[0], totals[1]
    if crit == GINI:
        _scores_at(GINI, prefix0, prefix1, t0, t1, after, inner, inner_too)
    elif crit == ERROR:
        _scores_at(ERROR, prefix0, prefix1, t0, t1, after, inner, inner_too)
    else:
        _scores_at(crit, prefix0, prefix1, t0, t1, after, inner, inner_too)


@njit(cache=True, _nrt=False)
def _two_class_bounds(sums, lo, m, listed, n, min_leaf, whole, scratch, bins, least):
    """``_feature_bounds`` of two classes, from ``_two_class_scores``' ``scratch`` for the
    same m bins (lo .. lo + m - 1, or ``listed[:m]``): one pass over the bins with
    selects in place of branches (an empty bin, one without an inner split, a boundary
    that leaves a side below ``min_leaf``), for features of many bins, few of them
    holding the node's rows (MNIST's pixels).  An empty bin gets +inf and changes
    nothing else, so the list of the nonempty bins gives the same results (the others
    set to +inf by the caller)."""
    counts, span = sums.counts, sums.span
    boundary = math.inf
    least_inner = math.inf
    before = whole
    left_count = 0
    for i in range(m):
        b = lo + i if listed is None else listed[i]
        empty = counts[b] == 0
        after = math.inf if empty else scratch[0, i]
        bins.boundary[b] = after
        left_count += counts[b]
        admissible = (left_count >= min_leaf) & (n - left_count >= min_leaf)  # min_leaf >= 1
        boundary = min(boundary, after if admissible else math.inf)
        # scratch[1] holds a value only where a bin spans two values (``inner_too``)
        inner = min(before, after, scratch[1, i]) \
            if (counts[b] >= 2) & (span[b] >= 2) else math.inf
        bins.inner[b] = inner
        least_inner = min(least_inner, inner)
        before = before if empty else after
    least[0] = least_inner
    return boundary


@njit(cache=True, _nrt=False)
def _feature_bounds(sums, k, totals, whole, n, crit, min_leaf, bins, least, scratch):
    """Feature k's least admissible boundary score (+inf if none), into ``bins`` (a
    ``BinBounds``) each of its bins' boundary score and a lower bound on its inner
    splits (``inner_bound``; +inf for a bin without two of the node's examples and two
    values: no inner split), their least into ``least[0]``, from the node's ``sums``
    (``BinSums``).  ``whole`` = f(T), the score with nothing on the left.  Two classes:
    ``_two_class_scores`` and ``_two_class_bounds``, over the bins that hold the node's
    rows only, listed, where its n rows are at most k's bins (a small node's scores
    then cost its rows, not the feature's bins: at higgs7k's nodes of 6-64 rows the
    bounds took 8-10 microseconds against 22, a probe in docs/benchmarks.md); more:
    ``generic_feature_bounds``.  ``scratch``: a ``BoundsScratch``."""
    lo, hi = sums.offsets[k], sums.offsets[k + 1]
    scores, listed = scratch.scores, scratch.listed
    if totals.shape[0] != 2:
        return generic_feature_bounds(sums, k, totals, whole, n, crit, min_leaf, bins, least,
                                      scratch.vectors)
    widest = 1  # the inner vertices only where a bin holds two values or more
    for b in range(lo, hi):
        widest = max(widest, sums.span[b])
    if n > hi - lo:  # no bin need be empty: every bin, in vectorized loops
        _two_class_scores(sums.weights, lo, hi - lo, None, totals, crit, scores, widest >= 2)
        return _two_class_bounds(sums, lo, hi - lo, None, n, min_leaf, whole, scores, bins,
                                 least)
    bins.boundary[lo:hi] = math.inf
    bins.inner[lo:hi] = math.inf
    m = 0  # the nonempty bins, listed branch-free
    for b in range(lo, hi):
        listed[m] = b
        m += sums.counts[b] != 0
    _two_class_scores(sums.weights, lo, m, listed, totals, crit, scores, widest >= 2)
    return _two_class_bounds(sums, lo, m, listed, n, min_leaf, whole, scores, bins, least)


@njit(cache=True, _nrt=False)
def generic_feature_bounds(sums, k, totals, whole, n, crit, min_leaf, bins, least, vectors):
    """``_feature_bounds`` of any number of classes, bin by bin: each boundary scored by
    ``stats._full_split``, the inner vertices (``inner_bound``) only where there is an
    inner split.  ``vectors``: (4, C) scratch."""
    weights, counts = sums.weights, sums.counts
    C = totals.shape[0]
    lo, hi = sums.offsets[k], sums.offsets[k + 1]
    prefix, high, left, right = vectors[0], vectors[1], vectors[2], vectors[3]
    prefix[:] = 0.0
    seen_total = 0.0
    for c in range(C):
        seen_total += totals[c]
    boundary = math.inf
    least[0] = math.inf
    before = whole
    left_count = 0
    for b in range(lo, hi):
        bins.inner[b] = math.inf
        bins.boundary[b] = math.inf
        if counts[b] == 0:
            continue
        for c in range(C):
            high[c] = prefix[c] + weights[b, c]
        after = _full_split(crit, TIGHT, high, right, totals, seen_total, right, 0.0)
        bins.boundary[b] = after
        left_count += counts[b]
        if left_count >= min_leaf and n - left_count >= min_leaf:  # min_leaf >= 1
            boundary = min(boundary, after)
        if counts[b] >= 2 and sums.span[b] >= 2:
            bins.inner[b] = inner_bound(crit, prefix, high, totals, before, after, left, right)
            least[0] = min(least[0], bins.inner[b])
        for c in range(C):
            prefix[c] = high[c]
        before = after
    return boundary


Prefilter = namedtuple("Prefilter", [
    "keep",     # positions in ``feats`` of the survivors, in order
    "limit",    # g + margin: a split whose score's lower bound exceeds it cannot win
    "margin",   # tie + 4 delta: s + margin is a limit too, s any split's canonical score
    "boundary_scores",  # per global coarse bin, its boundary's canonical score (``BinBounds``)
])


# the threads' share of the bounds counts a coarse bin as 32 scan visits: two lanes from
# 2,048 bins (two classes, higgs7k x8's 3,320 bins: the root's bounds 0.029-0.032 ms on
# one thread, 0.021-0.026 on two, ``benchmarks.phases --data higgs7k --size 56000``)
BIN_BOUND_VISITS = 32


@njit(cache=True)
def _bounds_lane(sums, feats, categorical, totals, n, crit, min_leaf, bins, boundary, least):
    """``_feature_bounds`` of the numeric ``feats[j]``: the least boundary score into
    ``boundary[j]``, the least inner bound into ``least[j]`` (a lane's share: slices)."""
    widest = 0
    for j in range(feats.shape[0]):
        widest = max(widest, sums.offsets[feats[j] + 1] - sums.offsets[feats[j]])
    scratch = BoundsScratch(np.empty((4, widest + 1)), np.empty(widest, np.int64),
                            np.zeros((4, totals.shape[0])))
    whole = _split_score(crit, scratch.vectors[0], totals, scratch.vectors[1])
    for j in range(feats.shape[0]):
        if not categorical[feats[j]]:
            boundary[j] = _feature_bounds(sums, feats[j], totals, whole, n, crit, min_leaf, bins,
                                          least[j:j + 1], scratch)


@njit(cache=True, parallel=PRANGE_ONLY)
def survivors(coarse, feats, categorical, hist, totals, n, crit, min_leaf, tie, bounds,
              n_threads):
    """The ``Prefilter`` of the node: the features that may hold the exhaustive search's
    split (module docstring), categorical ones always.  ``bounds`` (per
    global coarse bin) gets a lower bound on each bin's inner splits (``_feature_bounds``),
    and the Prefilter holds each bin's boundary score (canonical: ``BinBounds``).
    The features go to ``n_threads`` threads in contiguous shares, each feature's bins
    scored in one pass by one thread, so the result is the same for any count.

    Why a found split tightens the limit: if s is the canonical score of any split,
    the canonical optimum s* <= s, and a split whose bound exceeds s + margin has a
    canonical score above s + margin - 2 delta >= s* + tie (module docstring), so it
    is neither the optimum nor within the tie window: min(limit, s + margin) is a
    limit as well (``refine``)."""
    F = feats.shape[0]
    node_weight = 0.0
    for c in range(totals.shape[0]):
        node_weight += totals[c]
    boundary = np.full(F, math.inf)
    least = np.full(F, math.inf)
    n_bins = 0
    for j in range(F):
        n_bins += coarse.offsets[feats[j] + 1] - coarse.offsets[feats[j]]
    lanes = lane_count(n_threads, F, n_bins * BIN_BOUND_VISITS)
    bins = BinBounds(bounds, np.full(bounds.shape[0], math.inf))
    sums = BinSums(coarse.offsets, coarse.span, hist.weights, hist.counts)
    if lanes == 1:
        _bounds_lane(sums, feats, categorical, totals, n, crit, min_leaf, bins, boundary, least)
    else:
        for lane in prange(lanes):  # contiguous shares, as slices (a loop over a range
            # passed as arguments ran 3x slower in a prange, docs/benchmarks.md#threads)
            first, last = share(lane, lanes, F)
            _bounds_lane(sums, feats[first:last], categorical, totals, n, crit, min_leaf, bins,
                         boundary[first:last], least[first:last])
    g = math.inf
    for j in range(F):
        g = min(g, boundary[j])
    tolerance = margin(totals.shape[0], hist.error[0], n, node_weight, tie)
    limit = g + tolerance
    keep = np.empty(F, np.int64)
    kept = 0
    for j in range(F):
        if categorical[feats[j]] or least[j] <= limit or boundary[j] <= limit:
            keep[kept] = j
            kept += 1
    return Prefilter(keep[:kept], limit, tolerance, bins.boundary)
