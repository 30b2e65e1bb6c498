"""A round's K trees in one call (``apsplit.newton.grow_newton_forest``,
``apsplit/kernels/newton_forest.py``) against K calls of ``grow_newton_tree``.

The forest must return, tree for tree, every array of the separate calls (splits,
values, default sides, gains, covers, row leaves, category sets, node features) and
the same assessments.  The draws are test_newton's (NaN, sparse input, constant and
duplicate columns, rows and features subsets, zero and tiny hessians, min_child_weight,
alpha, max_delta_step, gamma), with one (g, h) column per tree drawn independently, so
that the trees differ in shape and depth, and the column draws per level and per node
seeded per tree.  ``train`` with ``multi:softprob`` grows its rounds with it; its trees
and records must be those of the per-tree loop it replaces.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit import criteria, newton
from apsplit.adapters import DMatrix, train
from apsplit.newton import NewtonData, NewtonParams, grow_newton_forest, grow_newton_tree
from strategies import scaled
from test_newton import _GRAD, _HESS, as_input, params, problems
import user_criterion


def assert_same_trees(forest, trees):
    assert len(forest) == len(trees)
    for t, (a, b) in enumerate(zip(forest, trees)):
        for name in a._ARRAYS + ("value",):
            x, y = getattr(a, name), getattr(b, name)
            assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), \
                f"tree {t}: {name}"
        assert a.assessments == b.assessments, f"tree {t}: assessments"


def separate_trees(data, grad, hess, p, seeds, **kwargs):
    return [grow_newton_tree(data, grad[:, t], hess[:, t], p, seed=seeds[t], **kwargs)
            for t in range(grad.shape[1])]


@st.composite
def gradient_columns(draw, g, h):
    """(grad, hess) of shape (n, K): the problem's (g, h) and up to two more columns."""
    n = g.shape[0]
    grads, hesses = [g], [h]
    for _ in range(draw(st.integers(0, 2))):
        grads.append(draw(st.lists(_GRAD, min_size=n, max_size=n)))
        kind = draw(st.sampled_from(sorted(_HESS)))
        hesses.append(draw(st.lists(_HESS[kind], min_size=n, max_size=n)))
    return np.column_stack(grads), np.column_stack(hesses)


@settings(max_examples=scaled(0.3))
@given(problems(max_rows=24, max_features=4), params(), st.data())
def test_forest_equals_separate_trees(problem, p, data):
    X, g, h, rows, features, fmt = problem
    grad, hess = data.draw(gradient_columns(g, h))
    bylevel, bynode = data.draw(st.sampled_from([(1.0, 1.0), (0.5, 1.0), (1.0, 0.5),
                                                 (0.7, 0.6)]))
    seeds = data.draw(st.lists(st.integers(0, 2 ** 63 - 1), min_size=grad.shape[1],
                               max_size=grad.shape[1]))
    nd = NewtonData(as_input(X, fmt))
    kwargs = dict(rows=rows, features=features, colsample_bylevel=bylevel,
                  colsample_bynode=bynode)
    forest = grow_newton_forest(nd, grad, hess, p, seeds=seeds, **kwargs)
    assert_same_trees(forest, separate_trees(nd, grad, hess, p, seeds, **kwargs))


@pytest.mark.parametrize("bynode", [1.0, 0.5])
def test_categorical_forest_equals_separate_trees(bynode):
    rng = np.random.default_rng(3)
    n, K = 300, 3
    X = np.column_stack([rng.integers(0, 9, n), rng.normal(size=n), rng.integers(0, 4, n)])
    X = X.astype(float)
    X[rng.random(n) < 0.1, 0] = np.nan
    X[rng.random(n) < 0.2, 1] = np.nan
    grad = rng.normal(size=(n, K)).round(2)
    hess = rng.uniform(0, 1, size=(n, K)).round(2)
    hess[rng.random((n, K)) < 0.2] = 0.0
    nd = NewtonData(X, categorical=[0, 2])
    p = NewtonParams(max_depth=4, min_child_weight=0.5, gamma=0.3)
    rows = np.sort(rng.choice(n, 250, replace=False))
    seeds = [11, 12, 13]
    forest = grow_newton_forest(nd, grad, hess, p, rows=rows, colsample_bynode=bynode,
                                seeds=seeds)
    assert any(t.categories_right[0] is not None for t in forest)
    assert_same_trees(forest, separate_trees(nd, grad, hess, p, seeds, rows=rows,
                                             colsample_bynode=bynode))


def test_a_registered_criterion_grows_its_forest():
    """A user's criterion (Newton's with lambda + 1) grows its trees in a forest, and
    they are the built-in forest of lambda + 1."""
    name = user_criterion.registered()
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    grad, hess = rng.normal(size=(200, 3)), rng.uniform(0.1, 1, size=(200, 3))
    nd, p = NewtonData(X), NewtonParams(max_depth=3, reg_alpha=0.2)
    forest = grow_newton_forest(nd, grad, hess, p, criterion=name)
    assert_same_trees(forest, separate_trees(nd, grad, hess, p, [0] * 3, criterion=name))
    assert_same_trees(forest, grow_newton_forest(nd, grad, hess,
                                                 NewtonParams(max_depth=3, reg_alpha=0.2,
                                                              reg_lambda=2.0)))


def _per_tree_rounds(data, grad, hess, params, rows=None, features=None, criterion="newton",
                     colsample_bylevel=1.0, colsample_bynode=1.0, seeds=None, n_threads=1):
    """``grow_newton_forest`` as K calls of ``grow_newton_tree`` (train's loop before it)."""
    return separate_trees(data, grad, hess, params, seeds, rows=rows, features=features,
                          criterion=criterion, colsample_bylevel=colsample_bylevel,
                          colsample_bynode=colsample_bynode, n_threads=n_threads)


@pytest.mark.parametrize("extra", [
    {},
    {"subsample": 0.7, "colsample_bytree": 0.8, "colsample_bylevel": 0.7,
     "colsample_bynode": 0.6, "gamma": 0.5, "seed": 4},
])
def test_train_grows_the_per_tree_model(satimage, monkeypatch, extra):
    X, y = satimage
    rows = np.random.default_rng(0).choice(len(y), 400, replace=False)
    X, y = X[rows], y[rows]
    X[np.random.default_rng(1).random(X.shape) < 0.05] = np.nan
    params = {"objective": "multi:softprob", "num_class": 6, "max_depth": 4, **extra}
    calls = []
    forest = newton.grow_newton_forest

    def counted(*args, **kwargs):
        calls.append(1)
        return forest(*args, **kwargs)
    monkeypatch.setattr(newton, "grow_newton_forest", counted)
    mine = train(params, DMatrix(X, label=y), 4)
    assert len(calls) == 4
    monkeypatch.setattr(newton, "grow_newton_forest", _per_tree_rounds)
    ref = train(params, DMatrix(X, label=y), 4)
    assert mine.tree_info == ref.tree_info
    assert_same_trees(mine.trees, ref.trees)
    strip = lambda h: [{k: v for k, v in r.items() if "seconds" not in k} for r in h]
    assert strip(mine.history) == strip(ref.history)
    np.testing.assert_array_equal(mine.predict(DMatrix(X)), ref.predict(DMatrix(X)))


@pytest.fixture(scope="module")
def satimage():
    from apsplit.experiments.loaders import load_bundled
    X, y, _ = load_bundled("satimage")
    return X, y


def _ok():
    X = np.arange(12.0).reshape(6, 2)
    return NewtonData(X), np.linspace(-1, 1, 12).reshape(6, 2), np.ones((6, 2))


@pytest.mark.parametrize("change, error, match", [
    ({"grad": np.ones(6)}, ValueError, "grad must be 2-dimensional"),
    ({"hess": np.ones((5, 2))}, ValueError, "hess has 5 rows but the data has 6 rows"),
    ({"hess": np.ones((6, 3))}, ValueError, "one shape"),
    ({"grad": np.ones((6, 0)), "hess": np.ones((6, 0))}, ValueError, "at least one tree"),
    ({"hess": -np.ones((6, 2))}, ValueError, "negative"),
    ({"grad": np.full((6, 2), np.nan)}, ValueError, "grad contains NaN"),
    ({"grad": [["a", "b"]] * 6}, TypeError, "grad must be numeric"),
    ({"seeds": [1]}, ValueError, "seeds has 1 entries"),
    ({"seeds": [1, -1]}, ValueError, "seeds must be an integer"),
    ({"seeds": [1, 0.5]}, ValueError, "seeds must be an integer"),
    ({"rows": [7]}, ValueError, "rows"),
    ({"features": []}, ValueError, "features"),
    ({"criterion": "nope"}, ValueError, "unknown criterion"),
    ({"params": {"max_depth": 3}}, TypeError, "NewtonParams"),
    ({"data": np.zeros((6, 2))}, TypeError, "NewtonData"),
    ({"colsample_bynode": 0.0}, ValueError, "colsample_bynode"),
])
def test_bad_input(change, error, match):
    data, g, h = _ok()
    args = {"data": data, "grad": g, "hess": h, "params": NewtonParams(), **change}
    with pytest.raises(error, match=match):
        grow_newton_forest(**args)


def test_the_built_in_round_grower_is_cached_on_disk():
    grower = criteria.get_criterion("newton").round_grower()
    assert grower._cache.__class__.__name__ == "FunctionCache"
