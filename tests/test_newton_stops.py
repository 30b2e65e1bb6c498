"""The weight-order lower bound of Newton nodes (kernels/newton_stops.py, through
apsplit.lower_bounds.newton_*): at most what quick and adaptive assess on every node, with
any prefixes; at least n; equal to trying every prefix with the finders' own bound.

The problems are test_newton_search's (dyadic gradients, zero and tiny hessians, NaN,
constant and binary features, min_child_weight, max_delta_step, alpha).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import newton_oracle as oracle
from apsplit import lower_bounds
from apsplit.kernels import newton_search as ns
from apsplit.kernels.newton_split import record_bar
from apsplit.newton import WEIGHT_ORDERS, NewtonData, NewtonParams, grow_newton_tree
from strategies import scaled
from test_newton_search import _root_bounds, problems
import user_criterion

# prefixes of a weight-order finder, as shares of a node's key total: one for quick, an
# increasing run for adaptive (any choice; the bound holds for every one)
_SHARES = st.floats(0.05, 0.99)
_RUNS = st.lists(_SHARES, min_size=1, max_size=5).map(lambda s: tuple(sorted(set(s))))


def _node_assessments(data, g, h, params, rows, method, order):
    """What ``method`` assesses in the node of ``rows``: a depth-1 tree on them (a level's
    slots are searched independently, so the node's search is the same in any tree)."""
    one = NewtonParams(**{**vars(params), "max_depth": 1})
    return grow_newton_tree(data, g, h, one, rows=rows, method=method,
                            weight_order=order).assessments


@given(problems(), st.sampled_from(sorted(WEIGHT_ORDERS)), _SHARES, _RUNS)
@settings(max_examples=scaled(0.2))
def test_bound_is_at_most_every_finder_on_every_node(problem, order, quick, adaptive):
    X, g, h, params = problem
    data = NewtonData(X)
    tree = grow_newton_tree(data, g, h, params)
    total = 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ns, "PREFIXES", {"quick": (quick,), "adaptive": adaptive})
        for node, rows in lower_bounds._searched_nodes(tree, data.n_rows):
            found = lower_bounds.newton_node_stops(data, g, h, params, rows=rows,
                                                   weight_order=order)
            bound = int(found.stops.sum())
            n, F = rows.size, X.shape[1]
            for method in ("quick", "adaptive"):
                assert bound <= _node_assessments(data, g, h, params, rows, method, order)
            assert bound <= n * F
            if found.best_position >= 0:
                assert found.stops[found.best_position] == n and bound >= n
                if tree.feature[node] >= 0:
                    assert tree.feature[node] == found.best_position
            total += bound
    assert lower_bounds.newton_tree_bound(data, g, h, params, tree, weight_order=order) == total


def _brute_force_stops(X, g, h, params, order):
    """Every prefix m = 0..n-1 of the root tried with the finders' own bound (cap +inf: never
    abandoned), against the optimum and tie window taken from the brute force's candidates."""
    n, F = X.shape
    data = NewtonData(X)
    codes = data.rank_codes()[0]
    key = WEIGHT_ORDERS[order](g, h)
    gh = np.stack([g, h], axis=1)
    kp = params.kernel_params(n)
    gains = [c.gain for c in oracle.candidates(X, g, h, np.arange(n), range(F), params)
             if np.isfinite(c.gain)]
    tie = oracle.TIE_WINDOW * oracle.node_scale(g, h, params)
    ubs = np.array([[_root_bounds(codes[f], bool(data.forward[f]), gh, key, m, kp)[0]
                     for m in range(n)] for f in range(F)])
    return (max(gains) if gains else -np.inf), tie, ubs


@given(problems(max_rows=24), st.sampled_from(sorted(WEIGHT_ORDERS)))
@settings(max_examples=scaled(0.1))
def test_stops_equal_trying_every_prefix(problem, order):
    X, g, h, params = problem
    n = X.shape[0]
    found = lower_bounds.newton_node_stops(NewtonData(X), g, h, params, weight_order=order)
    if found.best_position < 0:   # unsearched (0 each) or no admissible candidate (n each)
        assert set(found.stops) <= {0, n}
        return
    best, tie, ubs = _brute_force_stops(X, g, h, params, order)
    scale = oracle.node_scale(g, h, params) + 1.0
    assert abs(found.best_gain - best) <= tie + 1e-12 * scale   # the recorded optimum
    cap = record_bar(found.best_gain, tie)   # the engine's gain (its rounding); sums exact
    for f in range(X.shape[1]):
        proved = np.flatnonzero(ubs[f] <= cap)
        expected = n if f == found.best_position or proved.size == 0 else proved[0]
        assert found.stops[f] == expected, f


def test_least_prefix_where_the_bound_is_not_monotone():
    """UB(m) <= cap at m = 0 and 4 but not at 1..3 (found by hypothesis): the stop is 0, where
    a binary search over m would return 4."""
    X = np.zeros((5, 2))
    X[4, 1] = 1.0
    g = np.array([-4.0, -4.0, -4.0, -4.0, -3.875])
    h = np.ones(5)
    params = NewtonParams(max_depth=1, reg_lambda=0.0)
    found = lower_bounds.newton_node_stops(NewtonData(X), g, h, params, weight_order="abs_grad")
    best, tie, ubs = _brute_force_stops(X, g, h, params, "abs_grad")
    proved = ubs[0] <= record_bar(found.best_gain, tie)
    assert found.best_position == 1 and proved.tolist() == [True, False, False, False, True]
    assert found.stops.tolist() == [0, 5]


def test_real_node_between_n_and_adaptive():
    """higgs7k's first 2000 rows, the first round's root: n <= bound <= adaptive <= quick."""
    from apsplit.experiments.loaders import load_bundled
    X, y, classes = load_bundled("higgs7k")
    X, y = X[:2000], (y[:2000] == classes[1]).astype(float)
    rng = np.random.default_rng(0)
    p = rng.uniform(0.2, 0.8, y.size)   # distinct weights: a real weight order
    g, h = p - y, p * (1 - p)
    data, params = NewtonData(X), NewtonParams(max_depth=1)
    bound = lower_bounds.newton_weight_order(data, g, h, params)
    counts = {m: grow_newton_tree(data, g, h, params, method=m).assessments
              for m in ("quick", "adaptive")}
    assert y.size < bound <= counts["adaptive"] <= counts["quick"]


def test_user_criterion_with_bounds():
    """A registered criterion's bound (its own score and gain bounds) is at most adaptive's
    and quick's count with that criterion, and at least n."""
    name = user_criterion.registered()
    rng = np.random.default_rng(1)
    X = rng.integers(0, 6, size=(300, 3)).astype(float)
    g, h = rng.normal(size=300) + X[:, 1], rng.uniform(0.5, 1.0, 300)
    data, params = NewtonData(X), NewtonParams(max_depth=1)
    bound = lower_bounds.newton_weight_order(data, g, h, params, criterion=name)
    newton = lower_bounds.newton_weight_order(data, g, h, params)
    counts = [grow_newton_tree(data, g, h, params, method=m, criterion=name)
              .assessments for m in ("quick", "adaptive")]
    assert 300 < bound <= min(counts) and bound != newton
