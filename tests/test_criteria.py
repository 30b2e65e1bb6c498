"""The bounds of one split (kernels.criteria, stats._error_split) against brute force.

A split has seen class weights L and R; the unseen examples (labels and
weights known) may each land on either side.  Whatever they do, the split's
final value f(L + a) + f(R + U - a) must lie in [seen value, UB] for every
criterion and bounds.
"""

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import oracle
from apsplit.kernels.criteria import BOUNDS, CRITERIA, ENTROPY, ERROR, GINI, PAPER, TIGHT, split_value
from apsplit.kernels.stats import _error_split
from strategies import WEIGHT_KINDS, scaled


def impurity(z, criterion):
    """f(z) in weight units, from the oracle's normalised impurity."""
    return z.sum() * oracle.impurity(z, criterion)


def bounds_of(criterion, bounds, left, right, unseen_cls):
    """[(seen value, UB)] of the split as the search computes them: for error, by
    evaluate's own path and by the generic one."""
    crit, b, unseen = CRITERIA[criterion], BOUNDS[bounds], unseen_cls.sum()
    pairs = [split_value(crit, b, left, right, unseen_cls, unseen, True)]
    if crit == ERROR:
        seen_cls = left + right
        pairs.append(_error_split(b, left, seen_cls, seen_cls.sum(), unseen_cls, unseen, True))
    return pairs


@st.composite
def splits(draw, max_classes=4, max_examples=8):
    """(class weights L, R seen; unseen examples' labels and weights; C)."""
    C = draw(st.integers(2, max_classes))
    weight = WEIGHT_KINDS[draw(st.sampled_from(["ones", "uniform", "boosting", "extreme"]))]
    example = st.tuples(st.integers(0, C - 1), weight)
    seen = draw(st.lists(st.tuples(example, st.booleans()), max_size=max_examples))
    unseen = draw(st.lists(example, min_size=1, max_size=max_examples))
    left, right = np.zeros(C), np.zeros(C)
    for (c, wt), goes_left in seen:
        (left if goes_left else right)[c] += wt
    labels = np.array([c for c, _ in unseen], np.int64)
    weights = np.array([wt for _, wt in unseen])
    return left, right, labels, weights, C


def placements(labels, data):
    """Sides (True: left) of the unseen examples: every one for few examples, else
    every class wholly on one side (the vertices of the box) and random draws."""
    k = labels.size
    if k <= 6:
        return [np.array(p) for p in itertools.product([False, True], repeat=k)]
    C = int(labels.max()) + 1
    vertices = [np.array(v)[labels] for v in itertools.product([False, True], repeat=C)]
    drawn = [np.array(data.draw(st.lists(st.booleans(), min_size=k, max_size=k))) for _ in range(8)]
    return vertices + drawn


def tolerance(left, right, weights, C):
    return 1e-9 * (left.sum() + right.sum() + weights.sum()) * max(1.0, math.log2(C))


@settings(max_examples=scaled(1.0))
@given(splits(), st.data())
def test_final_value_lies_between_the_bounds_for_every_placement(split, data):
    left, right, labels, weights, C = split
    unseen_cls = np.bincount(labels, weights=weights, minlength=C)
    tol = tolerance(left, right, weights, C)
    sides = placements(labels, data)
    for criterion in CRITERIA:
        for bounds in BOUNDS:
            for seen, ub in bounds_of(criterion, bounds, left, right, unseen_cls):
                assert math.isclose(seen, impurity(left, criterion) + impurity(right, criterion),
                                    rel_tol=1e-9, abs_tol=tol)
                for goes_left in sides:
                    to_left = np.bincount(labels[goes_left], weights=weights[goes_left], minlength=C)
                    final = (impurity(left + to_left, criterion)
                             + impurity(right + unseen_cls - to_left, criterion))
                    assert seen - tol <= final <= ub + tol, (criterion, bounds, seen, final, ub)


@settings(max_examples=scaled(1.0))
@given(splits())
def test_tight_upper_bound_is_never_above_the_papers(split):
    """Proved in kernels.criteria: each tight slope term is at most the paper's term for its class."""
    left, right, labels, weights, C = split
    unseen_cls = np.bincount(labels, weights=weights, minlength=C)
    tol = tolerance(left, right, weights, C)
    for criterion in CRITERIA:
        tight = bounds_of(criterion, "tight", left, right, unseen_cls)
        paper = bounds_of(criterion, "paper", left, right, unseen_cls)
        for (_, tight_ub), (_, paper_ub) in zip(tight, paper):
            assert tight_ub <= paper_ub + tol, (criterion, tight_ub, paper_ub)


def eq3_child(z, unseen_cls):
    """The paper's Eq. 3 for one leaf, in its own notation (Z_u eps_u, w, w_y, Z_yu, |Y|)."""
    Z_u, w, Y = z.sum(), unseen_cls.sum(), z.size
    present = z > 0
    Z_u_eps_u = -np.sum(z[present] * np.log2(z[present] / Z_u))
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(z + unseen_cls > 0, (z + unseen_cls) * np.log2((Z_u + w) / z), 0.0)
    return Z_u_eps_u + w * np.log2(Y) + kl.sum()


def gini_analogue_child(z, unseen_cls):
    """The gini analogue: seen gini + U (1 - 1/C) + sum_y (z_y+U_y)^2/(S+U_y) ((S+U)/z_y - 1)."""
    S, U, C = z.sum(), unseen_cls.sum(), z.size
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(z + unseen_cls > 0,
                         (z + unseen_cls) ** 2 / (S + unseen_cls) * ((S + U) / z - 1.0), 0.0)
    return impurity(z, "gini") + U * (1.0 - 1.0 / C) + terms.sum()


@settings(max_examples=scaled(0.5))
@given(splits())
def test_paper_bounds_follow_their_formulas(split):
    left, right, labels, weights, C = split
    unseen_cls = np.bincount(labels, weights=weights, minlength=C)
    for crit, formula in ((ENTROPY, eq3_child), (GINI, gini_analogue_child)):
        _, ub = split_value(crit, PAPER, left, right, unseen_cls, unseen_cls.sum(), True)
        expected = formula(left, unseen_cls) + formula(right, unseen_cls)
        assert ub == expected or math.isclose(ub, expected, rel_tol=1e-9,
                                              abs_tol=tolerance(left, right, weights, C)), \
            (crit, ub, expected)


def test_an_unseen_class_absent_from_a_seen_child_makes_the_paper_bound_infinite():
    """lg((Z_u + w) / Z_yu) is infinite for Z_yu = 0; the tangent bound stays finite."""
    left, right, unseen_cls = np.array([2.0, 0.0]), np.array([1.0, 1.0]), np.array([0.0, 1.0])
    for crit in (ENTROPY, GINI):
        assert split_value(crit, PAPER, left, right, unseen_cls, 1.0, True)[1] == math.inf
        assert split_value(crit, TIGHT, right, right, unseen_cls, 1.0, True)[1] < math.inf
