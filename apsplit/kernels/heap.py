"""Indexed binary min-heap over ids 0..F-1, on plain arrays (a ``Heap``).

Ties on key go to the smaller id.  Only ``new_heap`` allocates, so the other
functions run inside the search kernels, which are compiled without
reference counting (see ``search``).
"""

from typing import NamedTuple

import numpy as np
from numba import njit


class Heap(NamedTuple):
    keys: np.ndarray  # keys[i]: id i's key
    heap: np.ndarray  # the ids in heap order
    pos: np.ndarray   # pos[i]: id i's slot in ``heap`` (-1: absent)
    size: np.ndarray  # (1,) the ids held


@njit(cache=True)
def new_heap(n_ids):
    return Heap(np.zeros(n_ids), np.empty(n_ids, np.int64), np.full(n_ids, -1, np.int64),
                np.zeros(1, np.int64))


@njit(cache=True, inline='always')
def _less(keys, a, b):
    return keys[a] < keys[b] or (keys[a] == keys[b] and a < b)


@njit(cache=True, inline='always')
def _place(heap, pos, slot, ident):
    heap[slot] = ident
    pos[ident] = slot


@njit(cache=True)
def _sift_up(keys, heap, pos, j):
    ident = heap[j]
    while j > 0:
        parent = (j - 1) // 2
        if not _less(keys, ident, heap[parent]):
            break
        _place(heap, pos, j, heap[parent])
        j = parent
    _place(heap, pos, j, ident)


@njit(cache=True)
def _sift_down(keys, heap, pos, j, size):
    ident = heap[j]
    while True:
        child = 2 * j + 1
        if child >= size:
            break
        if child + 1 < size and _less(keys, heap[child + 1], heap[child]):
            child += 1
        if not _less(keys, heap[child], ident):
            break
        _place(heap, pos, j, heap[child])
        j = child
    _place(heap, pos, j, ident)


@njit(cache=True)
def update(h, ident, key):
    """Insert ``ident`` with ``key``, or change its key if present."""
    keys, heap, pos, size = h
    keys[ident] = key
    j = pos[ident]
    if j < 0:
        j = size[0]
        size[0] += 1
        _place(heap, pos, j, ident)
    _sift_up(keys, heap, pos, j)
    _sift_down(keys, heap, pos, pos[ident], size[0])


@njit(cache=True)
def remove(h, ident):
    """Remove ``ident`` if present."""
    keys, heap, pos, size = h
    j = pos[ident]
    if j < 0:
        return
    pos[ident] = -1
    size[0] -= 1
    last = size[0]
    if j == last:
        return
    moved = heap[last]
    _place(heap, pos, j, moved)
    _sift_up(keys, heap, pos, j)
    _sift_down(keys, heap, pos, pos[moved], last)


@njit(cache=True)
def top(h):
    """Id with the smallest key, or -1 when empty."""
    return h.heap[0] if h.size[0] > 0 else -1


@njit(cache=True)
def top_other(h, ident):
    """Id with the smallest key other than ``ident``, or -1."""
    keys, heap, pos, size = h
    if size[0] == 0:
        return -1
    if heap[0] != ident:
        return heap[0]
    best = -1
    for j in (1, 2):
        if j < size[0] and (best < 0 or _less(keys, heap[j], best)):
            best = heap[j]
    return best
