"""Per-round bookkeeping of the boosting clients over all rows, in O(n C)."""

import numpy as np
from numba import njit


@njit(cache=True)
def tree_predictions(leaf_class, leaves, codes, w):
    """(predicted class per row, misclassified per row, misclassified weight) of a tree
    whose leaf of row i is ``leaves[i]`` and whose leaf predicts ``leaf_class``."""
    n = leaves.shape[0]
    predicted = np.empty(n, np.int64)
    miss = np.empty(n, np.bool_)
    err = 0.0
    for i in range(n):
        predicted[i] = leaf_class[leaves[i]]
        miss[i] = predicted[i] != codes[i]
        if miss[i]:
            err += w[i]
    return predicted, miss, err


@njit(cache=True)
def add_votes(votes, predicted, alpha):
    """votes[i, k] += alpha if k is row i's predicted class, else -alpha / (C - 1)."""
    C = votes.shape[1]
    other = -alpha / (C - 1)
    for i in range(votes.shape[0]):
        for k in range(C):
            votes[i, k] += alpha if k == predicted[i] else other


@njit(cache=True)
def vote_error(votes, codes, w0):
    """Weighted error of the ensemble's votes, each row predicting the first class
    with the largest vote (two classes: class 1 when its vote exceeds class 0's)."""
    C = votes.shape[1]
    err = 0.0
    for i in range(votes.shape[0]):
        best = 0
        for k in range(1, C):
            if votes[i, k] > votes[i, best]:
                best = k
        if best != codes[i]:
            err += w0[i]
    return err


@njit(cache=True)
def floor_weights(w, zero, floor, order):
    """scikit-learn's floor: weights below ``floor`` raised to it, rows of weight 0
    (``zero``) kept at 0; returns the number of leading rows of ``order`` with
    positive weight."""
    for i in range(w.shape[0]):
        if zero[i]:
            w[i] = 0.0
        elif w[i] < floor:
            w[i] = floor
    n = 0
    while n < order.shape[0] and w[order[n]] > 0.0:
        n += 1
    return n


@njit(cache=True)
def reweight(w, miss, factor):
    """Misclassified weights times ``factor``, then all weights normalised to sum 1."""
    total = 0.0
    for i in range(w.shape[0]):
        if miss[i]:
            w[i] *= factor
        total += w[i]
    for i in range(w.shape[0]):
        w[i] /= total
