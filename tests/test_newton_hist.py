"""The histogram path of the Newton grower (``apsplit/kernels/newton_hist.py``) against the
column scan and the brute force.

``NewtonData(X, histogram_density=None)`` scans every feature's sorted column;
``histogram_density=0.0`` searches every numeric feature of at most 255 distinct
present values from per-node histograms; values in between mix the two paths.  The
trees must be the column scan's array for array (splits, values, default sides,
gains to the bit, covers, row leaves, node features) on test_newton's draws (NaN,
sparse input, constant and duplicate columns, row and feature subsets, zero and
tiny hessians, min_child_weight, alpha, max_delta_step, gamma), with categorical
columns and column draws per level and per node mixed in, and equal to the brute
force of tests/newton_oracle.py.
"""

import json
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import newton_oracle as oracle
from apsplit.experiments.stock import load_split
from apsplit.kernels import newton_grow, newton_hist
from apsplit.kernels.newton_parallel import new_batch
from apsplit.kernels.newton_moves import OpenRows
from apsplit.kernels.newton_split import make_level
from apsplit.newton import NewtonData, NewtonParams, NewtonTree, grow_newton_forest, grow_newton_tree
from strategies import scaled
from test_newton import (all_features, all_rows, as_input, assert_same_tree, params,
                         problems)


def assert_same_arrays(tree, ref):
    for name in NewtonTree._ARRAYS + ("value",):
        x, y = getattr(tree, name), getattr(ref, name)
        assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name


@st.composite
def with_categories(draw, problem):
    """``problem`` with, sometimes, a categorical column of codes 0..4 (NaN missing)."""
    X, g, h, rows, features, fmt = problem
    if not draw(st.booleans()):
        return problem, None
    codes = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0, 4.0, np.nan]),
                                   min_size=X.shape[0], max_size=X.shape[0])))
    at = draw(st.integers(0, X.shape[1]))
    X = np.insert(X, at, codes, axis=1)
    if features is not None:
        features = np.where(features >= at, features + 1, features)
    return (X, g, h, rows, features, fmt), [at]


DENSITIES = st.sampled_from([0.0, 0.0, 0.3, 0.7])
SAMPLING = st.sampled_from([(1.0, 1.0), (1.0, 1.0), (0.5, 1.0), (1.0, 0.5), (0.7, 0.6)])


@settings(max_examples=scaled(0.3))
@given(problems(max_rows=30, max_features=4).flatmap(with_categories), params(), DENSITIES,
       SAMPLING, st.integers(0, 2 ** 20))
def test_histograms_grow_the_column_scans_trees(problem, p, density, sampling, seed):
    (X, g, h, rows, features, fmt), categorical = problem
    bylevel, bynode = sampling
    kwargs = dict(rows=rows, features=features, colsample_bylevel=bylevel,
                  colsample_bynode=bynode, seed=seed)
    mixed = NewtonData(as_input(X, fmt), categorical, histogram_density=density)
    columns = NewtonData(as_input(X, fmt), categorical, histogram_density=None)
    assert columns.histogram_features.size == 0
    assert_same_arrays(grow_newton_tree(mixed, g, h, p, **kwargs),
                       grow_newton_tree(columns, g, h, p, **kwargs))


@settings(max_examples=scaled(0.2))
@given(problems(max_rows=30, max_features=4, dyadic=False), params())
def test_float_gradients_grow_the_same_trees(problem, p):
    """Sums of float gradients in another order differ by ulps: the tie window absorbs
    them in the choice, and the chosen split's gain is recomputed in the column's order.
    (Against the plain column scan: no indicator features, whose derived gains are
    another story, tests/test_newton_indicator.py.)"""
    X, g, h, rows, features, fmt = problem
    trees = [grow_newton_tree(NewtonData(as_input(X, fmt), histogram_density=d,
                                         indicators=False), g, h, p,
                              rows=rows, features=features) for d in (0.0, None)]
    assert_same_arrays(*trees)


@settings(max_examples=scaled(0.3))
@given(problems(max_rows=24, max_features=3), params())
def test_histogram_tree_equals_the_brute_force_tree(problem, p):
    X, g, h, rows, features, fmt = problem
    data = NewtonData(as_input(X, fmt), histogram_density=0.0)
    tree = grow_newton_tree(data, g, h, p, rows=rows, features=features)
    node_rows = all_rows(rows, X.shape[0])
    ref = oracle.grow(X, g, h, node_rows, all_features(features, X.shape[1]), p)
    assert_same_tree(tree, 0, ref, X, p)
    np.testing.assert_array_equal(tree.apply(as_input(X, fmt))[node_rows],
                                  tree.row_leaf[node_rows])


def test_the_rule_chooses_dense_numeric_features_of_few_values():
    rng = np.random.default_rng(1)
    n = 400
    X = np.column_stack([
        rng.integers(0, 255, n).astype(float),     # 0: 255 values: histogram
        np.arange(n, dtype=float),                 # 1: 400 values: column
        rng.integers(0, 3, n).astype(float),       # 2: categorical: column
        np.where(np.arange(n) < 100, 1.0, np.nan),  # 3: present in 1/4 of the rows
        np.where(np.arange(n) % 2 == 0, 0.0, -0.0),  # 4: 0.0 and -0.0: column
        np.full(n, np.nan),                        # 5: no present value
    ])
    X[:255, 0] = np.arange(255)
    assert NewtonData(X, [2]).histogram_features.tolist() == [0]
    assert NewtonData(X, [2], histogram_density=0.25).histogram_features.tolist() == [0, 3]
    assert NewtonData(X, [2], histogram_density=0.0).histogram_features.tolist() == [0, 3, 5]
    data = NewtonData(X, [2], histogram_density=0.0)
    for j, f in enumerate(data.histogram_features):
        values = data.hist_values[data.hist_start[j]:data.hist_start[j + 1]]
        present = ~np.isnan(X[:, f])
        np.testing.assert_array_equal(values, np.unique(X[present, f]))
        codes = data.hist_codes[:, j]
        np.testing.assert_array_equal(values[codes[present]], X[present, f])
        assert np.all(codes[~present] == values.size)  # the missing code


def test_255_values_and_the_missing_code_at_255():
    """A feature of 255 values with missing rows uses every uint8 code."""
    rng = np.random.default_rng(2)
    n = 700
    X = rng.permutation(np.arange(n) % 255).astype(float)[:, None]
    X[rng.random(n) < 0.1] = np.nan
    g, h = rng.normal(size=n), rng.random(n)
    data = NewtonData(X, histogram_density=0.0)
    assert data.hist_codes.max() == 255
    p = NewtonParams(max_depth=5, min_child_weight=0.0)
    assert_same_arrays(grow_newton_tree(data, g, h, p),
                       grow_newton_tree(NewtonData(X, histogram_density=None), g, h, p))


def test_histograms_beyond_the_budget_are_summed_in_chunks():
    """200 features of 250 values: a level's histograms exceed ``BIN_BUDGET`` from 4
    nodes on and are summed and scanned chunk by chunk, in feature order, with column
    features (every fifth, of more values) between them."""
    rng = np.random.default_rng(3)
    n, K = 600, 200
    X = rng.integers(0, 250, (n, K)).astype(float)
    X[:, ::5] = rng.normal(size=(n, K // 5))
    X[rng.random((n, K)) < 0.05] = np.nan
    data = NewtonData(X)
    assert data.histogram_features.size == K - K // 5
    assert 4 * (data.hist_start[-1] + data.histogram_features.size) * 32 > newton_hist.BIN_BUDGET
    g, h = np.round(rng.normal(size=n) * 8) / 8, np.full(n, 0.5)
    p = NewtonParams(max_depth=4)
    for bynode in (1.0, 0.5):
        tree = grow_newton_tree(data, g, h, p, colsample_bynode=bynode, seed=1)
        depth = np.zeros(tree.node_count, int)
        for node in range(1, tree.node_count):
            depth[node] = depth[tree.parent[node]] + 1
        assert np.sum(depth == 2) == 4 and np.sum(depth == 3) >= 4  # levels over the budget
        assert_same_arrays(tree, grow_newton_tree(NewtonData(X, histogram_density=None), g, h,
                                                  p, colsample_bynode=bynode, seed=1))


@pytest.fixture(scope="module")
def satimage_round():
    """satimage's rows and softmax gradients of random margins (6 classes)."""
    data = load_split("satimage")
    X, y = data["X"][:1200], data["y"][:1200].astype(int)
    rng = np.random.default_rng(0)
    p = np.exp(rng.normal(size=(X.shape[0], 6)))
    p /= p.sum(1, keepdims=True)
    return X, p - np.eye(6)[y], np.maximum(2 * p * (1 - p), 1e-16)


def test_satimage_rounds_are_the_column_scans(satimage_round):
    X, G, H = satimage_round
    p = NewtonParams(max_depth=6)
    hist = NewtonData(X)
    assert hist.histogram_features.size == X.shape[1]
    for a, b in zip(grow_newton_forest(hist, G, H, p, colsample_bynode=0.5, seeds=range(6)),
                    grow_newton_forest(NewtonData(X, histogram_density=None), G, H, p,
                                       colsample_bynode=0.5, seeds=range(6))):
        assert_same_arrays(a, b)


def test_pickle_keeps_the_histogram_codes():
    X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 1.0], [0.0, 3.0]])
    data = pickle.loads(pickle.dumps(NewtonData(X, histogram_density=0.0)))
    np.testing.assert_array_equal(data.hist_codes, NewtonData(X, histogram_density=0.0).hist_codes)
    assert data.columns().hist_codes is data.hist_codes


@pytest.mark.parametrize("density, error, match", [
    ("0.5", TypeError, "histogram_density must be a number"),
    (True, TypeError, "histogram_density must be a number"),
    (1.5, ValueError, r"histogram_density must be in \[0, 1\]"),
    (-0.1, ValueError, r"histogram_density must be in \[0, 1\]"),
    (float("nan"), ValueError, r"histogram_density must be in \[0, 1\]"),
])
def test_bad_density(density, error, match):
    with pytest.raises(error, match=match):
        NewtonData(np.zeros((3, 2)), histogram_density=density)


def test_the_benchmark_checks_the_trees_and_prints_a_ratio(capsys, tmp_path):
    from benchmarks import newton_hist as bench
    bench.main(["--datasets", "pendigits", "--depth", "2", "--repeats", "1",
                "--json", str(tmp_path / "h.json"), "--plot", str(tmp_path / "h.png")])
    assert json.loads((tmp_path / "h.json").read_text())["datasets"][0]["dataset"] == "pendigits"
    assert (tmp_path / "h.png").stat().st_size > 0
    row = capsys.readouterr().out.splitlines()[1].split(" | ")
    assert row[:2] == ["pendigits", "16 of 16"] and float(row[4]) > 0


def _two_levels(h_values, seed=0, n=400):
    """A parent level of two slots over satimage-like codes and its four children (slot
    s's rows split in two by a random draw): the columns, the rows by slot of each level,
    the parent level's histograms and both levels' sums."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 12, (n, 3)).astype(float)
    X[rng.random((n, 3)) < 0.1] = np.nan
    data = NewtonData(X, histogram_density=0.0)
    cols = data.columns()
    gh = np.column_stack([rng.normal(size=n), h_values(rng, n)])
    parent_pos = rng.integers(0, 2, n).astype(np.int32)
    child_pos = (2 * parent_pos + (rng.random(n) < 0.3)).astype(np.int32)

    def by_slot(position, m):
        rows = np.concatenate([np.flatnonzero(position == s) for s in range(m)])
        return OpenRows(rows, np.array([0, *np.cumsum(np.bincount(position, minlength=m))]))

    def sums(position, m):
        level = make_level(m)
        for s in range(m):
            at = position == s
            level.grad[s], level.hess[s] = gh[at, 0].sum(), gh[at, 1].sum()
            level.n_rows[s], level.n_pos[s] = at.sum(), (gh[at, 1] > 0).sum()
            level.abs_grad[s] = np.abs(gh[at, 0]).sum()
        return level

    features = data.histogram_features
    parent_bins = newton_hist.accumulate(newton_hist.hist_codes(cols), gh,
                                         by_slot(parent_pos, 2), features, 1,
                                         newton_hist.summed_where(np.ones(2, bool)))
    return (cols, gh, features, by_slot(child_pos, 4), parent_bins, sums(parent_pos, 2),
            sums(child_pos, 4))


def test_a_larger_child_is_its_parent_minus_its_sibling():
    """Of each pair the child of more rows is derived; its counts are the summed ones
    exactly, its G and H within a few ulps of the parent's sums, an empty bin exactly 0."""
    cols, gh, features, rows, parent_bins, parent_level, level = _two_levels(
        lambda rng, n: rng.uniform(0.05, 0.25, n))
    siblings = newton_hist.pair_siblings(parent_bins, np.array([0, 2]), parent_level,
                                         level, 1.0, np.ones(4, bool))
    larger = [int(level.n_rows[2 * p + 1] >= level.n_rows[2 * p]) + 2 * p for p in range(2)]
    assert list(np.flatnonzero(siblings.derived)) == larger
    derived = newton_hist.accumulate(newton_hist.hist_codes(cols), gh, rows, features, 1, siblings)
    summed = newton_hist.accumulate(newton_hist.hist_codes(cols), gh, rows, features, 1,
                                    newton_hist.summed_where(np.ones(4, bool)))
    np.testing.assert_array_equal(derived.counts, summed.counts)
    assert np.all(derived.sums[derived.counts[..., newton_hist.N_ROWS] == 0] == 0.0)
    scale = np.abs(gh).sum(0) * 1e-13
    for c in (newton_hist.GRAD, newton_hist.HESS):
        assert np.abs(derived.sums[..., c] - summed.sums[..., c]).max() <= scale[c]
    np.testing.assert_array_equal(derived.sums[siblings.summed], summed.sums[siblings.summed])


def test_a_child_much_smaller_than_its_parent_in_sum_of_g_is_summed():
    """``DERIVE_WITHIN``: a derived child's subtraction rounding (a few ulps of the
    parent's sums) must stay a few ulps of its own."""
    _, _, _, _, parent_bins, parent_level, level = _two_levels(lambda rng, n: np.full(n, 0.5))
    level.abs_grad[:] = parent_level.abs_grad.max() / (2 * newton_hist.DERIVE_WITHIN)
    siblings = newton_hist.pair_siblings(parent_bins, np.array([0, 2]), parent_level,
                                         level, 1.0, np.ones(4, bool))
    assert siblings.summed.all() and not siblings.derived.any()


def test_a_derived_slot_near_min_child_weight_is_summed_from_its_rows():
    """min_child_weight = the hessian sum of a derived slot's first nonempty bin: a side
    of exactly min_child_weight, whose admissibility the subtraction's rounding could
    decide.  The scan flags the slot (``near``); ``resum_near`` sums it from its rows:
    its bins are the summed ones to the bit, and it is no longer derived."""
    cols, gh, features, rows, parent_bins, parent_level, level = _two_levels(
        lambda rng, n: rng.uniform(0.05, 0.25, n))
    siblings = newton_hist.pair_siblings(parent_bins, np.array([0, 2]), parent_level,
                                         level, 1.0, np.ones(4, bool))
    t = int(np.flatnonzero(siblings.derived)[0])
    summed = newton_hist.accumulate(newton_hist.hist_codes(cols), gh, rows, features, 1,
                                    newton_hist.summed_where(np.ones(4, bool)))
    first = np.flatnonzero(summed.counts[t, :, newton_hist.N_ROWS] > 0)[0]
    mcw = summed.sums[t, first, newton_hist.HESS]
    params = NewtonParams(min_child_weight=mcw).kernel_params(gh.shape[0], 3)
    scan = newton_grow.grow_newton.py_func.__globals__["scan_bins_batch"]
    allowed = np.ones((features.shape[0], 4), np.bool_)
    probe = newton_hist.accumulate(newton_hist.hist_codes(cols), gh, rows, features, 1, siblings)
    scan(cols, probe, features, allowed, level, params, new_batch(features.shape[0], 4))
    assert probe.near[t] and probe.derived[t]
    resummed = newton_hist.resum_near(newton_hist.hist_codes(cols), gh, rows, probe, 1)
    assert resummed[t] and not probe.derived[t] and not probe.near.any()
    np.testing.assert_array_equal(probe.sums[t], summed.sums[t])
    np.testing.assert_array_equal(probe.counts[t], summed.counts[t])


def test_a_derived_slot_far_from_min_child_weight_keeps_its_bins():
    """The same slot with min_child_weight well inside its sides' range: not flagged."""
    cols, gh, features, rows, parent_bins, parent_level, level = _two_levels(
        lambda rng, n: rng.uniform(0.05, 0.25, n))
    siblings = newton_hist.pair_siblings(parent_bins, np.array([0, 2]), parent_level,
                                         level, 1.0, np.ones(4, bool))
    params = NewtonParams(min_child_weight=1.0 + 2 ** -20).kernel_params(gh.shape[0], 3)
    scan = newton_grow.grow_newton.py_func.__globals__["scan_bins_batch"]
    probe = newton_hist.accumulate(newton_hist.hist_codes(cols), gh, rows, features, 1, siblings)
    scan(cols, probe, features, np.ones((features.shape[0], 4), np.bool_), level, params,
         new_batch(features.shape[0], 4))
    assert not probe.near.any()


def test_derived_slots_near_min_child_weight_are_rescanned_into_the_column_scans_tree():
    """Hessians of 1/4 and min_child_weight 1: sides of exactly min_child_weight at
    every level, in derived slots too, which the scan flags; their rescan (the other
    slots' bests kept) grows the column scan's tree, array for array."""
    rng = np.random.default_rng(11)
    n = 96
    X = rng.integers(0, 12, (n, 3)).astype(float)
    g = rng.integers(-8, 9, n) / 8.0
    h = np.full(n, 0.25)
    p = NewtonParams(max_depth=4, min_child_weight=1.0)
    trees = [grow_newton_tree(NewtonData(X, histogram_density=d), g, h, p)
             for d in (0.0, None)]
    assert trees[0].node_count > 7
    assert_same_arrays(*trees)


@pytest.mark.parametrize("wanted", [[True, False, False, False], [False, True, False, False],
                                    [False, False, True, True]])
def test_only_the_wanted_slots_and_the_siblings_they_derive_from_get_bins(wanted):
    """A slot that cannot split (not ``wanted``) is neither summed nor derived, unless its
    sibling is derived from it; the wanted slots' bins are those of the level with every
    slot wanted, to the bit."""
    cols, gh, features, rows, parent_bins, parent_level, level = _two_levels(
        lambda rng, n: rng.uniform(0.05, 0.25, n))
    wanted = np.array(wanted)
    everything = newton_hist.pair_siblings(parent_bins, np.array([0, 2]), parent_level,
                                           level, 1.0, np.ones(4, bool))
    siblings = newton_hist.pair_siblings(parent_bins, np.array([0, 2]), parent_level,
                                         level, 1.0, wanted)
    np.testing.assert_array_equal(siblings.derived, everything.derived & wanted)
    needed = wanted | np.roll(siblings.derived.reshape(2, 2), 1, axis=1).ravel()
    np.testing.assert_array_equal(siblings.summed, needed & ~siblings.derived)
    got = newton_hist.accumulate(newton_hist.hist_codes(cols), gh, rows, features, 1, siblings)
    want = newton_hist.accumulate(newton_hist.hist_codes(cols), gh, rows, features, 1, everything)
    np.testing.assert_array_equal(got.sums[wanted], want.sums[wanted])
    np.testing.assert_array_equal(got.counts[wanted], want.counts[wanted])
