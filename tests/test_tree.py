"""Trees: every finder grows the same tree; structure, prediction and a check against scikit-learn."""


import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

import apsplit
import oracle
from python_loop import PythonLoop
from strategies import nodes, scaled

from apsplit.experiments.loaders import load_satimage

METHODS = ("exhaustive", "quick", "adaptive", "adaptive_paper")
SETTINGS = [("error", "tight"), ("error", "paper"), ("entropy", "tight"), ("gini", "tight")]


@pytest.fixture(scope="module")
def satimage():
    """36 integer features, labels mapped to codes 0..5."""
    X, y, _ = load_satimage()
    return X, y


def boosting_weights(n, seed):
    """Weights spread like those of a few boosting rounds."""
    return np.exp(np.random.default_rng(seed).normal(size=n) * 2.0)


def mixed_matrix(n, seed, many_values=False):
    """Binary, few-valued, mostly-zero and continuous columns, and labels that depend on them."""
    rng = np.random.default_rng(seed)
    continuous = rng.normal(size=n) if many_values else np.round(rng.normal(size=n), 1)
    X = np.column_stack([rng.integers(0, 2, n), rng.integers(-3, 4, n),
                         np.where(rng.random(n) < 0.8, 0.0, rng.normal(size=n).round(1)),
                         continuous, rng.integers(0, 5, n)]).astype(float)
    y = (X[:, 0] + (X[:, 3] > 0) + (X[:, 1] > 1) + rng.integers(0, 2, n)).astype(int) % 3
    return X, y


def assert_same_tree(tree, reference):
    for name in ("feature", "threshold", "left_rank", "children_left", "children_right",
                 "value", "n_node_samples"):
        np.testing.assert_array_equal(getattr(tree, name), getattr(reference, name), err_msg=name)


def check_structure(tree, y, w, rows, max_depth):
    """Depth, pure leaves, children that partition their parent, root = the node's class weights."""
    rows = oracle.positive_rows(w, rows)
    root = np.bincount(y[rows], weights=w[rows], minlength=tree.n_classes)
    np.testing.assert_allclose(tree.value[0], root, rtol=1e-12)
    assert tree.n_node_samples[0] == rows.size
    assert tree.max_depth <= max_depth
    for node in range(tree.node_count):
        left, right = tree.children_left[node], tree.children_right[node]
        if tree.feature[node] < 0:
            assert left == right == -1
            continue
        assert np.count_nonzero(tree.value[node] > 0) >= 2, "a pure node was split"
        assert tree.n_node_samples[left] + tree.n_node_samples[right] == tree.n_node_samples[node]
        assert min(tree.n_node_samples[left], tree.n_node_samples[right]) >= 1
        np.testing.assert_allclose(tree.value[left] + tree.value[right], tree.value[node],
                                   rtol=1e-12, atol=1e-12 * tree.value[node].sum())


def grow_all(ds, y, w, **kwargs):
    trees = {method: apsplit.grow_tree(ds, y, w, method=method, **kwargs) for method in METHODS}
    for method in ("quick", "adaptive", "adaptive_paper"):
        assert_same_tree(trees[method], trees["exhaustive"])
        assert trees[method].assessments <= trees["exhaustive"].assessments
    return trees


# ------------------------------------------------------- identical trees
@settings(max_examples=scaled(0.5))
@given(nodes(sparse=None, max_rows=60), st.integers(1, 4), st.sampled_from(SETTINGS))
def test_methods_grow_identical_trees_on_random_nodes(node, max_depth, setting):
    criterion, bounds = setting
    ds = apsplit.Dataset(node.matrix())
    trees = grow_all(ds, node.y, node.w, max_depth=max_depth, criterion=criterion, bounds=bounds,
                     rows=node.rows, features=node.features)
    check_structure(trees["exhaustive"], node.y, node.w, node.rows, max_depth)


@pytest.mark.parametrize("criterion, bounds", SETTINGS)
def test_methods_grow_identical_trees_on_satimage(satimage, criterion, bounds):
    X, y = satimage
    w = boosting_weights(len(y), seed=3)
    trees = grow_all(apsplit.Dataset(X), y, w, max_depth=4, criterion=criterion, bounds=bounds)
    tree = trees["exhaustive"]
    check_structure(tree, y, w, None, 4)
    assert tree.max_depth == 4
    searched = tree.node_assessments > 0
    assert np.all(searched[tree.feature >= 0])
    np.testing.assert_array_equal(tree.node_assessments[searched],
                                  tree.n_node_samples[searched] * X.shape[1])


@pytest.mark.parametrize("criterion", oracle.CRITERIA)
@pytest.mark.parametrize("fmt", [None, "csc"])
def test_methods_grow_identical_trees_on_many_distinct_values(criterion, fmt):
    """600 continuous values per feature: 16-bit codes."""
    X, y = mixed_matrix(600, seed=4, many_values=True)
    ds = apsplit.Dataset(X if fmt is None else sp.csc_matrix(X))
    assert ds.feature_values(3).size > 256
    w = boosting_weights(600, seed=5)
    trees = grow_all(ds, y, w, max_depth=3, criterion=criterion)
    check_structure(trees["exhaustive"], y, w, None, 3)


@settings(max_examples=scaled(0.5))
@given(nodes(sparse=None, max_rows=60), st.integers(1, 4), st.sampled_from(SETTINGS),
       st.sampled_from(METHODS), st.sampled_from([1, 1, 3]))
def test_kernel_builder_grows_the_python_loops_tree(node, max_depth, setting, method, min_leaf):
    """``kernels.build.grow`` (built-in finders) and the Python node loop (any finder):
    the same tree, node numbering, assessments and each row's leaf; with a minimum
    leaf size, every leaf keeps it."""
    criterion, bounds = setting
    ds = apsplit.Dataset(node.matrix())
    problem = apsplit.finders.check_problem(ds, node.y, node.w, criterion, node.rows,
                                            node.features, False, bounds,
                                            min_samples_leaf=min_leaf)
    tree, leaves = apsplit.tree.grow_from_problem(problem, apsplit.get_finder(method), max_depth,
                                                  return_leaves=True)
    reference, none = apsplit.tree.grow_from_problem(problem, PythonLoop(method), max_depth,
                                                     return_leaves=True)
    assert none is None
    assert_same_tree(tree, reference)
    np.testing.assert_array_equal(tree.node_assessments, reference.node_assessments)
    expected = np.full(ds.n_rows, -1)
    expected[problem.order] = reference.apply(ds)[problem.order]
    np.testing.assert_array_equal(leaves, expected)
    assert tree.n_node_samples[tree.feature < 0].min() >= min(min_leaf, problem.order.size)


# ------------------------------------------------------------- prediction
@pytest.mark.parametrize("fmt", [None, "csr", "csc"])
def test_predict_on_dataset_equals_predict_on_raw_X(satimage, fmt):
    Xs, ys = satimage
    Xm, ym = mixed_matrix(500, seed=6)
    for X, y in ((Xs, ys), (Xm, ym)):
        raw = X if fmt is None else getattr(sp, f"{fmt}_matrix")(X)
        ds = apsplit.Dataset(raw)
        tree = apsplit.grow_tree(ds, y, boosting_weights(len(y), seed=7), max_depth=4,
                                 criterion="entropy")
        np.testing.assert_array_equal(tree.apply(ds), tree.apply(raw))
        np.testing.assert_array_equal(tree.predict(ds), tree.predict(raw))
        np.testing.assert_array_equal(tree.predict(ds), tree.predict(X))


@pytest.mark.parametrize("fmt", [None, "csr"])
def test_predict_agrees_on_rows_the_tree_was_not_grown_on(fmt):
    """Rows outside the node (a row subset, zero weights) follow x <= threshold as codes do."""
    X, y = mixed_matrix(400, seed=8, many_values=True)
    w = boosting_weights(400, seed=9)
    w[::5] = 0.0
    raw = X if fmt is None else sp.csr_matrix(X)
    ds = apsplit.Dataset(raw)
    rows = np.random.default_rng(10).permutation(400)[:150]
    tree = apsplit.grow_tree(ds, y, w, max_depth=4, criterion="gini", rows=rows)
    np.testing.assert_array_equal(tree.apply(raw), tree.apply(ds))


def test_pure_and_single_row_nodes_are_leaves():
    ds = apsplit.Dataset(np.arange(12.0).reshape(6, 2))
    pure = apsplit.grow_tree(ds, np.ones(6, int), max_depth=3)
    assert pure.node_count == 1 and pure.feature[0] == -1 and pure.assessments == 0
    single = apsplit.grow_tree(ds, [0, 1, 0, 1, 0, 1], [0, 0, 3.0, 0, 0, 0], max_depth=3)
    assert single.node_count == 1 and single.n_node_samples[0] == 1


# ------------------------------------------------------------ scikit-learn
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(4))
def test_root_split_matches_sklearn(criterion, seed):
    """No ties in X (a permutation per column, exact in float32), so the optimum is unique."""
    rng = np.random.default_rng(seed)
    n, K = 300, 6
    X = np.column_stack([rng.permutation(n) for _ in range(K)]).astype(float)
    y = (X[:, 0] > 150).astype(int) + (X[:, 2] > rng.integers(50, 250)) + rng.integers(0, 2, n)
    w = boosting_weights(n, seed)
    tree = apsplit.grow_tree(apsplit.Dataset(X), y, w, max_depth=1, criterion=criterion,
                             method="adaptive")
    split = apsplit.find_split(apsplit.Dataset(X), y, w, criterion=criterion)
    sk = DecisionTreeClassifier(max_depth=1, criterion=criterion, random_state=0)
    sk = sk.fit(X, y, sample_weight=w).tree_
    children = [sk.children_left[0], sk.children_right[0]]
    expected = sum(sk.weighted_n_node_samples[c] * sk.impurity[c] for c in children) \
        / sk.weighted_n_node_samples[0]
    assert abs(split.score - expected) <= 1e-9
    assert (tree.feature[0], tree.threshold[0]) == (sk.feature[0], sk.threshold[0])
    assert (split.feature, split.threshold) == (sk.feature[0], sk.threshold[0])


class IgnoresMinLeaf(apsplit.Finder):
    """A user's finder that forgets ``problem.min_leaf``."""

    name = "ignores-min-leaf"

    def find(self, problem):
        return apsplit.get_finder("exhaustive").find(
            apsplit.Problem(**{**vars(problem), "min_leaf": 1}))


def test_a_finder_that_ignores_the_leaf_size_gets_a_clear_error():
    X = apsplit.Dataset(np.arange(10.0).reshape(-1, 1))
    y = np.array([0] + [1] * 9)  # the best split isolates one example
    w = np.ones(10)
    assert apsplit.grow_tree(X, y, w, max_depth=1, method=IgnoresMinLeaf()).node_count == 3
    with pytest.raises(ValueError, match="leaving 1 examples in a child, fewer than min_samples_leaf=3"):
        apsplit.grow_tree(X, y, w, max_depth=1, method=IgnoresMinLeaf(), min_samples_leaf=3)
