"""Indices that numba reads without a wraparound test.

numba indexes an array as NumPy does: a negative index counts from the end.
So every subscript by a signed integer tests its sign (a compare and a
select per axis) unless LLVM proves it nonnegative, which it cannot for an
index loaded from an array: a row number, a class, a bin.  In a loop of a few
instructions per stored entry those tests are much of the work (with them
out of the sparse histogram's loop, among others, ``benchmarks.stock`` fit
agaricus in 1.43x LightGBM's time instead of 2.28x, docs/benchmarks.md).
``u(i)`` is i as uint64: the same element for every i >= 0, with no test.
uint64 with int64 arithmetic gives int64 again (numba 0.68), so cast the
finished index, not a term of it.
"""

import numpy as np
from numba import njit


@njit(cache=True, inline='always')
def u(i):
    """i (>= 0) as uint64: a subscript without numba's negative-index test."""
    return np.uint64(i)
