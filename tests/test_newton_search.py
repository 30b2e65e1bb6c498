"""quick and adaptive for Newton trees (kernels/newton_search.py, kernels/newton_bounds.py):
the same trees as exhaustive, the brute force's optimum, bounds that hold for any placement
of the unseen rows, assessments, and the refusals.

As in test_newton.py, gradients and hessians are small dyadic rationals, so that sums are
exact whatever their order and the brute force's gains equal the engine's up to the
rounding of the scores.  The tests shrink the methods' prefixes (``PREFIXES``) so that the
bounds act on nodes of a few dozen rows.
"""

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

import apsplit
import newton_oracle as oracle
import test_newton
import test_newton_categorical as tc
from apsplit.adapters import DMatrix, train
from apsplit.experiments.loaders import load_bundled
from apsplit.kernels import newton_bounds as nb
from apsplit.kernels import newton_search as ns
from apsplit.kernels.newton_grow import level_stats
from apsplit.kernels.newton_split import Rows, newton_score
from apsplit.newton import WEIGHT_ORDERS, NewtonData, NewtonParams, NewtonTree, grow_newton_tree
from strategies import scaled
import user_criterion

SMALL_PREFIXES = {"quick": (0.3,), "adaptive": (0.25, 0.5, 0.75, 0.9)}
_ARRAYS = [a for a in NewtonTree._ARRAYS]


@pytest.fixture(autouse=True)
def small_prefixes(monkeypatch):
    monkeypatch.setattr(ns, "PREFIXES", SMALL_PREFIXES)


# test_newton's gradients (dyadic, zero, tiny), with extreme ones beside them, and its hessians
_GRAD = st.one_of(test_newton._GRAD, st.integers(-4, 4).map(lambda k: k * 2.0 ** 20))
_HESS = test_newton._HESS


@st.composite
def problems(draw, max_rows=40):
    n = draw(st.integers(2, max_rows))
    K = draw(st.integers(1, 4))
    X = np.empty((n, K))
    for k in range(K):
        kind = draw(st.sampled_from(["binary", "few", "many", "constant"]))
        if kind == "constant":
            X[:, k] = 1.5
        elif kind == "binary":
            X[:, k] = draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n))
        elif kind == "few":
            X[:, k] = draw(st.lists(st.sampled_from([-2.0, 0.0, 1.0, 3.0]), min_size=n,
                                    max_size=n))
        else:
            X[:, k] = draw(st.lists(st.integers(-50, 50), min_size=n, max_size=n))
        missing = draw(st.sampled_from([0.0, 0.0, 0.3, 1.0]))
        if missing:
            X[np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))) < missing,
              k] = np.nan
    g = np.array(draw(st.lists(_GRAD, min_size=n, max_size=n)))
    if draw(st.booleans()):  # a learnable signal, so that features differ
        g += np.where(np.nan_to_num(X[:, 0]) > 0, 4.0, -4.0)
    h = np.array(draw(st.lists(_HESS[draw(st.sampled_from(sorted(_HESS)))], min_size=n,
                               max_size=n)))
    params = NewtonParams(max_depth=draw(st.integers(1, 3)),
                          reg_lambda=draw(st.sampled_from([0.0, 1.0])),
                          reg_alpha=draw(st.sampled_from([0.0, 0.5])),
                          min_child_weight=draw(st.sampled_from([0.0, 1.0, 3.0])),
                          max_delta_step=draw(st.sampled_from([0.0, 0.0, 0.7])),
                          gamma=draw(st.sampled_from([0.0, 0.0, 2.0])))
    return X, g, h, params


def _same_tree(a, b):
    for name in _ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True), name


@given(problems(), st.sampled_from(["quick", "adaptive"]), st.sampled_from(sorted(WEIGHT_ORDERS)),
       st.booleans())
@settings(max_examples=scaled(0.3))
def test_same_tree_as_exhaustive_and_brute_force(problem, method, order, sparse):
    X, g, h, params = problem
    data = NewtonData(sp.csr_matrix(np.nan_to_num(X, nan=0.0)) if sparse else X)
    Xo = data_dense(data, X, sparse)
    ex = grow_newton_tree(data, g, h, params)
    tree = grow_newton_tree(data, g, h, params, method=method, weight_order=order)
    _same_tree(ex, tree)
    if params.gamma == 0.0:  # exhaustive's count is taken on the returned tree (pruned by gamma)
        assert tree.assessments <= ex.assessments
    split = oracle.best_split(Xo, g, h, np.arange(X.shape[0]), range(X.shape[1]), params)
    if params.gamma == 0.0 and params.max_depth >= 1:
        if split is None:
            assert tree.feature[0] == -1
        else:
            assert (tree.feature[0], tree.default_left[0], tree.left_value[0],
                    tree.right_value[0]) == (split.feature, split.default_left,
                                             split.left_value, split.right_value)


def data_dense(data, X, sparse):
    """The matrix the brute force sees: sparse input's absent entries (its zeros) missing."""
    if not sparse:
        return X
    Xo = np.nan_to_num(X, nan=0.0)
    return np.where(Xo == 0.0, np.nan, Xo)


_newton_bounds = ns.bind_feature_bounds(nb.newton_gain_upper, nb.newton_gain_lower, "test")


@njit
def _root(gh, key, m, params):
    """(the root's rows in weight order, its Parent, the polygon of its rows past m)."""
    n = gh.shape[0]
    position = np.zeros(n, np.int32)
    order = np.argsort(-key, kind="mergesort")
    level = level_stats(Rows(gh, position), np.arange(n), 1, params, newton_score)
    slots = ns.make_slots(order, position, gh, 1)
    slack_G, slack_H = nb.parent_slack(n, slots.abs_grad[0], level.hess[0])
    parent = nb.Parent(level.grad[0], level.hess[0], level.score[0], slots.abs_grad[0],
                       slack_G, slack_H)
    return slots.seq, parent, nb.unseen_region(gh, slots.seq, m, n, slack_G, slack_H)


@njit
def _root_bounds(codes_f, forward, gh, key, m, params):
    seq, parent, unseen = _root(gh, key, m, params)
    ub, lb = _newton_bounds(codes_f, ns.Prefix(seq, 0, m), gh, unseen, parent, forward,
                            np.inf, params)
    return ub, lb, seq


@given(problems(max_rows=30), st.integers(0, 2 ** 32 - 1), st.floats(0.1, 0.9))
@settings(max_examples=scaled(0.3))
def test_bounds_hold_for_random_placements(problem, seed, share):
    """UB >= every candidate's gain and LB <= the best, for random values of the unseen rows
    (the seen rows' values fixed): the bounds see only the seen rows."""
    X, g, h, params = problem
    n = X.shape[0]
    m = max(1, int(share * n))
    key = np.abs(g) + h
    gh = np.stack([g, h], axis=1)
    kp = params.kernel_params(n)
    rng = np.random.default_rng(seed)
    column = X[:, 0].copy()
    first = None
    for trial in range(4):
        x = column.copy()
        order = np.argsort(-key, kind="mergesort")
        unseen = order[m:]
        if trial:
            pool = np.concatenate([column, [np.nan, -100.0, 100.0]])
            x[unseen] = rng.choice(pool, unseen.size)
        data = NewtonData(x[:, None])
        codes = data.rank_codes()[0]
        ub, lb, seq = _root_bounds(codes[0], bool(data.forward[0]), gh, key, m, kp)
        assert np.array_equal(seq, order)
        if first is None:
            first = (ub, lb)
        gains = [c.gain for c in oracle.candidates(x[:, None], g, h, np.arange(n), [0], params)
                 if np.isfinite(c.gain)]
        scale = oracle.node_scale(g, h, params) + 1.0
        if gains:
            assert max(gains) <= ub + 1e-12 * scale
            assert lb <= max(gains) + 1e-12 * scale
        else:
            assert lb == -np.inf
        if trial and data.forward[0] == NewtonData(column[:, None]).forward[0]:
            assert (ub, lb) == first   # the bounds do not depend on the unseen values


def test_full_prefix_bounds_are_tight():
    """On every row the bounds enclose the feature's best gain within the rounding margin."""
    rng = np.random.default_rng(3)
    n = 200
    x = rng.integers(0, 20, n).astype(float)
    g = rng.normal(size=n) + (x > 9)
    h = rng.uniform(0.1, 1.0, n)
    params = NewtonParams()
    data = NewtonData(x[:, None])
    ub, lb, _ = _root_bounds(data.rank_codes()[0][0], False, np.stack([g, h], 1), np.abs(g), n,
                             params.kernel_params(n))
    best = max(c.gain for c in oracle.candidates(x[:, None], g, h, np.arange(n), [0], params))
    assert lb <= best <= ub
    assert ub - lb < 1e-6 * best


@pytest.fixture(scope="module")
def higgs():
    X, y, classes = load_bundled("higgs7k")
    return X[:3000], (y[:3000] == classes[1]).astype(float)


def test_boosting_real_data_same_trees_fewer_assessments(higgs):
    """A few rounds on higgs7k (3000 rows): every tree equal, quick and adaptive assess less
    than exhaustive (their real prefixes), exhaustive = rows x features at the root."""
    X, y = higgs
    d = DMatrix(X, label=y)
    params = {"objective": "binary:logistic", "max_depth": 3}
    boosters = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ns, "PREFIXES", {"quick": (0.9,), "adaptive": (0.5, 0.75, 0.9, 0.97, 0.99)})
        for method in ("exhaustive", "quick", "adaptive"):
            boosters[method] = train({**params, "method": method}, d, 4)
    ex = boosters["exhaustive"]
    assert ex.history[0]["assessments"] == sum(
        int(t.n_node_samples[t.node_features > 0] @ t.node_features[t.node_features > 0])
        for t in ex.trees[:1])
    assert ex.trees[0].assessments >= X.shape[0] * X.shape[1]
    for method in ("quick", "adaptive"):
        b = boosters[method]
        for t1, t2 in zip(ex.trees, b.trees):
            _same_tree(t1, t2)
        total = sum(r["assessments"] for r in b.history)
        assert total < sum(r["assessments"] for r in ex.history)


def test_multi_output_colsample_rows_features(higgs):
    X, y = higgs
    X = X[:600].copy()
    X[::7, 3] = np.nan
    labels = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
    d = DMatrix(X, label=labels)
    params = {"objective": "multi:softprob", "num_class": 3, "max_depth": 3,
              "colsample_bylevel": 0.7, "colsample_bynode": 0.6, "subsample": 0.8, "seed": 5}
    ex = train({**params}, d, 3)
    for method in ("quick", "adaptive"):
        b = train({**params, "method": method}, d, 3)
        for t1, t2 in zip(ex.trees, b.trees):
            _same_tree(t1, t2)
    data = NewtonData(X)
    g = labels - 1.0
    h = np.full(X.shape[0], 0.5)
    rows = np.arange(0, X.shape[0], 2)
    features = [1, 3, 5, 7]
    ex = grow_newton_tree(data, g, h, NewtonParams(max_depth=4), rows=rows, features=features)
    for method in ("quick", "adaptive"):
        _same_tree(ex, grow_newton_tree(data, g, h, NewtonParams(max_depth=4), rows=rows,
                                        features=features, method=method))


@njit
def _unbounded_score(G, H, params):
    return G * G / (H + 2.0) if H > 0.0 else 0.0


@njit
def _wrong_bounds(G_lo, G_hi, H_lo, H_hi, params):
    return 0.0, 1e-9


def test_user_criterion_with_bounds():
    """A user's criterion with bounds (Newton's with lambda + 1, tests/user_criterion.py):
    quick and adaptive grow the exhaustive tree, which is the built-in tree of lambda + 1."""
    name = user_criterion.registered()
    rng = np.random.default_rng(1)
    X = rng.integers(0, 6, size=(300, 3)).astype(float)
    g = rng.normal(size=300) + X[:, 1]
    h = np.ones(300)
    data = NewtonData(X)
    ex = grow_newton_tree(data, g, h, NewtonParams(max_depth=3), criterion=name)
    _same_tree(ex, grow_newton_tree(data, g, h, NewtonParams(max_depth=3, reg_lambda=2.0)))
    for method in ("quick", "adaptive"):
        _same_tree(ex, grow_newton_tree(data, g, h, NewtonParams(max_depth=3), criterion=name,
                                        method=method))


def test_exhaustive_counts_rows_times_features():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 4))
    data = NewtonData(X)
    tree = grow_newton_tree(data, X[:, 0], np.ones(50), NewtonParams(max_depth=1))
    assert tree.assessments == 50 * 4
    tree = grow_newton_tree(data, X[:, 0], np.ones(50), NewtonParams(max_depth=1),
                            colsample_bynode=0.5, seed=1)
    assert tree.assessments == 50 * 2


def test_refusals():
    data = NewtonData(np.arange(6.0)[:, None])
    g, h = np.arange(6.0) - 2.5, np.ones(6)
    with pytest.raises(ValueError, match="method"):
        grow_newton_tree(data, g, h, NewtonParams(), method="adaptive_paper")
    with pytest.raises(ValueError, match="weight_order"):
        grow_newton_tree(data, g, h, NewtonParams(), method="quick", weight_order="size")
    apsplit.register_criterion("unbounded_test", _unbounded_score, overwrite=True)
    with pytest.raises(ValueError, match="bounds="):
        grow_newton_tree(data, g, h, NewtonParams(), method="quick", criterion="unbounded_test")
    with pytest.raises(TypeError, match="bounds must be a numba-jitted"):
        apsplit.register_criterion("x_test", _unbounded_score, bounds=lambda *a: (0.0, 1.0))
    with pytest.raises(ValueError, match="miss the score"):
        apsplit.register_criterion("y_test", _unbounded_score, bounds=_wrong_bounds)
    with pytest.raises(ValueError, match="method"):
        train({"method": "fast"}, DMatrix(np.arange(6.0)[:, None], label=np.arange(6.0)), 1)
    mixed = NewtonData(np.column_stack([np.arange(6.0), np.arange(6) % 3]), categorical=[1])
    with pytest.raises(ValueError, match="cannot split the categorical features"):
        grow_newton_tree(mixed, g, h, NewtonParams(), method="quick",
                         criterion=user_criterion.registered())


# categorical features: up to 12 categories (codes 0..11, or a few codes far apart), NaN
_CODES = st.one_of(st.integers(1, 12).map(lambda q: list(range(q))),
                   st.lists(st.integers(0, 2 ** 24 - 1), min_size=1, max_size=5, unique=True))


@st.composite
def mixed_problems(draw, max_rows=40):
    """``problems`` with some columns replaced by category codes (and NaN): the
    categorical ones, listed second."""
    X, g, h, params = draw(problems(max_rows))
    n, K = X.shape
    categorical = [k for k in range(K) if draw(st.booleans())] or [0]
    for k in categorical:
        codes = draw(_CODES)
        X[:, k] = np.array(draw(st.lists(st.sampled_from(codes), min_size=n, max_size=n)), float)
        missing = draw(st.sampled_from([0.0, 0.0, 0.2, 0.6]))
        if missing:
            X[np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))) < missing,
              k] = np.nan
    if draw(st.booleans()):  # a signal on a set of categories
        g += np.where(np.isin(X[:, categorical[0]], [1.0, 3.0, 4.0]), 4.0, -4.0)
    return X, g, h, params, categorical


@given(mixed_problems(), st.sampled_from(["quick", "adaptive"]),
       st.sampled_from(sorted(WEIGHT_ORDERS)))
@settings(max_examples=scaled(0.3))
def test_categorical_same_tree_as_exhaustive(problem, method, order):
    """quick and adaptive grow exhaustive's tree, array for array, with categorical and
    numeric features; both route rows with codes unseen in training alike (left)."""
    X, g, h, params, categorical = problem
    data = NewtonData(X, categorical=categorical)
    ex = grow_newton_tree(data, g, h, params)
    tree = grow_newton_tree(data, g, h, params, method=method, weight_order=order)
    _same_tree(ex, tree)
    if params.gamma == 0.0:
        assert tree.assessments <= ex.assessments
    unseen = X.copy()
    unseen[::2, categorical] = 2.0 ** 24 - 2.0   # a code no row has
    assert np.array_equal(tree.apply(unseen), ex.apply(unseen))


@njit
def _root_categorical_upper(codes_f, n_values, gh, key, m, params):
    seq, parent, unseen = _root(gh, key, m, params)
    return ns.categorical_upper(codes_f, n_values, ns.Prefix(seq, 0, m), gh, unseen, parent,
                                params)


@given(mixed_problems(max_rows=30), st.integers(0, 2 ** 32 - 1), st.floats(0.1, 0.9))
@settings(max_examples=scaled(0.3))
def test_categorical_bound_holds_for_random_placements(problem, seed, share):
    """The UB of a categorical column, computed on the seen rows, is >= the gain the exact
    engine computes at the root and >= the brute force's best partition, whatever
    categories (seen ones, new codes, missing) the unseen rows are given."""
    X, g, h, params, categorical = problem
    n = X.shape[0]
    m = max(1, int(share * n))
    key = np.abs(g) + h
    gh = np.stack([g, h], axis=1)
    kp = params.kernel_params(n)
    column = X[:, categorical[0]]
    unseen = np.argsort(-key, kind="mergesort")[m:]
    rng = np.random.default_rng(seed)
    stump = dataclasses.replace(params, max_depth=1, gamma=0.0)
    for trial in range(4):
        x = column.copy()
        if trial:
            pool = np.concatenate([column, [np.nan, 100.0, 101.0]])
            x[unseen] = rng.choice(pool, unseen.size)
        data = NewtonData(x[:, None], categorical=[0])
        codes, indptr, _ = data.rank_codes()
        ub = _root_categorical_upper(codes[0], indptr[1] - indptr[0], gh, key, m, kp)
        tree = grow_newton_tree(data, g, h, stump)
        if tree.node_count > 1:
            assert tree.gain[0] <= ub
        best, scale = tc.brute_force(x, g, h, stump)
        assert best <= ub + 1e-9 * scale + 1e-12


def test_categorical_boosting_same_trees_fewer_assessments():
    """train() on a DMatrix with feature_types "c": every tree of quick and adaptive equal to
    exhaustive's, with fewer assessments, where the gradients sit on a few categories."""
    rng = np.random.default_rng(4)
    n = 1500
    X = np.column_stack([rng.integers(0, 10, n), rng.normal(size=n),
                         rng.integers(0, 4, n)]).astype(float)
    X[rng.random(n) < 0.1, 2] = np.nan
    y = (np.isin(X[:, 0], [2, 5, 7]) ^ (rng.random(n) < 0.05)).astype(float)
    d = DMatrix(X, label=y, feature_types=["c", "q", "c"])
    params = {"objective": "binary:logistic", "max_depth": 3, "lambda": 1.0}
    ex = train(params, d, 3)
    for method in ("quick", "adaptive"):
        b = train({**params, "method": method}, d, 3)
        for t1, t2 in zip(ex.trees, b.trees):
            _same_tree(t1, t2)
        assert any(s is not None for t in b.trees for s in t.categories_right)
        assert sum(r["assessments"] for r in b.history) < \
            sum(r["assessments"] for r in ex.history)
