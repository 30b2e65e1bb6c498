"""Coarse histograms for continuous features (apsplit.kernels.newton_coarse): the trees are
the column scan's, array for array, and the brute force's.

With dyadic g and h every sum is exact, so the coarse scan's boundaries and refined
candidates have the column scan's gains to the bit.  ``coarse_bins`` as small as 1 (every
candidate inside a bin: all refined, none a boundary), 2-8 (many values per bin, ties
across bin edges, one-value bins) and 20-40 (several groups of ``GROUP`` bins, passed
whole or bin by bin) on up to 60 rows, where a level of a few nodes takes the coarse
path (``pays``)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import newton_oracle as oracle
from apsplit.experiments.loaders import load_bundled
from apsplit.kernels import newton_coarse
from apsplit.kernels.newton_grow import grow_newton, level_stats
from apsplit.kernels.newton_hist import BinCodes, accumulate, summed_where
from apsplit.kernels.newton_moves import OpenRows
from apsplit.kernels.newton_parallel import merge_row, new_batch
from apsplit.kernels.newton_split import Rows, make_best, newton_score
from apsplit.newton import NewtonData, NewtonParams, grow_newton_tree
from strategies import scaled
from test_newton import _GRAD, _HESS, assert_same_tree
from test_newton_parallel import column_scans_alone


@st.composite
def continuous(draw, max_rows=60):
    """(X, g, h, coarse_bins): 1-3 dense columns of many values (ties and NaN among them),
    dyadic g and h."""
    n = draw(st.integers(8, max_rows))
    K = draw(st.integers(1, 3))
    columns = []
    for _ in range(K):
        spread = draw(st.sampled_from([n, n // 2 + 1, 4 * n]))  # ties, or nearly none
        col = np.array(draw(st.lists(st.integers(-spread, spread), min_size=n, max_size=n)),
                       float) / 4.0
        if draw(st.booleans()):
            col[np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
                & (np.arange(n) % 3 == 0)] = np.nan  # at most a third missing
        columns.append(col)
    X = np.column_stack(columns)
    g = np.array(draw(st.lists(_GRAD, min_size=n, max_size=n)))
    kind = draw(st.sampled_from(["ones", "dyadic", "dyadic", "tiny", "zero_heavy"]))
    h = np.array(draw(st.lists(_HESS[kind], min_size=n, max_size=n)))
    return X, g, h, draw(st.sampled_from([1, 2, 3, 5, 8, 20, 40]))


@st.composite
def coarse_params(draw):
    """Parameters the coarse path runs with (alpha and max_delta_step 0)."""
    return NewtonParams(max_depth=draw(st.integers(1, 4)),
                        reg_lambda=draw(st.sampled_from([0.0, 0.5, 1.0])),
                        gamma=draw(st.sampled_from([0.0, 0.0, 0.5])),
                        min_child_weight=draw(st.sampled_from([0.0, 0.0, 0.5, 1.0, 3.0])))


def _arrays_equal(a, b):
    for name in a._ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape and np.array_equal(x, y, equal_nan=True), name


@settings(max_examples=scaled(0.5), deadline=None)
@given(continuous(), coarse_params(), st.sampled_from([1.0, 0.5]), st.sampled_from([1, 2]))
def test_trees_equal_the_column_scan_and_the_brute_force(problem, p, bynode, threads):
    X, g, h, coarse_bins = problem
    data = NewtonData(X, histogram_density=None, coarse_bins=coarse_bins)
    column = NewtonData(X, histogram_density=None, coarse_bins=None)
    kwargs = dict(colsample_bynode=bynode, seed=3, n_threads=threads)
    tree = grow_newton_tree(data, g, h, p, **kwargs)
    _arrays_equal(tree, grow_newton_tree(column, g, h, p, **kwargs))
    if bynode == 1.0:
        n, K = X.shape
        assert_same_tree(tree, 0, oracle.grow(X, g, h, np.arange(n), np.arange(K), p), X, p)


def _random_level(seed, coarse_bins, m, mcw):
    """A level of ``m`` slots over 400 rows of three coarse features (many values, ties,
    missing values), random slots, integer-valued g and h of many ties: (cols, rows, level
    histograms, features, level, params)."""
    rng = np.random.default_rng(seed)
    n = 400
    X = np.column_stack([rng.integers(0, 150, n) / 8.0, rng.normal(size=n).round(2) + 0.0,
                         rng.normal(size=n)])
    X[rng.random(n) < 0.1, 2] = np.nan
    g = rng.integers(-64, 65, n) / 16.0 + (X[:, 1] > 0.3)
    h = rng.choice([0.0, 0.25, 0.5, 1.0], n)
    data = NewtonData(X, histogram_density=None, coarse_bins=coarse_bins)
    cols = data.columns()
    features = data.coarse_features
    assert features.size == 3
    position = rng.integers(0, m, n).astype(np.int32)
    order = np.argsort(position, kind="stable").astype(np.int64)
    open_rows = OpenRows(order, np.searchsorted(position[order], np.arange(m + 1)).astype(np.int64))
    gh = np.column_stack([g, h])
    rows = Rows(gh, position)
    params = NewtonParams(min_child_weight=mcw).kernel_params(n)
    level = level_stats(rows, order, m, params, newton_score)
    bins = accumulate(BinCodes(cols.coarse_codes, cols.coarse_index, cols.coarse_start, True),
                      gh, open_rows, features, 1, summed_where(np.ones(m, np.bool_)))
    return cols, rows, bins, features, level, params


@settings(max_examples=scaled(0.2), deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), coarse_bins=st.sampled_from([1, 4, 16, 64]),
       m=st.sampled_from([1, 2, 3]), mcw=st.sampled_from([0.0, 1.0]))
def test_a_level_scan_merges_to_the_column_scans_choice(seed, coarse_bins, m, mcw):
    """The kernel itself, not only whole trees: the coarse scan of a level's features, merged
    in feature order, chooses each node's split (feature, side, values, gain) as the column
    scans of the same features do, and it does refine (``coarse_bins`` 1: every candidate
    is inside a bin; 64: four groups of bins)."""
    cols, rows, bins, features, level, params = _random_level(seed, coarse_bins, m, mcw)
    allowed = np.ones((features.size, m), np.bool_)
    batch = new_batch(features.size, m)
    known = np.full(m, -np.inf)
    # the built-in grower's own bound scan (compiled and cached with it)
    scan_chunk = grow_newton.py_func.__globals__["scan_coarse_chunk"]
    scan_chunk(cols, rows, bins, known, features, allowed, level, params, batch)
    coarse, column = make_best(m), make_best(m)
    for i in range(features.size):
        merge_row(coarse, level, batch, i)
    alone = column_scans_alone(cols, rows, features, level, params)
    for i in range(features.size):
        merge_row(column, level, alone, i)
    for field in coarse._fields:
        np.testing.assert_array_equal(getattr(coarse, field), getattr(column, field), field)


@settings(max_examples=scaled(0.1), deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.sampled_from([1, 3]))
def test_group_sums_hold_each_group_of_a_pass(seed, m):
    """The first call's ``GroupSums``, against sums in plain Python: each group's G and H
    added bin by bin in the pass's order, its rows, rows of h > 0 and last bin holding
    rows, and a range [low, high] holding every boundary's G (from the group's start) and
    every inside's box, in every pass of every slot (the descending one alone for a
    feature without missing values, both for the third, which has some)."""
    cols, rows, bins, features, level, params = _random_level(seed, 64, m, 0.0)
    groups = newton_coarse.new_group_sums(cols, bins, m)
    scout = grow_newton.py_func.__globals__["scan_coarse_batch"]
    allowed = np.ones((features.size, m), np.bool_)
    scout(cols, rows, bins, groups, np.full(m, np.inf), features, allowed, level, params,
          new_batch(features.size, m))
    size = newton_coarse.GROUP
    for k, f in enumerate(features):
        n_bins = bins.offset[k + 1] - bins.offset[k] - 1
        for s in range(m):
            cells = bins.offset[k] + np.arange(n_bins)
            has_missing = bins.counts[s, bins.offset[k] + n_bins, 0] > 0
            passes = [(0, cells)] if cols.forward[f] else []
            if has_missing or not cols.forward[f]:
                passes.append((1, cells[::-1]))
            for direction, order in passes:
                for group in range(-(-n_bins // size)):
                    grad = hess = 0.0
                    n_rows = n_pos = 0
                    last = -1
                    points = []
                    for cell in order[group * size:(group + 1) * size]:
                        G_b, A_b = bins.sums[s, cell, 0], bins.spread[s, cell]
                        points += [grad + (G_b - A_b) / 2.0, grad + (G_b + A_b) / 2.0]
                        grad += G_b
                        hess += bins.sums[s, cell, 1]
                        count = int(bins.counts[s, cell, 0])
                        n_rows += count
                        n_pos += count - int(bins.counts[s, cell, 1])
                        last = cell - bins.offset[k] if count > 0 else last
                    at = (s, k, direction, group)
                    assert groups.grad[at] == grad and groups.hess[at] == hess
                    assert groups.n_rows[at] == n_rows and groups.n_pos[at] == n_pos
                    assert groups.last[at] == last
                    assert groups.low[at] <= min(points + [0.0])
                    assert groups.high[at] >= max(points + [0.0])


def test_real_trees_equal_the_column_scans():
    """higgs7k's first 3000 rows (continuous, float g and h): three depth-6 trees on random
    logistic statistics, coarse path at the levels of up to 5 nodes, array for array the
    column scan's (the chosen splits' gains recomputed in the column's order)."""
    X = load_bundled("higgs7k")[0][:3000]
    data, column = NewtonData(X), NewtonData(X, coarse_bins=None)
    assert data.coarse_features.size >= 20
    rng = np.random.default_rng(0)
    for _ in range(3):
        p = rng.uniform(0.05, 0.95, X.shape[0])
        g, h = p - (rng.random(X.shape[0]) < p), p * (1 - p)
        params = NewtonParams(max_depth=6)
        _arrays_equal(grow_newton_tree(data, g, h, params),
                      grow_newton_tree(column, g, h, params))


def test_coarse_bins_hold_whole_values():
    """Each bin is a run of whole values in the sorted column; codes match the bins' entries;
    the missing code follows the bins; at most ``coarse_bins`` bins."""
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, 90, 500) / 3.0, rng.normal(size=500),
                         rng.integers(0, 3, 500)])  # the last: few values, no coarse bins
    X[rng.random(500) < 0.2, 1] = np.nan
    data = NewtonData(X, histogram_density=None, coarse_bins=7)
    np.testing.assert_array_equal(data.coarse_features, [0, 1])
    for j, f in enumerate(data.coarse_features):
        lo, hi = data.indptr[f], data.indptr[f + 1]
        start = data.coarse_start[j:j + 2]
        assert 1 <= start[1] - start[0] <= 7
        edges = list(data.coarse_entry[start[0]:start[1]]) + [hi]
        assert edges[0] == lo
        for b in range(start[1] - start[0]):
            entries = slice(edges[b], edges[b + 1])
            assert np.all(data.coarse_codes[data.rows[entries], j] == b)
            if b > 0:
                assert data.values[edges[b] - 1] < data.values[edges[b]]
        missing = np.isnan(X[:, f])
        assert np.all(data.coarse_codes[missing, j] == start[1] - start[0])


@pytest.mark.parametrize("bad", [0, 256, 2.5, True, "255"])
def test_coarse_bins_are_checked(bad):
    with pytest.raises(ValueError, match="coarse_bins"):
        NewtonData(np.arange(10.0).reshape(5, 2), coarse_bins=bad)


def test_pays_on_few_nodes_of_many_rows():
    data = NewtonData(np.random.default_rng(2).normal(size=(3000, 2)))
    cols = data.columns()
    assert newton_coarse.pays(cols, 3000, 1) and newton_coarse.pays(cols, 3000, 5)
    assert not newton_coarse.pays(cols, 3000, 6)
