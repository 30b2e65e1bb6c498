"""Categorical Newton splits (``apsplit.kernels.newton_categorical``) against a brute force
over every partition of a node's categories, in plain numpy.

The brute force: the node's *items* are its categories and, when it has any, its
missing rows; every partition of the items into two non-empty sides is scored from
the rows' sums (``newton_oracle.score``), admissible when each side holds a row with
h > 0 and a hessian sum >= min_child_weight.  The kernel must find a partition whose
gain is the optimum within 1e-9 of a scale plus 1e-12, or a leaf when no admissible
partition gains more than 1e-6 (cases within the tolerance of 1e-6 are not judged).
The scale is the node's tie scale (sum |g|)^2 / (H + lambda) plus |s(L)| + |s(R)| +
|s(P)| of the near-optimal partitions: the tie window is 1e-10 of the first, the rest
is the rounding of the scores.  The property tests draw dyadic values, whose sums are
exact in any order; a float test uses test_newton's tolerance for float sums.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit.kernels import newton_categorical as nc
from apsplit.newton import NewtonData, NewtonParams, grow_newton_tree
from newton_oracle import KRT_EPS, score
from strategies import scaled
from test_newton import _float_tolerance


def items_of(x):
    """(item of every row, the items' codes: -1 for the missing rows, then the codes)."""
    codes = np.unique(x[~np.isnan(x)]).astype(np.int64)
    missing = np.isnan(x)
    labels = np.array([-1] * int(missing.any()) + list(codes))
    item = np.empty(x.shape[0], np.int64)
    for i, c in enumerate(labels):
        item[(missing if c < 0 else x == c)] = i
    return item, labels


def brute_force(x, g, h, p):
    """The largest admissible gain over every partition of the items (-inf if none), and
    the rounding scale of the gains near it: the node's tie scale (sum |g|)^2 / (H + lambda)
    plus |s(L)| + |s(R)| + |s(P)| of the partitions within 1e-6 relative of the best."""
    item, labels = items_of(x)
    q = labels.size
    G = np.bincount(item, g, q)
    H = np.bincount(item, h, q)
    pos = np.bincount(item, h > 0, q)
    parent = score(g.sum(), h.sum(), p)
    best = -np.inf
    gains = []
    for mask in range(1, 1 << (q - 1)):   # item q-1 always right: each partition once
        left = np.array([(mask >> i) & 1 for i in range(q)], bool)
        if not pos[left].sum() or not pos[~left].sum():
            continue
        HL, HR = H[left].sum(), H[~left].sum()
        if HL < p.min_child_weight or HR < p.min_child_weight:
            continue
        sL, sR = score(G[left].sum(), HL, p), score(G[~left].sum(), HR, p)
        gains.append((sL + sR - parent, abs(sL) + abs(sR) + abs(parent)))
        best = max(best, sL + sR - parent)
    scale = np.abs(g).sum() ** 2 / (h.sum() + p.reg_lambda) if h.sum() + p.reg_lambda else 0.0
    near = [m for gain, m in gains if gain >= best - 1e-6 * abs(best)]
    return best, scale + max(near, default=0.0)


def mask_gain(left, g, h, p):
    return (score(g[left].sum(), h[left].sum(), p) + score(g[~left].sum(), h[~left].sum(), p)
            - score(g.sum(), h.sum(), p))


def check_root(x, g, h, p, tol=None, method="exhaustive"):
    """Grow a stump on the one categorical column x by ``method`` and judge its split by
    the brute force (``tol``: the gains' tolerance, by default the module docstring's)."""
    data = NewtonData(x.reshape(-1, 1), categorical=[0])
    tree = grow_newton_tree(data, g, h, p, method=method)
    best, scale = brute_force(x, g, h, p)
    if tol is None:
        tol = 1e-9 * scale + 1e-12
    if abs(best - KRT_EPS) <= tol:
        return tree
    if not best > KRT_EPS:
        assert tree.node_count == 1
        return tree
    assert tree.node_count == 3 and tree.feature[0] == 0
    right = tree.categories_right[0]
    assert tree.default_left[0] and np.isnan(tree.threshold[0])
    goes_right = np.isin(x, right) & ~np.isnan(x)
    assert np.array_equal(tree.row_leaf == 2, goes_right)  # training rows routed by the set
    assert np.array_equal(tree.apply(x.reshape(-1, 1)), tree.row_leaf)
    left = ~goes_right
    assert (h[left] > 0).any() and (h[~left] > 0).any()
    assert h[left].sum() >= p.min_child_weight and h[~left].sum() >= p.min_child_weight
    assert mask_gain(left, g, h, p) == pytest.approx(best, abs=tol)
    assert tree.gain[0] == pytest.approx(best, abs=tol)
    # canonical sides: the missing rows left (default_left, checked above); without
    # missing rows the smallest code left
    if not np.isnan(x).any():
        assert x.min() not in right
    return tree


# dyadic values (k / 2^j): every sum is exact whatever its order, so the kernel's and the
# brute force's sums agree and their gains differ by the rounding of the scores only
GRADS = st.one_of(st.integers(-64, 64).map(lambda k: k / 8.0), st.just(0.0),
                  st.integers(-3, 3).map(lambda k: k * 2.0 ** -30))
HESS = st.one_of(st.sampled_from([0.0, 0.25, 1.0, 2.0]), st.integers(0, 32).map(lambda k: k / 8),
                 st.integers(1, 4).map(lambda k: k * 2.0 ** -30))
FLOATS = (st.floats(-50, 50, allow_nan=False, allow_subnormal=False),
          st.one_of(st.just(0.0), st.floats(1e-3, 10)))  # test_newton's tolerance stays finite


@st.composite
def nodes(draw, max_categories=6, max_rows=30, values=(GRADS, HESS)):
    n = draw(st.integers(1, max_rows))
    k = draw(st.integers(1, max_categories))
    codes = draw(st.lists(st.integers(0, 40), min_size=k, max_size=k, unique=True))
    x = np.array(draw(st.lists(st.sampled_from(codes + [np.nan] * draw(st.integers(0, 2))),
                               min_size=n, max_size=n)), float)
    g = np.array(draw(st.lists(values[0], min_size=n, max_size=n)))
    h = np.array(draw(st.lists(values[1], min_size=n, max_size=n)))
    p = NewtonParams(max_depth=1, reg_lambda=draw(st.sampled_from([0.0, 1.0])),
                     reg_alpha=draw(st.sampled_from([0.0, 0.5])),
                     min_child_weight=draw(st.sampled_from([0.0, 0.5, 1.0, 3.0])),
                     max_delta_step=draw(st.sampled_from([0.0, 0.7])))
    return x, g, h, p


@settings(max_examples=scaled(1.0))
@given(nodes())
def test_stump_matches_brute_force(node):
    check_root(*node)


@settings(max_examples=scaled(0.2))
@given(nodes(max_categories=12, max_rows=60))
def test_many_categories_match_brute_force(node):
    check_root(*node)


@settings(max_examples=scaled(0.2))
@given(nodes(max_categories=12, max_rows=60), st.sampled_from(["quick", "adaptive"]),
       st.sampled_from(["signal", "noise", "none"]))
def test_quick_and_adaptive_grow_exhaustive_trees(node, method, before):
    """quick and adaptive (``kernels.newton_search``) bound a categorical feature on a
    prefix of the rows once an earlier feature has set the node's best, and skip it when
    no partition can gain enough: the same trees as exhaustive's, array for array, after
    a numeric feature carrying the gradients' signal, or noise, or alone (then the brute
    force's optimum too)."""
    x, g, h, p = node
    if before == "none":
        X = x.reshape(-1, 1)
        tree = check_root(x, g, h, p, method=method)
    else:
        p = dataclasses.replace(p, max_depth=2)
        X = np.column_stack([g if before == "signal" else np.arange(g.size) % 3.0, x])
        tree = grow_newton_tree(NewtonData(X, categorical=[1]), g, h, p, method=method)
    exhaustive = grow_newton_tree(NewtonData(X, categorical=[X.shape[1] - 1]), g, h, p)
    for name in type(tree)._ARRAYS:
        assert np.array_equal(getattr(tree, name), getattr(exhaustive, name), equal_nan=True)
    assert tree.assessments <= exhaustive.assessments


@settings(max_examples=scaled(0.5))
@given(nodes(values=FLOATS))
def test_float_inputs_match_brute_force(node):
    """Sums of floats taken in other orders: test_newton's tolerance for float inputs."""
    x, g, h, p = node
    check_root(x, g, h, p, tol=_float_tolerance(g, h, p))


def best_admissible_cut(x, g, h, p):
    """The best admissible cut of the categories sorted by G/H decreasing (no missing)."""
    codes = np.unique(x)
    ratio = np.array([g[x == c].sum() / h[x == c].sum() for c in codes])
    order = np.argsort(-ratio, kind="stable")
    best = -np.inf
    for t in range(1, codes.size):
        left = np.isin(x, codes[order[:t]])
        if min(h[left].sum(), h[~left].sum()) >= p.min_child_weight:
            best = max(best, mask_gain(left, g, h, p))
    return best


def test_min_child_weight_makes_the_optimum_no_cut():
    """A light category of strong ratio (h = 0.25 < min_child_weight): the cuts that isolate
    it are inadmissible, and the optimum pairs it with a category that is not its neighbour
    in the G/H order, which no cut does; the branch and bound finds it."""
    x = np.arange(4.0)
    g = np.array([-0.5, -1.5, -0.5, 3.0])
    h = np.array([1.0, 1.0, 1.5, 0.25])
    p = NewtonParams(max_depth=1, reg_lambda=1.0, min_child_weight=1.0)
    best, _ = brute_force(x, g, h, p)
    assert best_admissible_cut(x, g, h, p) < best - 0.3
    assert check_root(x, g, h, p).node_count == 3
    items = nc.Items(g, h, np.ones(4, np.int64), np.arange(4))
    side = np.zeros(4, np.bool_)
    gain = nc.best_partition(items, nc.NodeSums(g.sum(), h.sum(), 4, g.sum() ** 2 / (h.sum() + 1)),
                             p.kernel_params(4), -np.inf, 0.0, side)
    assert gain == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("x", [np.array([2.0, 2.0, 2.0]), np.array([np.nan, np.nan])])
def test_single_item_node_is_a_leaf(x):
    tree = grow_newton_tree(NewtonData(x.reshape(-1, 1), categorical=[0]),
                            np.array([1.0, -1.0, 3.0])[:x.size], np.ones(x.size),
                            NewtonParams(max_depth=2, min_child_weight=0.0))
    assert tree.node_count == 1


def test_one_category_against_missing():
    x = np.array([4.0, 4.0, np.nan, np.nan])
    tree = check_root(x, np.array([1.0, 1.0, -1.0, -1.0]), np.ones(4),
                      NewtonParams(max_depth=1, min_child_weight=0.0))
    assert list(tree.categories_right[0]) == [4]


def test_routing_unseen_negative_and_fractional_values():
    """XGBoost's rule: a value outside the set goes left; values are truncated to codes."""
    x = np.array([0.0, 1.0, 2.0, 0.0, 1.0, 2.0])
    g = np.array([1.0, -1.0, 1.0, 1.0, -1.0, 1.0]) * 5
    tree = grow_newton_tree(NewtonData(x.reshape(-1, 1), categorical=[0]), g, np.ones(6),
                            NewtonParams(max_depth=1, min_child_weight=0.0))
    assert list(tree.categories_right[0]) == [1]
    leaves = tree.apply(np.array([[1.0], [1.9], [7.0], [-1.0], [-0.5], [np.nan], [2.0 ** 30]]))
    assert list(leaves) == [2, 2, 1, 1, 1, 1, 1]


def test_sparse_equals_dense_with_nan():
    import scipy.sparse as sp
    rng = np.random.default_rng(3)
    n = 200
    X = np.column_stack([rng.integers(0, 6, n), rng.integers(0, 3, n)]).astype(float)
    X[rng.random(n) < 0.3, 0] = np.nan
    g = np.where(np.isin(X[:, 0], [1, 4]), 1.0, -1.0) + rng.normal(size=n) * 0.1
    h = rng.uniform(0.1, 1, n)
    p = NewtonParams(max_depth=3)
    dense = grow_newton_tree(NewtonData(X, categorical=[0, 1]), g, h, p)
    r, c = np.nonzero(~np.isnan(X))             # absent = missing; zeros stored
    S = sp.csr_matrix((X[r, c], (r, c)), shape=X.shape)
    sparse = grow_newton_tree(NewtonData(S, categorical=[0, 1]), g, h, p)
    for name in ("feature", "category_codes", "category_start", "gain", "row_leaf"):
        np.testing.assert_array_equal(getattr(dense, name), getattr(sparse, name))
    np.testing.assert_array_equal(dense.apply(X), sparse.apply(S))


def test_deeper_tree_matches_per_node_brute_force():
    """Every split of a depth-3 tree on two categorical features and a numeric one is the
    best over the node's categorical partitions and numeric cuts (brute force per node)."""
    rng = np.random.default_rng(7)
    n = 120
    X = np.column_stack([rng.integers(0, 5, n), rng.integers(0, 4, n),
                         rng.normal(size=n)]).astype(float)
    X[rng.random(n) < 0.2, 1] = np.nan
    g = rng.normal(size=n) + np.isin(X[:, 0], [0, 3])
    h = rng.uniform(0.2, 1.0, n)
    p = NewtonParams(max_depth=3, min_child_weight=2.0)
    tree = grow_newton_tree(NewtonData(X, categorical=[0, 1]), g, h, p)
    leaf_rows = tree.apply(X)
    for node in np.flatnonzero(tree.feature >= 0):
        rows = np.flatnonzero(_reaches(tree, X, node))
        best = max(brute_force(X[rows, f], g[rows], h[rows], p)[0] for f in (0, 1))
        from newton_oracle import optimum
        best = max(best, optimum(X, g, h, rows, [2], p)[0])
        assert tree.gain[node] == pytest.approx(best, rel=1e-9, abs=1e-12)
    assert np.array_equal(leaf_rows, tree.row_leaf)


def _reaches(tree, X, target):
    out = np.zeros(X.shape[0], bool)
    for i in range(X.shape[0]):
        node = 0
        while True:
            if node == target:
                out[i] = True
                break
            if tree.feature[node] < 0:
                break
            x = X[i, tree.feature[node]]
            cats = tree.categories_right[node]
            if np.isnan(x):
                left = tree.default_left[node]
            elif cats is not None:
                left = int(x) not in cats
            else:
                left = x <= tree.threshold[node]
            node = tree.children_left[node] if left else tree.children_right[node]
    return out


@pytest.mark.parametrize("bad, message", [
    (-1.0, "integer codes"), (1.5, "integer codes"), (2.0 ** 24, "integer codes")])
def test_bad_codes_are_refused(bad, message):
    X = np.array([[0.0, 1.0], [bad, 2.0]])
    with pytest.raises(ValueError, match=message):
        NewtonData(X, categorical=[0])
    NewtonData(X, categorical=[1])


@pytest.mark.parametrize("spec, error", [
    ([2], ValueError), ([True], ValueError), (["a"], TypeError), ([[0]], ValueError)])
def test_bad_categorical_spec_is_refused(spec, error):
    with pytest.raises(error, match="categorical"):
        NewtonData(np.zeros((2, 2)), categorical=spec)


def test_mask_and_indices_agree():
    X = np.array([[0.0, 1.0], [1.0, 2.0]])
    a = NewtonData(X, categorical=[1]).categorical
    b = NewtonData(X, categorical=np.array([False, True])).categorical
    assert list(a) == list(b) == [False, True]


def test_user_criterion_refuses_categorical_features():
    from apsplit.kernels.newton_split import newton_score, newton_weight
    import apsplit
    apsplit.register_criterion("cat_test_copy", newton_score, newton_weight, overwrite=True)
    with pytest.raises(ValueError, match="categorical features"):
        grow_newton_tree(NewtonData(np.zeros((3, 1)), categorical=[0]), np.ones(3), np.ones(3),
                         NewtonParams(), criterion="cat_test_copy")


def test_angle_order_cut_is_optimal_without_constraints():
    """Without constraints the best cut of the G/H order is the optimum (docstring's proof):
    on random items the cut scan alone equals the brute force."""
    rng = np.random.default_rng(11)
    for _ in range(30):
        q = int(rng.integers(2, 9))
        g = rng.normal(size=q) * 3
        h = rng.uniform(0.5, 2, q)
        x = np.arange(q, dtype=float)
        best, _ = brute_force(x, g, h, NewtonParams(max_depth=1, min_child_weight=0.0))
        items = nc.Items(g, h, np.ones(q, np.int64), np.arange(q))
        params = NewtonParams(max_depth=1, min_child_weight=0.0).kernel_params(q)
        node = nc.NodeSums(g.sum(), h.sum(), q, g.sum() ** 2 / (h.sum() + 1.0))
        order = np.argsort(-g / h, kind="stable")
        cuts = [mask_gain(np.isin(np.arange(q), order[:t]), g, h,
                          NewtonParams(max_depth=1, min_child_weight=0.0)) for t in range(1, q)]
        assert max(cuts) == pytest.approx(best, rel=1e-12)
        side = np.zeros(q, np.bool_)
        assert nc.best_partition(items, node, params, -np.inf, 0.0, side) == \
            pytest.approx(best, rel=1e-12)


def test_a_search_past_its_node_budget_raises():
    """Sixty categories of one gradient ratio with min_child_weight at an awkward share of
    the hessian: a subset-sum instance; with no tie window (0 here; in a tree it is 1e-10
    of the node's scale, which ends this search early) the search refuses rather than
    guess."""
    rng = np.random.default_rng(0)
    q = 60
    h = rng.uniform(1, 2, q)
    g = -h + rng.normal(size=q) * 1e-9
    p = NewtonParams(max_depth=1, min_child_weight=float(h.sum() * 0.3 + 0.123456))
    items = nc.Items(g, h, np.ones(q, np.int64), np.arange(q))
    node = nc.NodeSums(g.sum(), h.sum(), q, g.sum() ** 2 / (h.sum() + 1))
    with pytest.raises(ValueError, match="branch-and-bound nodes"):
        nc.best_partition(items, node, p.kernel_params(q), -np.inf, 0.0, np.zeros(q, np.bool_))


def test_pickled_tree_and_data_keep_the_categories():
    import pickle
    x = np.array([[0.0], [1.0], [2.0], [1.0]])
    data = NewtonData(x, categorical=[0])
    tree = grow_newton_tree(data, np.array([1.0, -2.0, 1.0, -2.0]), np.ones(4),
                            NewtonParams(max_depth=1, min_child_weight=0.0))
    tree2, data2 = pickle.loads(pickle.dumps((tree, data)))
    assert list(data2.categorical) == [True] and "1 categorical" in repr(data2)
    assert [list(c) if c is not None else None for c in tree2.categories_right] == \
        [[1], None, None]
    np.testing.assert_array_equal(tree2.apply(x), tree.row_leaf)

