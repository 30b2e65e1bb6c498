"""colsample_bylevel and colsample_bynode in the Newton tree grower (``kernels.newton_grow``)
and in ``train``: the counts of XGBoost's rule, the draws themselves (replayed here from
the documented splitmix64 stream), reproducibility from ``seed``, bad input."""

import numpy as np
import pytest

from apsplit.adapters import DMatrix, train
from apsplit.adapters.sampling import ColumnSample
from apsplit.newton import NewtonData, NewtonParams, colsample_count, grow_newton_tree
from samples import bundled_sample

MASK = (1 << 64) - 1


class _Stream:
    """splitmix64, as ``newton_grow._next_random``, in plain Python."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def draw(self, pool, k):
        out = list(pool)
        for i in range(k):
            j = i + self.next() % (len(out) - i)
            out[i], out[j] = out[j], out[i]
        return sorted(out[:k])


def _depths(tree):
    depth = np.zeros(tree.node_count, int)
    for node in range(1, tree.node_count):
        depth[node] = depth[tree.parent[node]] + 1
    return depth


def _replayed_sets(tree, features, bylevel, bynode, seed, max_depth):
    """Every searched node's candidate features, replaying the grower's draws: per level
    the level's set, then one set per node of the level in node order."""
    per_level = colsample_count(bylevel, len(features))
    per_node = colsample_count(bynode, per_level)
    stream, depth, sets = _Stream(seed), _depths(tree), {}
    for d in range(max_depth):
        nodes = np.flatnonzero(depth == d)
        if nodes.size == 0:
            break
        level = stream.draw(features, per_level) if per_level < len(features) else list(features)
        for node in nodes:
            sets[node] = stream.draw(level, per_node) if per_node < per_level else level
    return sets


@pytest.fixture(scope="module")
def newton_problem():
    X, y, _, _ = bundled_sample("satimage", 1500, nan=0.05)
    g = 1.0 / (1.0 + np.exp(-0.0)) - (y == 3)
    return NewtonData(X), g.astype(np.float64), np.full(y.size, 0.25)


@pytest.mark.parametrize("bylevel, bynode", [(0.5, 1.0), (1.0, 0.3), (0.6, 0.5)])
def test_every_node_splits_on_a_feature_of_its_draw(newton_problem, bylevel, bynode):
    data, g, h = newton_problem
    params = NewtonParams(max_depth=5, min_child_weight=0.5)
    features = np.arange(2, 36)  # the tree's candidates (bytree's draw, say)
    for seed in (0, 7, 2 ** 40):
        tree = grow_newton_tree(data, g, h, params, features=features, colsample_bylevel=bylevel,
                                colsample_bynode=bynode, seed=seed)
        sets = _replayed_sets(tree, features, bylevel, bynode, seed, params.max_depth)
        per_node = colsample_count(bynode, colsample_count(bylevel, features.size))
        searched = np.flatnonzero(tree.node_features > 0)
        assert sorted(sets) == searched.tolist()
        assert np.all(tree.node_features[searched] == per_node)
        for node in searched:
            assert len(sets[node]) == per_node
            if tree.feature[node] >= 0:
                assert tree.feature[node] in sets[node], (seed, node)
        # the root's split is the exact optimum over the root's draw
        root = grow_newton_tree(data, g, h, NewtonParams(max_depth=1, min_child_weight=0.5),
                                features=np.array(sets[0]))
        assert (root.feature[0], root.threshold[0]) == (tree.feature[0], tree.threshold[0])
        assert root.gain[0] == tree.gain[0]


def test_the_draws_differ_between_nodes_and_levels(newton_problem):
    data, g, h = newton_problem
    params = NewtonParams(max_depth=4, min_child_weight=0.5)
    tree = grow_newton_tree(data, g, h, params, colsample_bynode=0.25, seed=1)
    sets = _replayed_sets(tree, range(36), 1.0, 0.25, 1, params.max_depth)
    assert len({tuple(s) for s in sets.values()}) == len(sets)  # one draw per node
    assert len(sets) > 4
    level = grow_newton_tree(data, g, h, params, colsample_bylevel=0.25, seed=1)
    by_depth = {}
    for node, s in _replayed_sets(level, range(36), 0.25, 1.0, 1, params.max_depth).items():
        by_depth.setdefault(_depths(level)[node], set()).add(tuple(s))
    assert all(len(s) == 1 for s in by_depth.values()) and len(by_depth) > 1


def test_no_sampling_grows_the_same_tree(newton_problem):
    data, g, h = newton_problem
    params = NewtonParams(max_depth=4)
    plain = grow_newton_tree(data, g, h, params)
    full = grow_newton_tree(data, g, h, params, colsample_bylevel=1.0, colsample_bynode=1.0,
                            seed=5)
    for name in ("feature", "threshold", "gain", "base_weight", "node_features"):
        np.testing.assert_array_equal(getattr(plain, name), getattr(full, name))
    assert np.all(plain.node_features[plain.node_features > 0] == 36)


@pytest.fixture(scope="module")
def dtrain():
    X, y, _, _ = bundled_sample("satimage", 800)
    return DMatrix(X, label=(y == 3).astype(float))


BIN = {"objective": "binary:logistic", "max_depth": 4}


def test_train_multiplies_the_fractions_as_xgboost(dtrain):
    params = {**BIN, "colsample_bytree": 0.5, "colsample_bylevel": 0.5, "colsample_bynode": 0.5,
              "seed": 3}
    bst = train(params, dtrain, 4)
    for record, tree in zip(bst.history, bst.trees):
        assert record["features"] == 18  # floor(0.5 * 36)
        assert record["node_features"] == 4  # floor(0.5 * floor(0.5 * 18))
        searched = tree.node_features[tree.node_features > 0]
        assert searched.size > 0 and np.all(searched == 4)
    assert bst.history[0]["sampler"] == ("colsample_bytree(0.5)+colsample_bylevel(0.5)+"
                                         "colsample_bynode(0.5)")
    plain = train(BIN, dtrain, 1)
    assert plain.history[0]["node_features"] == plain.history[0]["features"] == 36


def test_reproducible_from_seed(dtrain):
    params = {**BIN, "colsample_bylevel": 0.3, "colsample_bynode": 0.5}
    a = train({**params, "seed": 11}, dtrain, 5)
    b = train({**params, "seed": 11}, dtrain, 5)
    c = train({**params, "seed": 12}, dtrain, 5)
    np.testing.assert_array_equal(a.predict(dtrain), b.predict(dtrain))
    assert any(not np.array_equal(s.feature, t.feature) for s, t in zip(a.trees, c.trees))
    same = train(BIN, dtrain, 5, sampler=ColumnSample(bylevel=0.3, bynode=0.5))
    np.testing.assert_array_equal(same.predict(dtrain), train({**params, "seed": 0}, dtrain,
                                                              5).predict(dtrain))


def test_one_draw_per_class_tree():
    X, y, _, _ = bundled_sample("satimage", 600)
    bst = train({"objective": "multi:softprob", "num_class": 6, "max_depth": 3,
                 "colsample_bynode": 0.2}, DMatrix(X, label=y), 1)
    roots = {int(t.feature[0]) for t in bst.trees}
    assert len(roots) > 1  # each class tree draws its own node sets


def test_bad_fractions_and_seeds_are_named(newton_problem):
    data, g, h = newton_problem
    params = NewtonParams(max_depth=2)
    for name in ("colsample_bylevel", "colsample_bynode"):
        for value in (0.0, -0.5, 1.01, float("nan"), True):
            with pytest.raises(ValueError, match=f"{name} must lie in \\(0, 1\\]"):
                grow_newton_tree(data, g, h, params, **{name: value})
    for seed in (-1, 2 ** 63, 1.5, "seven"):
        with pytest.raises(ValueError, match="seed must be an integer in \\[0, 2\\*\\*63\\)"):
            grow_newton_tree(data, g, h, params, colsample_bynode=0.5, seed=seed)
    with pytest.raises(ValueError, match="colsample_bynode must be in \\(0, 1\\], got 2"):
        ColumnSample(bynode=2)
