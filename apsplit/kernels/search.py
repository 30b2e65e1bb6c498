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

The search's state is three named records made by ``setup``
(``kernels.state``): the ``Node`` (fixed: the data, the workspace, the task
and the node's weight-order arrays), the per-feature ``State`` and the
``Scratch``.  The per-batch loops (``advance``, ``crawl``, the adaptive
searches) are compiled without numba's reference counting (``_nrt=False``):
they allocate nothing (``setup`` does), and a call that passes the records'
~40 arrays would otherwise spend most of its time in atomic reference-count
updates (measured with perf: 40% of adaptive's time on satimage).  The
statistics kernels they call per batch (``stats.assess``, ``stats.scan``) keep
the counts: they take small records of a few arrays, and ran slower without
them (``stats``' docstring).
"""

import math

import numpy as np
from numba import njit, prange

from . import coarse as cs
from . import heap as hp
from .categorical import evaluate_categorical
from .criteria import NO_UB, impurity
from .lanes import PRANGE_ONLY, lane_count
from .refine import boundary_ranks, new_refined, refine_survivors, survivors_of
from .sort import bisect_left
from .state import Found, Node, Scratch, State, Task
from .stats import (DENSE_RATIO, Column, Rule, Seen, Stream, assess, assess_rows, canonical_pass,
                    candidate_slots, class_totals, clear_feature, collect_counts,
                    distribute_new_bins, merge_new, node_arrays, release, scan, scan_two_level,
                    seen_value, sparse_buckets, zero_weights)
from .unsigned import u

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
# A constant int passed to a compiled function is typed as a literal, and the function is
# compiled once more for it: calls that gain nothing from the literal (numba prunes branches
# on it) pass np.int64(constant), or ZERO, instead.
ZERO = np.int64(0)
METHODS = {"exhaustive": EXHAUSTIVE, "quick": QUICK, "adaptive": ADAPTIVE,
           "adaptive_paper": ADAPTIVE_PAPER}


@njit(cache=True)
def setup(method, data, work, task):
    """Everything a search of ``task``'s node needs: its ``Node``, ``State`` and
    ``Scratch`` (``kernels.state``).

    ``data`` is ``Dataset.kernel_data()``, ``work`` the arrays of a ``with
    Dataset.workspace(C)`` block.  Categorical features (dense input only)
    get their best partitions written to ``cat_left`` (per bin, allocated
    only when a candidate feature is categorical).  A feature is *listed*
    (keeps a sorted list of its seen values) when it is categorical, or, in
    the exhaustive search, has more than ``DENSE_RATIO`` bins per example of
    the node, or, in the others, more than ``LIST_MIN_BINS`` bins (until half
    of them are seen); the others scan all bins.

    Sparse input: the exhaustive search assesses every feature on every
    example here, in one pass over the rows in index order; the others
    bucket the node's stored entries per feature in weight order, and flag
    the node's rows in ``in_node`` for the canonical passes.

    ``min_leaf`` > 1: a split must leave at least that many examples in each
    child (scikit-learn's ``min_samples_leaf``); the examples per bin are
    then counted in ``counts`` (non-categorical features only).
    """
    bin_offsets, categorical, feats = data.bin_offsets, data.categorical, task.feats
    order = task.order
    n = order.shape[0]
    F = feats.shape[0]
    C = task.n_classes
    w_ord, y_ord, cumw, cumcls = node_arrays(order, task.w, task.y, C, method != EXHAUSTIVE)
    totals = task.totals if task.totals.shape[0] == C else \
        class_totals(task.index_order, task.w, task.y, C)
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
    buckets = np.zeros((F, 2), np.int64)
    state = State(np.zeros(F, np.int64), np.zeros(F, np.int64), np.zeros(F), np.full(F, math.inf),
                  np.full((F, 2), -1, np.int64), np.zeros(F, np.int64), np.full(F, -1, np.int64),
                  np.zeros((F, C)), np.zeros(F, np.uint8), np.zeros(1, np.int64),
                  np.zeros(F, np.int64), listed)
    if data.is_sparse:
        slot = candidate_slots(feats, bin_offsets.shape[0] - 1)
        if method == EXHAUSTIVE and not by_columns(data, task):
            all_features = F == bin_offsets.shape[0] - 1
            for f in range(F):
                all_features = all_features and feats[f] == f
            n_new = assess_rows(data, work, task, slot, all_features, listed)
            distribute_new_bins(data, work, feats, state, n_new)
            collect_counts(data, work, feats, state, task.min_leaf > 1)
            for f in range(F):
                state.seen[f] = n  # every feature's statistics are canonical
        elif method == EXHAUSTIVE:  # each feature's canonical pass over its column
            for p in range(n):
                work.in_node[u(order[p])] = 1
        else:
            buckets = sparse_buckets(data, work, order, feats, slot)
            for p in range(n):
                work.in_node[u(order[p])] = 1
    state.cursor[:] = buckets[:, 0]
    cat_left = np.zeros(bin_offsets[-1] if any_categorical else 0, np.uint8)
    scratch = new_scratch(C, n, most_categories, F)
    weight = 0.0
    for c in range(C):
        weight += totals[c]
    node = Node(data, work, task, w_ord, y_ord, cumw, cumcls, totals,
                impurity(task.crit, totals), weight, buckets, cat_left, new_coarse_sums(data, C))
    return node, state, scratch


@njit(cache=True)
def by_columns(data, task):
    """Whether the sparse exhaustive search reads its candidates' columns (each feature's
    ``canonical_pass``, over every stored entry of its column, the node's rows flagged)
    rather than its rows' stored entries (``assess_rows``): when the columns hold fewer
    entries than the rows (few candidates, e.g. the prefilter's survivors).  Both add
    each bin's examples in index order, so the statistics are the same, bit for bit."""
    csr_indptr, csc_indptr, feats, rows = data.csr_indptr, data.csc_indptr, task.feats, task.order
    in_columns = rows.shape[0]  # flagging the rows
    for f in range(feats.shape[0]):
        in_columns += csc_indptr[feats[f] + 1] - csc_indptr[feats[f]]
    if in_columns >= csr_indptr[-1]:  # not fewer than every row holds (every candidate)
        return False
    in_rows = 0
    for p in range(rows.shape[0]):
        in_rows += csr_indptr[rows[p] + 1] - csr_indptr[rows[p]]
        if in_rows > in_columns:
            return True
    return False


@njit(cache=True)
def new_scratch(C, n, most_categories, F):
    """A ``Scratch`` for a node of n examples, C classes and F candidates, the most
    categorical of which has ``most_categories`` categories."""
    return Scratch(np.empty(C), np.empty(C), np.empty(C), np.empty(C), np.empty(3, np.int64),
                   np.empty(C), np.empty(C), np.empty(max(n, 1), np.int64),
                   np.zeros(most_categories, np.uint8), np.empty(most_categories),
                   np.empty(most_categories, np.int64), np.arange(F), hp.new_heap(F),
                   hp.new_heap(F))


@njit(cache=True)
def new_coarse_sums(data, C):
    """A ``Node``'s zeroed coarse sums of a two-level feature (none without one)."""
    return np.zeros((cs.MAX_COARSE if data.two_level.any() else 0, C))


@njit(cache=True, inline='always')
def column(node, state, f):
    """Feature f's ``stats.Column`` (its listed flag and present count as they are now)."""
    k = node.task.feats[f]
    off = node.data.bin_offsets[k]
    n_bins = node.data.bin_offsets[k + 1] - off
    work = node.work
    two_level = node.data.two_level[k] != 0
    of_rank = node.data.coarse_of_rank[off:off + n_bins] if two_level else \
        node.data.coarse_of_rank[:0]
    return Column(f, k, off, n_bins, state.listed[f], state.n_present[f], node.data.zero_rank[k],
                  node.task.min_leaf > 1, work.hist, work.mark, work.present, work.counts,
                  two_level, of_rank, node.coarse_sums)


@njit(cache=True, inline='always')
def stream(node, state):
    """The node's ``stats.Stream``."""
    return Stream(node.task.order, node.w_ord, node.y_ord, node.cumcls, node.data.codes,
                  node.data.is_sparse, node.buckets, node.work.bucket_pos, node.work.bucket_code,
                  state.cursor, state.stored_seen)


@njit(cache=True, _nrt=False)
def advance(node, state, scratch, f, hi):
    """Assess feature f on the examples up to ``hi`` (exclusive) and re-bound it
    (up to n: ``finalize``; a final feature's bounds are exact: nothing to do)."""
    if state.final[f]:
        return
    # np.int64 constants, not literals (see ZERO): one compile of finalize and assess
    if hi >= node.task.order.shape[0]:
        finalize(node, state, scratch, f, np.int64(0))
        return
    m = state.seen
    n_new = 0
    if hi > m[f]:
        n_new = assess(column(node, state, f), stream(node, state), m[f], hi, np.int64(0),
                       scratch.new_bins, np.int64(-1), scratch.left)
        m[f] = hi
    rebound(node, state, scratch, f, n_new)


@njit(cache=True, inline='always')
def rebound(node, state, scratch, f, n_new):
    """Merge f's ``n_new`` newly seen values, then recompute its bounds after its
    seen prefix (``scan``, or ``evaluate_categorical``, which leaves f's best
    ranks at -1 and no split to follow)."""
    cumw, cumcls = node.cumw, node.cumcls
    m = state.seen
    unseen_cls = scratch.unseen_cls
    n = node.task.order.shape[0]
    merge_listed(node, state, scratch, f, n_new)
    seen_cls = cumcls[m[f]]
    unseen = cumw[n] - cumw[m[f]]
    for c in range(unseen_cls.shape[0]):
        unseen_cls[c] = cumcls[n, c] - cumcls[m[f], c]
    bound_feature(node, state, scratch, f, seen_cls, unseen, False)


@njit(cache=True, inline='always')
def merge_listed(node, state, scratch, f, n_new):
    """Merge a listed feature's ``n_new`` new values (``scratch.new_bins``) into its present
    list; once half of its bins are seen, a non-categorical feature scans all of them instead."""
    bin_offsets, mark, present = node.data.bin_offsets, node.work.mark, node.work.present
    n_present, listed = state.n_present, state.listed
    if not listed[f]:
        return
    k = node.task.feats[f]
    off = bin_offsets[k]
    n_present[f] = merge_new(present, off, n_present[f], scratch.new_bins, n_new)
    if not node.data.categorical[k] and 2 * n_present[f] > bin_offsets[k + 1] - off:
        for j in range(n_present[f]):  # most bins seen: scan them all from now on
            mark[off + present[off + j]] = 0
        n_present[f] = 0
        listed[f] = 0


@njit(cache=True, inline='always')
def bound_feature(node, state, scratch, f, seen_cls, unseen, full):
    """(lb, ub), ranks and lb split of feature f from its statistics, seen class totals
    ``seen_cls`` and unseen weight ``unseen`` (class weights in ``scratch.unseen_cls``)."""
    col = column(node, state, f)
    rule = Rule(node.task.crit, node.task.bounds, node.task.min_leaf, node.parent)
    state.scans[0] += 1
    if node.data.categorical[col.k]:
        state.lb[f], state.ub[f] = evaluate_categorical(
            col, rule, Seen(seen_cls, scratch.unseen_cls, unseen, state.seen[f], False,
                            scratch.zero, 0),
            full, scratch.left, scratch.right, node.cat_left, scratch.cat_side, scratch.cat_key,
            scratch.cat_order)
        return
    if full and col.two_level:
        state.lb[f], state.ub[f] = scan_two_level(
            col, rule, Seen(seen_cls, scratch.unseen_cls, unseen, state.seen[f], False, scratch.zero, 0),
            scratch.left, scratch.right, scratch.out_ranks, state.lb_left[f], scratch.prefix,
            scratch.inner)
        _clear_coarse_sums(col)
    else:
        _scan_feature(node, state, scratch, f, col, rule, seen_cls, unseen, full)
    out_ranks = scratch.out_ranks
    state.ranks[f, 0] = out_ranks[0]
    state.ranks[f, 1] = out_ranks[1]
    state.lb_rank[f] = out_ranks[2]


@njit(cache=True, inline='always')
def _clear_coarse_sums(col):
    """Zero a two-level feature's coarse sums (its coarse bins: those of its ranks)."""
    for b in range(col.of_rank[col.n_bins - 1] + 1):
        for c in range(col.coarse_sums.shape[1]):
            col.coarse_sums[b, c] = 0.0


@njit(cache=True, inline='always')
def _scan_feature(node, state, scratch, f, col, rule, seen_cls, unseen, full):
    """``stats.scan`` of numeric feature f (its sparse zero's weights first)."""
    zeros = state.seen[f] - state.stored_seen[f]
    has_zero = node.data.is_sparse and col.zero_rank >= 0 and zeros > 0
    if has_zero:
        zero_weights(col, seen_cls, scratch.zero)
    seen = Seen(seen_cls, scratch.unseen_cls, unseen, state.seen[f], has_zero, scratch.zero,
                zeros if has_zero else 0)
    state.lb[f], state.ub[f] = scan(col, rule, seen, full, scratch.left, scratch.right,
                                    scratch.out_ranks, state.lb_left[f])


@njit(cache=True, _nrt=False)
def finalize(node, state, scratch, f, n_new):
    """Feature f has seen every example: merge its ``n_new`` pending new values, make
    its statistics canonical (``stats.canonical_pass``, unless already so: m[f] = n
    only after a canonical pass), compute
    its exact score and best split, and zero its statistics (non-categorical:
    its best split's left class weights are kept in ``lb_left``)."""
    m, n_present = state.seen, state.n_present
    unseen_cls = scratch.unseen_cls
    k = node.task.feats[f]
    merge_listed(node, state, scratch, f, n_new)
    n = node.task.order.shape[0]
    if m[f] < n:
        if m[f] > 0:  # drop the batch-by-batch statistics (a listed feature keeps its marks)
            clear_feature(node, state, f, True)
        n_new, stored = canonical_pass(node.data, node.work, node.task, k, state.listed[f],
                                       scratch.new_bins, node.coarse_sums)
        if node.data.is_sparse:
            state.stored_seen[f] = stored
        m[f] = n
        merge_listed(node, state, scratch, f, n_new)
    for c in range(unseen_cls.shape[0]):
        unseen_cls[c] = 0.0
    bound_feature(node, state, scratch, f, node.totals, 0.0, True)
    state.final[f] = 1
    if not node.data.categorical[k]:
        clear_feature(node, state, f, False)
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
    crit, cumw, cumcls = node.task.crit, node.cumw, node.cumcls
    m, lb_rank, lb_left = state.seen, state.lb_rank, state.lb_left
    n = node.task.order.shape[0]
    followed = node.data.categorical[node.task.feats[f]] == 0
    estimate = state.lb[f]
    current = True  # f's bounds include every example it has seen
    n_new = 0
    if state.final[f]:
        return
    while True:
        if estimate > stop_above:
            if current:
                return
            rebound(node, state, scratch, f, n_new)
            n_new = 0
            estimate = state.lb[f]
            current = True
            continue
        gap = stop_above - estimate
        lo = m[f]
        hi = max(prefix_end(cumw, lo, max(gap, min_step)), lo + min_examples)
        if hi >= n:
            finalize(node, state, scratch, f, n_new)
            return
        track = lb_rank[f] if followed else -1
        n_new = assess(column(node, state, f), stream(node, state), lo, hi, n_new,
                       scratch.new_bins, track, lb_left[f])
        m[f] = hi
        current = False
        if not followed:  # a categorical feature follows no split: re-bound it after every batch
            estimate = math.inf
        elif track < 0:  # the LB was the one-sided seen partition: its value is f(T_seen)
            estimate = impurity(crit, cumcls[hi])
        else:
            estimate = seen_value(crit, lb_left[f], cumcls[hi], scratch.right)


@njit(cache=True, inline='always')
def prefix_end(cumw, start, weight):
    """Smallest hi > start with cumw[hi] - cumw[start] >= weight (at most n)."""
    n = cumw.shape[0] - 1
    return min(bisect_left(cumw, start + 1, n, cumw[start] + weight), n)


@njit(cache=True, inline='always')
def prunable(state, b, a, tie):
    """True when feature b provably cannot be the returned split, given a."""
    return state.lb[b] > state.ub[a] + 2.0 * tie


@njit(cache=True)
def choose(state, candidates, n_cand, tie):
    """(position, left rank, right rank, score, assessments) of the canonical split.

    Among the fully assessed ``candidates``: the first listed whose score is
    within ``tie`` of the smallest (see the module docstring).
    """
    m, lb, ranks = state.seen, state.lb, state.ranks
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


@njit(cache=True)
def exhaustive(node, state, scratch, n_threads):
    """Assess every feature on every example (sparse: by rows, already done by ``setup``,
    which leaves the scans of their values; by columns, a pass over each), on up to
    ``n_threads`` threads (``_exhaustive_lanes``): the same split for any count."""
    n = node.task.order.shape[0]
    F = node.task.feats.shape[0]
    work = F * n
    if node.data.is_sparse:  # the scans of its candidates' values (and their columns)
        work = 0
        csc_indptr = node.data.csc_indptr
        for f in range(F):
            k = node.task.feats[f]
            work += node.data.bin_offsets[k + 1] - node.data.bin_offsets[k]
            if state.seen[f] < n:
                work += csc_indptr[k + 1] - csc_indptr[k]
    lanes = lane_count(n_threads, F, work)
    if lanes == 1:
        for f in range(F):
            advance(node, state, scratch, f, n)
    else:
        _exhaustive_lanes(node.data, node.work, node.task, state, node.totals, node.cat_left,
                          scratch.cat_side.shape[0], lanes)
    return choose(state, scratch.candidates, F, TOL * node.weight)


@njit(cache=True, parallel=PRANGE_ONLY)
def _exhaustive_lanes(data, work, task, state, totals, cat_left, most_categories, lanes):
    """``_exhaustive_lane`` on ``lanes`` threads, their scans added to the node's.  (The
    node's records come apart: numba refuses a record of records in a parallel loop.)"""
    scans = np.zeros(lanes, np.int64)
    # prange's index is unsigned: cast, or the callee compiles twice
    for lane in prange(lanes):
        _exhaustive_lane(data, work, task, state, totals, cat_left, most_categories,
                         np.int64(lane), lanes, scans)
    for lane in range(lanes):
        state.scans[0] += scans[lane]


@njit(cache=True)
def _exhaustive_lane(data, work, task, state, totals, cat_left, most_categories, lane, lanes,
                     scans):
    """``advance`` of the features f = lane (mod lanes) to every example.  Each feature
    works on its own statistics (its bins of the workspace, its row of ``state``); the
    lane's scratch, coarse sums and scan count (``scans[lane]``) are its own, made here:
    so each feature's score is the one-thread search's, bit for bit, and ``choose``
    reads them all after the lanes.  (The exhaustive search reads no weight order: its
    ``Node`` has none.)"""
    n = task.order.shape[0]
    F = task.feats.shape[0]
    C = totals.shape[0]
    weight = 0.0
    for c in range(C):
        weight += totals[c]
    node = Node(data, work, task, np.empty(0), np.empty(0, np.int64), np.zeros(0),
                np.zeros((0, C)), totals, impurity(task.crit, totals), weight,
                np.zeros((0, 2), np.int64), cat_left, new_coarse_sums(data, C))
    mine = State(state.seen, state.n_present, state.lb, state.ub, state.ranks,
                 state.stored_seen, state.lb_rank, state.lb_left, state.final,
                 scans[lane:lane + 1], state.cursor, state.listed)
    scratch = new_scratch(C, n, most_categories, F)
    for f in range(lane, F, lanes):
        advance(node, mine, scratch, f, n)


@njit(cache=True)
def quick(node, state, scratch, initial_fraction, n_batches):
    """Quick Boost (Appel et al. 2013).

    Assess every feature on the heaviest examples holding ``initial_fraction``
    of the weight; take features in order of their partial score; assess the
    first fully (score E*); for each other feature add the remaining weight in
    ``n_batches`` equal-weight batches until it is pruned (LB above E*, see the
    module's rules) or fully assessed (then it may become the best).
    """
    cumw = node.cumw
    n = cumw.shape[0] - 1
    F = node.task.feats.shape[0]
    lb = state.lb
    m = state.seen
    tie = TOL * node.weight
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
    candidates = scratch.candidates
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
    cumw = node.cumw
    n = cumw.shape[0] - 1
    F = node.task.feats.shape[0]
    m, lb = state.seen, state.lb
    candidates, by_lb = scratch.candidates, scratch.by_lb
    tie = TOL * node.weight
    if min_step < 0:
        min_step = ADAPTIVE_MIN_STEP
    if min_step_examples < 0:
        min_step_examples = examples_floor(node.w_ord, n)
    m0 = prefix_end(cumw, 0, ADAPTIVE_INITIAL_FRACTION * cumw[n])
    for f in range(F):
        advance(node, state, scratch, f, m0)
        hp.update(by_lb, f, lb[f])
    n_cand = 0
    best = math.inf
    for f in range(F):
        if node.task.feats[f] == first_column:
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
            crawl(node, state, scratch, f, best + 2.0 * tie, 0.0, ZERO)
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
    cumw = node.cumw
    n = cumw.shape[0] - 1
    F = node.task.feats.shape[0]
    m, lb, ub = state.seen, state.lb, state.ub
    candidates, by_lb, by_ub = scratch.candidates, scratch.by_lb, scratch.by_ub
    tie = TOL * node.weight
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
            crawl(node, state, scratch, b, ub[a] + 2.0 * tie, 0.0, ZERO)
        for g in (a, b):
            hp.update(by_ub, g, ub[g])
            hp.update(by_lb, g, lb[g])
    return choose(state, candidates, n_cand, tie)


@njit(cache=True)
def child_weights(node, state, f):
    """Class weights (left, right) of feature f's best split, f fully assessed, and
    the codes going left if f is categorical (its best partition in ``cat_left``;
    else an empty array)."""
    hist, present, totals, cat_left = node.work.hist, node.work.present, node.totals, node.cat_left
    k = node.task.feats[f]
    off = node.data.bin_offsets[k]
    C = totals.shape[0]
    out = np.zeros((2, C))
    if not node.data.categorical[k]:
        for c in range(C):
            out[0, c] = state.lb_left[f, c]
            out[1, c] = max(totals[c] - state.lb_left[f, c], 0.0)
        return out, np.empty(0, np.int64)
    n_present = state.n_present[f]
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
    """(position in feats or -1, left rank, right rank, score, assessments) of one node,
    by ``method`` with its ``params`` (a ``state.Params``)."""
    if method == EXHAUSTIVE:
        return exhaustive(node, state, scratch, params.n_threads)
    if method == QUICK:
        return quick(node, state, scratch, params.initial_fraction, params.n_batches)
    if method == ADAPTIVE:
        return adaptive(node, state, scratch, params.min_step, params.min_step_examples,
                        params.first_column)
    return adaptive_paper(node, state, scratch)


@njit(cache=True)
def _task_with(task, feats, bounds):
    """``task`` on the candidate columns ``feats`` with the bounds ``bounds``."""
    return Task(task.order, task.index_order, task.w, task.y, task.n_classes, feats, task.crit,
                bounds, task.min_leaf, task.coarse_sums, task.coarse_offsets, task.totals)


@njit(cache=True)
def run(method, params, data, work, task):
    """One node, one call: set up, search, read the winner, leave the workspace zeroed.

    Returns its ``state.Found``.  Only Algorithm 1 as printed (``adaptive_paper``)
    reads a feature's upper bound before the feature is fully assessed: the
    adaptive search compares lower bounds, and Quick Boost prunes against a fully
    assessed feature (lb = ub, its score), so their scans skip the upper ones
    (``NO_UB``).
    """
    node, state, scratch = setup(method, data, work, _task_with(
        task, task.feats, task.bounds if method == ADAPTIVE_PAPER else NO_UB))
    best, lr, rr, score, total = search(node, state, scratch, method, params)
    children = np.zeros((2, task.n_classes))
    left_codes = np.zeros(0, np.int64)
    if best >= 0:
        children, left_codes = child_weights(node, state, best)
    teardown(node, state)
    return Found(best, lr, rr, score, total, children, node.weight, left_codes, state.scans[0])


@njit(cache=True)
def run_exhaustive(params, data, work, task, coarse, hist, hist_ready, totals):
    """``run`` of the exhaustive search, prefiltered by the node's coarse histogram
    ``hist`` (built here unless ``hist_ready``; without it, the plain search where
    ``coarse.pays`` says it does not pay), ``totals`` its ``stats.class_totals`` (which the
    tree builder sums as it splits the parent): the same split and score, computed
    canonically on the features ``coarse.survivors`` keeps (dense numeric ones by
    ``refine.refined_best``, only where they can win).  Every feature is still
    assessed on every example (its coarse bin) and scanned once (its coarse bins);
    the survivors' exact values are scanned once more."""
    is_sparse, categorical = data.is_sparse, data.categorical
    index_order, w, y, n_classes, feats = task.index_order, task.w, task.y, task.n_classes, task.feats
    n = index_order.shape[0]
    F = feats.shape[0]
    if not hist_ready and not cs.pays(coarse, data.bin_offsets, feats, n, n_classes):
        return run(np.int64(EXHAUSTIVE), params, data, work, task)
    if not hist_ready:
        if is_sparse:
            slot = candidate_slots(feats, coarse.offsets.shape[0] - 1)
            cs.build_sparse(coarse, data, feats, slot, index_order, w, y, totals, hist)
        else:
            cs.build_dense(coarse, feats, index_order, w, y, totals, hist, params.n_threads)
    node_weight = 0.0
    for c in range(n_classes):
        node_weight += totals[c]
    bounds = np.empty(coarse.offsets[-1])
    prefilter = cs.survivors(coarse, feats, categorical, hist, totals, n, task.crit,
                             task.min_leaf, TOL * node_weight, bounds, params.n_threads)
    keep = prefilter.keep
    any_categorical = False
    for j in range(keep.shape[0]):
        any_categorical = any_categorical or categorical[feats[keep[j]]] != 0
    if is_sparse or any_categorical:
        found = run(np.int64(EXHAUSTIVE), params, data, work,
                    _task_with(task, feats[keep], task.bounds))
        best = keep[found.position] if found.position >= 0 else found.position
        return Found(best, found.left_rank, found.right_rank, found.score, n * F, found.children,
                     found.node_weight, found.left_codes, F + found.scans)
    out = new_refined(keep.shape[0], n_classes)
    refine_survivors(data, work, task, coarse,
                     survivors_of(task, coarse, feats, prefilter, bounds, hist, totals,
                                  params.n_threads), out,
                     params.n_threads)
    smallest = math.inf
    for j in range(keep.shape[0]):
        smallest = min(smallest, out.scores[j])
    children = np.zeros((2, n_classes))
    for j in range(keep.shape[0]):  # ``choose``'s rule: the first within the tie window
        if out.scores[j] < math.inf and out.scores[j] <= smallest + TOL * node_weight:
            for c in range(n_classes):
                children[0, c] = out.lefts[j, c]
                children[1, c] = max(totals[c] - out.lefts[j, c], 0.0)
            left_rank, right_rank = out.ranks[j, 0], out.ranks[j, 1]
            if out.boundary[j] >= 0:
                left_rank, right_rank = boundary_ranks(data, task, coarse, feats[keep[j]],
                                                       out.boundary[j])
            return Found(keep[j], left_rank, right_rank, out.scores[j], n * F, children,
                         node_weight, np.zeros(0, np.int64), F + keep.shape[0])
    return Found(-1, -1, -1, math.inf, n * F, children, node_weight, np.zeros(0, np.int64),
                 F + keep.shape[0])


@njit(cache=True)
def teardown(node, state):
    """Leave the workspace zeroed: the statistics ``finalize`` left set (every feature's
    but the final numeric ones'), and the sparse rows' ``in_node`` flags."""
    release(node, state)
    if node.data.is_sparse:
        in_node, order = node.work.in_node, node.task.order
        for p in range(order.shape[0]):
            in_node[u(order[p])] = 0
