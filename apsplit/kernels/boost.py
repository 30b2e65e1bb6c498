"""Per-round bookkeeping of the boosting clients over all rows, in O(n C): one pass
before the round's alpha is known (``tree_predictions``), three or four after
(``reweight``'s two, ``add_round_votes``'s one, two for two classes).  Each sum over
the rows adds its terms one at a time in row order: partial sums would be faster, but
they change the weights in their last bits, and with them some trees' thresholds."""

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
        p = leaf_class[leaves[i]]
        predicted[i] = p
        miss[i] = p != codes[i]
        err += w[i] * (p != codes[i])  # + 0.0 leaves err as it is
    return predicted, miss, err


@njit(cache=True, inline="always")
def _add_row_votes(votes, i, predicted, alpha, other):
    for k in range(votes.shape[1]):
        votes[i, k] += alpha if k == predicted else other


@njit(cache=True)
def add_votes(votes, predicted, alpha):
    """votes[i, k] += alpha if k is row i's predicted class, else -alpha / (C - 1)."""
    other = -alpha / (votes.shape[1] - 1)
    for i in range(votes.shape[0]):
        _add_row_votes(votes, i, predicted[i], alpha, other)


@njit(cache=True, inline="always")
def _floor(w, i, zero, floor):
    if zero[i]:
        w[i] = 0.0
    elif w[i] < floor:
        w[i] = floor
    return w[i] > 0.0


@njit(cache=True)
def floor_weights(w, zero, floor):
    """scikit-learn's floor: weights below ``floor`` raised to it, rows of weight 0
    (``zero``) kept at 0; returns the number of rows of positive weight."""
    n_positive = 0
    for i in range(w.shape[0]):
        n_positive += _floor(w, i, zero, floor)
    return n_positive


@njit(cache=True)
def reweight(w, miss, factor, zero, floor):
    """Misclassified weights times ``factor``, all weights normalised to sum 1, then
    floored for the next round (``floor_weights``, whose count it returns)."""
    total = 0.0
    for i in range(w.shape[0]):
        w[i] *= factor if miss[i] else 1.0  # a select, not a branch on the data (w * 1 = w)
        total += w[i]
    n_positive = 0
    for i in range(w.shape[0]):
        w[i] /= total
        n_positive += _floor(w, i, zero, floor)
    return n_positive


@njit(cache=True)
def add_round_votes(votes, predicted, alpha, codes, w0):
    """The round's votes added (``add_votes``); returns the ensemble's weighted training
    error: each row votes for the first class with the largest vote (two classes: class 1
    when its vote exceeds class 0's), and a wrong vote costs the row's w0."""
    n, C = votes.shape
    other = -alpha / (C - 1)
    err = 0.0
    if C == 2:  # the votes without a loop over the classes, then the error's sum
        wrong = np.empty(n, np.bool_)
        for i in range(n):
            up = predicted[i] == 1
            vote_0 = votes[i, 0] + (other if up else alpha)
            vote_1 = votes[i, 1] + (alpha if up else other)
            votes[i, 0] = vote_0
            votes[i, 1] = vote_1
            wrong[i] = (vote_1 > vote_0) != (codes[i] == 1)
        for i in range(n):
            err += w0[i] * wrong[i]
        return err
    for i in range(n):  # one pass per row, no branch on the data
        p = predicted[i]  # read once: votes' stores might alias it, as far as LLVM knows
        best = 0
        top = -np.inf
        for k in range(C):
            vote = votes[i, k] + (alpha if k == p else other)
            votes[i, k] = vote
            if vote > top:
                top = vote
                best = k
        err += w0[i] * (best != codes[i])  # + 0.0 leaves err as it is
    return err
