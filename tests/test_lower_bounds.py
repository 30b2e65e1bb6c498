"""Lower bounds on assessments, and the [LB, UB] intervals the finders prune with."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import apsplit
from apsplit import lower_bounds
from strategies import SPARSE_FORMATS, nodes, scaled

TOL = 1e-9  # scores are normalised by the node weight (see oracle.tolerance)
SETTINGS = [(criterion, bounds) for criterion in ("error", "entropy", "gini")
            for bounds in ("tight", "paper")]
small_nodes = nodes(sparse=None, max_rows=60, max_features=4, max_classes=3)


def assessments(ds, node, method, criterion, bounds="tight"):
    return apsplit.find_split(ds, node.y, criterion=criterion, method=method, bounds=bounds,
                              **node.kwargs()).assessments


@settings(max_examples=scaled(0.2))
@given(small_nodes)
def test_error_bounds_are_ordered(node):
    """exact <= weight_order <= what adaptive and quick assess; weight_order >= n."""
    ds = apsplit.Dataset(node.matrix())
    exact = lower_bounds.exact(ds, node.y, **node.kwargs())
    by_weight = lower_bounds.weight_order(ds, node.y, **node.kwargs())
    n, F = node.n_positive, len(node.feature_list)
    assert exact <= by_weight <= assessments(ds, node, "adaptive", "error")
    assert by_weight <= assessments(ds, node, "quick", "error")
    assert by_weight <= assessments(ds, node, "adaptive_paper", "error")
    assert n <= by_weight <= n * F


@settings(max_examples=scaled(0.3))
@given(small_nodes, st.sampled_from(SETTINGS))
def test_weight_order_bound_holds_for_every_criterion_and_bounds(node, setting):
    criterion, bounds = setting
    ds = apsplit.Dataset(node.matrix())
    by_weight = lower_bounds.weight_order(ds, node.y, criterion=criterion, bounds=bounds,
                                          **node.kwargs())
    assert node.n_positive <= by_weight <= assessments(ds, node, "adaptive", criterion, bounds)
    assert by_weight <= assessments(ds, node, "quick", criterion, bounds)


def test_constant_features_need_every_assessment():
    ds = apsplit.Dataset(np.ones((5, 3)))
    y, w = [0, 1, 0, 1, 1], [1.0, 2.0, 0.0, 1.0, 1.0]
    assert lower_bounds.weight_order(ds, y, w) == 4 * 3
    assert lower_bounds.exact(ds, y, w) == 4 * 3


def test_weight_order_rejects_unknown_bounds():
    ds = apsplit.Dataset(np.arange(6.0).reshape(3, 2))
    with pytest.raises(ValueError, match="unknown bounds 'exact'"):
        lower_bounds.weight_order(ds, [0, 1, 0], criterion="entropy", bounds="exact")


def test_exact_bound_is_for_the_error_criterion_only():
    ds = apsplit.Dataset(np.arange(6.0).reshape(3, 2))
    with pytest.raises(ValueError, match="error criterion"):
        lower_bounds.exact(ds, [0, 1, 0], criterion="gini")


# ---------------------------------------------------------- feature_interval
def weight_ordered_rows(w):
    """Rows with positive weight by decreasing weight: the order the finders assess in."""
    order = np.argsort(-w, kind="stable")
    return order[w[order] > 0]


def true_score(X, node, k, order, criterion):
    ds = apsplit.Dataset(X if node.sparse_format is None else SPARSE_FORMATS[node.sparse_format](X))
    return apsplit.find_split(ds, node.y, node.w, criterion=criterion, method="exhaustive",
                              rows=order, features=[k], weight_ordered=True).score, ds


def interval(ds, node, k, order, prefixes, criterion, bounds):
    return lower_bounds.feature_interval(ds, node.y, node.w, k, prefixes, rows=order,
                                         criterion=criterion, bounds=bounds, weight_ordered=True)


def assert_brackets(bounds_at_m, score):
    """LB <= score <= UB within TOL (an infinite score only matches an infinite bound)."""
    lb, ub = bounds_at_m
    assert lb == score or lb - score <= TOL * max(1.0, abs(score)), f"LB {lb} > score {score}"
    assert ub == score or score - ub <= TOL * max(1.0, abs(ub)), f"score {score} > UB {ub}"


def draw_feature_and_prefixes(node, data):
    """(weight order, a feature, increasing prefix lengths ending with all the examples)."""
    order = weight_ordered_rows(node.w)
    k = data.draw(st.integers(0, node.X.shape[1] - 1))
    prefixes = sorted(data.draw(st.sets(st.integers(0, order.size), max_size=8)) | {order.size})
    return order, k, prefixes


@settings(max_examples=scaled(0.3))
@given(small_nodes, st.data())
def test_feature_interval_brackets_the_final_score_at_every_prefix(node, data):
    order, k, prefixes = draw_feature_and_prefixes(node, data)
    for criterion, bounds in SETTINGS:
        score, ds = true_score(node.X, node, k, order, criterion)
        intervals = interval(ds, node, k, order, prefixes, criterion, bounds)
        for bounds_at_m in intervals:
            assert_brackets(bounds_at_m, score)
        assert intervals[-1, 0] == intervals[-1, 1] == score
        assert np.all(np.diff(intervals[:, 0]) >= -TOL * max(1.0, score)), "LB decreased"


@settings(max_examples=scaled(0.3))
@given(small_nodes, st.data())
def test_feature_interval_brackets_every_completion_of_the_unseen_examples(node, data):
    """The bounds after seeing a prefix hold whatever values the unseen examples take.

    Each completion keeps labels and weights (hence the weight order) and
    redraws feature k on the unseen examples, among seen and new values.
    """
    order = weight_ordered_rows(node.w)
    k = data.draw(st.integers(0, node.X.shape[1] - 1))
    m = data.draw(st.integers(0, order.size))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    unseen = order[m:]
    pool = np.concatenate([np.unique(node.X[order[:m], k]), [-7.0, 0.0, 0.25, 9.0]])
    completions = [node.X]
    for _ in range(12):
        X = node.X.copy()
        X[unseen, k] = rng.choice(pool, size=unseen.size)
        completions.append(X)
    for criterion, bounds in SETTINGS:
        seen_only = None
        for X in completions:
            score, ds = true_score(X, node, k, order, criterion)
            bounds_at_m = interval(ds, node, k, order, [m], criterion, bounds)[0]
            if seen_only is None:
                seen_only = bounds_at_m
            np.testing.assert_array_equal(bounds_at_m, seen_only)
            assert_brackets(seen_only, score)


@settings(max_examples=scaled(0.3))
@given(small_nodes, st.data())
def test_tight_interval_shares_the_lower_bound_and_is_inside_the_papers(node, data):
    """Both bounds use the seen value as LB; tight UB <= paper UB (proved in kernels.criteria)."""
    order, k, prefixes = draw_feature_and_prefixes(node, data)
    ds = apsplit.Dataset(node.matrix())
    for criterion in ("error", "entropy", "gini"):
        tight = interval(ds, node, k, order, prefixes, criterion, "tight")
        paper = interval(ds, node, k, order, prefixes, criterion, "paper")
        np.testing.assert_array_equal(tight[:, 0], paper[:, 0])
        assert np.all(tight[:, 1] <= paper[:, 1] + TOL * np.maximum(1.0, tight[:, 1]))
        np.testing.assert_array_equal(tight[-1], paper[-1])


def test_feature_interval_rejects_bad_prefixes():
    ds = apsplit.Dataset(np.arange(8.0).reshape(4, 2))
    y = [0, 1, 0, 1]
    for prefixes in ([2, 1], [-1], [5]):
        with pytest.raises(ValueError, match="prefixes"):
            lower_bounds.feature_interval(ds, y, None, 0, prefixes)


# -- Newton nodes (kernels/newton_stops.py; the bound itself is tested in test_newton_stops.py) --

def _newton_node():
    from apsplit.newton import NewtonData, NewtonParams
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, (40, 3)).astype(float)
    g, h = rng.normal(size=40), rng.uniform(0.1, 1.0, 40)
    return NewtonData(X), g, h, NewtonParams(max_depth=2)


def test_newton_tree_bound_sums_its_nodes():
    from apsplit.newton import grow_newton_tree
    data, g, h, params = _newton_node()
    tree = grow_newton_tree(data, g, h, params, method="adaptive", weight_order="hess")
    nodes = list(lower_bounds._searched_nodes(tree, data.n_rows))
    assert [node for node, _ in nodes] == [2, 1, 0] and nodes[-1][1].size == 40
    total = sum(lower_bounds.newton_weight_order(data, g, h, params, rows=rows,
                                                 weight_order="hess") for _, rows in nodes)
    bound = lower_bounds.newton_tree_bound(data, g, h, params, tree, weight_order="hess")
    assert bound == total <= tree.assessments


@pytest.mark.parametrize("change, error, match", [
    (dict(data=np.zeros((40, 3))), TypeError, "NewtonData"),
    (dict(params={"max_depth": 2}), TypeError, "NewtonParams"),
    (dict(weight_order="weight"), ValueError, "weight_order"),
    (dict(criterion="nope"), ValueError, "unknown criterion"),
    (dict(grad=np.zeros(39)), ValueError, "grad has 39 entries"),
    (dict(grad=np.full(40, np.nan)), ValueError, "grad contains NaN"),
    (dict(hess=-np.ones(40)), ValueError, "hess has negative"),
    (dict(rows=[0, 0, 1]), ValueError, "duplicate"),
    (dict(rows=[0, 40]), ValueError, "outside"),
    (dict(features=[3]), ValueError, "outside"),
])
def test_newton_bound_rejects_bad_input(change, error, match):
    data, g, h, params = _newton_node()
    kwargs = {**dict(data=data, grad=g, hess=h, params=params), **change}
    with pytest.raises(error, match=match):
        lower_bounds.newton_weight_order(**kwargs)


def test_newton_bound_refuses_categorical_features_and_criteria_without_bounds():
    from numba import njit
    from apsplit.newton import NewtonData
    data, g, h, params = _newton_node()
    cat = NewtonData(np.c_[np.zeros(40), np.arange(40) % 3], categorical=[1])
    with pytest.raises(ValueError, match="categorical features \\[1\\]"):
        lower_bounds.newton_weight_order(cat, g, h, params)
    assert lower_bounds.newton_weight_order(cat, g, h, params, features=[0]) == 40  # no split

    @njit
    def plain(G, H, p):
        return G * G / (H + 1.0)

    apsplit.register_criterion("plain_for_bounds", plain, overwrite=True)
    with pytest.raises(ValueError, match="'plain_for_bounds' has none"):
        lower_bounds.newton_weight_order(data, g, h, params, criterion="plain_for_bounds")


def test_newton_tree_bound_rejects_another_tree():
    from apsplit.newton import NewtonData, grow_newton_tree
    data, g, h, params = _newton_node()
    with pytest.raises(TypeError, match="NewtonTree"):
        lower_bounds.newton_tree_bound(data, g, h, params, "tree")
    other = NewtonData(np.zeros((30, 3)))
    with pytest.raises(ValueError, match="leaves of 30 rows, the data has 40"):
        lower_bounds.newton_tree_bound(data, g, h, params,
                                       grow_newton_tree(other, g[:30], h[:30], params))
    sampled = grow_newton_tree(data, g, h, params, colsample_bynode=0.5)
    with pytest.raises(ValueError, match="without column sampling"):
        lower_bounds.newton_tree_bound(data, g, h, params, sampled)
