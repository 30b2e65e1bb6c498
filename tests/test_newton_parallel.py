"""A level's column scans on several threads (``kernels/newton_parallel.py``): the same tree
for any number of threads, the batches, and the thread parameters of the API."""

from types import FunctionType

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

import apsplit
from apsplit.adapters import DMatrix, train
from apsplit.kernels import (coarse, lanes, newton_coarse, newton_grow, newton_hist,
                             newton_moves, newton_parallel, newton_split)
from apsplit.kernels.newton_moves import OpenRows
from apsplit.kernels.newton_split import Rows, make_level
from apsplit.newton import NewtonData, NewtonParams, grow_newton_forest, grow_newton_tree
from apsplit.parallel import check_threads as thread_count
from strategies import scaled
from test_newton import as_input, params, problems
from test_newton_hist import DENSITIES, SAMPLING, assert_same_arrays, with_categories

THREADS = numba.get_num_threads()
many_threads = pytest.mark.skipif(THREADS < 2, reason="one thread: nothing to compare")


@many_threads
@settings(max_examples=scaled(0.3))
@given(problems(max_rows=40, max_features=6).flatmap(with_categories), params(), DENSITIES,
       SAMPLING, st.integers(0, 2 ** 20))
def test_any_thread_count_grows_the_same_tree(problem, p, density, sampling, seed):
    """Small problems run on one lane (``kernels/lanes.py``): the per-feature bests and their
    merge, whatever the thread count; the tests below run two lanes."""
    (X, g, h, rows, features, fmt), categorical = problem
    data = NewtonData(as_input(X, fmt), categorical, histogram_density=density)
    kwargs = dict(rows=rows, features=features, colsample_bylevel=sampling[0],
                  colsample_bynode=sampling[1], seed=seed)
    one = grow_newton_tree(data, g, h, p, n_threads=1, **kwargs)
    assert_same_arrays(grow_newton_tree(data, g, h, p, n_threads=THREADS, **kwargs), one)


@many_threads
def test_features_beyond_a_batch_and_skewed_columns():
    """3000 sparse features at depth 7 (up to 64 open nodes: 1024 features a batch, so three
    batches a level), columns from 2 to 1500 entries: the same trees and forests."""
    rng = np.random.default_rng(3)
    n, F = 1500, 3000
    density = np.geomspace(1.0, 1.5e-3, F)
    X = np.where(rng.random((n, F)) < density, rng.integers(0, 4, (n, F)).astype(float), np.nan)
    G = rng.normal(size=(n, 2)) + np.nan_to_num(X[:, :2], nan=-1.0)
    H = rng.random((n, 2)) + 0.05
    data, p = NewtonData(X), NewtonParams(max_depth=7, min_child_weight=0.0)
    one = grow_newton_tree(data, G[:, 0], H[:, 0], p, n_threads=1)
    assert one.node_count > 60
    assert_same_arrays(grow_newton_tree(data, G[:, 0], H[:, 0], p, n_threads=THREADS), one)
    for a, b in zip(grow_newton_forest(data, G, H, p, n_threads=1),
                    grow_newton_forest(data, G, H, p, n_threads=-1)):
        assert_same_arrays(a, b)


@many_threads
@pytest.mark.parametrize("bynode", [1.0, 0.6])
def test_every_path_on_two_lanes(bynode):
    """20,000 rows (enough work for two lanes: ``kernels/lanes.py``): continuous columns,
    histogram features, a categorical one, 5% NaN, indicator features (one value in 45% of
    the rows), with and without per-node sampling."""
    rng = np.random.default_rng(5)
    n = 20000
    X = np.column_stack([rng.normal(size=(n, 4)), rng.integers(0, 9, (n, 3)).astype(float),
                         rng.integers(0, 6, n).astype(float)])
    X[rng.random(X.shape) < 0.05] = np.nan
    X = np.column_stack([X, np.where(rng.random((n, 8)) < 0.45, 1.0, np.nan)])
    g = np.nan_to_num(X[:, 0] + X[:, 4] - (X[:, 7] == 2) + X[:, 9]) + rng.normal(size=n)
    h = rng.random(n) + 0.1
    data = NewtonData(X, categorical=[7])
    assert data.histogram_features.size == 3
    assert data.indicator_features.tolist() == list(range(8, 16))
    kwargs = dict(colsample_bynode=bynode, seed=3)
    one = grow_newton_tree(data, g, h, NewtonParams(max_depth=6), n_threads=1, **kwargs)
    assert one.node_count > 60
    assert_same_arrays(grow_newton_tree(data, g, h, NewtonParams(max_depth=6),
                                        n_threads=THREADS, **kwargs), one)


def test_a_loop_gets_a_lane_per_share_of_work():
    unit = lanes.MIN_WORK_PER_LANE
    assert [lanes.lane_count(4, 10, w) for w in (0, unit - 1, unit, 2 * unit, 3 * unit)] == \
        [1, 1, 1, 2, 3]
    assert lanes.lane_count(8, 3, 100 * unit) == 3   # no more lanes than items
    assert lanes.lane_count(1, 10, 100 * unit) == 1


def test_a_batch_holds_at_most_its_budget_of_column_features():
    is_column = np.array([1, 0, 1, 1, 0, 1, 1] * 3, np.bool_)
    m = newton_parallel.BATCH_SLOTS // 3 - 2 * newton_parallel.LINE   # three column features
    assert newton_parallel.BATCH_SLOTS // newton_parallel.row_stride(m) == 3   # a batch
    ends = [0]
    while ends[-1] < is_column.size:
        ends.append(newton_parallel.batch_end(is_column, ends[-1], m))
    assert all(is_column[a:b].sum() <= 3 for a, b in zip(ends, ends[1:]))
    assert ends == [0, 4, 8, 13, 17, 21]   # each batch ends after its third
    assert newton_parallel.batch_end(is_column, 0, 10 ** 9) == 1   # one feature at least


@pytest.mark.parametrize("value", [0, -2, 1.5, True, "2", None])
def test_bad_thread_counts(value):
    with pytest.raises(ValueError, match="n_threads"):
        thread_count(value)


def test_thread_counts():
    assert thread_count(-1) == THREADS
    assert thread_count(1) == 1
    assert thread_count(10 ** 6) == THREADS   # capped at numba's threads


@many_threads
def test_train_nthread_gives_the_same_model():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6000, 12))   # 72,000 entries a level: two lanes
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=6000) > 0).astype(float)
    dtrain = DMatrix(X, label=y)
    params = {"objective": "binary:logistic", "max_depth": 4}
    models = [train({**params, **extra}, dtrain, 5)
              for extra in ({"nthread": 1}, {}, {"nthread": 0}, {"n_jobs": THREADS})]
    for model in models[1:]:
        np.testing.assert_array_equal(model.predict(dtrain, output_margin=True),
                                      models[0].predict(dtrain, output_margin=True))
        for a, b in zip(model.trees, models[0].trees):
            assert_same_arrays(a, b)


@pytest.mark.parametrize("value", [1.5, "all", True])
def test_train_refuses_a_bad_nthread(value):
    with pytest.raises(ValueError, match="nthread"):
        train({"nthread": value}, DMatrix(np.zeros((4, 1)), label=np.zeros(4)), 1)




def column_scans_alone(cols, rows, features, level, params):
    """A batch whose row i holds ``features[i]``'s column scan alone, in every slot: the
    built-in grower's ``scan_batch`` (compiled and cached with it) on a lane of that one
    feature, which no other feature seeds."""
    m = level.grad.shape[0]
    scan_batch = newton_grow.grow_newton.py_func.__globals__["scan_batch"]
    alone = newton_parallel.new_batch(features.size, m)
    for i, f in enumerate(features):
        one = newton_parallel.new_batch(1, m)
        scan_batch(cols, rows, np.array([f]), np.ones((1, m), np.bool_), level, params, one)
        for field in alone._fields:
            getattr(alone, field)[i] = getattr(one, field)[0]
    return alone


def _alone_and_seeded(X, g, h, m, mcw, seed):
    """Each feature of X scanned alone (a lane of one feature: no seed), and all of them in
    one lane (each feature's pass seeded by the earlier ones' gains, ``Running.known``), by
    the built-in grower's ``scan_batch`` on one thread, on ``m`` random slots: the rows
    of both, after asserting that their merges in feature order are equal."""
    n, F = X.shape
    cols = NewtonData(X, histogram_density=None, coarse_bins=None).columns()
    position = np.random.default_rng(seed).integers(0, m, n).astype(np.int32)
    rows = Rows(np.column_stack([g, h]), position)
    params = NewtonParams(min_child_weight=mcw).kernel_params(n)
    level = newton_grow.level_stats(rows, np.argsort(position, kind="stable"), m, params,
                                     newton_split.newton_score)
    alone = column_scans_alone(cols, rows, np.arange(F), level, params)
    scan_batch = newton_grow.grow_newton.py_func.__globals__["scan_batch"]
    batch = newton_parallel.new_batch(F, m)
    scan_batch(cols, rows, np.arange(F), np.ones((F, m), np.bool_), level, params, batch)
    merged_alone, merged_batch = newton_split.make_best(m), newton_split.make_best(m)
    for f in range(F):
        newton_parallel.merge_row(merged_alone, level, alone, f)
        newton_parallel.merge_row(merged_batch, level, batch, f)
    for field in merged_alone._fields:
        np.testing.assert_array_equal(getattr(merged_batch, field), getattr(merged_alone, field),
                                      field)
    return alone, batch


@settings(max_examples=scaled(0.2), deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.sampled_from([1, 3]),
       mcw=st.sampled_from([0.0, 1.0]))
def test_a_lanes_seeded_passes_merge_to_the_choice_of_features_alone(seed, m, mcw):
    """Later features of a lane refuse the candidates in a lower cell of the tie grid than
    the earlier ones' best gain: merged in feature order, the lane's rows choose each
    node's split (feature, side, values, gain) as the features scanned alone do.  Two
    equal columns (the same gains: the first wins), a weak and a noise column after them,
    ties and missing values, dyadic g and h."""
    rng = np.random.default_rng(seed)
    n = 300
    x = rng.integers(0, 60, n) / 4.0
    X = np.column_stack([x, x, x + rng.normal(size=n) * 4.0, rng.normal(size=n).round(1)])
    X[rng.random(n) < 0.1, 2] = np.nan
    g = rng.integers(-32, 33, n) / 16.0 + (x > 7.0)
    h = rng.choice([0.0, 0.25, 0.5, 1.0], n)
    _alone_and_seeded(X[:, rng.permutation(4)], g, h, m, mcw, seed)


def test_a_lanes_seeding_refuses_a_weak_features_candidates():
    """A noise column after a strong one: alone it has a best, after the strong one its
    every candidate lies in a lower cell and its row stays empty."""
    rng = np.random.default_rng(4)
    n = 300
    x = rng.normal(size=n)
    X = np.column_stack([x, rng.normal(size=n)])
    g = (x > 0.2) * 2.0 - 1.0 + rng.normal(size=n) * 0.1
    alone, batch = _alone_and_seeded(X, g, np.ones(n), 1, 0.0, 0)
    assert 0.0 < alone.gain[1, 0] < alone.gain[0, 0] / 10.0
    assert batch.gain[1, 0] == -np.inf and batch.gain[0, 0] == alone.gain[0, 0]


def _has_parallel_loop(driver, *args):
    """``driver`` compiled afresh for ``args``' types holds its ``prange`` as a parallel loop
    (numba also makes parallel loops of array constructors: those are not counted)."""
    fresh = njit(parallel=True)(FunctionType(driver.py_func.__code__,
                                             driver.py_func.__globals__))
    signature = tuple(numba.typeof(a) for a in args)
    fresh.compile(signature)
    loops = fresh.overloads[signature].metadata["parfor_diagnostics"].initial_parfors
    return any(pattern[0] == "prange" for loop in loops for pattern in loop.patterns)


def test_the_parallel_loops_are_parallel():
    """numba runs a ``prange`` it cannot transform as a plain loop, silently (the results
    are the same by design: only this shows it): each parallel driver holds its loop."""
    rng = np.random.default_rng(5)
    n, m = 2000, 2
    X = np.column_stack([rng.normal(size=(n, 2)), rng.integers(0, 9, (n, 2)).astype(float)])
    cols = NewtonData(X).columns()
    gh = np.column_stack([rng.normal(size=n), np.ones(n)])
    position = rng.integers(0, m, n).astype(np.int32)
    level = make_level(m)
    params = NewtonParams().kernel_params(n, 2)
    allowed = np.ones((2, m), np.bool_)
    open_rows = OpenRows(np.concatenate([np.flatnonzero(position == s) for s in range(m)]),
                         np.array([0, *np.cumsum(np.bincount(position, minlength=m))]))
    summed = newton_hist.summed_where(np.ones(m, np.bool_))
    bins = newton_hist.accumulate(newton_hist.hist_codes(cols), gh, open_rows,
                                  np.array([2, 3]), 2, summed)
    bound = newton_grow.grow_newton.py_func.__globals__
    assert _has_parallel_loop(newton_hist._sum_slots, newton_hist.hist_codes(cols), gh,
                              open_rows, summed.summed, bins, 2)
    assert _has_parallel_loop(newton_hist._derive_slots, bins, summed, 2)
    assert _has_parallel_loop(bound["scan_batch"], cols, Rows(gh, position), np.array([0, 1]),
                              allowed, level, params, newton_parallel.new_batch(2, m))
    assert _has_parallel_loop(bound["scan_bins_batch"], cols, bins, np.array([2, 3]), allowed,
                              level, params, newton_parallel.new_batch(2, m))
    coarse_bins = newton_hist.accumulate(
        newton_hist.BinCodes(cols.coarse_codes, cols.coarse_index, cols.coarse_start, True), gh,
        open_rows, np.array([0, 1]), 2, summed)
    assert _has_parallel_loop(bound["scan_coarse_batch"], cols, Rows(gh, position), coarse_bins,
                              newton_coarse.new_group_sums(cols, coarse_bins, m),
                              np.full(m, np.inf), np.array([0, 1]), allowed, level, params,
                              newton_parallel.new_batch(2, m))
    tree = newton_grow._new_tree(3, n, 0)
    assert _has_parallel_loop(newton_moves.move_rows, tree, cols, open_rows, position,
                              position.copy(), np.array([0, -1]), np.arange(2), np.array([0]), 2)
    assert _has_parallel_loop(newton_moves.move_present_rows, tree, cols, position,
                              position.copy(), np.array([0, -1]), np.arange(2), np.array([0]), 2)
    bins = apsplit.Dataset(X).coarse_bins()
    node = coarse._node_rows(bins, np.arange(4), np.arange(n), np.ones(n), np.zeros(n, np.int64),
                             np.array([float(n), 0.0]))
    assert _has_parallel_loop(coarse._build_shares, bins, np.arange(4), node,
                              coarse.new_histogram(bins, 2), 2)


def test_batch_rows_keep_a_cache_line_apart():
    """Two threads recording neighbouring features' bests never write one cache line: each
    row's slots end at least a line (64 bytes) before the next row begins."""
    for m in range(1, 40):
        batch = newton_parallel.new_batch(3, m)
        stride = batch.gain.strides[0] // 8
        assert stride - m >= newton_parallel.LINE and stride % newton_parallel.LINE == 0
        best = newton_parallel.feature_best(batch, 1, m)
        assert best.gain.shape == (m,) and best.feature.shape == (m,)
