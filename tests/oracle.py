"""Brute-force split finder in plain numpy, written independently of apsplit.

Every candidate split is scored from scratch on the node's rows with positive
weight: for each feature, each threshold between two consecutive distinct
values present in the node, the score is

    sum over the two children of (child weight / node weight) * impurity(child)

with error = 1 - max_c p_c, entropy = -sum_c p_c log2 p_c, gini = 1 - sum_c p_c^2.
"""

import math
from dataclasses import dataclass, field

import numpy as np

CRITERIA = ("error", "entropy", "gini")


def tolerance(score):
    """Allowed difference between two computations of one score.

    Scores are normalised by the node weight, so they lie in [0, log2 C]; sums
    taken in another order differ by a few ulps of that range, far below 1e-9.
    """
    return 1e-9 * max(1.0, abs(score))


def close(score, expected):
    """Scores equal within ``tolerance`` (inf matches only inf)."""
    return score == expected or abs(score - expected) <= tolerance(expected)


def impurity(class_weights, criterion):
    """Impurity of one child from its class weights (0 for an empty child)."""
    total = class_weights.sum()
    if total <= 0:
        return 0.0
    p = class_weights / total
    if criterion == "error":
        return 1.0 - p.max()
    if criterion == "gini":
        return 1.0 - np.sum(p * p)
    if criterion == "entropy":
        p = p[p > 0]
        return float(-np.sum(p * np.log2(p)))
    raise ValueError(f"unknown criterion {criterion!r}")


def n_classes(y):
    """Number of classes apsplit infers from the codes: max code + 1, at least 2."""
    return max(int(np.max(y)) + 1, 2)


def positive_rows(w, rows=None):
    """The node's rows with positive weight (all rows when ``rows`` is None)."""
    rows = np.arange(len(w)) if rows is None else np.asarray(rows)
    return rows[np.asarray(w)[rows] > 0]


def child_weights(X, y, w, rows, feature, threshold):
    """Class weights of the node's positive-weight rows with x <= threshold, and of the others."""
    rows = positive_rows(w, rows)
    goes_left = np.asarray(X)[rows, feature] <= threshold
    C = n_classes(y)
    left = np.bincount(y[rows[goes_left]], weights=w[rows[goes_left]], minlength=C)
    right = np.bincount(y[rows[~goes_left]], weights=w[rows[~goes_left]], minlength=C)
    return left, right


def partition_score(X, y, w, rows, feature, threshold, criterion):
    """Score of splitting the node at ``x[feature] <= threshold``."""
    left, right = child_weights(X, y, w, rows, feature, threshold)
    node_weight = left.sum() + right.sum()
    return sum(child.sum() / node_weight * impurity(child, criterion) for child in (left, right))


@dataclass
class OracleSplit:
    """Brute-force result.

    score     best score (inf when every feature is constant on the node)
    feature   canonical feature (-1 when there is no split)
    left_max, right_min
              canonical split: node values <= left_max go left, >= right_min go right
    near      every (feature, left_max, right_min) whose score is within
              ``tolerance`` of the best, in canonical order
    """

    score: float
    feature: int = -1
    left_max: float = math.nan
    right_min: float = math.nan
    near: list = field(default_factory=list)

    @property
    def found(self):
        return self.feature >= 0


def best_split(X, y, w, rows=None, features=None, criterion="error", min_leaf=1):
    """Best split of the node by brute force.

    Only splits that leave at least ``min_leaf`` positive-weight rows in each
    child are admissible.  Ties (scores within ``tolerance``) go to the
    feature listed first in ``features``, then to the smallest threshold.
    """
    X, y, w = np.asarray(X, dtype=float), np.asarray(y), np.asarray(w, dtype=float)
    rows = positive_rows(w, rows)
    features = range(X.shape[1]) if features is None else features
    candidates = []
    for k in features:
        values = np.unique(X[rows, k])
        for lo, hi in zip(values[:-1], values[1:]):
            n_left = int(np.count_nonzero(X[rows, k] <= lo))
            if min(n_left, rows.size - n_left) < min_leaf:
                continue
            candidates.append((partition_score(X, y, w, rows, k, lo, criterion), int(k), lo, hi))
    if not candidates:
        return OracleSplit(math.inf)
    best = min(score for score, *_ in candidates)
    near = [(k, lo, hi) for score, k, lo, hi in candidates if score - best <= tolerance(best)]
    k, lo, hi = near[0]
    return OracleSplit(best, k, lo, hi, near)
