"""Adaptive's batch floors: the per-node rule (``kernels.search.examples_floor``), the fixed
floors it replaces by default, and exactness under any of them."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import apsplit
from apsplit.kernels.search import (ADAPTIVE_MIN_STEP, FLOOR_MIN_EXAMPLES, FLOOR_STOP_MAX,
                                    examples_floor)
from apsplit.experiments.loaders import load_satimage
from apsplit.experiments.nodes import boosting_weights
from strategies import nodes, scaled


def rule(w):
    """The rule's floor from its formula: max(m / (16 (n - m)), 1/256), m = min(2 n_eff, 0.55 n)."""
    n = w.size
    stop = min(2 * w.sum() ** 2 / (w ** 2).sum(), 0.55 * n)
    return max(stop / (16 * (n - stop)), 1 / 256)


@pytest.mark.parametrize("w, expected", [
    (np.ones(300), 0.55 / (16 * 0.45)),                    # flat: the stop is capped at 0.55 n
    (np.r_[1.0, np.full(9999, 1e-9)], 1 / 256),            # one heavy example: the least floor
    (np.r_[np.ones(1000), np.full(9000, 1e-9)], 2000 / (16 * 8000)),  # n_eff = 1000
])
def test_the_floor_follows_the_effective_examples(w, expected):
    assert examples_floor(w, w.size) == pytest.approx(expected, rel=1e-6)
    assert examples_floor(w, w.size) == pytest.approx(rule(w), rel=1e-12)


@settings(max_examples=scaled(0.5))
@given(st.lists(st.floats(1e-6, 1e3), min_size=1, max_size=200))
def test_the_floor_lies_between_its_bounds(weights):
    w = np.sort(np.array(weights))[::-1]
    a = examples_floor(w, w.size)
    assert FLOOR_MIN_EXAMPLES <= a <= FLOOR_STOP_MAX / (16 * (1 - FLOOR_STOP_MAX)) + 1e-12
    assert a == pytest.approx(rule(w), rel=1e-9)


@pytest.fixture(scope="module")
def boosted_node():
    X, y, _ = load_satimage()
    ds = apsplit.Dataset(X)
    return ds, y, boosting_weights(ds, y, 6, 30)


def test_the_default_is_the_rule_and_fixed_floors_still_apply(boosted_node):
    """Adaptive() searches as the fixed floors (1/16, the node's rule) do; other fixed floors
    change the search, and every one returns exhaustive's split."""
    ds, y, w = boosted_node
    order = w[w > 0]
    fixed = apsplit.Adaptive(min_step=ADAPTIVE_MIN_STEP,
                             min_step_examples=examples_floor(np.sort(order)[::-1], order.size))
    default, same = (apsplit.find_split(ds, y, w, method=f) for f in (apsplit.Adaptive(), fixed))
    assert (default.assessments, default.scans) == (same.assessments, same.scans)
    none = apsplit.find_split(ds, y, w, method=apsplit.Adaptive(min_step_examples=0))
    large = apsplit.find_split(ds, y, w, method=apsplit.Adaptive(min_step_examples=1 / 4))
    assert none.scans > default.scans > large.scans
    assert none.assessments < large.assessments
    reference = apsplit.find_split(ds, y, w, method="exhaustive")
    for split in (default, none, large):
        assert (split.feature, split.left_rank, split.score) == \
            (reference.feature, reference.left_rank, reference.score)


def test_fixed_floors_are_kept_and_shown():
    finder = apsplit.Adaptive(min_step_examples=1 / 8)
    assert (finder.min_step, finder.min_step_examples) == (None, 1 / 8)
    assert "min_step_examples=0.125" in repr(finder)
    np.testing.assert_equal(finder._params(), [-1, 1 / 8, -1])


@settings(max_examples=scaled(0.5))
@given(nodes(sparse=None), st.sampled_from([None, 0.0, 1 / 4, 1.0]),
       st.sampled_from([None, 0.0, 1 / 8, 1.0]))
def test_any_floors_return_exhaustives_split(node, min_step, min_step_examples):
    ds = apsplit.Dataset(node.matrix())
    finder = apsplit.Adaptive(min_step=min_step, min_step_examples=min_step_examples)
    for criterion in ("error", "gini"):
        split = apsplit.find_split(ds, node.y, criterion=criterion, method=finder, **node.kwargs())
        reference = apsplit.find_split(ds, node.y, criterion=criterion, method="exhaustive",
                                       **node.kwargs())
        np.testing.assert_equal((split.feature, split.left_rank, split.threshold, split.score),
                                (reference.feature, reference.left_rank, reference.threshold,
                                 reference.score))
