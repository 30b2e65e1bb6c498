"""Categorical features: exact partitions of the categories against brute force over all of them."""

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import apsplit
import oracle
from python_loop import PythonLoop
from apsplit import lower_bounds
from apsplit.kernels.categorical import MAX_SUBSET_CATEGORIES
from strategies import WEIGHT_KINDS, scaled, subsets

METHODS = ("exhaustive", "quick", "adaptive", "adaptive_paper")
CATEGORY_VALUES = (-4.5, -1.0, 0.0, 2.0, 3.0, 7.25, 10.0, 100.0, 1e6)
TOL = 1e-9


# ------------------------------------------------------------- brute force
def split_score(left, y, w, n_classes, criterion):
    """Score of the split sending the rows in ``left`` (boolean) left."""
    score = 0.0
    for side in (left, ~left):
        z = np.bincount(y[side], weights=w[side], minlength=n_classes)
        score += z.sum() * oracle.impurity(z, criterion)
    return score / w.sum()


def feature_best(col, y, w, n_classes, criterion, categorical):
    """Brute-force best score of one feature on rows with positive weight (inf: no split).

    Categorical: every partition of the present categories into two non-empty
    sides (each once: the side holding the smallest category is "left").
    Numeric: every threshold between consecutive present values.
    """
    keep = w > 0
    col, y, w = col[keep], y[keep], w[keep]
    values = np.unique(col)
    if values.size < 2:
        return math.inf
    if not categorical:
        return min(split_score(col <= v, y, w, n_classes, criterion) for v in values[:-1])
    best = math.inf
    rest = values[1:]
    for size in range(0, rest.size):
        for chosen in itertools.combinations(rest, size):
            left = np.isin(col, (values[0],) + chosen)
            best = min(best, split_score(left, y, w, n_classes, criterion))
    return best


def node_best(node, criterion):
    rows = np.arange(len(node.y)) if node.rows is None else node.rows
    C = oracle.n_classes(node.y)
    return min([feature_best(node.X[rows, k], node.y[rows], node.w[rows], C, criterion,
                             bool(node.categorical[k])) for k in node.feature_list] + [math.inf])


# ---------------------------------------------------------------- strategy
class CatNode:
    def __init__(self, X, y, w, rows, features, categorical):
        self.X, self.y, self.w, self.rows, self.features = X, y, w, rows, features
        self.categorical = categorical

    @property
    def feature_list(self):
        return np.arange(self.X.shape[1]) if self.features is None else self.features

    def dataset(self):
        return apsplit.Dataset(self.X, categorical_features=np.flatnonzero(self.categorical))

    def kwargs(self):
        return dict(sample_weight=self.w, rows=self.rows, features=self.features)

    def __repr__(self):
        return (f"CatNode(X={self.X.tolist()}, y={self.y.tolist()}, w={self.w.tolist()}, "
                f"rows={self.rows}, features={self.features}, categorical={self.categorical})")


@st.composite
def cat_nodes(draw, max_rows=30, max_features=4, max_classes=4, max_categories=8):
    """Mixed categorical (2..max_categories categories) and numeric columns."""
    n = draw(st.integers(1, max_rows))
    K = draw(st.integers(1, max_features))
    categorical = np.array([draw(st.booleans()) or k == 0 for k in range(K)], np.uint8)
    cols = []
    for k in range(K):
        if categorical[k]:
            cats = draw(st.lists(st.sampled_from(CATEGORY_VALUES), min_size=2,
                                 max_size=max_categories, unique=True))
        else:
            cats = [-2.0, -1.0, 0.0, 0.5, 3.0]
        cols.append(draw(st.lists(st.sampled_from(cats), min_size=n, max_size=n)))
    X = np.array(cols, dtype=float).T
    C = draw(st.integers(2, max_classes))
    if draw(st.integers(0, 4)) == 0:
        y = np.full(n, draw(st.integers(0, C - 1)), np.int64)
    else:
        y = np.array(draw(st.lists(st.integers(0, C - 1), min_size=n, max_size=n)), np.int64)
    weight = WEIGHT_KINDS[draw(st.sampled_from(sorted(WEIGHT_KINDS)))]
    w = np.array(draw(st.lists(weight, min_size=n, max_size=n)))
    rows = draw(subsets(n))
    features = draw(subsets(K))
    node_rows = np.arange(n) if rows is None else rows
    if not np.any(w[node_rows] > 0):
        w[node_rows[0]] = 1.0
    return CatNode(X, y, w, rows, features, categorical)


def split_key(split):
    cats = None if split.categories_left is None else split.categories_left.tolist()
    return (split.feature, split.left_rank, split.threshold, split.score, cats,
            split.left_weights, split.right_weights)


def check_split(split, node, criterion, expected):
    assert oracle.close(split.score, expected), (split.score, expected)
    if not split.found:
        return
    rows = np.arange(len(node.y)) if node.rows is None else node.rows
    rows = rows[node.w[rows] > 0]
    col = node.X[rows, split.feature]
    if node.categorical[split.feature]:
        assert math.isnan(split.threshold) and split.left_rank == -1
        cats = split.categories_left
        assert np.all(np.diff(cats) > 0) and np.all(np.isin(cats, col))
        assert cats[0] == col.min(), "the smallest category present goes left"
        assert 0 < cats.size < np.unique(col).size
        left = np.isin(col, cats)
    else:
        assert split.categories_left is None
        left = col <= split.threshold
    C = oracle.n_classes(node.y)
    assert oracle.close(split_score(left, node.y[rows], node.w[rows], C, criterion), expected)
    want = np.bincount(node.y[rows][left], weights=node.w[rows][left], minlength=C)
    atol = 1e-12 * node.w[rows].sum()
    np.testing.assert_allclose(split.left_weights, want, rtol=0, atol=atol)


# ---------------------------------------------------------------- exactness
@settings(max_examples=scaled(0.5))
@given(cat_nodes())
def test_every_method_finds_the_brute_force_partition(node):
    ds = node.dataset()
    n = int(np.count_nonzero(node.w[np.arange(len(node.y)) if node.rows is None else node.rows] > 0))
    for criterion in oracle.CRITERIA:
        expected = node_best(node, criterion)
        splits = {m: apsplit.find_split(ds, node.y, criterion=criterion, method=m, **node.kwargs())
                  for m in METHODS}
        for method, split in splits.items():
            check_split(split, node, criterion, expected)
            np.testing.assert_equal(split_key(split), split_key(splits["exhaustive"]))
            assert split.assessments <= n * len(node.feature_list)
        assert splits["exhaustive"].assessments == n * len(node.feature_list)


@settings(max_examples=scaled(0.3))
@given(cat_nodes(max_classes=2, max_categories=8))
def test_two_class_nodes_with_paper_bounds(node):
    ds = node.dataset()
    for criterion in oracle.CRITERIA:
        expected = node_best(node, criterion)
        for method in METHODS:
            split = apsplit.find_split(ds, node.y, criterion=criterion, method=method,
                                       bounds="paper", **node.kwargs())
            check_split(split, node, criterion, expected)


@settings(max_examples=scaled(0.3))
@given(cat_nodes(max_rows=60, max_classes=4))
def test_weight_order_bound_is_at_most_every_finders_assessments(node):
    ds = node.dataset()
    for criterion in oracle.CRITERIA:
        bound = lower_bounds.weight_order(ds, node.y, criterion=criterion, **node.kwargs())
        for method in METHODS:
            split = apsplit.find_split(ds, node.y, criterion=criterion, method=method, **node.kwargs())
            assert bound <= split.assessments


@settings(max_examples=scaled(0.3))
@given(cat_nodes(max_rows=25, max_features=1, max_categories=6), st.data())
def test_bounds_bracket_every_completion_of_the_unseen_examples(node, data):
    """After a prefix, [LB, UB] holds whatever categories (seen or new) the unseen examples take."""
    w = node.w
    order = np.argsort(-w, kind="stable")[: np.count_nonzero(w > 0)]
    m = data.draw(st.integers(0, order.size))
    seed = data.draw(st.integers(0, 2**32 - 1))
    C = oracle.n_classes(node.y)
    for criterion in oracle.CRITERIA:
        for bounds in ("tight", "paper"):
            lb, ub = lower_bounds.feature_interval(node.dataset(), node.y, w, 0, [m], rows=order,
                                                   criterion=criterion, bounds=bounds,
                                                   weight_ordered=True)[0]
            rng = np.random.default_rng(seed)
            seen = np.unique(node.X[order[:m], 0])
            pool = np.concatenate([seen, [1234.5, 5678.5]])
            for _ in range(5):
                col = node.X[:, 0].copy()
                col[order[m:]] = rng.choice(pool, order.size - m)
                true = feature_best(col[order], node.y[order], w[order], C, criterion, True)
                assert lb <= true + TOL * max(1.0, abs(true)), (lb, true)
                assert true <= ub + TOL * max(1.0, abs(ub)), (true, ub)


@pytest.mark.parametrize("criterion", oracle.CRITERIA)
def test_two_classes_many_categories_by_proportion_order(criterion):
    """40 categories, two classes: the order by proportion is exact (checked for error by the
    label-pair rule, for all criteria by the best cut of the proportion order in numpy)."""
    rng = np.random.default_rng(3)
    n = 600
    x = rng.integers(0, 40, n).astype(float)
    y = (rng.random(n) < rng.random(40)[x.astype(int)]).astype(np.int64)
    w = rng.exponential(size=n)
    ds = apsplit.Dataset(x[:, None], categorical_features=[0])
    z = np.array([np.bincount(y[x == c], weights=w[x == c], minlength=2) for c in range(40)])
    order = np.argsort(z[:, 1] / z.sum(axis=1), kind="stable")
    expected = min(split_score(np.isin(x, order[:t]), y, w, 2, criterion) for t in range(1, 40))
    if criterion == "error":
        assert oracle.close(expected, (w.sum() - np.maximum(z[:, 0], z[:, 1]).sum()) / w.sum())
    splits = [apsplit.find_split(ds, y, w, criterion=criterion, method=m) for m in METHODS]
    for split in splits:
        assert oracle.close(split.score, expected)
        np.testing.assert_equal(split_key(split), split_key(splits[0]))


def test_error_criterion_has_no_category_limit_for_many_classes():
    rng = np.random.default_rng(4)
    n = 400
    x = rng.integers(0, 30, n).astype(float)
    y = (x.astype(int) * 7 + rng.integers(0, 2, n)) % 5
    ds = apsplit.Dataset(x[:, None], categorical_features=[0])
    z = np.array([np.bincount(y[x == c], minlength=5) for c in range(30)], float)
    expected = min(n - np.maximum(z[:, a], z[:, b]).sum() for a in range(5) for b in range(a + 1, 5)) / n
    for method in METHODS:
        assert oracle.close(apsplit.find_split(ds, y, criterion="error", method=method).score, expected)


# ----------------------------------------------------------- worked example
def titanic():
    """Passengers as (sex, class, port) with 0 = female / 1 = male, class 1..3, port 0 S 1 C 2 Q."""
    groups = [  # sex, class, port, survived, died
        (0, 1, 0, 30, 2), (0, 2, 0, 20, 4), (0, 3, 0, 10, 14), (0, 3, 2, 8, 6),
        (1, 1, 1, 12, 20), (1, 2, 0, 4, 30), (1, 3, 0, 10, 60), (1, 3, 2, 1, 10), (0, 1, 1, 15, 1),
    ]
    X, y = [], []
    for sex, cls, port, alive, dead in groups:
        X += [(sex, cls, port)] * (alive + dead)
        y += [1] * alive + [0] * dead
    return np.array(X, float), np.array(y, np.int64)


def test_titanic_like_example():
    X, y = titanic()
    ds = apsplit.Dataset(X, categorical_features=[True, True, True])
    for method in METHODS:
        root = apsplit.find_split(ds, y, criterion="gini", method=method)
        assert root.feature == 0 and root.categories_left.tolist() == [0.0]
    women = np.flatnonzero(X[:, 0] == 0)
    by_class = apsplit.find_split(ds, y, criterion="gini", rows=women, features=[1, 2])
    assert by_class.feature == 1 and by_class.categories_left.tolist() == [1.0, 2.0]
    tree = apsplit.grow_tree(ds, y, max_depth=2, criterion="gini")
    assert tree.categories_left[0].tolist() == [0.0] and math.isnan(tree.threshold[0])
    # women in 1st/2nd class and in 3rd; men: any partition predicts death
    np.testing.assert_array_equal(tree.predict(np.array([[0, 1, 0], [0, 2, 1], [1, 1, 1.0]])),
                                  [1, 1, 0])


# --------------------------------------------------------------------- trees
@settings(max_examples=scaled(0.2))
@given(cat_nodes(max_rows=40))
def test_trees_predict_the_same_on_raw_x_and_on_the_dataset(node):
    ds = node.dataset()
    for method in ("exhaustive", "adaptive"):
        tree = apsplit.grow_tree(ds, node.y, node.w, max_depth=3, criterion="entropy", method=method)
        np.testing.assert_array_equal(tree.apply(node.X), tree.apply(ds))
        for node_id in np.flatnonzero(tree.feature >= 0):
            cats = tree.categories_left[node_id]
            assert (cats is not None) == bool(node.categorical[tree.feature[node_id]])


@settings(max_examples=scaled(0.2))
@given(cat_nodes(max_rows=40), st.sampled_from(["exhaustive", "adaptive", "quick"]))
def test_kernel_builder_grows_the_python_loops_categorical_tree(node, method):
    ds = node.dataset()
    problem = apsplit.finders.check_problem(ds, node.y, node.w, "gini", None, None, False)
    tree = apsplit.tree.grow_from_problem(problem, apsplit.get_finder(method), 3)
    reference = apsplit.tree.grow_from_problem(problem, PythonLoop(method), 3)
    for name in ("feature", "left_rank", "children_left", "children_right", "value",
                 "n_node_samples", "node_assessments"):
        np.testing.assert_array_equal(getattr(tree, name), getattr(reference, name), err_msg=name)
    np.testing.assert_array_equal(tree.threshold, reference.threshold)
    for cats, expected in zip(tree.categories_left, reference.categories_left):
        assert (cats is None) == (expected is None)
        if cats is not None:
            np.testing.assert_array_equal(cats, expected)


def test_unknown_categories_go_right():
    X = np.array([[0.0], [0.0], [1.0], [1.0], [2.0]])
    y = np.array([0, 0, 1, 1, 1])
    ds = apsplit.Dataset(X, categorical_features=[0])
    tree = apsplit.grow_tree(ds, y, max_depth=1)
    assert tree.categories_left[0].tolist() == [0.0]
    right = tree.children_right[0]
    np.testing.assert_array_equal(tree.apply(np.array([[5.0], [0.0], [-3.0]])), [right, 1, right])


def test_numeric_split_of_the_same_column_differs():
    """Categories 0 and 2 against 1: no threshold separates them, a categorical split does."""
    X = np.array([[0.0], [1.0], [2.0], [0.0], [1.0], [2.0]])
    y = np.array([0, 1, 0, 0, 1, 0])
    numeric = apsplit.find_split(apsplit.Dataset(X), y)
    categorical = apsplit.find_split(apsplit.Dataset(X, categorical_features=[0]), y)
    assert numeric.score > 0 and categorical.score == 0
    assert categorical.categories_left.tolist() == [0.0, 2.0]


# ------------------------------------------------------------------- errors
@pytest.mark.parametrize("spec, error, match", [
    ([3], ValueError, "index 3 is out of range"),
    ([-1], ValueError, "index -1 is out of range"),
    ([0, 0], ValueError, "duplicate"),
    ([True, False], ValueError, "needs 3 entries"),
    ([0.5], TypeError, "column indices or a boolean mask"),
])
def test_bad_categorical_features_are_rejected(spec, error, match):
    with pytest.raises(error, match=match):
        apsplit.Dataset(np.zeros((4, 3)), categorical_features=spec)


def test_a_minimum_leaf_size_is_refused_with_categorical_features():
    X = np.array([[0.0, 1.0], [1.0, 2.0], [2.0, 3.0], [0.0, 4.0]])
    ds = apsplit.Dataset(X, categorical_features=[0])
    with pytest.raises(ValueError, match="min_samples_leaf > 1 is not supported with categorical"):
        apsplit.find_split(ds, [0, 1, 0, 1], min_samples_leaf=2)
    assert apsplit.find_split(ds, [0, 1, 0, 1], min_samples_leaf=2, features=[1]).found


def test_categorical_features_need_dense_x():
    with pytest.raises(ValueError, match="need dense X"):
        apsplit.Dataset(sp.csr_matrix(np.eye(3)), categorical_features=[1])


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_too_many_categories_for_a_multiclass_enumeration(criterion):
    n = MAX_SUBSET_CATEGORIES + 1
    X = np.column_stack([np.arange(n, dtype=float), np.arange(n, dtype=float) % 2])
    ds = apsplit.Dataset(X, categorical_features=[0, 1])
    y3 = np.arange(n) % 3
    with pytest.raises(ValueError, match=f"categorical feature 0 has {n} categories"):
        apsplit.find_split(ds, y3, criterion=criterion)
    assert apsplit.find_split(ds, y3, criterion=criterion, features=[1]).found
    assert apsplit.find_split(ds, y3, criterion="error").found
    assert apsplit.find_split(ds, np.arange(n) % 2, criterion=criterion).score == 0.0


def test_exact_lower_bound_rejects_categorical_features():
    ds = apsplit.Dataset(np.array([[0.0], [1.0], [2.0]]), categorical_features=[0])
    with pytest.raises(ValueError, match="categorical"):
        lower_bounds.exact(ds, [0, 1, 0])
