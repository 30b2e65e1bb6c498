"""Indicator features of the Newton grower (``apsplit/kernels/newton_indicator.py``) against
the column scan.

``NewtonData(X, indicators=False)`` scans every column; with ``indicators=True`` (the
default) the numeric column features whose present entries hold one float get their
per-node sums from the rows of the smaller child and by subtraction for its sibling.
With dyadic statistics every sum is exact, so the trees must be the column scan's array
for array (gains to the bit); with float statistics the splits, values and row leaves
must be, and the gains of derived nodes may differ by rounding (``newton_indicator``'s
docstring).  test_newton's brute-force tests run the default path too.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit.experiments.stock import load_split
from apsplit.kernels.newton_indicator import IndicatorSums, level_sums, no_sums
from apsplit.newton import NewtonData, NewtonParams, NewtonTree, grow_newton_tree
from strategies import scaled
from test_newton import as_input, params, problems
from test_newton_hist import SAMPLING, assert_same_arrays

STRUCTURE = tuple(name for name in NewtonTree._ARRAYS if name != "gain") + ("value",)


@st.composite
def with_indicators(draw, problem):
    """``problem`` with one to four indicator columns inserted: one value (0.0, 1.0 or
    -2.5), present in none, some or all rows (NaN elsewhere)."""
    X, g, h, rows, features, fmt = problem
    n = X.shape[0]
    for _ in range(draw(st.integers(1, 4))):
        value = draw(st.sampled_from([1.0, 1.0, 0.0, -2.5]))
        share = draw(st.sampled_from([0.1, 0.3, 0.5, 0.9, 1.0, 0.0]))
        present = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))) < share
        at = draw(st.integers(0, X.shape[1]))
        X = np.insert(X, at, np.where(present, value, np.nan), axis=1)
        if features is not None:
            features = np.where(features >= at, features + 1, features)
            if draw(st.booleans()):
                features = np.append(features, at)
    return X, g, h, rows, features, fmt


def _trees(problem, p, density=None, **kwargs):
    X, g, h, rows, features, fmt = problem
    return [grow_newton_tree(NewtonData(as_input(X, fmt), histogram_density=density,
                                        indicators=on), g, h, p, rows=rows, features=features,
                             **kwargs)
            for on in (True, False)]


@settings(max_examples=scaled(0.4))
@given(problems(max_rows=30, max_features=3).flatmap(with_indicators), params(),
       st.sampled_from([None, 0.0, 0.5]), SAMPLING, st.integers(0, 2 ** 20))
def test_indicators_grow_the_column_scans_trees(problem, p, density, sampling, seed):
    bylevel, bynode = sampling
    tree, ref = _trees(problem, p, density, colsample_bylevel=bylevel, colsample_bynode=bynode,
                       seed=seed)
    assert_same_arrays(tree, ref)


@settings(max_examples=scaled(0.3))
@given(problems(max_rows=30, max_features=3, dyadic=False).flatmap(with_indicators), params())
def test_float_gradients_grow_the_same_splits(problem, p):
    """Float sums: the same splits; a derived node's gain within rounding of the scan's."""
    tree, ref = _trees(problem, p)
    for name in STRUCTURE:
        x, y = getattr(tree, name), getattr(ref, name)
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name
    scale = np.abs(problem[1]).sum() ** 2 / (p.reg_lambda + 1e-3) + 1e-300
    np.testing.assert_allclose(tree.gain, ref.gain, rtol=1e-12, atol=1e-13 * scale)


@pytest.mark.parametrize("seed", range(16, 20))
def test_a_derived_sum_at_min_child_weight_is_taken_from_the_column(seed):
    """Hessians of a few float values, min_child_weight among them: with seed 18 a derived
    child's hessian sum is min_child_weight exactly in the column's additions and rounds
    below it by subtraction (found by hypothesis), so the two paths split differently
    unless such a sum is taken from the column (``MIN_CHILD_BAND``)."""
    rng = np.random.default_rng(seed)
    n = 40
    X = np.where(rng.random((n, 4)) < rng.uniform(0.2, 0.9, 4), 1.0, np.nan)
    g = rng.normal(size=n)
    h = rng.choice([0.5, 0.001, 6.14304912, 10.0, 0.0, 0.1, 0.7], n)
    p = NewtonParams(max_depth=3, reg_lambda=0.0, min_child_weight=0.5)
    tree, ref = _trees((X, g, h, None, None, None), p)
    for name in STRUCTURE:
        x, y = getattr(tree, name), getattr(ref, name)
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name


def test_the_rule_chooses_one_value_numeric_column_features():
    n = 40
    rng = np.random.default_rng(3)
    X = np.full((n, 7), np.nan)
    X[::3, 0] = 1.0                    # 0: one value, missing elsewhere: indicator
    X[:, 1] = 2.0                      # 1: one value everywhere: indicator (never splits)
    X[::2, 2] = rng.normal(size=20)    # 2: many values
    X[::4, 3] = 1.0                    # 3: categorical
    X[::5, 4] = 0.0                    # 4: 0.0 and -0.0: one value, two floats
    X[1::10, 4] = -0.0
    X[::4, 6] = 0.0                    # 6: zeros only; 5: empty
    data = NewtonData(X, categorical=[3], histogram_density=None)
    assert data.indicator_features.tolist() == [0, 1, 6]
    assert NewtonData(X, categorical=[3]).indicator_features.tolist() == [0, 6]  # 1: histogram
    assert NewtonData(X, indicators=False).indicator_features.size == 0
    cols = data.columns()
    np.testing.assert_array_equal(cols.indicator_value, [1.0, 2.0, 0.0])
    for i in range(n):  # every row lists its indicator features' j, ascending
        held = cols.indicator_entries[cols.indicator_indptr[i]:cols.indicator_indptr[i + 1]]
        np.testing.assert_array_equal(held, np.flatnonzero(~np.isnan(X[i, [0, 1, 6]])))


def _numpy_sums(X_present, gh, position, m):
    """Per (slot, feature): the sums of the slot's present rows, in descending row order."""
    shape = (m, X_present.shape[1])
    grad, hess, n_pos, n_rows = np.zeros(shape), np.zeros(shape), np.zeros(shape, int), \
        np.zeros(shape, int)
    for r in range(X_present.shape[0] - 1, -1, -1):
        s = position[r]
        if s < 0:
            continue
        for j in np.flatnonzero(X_present[r]):
            grad[s, j] += gh[r, 0]
            hess[s, j] += gh[r, 1]
            n_pos[s, j] += gh[r, 1] > 0
            n_rows[s, j] += 1
    return grad, hess, n_pos, n_rows


def test_level_sums_add_the_smaller_child_and_subtract_the_other():
    """Slot by slot against numpy: a summed child's sums are the scan's to the bit, a derived
    child's within rounding, and every count exact; the root level sums every slot."""
    rng = np.random.default_rng(7)
    n, J = 3000, 6
    present = rng.random((n, J)) < np.array([0.05, 0.3, 0.5, 0.9, 0.02, 0.7])
    X = sp.csr_matrix(np.where(present, 1.0, 0.0))  # the zeros absent: missing
    cols = NewtonData(X, histogram_density=None).columns()
    np.testing.assert_array_equal(cols.indicator_index, np.arange(J))
    gh = np.column_stack([rng.normal(size=n), rng.choice([0.0, 0.5, 1.25], n)])
    active = np.flatnonzero(rng.random(n) < 0.95)
    parent_position = np.full(n, -1, np.int32)
    parent_position[active] = rng.integers(0, 2, active.size)
    parent = level_sums(cols, gh, parent_position, active, np.bincount(
        parent_position[active], minlength=2), no_sums(J), np.zeros(0, np.int64),
        np.ones(2, np.bool_))
    # the previous level (2 slots, no parent given: both summed)
    ref = _numpy_sums(present, gh, parent_position, 2)
    for got, want in zip(parent[:4], ref):
        np.testing.assert_array_equal(got, want)
    # slot 0 splits into slots 0 and 1, slot 1 stays a leaf (its rows leave)
    child_slot = np.array([0, -1])
    position = np.where(parent_position == 0, rng.integers(0, 2, n), -1).astype(np.int32)
    open_rows = np.flatnonzero(position >= 0)
    level_rows = np.bincount(position[open_rows], minlength=2)
    sums = level_sums(cols, gh, position, open_rows, level_rows, parent, child_slot,
                      np.ones(2, np.bool_))
    assert isinstance(sums, IndicatorSums)
    small = int(np.argmin(level_rows))
    assert sums.summed.tolist() == [small == 0, small == 1]
    grad, hess, n_pos, n_rows = _numpy_sums(present, gh, position, 2)
    np.testing.assert_array_equal(sums.grad[small], grad[small])
    np.testing.assert_array_equal(sums.hess[small], hess[small])
    np.testing.assert_allclose(sums.grad, grad, rtol=0, atol=1e-12 * np.abs(gh[:, 0]).sum())
    np.testing.assert_allclose(sums.hess, hess, rtol=0, atol=1e-12 * gh[:, 1].sum())
    np.testing.assert_array_equal(sums.n_pos, n_pos)
    np.testing.assert_array_equal(sums.n_rows, n_rows)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_agaricus_trees_are_the_column_scans(n_threads):
    """Real one-hot columns (agaricus: 105 indicator features), depth 6, logistic statistics: the
    same splits, values and row leaves as the column scan, on any thread count."""
    split = load_split("agaricus")
    X, y = split["X"], split["y"].astype(float)
    rng = np.random.default_rng(0)
    y = np.where(rng.random(y.size) < 0.2, 1 - y, y)  # 20% flipped: a full depth-6 tree
    p = 1 / (1 + np.exp(-rng.normal(size=y.size)))
    g, h = p - y, p * (1 - p)
    params = NewtonParams(max_depth=6)
    tree, ref = (grow_newton_tree(NewtonData(X, indicators=on), g, h, params,
                                  n_threads=n_threads) for on in (True, False))
    data = NewtonData(X)  # every nonempty feature: an indicator, or a histogram feature
    assert data.indicator_features.size + data.histogram_features.size \
        + np.count_nonzero(data.n_present == 0) == X.shape[1]  # (present in half the rows)
    assert data.indicator_features.size > 100
    for name in STRUCTURE:
        np.testing.assert_array_equal(getattr(tree, name), getattr(ref, name), name)
    np.testing.assert_allclose(tree.gain, ref.gain, rtol=1e-12)
    assert tree.node_count > 30


@pytest.mark.parametrize("indicators", ["yes", 1, None])
def test_indicators_must_be_a_bool(indicators):
    with pytest.raises(TypeError, match="indicators must be True or False"):
        NewtonData(np.zeros((3, 2)), indicators=indicators)


@pytest.mark.parametrize("wanted", [[True, False], [False, True], [False, False]])
def test_level_sums_skip_the_slots_that_cannot_split(wanted):
    """A slot not ``wanted`` (it cannot split) gets no sums (zeros), unless the other
    child is derived from it; a wanted slot's sums are those with every slot wanted."""
    rng = np.random.default_rng(3)
    n, J = 2000, 5
    present = rng.random((n, J)) < 0.4
    cols = NewtonData(sp.csr_matrix(np.where(present, 1.0, 0.0)),
                      histogram_density=None).columns()
    gh = np.column_stack([rng.normal(size=n), rng.uniform(0.1, 1.0, n)])
    active = np.arange(n)
    root = level_sums(cols, gh, np.zeros(n, np.int32), active, np.array([n]), no_sums(J),
                      np.zeros(0, np.int64), np.ones(1, np.bool_))
    position = (rng.random(n) < 0.3).astype(np.int32)  # slot 1 the smaller child
    level_rows = np.bincount(position, minlength=2)
    wanted = np.array(wanted)
    got, want = (level_sums(cols, gh, position, active, level_rows, root, np.array([0]), w)
                 for w in (wanted, np.ones(2, np.bool_)))
    for a, b in zip(got[:4], want[:4]):
        np.testing.assert_array_equal(a[wanted], b[wanted])
        assert not a[~wanted & ~got.summed].any()
    assert got.summed.tolist() == [False, bool(wanted.any())]
