"""In-place heap sorts, and binary searches of sorted arrays.

They allocate nothing, so they can run inside the search kernels, which are
compiled without numba's reference counting (see ``search``).
"""

from numba import njit


@njit(cache=True, inline='always')
def _before(keys, items, i, j):
    """items[i] sorts before items[j]: by key (``keys`` given) then by value."""
    a, b = items[i], items[j]
    if keys.shape[0] == 0:
        return a < b
    return keys[a] < keys[b] or (keys[a] == keys[b] and a < b)


@njit(cache=True)
def _sift_down(keys, items, j, n):
    while True:
        child = 2 * j + 1
        if child >= n:
            return
        if child + 1 < n and _before(keys, items, child, child + 1):
            child += 1
        if not _before(keys, items, j, child):
            return
        items[j], items[child] = items[child], items[j]
        j = child


@njit(cache=True)
def heapsort(keys, items):
    """Sort the int64 ``items`` in place by (keys[item], item), or by value when
    ``keys`` is empty; O(n log n).

    With ``items`` = 0..n-1 this is a stable argsort of ``keys``.
    """
    n = items.shape[0]
    for start in range(n // 2 - 1, -1, -1):
        _sift_down(keys, items, start, n)
    for end in range(n - 1, 0, -1):
        items[0], items[end] = items[end], items[0]
        _sift_down(keys, items, 0, end)


@njit(cache=True, inline='always')
def bisect_left(a, lo, hi, x):
    """The first index i in [lo, hi) with a[i] >= x (hi if none); a[lo:hi] sorted."""
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, inline='always')
def bisect_right(a, lo, hi, x):
    """The first index i in [lo, hi) with a[i] > x (hi if none); a[lo:hi] sorted."""
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return lo
