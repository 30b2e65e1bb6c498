"""Keeping the weight order across boosting rounds in O(n).

A boosting round multiplies the weights of the misclassified examples by one
factor and those of the correctly classified examples by another (then
normalises, which keeps the order).  Each group therefore stays in decreasing
weight order, and one merge of the two groups restores the order of the
whole: no round needs a sort.
"""

from numba import njit
import numpy as np


@njit(cache=True)
def merge_groups(order, weight, flagged):
    """``order`` re-sorted by decreasing ``weight``, given that each group is already sorted.

    order    previous weight order (row indices)
    weight   new weights, one per row
    flagged  bool per row: which of the two groups the row is in

    Rows of one group must be in decreasing new weight along ``order``.  Ties
    between the groups go to the row that came first in ``order``, so the
    result equals a stable sort of ``order`` by decreasing new weight.
    """
    n = order.shape[0]
    first = np.empty(n, np.int64)
    second = np.empty(n, np.int64)
    n_first = 0
    n_second = 0
    for i in range(n):
        if flagged[order[i]]:
            second[n_second] = i
            n_second += 1
        else:
            first[n_first] = i
            n_first += 1
    out = np.empty(n, order.dtype)
    a = 0
    b = 0
    for i in range(n):
        if b == n_second or (a < n_first and (weight[order[first[a]]] > weight[order[second[b]]]
                                              or (weight[order[first[a]]] == weight[order[second[b]]]
                                                  and first[a] < second[b]))):
            out[i] = order[first[a]]
            a += 1
        else:
            out[i] = order[second[b]]
            b += 1
    return out
