"""Binary min-heap of (key, id) pairs with lazy deletion, on plain arrays.

An entry is (key, id, stamp); it is stale when ``stamp`` differs from the
current stamp of ``id`` (the id's key changed or it left the race).  Ties
on key are broken by the smaller id.  ``size`` is a one-element array.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def new_heap(capacity):
    cap = max(capacity, 4)
    return np.empty(cap), np.empty(cap, np.int64), np.empty(cap, np.int64), np.zeros(1, np.int64)


@njit(cache=True)
def _less(keys, ids, i, j):
    return keys[i] < keys[j] or (keys[i] == keys[j] and ids[i] < ids[j])


@njit(cache=True)
def _swap(keys, ids, stamps, i, j):
    keys[i], keys[j] = keys[j], keys[i]
    ids[i], ids[j] = ids[j], ids[i]
    stamps[i], stamps[j] = stamps[j], stamps[i]


@njit(cache=True)
def push(heap, key, ident, stamp):
    """Insert an entry; returns the heap (its arrays grow by doubling)."""
    keys, ids, stamps, size = heap
    if size[0] == keys.shape[0]:
        cap = 2 * keys.shape[0]
        k2, i2, s2 = np.empty(cap), np.empty(cap, np.int64), np.empty(cap, np.int64)
        k2[:size[0]] = keys[:size[0]]
        i2[:size[0]] = ids[:size[0]]
        s2[:size[0]] = stamps[:size[0]]
        keys, ids, stamps = k2, i2, s2
    j = size[0]
    keys[j], ids[j], stamps[j] = key, ident, stamp
    size[0] += 1
    while j > 0:
        parent = (j - 1) // 2
        if not _less(keys, ids, j, parent):
            break
        _swap(keys, ids, stamps, j, parent)
        j = parent
    return keys, ids, stamps, size


@njit(cache=True)
def pop(heap):
    """Remove the smallest entry (heap must be non-empty)."""
    keys, ids, stamps, size = heap
    size[0] -= 1
    last = size[0]
    _swap(keys, ids, stamps, 0, last)
    j = 0
    while True:
        lo, r = 2 * j + 1, 2 * j + 2
        best = j
        if lo < last and _less(keys, ids, lo, best):
            best = lo
        if r < last and _less(keys, ids, r, best):
            best = r
        if best == j:
            break
        _swap(keys, ids, stamps, j, best)
        j = best


@njit(cache=True)
def top(heap, current_stamp):
    """Id of the smallest live entry (stale ones are dropped), or -1."""
    keys, ids, stamps, size = heap
    while size[0] > 0:
        if stamps[0] == current_stamp[ids[0]]:
            return ids[0]
        pop(heap)
    return -1
