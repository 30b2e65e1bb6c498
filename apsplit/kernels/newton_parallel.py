"""A level's split searches on several threads, the same tree for any number of threads.

Every feature of a level is scanned into a best of its own (per slot, by
``newton_split.beats``'s rule), and the grower merges the features' bests into
the level's in feature index order by the same rule (``merge_slot``), whatever
the feature's path (column scan, histogram, categorical).  The column scans run
in batches (``_scan_batch``): the features of a batch are dealt to
``Params.n_threads`` threads, each scanning its features into their rows of a
``Batch``; so do the histogram features of a chunk
(``_scan_bins_batch``), once ``newton_hist.accumulate`` has summed their bins
(itself a share of the features per thread).  Categorical features are scanned
on the grower's thread.

Why the tree is the same for any number of threads, bit for bit: a candidate's
gain is a function of its column, the level's sums and the parameters only (its
own running sums), whichever thread computes it and when; the merge is
sequential, in feature order, on one thread, and keeps the first candidate of
the highest cell of the tie grid (``newton_split``'s "Ties"), however the
candidates are grouped.  A lane's later features leave out the candidates in a
lower cell than the best gain of its earlier ones (``_scan_lane``), so which
features share a lane changes some features' rows, but only where they lie in a
lower cell than a candidate the merge meets: never the merged best.

Dealing (``deal``): the batch's features by decreasing cost (their column's
entries, twice for a forward pass, plus the level's slots), each to the
thread with the least cost so far (longest processing time first: within 4/3
of the best balance).  A static split of the feature range would not do:
sparse columns differ in length by orders of magnitude.  A batch holds at
most ``BATCH_SLOTS`` (feature, slot) pairs, so its bests stay within a few MB.

Rows apart (``row_stride``): a feature's row of a batch ends at least a cache line
before the next feature's begins, so two threads recording their features' bests never
write the same line.  When the rows also held the running sums, rows of m values side
by side put several features in one line when m was small, and every entry's write
invalidated the other thread's copy: two threads took 1.2-2.2x one thread's time on
56,000 higgs rows (measured, ``python -m benchmarks.threads --datasets higgs7k --size
56000``).  A column scan's scratch (``newton_split.Running``) is now the lane's own.
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .lanes import deal, lane_count
from .newton_hist import scan_bins
from .newton_split import Best, beats, make_running, scan_feature, sorted_columns

BATCH_SLOTS = 2 ** 16  # (feature, slot) pairs of a batch: its Best rows
LINE = 8               # 8-byte values in a 64-byte cache line

# The criterion's child score and cheap test (of the lanes) and its lane scanners (of the
# batches): free names, bound per criterion by ``newton_grow.specialise`` (placeholders here).
score = may_exceed = scan_lane = scan_bins_lane = None


class Batch(NamedTuple):
    """The best (``Best``'s fields) of every feature of a batch, row i for the batch's i-th
    feature."""

    gain: np.ndarray
    feature: np.ndarray
    default_left: np.ndarray
    left_value: np.ndarray
    right_value: np.ndarray


@njit(cache=True)
def row_stride(m):
    """The length of a batch's rows for ``m`` slots: m rounded up to whole cache lines,
    plus one line, so that two rows' slots never share a line (the module docstring)."""
    return (m + LINE - 1) // LINE * LINE + LINE


@njit(cache=True)
def new_batch(n_features, m):
    """Room for ``n_features`` features' bests over ``m`` slots (rows of ``row_stride(m)``;
    ``feature_best`` gives their first m)."""
    shape = (n_features, row_stride(m))
    return Batch(np.full(shape, -np.inf), np.full(shape, -1, np.int64),
                 np.zeros(shape, np.bool_), np.full(shape, np.nan), np.full(shape, np.nan))


@njit(cache=True, inline='always')
def feature_best(batch, i, m):
    """Row i of the batch as a ``Best`` of ``m`` slots (views)."""
    return Best(batch.gain[i, :m], batch.feature[i, :m], batch.default_left[i, :m],
                batch.left_value[i, :m], batch.right_value[i, :m])


@njit(cache=True)
def reset_best(best):
    """No candidate yet in any slot."""
    best.gain[:] = -np.inf
    best.feature[:] = -1


@njit(cache=True, inline='always')
def _take(best, level, s, gain, feature, default_left, left_value, right_value):
    """The candidate replaces ``best``'s slot s if it ``beats`` it; True when it did."""
    if not beats(gain, best.gain[s], level.tie[s]):
        return False
    best.gain[s] = gain
    best.feature[s] = feature
    best.default_left[s] = default_left
    best.left_value[s] = left_value
    best.right_value[s] = right_value
    return True


@njit(cache=True, inline='always')
def merge_slot(best, level, candidate, s):
    """``candidate``'s slot s replaces ``best``'s if it ``beats`` it; True when it did."""
    return _take(best, level, s, candidate.gain[s], candidate.feature[s],
                 candidate.default_left[s], candidate.left_value[s], candidate.right_value[s])


@njit(cache=True, inline='always')
def merge_row(best, level, batch, i):
    """``merge_slot`` of row i of ``batch`` in every slot, the arrays taken out of the
    tuples once: views of the row, or a call per slot that takes the tuples, cost numba's
    reference counting, an atomic increment and decrement per array (with the scan's
    views, ``NRT_incref``/``NRT_decref`` took 8% of satimage's fit in perf, a probe;
    without them the fit took 0.96x, measured)."""
    gain, feature, default_left = batch.gain, batch.feature, batch.default_left
    left_value, right_value = batch.left_value, batch.right_value
    best_gain, best_feature, best_default = best.gain, best.feature, best.default_left
    best_left, best_right, tie = best.left_value, best.right_value, level.tie
    for s in range(tie.shape[0]):
        if beats(gain[i, s], best_gain[s], tie[s]):  # ``_take``, written out
            best_gain[s] = gain[i, s]
            best_feature[s] = feature[i, s]
            best_default[s] = default_left[i, s]
            best_left[s] = left_value[i, s]
            best_right[s] = right_value[i, s]


@njit(cache=True)
def slots_allowed(node_allowed, places, splittable, by_node):
    """Per feature at ``places`` of the level's: the slots that may split on it (its rows of
    ``node_allowed`` with per-node sampling, else the ``splittable`` ones)."""
    if by_node:
        return node_allowed[places]
    out = np.empty((places.shape[0], splittable.shape[0]), np.bool_)
    out[:] = splittable
    return out


@njit(cache=True)
def batch_end(is_column, first, m):
    """The end (exclusive) of the batch of column features starting at ``first``:
    at most ``BATCH_SLOTS // row_stride(m)`` of the features ``is_column`` marks."""
    room = max(1, BATCH_SLOTS // row_stride(m))
    j = first
    while j < is_column.shape[0] and room > 0:
        room -= is_column[j]
        j += 1
    return j


def _scan_lane(cols, rows, features, allowed, level, params, batch, owner, lane):
    """Scan the batch's features dealt to ``lane`` (``owner[i] == lane``) into their rows of
    ``batch``, each reset first, with the lane's own scratch.  ``score`` and ``may_exceed``
    are free names, bound per criterion by ``newton_grow.specialise``.

    Each slot's highest gain so far among the lane's features (``Running.known``) seeds
    the next features' passes: they refuse the candidates proven to lie in a lower cell
    of the tie grid.  Exact: such a candidate is never the first of the highest cell
    (the merge's choice), whatever the lane's features and their order; a feature's own
    best may then differ, but only where it lies in a lower cell than another feature's
    candidate, so the merged best is the same for any dealing and thread count."""
    m = level.grad.shape[0]
    entries = 0  # room for the level's open rows, if a column of the lane has entries
    for i in range(features.shape[0]):
        f = features[i]
        if owner[i] == lane and cols.indptr[f + 1] > cols.indptr[f]:
            entries = level.n_rows.sum()
    run = make_running(m, entries)
    sorted_cols = sorted_columns(cols)
    for i in range(features.shape[0]):
        if owner[i] != lane:
            continue
        best = feature_best(batch, i, m)
        reset_best(best)
        scan_feature(sorted_cols, rows, features[i], level, run, best, params, score,
                     may_exceed, allowed[i])
        for s in range(m):  # the next features' passes refuse what lies in a lower cell
            run.known[s] = max(run.known[s], best.gain[s])


def _scan_batch(cols, rows, features, allowed, level, params, batch):
    """Scan every feature ``features[i]`` (column features) of the level into row i of
    ``batch``, for the slots ``allowed[i]`` marks, on ``params.n_threads`` threads (numba's
    thread count must allow them; fewer run the lanes in turn).  ``scan_lane`` is a free
    name: ``_scan_lane`` of the criterion, bound by ``newton_grow.specialise`` (a parallel
    loop that calls a compiled function keeps numba's parallel analysis off the scan's
    own loops)."""
    n = features.shape[0]
    m = level.grad.shape[0]
    costs = np.empty(n)
    for i in range(n):
        f = features[i]
        costs[i] = (cols.indptr[f + 1] - cols.indptr[f]) * (2 if cols.forward[f] else 1) + m
    lanes = lane_count(params.n_threads, n, np.int64(costs.sum()))
    owner = deal(costs, lanes)
    if lanes == 1:
        scan_lane(cols, rows, features, allowed, level, params, batch, owner, np.int64(0))
    else:
        # prange's index is unsigned: cast, or the callee compiles twice
        for lane in prange(lanes):
            scan_lane(cols, rows, features, allowed, level, params, batch, owner, np.int64(lane))


def _scan_bins_lane(cols, level_bins, features, allowed, level, params, batch, lane, lanes):
    """``newton_hist.scan_bins`` of the histogram features ``features[i]``, i = lane (mod
    lanes), each into row i of ``batch``.  ``score``: a free name."""
    scan_bins(cols, level_bins, features, lane, lanes, allowed, level, batch, params, score)


def _scan_bins_batch(cols, level_bins, features, allowed, level, params, batch):
    """Every histogram feature ``features[i]`` of ``level_bins`` into row i of ``batch``,
    for the slots ``allowed[i]`` marks, dealt round-robin to ``params.n_threads`` threads
    (a feature's scan costs its bins: about the same for each).  ``scan_bins_lane``: a
    free name, ``_scan_bins_lane`` of the criterion."""
    lanes = lane_count(params.n_threads, features.shape[0],
                       level_bins.offset[-1] * level.grad.shape[0])
    if lanes == 1:
        scan_bins_lane(cols, level_bins, features, allowed, level, params, batch,
                       np.int64(0), np.int64(1))
    else:
        # prange's index is unsigned: cast, or the callee compiles twice
        for lane in prange(lanes):
            scan_bins_lane(cols, level_bins, features, allowed, level, params, batch,
                           np.int64(lane), lanes)
