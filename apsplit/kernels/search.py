"""The search strategies over one node, as numba kernels: exhaustive, quick
(Quick Boost), adaptive (best-first adaptive pruning) and adaptive_paper
(Algorithm 1 as printed).

All share the running statistics of ``stats`` and the same rules, so
that they return the same split, not only the same score:

* a fully assessed feature's score is computed from its canonical statistics
  (summed in index order, ``stats.canonical_pass``), whatever the batches, so
  it is bit-identical across methods;
* the returned split is canonical: with S* the smallest score, the first
  listed feature whose score is within ``tie = TOL * node weight`` of S*,
  at its smallest best threshold (rounding makes ties of distinct
  partitions differ in the last bits; this window makes them ties);
* feature b is pruned against a feature a only when ``LB_b > UB_a + 2 tie``:
  then b's score exceeds S* + tie (rounding in the bounds is far below
  ``tie``), so b can neither be the optimum nor win a tie.  Features that
  cannot be separated from the best by more than that are assessed fully.

Every method therefore returns the brute-force optimum, and the same split.
Scores are in weight units inside the kernels (divide by the node weight).

The per-batch loops (``advance``, ``crawl``, the adaptive searches) are compiled
without numba's reference counting (``_nrt=False``): they allocate nothing
(``setup`` does), and a call that passes the node's ~40 arrays would
otherwise spend most of its time in atomic reference-count updates (measured
with perf: 40% of adaptive's time on satimage).
"""

import math

import numpy as np
from numba import njit

from . import coarse as cs
from . import heap as hp
from .categorical import evaluate_categorical
from .criteria import NO_UB, impurity
from .refine import refined_best
from .sort import bisect_left
from .stats import (DENSE_RATIO, assess, assess_rows, canonical_pass, candidate_slots,
                    clear_feature, collect_counts, distribute_new_bins, merge_new, node_arrays, release, scan,
                    seen_value, sparse_buckets, zero_weights)

TOL = 1e-10
ADAPTIVE_INITIAL_FRACTION = 0.1
# adaptive's batch floors when the caller fixes none (``examples_floor``)
ADAPTIVE_MIN_STEP = 1.0 / 16      # of a feature's unseen weight
FLOOR_OVERSHOOT = 1.0 / 32        # the floor's share of a feature's expected stopping point
FLOOR_STOP_PER_EFFECTIVE = 2.0    # expected stopping point per effective example
FLOOR_STOP_MAX = 0.55             # ... at most this fraction of the node
FLOOR_MIN_EXAMPLES = 1.0 / 256    # the examples floor's least fraction of the unseen examples
LIST_MIN_BINS = 64  # batched searches list the seen values of features with more bins,
                    # until half of the bins are seen (see ``merge_listed``)

EXHAUSTIVE, QUICK, ADAPTIVE, ADAPTIVE_PAPER = 0, 1, 2, 3
METHODS = {"exhaustive": EXHAUSTIVE, "quick": QUICK, "adaptive": ADAPTIVE,
           "adaptive_paper": ADAPTIVE_PAPER}


@njit(cache=True)
def setup(method, data, work, order, index_order, w, y, n_classes, feats, crit, bounds,
          min_leaf):
    """Everything a search needs for one node, as three tuples (node, state,
    scratch; their layouts are listed in the comments below).

    ``data`` is ``Dataset.kernel_data()``, ``work`` the arrays of a ``with
    Dataset.workspace(C)`` block;
    ``order`` holds the node's rows in weight order, ``index_order`` the same
    rows sorted.  ``categorical[k]`` marks the categorical columns (dense
    input only); their best partitions are written to ``cat_left`` (per bin,
    allocated only when a candidate feature is categorical).  A feature is
    *listed* (keeps a sorted list of its seen values) when it is categorical,
    or, in the exhaustive search, has more than ``DENSE_RATIO`` bins per
    example of the node, or, in the others, more than ``LIST_MIN_BINS`` bins
    (until half of them are seen); the others scan all bins.

    Sparse input: the exhaustive search assesses every feature on every
    example here, in one pass over the rows in index order; the others
    bucket the node's stored entries per feature in weight order, and flag
    the node's rows in ``in_node`` for the canonical passes.

    ``min_leaf`` > 1: a split must leave at least that many examples in each
    child (scikit-learn's ``min_samples_leaf``); the examples per bin are
    then counted in ``counts`` (non-categorical features only).
    """
    (is_sparse, codes, bin_offsets, zero_rank, csc_indptr, csc_rows, csc_codes, csr_indptr,
     csr_features, csr_codes, categorical, csr_bins) = data
    hist, mark, present, bucket_pos, bucket_code, in_node, counts = work
    n = order.shape[0]
    F = feats.shape[0]
    C = n_classes
    w_ord, y_ord, cumw, cumcls, totals = node_arrays(order, index_order, w, y, n_classes,
                                                     method != EXHAUSTIVE)
    listed = np.zeros(F, np.uint8)
    any_categorical = False
    most_categories = 0
    for f in range(F):
        k = feats[f]
        n_bins = bin_offsets[k + 1] - bin_offsets[k]
        if categorical[k]:
            listed[f] = 1
            any_categorical = True
            most_categories = max(most_categories, n_bins)
        elif n_bins > (DENSE_RATIO * n if method == EXHAUSTIVE else LIST_MIN_BINS):
            listed[f] = 1
    state = (np.zeros(F, np.int64),            # 0 m: seen prefix length
             np.zeros(F, np.int64),            # 1 n_present (listed features)
             np.zeros(F),                      # 2 lb
             np.full(F, math.inf),             # 3 ub
             np.full((F, 2), -1, np.int64),    # 4 ranks of the best split
             np.zeros(F, np.int64),            # 5 sparse: stored entries seen
             np.full(F, -1, np.int64),         # 6 left rank of the split attaining lb
             np.zeros((F, C)),                 # 7 its seen left class weights
             np.zeros(F, np.uint8),            # 8 final: bounds exact, statistics zeroed
             np.zeros(1, np.int64))            # 9 scans of a feature's values so far
    bk_bounds = np.zeros((F, 2), np.int64)
    if is_sparse:
        slot = candidate_slots(feats, bin_offsets.shape[0] - 1)
        if method == EXHAUSTIVE:
            all_features = F == bin_offsets.shape[0] - 1
            for f in range(F):
                all_features = all_features and feats[f] == f
            n_new = assess_rows(index_order, w, y, slot, all_features, bin_offsets, csr_indptr,
                                csr_features, csr_codes, csr_bins, listed, counts, hist, mark,
                                bucket_pos)
            distribute_new_bins(bucket_pos, n_new, feats, bin_offsets, listed, present, state[1])
            collect_counts(feats, bin_offsets, listed, present, state[1], counts, state[5],
                           min_leaf > 1)
            for f in range(F):
                state[0][f] = n  # every feature's statistics are canonical
        else:
            bk_bounds = sparse_buckets(order, feats, slot, csc_indptr, csr_indptr, csr_features,
                                       csr_codes, bucket_pos, bucket_code)
            for p in range(n):
                in_node[order[p]] = 1
    cursor = bk_bounds[:, 0].copy()
    parent = impurity(crit, totals)
    cat_left = np.zeros(bin_offsets[-1] if any_categorical else 0, np.uint8)
    # scratch: 0 left 1 right 2 zero 3 unseen_cls 4 out_ranks 5 newbuf 6-8 categorical
    # workspace (side, key, order) 9 candidates 10 heap by LB 11 heap by UB
    scratch = (np.empty(C), np.empty(C), np.empty(C), np.empty(C),
               np.empty(3, np.int64), np.empty(max(n, 1), np.int64),
               np.zeros(most_categories, np.uint8), np.empty(most_categories),
               np.empty(most_categories, np.int64), np.arange(F), hp.new_heap(F), hp.new_heap(F))
    # node: 0 is_sparse 1 codes 2 bin_offsets 3 zero_rank 4 feats 5 crit 6 bounds 7 order
    # 8 w_ord 9 y_ord 10 cumw 11 cumcls 12 totals 13 parent 14 bucket bounds 15 bucket_pos
    # 16 bucket_code 17 cursor 18 hist 19 mark 20 present 21 categorical 22 cat_left 23 listed
    # 24 index_order 25 w 26 y 27 csc_indptr 28 csc_rows 29 csc_codes 30 in_node
    # 31 node weight (the canonical sum of totals) 32 counts 33 min_leaf
    node_weight = 0.0
    for c in range(C):
        node_weight += totals[c]
    node = (is_sparse, codes, bin_offsets, zero_rank, feats, crit, bounds, order,
            w_ord, y_ord, cumw, cumcls, totals, parent, bk_bounds, bucket_pos, bucket_code, cursor,
            hist, mark, present, categorical, cat_left, listed, index_order, w, y, csc_indptr,
            csc_rows, csc_codes, in_node, node_weight, counts, min_leaf)
    return node, state, scratch


@njit(cache=True, _nrt=False)
def advance(node, state, scratch, f, hi):
    """Assess feature f on the examples up to ``hi`` (exclusive) and re-bound it
    (up to n: ``finalize``; a final feature's bounds are exact: nothing to do)."""
    if state[8][f]:
        return
    if hi >= node[7].shape[0]:
        finalize(node, state, scratch, f, 0)
        return
    is_sparse, codes, bin_offsets, feats = node[0], node[1], node[2], node[4]
    order, w_ord, y_ord = node[7], node[8], node[9]
    bk_bounds, bk_pos, bk_code, cursor, hist, mark = node[14], node[15], node[16], node[17], node[18], node[19]
    m = state[0]
    k = feats[f]
    n_new = 0
    if hi > m[f]:
        n_new = assess(f, k, m[f], hi, is_sparse, node[23][f], codes, bin_offsets[k], w_ord, y_ord,
                       order, bk_bounds, bk_pos, bk_code, cursor, state[5], hist, mark, scratch[5],
                       0, node[3][k], node[11], -1, scratch[0], node[33] > 1, node[32])
        m[f] = hi
    rebound(node, state, scratch, f, n_new)


@njit(cache=True, inline='always')
def rebound(node, state, scratch, f, n_new):
    """Merge f's ``n_new`` newly seen values, then recompute its bounds after its
    seen prefix (``scan``, or ``evaluate_categorical``, which leaves f's best
    ranks at -1 and no split to follow)."""
    order, cumw, cumcls = node[7], node[10], node[11]
    m = state[0]
    unseen_cls = scratch[3]
    n = order.shape[0]
    merge_listed(node, state, scratch, f, n_new)
    seen_cls = cumcls[m[f]]
    unseen = cumw[n] - cumw[m[f]]
    for c in range(unseen_cls.shape[0]):
        unseen_cls[c] = cumcls[n, c] - cumcls[m[f], c]
    bound_feature(node, state, scratch, f, seen_cls, unseen, False)


@njit(cache=True, inline='always')
def merge_listed(node, state, scratch, f, n_new):
    """Merge a listed feature's ``n_new`` new values (``scratch[5]``) into its present list;
    once half of its bins are seen, a non-categorical feature scans all of them instead."""
    bin_offsets, feats, mark, present, categorical, listed = node[2], node[4], node[19], node[20], node[21], node[23]
    n_present = state[1]
    if not listed[f]:
        return
    k = feats[f]
    off = bin_offsets[k]
    n_present[f] = merge_new(present, off, n_present[f], scratch[5], n_new)
    if not categorical[k] and 2 * n_present[f] > bin_offsets[k + 1] - off:
        for j in range(n_present[f]):  # most bins seen: scan them all from now on
            mark[off + present[off + j]] = 0
        n_present[f] = 0
        listed[f] = 0


@njit(cache=True, inline='always')
def bound_feature(node, state, scratch, f, seen_cls, unseen, full):
    """(lb, ub), ranks and lb split of feature f from its statistics, seen class totals
    ``seen_cls`` and unseen weight ``unseen`` (class weights in ``scratch[3]``)."""
    (is_sparse, codes, bin_offsets, zero_rank, feats, crit, bounds, order, w_ord, y_ord,
     cumw, cumcls, totals, parent, bk_bounds, bk_pos, bk_code, cursor, hist, mark, present,
     categorical, cat_left, listed) = node[:24]
    m, n_present, lb, ub, ranks, nzcnt, lb_rank, lb_left = state[:8]
    left, right, zero, unseen_cls, out_ranks = scratch[:5]
    k = feats[f]
    off = bin_offsets[k]
    state[9][0] += 1
    if categorical[k]:
        lb[f], ub[f] = evaluate_categorical(full, crit, bounds, off, hist, present, n_present[f],
                                            seen_cls, unseen_cls, unseen, parent, left, right,
                                            cat_left, scratch[6], scratch[7], scratch[8])
        return
    has_zero = is_sparse and zero_rank[k] >= 0 and m[f] - nzcnt[f] > 0
    n_bins = bin_offsets[k + 1] - off
    if has_zero:
        zero_weights(zero, listed[f], off, n_bins, zero_rank[k], hist, present, n_present[f],
                     seen_cls)
    lb[f], ub[f] = scan(listed[f], off, n_bins, present, n_present[f], zero_rank[k], has_zero, zero,
                        hist, seen_cls, unseen_cls, unseen, full, crit, bounds, parent, left, right,
                        out_ranks, lb_left[f], node[33], node[32], m[f],
                        m[f] - nzcnt[f] if has_zero else 0)
    ranks[f, 0] = out_ranks[0]
    ranks[f, 1] = out_ranks[1]
    lb_rank[f] = out_ranks[2]


@njit(cache=True, _nrt=False)
def finalize(node, state, scratch, f, n_new):
    """Feature f has seen every example: merge its ``n_new`` pending new values, make
    its statistics canonical (``stats.canonical_pass``, unless already so: m[f] = n
    only after a canonical pass), compute
    its exact score and best split, and zero its statistics (non-categorical:
    its best split's left class weights are kept in ``lb_left``)."""
    (is_sparse, codes, bin_offsets, zero_rank, feats, crit, bounds, order, w_ord, y_ord,
     cumw, cumcls, totals, parent, bk_bounds, bk_pos, bk_code, cursor, hist, mark, present,
     categorical, cat_left, listed, index_order, w, y, csc_indptr, csc_rows, csc_codes,
     in_node) = node[:31]
    m, n_present, nzcnt, final = state[0], state[1], state[5], state[8]
    unseen_cls, newbuf = scratch[3], scratch[5]
    counts, counting = node[32], node[33] > 1
    k = feats[f]
    off = bin_offsets[k]
    n_bins = bin_offsets[k + 1] - off
    merge_listed(node, state, scratch, f, n_new)
    n = order.shape[0]
    if m[f] < n:
        if m[f] > 0:  # drop the batch-by-batch statistics (a listed feature keeps its marks)
            clear_feature(listed[f], off, n_bins, present, n_present[f], hist, mark, counting,
                          counts, True)
        n_new, stored = canonical_pass(k, is_sparse, listed[f], codes, off, index_order, w, y,
                                       csc_indptr, csc_rows, csc_codes, in_node, hist, mark, newbuf,
                                       counting, counts)
        if is_sparse:
            nzcnt[f] = stored
        m[f] = n
        merge_listed(node, state, scratch, f, n_new)
    for c in range(unseen_cls.shape[0]):
        unseen_cls[c] = 0.0
    bound_feature(node, state, scratch, f, totals, 0.0, True)
    final[f] = 1
    if not categorical[k]:
        clear_feature(listed[f], off, n_bins, present, n_present[f], hist, mark, counting, counts,
                      False)
        n_present[f] = 0


@njit(cache=True, _nrt=False)
def crawl(node, state, scratch, f, stop_above, min_step, min_examples):
    """Assess feature f in gap-sized batches until its LB exceeds ``stop_above``
    or it is fully assessed.

    A batch adds at least ``min_step`` weight and at least ``min_examples``
    examples (and at least one).
    Between scans of f's values (O(distinct values)), only the
    split that attained f's last LB is followed: ``assess`` adds each example
    to its left child when it falls there, so its seen value costs O(classes)
    per batch.  That value is an upper estimate of f's LB, so while it stays
    <= ``stop_above`` so does the LB, and ``stop_above`` minus it is a gap no
    larger than the true one.  When it rises above, f is re-bounded (its LB
    recomputed): done if the LB is above too, else the split attaining it is
    followed next.  New values are merged into the sorted list only then.
    A categorical feature follows no split (its ``lb_rank`` stays -1): it is
    re-bounded after every batch.  A batch that would reach the last example
    makes the feature final instead (``finalize``).
    """
    is_sparse, codes, bin_offsets, zero_rank, feats = node[0], node[1], node[2], node[3], node[4]
    crit = node[5]
    order, w_ord, y_ord, cumw, cumcls = node[7], node[8], node[9], node[10], node[11]
    bk_bounds, bk_pos, bk_code, cursor, hist, mark = node[14], node[15], node[16], node[17], node[18], node[19]
    m, nzcnt, lb_rank, lb_left = state[0], state[5], state[6], state[7]
    right, newbuf = scratch[1], scratch[5]
    n = order.shape[0]
    k = feats[f]
    followed = node[21][k] == 0
    estimate = state[2][f]
    current = True  # f's bounds include every example it has seen
    n_new = 0
    if state[8][f]:
        return
    while True:
        if estimate > stop_above:
            if current:
                return
            rebound(node, state, scratch, f, n_new)
            n_new = 0
            estimate = state[2][f]
            current = True
            continue
        gap = stop_above - estimate
        lo = m[f]
        hi = max(prefix_end(cumw, lo, max(gap, min_step)), lo + min_examples)
        if hi >= n:
            finalize(node, state, scratch, f, n_new)
            return
        track = lb_rank[f] if followed else -1
        n_new = assess(f, k, lo, hi, is_sparse, node[23][f], codes, bin_offsets[k], w_ord, y_ord,
                       order, bk_bounds, bk_pos, bk_code, cursor, nzcnt, hist, mark, newbuf, n_new,
                       zero_rank[k], cumcls, track, lb_left[f], node[33] > 1, node[32])
        m[f] = hi
        current = False
        if not followed:  # a categorical feature follows no split: re-bound it after every batch
            estimate = math.inf
        elif track < 0:  # the LB was the one-sided seen partition: its value is f(T_seen)
            estimate = impurity(crit, cumcls[hi])
        else:
            estimate = seen_value(crit, lb_left[f], cumcls[hi], right)


@njit(cache=True, inline='always')
def prefix_end(cumw, start, weight):
    """Smallest hi > start with cumw[hi] - cumw[start] >= weight (at most n)."""
    n = cumw.shape[0] - 1
    return min(bisect_left(cumw, start + 1, n, cumw[start] + weight), n)


@njit(cache=True, inline='always')
def prunable(state, b, a, tie):
    """True when feature b provably cannot be the returned split, given a."""
    return state[2][b] > state[3][a] + 2.0 * tie


@njit(cache=True)
def choose(state, candidates, n_cand, tie):
    """(position, left rank, right rank, score, assessments) of the canonical split.

    Among the fully assessed ``candidates``: the first listed whose score is
    within ``tie`` of the smallest (see the module docstring).
    """
    m, lb, ranks = state[0], state[2], state[4]
    smallest = math.inf
    for j in range(n_cand):
        smallest = min(smallest, lb[candidates[j]])
    best = -1
    for j in range(n_cand):
        f = candidates[j]
        if lb[f] < math.inf and lb[f] <= smallest + tie and (best < 0 or f < best):
            best = f
    total = 0
    for f in range(m.shape[0]):
        total += m[f]
    if best < 0:
        return -1, -1, -1, math.inf, total
    return best, ranks[best, 0], ranks[best, 1], lb[best], total


@njit(cache=True, _nrt=False)
def exhaustive(node, state, scratch):
    """Assess every feature on every example (sparse: already done by ``setup``)."""
    n = node[7].shape[0]
    F = node[4].shape[0]
    for f in range(F):
        advance(node, state, scratch, f, n)
    return choose(state, scratch[9], F, TOL * node[31])


@njit(cache=True)
def quick(node, state, scratch, initial_fraction, n_batches):
    """Quick Boost (Appel et al. 2013).

    Assess every feature on the heaviest examples holding ``initial_fraction``
    of the weight; take features in order of their partial score; assess the
    first fully (score E*); for each other feature add the remaining weight in
    ``n_batches`` equal-weight batches until it is pruned (LB above E*, see the
    module's rules) or fully assessed (then it may become the best).
    """
    cumw = node[10]
    n = cumw.shape[0] - 1
    F = node[4].shape[0]
    lb = state[2]
    m = state[0]
    tie = TOL * node[31]
    m0 = prefix_end(cumw, 0, initial_fraction * cumw[n])
    for f in range(F):
        advance(node, state, scratch, f, m0)
    rank_by_partial = np.argsort(lb, kind="mergesort")
    bounds_at = np.empty(n_batches, np.int64)
    rest = cumw[n] - cumw[m0]
    for j in range(n_batches):
        bounds_at[j] = prefix_end(cumw, 0, cumw[m0] + rest * (j + 1) / n_batches) if j < n_batches - 1 else n
    best = rank_by_partial[0]
    advance(node, state, scratch, best, n)
    candidates = scratch[9]
    candidates[0] = best
    n_cand = 1
    for t in range(1, F):
        f = rank_by_partial[t]
        while not prunable(state, f, best, tie):
            if m[f] == n:
                candidates[n_cand] = f
                n_cand += 1
                if lb[f] < lb[best]:
                    best = f
                break
            j = 0
            while bounds_at[j] <= m[f]:
                j += 1
            advance(node, state, scratch, f, bounds_at[j])
    return choose(state, candidates, n_cand, tie)


@njit(cache=True, inline='always')
def examples_floor(w_ord, n):
    """Adaptive's batch floor for a node, as a fraction of a feature's unseen examples.

    A batch that ends past a feature's stopping point m* (its weight-order
    bound, where its LB reaches S*) costs the overshoot, at most one batch.  A
    floor of a fraction a of the unseen examples is a (n - m*) examples
    there; asking for at most 2 FLOOR_OVERSHOOT m* (half a batch overshoots on
    average) gives a = 2 FLOOR_OVERSHOOT m / (n - m) (= m / (16 (n - m))),
    with m estimated from the effective examples n_eff = (sum w)^2 / sum w^2:
    m = min(2 n_eff, 0.55 n) (measured: median m* / n_eff 2.1 on both satimage
    and a6a, over AdaBoost's nodes; the cap keeps a <= 1/13: where n_eff is a
    third of the node or more, as under weight trimming, m* / n_eff varies
    most, 2.2 on a6a and 1.5 on MNIST's small nodes).  Earlier batches are larger, since the
    unseen examples are more.  ``FLOOR_MIN_EXAMPLES`` bounds a below: smaller
    floors cost more re-scans than they save assessments (``docs/steps.md``).
    """
    total = 0.0
    squares = 0.0
    for p in range(n):
        total += w_ord[p]
        squares += w_ord[p] * w_ord[p]
    n_eff = total * total / squares  # the node's examples all have positive weight
    stop = min(FLOOR_STOP_PER_EFFECTIVE * n_eff, FLOOR_STOP_MAX * n)
    return max(2.0 * FLOOR_OVERSHOOT * stop / (n - stop), FLOOR_MIN_EXAMPLES)


@njit(cache=True, _nrt=False)
def adaptive(node, state, scratch, min_step, min_step_examples, first_column):
    """Adaptive pruning, best-first: the arm assessed next is the one with the smallest LB.

    Features are arms with [LB, UB] as in Algorithm 1 (Aziz et al. 2018).
    After every feature has seen the heaviest examples holding 10% of the
    weight, repeatedly take the live feature f with the smallest LB:

    * f fully assessed: its LB is its score, and no other feature's LB is
      lower, so f holds the optimum S*; it becomes a candidate.  Features
      whose LB exceeds S* + 2 tie are pruned; the others (which can at best
      tie) are assessed until they are pruned or fully assessed.
    * otherwise f sees the next heaviest examples until its LB exceeds the
      second smallest LB (``crawl``: weight steps of at least the gap, and,
      to bound the re-scans, at least ``min_step`` of f's unseen weight and
      ``min_step_examples`` of its unseen examples; a negative value: the
      node's rule, ``ADAPTIVE_MIN_STEP`` and ``examples_floor``).

    A feature is only assessed while its LB is the smallest, hence <= S*:
    with single-example steps every feature k other than the winner stops
    within one example of min{m : LB_k(m) >= S*}, the weight-order lower
    bound.  Algorithm 1's leader (smallest UB) instead gets fully assessed
    while the bounds are loose, which on boosting weights often picks a
    wrong leader (``adaptive_paper`` keeps that rule).

    ``first_column`` (-1: none): that column, if a candidate, is assessed
    fully first and, if it has a split, starts as the candidate, so every
    other feature is crawled straight to its score: a warm start.  Any
    column keeps the result exact; the optimum's column makes the search
    assess about the weight-order bound with a few scans per feature.
    """
    cumw = node[10]
    n = cumw.shape[0] - 1
    F = node[4].shape[0]
    m, lb = state[0], state[2]
    candidates, by_lb = scratch[9], scratch[10]
    tie = TOL * node[31]
    if min_step < 0:
        min_step = ADAPTIVE_MIN_STEP
    if min_step_examples < 0:
        min_step_examples = examples_floor(node[8], n)
    m0 = prefix_end(cumw, 0, ADAPTIVE_INITIAL_FRACTION * cumw[n])
    for f in range(F):
        advance(node, state, scratch, f, m0)
        hp.update(by_lb, f, lb[f])
    n_cand = 0
    best = math.inf
    for f in range(F):
        if node[4][f] == first_column:
            advance(node, state, scratch, f, n)
            hp.remove(by_lb, f)
            if lb[f] < math.inf:
                candidates[0] = f
                n_cand = 1
                best = lb[f]
    while True:
        f = hp.top(by_lb)
        if f < 0 or lb[f] > best + 2.0 * tie:
            break
        if m[f] == n:
            hp.remove(by_lb, f)
            candidates[n_cand] = f
            n_cand += 1
            best = min(best, lb[f])
            continue
        if n_cand > 0:
            crawl(node, state, scratch, f, best + 2.0 * tie, 0.0, 0)
        else:
            g = hp.top_other(by_lb, f)
            crawl(node, state, scratch, f, lb[g] if g >= 0 else math.inf,
                  min_step * (cumw[n] - cumw[m[f]]), int(min_step_examples * (n - m[f])))
        hp.update(by_lb, f, lb[f])
    return choose(state, candidates, n_cand, tie)


@njit(cache=True, _nrt=False)
def adaptive_paper(node, state, scratch):
    """Adaptive-Pruning Stump as printed (Aziz et al. 2018, Algorithm 1).

    Features are arms; each keeps [LB, UB] on its best score.  After every
    feature has seen the heaviest examples holding 10% of the weight, let a
    be the live feature with the smallest UB and b the other live feature
    with the smallest LB (two lazy heaps).  If b cannot win it is pruned;
    otherwise a, then (if still needed) b, see the next heaviest examples
    whose weight reaches the gap UB_a - LB_b.  A feature whose interval
    cannot be separated from a's (see the module's rules) is assessed fully
    and kept as a candidate.  The loop ends when a is the only live feature; a is
    then assessed fully.
    """
    cumw = node[10]
    n = cumw.shape[0] - 1
    F = node[4].shape[0]
    m, lb, ub = state[0], state[2], state[3]
    candidates, by_lb, by_ub = scratch[9], scratch[10], scratch[11]
    tie = TOL * node[31]
    m0 = prefix_end(cumw, 0, ADAPTIVE_INITIAL_FRACTION * cumw[n])
    for f in range(F):
        advance(node, state, scratch, f, m0)
        hp.update(by_ub, f, ub[f])
        hp.update(by_lb, f, lb[f])
    n_cand = 0
    while True:
        a = hp.top(by_ub)
        if a < 0:
            break
        b = hp.top_other(by_lb, a)
        if b < 0:
            if m[a] < n:
                advance(node, state, scratch, a, n)
                hp.update(by_ub, a, ub[a])
                hp.update(by_lb, a, lb[a])
                continue
            candidates[n_cand] = a
            n_cand += 1
            break
        pruned = prunable(state, b, a, tie)
        if pruned or (m[a] == n and m[b] == n):
            if not pruned:  # fully assessed and not separable from a: a candidate
                candidates[n_cand] = b
                n_cand += 1
            hp.remove(by_ub, b)
            hp.remove(by_lb, b)
            continue
        if m[a] < n:
            gap = ub[a] - lb[b]
            advance(node, state, scratch, a, prefix_end(cumw, m[a], gap) if gap > 0 else n)
            gap = ub[a] - lb[b]
            if gap > 0 and m[b] < n:
                advance(node, state, scratch, b, prefix_end(cumw, m[b], gap))
        else:
            crawl(node, state, scratch, b, ub[a] + 2.0 * tie, 0.0, 0)
        for g in (a, b):
            hp.update(by_ub, g, ub[g])
            hp.update(by_lb, g, lb[g])
    return choose(state, candidates, n_cand, tie)


@njit(cache=True)
def child_weights(node, state, f):
    """Class weights (left, right) of feature f's best split, f fully assessed, and
    the codes going left if f is categorical (its best partition in ``cat_left``;
    else an empty array)."""
    bin_offsets, feats, totals = node[2], node[4], node[12]
    hist, present, categorical, cat_left = node[18], node[20], node[21], node[22]
    k = feats[f]
    off = bin_offsets[k]
    C = totals.shape[0]
    out = np.zeros((2, C))
    if not categorical[k]:
        for c in range(C):
            out[0, c] = state[7][f, c]
            out[1, c] = max(totals[c] - state[7][f, c], 0.0)
        return out, np.empty(0, np.int64)
    n_present = state[1][f]
    left_codes = np.empty(n_present, np.int64)
    n_left = 0
    for j in range(n_present):
        r = present[off + j]
        side = 1 - cat_left[off + r]
        if side == 0:
            left_codes[n_left] = r
            n_left += 1
        for c in range(C):
            out[side, c] += hist[off + r, c]
    return out, left_codes[:n_left]


@njit(cache=True)
def search(node, state, scratch, method, params):
    """(position in feats or -1, left rank, right rank, score, assessments) of one node.

    ``params`` are the method's: quick (initial_fraction, n_batches), adaptive
    (min_step, min_step_examples, first column or -1); the others take none.
    """
    if method == EXHAUSTIVE:
        return exhaustive(node, state, scratch)
    if method == QUICK:
        return quick(node, state, scratch, params[0], int(params[1]))
    if method == ADAPTIVE:
        return adaptive(node, state, scratch, params[0], params[1], int(params[2]))
    return adaptive_paper(node, state, scratch)


@njit(cache=True)
def run(method, params, data, work, order, index_order, w, y, n_classes, feats, crit, bounds,
        min_leaf):
    """One node, one call: set up, search, read the winner, leave the workspace zeroed.

    Returns (position in feats or -1, left rank, right rank, score in weight
    units, assessments, child class weights (2, C), node weight, codes going
    left (a categorical winner; else empty), scans of a feature's values).
    The adaptive search uses only lower bounds, so its scans skip the upper
    ones (``NO_UB``).
    """
    node, state, scratch = setup(method, data, work, order, index_order, w, y, n_classes, feats,
                                 crit, NO_UB if method == ADAPTIVE else bounds, min_leaf)
    best, lr, rr, score, total = search(node, state, scratch, method, params)
    children = np.zeros((2, n_classes))
    left_codes = np.zeros(0, np.int64)
    if best >= 0:
        children, left_codes = child_weights(node, state, best)
    teardown(node, state)
    return best, lr, rr, score, total, children, node[31], left_codes, state[9][0]


@njit(cache=True)
def run_exhaustive(params, data, work, order, index_order, w, y, n_classes, feats, crit, bounds,
                   min_leaf, coarse, hist, hist_ready):
    """``run`` of the exhaustive search, prefiltered by the node's coarse histogram
    ``hist`` (built here unless ``hist_ready``; without it, the plain search where
    ``coarse.pays`` says it does not pay): the same split and score, computed
    canonically on the features ``coarse.survivors`` keeps (dense numeric ones by
    ``refine.refined_best``, only where they can win).  Every feature is still
    assessed on every example (its coarse bin) and scanned once (its coarse bins);
    the survivors' exact values are scanned once more."""
    is_sparse, categorical = data[0], data[10]
    n = index_order.shape[0]
    F = feats.shape[0]
    if not hist_ready and not cs.pays(coarse, data[2], feats, n):
        return run(EXHAUSTIVE, params, data, work, order, index_order, w, y, n_classes, feats,
                   crit, bounds, min_leaf)
    if not hist_ready:
        if is_sparse:
            cs.build_sparse(coarse, feats, candidate_slots(feats, coarse.offsets.shape[0] - 1),
                            index_order, w, y, data[7], data[8], hist)
        else:
            cs.build_dense(coarse, feats, index_order, w, y, hist)
    totals = np.zeros(n_classes)
    for p in range(n):
        totals[y[index_order[p]]] += w[index_order[p]]
    node_weight = 0.0
    for c in range(n_classes):
        node_weight += totals[c]
    refine = np.zeros(coarse.offsets[-1], np.uint8)
    keep = cs.survivors(coarse, feats, categorical, hist, totals, n, crit, min_leaf,
                        TOL * node_weight, refine)
    any_categorical = False
    for j in range(keep.shape[0]):
        any_categorical = any_categorical or categorical[feats[keep[j]]] != 0
    if is_sparse or any_categorical:
        best, lr, rr, score, _, children, weight, left_codes, scans = run(
            EXHAUSTIVE, params, data, work, order, index_order, w, y, n_classes, feats[keep],
            crit, bounds, min_leaf)
        if best >= 0:
            best = keep[best]
        return best, lr, rr, score, n * F, children, weight, left_codes, F + scans
    scores = np.full(keep.shape[0], math.inf)
    ranks = np.full((keep.shape[0], 2), -1, np.int64)
    lefts = np.zeros((keep.shape[0], n_classes))
    for j in range(keep.shape[0]):
        scores[j], ranks[j, 0], ranks[j, 1] = refined_best(
            feats[keep[j]], data, work, coarse, refine, hist.counts, index_order, w, y, totals,
            crit, bounds, min_leaf, lefts[j])
    smallest = math.inf
    for j in range(keep.shape[0]):
        smallest = min(smallest, scores[j])
    children = np.zeros((2, n_classes))
    for j in range(keep.shape[0]):  # ``choose``'s rule: the first within the tie window
        if scores[j] < math.inf and scores[j] <= smallest + TOL * node_weight:
            for c in range(n_classes):
                children[0, c] = lefts[j, c]
                children[1, c] = max(totals[c] - lefts[j, c], 0.0)
            return (keep[j], ranks[j, 0], ranks[j, 1], scores[j], n * F, children, node_weight,
                    np.zeros(0, np.int64), F + keep.shape[0])
    return -1, -1, -1, math.inf, n * F, children, node_weight, np.zeros(0, np.int64), \
        F + keep.shape[0]


@njit(cache=True)
def teardown(node, state):
    """Leave the workspace zeroed: the statistics ``finalize`` left set (every feature's
    but the final numeric ones'), and the sparse rows' ``in_node`` flags."""
    release(node[4], node[2], node[21], node[23], state[8], node[20], state[1], node[18], node[19],
            node[33] > 1, node[32])
    if node[0]:
        in_node, order = node[30], node[7]
        for p in range(order.shape[0]):
            in_node[order[p]] = 0
