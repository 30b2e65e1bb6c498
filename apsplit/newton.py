"""Newton (gradient / hessian) regression trees, grown by XGBoost's exact greedy rules.

    data = NewtonData(X)                      # binned once, reused every round
    tree = grow_newton_tree(data, grad, hess, NewtonParams(max_depth=6))
    tree.predict(X)                           # leaf values, learning rate included
    trees = grow_newton_forest(data, G, H, NewtonParams())   # (n, K) gradients: a round's
                                                             # K trees in one call

The criterion, the scan and their proofs are in ``kernels/newton_split.py``
(categorical features: ``kernels/newton_categorical.py``; dense features of few
values, from per-node histograms: ``kernels/newton_hist.py``),
the depthwise growth and gamma pruning in ``kernels/newton_grow.py``, routing
in ``kernels/newton_route.py``; ``method="quick"`` / ``"adaptive"`` (the same
trees, fewer assessments) in ``kernels/newton_search.py``, with the bounds on
the gain over unseen rows in ``kernels/newton_bounds.py``.  ``criterion=`` takes a user's child score by
name (``apsplit.register_criterion``, ``apsplit/criteria.py``); the rules below
are the built-in "newton"'s.

Against XGBoost (``tree_method="exact"``), the same rules: the gain
T(G)^2/(H+lambda) of each child minus the parent's (or the loss reduction at
the weight clipped by ``max_delta_step``), splits kept when the gain exceeds
1e-6, ``min_child_weight`` on both children, the missing values' side learnt
per split (both sides tried, and "present vs missing"), a lower feature index
winning ties, gamma by bottom-up pruning.  The differences, all documented
where they arise:

- XGBoost reads X and the gradients as float32; apsplit keeps float64.  Data
  whose values differ only beyond float32 precision are one value to XGBoost.
- XGBoost compares gains in float32, apsplit in float64 on a grid of 1e-10 of
  the node's gain scale (the first candidate of the highest cell wins,
  ``kernels.newton_split``): candidates whose gains differ by less than float32
  precision can be chosen differently.
- Thresholds: apsplit sends ``x <= threshold`` left (the midpoint of the two
  present values a split separates, apsplit's convention); XGBoost sends
  ``x < t`` left with t a float32.  ``left_value``/``right_value`` give the two
  values so that an exporter can choose t.
- Negative hessians are refused (XGBoost drops those rows silently).
- A child must hold a row with a positive hessian; XGBoost tests H > 0 on a
  sum that may carry a rounding residue (only matters with
  min_child_weight = 0 and rows of zero hessian).
- The rules are those of XGBoost's current source.  The release 3.2.0 departs
  from them in three corners: with max_delta_step and alpha both non-zero it
  scores a child without the L1 term 2 alpha |w|; with min_child_weight = 0 it
  admits a child of hessian sum 0; it gives a node with H < min_child_weight
  the weight 0 (only an unsplit root can be one).
"""

import math
import numbers
from dataclasses import dataclass, fields

import numpy as np
import scipy.sparse as sp

from . import validation as v
from .criteria import get_criterion
from .dataset import dense_matrix
from .kernels import newton_hist, newton_route, newton_search
from .kernels.newton_categorical import MAX_CATEGORY
from .kernels.newton_grow import NO_DRAW, ColumnDraw
from .kernels.newton_split import Columns, Params
from .parallel import check_threads, each_feature

__all__ = ["NewtonParams", "NewtonData", "NewtonTree", "grow_newton_tree", "grow_newton_forest",
           "METHODS", "WEIGHT_ORDERS"]

METHODS = ("exhaustive", "quick", "adaptive")
LEAF = -1

#: the weight-order keys of quick and adaptive (rows assessed in decreasing key)
WEIGHT_ORDERS = {
    "abs_grad": lambda g, h: np.abs(g),
    "hess": lambda g, h: h,
    "abs_grad_plus_hess": lambda g, h: np.abs(g) + h,
    "abs_grad_hess": lambda g, h: np.abs(g * h),   # LightGBM's GOSS ranks rows by it
}
DEFAULT_WEIGHT_ORDER = "abs_grad_plus_hess"   # measured: docs/gradient-boosting.md
#: NewtonData's default: features of few values present in at least this share of the rows
#: are searched from histograms (measured: docs/gradient-boosting.md)
HISTOGRAM_DENSITY = 0.5
COARSE_DENSITY = 0.5  # a coarse feature is present in at least this share of the rows


@dataclass(frozen=True)
class NewtonParams:
    """Growth parameters, with XGBoost's meanings and defaults.

    max_depth         depth of the tree (>= 1; XGBoost's exact method has no unlimited depth)
    learning_rate     eta: leaf values are stored multiplied by it
    reg_lambda        L2 regularisation of the leaf weights (>= 0)
    reg_alpha         L1 regularisation of the leaf weights (>= 0)
    gamma             min_split_loss: splits gaining less are pruned bottom-up after growth
    min_child_weight  least hessian sum of each child
    max_delta_step    bound on |leaf weight| (0: none)
    """

    max_depth: int = 6
    learning_rate: float = 0.3
    reg_lambda: float = 1.0
    reg_alpha: float = 0.0
    gamma: float = 0.0
    min_child_weight: float = 1.0
    max_delta_step: float = 0.0

    def __post_init__(self):
        if isinstance(self.max_depth, bool) or not isinstance(self.max_depth, numbers.Integral):
            raise TypeError(f"max_depth must be an integer, got {self.max_depth!r}")
        if self.max_depth < 1:
            raise ValueError(f"max_depth must be at least 1, got {self.max_depth}")
        object.__setattr__(self, "max_depth", int(self.max_depth))
        for f in fields(self)[1:]:
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{f.name} must be a real number, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{f.name} must be a finite non-negative number, got {value!r}")
            object.__setattr__(self, f.name, float(value))

    def kernel_params(self, n_rows, n_threads=1):
        """The ``newton_split.Params`` of a tree on ``n_rows`` rows, its column scans on
        ``n_threads`` threads."""
        capacity = 2 * n_rows - 1
        if self.max_depth < 40:
            capacity = min(capacity, 2 ** (self.max_depth + 1) - 1)
        return Params(self.max_depth, capacity, self.learning_rate, self.reg_lambda,
                      self.reg_alpha, self.gamma, self.min_child_weight, self.max_delta_step,
                      n_threads)


def _refuse_inf(values, what="X"):
    if values.size and np.isinf(values).any():
        raise ValueError(f"{what} contains inf; Newton trees take finite values, NaN for missing")


def _refuse_empty(n, K):
    if n == 0 or K == 0:
        raise ValueError(f"X is empty (shape {(n, K)})")


def categorical_mask(categorical, n_features):
    """The boolean mask of the categorical features: ``categorical`` None (none), feature
    indices, or a boolean mask of length ``n_features``."""
    mask = np.zeros(n_features, bool)
    if categorical is None:
        return mask
    spec = np.asarray(categorical)
    if spec.ndim != 1:
        raise ValueError(f"categorical must be a list of feature indices or a boolean mask, "
                         f"got shape {spec.shape}")
    if spec.dtype == bool:
        if spec.shape[0] != n_features:
            raise ValueError(f"the categorical mask has {spec.shape[0]} entries, X "
                             f"{n_features} features")
        return spec.copy()
    if spec.size and not np.issubdtype(spec.dtype, np.integer):
        raise TypeError(f"categorical must hold feature indices (integers) or booleans, got "
                        f"{categorical!r}")
    if np.any((spec < 0) | (spec >= n_features)):
        raise ValueError(f"categorical indices {sorted(set(spec.tolist()))} are outside the "
                         f"{n_features} features")
    mask[spec] = True
    return mask


def check_codes(values, feature):
    """Refuse a categorical feature's present values that are not integer codes in
    [0, 2**24) (XGBoost's range; pandas' categorical codes, NaN missing)."""
    bad = invalid_codes(values)
    if bad.size:
        raise ValueError(f"categorical feature {feature} holds the value "
                         f"{float(bad[0])!r}: categories must be integer codes in "
                         f"[0, 2**24) (pandas' .cat.codes; NaN for missing)")


def invalid_codes(values):
    """The entries of the float array ``values`` that are no category code (an integer in
    [0, 2**24)): negative, larger, fractional or NaN."""
    return values[(values < 0) | (values > MAX_CATEGORY) | (values != np.floor(values))]


def _check_density(density):
    """``NewtonData``'s ``histogram_density``: None or a number in [0, 1]."""
    if density is None:
        return None
    if isinstance(density, bool) or not isinstance(density, numbers.Real):
        raise TypeError(f"histogram_density must be a number in [0, 1] or None, got {density!r}")
    if not 0.0 <= density <= 1.0:
        raise ValueError(f"histogram_density must be in [0, 1] or None, got {density!r}")
    return float(density)


def _csr(X):
    """X as CSR float64 with sorted indices (stored entries only; stored zeros kept)."""
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X.sum_duplicates()
    return X


def _sorted_columns(present, n_features, n_values, n_threads):
    """(rows, values, counts): every feature's present entries, feature after feature, sorted
    by value, ties by row (``present(k)``: feature k's present rows ascending and their
    values; a stable sort keeps ties in row order), on up to ``n_threads`` threads
    (``parallel.each_feature``: the result does not depend on them)."""
    columns = [None] * n_features

    def sort(k):
        rows, values = present(k)
        order = np.argsort(values, kind="stable")
        columns[k] = rows[order], values[order]

    each_feature(sort, n_features, n_values, n_threads)
    counts = np.array([rows.size for rows, _ in columns], np.int64)
    rows = np.concatenate([rows for rows, _ in columns] + [np.empty(0, np.int64)])
    values = np.concatenate([values for _, values in columns] + [np.empty(0)])
    return rows, values, counts


class NewtonData:
    """X prepared once for Newton trees and reused every round.

    Parameters
    ----------
    X : array-like of shape (n, K), or scipy.sparse matrix
        Dense: NaN is a missing value.  Sparse: an absent entry is missing, as
        XGBoost's DMatrix reads it (a stored NaN too; a stored zero is the value 0).
        inf is refused.
    categorical : None, feature indices or a boolean mask
        Categorical features: their present values are category codes, integers in
        [0, 2**24), split by sets of codes (``kernels.newton_categorical``; a set goes
        right, every other value, unseen codes and missing values left, as in XGBoost).
        Other values are refused.

    histogram_density : float in [0, 1], or None
        A numeric feature with at most 255 distinct present values, present in at
        least this share of the rows, is searched from per-node histograms
        (``kernels.newton_hist``: one bin per distinct value, the same candidates and
        trees as the column scan, faster on dense columns of few values); None: no
        feature is (every feature scans its sorted column), 0.0: every such feature is.

    n_threads : int, threads that sort the columns (-1: every core; the result does not
        depend on them)

    indicators : bool
        True: a numeric column feature whose present entries hold one float (a sparse
        one-hot or binary column) is an indicator feature, whose per-node sums a level
        adds from the rows of the smaller children and derives for their siblings
        (``kernels.newton_indicator``: the same trees as the column scan, faster);
        False: it scans its column.

    coarse_bins : int in [1, 255], or None
        A numeric feature that is no histogram or indicator feature, with more than
        this many distinct present values and present in at least half the rows
        (``COARSE_DENSITY``), also gets at most this many coarse bins of consecutive
        values (``coarse_codes``, n_rows x F_coarse uint8), and a level of few nodes
        searches it from per-node coarse histograms, refining by its sorted column only
        the bins where a bound says the chosen split can lie (``kernels.newton_coarse``:
        the same trees as the column scan, faster on dense continuous columns); None: it
        always scans its column.

    Each feature's present entries are sorted by value once (row ids in value
    order, ties by row), so that a level of a tree costs one pass over each
    column; sparse input keeps only its stored entries.  The histogram features'
    rank codes are held row-major (``hist_codes``: n_rows x F_hist uint8, the missing
    code after the feature's values).

    Attributes: n_rows, n_features, is_sparse, n_present (present entries per
    feature), categorical (boolean mask).  quick and adaptive also need every row's value
    rank per feature (``rank_codes``: n_features x n_rows int32, built at their first tree
    and kept).
    """

    def __init__(self, X, categorical=None, histogram_density=HISTOGRAM_DENSITY, n_threads=1,
                 indicators=True, coarse_bins=newton_hist.MAX_BINS):
        n_threads = check_threads(n_threads)
        if not isinstance(indicators, (bool, np.bool_)):
            raise TypeError(f"indicators must be True or False, got {indicators!r}")
        if coarse_bins is not None and not (
                isinstance(coarse_bins, (int, np.integer)) and not isinstance(coarse_bins, bool)
                and 1 <= coarse_bins <= newton_hist.MAX_BINS):
            raise ValueError(f"coarse_bins must be None or an integer in [1, "
                             f"{newton_hist.MAX_BINS}], got {coarse_bins!r}")
        if sp.issparse(X):
            csc = sp.csc_matrix(X, dtype=np.float64, copy=True)
            csc.sum_duplicates()  # row indices ascending within each column
            n, K = csc.shape
            _refuse_empty(n, K)
            _refuse_inf(csc.data)

            def present(k):
                lo, hi = csc.indptr[k], csc.indptr[k + 1]
                kept = ~np.isnan(csc.data[lo:hi])
                return csc.indices[lo:hi][kept].astype(np.int64), csc.data[lo:hi][kept]
            stored = csc.nnz
            self.is_sparse = True
        else:
            X = dense_matrix(X)
            n, K = X.shape
            _refuse_empty(n, K)
            _refuse_inf(X)

            def present(k):
                rows = np.flatnonzero(~np.isnan(X[:, k]))
                return rows, X[rows, k]
            stored = X.size
            self.is_sparse = False
        row, val, counts = _sorted_columns(present, K, stored, n_threads)
        self.n_rows, self.n_features = int(n), int(K)
        self.indptr = np.zeros(K + 1, np.int64)
        np.cumsum(counts, out=self.indptr[1:])
        self.rows = row.astype(np.int32 if n < 2 ** 31 else np.int64)
        self.values = val
        self.n_present = counts
        lo, hi = self.indptr[:-1], self.indptr[1:]
        nonempty = hi > lo
        constant = np.zeros(K, bool)
        constant[nonempty] = self.values[lo[nonempty]] == self.values[hi[nonempty] - 1]
        # XGBoost's forward pass (missing values right) runs on a column with a missing
        # value somewhere and two distinct values (ColMaker's NeedForwardSearch)
        self.forward = (self.n_present < n) & ~constant
        self.categorical = categorical_mask(categorical, K)
        for k in np.flatnonzero(self.categorical):
            check_codes(self.values[lo[k]:hi[k]], k)
        # 0.0 and -0.0 are one value to the scan but two floats: a feature holding both keeps
        # the column scan, which reports the float of the rows it meets
        mixed_zeros = self._mixed_zeros()
        density = _check_density(histogram_density)
        self._histogram_features(density, mixed_zeros)
        self._indicator_features(constant & ~mixed_zeros, indicators)
        self._coarse_features(coarse_bins, mixed_zeros)
        self._columns = self._kernel_columns()
        self._ranks = None

    def _kernel_columns(self):
        return Columns(self.indptr, self.rows, self.values, self.forward, self.categorical,
                       self.hist_index, self.hist_codes, self.hist_start, self.hist_values,
                       self.indicator_index, self.indicator_value, self.indicator_indptr,
                       self.indicator_entries, self.coarse_index, self.coarse_codes,
                       self.coarse_start, self.coarse_entry)

    def _entry_features(self):
        """The feature of every stored entry (the columns' layout)."""
        return np.repeat(np.arange(self.n_features), self.n_present)

    def _distinct(self):
        """(new, rank, col): per stored entry, whether its value differs from the previous
        entry of its feature, its value's rank among the feature's distinct values, its
        feature."""
        K = self.n_features
        starts = self.indptr[:-1][self.n_present > 0]
        new = np.ones(self.values.size, bool)
        new[1:] = self.values[1:] != self.values[:-1]
        new[starts] = True
        distinct = np.cumsum(new) - 1
        col = self._entry_features()
        first = np.zeros(K, np.int64)
        first[self.n_present > 0] = distinct[starts]
        return new, distinct - first[col], col

    def _histogram_features(self, density, mixed_zeros):
        """Choose the histogram features (``histogram_density``) and build their codes:
        ``hist_index`` (feature -> column of ``hist_codes``, -1: none), ``hist_codes``,
        ``hist_start``/``hist_values`` (each one's distinct values ascending)."""
        K, n = self.n_features, self.n_rows
        new, rank, col = self._distinct()
        n_distinct = np.bincount(col[new], minlength=K)
        chosen = np.zeros(K, bool) if density is None else (
            ~self.categorical & ~mixed_zeros & (n_distinct <= newton_hist.MAX_BINS)
            & (self.n_present >= density * n))
        features = np.flatnonzero(chosen)
        self.hist_index = np.full(K, -1, np.int64)
        self.hist_index[features] = np.arange(features.size)
        self.hist_start = np.zeros(features.size + 1, np.int64)
        np.cumsum(n_distinct[features], out=self.hist_start[1:])
        self.hist_values = np.concatenate(
            [self.values[self.indptr[f]:self.indptr[f + 1]][new[self.indptr[f]:self.indptr[f + 1]]]
             for f in features] + [np.empty(0)])
        self.hist_codes = np.empty((n, features.size), np.uint8)
        self.hist_codes[:] = n_distinct[features]  # the missing code, after the values
        for j, f in enumerate(features):
            lo, hi = self.indptr[f], self.indptr[f + 1]
            self.hist_codes[self.rows[lo:hi], j] = rank[lo:hi]

    def _coarse_features(self, n_bins, mixed_zeros):
        """Choose the coarse features (``coarse_bins``) and bin them: ``coarse_index`` (feature ->
        column of ``coarse_codes``, -1: none), ``coarse_codes`` (bin of every row, the
        missing code after the feature's bins), ``coarse_start`` (column j's bins are
        coarse_start[j]:coarse_start[j + 1]) and ``coarse_entry`` (each bin's first entry
        in ``rows``/``values``; a bin's entries run to the next bin's first, the last
        bin's to the column's end).  A bin holds whole values, the next bin starting at
        the first value at or past k / n_bins of the column's entries."""
        K, n = self.n_features, self.n_rows
        new, rank, col = self._distinct()
        n_distinct = np.bincount(col[new], minlength=K)
        chosen = np.zeros(K, bool) if n_bins is None else (
            ~self.categorical & ~mixed_zeros & (self.hist_index < 0)
            & (self.indicator_index < 0) & (n_distinct > n_bins)
            & (self.n_present >= COARSE_DENSITY * n))
        features = np.flatnonzero(chosen)
        self.coarse_index = np.full(K, -1, np.int64)
        self.coarse_index[features] = np.arange(features.size)
        self.coarse_codes = np.empty((n, features.size), np.uint8)
        starts, entries = [np.zeros(1, np.int64)], []
        for j, f in enumerate(features):
            lo, hi = self.indptr[f], self.indptr[f + 1]
            value_start = np.flatnonzero(new[lo:hi])  # each distinct value's first entry
            targets = np.arange(1, n_bins) * (hi - lo) // n_bins
            first = np.unique(np.concatenate(
                [[0], value_start[np.minimum(np.searchsorted(value_start, targets),
                                             value_start.size - 1)]]))
            self.coarse_codes[:, j] = first.size  # the missing code, after the bins
            code = np.searchsorted(first, np.arange(hi - lo), side="right") - 1
            self.coarse_codes[self.rows[lo:hi], j] = code
            starts.append(np.array([first.size]))
            entries.append(lo + first)
        self.coarse_start = np.cumsum(np.concatenate(starts)).astype(np.int64)
        self.coarse_entry = np.concatenate(entries + [np.zeros(0, np.int64)]).astype(np.int64)

    def _mixed_zeros(self):
        """Per feature: it holds both 0.0 and -0.0."""
        K = self.n_features
        col = self._entry_features()
        zero = self.values == 0.0
        signed = np.bincount(col[zero], weights=np.signbit(self.values[zero]), minlength=K)
        return (signed > 0) & (signed < np.bincount(col[zero], minlength=K))

    def _indicator_features(self, one_value, enabled):
        """Choose the indicator features (``indicators``: the numeric column features whose
        present entries hold one float, ``one_value``) and copy their entries row-major:
        ``indicator_index`` (feature -> j, -1: none), ``indicator_value`` (per j),
        ``indicator_indptr``/``indicator_entries`` (per row, its indicator features' j,
        ascending)."""
        chosen = (one_value & ~self.categorical & (self.hist_index < 0)
                  if enabled else np.zeros(self.n_features, bool))
        features = np.flatnonzero(chosen)
        self.indicator_index = np.full(self.n_features, -1, np.int64)
        self.indicator_index[features] = np.arange(features.size)
        self.indicator_value = self.values[self.indptr[features]]
        entry_feature = self._entry_features()
        kept = chosen[entry_feature]
        rows = self.rows[kept]
        local = self.indicator_index[entry_feature[kept]].astype(np.int32)
        order = np.argsort(rows, kind="stable")  # by row, then j
        self.indicator_entries = local[order]
        self.indicator_indptr = np.zeros(self.n_rows + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=self.n_rows), out=self.indicator_indptr[1:])

    @property
    def indicator_features(self):
        """The indicator features (``indicators``), ascending."""
        return np.flatnonzero(self.indicator_index >= 0)

    @property
    def coarse_features(self):
        """The features with coarse bins (``coarse``), ascending."""
        return np.flatnonzero(self.coarse_index >= 0)

    @property
    def histogram_features(self):
        """The features searched from histograms (``histogram_density``), ascending."""
        return np.flatnonzero(self.hist_index >= 0)

    def rank_codes(self):
        """(codes, value_indptr, values) of quick and adaptive, built at the first call and kept:
        ``codes[f, row]`` the rank of the row's value among feature f's distinct present values
        (int32, -1 where missing), those values ascending in
        ``values[value_indptr[f]:value_indptr[f + 1]]``.  n_features x n_rows int32."""
        if self._ranks is None:
            K, n = self.n_features, self.n_rows
            new, rank, col = self._distinct()
            codes = np.full((K, n), -1, np.int32)
            codes[col, self.rows] = rank
            value_indptr = np.zeros(K + 1, np.int64)
            np.cumsum(np.bincount(col[new], minlength=K), out=value_indptr[1:])
            self._ranks = (codes, value_indptr, self.values[new].copy())
        return self._ranks

    @property
    def shape(self):
        return (self.n_rows, self.n_features)

    def columns(self):
        """The kernels' view (``newton_split.Columns``)."""
        return self._columns

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_columns"]
        state["_ranks"] = None
        return state

    def __setstate__(self, state):
        self._ranks = None
        self.__dict__.update(state)
        self._columns = self._kernel_columns()

    def __repr__(self):
        kind = "sparse" if self.is_sparse else "dense"
        cats = int(self.categorical.sum())
        return (f"NewtonData({self.n_rows} x {self.n_features}, {kind}, "
                f"{int(self.indptr[-1])} present entries"
                + (f", {cats} categorical)" if cats else ")"))


class NewtonTree:
    """A Newton regression tree as flat parallel arrays (node 0 is the root; a leaf has
    feature == -1).  Nodes are numbered as XGBoost numbers them: level by level, a
    node's children consecutive, left first (renumbered in that order after pruning).

    feature, threshold    the split: ``x <= threshold`` goes left (apsplit's convention)
    category_start, category_count, category_codes
                          a categorical split (start >= 0) sends the codes
                          ``category_codes[start:start + count]`` (sorted) right and every
                          other value left: other codes, unseen ones, negative ones
                          (XGBoost's rule; a value is truncated to an integer code);
                          its threshold, left_value and right_value are NaN, default_left
                          True in grown trees (``categories_right`` lists the sets per node;
                          an imported tree's default_left is its library's)
    truncate_codes        False (XGBoost's codes: int(x) of x >= 0) or True (a tree read
                          from LightGBM: int(x) truncated toward zero, so a value in (-1, 0)
                          is the code 0; ``kernels.newton_route``)
    default_left          a missing value (NaN, or an absent sparse entry) goes left
    left_value, right_value
                          the two consecutive distinct present values of the node's rows
                          that the split separates: left_value <= threshold < right_value.
                          For a split of every present value against the missing ones,
                          right_value = +inf (present left, missing right) or
                          left_value = -inf (present right, missing left), and the
                          threshold is XGBoost's: left_value + |left_value| + 1e-6, or
                          right_value - |right_value| - 1e-6.  An XGBoost threshold t
                          (``x < t`` left, float32) is any float32 in
                          (float32(left_value), float32(right_value)]
                          (``xgboost_split_conditions``).
    children_left, children_right
                          child ids (-1 at leaves)
    value                 learning_rate * base_weight at every node: at a leaf, its output
    base_weight           -T(G)/(H + lambda), clipped by max_delta_step, 0 if H <= 0
                          (XGBoost's base_weights)
    gain                  loss change of every split (0 at leaves; XGBoost's loss_changes)
    cover                 hessian sum H of every node (XGBoost's sum_hessian)
    sum_grad              gradient sum G of every node
    n_node_samples        rows reaching the node
    parent                parent id (-1 at the root; XGBoost's parents, 2147483647 there)
    node_features         candidate features of the node's split search (0 at the nodes
                          not searched: at max_depth, or unknown for a tree read from a file)
    input_dtype           "float32" (grown on X rounded to float32; the Booster rounds X
                          for it) or "float64" (a tree read from LightGBM, which compares in
                          double)
    row_leaf              leaf of every row of the NewtonData the tree was grown on
                          (-1 for rows outside ``rows``): a boosting round need not route
                          its own rows again
    assessments           (an attribute of grown trees) the (feature, row) pairs the split
                          searches looked at (``grow_newton_tree``)
    """

    #: the values the thresholds are meant for: "float32" (X rounded to float32 first, as
    #: XGBoost and ``train`` see it) or "float64" (compared as given: trees read from
    #: LightGBM, whose thresholds are doubles); ``predict`` here compares X as given
    input_dtype = "float32"
    #: a categorical split's code of x: False int(x) for x >= 0 (XGBoost), True int(x)
    #: for x > -1 (LightGBM's cast toward zero)
    truncate_codes = False

    _ARRAYS = ("feature", "threshold", "left_value", "right_value", "default_left",
               "children_left", "children_right", "base_weight", "gain", "cover", "sum_grad",
               "n_node_samples", "parent", "node_features", "row_leaf", "category_start",
               "category_count", "category_codes")

    def __init__(self, kernel_tree, n_features, learning_rate):
        for name in self._ARRAYS:
            setattr(self, name, getattr(kernel_tree, name))
        self.n_features = int(n_features)
        self.learning_rate = float(learning_rate)
        self.value = self.learning_rate * self.base_weight

    @classmethod
    def from_arrays(cls, feature, threshold, default_left, children_left, children_right,
                    value, n_features, *, learning_rate=1.0, base_weight=None, gain=None,
                    cover=None, sum_grad=None, n_node_samples=None, left_value=None,
                    right_value=None, input_dtype="float32", categories_right=None,
                    truncate_codes=False):
        """A tree from its node arrays (an imported model's, say; ``adapters.model_import``).

        The routing arrays (``feature`` -1 at leaves, ``threshold`` with ``x <= threshold``
        left, ``default_left``, the children) and ``value`` (what every node outputs, the
        learning rate included: a leaf's output) are required; node 0 must be the root and
        every node reachable from it once.  The statistics a grower records default to
        what can be derived: ``base_weight`` = value / learning_rate, ``gain`` 0,
        ``cover``, ``sum_grad`` NaN (unknown), ``n_node_samples`` 0, ``left_value`` =
        ``right_value`` = ``threshold`` (no training values known); ``parent`` is
        derived from the children, ``row_leaf`` is empty (no training rows).
        ``input_dtype``: "float32" or "float64", what the thresholds are compared with.
        ``categories_right``: per node None (a numeric split or a leaf) or the codes a
        categorical split sends right (integers in [0, 2**24); its threshold is ignored,
        a missing value goes the ``default_left`` way); ``truncate_codes``: how such a
        split reads a value (the attribute's doc).
        """
        if input_dtype not in ("float32", "float64"):
            raise ValueError(f"input_dtype must be 'float32' or 'float64', got {input_dtype!r}")
        feature = np.asarray(feature, dtype=np.int64).copy()
        n = feature.shape[0]
        if n == 0:
            raise ValueError("a tree needs at least one node")

        def arr(a, dtype, fill):
            if a is None:
                return np.full(n, fill, dtype)
            out = np.array(a, dtype=dtype, copy=True).reshape(-1)
            if out.shape[0] != n:
                raise ValueError(f"a node array has {out.shape[0]} entries, the tree {n} nodes")
            return out

        children_left = arr(children_left, np.int64, LEAF)
        children_right = arr(children_right, np.int64, LEAF)
        threshold = arr(threshold, np.float64, np.nan)
        split = feature != LEAF
        if np.any(split & ((feature < 0) | (feature >= n_features))):
            bad = int(np.flatnonzero(split & ((feature < 0) | (feature >= n_features)))[0])
            raise ValueError(f"node {bad} splits on feature {int(feature[bad])}, outside the "
                             f"{n_features} features")
        parent = np.full(n, -1, np.int64)
        seen = np.zeros(n, bool)
        seen[0] = True
        for node in range(n):
            if not split[node]:
                children_left[node] = children_right[node] = LEAF
                continue
            for c in (children_left[node], children_right[node]):
                if not 0 < c < n or seen[c]:
                    raise ValueError(f"node {node} has the child {int(c)}: the children must be "
                                     f"other nodes of the tree, each reached once")
                seen[c] = True
                parent[c] = node
        if not seen.all():
            raise ValueError(f"node {int(np.flatnonzero(~seen)[0])} is not reached from the root")
        tree = cls.__new__(cls)
        tree.feature = feature
        tree.threshold = threshold
        tree.default_left = arr(default_left, np.bool_, False) & split
        tree.children_left, tree.children_right = children_left, children_right
        tree.value = arr(value, np.float64, 0.0)
        tree.learning_rate = float(learning_rate)
        tree.base_weight = (arr(base_weight, np.float64, 0.0) if base_weight is not None
                            else tree.value / (tree.learning_rate or 1.0))
        tree.gain = arr(gain, np.float64, 0.0) * split
        tree.cover = arr(cover, np.float64, np.nan)
        tree.sum_grad = arr(sum_grad, np.float64, np.nan)
        tree.n_node_samples = arr(n_node_samples, np.int64, 0)
        tree.left_value = arr(left_value if left_value is not None else threshold,
                              np.float64, np.nan)
        tree.right_value = arr(right_value if right_value is not None else threshold,
                               np.float64, np.nan)
        tree.parent = parent
        tree.node_features = np.zeros(n, np.int64)
        tree.row_leaf = np.empty(0, np.int64)
        tree.n_features = int(n_features)
        tree.category_start, tree.category_count, tree.category_codes = \
            _category_arrays(categories_right, split)
        if truncate_codes:
            tree.truncate_codes = True
        if input_dtype != "float32":
            tree.input_dtype = input_dtype
        return tree

    @property
    def node_count(self):
        return int(self.feature.shape[0])

    @property
    def is_leaf(self):
        return self.feature == LEAF

    @property
    def max_depth(self):
        depth = np.zeros(self.node_count, np.int64)
        for node in range(self.node_count):
            if self.feature[node] != LEAF:
                depth[self.children_left[node]] = depth[self.children_right[node]] = depth[node] + 1
        return int(depth.max())

    @property
    def categories_right(self):
        """Per node: the sorted codes a categorical split sends right, or None."""
        return [self.category_codes[start:start + count] if start >= 0 else None
                for start, count in zip(self.category_start, self.category_count)]

    def _splits(self):
        return newton_route.Splits(self.feature, self.threshold, self.default_left,
                                   self.children_left, self.children_right,
                                   self.category_start, self.category_count, self.category_codes,
                                   bool(self.truncate_codes))

    def apply(self, X):
        """Leaf id of every row of X: a dense array (NaN = missing) or a scipy.sparse
        matrix (absent entries and stored NaN = missing)."""
        if isinstance(X, NewtonData):
            raise TypeError("apply takes X itself (dense or scipy.sparse), not a NewtonData; "
                            "the training rows' leaves are tree.row_leaf")
        if sp.issparse(X):
            X = _csr(X)
            self._check_width(X.shape)
            _refuse_inf(X.data)
            return newton_route.apply_csr(self._splits(), X.indptr.astype(np.int64),
                                          X.indices.astype(np.int64), X.data)
        X = dense_matrix(X)
        self._check_width(X.shape)
        _refuse_inf(X)
        return newton_route.apply_dense(self._splits(), X)

    def _check_width(self, shape):
        if shape[1] != self.n_features:
            raise ValueError(f"X has {shape[1]} features, the tree was grown on {self.n_features}")

    def predict(self, X):
        """The leaf value (learning rate included) of every row of X, shape (n,)."""
        return self.value[self.apply(X)]

    def xgboost_leaf_values(self):
        """Every node's output as XGBoost stores and adds it: float32(base_weight) *
        float32(learning_rate), computed in float32 (XGBoost's ``SetLeaf``)."""
        return (np.asarray(self.base_weight, dtype=np.float32)
                * np.float32(self.learning_rate)).astype(np.float32)

    def xgboost_split_conditions(self):
        """XGBoost's float32 threshold t of every split (``x < t`` goes left; NaN at leaves).

        XGBoost's own rule: t = (a + b) * 0.5 in float32 for the float32 values a < b
        the split separates, b if that rounds down to a; a - (|a| + 1e-6) below the
        least present value, b + (|b| + 1e-6) above the largest.  (When (a + b) * 0.5
        rounds to b, XGBoost's forward pass takes a, which sends a right; this returns b,
        which separates them; only adjacent float32 values meet it.)  Raises ValueError
        if two values the split separates are one float32.
        """
        return _conditions(self.feature, self.category_start, self.left_value,
                           self.right_value)

    def __repr__(self):
        return f"NewtonTree({self.node_count} nodes, depth {self.max_depth})"


def _category_arrays(categories_right, split):
    """(category_start, category_count, category_codes) of ``NewtonTree.from_arrays``'s
    per-node sets (None: no categorical split), each checked and sorted."""
    n = split.shape[0]
    start = np.full(n, -1, np.int64)
    count = np.zeros(n, np.int64)
    if categories_right is None:
        return start, count, np.empty(0, np.int64)
    if len(categories_right) != n:
        raise ValueError(f"categories_right has {len(categories_right)} entries, the tree "
                         f"{n} nodes")
    codes = []
    for node, cats in enumerate(categories_right):
        if cats is None:
            continue
        if not split[node]:
            raise ValueError(f"node {node} is a leaf but has categories {list(cats)}")
        values = np.unique(np.asarray(cats, dtype=np.float64).reshape(-1))
        bad = invalid_codes(values)
        if bad.size:
            raise ValueError(f"node {node} sends the category {float(bad[0])!r} right: "
                             f"categories must be integers in [0, 2**24)")
        start[node], count[node] = sum(len(c) for c in codes), values.size
        codes.append(values.astype(np.int64))
    return start, count, np.concatenate(codes) if codes else np.empty(0, np.int64)


def xgboost_threshold(left_value, right_value):
    """XGBoost's float32 threshold (``x < t`` goes left) of a split between two consecutive
    present values (``NewtonTree.left_value``/``right_value``, +-inf for a split of every
    present value against the missing ones); see ``NewtonTree.xgboost_split_conditions``."""
    return _conditions(np.zeros(1, np.int64), np.full(1, -1, np.int64),
                       np.array([left_value], np.float64), np.array([right_value], np.float64))[0]


def _conditions(feature, category_start, left_value, right_value):
    """``newton_route.xgboost_conditions`` of one tree's arrays; a ValueError for a split
    whose two values are one float32."""
    t, one_float = newton_route.xgboost_conditions(
        np.asarray(feature, np.int64), np.asarray(category_start, np.int64),
        np.asarray(left_value, np.float64), np.asarray(right_value, np.float64))
    if one_float >= 0:
        raise ValueError(f"the values {left_value[one_float]!r} and "
                         f"{right_value[one_float]!r} are one float32; no XGBoost threshold "
                         f"separates them")
    return t


def column_draw(n_candidates, colsample_bylevel, colsample_bynode, seed):
    """The kernel's ``ColumnDraw`` of a tree with ``n_candidates`` features: per level
    ``colsample_count(bylevel, n_candidates)``, per node ``colsample_count(bynode, that)``."""
    bylevel = v.check_fraction(colsample_bylevel, "colsample_bylevel")
    bynode = v.check_fraction(colsample_bynode, "colsample_bynode")
    _check_seed(seed)
    if bylevel == 1.0 and bynode == 1.0:
        return NO_DRAW
    per_level = colsample_count(bylevel, n_candidates)
    return ColumnDraw(per_level, colsample_count(bynode, per_level), int(seed))


def _check_seed(seed, what="seed"):
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) \
            or not 0 <= seed < 2 ** 63:
        raise ValueError(f"{what} must be an integer in [0, 2**63), got {seed!r}")
    return int(seed)


def colsample_count(fraction, n_features):
    """XGBoost's number of sampled features: max(1, int(fraction * n)), computed in
    float32 as its ``ColumnSampler::ColSample``."""
    return max(1, int(np.float32(fraction) * np.float32(n_features)))


def _check_gradient(values, what, n_rows, ndim=1, non_negative=False):
    """``values`` as a float64 array of ``ndim`` dimensions and ``n_rows`` rows, finite (and
    >= 0 if ``non_negative``); a TypeError or ValueError naming the problem."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} must be numeric: {exc}") from None
    if arr.ndim != ndim:
        shape = "1-dimensional (one value per row)" if ndim == 1 else \
            "2-dimensional (one row per row of the data, one column per tree)"
        raise ValueError(f"{what} must be {shape}, got shape {arr.shape}")
    if arr.shape[0] != n_rows:
        unit = "entries" if ndim == 1 else "rows"
        raise ValueError(f"{what} has {arr.shape[0]} {unit} but the data has {n_rows} rows")
    if not np.all(np.isfinite(arr)):
        bad = "NaN" if np.isnan(arr).any() else "inf"
        raise ValueError(f"{what} contains {bad}")
    if non_negative and np.any(arr < 0):
        row = int(np.argwhere(arr < 0)[0][0])
        raise ValueError(f"{what} has negative entries (row {row}); Newton trees need "
                         f"hessians >= 0 (XGBoost would drop those rows)")
    return np.ascontiguousarray(arr)


def _check_growth(data, params, crit, rows, features):
    """(rows, features), checked and sorted, after the checks every Newton grower makes."""
    if not isinstance(data, NewtonData):
        raise TypeError(f"data must be an apsplit.newton.NewtonData, got {type(data).__name__}; "
                        f"wrap X as NewtonData(X)")
    if not isinstance(params, NewtonParams):
        raise TypeError(f"params must be a NewtonParams, got {type(params).__name__}")
    if data.categorical.any() and not crit.built_in:
        raise ValueError(f"criterion {crit.name!r} cannot split the categorical features "
                         f"{np.flatnonzero(data.categorical).tolist()}: the exact search of "
                         f"categorical splits uses the convexity of the built-in 'newton' "
                         f"score (kernels.newton_categorical)")
    # check_indices(None) is already sorted: sorting it again was 3% of a boosting fit
    rows = v.check_indices(rows, data.n_rows, "rows") if rows is None else \
        np.sort(v.check_indices(rows, data.n_rows, "rows"))
    features = v.check_indices(features, data.n_features, "features") if features is None \
        else np.sort(v.check_indices(features, data.n_features, "features"))
    return rows, features


def _exhaustive_tree(kernel_tree, data, params):
    """The ``NewtonTree`` of an exhaustive grower's tree, with its ``assessments``."""
    tree = NewtonTree(kernel_tree, data.n_features, params.learning_rate)
    searched = tree.node_features > 0
    tree.assessments = int(np.dot(tree.n_node_samples[searched],
                                  tree.node_features[searched]))
    return tree


def grow_newton_tree(data, grad, hess, params, rows=None, features=None, method="exhaustive",
                     criterion="newton", colsample_bylevel=1.0, colsample_bynode=1.0, seed=0,
                     weight_order=DEFAULT_WEIGHT_ORDER, n_threads=1):
    """One regression tree on gradient/hessian statistics, by XGBoost's exact greedy rules.

    Parameters
    ----------
    data : NewtonData
    grad, hess : arrays of shape (data.n_rows,)
        Finite; hess >= 0 (a negative hessian is refused).
    params : NewtonParams
    rows : int indices of the rows to grow on (default all); any order, no duplicates
    features : int indices of the candidate features (default all).  Ties go to the
        lower feature index, as in XGBoost, whatever their order here.
    method : "exhaustive", "quick" or "adaptive": the same tree, node for node (split,
        values, default side, gain), with fewer (feature, row) assessments for the last
        two: each node's rows are assessed in weight order, a feature is scanned only
        where bounds on its gain over the unseen rows say it can still be chosen
        (``kernels/newton_search.py``, bounds and proofs in ``kernels/newton_bounds.py``)
    criterion : a name of ``apsplit.available_criteria()``: "newton" (XGBoost's gain) or
        one registered with ``apsplit.register_criterion`` (``apsplit.criteria``); quick
        and adaptive take a registered one only if it was given ``bounds``
    colsample_bylevel, colsample_bynode : fractions in (0, 1], XGBoost's: every level
        searches max(1, floor(bylevel * F)) of the F candidate ``features``, drawn
        uniformly without replacement, and every node of it max(1, floor(bynode * L))
        of the level's L, drawn for each node (``kernels.newton_grow.ColumnDraw``)
    seed : non-negative integer below 2**63 seeding those draws
    weight_order : the key by which quick and adaptive order a node's rows, decreasing:
        one of ``WEIGHT_ORDERS`` ("abs_grad" |g|, "hess" h, "abs_grad_plus_hess" |g| + h,
        the default, the fewest assessments measured, "abs_grad_hess" |g h| as GOSS ranks;
        docs/gradient-boosting.md); ignored by exhaustive
    n_threads : threads of exhaustive's column scans (-1: every core; at most numba's
        thread count); the tree is the same, bit for bit, for any count; quick and
        adaptive run on one

    The tree's ``assessments``: the (feature, row) pairs its split searches looked at
    (exhaustive: rows x candidate features of every searched node of the returned tree;
    quick and adaptive count every searched node, gamma-pruned ones included).
    The tree is grown depthwise to ``params.max_depth``; a node is a leaf when no
    admissible split gains more than 1e-6; gamma is applied afterwards by pruning.
    A registered criterion's grower is compiled at its first tree in the process.
    """
    crit = get_criterion(criterion)
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"Newton trees take method in {METHODS}; got method={method!r}")
    if method != "exhaustive" and crit.bounds is None:
        raise ValueError(f"method={method!r} cannot use the criterion {criterion!r}: quick and "
                         f"adaptive prune with bounds on the criterion; register it with "
                         f"bounds= (apsplit.register_criterion) or use method='exhaustive'")
    if not isinstance(weight_order, str) or weight_order not in WEIGHT_ORDERS:
        raise ValueError(f"weight_order must be one of {sorted(WEIGHT_ORDERS)}, "
                         f"got {weight_order!r}")
    rows, features = _check_growth(data, params, crit, rows, features)
    grad = _check_gradient(grad, "grad", data.n_rows)
    hess = _check_gradient(hess, "hess", data.n_rows, non_negative=True)
    gh = np.empty((data.n_rows, 2))
    gh[:, 0], gh[:, 1] = grad, hess
    draw = column_draw(features.size, colsample_bylevel, colsample_bynode, seed)
    n_threads = check_threads(n_threads)
    if method == "exhaustive":
        kernel_tree = crit.grower()(data.columns(), gh, rows, features,
                                    params.kernel_params(rows.size, n_threads), draw)
        return _exhaustive_tree(kernel_tree, data, params)
    key = np.ascontiguousarray(WEIGHT_ORDERS[weight_order](grad, hess), dtype=np.float64)
    order = rows[np.argsort(-key[rows], kind="stable")]
    search = newton_search.Search(*data.rank_codes(), order, key,
                                  np.array(newton_search.PREFIXES[method], np.float64),
                                  np.zeros(1, np.int64))
    kernel_tree = crit.batched_grower()(data.columns(), gh, rows, features,
                                        params.kernel_params(rows.size), draw, search)
    tree = NewtonTree(kernel_tree, data.n_features, params.learning_rate)
    tree.assessments = int(search.assessments[0])
    return tree


def grow_newton_forest(data, grad, hess, params, rows=None, features=None, criterion="newton",
                       colsample_bylevel=1.0, colsample_bynode=1.0, seeds=None, n_threads=1):
    """The K trees of a boosting round, one per column of ``grad``/``hess``, in one call.

    ``grad``, ``hess`` : arrays of shape (data.n_rows, K), finite, hess >= 0; ``seeds`` : K
    integers in [0, 2**63) seeding each tree's column draws (default 0 each).  The other
    arguments are ``grow_newton_tree``'s (the trees share ``rows`` and ``features``); the
    method is exhaustive.  Tree t equals, array for array, ``grow_newton_tree(data,
    grad[:, t], hess[:, t], params, rows, features, criterion=criterion,
    colsample_bylevel=..., colsample_bynode=..., seed=seeds[t], n_threads=n_threads)``: the kernel
    (``kernels/newton_forest.py``) calls that tree grower K times, and the checks, the
    copies of the gradients and the dispatch are made once per round instead of per tree.
    """
    crit = get_criterion(criterion)
    rows, features = _check_growth(data, params, crit, rows, features)
    n_threads = check_threads(n_threads)
    grad = _check_gradient(grad, "grad", data.n_rows, ndim=2)
    hess = _check_gradient(hess, "hess", data.n_rows, ndim=2, non_negative=True)
    if grad.shape != hess.shape:
        raise ValueError(f"grad and hess must have one shape, got {grad.shape} and {hess.shape}")
    n_trees = grad.shape[1]
    if n_trees == 0:
        raise ValueError("grad and hess have no columns: a round needs at least one tree")
    if seeds is None:
        seeds = np.zeros(n_trees, np.int64)
    else:
        seeds = [_check_seed(seed, "seeds") for seed in seeds]
        if len(seeds) != n_trees:
            raise ValueError(f"seeds has {len(seeds)} entries, grad and hess {n_trees} columns")
        seeds = np.array(seeds, np.int64)
    gh = np.empty((n_trees, data.n_rows, 2))
    gh[:, :, 0], gh[:, :, 1] = grad.T, hess.T
    draw = column_draw(features.size, colsample_bylevel, colsample_bynode, 0)  # seeds: per tree
    kernel_trees = crit.round_grower()(data.columns(), gh, rows, features,
                                       params.kernel_params(rows.size, n_threads), draw, seeds)
    return [_exhaustive_tree(t, data, params) for t in kernel_trees]
