"""Newton trees (apsplit.newton): the brute force of tests/newton_oracle.py, XGBoost's exact
method, and the errors on bad input.

Exactness.  The property tests draw gradients and hessians that are small
dyadic rationals (k / 2^j), so that every sum of them is exact in float64
whatever its order: the engine's and the oracle's (G, H) are then equal, and
their gains differ only by the rounding of the scores (a few ulps of
|s(L)| + |s(R)| + |s(P)|).  Candidates whose gains are that close are ties,
which both resolve by the same documented rule (the first in XGBoost's order
whose gain beats the earlier best by more than the tie window), so whole trees
must be equal node for node.  ``test_float_inputs`` drops the dyadic
restriction and checks the optimum's value within a tolerance scaled to the
node's sums (see ``_float_tolerance``).
"""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import newton_oracle as oracle
from apsplit.experiments.loaders import load_bundled
from apsplit.kernels.newton_grow import compact_columns
from apsplit.newton import (NewtonData, NewtonParams, NewtonTree, grow_newton_tree,
                            xgboost_threshold)
from strategies import scaled

EPS = np.finfo(float).eps

# ---------------------------------------------------------------- strategies

_COLUMN_VALUES = {
    "binary": st.sampled_from([0.0, 1.0]),
    "few": st.sampled_from([-2.0, -0.5, 0.0, 1.0, 3.0]),
    "many": st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False),
}
_GRAD = st.one_of(st.integers(-64, 64).map(lambda k: k / 8.0), st.just(0.0),
                  st.integers(-3, 3).map(lambda k: k * 2.0 ** -30))
_HESS = {
    "ones": st.just(1.0),
    "dyadic": st.integers(0, 32).map(lambda k: k / 8.0),
    "tiny": st.one_of(st.just(0.0), st.integers(1, 4).map(lambda k: k * 2.0 ** -30),
                      st.just(1.0)),
    "zero_heavy": st.sampled_from([0.0, 0.0, 0.0, 0.25, 2.0]),
}


@st.composite
def columns(draw, n):
    kind = draw(st.sampled_from(["binary", "few", "many", "constant"]))
    if kind == "constant":
        col = np.full(n, draw(st.sampled_from([0.0, -1.5, 7.0])))
    else:
        col = np.array(draw(st.lists(_COLUMN_VALUES[kind], min_size=n, max_size=n)))
    missing = draw(st.sampled_from([0.0, 0.0, 0.2, 0.6, 1.0]))
    if missing:
        mask = draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
        col[np.array(mask) < missing] = np.nan
    return col


@st.composite
def params(draw, gamma=True):
    return NewtonParams(
        max_depth=draw(st.integers(1, 4)),
        learning_rate=draw(st.sampled_from([0.3, 1.0])),
        reg_lambda=draw(st.sampled_from([0.0, 0.5, 1.0, 4.0])),
        reg_alpha=draw(st.sampled_from([0.0, 0.0, 0.25, 1.5])),
        gamma=draw(st.sampled_from([0.0, 0.0, 0.5, 2.0])) if gamma else 0.0,
        min_child_weight=draw(st.sampled_from([0.0, 0.0, 0.0, 0.5, 1.0, 3.0])),
        max_delta_step=draw(st.sampled_from([0.0, 0.0, 0.25, 1.0])))


@st.composite
def problems(draw, max_rows=30, max_features=4, dyadic=True):
    """(X with NaN, g, h, rows, features, sparse format or None)."""
    n_unique = draw(st.one_of(st.integers(1, max_rows), st.integers(max_rows // 2, max_rows)))
    K = draw(st.integers(1, max_features))
    X = np.column_stack([draw(columns(n_unique)) for _ in range(K)])
    dup = draw(st.lists(st.integers(0, n_unique - 1), max_size=n_unique // 2 + 1))
    X = np.vstack([X, X[dup]])
    n = X.shape[0]
    if dyadic:
        g = np.array(draw(st.lists(_GRAD, min_size=n, max_size=n)))
        kind = draw(st.sampled_from(["ones", "dyadic", "dyadic", "tiny", "zero_heavy"]))
        h = np.array(draw(st.lists(_HESS[kind], min_size=n, max_size=n)))
    else:
        g = np.array(draw(st.lists(st.floats(-10, 10), min_size=n, max_size=n)))
        h = np.array(draw(st.lists(st.one_of(st.just(0.0), st.floats(1e-3, 10)), min_size=n,
                                   max_size=n)))
    rows = None
    if draw(st.booleans()):
        rows = np.array(draw(st.permutations(range(n)))[:draw(st.integers(1, n))], np.int64)
    features = None
    if draw(st.booleans()):
        features = np.array(draw(st.permutations(range(K)))[:draw(st.integers(1, K))], np.int64)
    fmt = draw(st.sampled_from([None, None, "csr", "csc", "coo"]))
    return X, g, h, rows, features, fmt


def as_input(X, fmt):
    """X for NewtonData: dense with NaN, or sparse with the NaN entries absent (stored
    zeros kept: they are present values)."""
    if fmt is None:
        return X
    r, c = np.nonzero(~np.isnan(X))
    coo = sp.coo_matrix((X[r, c], (r, c)), shape=X.shape)
    return {"csr": coo.tocsr, "csc": coo.tocsc, "coo": lambda: coo}[fmt]()


def all_rows(rows, n):
    return np.arange(n) if rows is None else np.sort(rows)


def all_features(features, K):
    return np.arange(K) if features is None else np.sort(features)


def grow(X, g, h, p, rows=None, features=None, fmt=None):
    return grow_newton_tree(NewtonData(as_input(X, fmt)), g, h, p, rows=rows, features=features)


# ------------------------------------------------------ the brute force, one node

def _dyadic_tolerance(c, tie_scale):
    """The engine's gain of a candidate vs the oracle's: the same exact sums, each score
    rounded, plus the tie window."""
    return 16 * EPS * c.scale + 2 * oracle.TIE_WINDOW * tie_scale


@settings(max_examples=scaled(1.0))
@given(problems(), params(gamma=False))
def test_root_split_is_the_brute_force_optimum(problem, p):
    X, g, h, rows, features, fmt = problem
    p = NewtonParams(**{**vars(p), "max_depth": 1})
    tree = grow(X, g, h, p, rows, features, fmt)
    node_rows = all_rows(rows, X.shape[0])
    feats = all_features(features, X.shape[1])
    best, cand = oracle.optimum(X, g, h, node_rows, feats, p)
    tie_scale = oracle.node_scale(g[node_rows], h[node_rows], p)
    assert tree.n_node_samples[0] == node_rows.size
    np.testing.assert_allclose(tree.cover[0], h[node_rows].sum(), rtol=1e-12, atol=0)
    if tree.feature[0] < 0:
        assert cand is None or best <= oracle.KRT_EPS + _dyadic_tolerance(cand, tie_scale)
        return
    assert cand is not None
    # the engine's split is one of the candidates, with the gain the oracle gives it
    k = tree.feature[0]
    mine = [c for c in oracle.candidates(X, g, h, node_rows, feats, p)
            if c.feature == k and c.left_value == tree.left_value[0]
            and c.right_value == tree.right_value[0] and c.default_left == tree.default_left[0]]
    assert len(mine) == 1
    assert abs(tree.gain[0] - mine[0].gain) <= _dyadic_tolerance(mine[0], 0.0)
    assert tree.gain[0] >= best - _dyadic_tolerance(cand, tie_scale)
    # and it routes the node's rows as the candidate does
    left = tree.apply(as_input(X, fmt))[node_rows] == tree.children_left[0]
    np.testing.assert_array_equal(left, mine[0].left)


# ---------------------------------------------------------- whole trees, brute force

def assert_same_tree(tree, node, ref, X, p):
    """The engine's subtree at ``node`` equals the brute-force subtree ``ref``."""
    assert tree.n_node_samples[node] == ref.rows.size
    np.testing.assert_allclose(tree.base_weight[node], ref.weight, rtol=1e-12, atol=1e-300)
    if ref.is_leaf:
        assert tree.feature[node] == -1, f"node {node} split, the brute force has a leaf"
        np.testing.assert_allclose(tree.value[node], p.learning_rate * ref.weight, rtol=1e-12,
                                   atol=1e-300)
        return
    s = ref.split
    assert tree.feature[node] == s.feature, f"node {node}"
    assert (tree.left_value[node], tree.right_value[node]) == (s.left_value, s.right_value)
    assert tree.default_left[node] == s.default_left
    assert_same_tree(tree, tree.children_left[node], ref.left, X, p)
    assert_same_tree(tree, tree.children_right[node], ref.right, X, p)


@settings(max_examples=scaled(0.5))
@given(problems(max_rows=24, max_features=3), params())
def test_tree_equals_the_brute_force_tree(problem, p):
    X, g, h, rows, features, fmt = problem
    tree = grow(X, g, h, p, rows, features, fmt)
    node_rows = all_rows(rows, X.shape[0])
    ref = oracle.grow(X, g, h, node_rows, all_features(features, X.shape[1]), p)
    assert_same_tree(tree, 0, ref, X, p)
    # the training rows' leaves, by routing and as recorded
    leaves = tree.apply(as_input(X, fmt))
    np.testing.assert_array_equal(leaves[node_rows], tree.row_leaf[node_rows])
    outside = np.setdiff1d(np.arange(X.shape[0]), node_rows)
    assert np.all(tree.row_leaf[outside] == -1)
    assert np.all(tree.feature[tree.row_leaf[node_rows]] == -1)


@settings(max_examples=scaled(0.1), deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), p=params())
def test_long_columns_equal_the_brute_force_tree(seed, p):
    """300 rows, so that a node's pass over a column runs through many blocks of
    ``newton_split.BLOCK`` entries, most of them refused once the feature's best is high
    (the scan's block bound): the tree is still the brute force's.  Ties (60 integer
    values; values rounded to 0.1), missing values, and dyadic g and h (exact sums)."""
    rng = np.random.default_rng(seed)
    n = 300
    X = np.column_stack([rng.integers(0, 60, n).astype(float), np.round(rng.normal(size=n), 1),
                         rng.normal(size=n)])
    X[rng.random(n) < 0.05, 1] = np.nan
    g = rng.integers(-64, 65, n) / 8.0 + 2.0 * (X[:, 0] > 30)
    h = rng.choice([0.25, 0.5, 1.0], n)
    p = NewtonParams(**{**vars(p), "max_depth": min(p.max_depth, 3)})
    tree = grow(X, g, h, p)
    ref = oracle.grow(X, g, h, np.arange(n), np.arange(3), p)
    assert_same_tree(tree, 0, ref, X, p)


def _float_tolerance(g, h, p):
    """How far two computations of a gain from non-dyadic inputs may drift.

    G and H sums over n rows carry absolute errors up to ~n eps sum|g| and
    n eps sum h; a child score G^2/(H + lambda) then moves by about
    2 |G| dG / (H + lambda) + G^2 dH / (H + lambda)^2.  With the node's sums and
    the smallest admissible denominator (min_child_weight + lambda, or the
    smallest positive hessian), this is bounded by the expression below.
    """
    n = g.size
    absg = np.abs(g).sum()
    floor = max(p.min_child_weight + p.reg_lambda, h[h > 0].min() if (h > 0).any() else 1.0)
    return 64 * n * EPS * (absg ** 2 / floor) * (1 + h.sum() / floor) + 1e-300


@settings(max_examples=scaled(0.5))
@given(problems(dyadic=False), params(gamma=False))
def test_float_inputs(problem, p):
    X, g, h, rows, features, fmt = problem
    p = NewtonParams(**{**vars(p), "max_depth": 1})
    tree = grow(X, g, h, p, rows, features, fmt)
    node_rows = all_rows(rows, X.shape[0])
    best, cand = oracle.optimum(X, g, h, node_rows, all_features(features, X.shape[1]), p)
    tol = _float_tolerance(g[node_rows], h[node_rows], p)
    if tree.feature[0] < 0:
        assert cand is None or best <= oracle.KRT_EPS + tol
    else:
        assert tree.gain[0] >= best - tol and tree.gain[0] <= best + tol


# ------------------------------------------------------------- inputs and outputs

@settings(max_examples=scaled(0.2))
@given(problems(max_rows=20, max_features=3), params())
def test_dense_and_sparse_grow_the_same_tree(problem, p):
    X, g, h, rows, features, _ = problem
    dense = grow(X, g, h, p, rows, features)
    for fmt in ("csr", "csc"):
        tree = grow(X, g, h, p, rows, features, fmt)
        for name in NewtonTree._ARRAYS:
            np.testing.assert_array_equal(getattr(tree, name), getattr(dense, name), err_msg=name)
        np.testing.assert_array_equal(tree.predict(as_input(X, fmt)), dense.predict(X))


def test_stored_nan_is_missing_and_stored_zero_is_present():
    X = np.array([[0.0], [np.nan], [1.0], [2.0], [np.nan], [0.0]])
    g = np.array([-4.0, 3.0, -1.0, 5.0, 3.0, -4.0])
    h = np.ones(6)
    p = NewtonParams(max_depth=2, min_child_weight=0.0)
    dense = grow(X, g, h, p)
    r = np.arange(6)
    with_nan = sp.csr_matrix((X[:, 0], (r, np.zeros(6, int))), shape=(6, 1))  # NaN stored
    absent = as_input(X, "csr")                                                 # NaN absent
    assert with_nan.nnz == 6 and absent.nnz == 4
    for Xs in (with_nan, absent):
        tree = grow_newton_tree(NewtonData(Xs), g, h, p)
        np.testing.assert_array_equal(tree.feature, dense.feature)
        np.testing.assert_array_equal(tree.threshold, dense.threshold)
        np.testing.assert_array_equal(tree.predict(Xs), dense.predict(X))
    # zeros are a value of their own: rows 0 and 5 (g=-4) are separated from row 2 (g=-1)
    assert dense.feature[0] == 0


def test_leaf_weight_rules():
    X = np.arange(6.0)[:, None]
    g = np.array([-3.0, -3.0, -3.0, 2.0, 2.0, 2.0])
    h = np.ones(6)
    p = NewtonParams(max_depth=1, reg_lambda=1.0, reg_alpha=1.0, learning_rate=0.5,
                     min_child_weight=0.0)
    tree = grow(X, g, h, p)
    assert tree.feature[0] == 0 and tree.threshold[0] == 2.5
    # left: G = -9, H = 3: w = -T(-9)/(3 + 1) = 8/4; right: G = 6: w = -5/4
    np.testing.assert_allclose(tree.base_weight[1:], [2.0, -1.25])
    np.testing.assert_allclose(tree.value[1:], [1.0, -0.625])
    np.testing.assert_allclose(tree.gain[0], 64 / 4 + 25 / 4 - 4 / 7)
    clipped = grow(X, g, h, NewtonParams(**{**vars(p), "max_delta_step": 0.5}))
    np.testing.assert_allclose(clipped.base_weight[1:], [0.5, -0.5])
    # the score at the clipped weight: -(2 G w + (H + lambda) w^2 + 2 alpha |w|)
    sl = -(2 * -9 * 0.5 + 4 * 0.25 + 2 * 0.5)
    sr = -(2 * 6 * -0.5 + 4 * 0.25 + 2 * 0.5)
    parent = 4 / 7  # w = 2/7 is not clipped
    np.testing.assert_allclose(clipped.gain[0], sl + sr - parent)
    # no hessian at all: every weight is 0 and nothing splits
    flat = grow(X, g, np.zeros(6), NewtonParams(max_depth=3, reg_lambda=0.0, min_child_weight=0.0))
    assert flat.node_count == 1 and flat.base_weight[0] == 0.0


def test_gamma_prunes_bottom_up():
    X = np.array([0.0, 1.0, 2.0, 3.0])[:, None]
    g = np.array([-10.0, -9.0, 9.0, 10.0])
    h = np.ones(4)
    base = NewtonParams(max_depth=2, reg_lambda=0.0, min_child_weight=0.0, learning_rate=1.0)
    full = grow(X, g, h, base)
    assert full.node_count == 7
    root_gain, child_gains = full.gain[0], full.gain[1:3]
    assert child_gains.max() < root_gain
    # gamma between the children's gains and the root's: the children go, the root stays
    mid = grow(X, g, h, NewtonParams(**{**vars(base), "gamma": (child_gains.max() + root_gain) / 2}))
    assert mid.node_count == 3 and mid.feature[0] == 0
    np.testing.assert_allclose(mid.value[1:], [9.5, -9.5])
    np.testing.assert_array_equal(mid.row_leaf, [1, 1, 2, 2])
    # gamma above every gain: a single leaf
    top = grow(X, g, h, NewtonParams(**{**vars(base), "gamma": root_gain + 1}))
    assert top.node_count == 1 and np.all(top.row_leaf == 0)


def test_depth_and_no_split_leaves():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    g = rng.normal(size=200)
    tree = grow(X, g, np.ones(200), NewtonParams(max_depth=3))
    assert tree.max_depth <= 3
    constant = grow(np.ones((10, 2)), g[:10], np.ones(10), NewtonParams())
    assert constant.node_count == 1
    np.testing.assert_allclose(constant.value[0], 0.3 * -g[:10].sum() / 11)


def test_predict_routes_unseen_values_and_missing():
    X = np.array([[0.0], [1.0], [np.nan], [np.nan]])
    g = np.array([-5.0, 5.0, -5.0, -5.0])
    tree = grow(X, g, np.ones(4), NewtonParams(max_depth=1, min_child_weight=0.0,
                                                learning_rate=1.0))
    assert tree.feature[0] == 0 and tree.default_left[0]
    leaves = tree.apply(np.array([[-100.0], [0.4], [0.6], [np.nan]]))
    left, right = tree.children_left[0], tree.children_right[0]
    np.testing.assert_array_equal(leaves, [left, left, right, left])
    np.testing.assert_array_equal(tree.apply(sp.csr_matrix((1, 1))), [left])  # absent: missing


def test_nan_only_column_and_present_vs_missing_split():
    X = np.column_stack([np.full(6, np.nan), [1.0, 1.0, 1.0, np.nan, np.nan, np.nan]])
    g = np.array([-3.0, -3.0, -3.0, 3.0, 3.0, 3.0])
    tree = grow(X, g, np.ones(6), NewtonParams(max_depth=2, min_child_weight=0.0))
    # feature 1 has one distinct value: XGBoost runs the backward pass only, so the
    # split is "present right, missing left"
    assert tree.feature[0] == 1 and tree.default_left[0]
    assert tree.left_value[0] == -np.inf and tree.right_value[0] == 1.0
    assert tree.threshold[0] < 1.0
    np.testing.assert_array_equal(tree.row_leaf, [2, 2, 2, 1, 1, 1])


@settings(max_examples=scaled(0.5))
@given(problems(max_rows=30, max_features=4), st.data())
def test_compacted_columns_keep_the_open_rows_entries_in_order(problem, data):
    """``compact_columns``: each candidate feature keeps its open rows' entries, in order
    (new arrays, then in place on them); the other features are left empty."""
    X, _, _, _, features, fmt = problem
    cols = NewtonData(as_input(X, fmt)).columns()
    n, K = X.shape
    features = all_features(features, K)
    position = np.array(data.draw(st.lists(st.integers(-1, 2), min_size=n, max_size=n)),
                        np.int32)
    def check(out, pos):
        for f in range(K):
            lo, hi = cols.indptr[f], cols.indptr[f + 1]
            keep = (pos[cols.rows[lo:hi]] >= 0) & np.isin(f, features)
            got = slice(out.indptr[f], out.indptr[f + 1])
            np.testing.assert_array_equal(out.rows[got], cols.rows[lo:hi][keep])
            np.testing.assert_array_equal(out.values[got], cols.values[lo:hi][keep])
        assert out.forward is cols.forward

    first = compact_columns(cols, position, features, False)
    check(first, position)
    fewer = np.where(np.arange(n) % 2 == 0, position, -1).astype(np.int32)
    second = compact_columns(first, fewer, features, True)
    check(second, fewer)
    assert second.rows is first.rows  # in place


# ------------------------------------------------------------------ against XGBoost

import xgboost as xgb


def xgboost_trees(X, objective, p, rounds=1, missing_as_absent=False):
    """XGBoost's exact trees, round by round, with the (grad, hess) each round was given.

    ``objective(margin) -> (grad, hess)`` is used as XGBoost's custom objective, so
    XGBoost and the test see the same float32 gradients.
    """
    dtrain = xgb.DMatrix(as_input(X, "csr") if missing_as_absent else X, missing=np.nan)
    seen = []

    def obj(preds, _):
        g, h = objective(preds.astype(np.float64))
        g, h = np.float32(g), np.float32(h)
        seen.append((g.astype(np.float64), h.astype(np.float64)))
        return g, h

    bst = xgb.train({"tree_method": "exact", "nthread": 1, "base_score": 0.0,
                     "max_depth": p.max_depth, "eta": p.learning_rate, "lambda": p.reg_lambda,
                     "alpha": p.reg_alpha, "gamma": p.gamma, "min_child_weight": p.min_child_weight,
                     "max_delta_step": p.max_delta_step}, dtrain, rounds, obj=obj)
    trees = json.loads(bst.save_raw("json"))["learner"]["gradient_booster"]["model"]["trees"]
    return trees, seen


def compare_with_xgboost(tree, xt, X, p, near_tie=None):
    """Walk both trees together; returns the list of differences (empty: the same tree).

    Features, float32 thresholds and default directions must be equal; leaf values
    within 1e-5 relative; gains within float32 precision of the scores they are made of
    (XGBoost adds float32 scores).  A default direction is compared where the node's rows have a
    missing value of the split feature (elsewhere it is a convention that sends no
    training row; see test_default_direction_without_missing).  ``near_tie(node, x)``, if
    given, may excuse a different split (or leaf) at a node: the walk stops there.
    """
    out = []
    conditions = tree.xgboost_split_conditions()
    leaves = tree.row_leaf

    def walk(node, x):
        xl = xt["left_children"][x]
        differs = (tree.feature[node] == -1) != (xl == -1) or (
            xl != -1 and (tree.feature[node] != xt["split_indices"][x]
                          or conditions[node] != np.float32(xt["split_conditions"][x])))
        if differs and near_tie is not None and near_tie(node, x):
            return
        if tree.feature[node] == -1 or xl == -1:
            if tree.feature[node] != -1 or xl != -1:
                out.append(f"node {node}: apsplit feature {tree.feature[node]}, "
                           f"XGBoost {'leaf' if xl == -1 else xt['split_indices'][x]}")
            elif not np.isclose(tree.value[node], xt["split_conditions"][x], rtol=1e-5, atol=1e-7):
                out.append(f"leaf {node}: {tree.value[node]} vs {xt['split_conditions'][x]}")
            return
        k = tree.feature[node]
        if k != xt["split_indices"][x]:
            out.append(f"node {node}: feature {k} vs {xt['split_indices'][x]} "
                       f"(gains {tree.gain[node]} vs {xt['loss_changes'][x]})")
            return
        if conditions[node] != np.float32(xt["split_conditions"][x]):
            out.append(f"node {node}: threshold {conditions[node]} vs {xt['split_conditions'][x]}")
        in_node = _rows_under(tree, node, leaves)
        if np.isnan(X[in_node, k]).any() and bool(tree.default_left[node]) != bool(xt["default_left"][x]):
            out.append(f"node {node}: default_left {tree.default_left[node]}")
        scores = sum(abs(oracle.score(tree.sum_grad[i], tree.cover[i], p))
                     for i in (node, tree.children_left[node], tree.children_right[node]))
        if abs(tree.gain[node] - xt["loss_changes"][x]) > 1e-6 * scores + 1e-6:
            out.append(f"node {node}: gain {tree.gain[node]} vs {xt['loss_changes'][x]}")
        walk(tree.children_left[node], xl)
        walk(tree.children_right[node], xt["right_children"][x])

    walk(0, 0)
    return out


def _rows_under(tree, node, leaves):
    below = np.zeros(tree.node_count, bool)
    below[node] = True
    for i in range(node, tree.node_count):
        if below[i] and tree.feature[i] != -1:
            below[tree.children_left[i]] = below[tree.children_right[i]] = True
    return np.flatnonzero((leaves >= 0) & below[np.maximum(leaves, 0)])


def logistic(y):
    def objective(margin):
        prob = 1.0 / (1.0 + np.exp(-margin))
        return prob - y, np.maximum(prob * (1.0 - prob), 1e-16)
    return objective


def squared_error(y):
    return lambda margin: (margin - y, np.ones_like(y))


def assert_same_as_xgboost(X, objective, p, rounds, sparse=False):
    trees, seen = xgboost_trees(X, objective, p, rounds, missing_as_absent=sparse)
    data = NewtonData(as_input(X, "csr") if sparse else X)
    for r, (xt, (g, h)) in enumerate(zip(trees, seen)):
        tree = grow_newton_tree(data, g, h, p)
        diff = compare_with_xgboost(tree, xt, X, p)
        assert not diff, f"round {r}: {diff[:5]}"
        if p.gamma == 0:  # nothing pruned: XGBoost's node numbering too
            np.testing.assert_array_equal(tree.children_left, xt["left_children"])
            np.testing.assert_array_equal(tree.children_right, xt["right_children"])
            np.testing.assert_array_equal(tree.parent[1:], xt["parents"][1:])


def _synthetic(seed, n=400, K=6, missing=0.0, rounded=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, K)).astype(np.float32).astype(np.float64)
    if rounded:
        X = np.round(X * 4) / 4
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(scale=0.5, size=n) > 0.3).astype(float)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


@pytest.mark.parametrize("seed, missing, rounded, p", [
    (0, 0.0, False, NewtonParams(max_depth=3)),
    (1, 0.05, False, NewtonParams(max_depth=6)),
    (2, 0.2, True, NewtonParams(max_depth=4, reg_lambda=0.0, reg_alpha=0.5, gamma=0.3)),
    (3, 0.05, True, NewtonParams(max_depth=5, max_delta_step=0.7, min_child_weight=3.0)),
    (4, 0.3, False, NewtonParams(max_depth=6, min_child_weight=0.0, learning_rate=1.0)),
])
def test_same_trees_as_xgboost_synthetic(seed, missing, rounded, p):
    X, y = _synthetic(seed, missing=missing, rounded=rounded)
    assert_same_as_xgboost(X, logistic(y), p, rounds=5)


def test_same_trees_as_xgboost_sparse():
    """Sparse input: absent entries are missing in both libraries."""
    rng = np.random.default_rng(5)
    X = np.where(rng.random((300, 8)) < 0.6, np.nan,
                 np.round(rng.normal(size=(300, 8)), 1))
    y = (np.nan_to_num(X[:, 0]) + np.isnan(X[:, 1]) > 0.5).astype(float)
    assert_same_as_xgboost(X, logistic(y), NewtonParams(max_depth=4), rounds=5, sparse=True)


def test_same_trees_as_xgboost_squared_error():
    X, _ = _synthetic(6, missing=0.05)
    y = np.nan_to_num(X[:, 0]) * 2 + np.nan_to_num(X[:, 2])
    assert_same_as_xgboost(X, squared_error(y), NewtonParams(max_depth=6), rounds=3)


@pytest.fixture(scope="module")
def satimage():
    X, y, _ = load_bundled("satimage")
    return X, (y == 0).astype(float)


@pytest.mark.parametrize("max_depth", [3, 6])
def test_same_trees_as_xgboost_satimage(satimage, max_depth):
    X, y = satimage
    assert_same_as_xgboost(X, logistic(y), NewtonParams(max_depth=max_depth), rounds=20)


def test_same_trees_as_xgboost_satimage_with_nan(satimage):
    X, y = satimage
    rng = np.random.default_rng(7)
    X = X.copy()
    X[rng.random(X.shape) < 0.05] = np.nan
    assert_same_as_xgboost(X, logistic(y), NewtonParams(max_depth=6), rounds=3)


@pytest.mark.parametrize("name, max_depth, nan", [
    ("pendigits", 6, 0.0),
    ("pendigits", 6, 0.05),
    ("higgs7k", 6, 0.0),
    ("higgs7k", 3, 0.05),
    ("agaricus", 6, 0.0),
    ("a8a", 6, 0.0),
])
def test_same_trees_as_xgboost_bundled(name, max_depth, nan):
    """The bundled sets, one class against the rest, 20 rounds (the sparse ones as
    scipy.sparse: absent entries are missing to both libraries; ``nan``: that share of
    the dense values made missing at random)."""
    X, y, _ = load_bundled(name)
    y = (y == y[0]).astype(float)
    sparse = sp.issparse(X)
    if sparse:
        dense = np.full(X.shape, np.nan)
        coo = X.tocoo()
        dense[coo.row, coo.col] = coo.data
        X = dense
    elif nan:
        X = np.where(np.random.default_rng(8).random(X.shape) < nan, np.nan, X)
    assert_same_as_xgboost(X, logistic(y), NewtonParams(max_depth=max_depth), 20, sparse=sparse)


def test_default_direction_without_missing():
    """Where the missing side sends no row of weight, the default side is a convention; like
    XGBoost, it is right when the column has a missing value somewhere (the forward pass runs
    first and wins ties) and left otherwise (the backward pass only)."""
    g = np.array([-2.0, -2.0, -2.0, -2.0, 2.0, 2.0, 2.0, 0.0])
    h = np.array([1.0] * 7 + [0.0])
    p = NewtonParams(max_depth=1, min_child_weight=0.0)
    for column, default_left in ((np.arange(8.0), True), (np.r_[np.arange(7.0), np.nan], False)):
        X = column[:, None]
        tree = grow(X, g, h, p)
        trees, _ = xgboost_trees(X, lambda margin: (g, h), p)
        assert tree.feature[0] == 0 and bool(tree.default_left[0]) == default_left
        assert bool(trees[0]["default_left"][0]) == default_left
        assert tree.xgboost_split_conditions()[0] == np.float32(trees[0]["split_conditions"][0])
        # XGBoost keeps a leaf's output (float32 weight x float32 eta) in split_conditions
        leaves = tree.is_leaf
        np.testing.assert_array_equal(tree.xgboost_leaf_values()[leaves],
                                      np.float32(trees[0]["split_conditions"])[leaves])


# ------------------------------------------------------------------- bad input

def _ok():
    X = np.arange(12.0).reshape(6, 2)
    return NewtonData(X), np.linspace(-1, 1, 6), np.ones(6)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"max_depth": 0}, ValueError, "max_depth"),
    ({"max_depth": 2.5}, TypeError, "max_depth"),
    ({"max_depth": True}, TypeError, "max_depth"),
    ({"learning_rate": -0.1}, ValueError, "learning_rate"),
    ({"reg_lambda": -1.0}, ValueError, "reg_lambda"),
    ({"reg_alpha": float("nan")}, ValueError, "reg_alpha"),
    ({"gamma": float("inf")}, ValueError, "gamma"),
    ({"min_child_weight": -1}, ValueError, "min_child_weight"),
    ({"max_delta_step": "1"}, TypeError, "max_delta_step"),
])
def test_bad_params(kwargs, error, match):
    with pytest.raises(error, match=match):
        NewtonParams(**kwargs)


@pytest.mark.parametrize("X, error, match", [
    (np.array([[1.0, np.inf]]), ValueError, "inf"),
    (sp.csr_matrix(np.array([[1.0, -np.inf]])), ValueError, "inf"),
    (np.zeros(3), ValueError, "2-dimensional"),
    (np.zeros((0, 3)), ValueError, "empty"),
    (np.zeros((3, 0)), ValueError, "empty"),
    (sp.csr_matrix((0, 2)), ValueError, "empty"),
    (np.array([["a", "b"]], dtype=object), TypeError, "numeric"),
])
def test_bad_data(X, error, match):
    with pytest.raises(error, match=match):
        NewtonData(X)


@pytest.mark.parametrize("which, value, error, match", [
    ("grad", np.ones(5), ValueError, "grad has 5 entries"),
    ("hess", np.ones((6, 1)), ValueError, "hess must be 1-dimensional"),
    ("grad", np.r_[np.ones(5), np.nan], ValueError, "grad contains NaN"),
    ("hess", np.r_[np.ones(5), np.inf], ValueError, "hess contains inf"),
    ("hess", np.r_[np.ones(5), -1e-3], ValueError, "negative"),
    ("grad", ["a"] * 6, TypeError, "grad must be numeric"),
])
def test_bad_gradients(which, value, error, match):
    data, g, h = _ok()
    args = {"grad": g, "hess": h, which: value}
    with pytest.raises(error, match=match):
        grow_newton_tree(data, args["grad"], args["hess"], NewtonParams())


@pytest.mark.parametrize("kwargs, error, match", [
    ({"method": "adaptive_paper"}, ValueError, "take method in"),
    ({"method": None}, ValueError, "take method in"),
    ({"method": "quick", "weight_order": "gradient"}, ValueError, "weight_order must be one"),
    ({"rows": [0, 6]}, ValueError, "rows"),
    ({"rows": [1, 1]}, ValueError, "duplicate"),
    ({"rows": [0.5]}, TypeError, "rows"),
    ({"features": [2]}, ValueError, "features"),
    ({"features": []}, ValueError, "features"),
])
def test_bad_arguments(kwargs, error, match):
    data, g, h = _ok()
    with pytest.raises(error, match=match):
        grow_newton_tree(data, g, h, NewtonParams(), **kwargs)


def test_bad_types_and_predict_input():
    data, g, h = _ok()
    with pytest.raises(TypeError, match="NewtonData"):
        grow_newton_tree(np.zeros((6, 2)), g, h, NewtonParams())
    with pytest.raises(TypeError, match="NewtonParams"):
        grow_newton_tree(data, g, h, {"max_depth": 3})
    tree = grow_newton_tree(data, g, h, NewtonParams(min_child_weight=0.0))
    with pytest.raises(ValueError, match="3 features"):
        tree.predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="inf"):
        tree.predict(np.array([[np.inf, 0.0]]))
    with pytest.raises(TypeError, match="row_leaf"):
        tree.apply(data)


@pytest.mark.parametrize("fmt", [None, "csr"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_columns_sorted_by_value_then_row_on_any_thread_count(fmt, n_threads):
    """Enough values for two sorting threads: every feature's present entries ordered by
    value, ties (0.0 and -0.0 among them) by row, as a lexsort written out orders them."""
    rng = np.random.default_rng(8)
    n, K = 30000, 6
    X = rng.choice([-1.5, -0.0, 0.0, 0.25, 2.0, 7.0], size=(n, K))
    X[:, 0] = rng.normal(size=n)
    X[rng.random((n, K)) < 0.3] = np.nan   # missing (sparse: absent)
    data = NewtonData(as_input(X, fmt), n_threads=n_threads)
    for k in range(K):
        rows = np.flatnonzero(~np.isnan(X[:, k]))
        rows = rows[np.lexsort((rows, X[rows, k]))]
        lo, hi = data.indptr[k], data.indptr[k + 1]
        np.testing.assert_array_equal(data.rows[lo:hi], rows)
        np.testing.assert_array_equal(np.signbit(data.values[lo:hi]), np.signbit(X[rows, k]))
        np.testing.assert_array_equal(data.values[lo:hi], X[rows, k])
    with pytest.raises(ValueError, match="n_threads"):
        NewtonData(X, n_threads=0)


def test_pickle_round_trip():
    import pickle

    X, y = _synthetic(10, n=200, missing=0.1)
    data = NewtonData(as_input(X, "csr"))
    g, h = logistic(y)(np.zeros(y.size))
    tree = grow_newton_tree(data, g, h, NewtonParams(max_depth=3))
    data2, tree2 = pickle.loads(pickle.dumps((data, tree)))
    np.testing.assert_array_equal(tree2.predict(X), tree.predict(X))
    again = grow_newton_tree(data2, g, h, NewtonParams(max_depth=3))
    np.testing.assert_array_equal(again.threshold, tree.threshold)
    assert "NewtonData(200 x 6, sparse" in repr(data2) and "NewtonTree(" in repr(tree2)


def test_parents():
    X, y = _synthetic(11, n=300)
    g, h = logistic(y)(np.zeros(y.size))
    tree = grow(X, g, h, NewtonParams(max_depth=4))
    assert tree.parent[0] == -1
    inner = np.flatnonzero(tree.feature >= 0)
    np.testing.assert_array_equal(tree.parent[tree.children_left[inner]], inner)
    np.testing.assert_array_equal(tree.parent[tree.children_right[inner]], inner)


def xgboost_3_2_differs(g, h, p):
    """The cases where XGBoost 3.2.0 (the release) departs from the rules apsplit follows,
    XGBoost's current source (dmlc/xgboost after #12322 and #12325):

    - with max_delta_step > 0 and alpha > 0, 3.2.0 scores a child -(2Gw + (H+lambda)w^2),
      without the L1 term 2 alpha |w| (at an unclipped w that is not T(G)^2/(H+lambda),
      its own score when max_delta_step = 0);
    - with min_child_weight = 0, 3.2.0 admits a child whose hessian sum is 0;
    - 3.2.0 gives a node with H < min_child_weight the weight 0 (only the root can be one).
    """
    return ((p.max_delta_step > 0 and p.reg_alpha > 0)
            or (p.min_child_weight == 0 and (h == 0).any())
            or h.sum() < p.min_child_weight)


@settings(max_examples=scaled(0.15))
@given(problems(max_rows=30, max_features=4), params())
def test_same_trees_as_xgboost_random(problem, p):
    """Random small problems (values and gradients exact in float32, all rows and features,
    sparse ones as scipy.sparse): XGBoost's tree node for node, outside the cases where the
    installed release departs from XGBoost's current rules (``xgboost_3_2_differs``)."""
    X, g, h, _, _, fmt = problem
    if xgb.__version__.startswith("3.2") or xgb.__version__ < "3.2":
        assume(not xgboost_3_2_differs(g, h, p))
    X = X.astype(np.float32).astype(np.float64)
    trees, _ = xgboost_trees(X, lambda margin: (g, h), p, missing_as_absent=fmt is not None)
    xt = trees[0]
    tree = grow(X, g, h, p, fmt=fmt)
    features = np.arange(X.shape[1])

    def near_tie(node, x):
        """XGBoost compares float32 gains: its choice at ``node`` is excused when its gain
        (computed here) is within float32 rounding of apsplit's, or both straddle 1e-6, or
        (a split apsplit pruned) it is within float32 rounding of gamma: XGBoost prunes when
        its float32 gain is below gamma, so a gain just under gamma in float64 that rounds
        to gamma is kept there (seen: gain 1.9999999981, gamma 2)."""
        cands = oracle.candidates(X, g, h, _rows_under(tree, node, tree.row_leaf), features, p)
        ours = tree.gain[node] if tree.feature[node] >= 0 else oracle.KRT_EPS
        if xt["left_children"][x] == -1:
            at_gamma = p.gamma > 0 and any(abs(c.gain - p.gamma) <= 2 ** -20 * c.scale
                                           and abs(c.gain - ours) <= 2 ** -20 * c.scale
                                           for c in cands)
            return at_gamma or all(c.gain <= oracle.KRT_EPS + 2 ** -20 * c.scale for c in cands)
        theirs = [c for c in cands if c.feature == xt["split_indices"][x]
                  and c.default_left == bool(xt["default_left"][x])
                  and xgboost_threshold(c.left_value, c.right_value)
                  == np.float32(xt["split_conditions"][x])]
        pruned_at_gamma = tree.feature[node] < 0 and p.gamma > 0
        return any(abs(c.gain - ours) <= 2 ** -20 * c.scale
                   or (pruned_at_gamma and abs(c.gain - p.gamma) <= 2 ** -20 * c.scale)
                   for c in theirs)

    diff = compare_with_xgboost(tree, xt, X, p, near_tie)
    assert not diff, diff[:5]


def test_ties_follow_xgboosts_order():
    """Exact ties: a lower feature index wins; in a feature the first candidate of XGBoost's
    scan order (the forward pass, ascending, when the column has a missing value; else the
    backward pass, descending)."""
    p = NewtonParams(max_depth=1, min_child_weight=0.0, reg_lambda=1.0)
    # row 1 has g = h = 0: the splits at 0.5 and 1.5 are the same split
    g = np.array([-2.0, 0.0, 2.0, 0.0])
    h = np.array([1.0, 0.0, 1.0, 0.0])
    for column, threshold, default_left in ((np.array([0.0, 1.0, 2.0, 3.0]), 1.5, True),
                                            (np.array([0.0, 1.0, 2.0, np.nan]), 0.5, False)):
        X = np.column_stack([column, column])  # two equal features: the first wins
        tree = grow(X, g, h, p)
        assert (tree.feature[0], tree.threshold[0], bool(tree.default_left[0])) == (
            0, threshold, default_left)
        xt = xgboost_trees(X, lambda margin: (g, h), p)[0][0]
        assert xt["split_indices"][0] == 0 and bool(xt["default_left"][0]) == default_left
        assert np.float32(xt["split_conditions"][0]) == tree.xgboost_split_conditions()[0]


def _numpy_conditions(a, b):
    """XGBoost's rule in numpy float32 array arithmetic: the oracle of the kernel."""
    f32 = np.float32
    a, b = a.astype(f32), b.astype(f32)
    with np.errstate(invalid="ignore", over="ignore"):
        t = (a + b) * f32(0.5)
        t = np.where(t <= a, b, t)
        t = np.where(np.isinf(b), a + (np.abs(a) + f32(1e-6)), t)
        return np.where(np.isinf(a), b - (np.abs(b) + f32(1e-6)), t).astype(f32)


_THRESHOLD_VALUES = st.one_of(st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
                              st.floats(-1.5e38, 1.5e38, allow_nan=False, allow_infinity=False),
                              st.sampled_from([0.0, -0.0, 1e-45, -1e-45, 1.0, 1.5e38]))


@settings(max_examples=scaled(2.0))
@given(st.lists(st.tuples(_THRESHOLD_VALUES, st.integers(0, 3)), min_size=1, max_size=20))
def test_xgboost_thresholds_follow_the_float32_rule(pairs):
    """The kernel's thresholds equal numpy's float32 arithmetic of XGBoost's rule, bit for
    bit: neighbouring float32 values (the midpoint rounds onto one of them), a split of
    every present value on one side (+-inf), huge and tiny values."""
    left, right = [], []
    for x, kind in pairs:
        a = float(np.float32(x))
        b = float(np.nextafter(np.float32(a), np.float32(np.inf)))  # the next float32
        if kind == 1:
            b = a + abs(a) + 1.0
        left.append(-np.inf if kind == 2 else a)
        right.append(np.inf if kind == 3 else b)
    left, right = np.array(left), np.array(right)
    expected = _numpy_conditions(left, right)
    got = np.array([xgboost_threshold(a, b) for a, b in zip(left, right)], np.float32)
    np.testing.assert_array_equal(got.view(np.int32), expected.view(np.int32))


def test_xgboost_threshold_refuses_values_that_are_one_float32():
    with pytest.raises(ValueError, match="one float32"):
        xgboost_threshold(1.0, 1.0 + 1e-12)


def test_xgboost_conditions_of_trees_follow_the_float32_rule():
    """Every node of trees of depths 1-3 and of a single leaf: NaN at the leaves, at every
    split numpy's float32 arithmetic of XGBoost's rule on the split's two values."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    X[rng.random(X.shape) < 0.2] = np.nan
    data = NewtonData(X)
    trees = [grow(X, rng.normal(size=60), np.ones(60), NewtonParams(max_depth=d))
             for d in (1, 3, 2)]
    trees.append(grow_newton_tree(data, np.zeros(60), np.ones(60), NewtonParams()))  # a leaf
    joined = np.concatenate([t.xgboost_split_conditions() for t in trees])
    assert joined.dtype == np.float32 and np.sum(~np.isnan(joined)) > 3
    for tree in trees:
        t = tree.xgboost_split_conditions()
        split = tree.feature >= 0
        assert np.isnan(t[~split]).all()
        np.testing.assert_array_equal(
            t[split], _numpy_conditions(tree.left_value[split], tree.right_value[split]))
