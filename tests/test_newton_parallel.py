"""A level's column scans on several threads (``kernels/newton_parallel.py``): the same tree
for any number of threads, the batches, the dealing, and the thread parameters of the API."""

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit.adapters import DMatrix, train
from apsplit.kernels import newton_parallel
from apsplit.newton import NewtonData, NewtonParams, grow_newton_forest, grow_newton_tree
from apsplit.validation import check_threads as thread_count
from strategies import scaled
from test_newton import as_input, params, problems
from test_newton_hist import DENSITIES, SAMPLING, assert_same_arrays, with_categories

THREADS = numba.get_num_threads()
many_threads = pytest.mark.skipif(THREADS < 2, reason="one thread: nothing to compare")


@many_threads
@settings(max_examples=scaled(0.3))
@given(problems(max_rows=40, max_features=6).flatmap(with_categories), params(), DENSITIES,
       SAMPLING, st.integers(0, 2 ** 20))
def test_any_thread_count_grows_the_same_tree(problem, p, density, sampling, seed):
    (X, g, h, rows, features, fmt), categorical = problem
    data = NewtonData(as_input(X, fmt), categorical, histogram_density=density)
    kwargs = dict(rows=rows, features=features, colsample_bylevel=sampling[0],
                  colsample_bynode=sampling[1], seed=seed)
    one = grow_newton_tree(data, g, h, p, n_threads=1, **kwargs)
    assert_same_arrays(grow_newton_tree(data, g, h, p, n_threads=THREADS, **kwargs), one)


@many_threads
def test_features_beyond_a_batch_and_skewed_columns():
    """3000 sparse features at depth 7 (up to 64 open nodes: 1024 features a batch, so three
    batches a level), columns from 2 to 1500 entries: the same trees and forests."""
    rng = np.random.default_rng(3)
    n, F = 1500, 3000
    density = np.geomspace(1.0, 1.5e-3, F)
    X = np.where(rng.random((n, F)) < density, rng.integers(0, 4, (n, F)).astype(float), np.nan)
    G = rng.normal(size=(n, 2)) + np.nan_to_num(X[:, :2], nan=-1.0)
    H = rng.random((n, 2)) + 0.05
    data, p = NewtonData(X), NewtonParams(max_depth=7, min_child_weight=0.0)
    one = grow_newton_tree(data, G[:, 0], H[:, 0], p, n_threads=1)
    assert one.node_count > 60
    assert_same_arrays(grow_newton_tree(data, G[:, 0], H[:, 0], p, n_threads=THREADS), one)
    for a, b in zip(grow_newton_forest(data, G, H, p, n_threads=1),
                    grow_newton_forest(data, G, H, p, n_threads=-1)):
        assert_same_arrays(a, b)


def test_a_batch_holds_at_most_its_budget_of_column_features():
    is_column = np.array([1, 0, 1, 1, 0, 1, 1] * 3, np.bool_)
    m = newton_parallel.BATCH_SLOTS // 3   # three column features a batch
    ends = [0]
    while ends[-1] < is_column.size:
        ends.append(newton_parallel.batch_end(is_column, ends[-1], m))
    assert all(is_column[a:b].sum() <= 3 for a, b in zip(ends, ends[1:]))
    assert ends == [0, 4, 8, 13, 17, 21]   # each batch ends after its third
    assert newton_parallel.batch_end(is_column, 0, 10 ** 9) == 1   # one feature at least


@settings(max_examples=scaled(0.5))
@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=40), st.integers(1, 8))
def test_dealing_balances_within_the_largest_item(costs, n_threads):
    """Longest processing time first: each thread's load is within the largest item of the
    least loaded thread's (the greedy invariant), and every item has one owner."""
    costs = np.array(costs)
    owner = newton_parallel.deal(costs, n_threads)
    assert owner.min() >= 0 and owner.max() < n_threads
    load = np.bincount(owner, weights=costs, minlength=n_threads)
    assert load.max() - load.min() <= costs.max() + 1e-9 * costs.sum()


@pytest.mark.parametrize("value", [0, -2, 1.5, True, "2", None])
def test_bad_thread_counts(value):
    with pytest.raises(ValueError, match="n_threads"):
        thread_count(value)


def test_thread_counts():
    assert thread_count(-1) == THREADS
    assert thread_count(1) == 1
    assert thread_count(10 ** 6) == THREADS   # capped at numba's threads


@many_threads
def test_train_nthread_gives_the_same_model():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 12))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(size=600) > 0).astype(float)
    dtrain = DMatrix(X, label=y)
    params = {"objective": "binary:logistic", "max_depth": 4}
    models = [train({**params, **extra}, dtrain, 5)
              for extra in ({"nthread": 1}, {}, {"nthread": 0}, {"n_jobs": THREADS})]
    for model in models[1:]:
        np.testing.assert_array_equal(model.predict(dtrain, output_margin=True),
                                      models[0].predict(dtrain, output_margin=True))
        for a, b in zip(model.trees, models[0].trees):
            assert_same_arrays(a, b)


@pytest.mark.parametrize("value", [1.5, "all", True])
def test_train_refuses_a_bad_nthread(value):
    with pytest.raises(ValueError, match="nthread"):
        train({"nthread": value}, DMatrix(np.zeros((4, 1)), label=np.zeros(4)), 1)
