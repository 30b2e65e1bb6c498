"""Binned feature matrix shared by every split finder.

Every feature is binned once into its sorted distinct values; an example's
*code* for feature k is the rank of its value among them.  A split of feature k
at rank r sends codes <= r left.  Dense input keeps a feature-major code
matrix in the smallest unsigned type that fits; sparse input keeps the
stored entries only (CSC for the exhaustive pass, CSR to stream a node's
examples in weight order), never a dense copy.

A *categorical* feature's distinct values are its categories (codes as
above); a split of it sends a subset of its categories left
(``kernels.categorical``).  Categorical features need dense X.
"""

import numpy as np
import scipy.sparse as sp

from .kernels.binning import bin_columns, coarse_columns
from .kernels.build import threshold_of
from .kernels.coarse import (MAX_COARSE, NEVER, PAYS_VALUES_PER_BIN, TWO_LEVEL_VALUES_PER_BIN,
                             CoarseBins, group_ranks, list_other_rows, list_sparse_entries,
                             no_coarse_bins, no_listed_entries, no_other_rows)
from .kernels.state import BinnedData, Workspace
from .parallel import check_threads, each_feature

__all__ = ["Dataset", "dense_matrix"]


def _code_dtype(max_bins):
    for dtype in (np.uint8, np.uint16, np.uint32):
        if max_bins <= np.iinfo(dtype).max + 1:
            return dtype
    return np.uint64


def _check_finite(values):
    if values.size and not np.all(np.isfinite(values)):
        raise _not_finite(values)


def _not_finite(values):
    bad = "NaN" if np.isnan(values).any() else "inf"
    return ValueError(f"X contains {bad}; apsplit needs finite feature values")


def _one_stored_value(X):
    """Per column of the CSC matrix X (no explicit zeros), whether its stored entries hold
    one value (an empty column does not): binned without a sort."""
    starts, ends = X.indptr[:-1], X.indptr[1:]
    stored = ends > starts
    out = np.zeros(X.shape[1], bool)
    if stored.any():  # reduceat over the nonempty columns: each one's entries, in turn
        first = starts[stored]
        out[stored] = np.minimum.reduceat(X.data, first) == np.maximum.reduceat(X.data, first)
    return out


def _offsets(values):
    """Where each feature's values start in their concatenation (and the total, last)."""
    return np.concatenate([[0], np.cumsum([uniq.size for uniq in values])]).astype(np.int64)


def _categorical_mask(categorical_features, K):
    """uint8 mask of the categorical columns from indices or a boolean mask."""
    mask = np.zeros(K, np.uint8)
    if categorical_features is None:
        return mask
    spec = np.asarray(categorical_features)
    if spec.dtype == bool:
        if spec.shape != (K,):
            raise ValueError(f"a boolean categorical_features mask needs {K} entries (one per "
                             f"column of X), got shape {spec.shape}")
        mask[spec] = 1
        return mask
    if spec.ndim != 1 or (spec.size and not np.issubdtype(spec.dtype, np.integer)):
        raise TypeError("categorical_features must be a list of column indices or a boolean mask")
    if spec.size and (spec.min() < 0 or spec.max() >= K):
        bad = int(spec[(spec < 0) | (spec >= K)][0])
        raise ValueError(f"categorical feature index {bad} is out of range for X with {K} columns")
    if np.unique(spec).size != spec.size:
        raise ValueError("categorical_features holds duplicate column indices")
    mask[spec] = 1
    return mask


def dense_matrix(X):
    """``X`` as a 2-d float64 array; a TypeError or ValueError that names what is wrong."""
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"X must be numeric: {exc}") from None
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
    return X


class _Checkout:
    """``Dataset.workspace``'s context: takes a kept workspace out of ``kept`` (or makes
    one) on entry, puts it back only on an exit without an exception."""

    __slots__ = ("kept", "n_classes", "make", "work")

    def __init__(self, kept, n_classes, make):
        self.kept, self.n_classes, self.make = kept, n_classes, make

    def __enter__(self):
        work = self.kept.pop(self.n_classes, None)
        self.work = self.make(self.n_classes) if work is None else work
        return self.work

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.kept[self.n_classes] = self.work
        self.work = None
        return False


class Dataset:
    """Binned view of ``X`` (n examples x K features), reused across rounds and nodes.

    Parameters
    ----------
    X : array-like of shape (n, K) or scipy.sparse matrix
        Finite feature values.  Sparse input is binned without densifying.
    categorical_features : column indices or a boolean mask of length K, optional
        Columns whose distinct values are unordered categories.  Dense X only.
    coarse_bins : int, 2 to 256 (default 256)
        At most this many coarse bins per feature for the exhaustive search's
        prefilter (``kernels.coarse``).  A dense numeric feature with more than
        4 values per coarse bin sums its canonical statistics through them
        (two levels, ``kernels.stats``).
    prefilter : "auto" (default), True or False
        Where the exhaustive search uses the prefilter: "auto" at every node of two
        classes, and, with more classes, at nodes whose plain scans would visit 2
        values per coarse bin on average over the features with more values than
        coarse bins (when no candidate has more: at nodes of 8 rows per bin;
        ``kernels.coarse.pays``), True at every node, False at none.
    n_threads : int (default 1)
        Threads that bin the features (-1: every core): the Dataset does not depend
        on them.

    Both are a matter of speed: every finder returns the same split, bit for bit, on a
    Dataset, with or without the prefilter; Datasets of different ``coarse_bins`` can
    round a two-level feature's scores differently in the last bits.
    """

    def __init__(self, X, categorical_features=None, coarse_bins=MAX_COARSE, prefilter="auto",
                 n_threads=1):
        if isinstance(coarse_bins, bool) or not isinstance(coarse_bins, (int, np.integer)) \
                or not 2 <= coarse_bins <= MAX_COARSE:
            raise ValueError(f"coarse_bins must be an integer from 2 to {MAX_COARSE}, "
                             f"got {coarse_bins!r}")
        if not any(prefilter is choice for choice in (True, False)) and prefilter != "auto":
            raise ValueError(f"prefilter must be 'auto', True or False, got {prefilter!r}")
        self.max_coarse_bins = int(coarse_bins)
        self.prefilter = prefilter
        n_threads = check_threads(n_threads)
        self._n_threads = n_threads  # they also make the coarse bins, on first use
        if sp.issparse(X):
            self._bin_sparse(X, n_threads)
        else:
            self._bin_dense(X, n_threads)
        self.categorical = _categorical_mask(categorical_features, self.n_features)
        if self.is_sparse and self.categorical.any():
            raise ValueError("categorical features need dense X (pass X.toarray())")
        self._workspaces = {}
        self._coarse = None
        self._two_level = None

    # ------------------------------------------------------------------ binning
    def _bin_dense(self, X, n_threads):
        X = dense_matrix(X)
        n, K = X.shape
        if n == 0 or K == 0:
            raise ValueError(f"X is empty (shape {X.shape})")
        if n >= 2 ** 32:  # the ranks and the radix sort's row numbers are uint32
            raise ValueError(f"X has {n} rows; apsplit bins at most 2**32 - 1")
        binned = bin_columns(X, n_threads)  # tells the columns holding NaN or inf
        if not binned.finite.all():
            raise _not_finite(X)
        offsets = binned.offsets
        self.codes = binned.ranks.astype(_code_dtype(int(np.diff(offsets).max())), copy=False)
        self._finish(n, K, binned.values, offsets, sparse=False)
        self.zero_rank = np.full(K, -1, np.int64)

    def _bin_sparse(self, X, n_threads):
        X = sp.csc_matrix(X, dtype=np.float64, copy=True)
        n, K = X.shape
        if n == 0 or K == 0:
            raise ValueError(f"X is empty (shape {X.shape})")
        X.sum_duplicates()
        X.eliminate_zeros()
        _check_finite(X.data)
        values = [None] * K
        zero_rank = np.full(K, -1, np.int64)
        codes = np.empty(X.nnz, np.int64)
        one_value = _one_stored_value(X)

        def bin_feature(k):
            lo, hi = X.indptr[k], X.indptr[k + 1]
            stored = X.data[lo:hi]
            has_zero = hi - lo < n
            if one_value[k]:  # one value v stored (one-hot columns): [v], [0, v] or [v, 0]
                v = stored[0]
                uniq = np.array([v] if not has_zero else [0.0, v] if v > 0 else [v, 0.0])
            else:
                uniq = np.unique(np.concatenate([stored, [0.0]]) if has_zero else stored)
            if has_zero:
                zero_rank[k] = np.searchsorted(uniq, 0.0)
            codes[lo:hi] = np.searchsorted(uniq, stored)
            values[k] = uniq

        each_feature(bin_feature, K, X.nnz, n_threads)
        offsets = _offsets(values)
        dtype = _code_dtype(int(np.diff(offsets).max()))
        coded = sp.csc_matrix((codes.astype(dtype), X.indices, X.indptr), shape=(n, K))
        csr = coded.tocsr()
        csr.sort_indices()
        self.csc_indptr = coded.indptr.astype(np.int64)
        self.csc_rows = coded.indices.astype(np.int64)
        self.csc_codes = coded.data
        self.csr_indptr = csr.indptr.astype(np.int64)
        self.csr_features = csr.indices.astype(np.int64)
        self.csr_codes = csr.data
        # the global bin of every stored entry, row by row: one load per entry in the
        # exhaustive row pass instead of three dependent ones
        self.csr_bins = (offsets[self.csr_features] + self.csr_codes).astype(np.int32)
        self.codes = np.zeros((0, 0), dtype=dtype)
        self.zero_rank = zero_rank
        self._finish(n, K, np.concatenate(values), offsets, sparse=True)

    def _finish(self, n, K, values, offsets, sparse):
        self.n_rows = n
        self.n_features = K
        self.is_sparse = sparse
        self.values = values
        self.bin_offsets = offsets
        self.n_bins = np.diff(offsets)
        if not sparse:
            empty = np.zeros(0, np.int64)
            self.csc_indptr = self.csc_rows = empty
            self.csr_indptr = self.csr_features = empty
            self.csc_codes = self.csr_codes = np.zeros(0, self.codes.dtype)
            self.csr_bins = np.zeros(0, np.int32)

    def coarse_bins(self):
        """The exhaustive search's coarse bins (``kernels.coarse``), made on first use.

        Feature k's ranks are grouped into at most B = ``coarse_bins``
        contiguous bins of at most 2 n / B examples each, or one value
        (``kernels.coarse.group_ranks``); a feature with at most B values
        keeps one bin per value.  With ``prefilter=False`` and no two-level
        feature they would serve nothing: then they are empty (``no_coarse_bins``).
        When no feature is grouped, dense coarse bins are the exact ones: their
        codes are the Dataset's (uint8), not a copy.
        """
        if self._coarse is None:
            useless = self.prefilter is False and not self._two_level_mask().any()
            self._coarse = no_coarse_bins() if useless else self._bin_coarse()
        return self._coarse

    def _bin_coarse(self):
        K, B = self.n_features, self.max_coarse_bins
        min_mean_bins = {True: 0, False: NEVER}.get(self.prefilter, PAYS_VALUES_PER_BIN * B)
        if not self.is_sparse and self.n_bins.max() <= B:  # one coarse bin per value
            total = int(self.bin_offsets[-1])
            of_rank = np.arange(total) - np.repeat(self.bin_offsets[:-1], self.n_bins)
            return CoarseBins(self.codes, *no_listed_entries(K), self.bin_offsets,
                              np.ones(total, np.int64), of_rank.astype(np.uint8), min_mean_bins,
                              np.zeros(0, np.int32), np.zeros(total + 1, np.int64),
                              *list_other_rows(self.codes, self.bin_offsets, self._two_level_mask()))
        if not self.is_sparse:
            return coarse_columns(self.codes, self.bin_offsets, self._two_level_mask(), B,
                                  min_mean_bins, self._n_threads)
        of_rank = np.empty(int(self.bin_offsets[-1]), np.int64)  # coarse bin within its feature
        offsets = np.zeros(K + 1, np.int64)
        spans = []
        for k in range(K):
            lo, hi = self.bin_offsets[k], self.bin_offsets[k + 1]
            local = np.arange(hi - lo) if hi - lo <= B else group_ranks(self._rank_counts(k), B)
            of_rank[lo:hi] = local
            spans.append(np.bincount(local))
            offsets[k + 1] = offsets[k] + spans[-1].size
        span = np.concatenate(spans).astype(np.int64)
        entry_bins = (offsets[self.csr_features] + of_rank[self.bin_offsets[self.csr_features]
                                                           + self.csr_codes]).astype(np.int32)
        has_zero = self.zero_rank >= 0
        zero_bin = np.full(K, -1, np.int64)
        zero_bin[has_zero] = offsets[:-1][has_zero] + of_rank[
            self.bin_offsets[:-1][has_zero] + self.zero_rank[has_zero]]
        listed = list_sparse_entries(self.csr_indptr, self.csr_features, entry_bins, zero_bin,
                                     offsets)
        # no two-level features (dense only): no rows sorted by rank
        return CoarseBins(np.zeros((0, 0), np.uint8), *listed, offsets, span,
                          of_rank.astype(np.uint8), min_mean_bins, np.zeros(0, np.int32),
                          np.zeros(offsets[-1] + 1, np.int64), *no_other_rows(K))

    def _rank_counts(self, k):
        """The rows per rank of sparse feature k, its implicit zeros included."""
        lo, hi = self.csc_indptr[k], self.csc_indptr[k + 1]
        counts = np.bincount(self.csc_codes[lo:hi], minlength=int(self.n_bins[k]))
        if self.zero_rank[k] >= 0:
            counts[self.zero_rank[k]] += self.n_rows - (hi - lo)
        return counts

    # ---------------------------------------------------------------- queries
    @property
    def shape(self):
        return (self.n_rows, self.n_features)

    def feature_values(self, k):
        """Sorted distinct values of feature ``k``."""
        return self.values[self.bin_offsets[k]:self.bin_offsets[k + 1]]

    def threshold(self, k, left_rank, right_rank):
        """(t, r): the midpoint t between two distinct values of feature ``k``
        and the rank r of the largest value <= t, so that ``x <= t`` and
        ``code <= r`` select the same rows of X.

        If rounding puts the midpoint on the right value, the left value is
        used instead, so the split always separates the two values.
        """
        t, rank = threshold_of(self.values, self.bin_offsets[k], self.n_bins[k], left_rank,
                               right_rank)
        return float(t), int(rank)

    def goes_left(self, k, rows, left_rank, categories_left=None):
        """Which of ``rows`` a split of feature ``k`` sends left: code <= ``left_rank``,
        or, for a categorical split, value in ``categories_left``."""
        codes = self.column_codes(k, rows)
        if categories_left is None:
            return codes <= left_rank
        table = np.zeros(int(self.n_bins[k]), bool)
        table[np.searchsorted(self.feature_values(k), categories_left)] = True
        return table[codes]

    def column_codes(self, k, rows):
        """Codes (ranks) of feature ``k`` for ``rows``, without densifying sparse input."""
        if not self.is_sparse:
            return self.codes[k, rows]
        lo, hi = self.csc_indptr[k], self.csc_indptr[k + 1]
        col_rows = self.csc_rows[lo:hi]
        at = np.searchsorted(col_rows, rows)
        found = at < col_rows.size
        found[found] = col_rows[at[found]] == rows[found]
        out = np.full(len(rows), self.zero_rank[k], np.int64)
        out[found] = self.csc_codes[lo:hi][at[found]]
        return out

    def kernel_data(self):
        """The binned data as the kernels take it (``kernels.state.BinnedData``)."""
        if self._two_level is None:
            self._two_level = self._two_level_features()
        two_level, coarse = self._two_level
        return BinnedData(self.is_sparse, self.codes, self.bin_offsets, self.zero_rank, self.csc_indptr,
                self.csc_rows, self.csc_codes, self.csr_indptr, self.csr_features, self.csr_codes,
                self.categorical, self.csr_bins, two_level, coarse.of_rank)

    def _two_level_features(self):
        """(two_level, coarse bins) of ``BinnedData``: the dense numeric features with more
        than ``TWO_LEVEL_VALUES_PER_BIN`` values per coarse bin sum their canonical
        statistics in two levels (``kernels.stats``), by their coarse bins
        (``coarse_bins``, made here if any).  (Measured with benchmarks.scaling, 100
        exhaustive AdaBoost trees: on higgs7k's 7,000 rows, 660-3,300 values per
        feature, two levels took 0.66x the time of one, through the prefilter's
        refinement; quick and adaptive, whose plain scans add a second accumulation,
        were level.)"""
        two_level = self._two_level_mask().astype(np.uint8)
        return two_level, self.coarse_bins() if two_level.any() else no_coarse_bins()

    def _two_level_mask(self):
        return ((self.n_bins > TWO_LEVEL_VALUES_PER_BIN * self.max_coarse_bins)
                & ~self.categorical & (not self.is_sparse))

    def workspace(self, n_classes):
        """The kernels' scratch arrays for ``n_classes``, checked out for one ``with`` block:
        ``with ds.workspace(C) as work: kernel(..., work, ...)``.

        work is a ``kernels.state.Workspace`` (hist, mark, present, bucket_pos,
        bucket_code, in_node, counts): hist, mark, present, counts per bin and
        in_node per row are zero on entry, and every kernel that returns leaves
        them zeroed; bucket_pos, bucket_code (per stored entry, sparse input) are
        scratch.  The block holds the arrays
        alone (a nested or concurrent block gets others).  They are kept for a
        later block only if the block ends without an exception; else they are
        dropped (a kernel stopped midway may leave them set) and the next block
        allocates zeroed ones.
        """
        return _Checkout(self._workspaces, n_classes, self._new_workspace)

    def _new_workspace(self, n_classes):
        total = int(self.bin_offsets[-1])
        return Workspace(np.zeros((total, n_classes)), np.zeros(total, np.uint8),
                         np.zeros(total, np.int64),
                         np.empty(max(self.csr_codes.size, self.n_rows), np.int64),
                         np.empty_like(self.csr_codes), np.zeros(self.n_rows, np.uint8),
                         np.zeros(total, np.int64))

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_workspaces"] = {}
        state["_coarse"] = None
        state["_two_level"] = None
        return state

    def __repr__(self):
        kind = "sparse" if self.is_sparse else "dense"
        cat = f", {int(self.categorical.sum())} categorical" if self.categorical.any() else ""
        return f"Dataset({self.n_rows} x {self.n_features}, {kind}{cat}, {int(self.bin_offsets[-1])} bins)"
