"""Trees grown node by node with any split finder, stored as flat arrays.

The built-in finders grow a whole tree in one numba call
(``kernels.build.grow``); a user's finder is called from a Python loop over
the nodes.  Both grow the same tree with the same node numbering.
"""

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from . import validation as v
from .dataset import Dataset
from .finders import check_problem, get_finder, kernel_finder_params, kernel_task
from .kernels import build
from .kernels.coarse import no_coarse_bins
from .kernels.search import EXHAUSTIVE
from .kernels.stats import sorted_rows

__all__ = ["Tree", "grow_tree", "grow_from_problem", "node_orders", "node_impurity",
           "split_values"]

LEAF = -1


class Tree:
    """A fitted tree as parallel arrays (node 0 is the root; a leaf has feature == -1).

    feature, threshold, left_rank  the split (x <= threshold, i.e. code <= left_rank, goes left)
    categories_left                per node: None, or for a categorical split the sorted category
                                   values going left (threshold NaN, left_rank -1); any other
                                   value, including one never seen in training, goes right
    children_left, children_right  child node ids (-1 at leaves)
    left_value, right_value        the two consecutive training values of the feature around a
                                   numeric split's threshold (NaN at leaves and categorical
                                   splits): an exporter's bounds for its own threshold
    value                          class weights of the node's examples, shape (nodes, C)
    n_node_samples                 examples with positive weight reaching the node
    node_assessments               assessments spent splitting the node (0 at leaves)
    """

    def __init__(self, n_classes, n_features, criterion="error"):
        self.n_classes = n_classes
        self.n_features = n_features
        self.criterion = criterion
        self._rows = []

    @classmethod
    def from_arrays(cls, n_classes, n_features, criterion, feature, threshold, left_rank,
                    children_left, children_right, value, n_node_samples, node_assessments,
                    categories_left):
        tree = cls(n_classes, n_features, criterion)
        del tree._rows
        tree.feature, tree.threshold, tree.left_rank = feature, threshold, left_rank
        tree.children_left, tree.children_right = children_left, children_right
        tree.value, tree.n_node_samples = value, n_node_samples
        tree.node_assessments, tree.categories_left = node_assessments, categories_left
        return tree

    def _add(self, value, n_samples):
        self._rows.append([LEAF, np.nan, -1, LEAF, LEAF, value, n_samples, 0, None])
        return len(self._rows) - 1

    def _freeze(self):
        cols = list(zip(*self._rows))
        self.feature = np.array(cols[0], np.int64)
        self.threshold = np.array(cols[1], np.float64)
        self.left_rank = np.array(cols[2], np.int64)
        self.children_left = np.array(cols[3], np.int64)
        self.children_right = np.array(cols[4], np.int64)
        self.value = np.array(cols[5], np.float64).reshape(len(self._rows), self.n_classes)
        self.n_node_samples = np.array(cols[6], np.int64)
        self.node_assessments = np.array(cols[7], np.int64)
        self.categories_left = list(cols[8])
        del self._rows
        return self

    @property
    def node_count(self):
        return self.feature.shape[0]

    @property
    def assessments(self):
        """Total (feature, example) assessments spent growing the tree."""
        return int(self.node_assessments.sum())

    @property
    def feature_importances_(self):
        """Impurity decrease (``criterion``, weighted) per feature, normalised to sum 1.

        Like scikit-learn's: the sum over the nodes split on k of
        f(node) - f(left) - f(right), f the impurity in weight units.
        """
        impurity = node_impurity(self.value, self.criterion)
        inner = np.flatnonzero(self.feature != LEAF)
        decrease = (impurity[inner] - impurity[self.children_left[inner]]
                    - impurity[self.children_right[inner]])
        importances = np.bincount(self.feature[inner], weights=decrease, minlength=self.n_features)
        total = importances.sum()
        return importances / total if total > 0 else importances

    @property
    def max_depth(self):
        depth = np.zeros(self.node_count, np.int64)
        for node in range(self.node_count):
            for child in (self.children_left[node], self.children_right[node]):
                if child != LEAF:
                    depth[child] = depth[node] + 1
        return int(depth.max())

    def apply(self, X):
        """Leaf id of every row of X (array, sparse matrix or the Dataset the tree was grown on)."""
        no_ints, no_values, no_matrix = np.zeros(0, np.int64), np.zeros(0), np.zeros((0, 0))
        if isinstance(X, Dataset):  # codes: code <= left rank goes left
            cat_codes = [np.searchsorted(X.feature_values(self.feature[node]), cats)
                         for node, cats in enumerate(self.categories_left) if cats is not None]
            return self._walk(self.left_rank.astype(np.float64),
                              np.concatenate(cat_codes or [no_values]).astype(np.float64),
                              no_matrix if X.is_sparse else X.codes, True, X.csr_indptr,
                              X.csr_features, X.csr_codes, X.zero_rank.astype(np.float64),
                              X.n_rows)
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64)
            if not X.has_sorted_indices:
                X = X.sorted_indices()
            return self._walk(self.threshold, None, no_matrix, False, X.indptr.astype(np.int64),
                              X.indices.astype(np.int64), X.data, np.zeros(X.shape[1]),
                              X.shape[0])
        dense = np.asarray(X, dtype=np.float64)
        if dense.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got shape {dense.shape}")
        return self._walk(self.threshold, None, dense, False, no_ints, no_ints, no_values,
                          no_values, dense.shape[0])

    def _walk(self, cut, cat_items, dense, feature_major, indptr, indices, entries, absent,
              n_rows):
        """``kernels.build.apply_rows`` on this tree (cat_items None: the category values)."""
        cat_start, cat_end, cat_values, is_categorical = self._categorical_arrays()
        walk = build.Walk(self.feature, cut, is_categorical, self.children_left,
                          self.children_right, cat_start, cat_end,
                          cat_values if cat_items is None else cat_items)
        return build.apply_rows(walk, build.RowValues(dense, feature_major, indptr, indices,
                                                      entries, absent, n_rows))

    def _categorical_arrays(self):
        """(cat_start, cat_end, left category values, is_categorical) for the apply kernels."""
        cached = getattr(self, "_categorical_cache", None)
        if cached is not None:
            return cached
        nodes = self.node_count
        start, end = np.zeros(nodes, np.int64), np.zeros(nodes, np.int64)
        is_categorical = np.zeros(nodes, np.bool_)
        values, total = [], 0
        for node, cats in enumerate(self.categories_left):
            if cats is None:
                continue
            is_categorical[node] = True
            start[node], total = total, total + len(cats)
            end[node] = total
            values.append(np.asarray(cats, np.float64))
        cat_values = np.concatenate(values) if values else np.zeros(0)
        self._categorical_cache = (start, end, cat_values, is_categorical)
        return self._categorical_cache

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_categorical_cache", None)
        return state

    def predict(self, X):
        """Class code of the heaviest class in each row's leaf (first on ties)."""
        return np.argmax(self.value[self.apply(X)], axis=1)

    def predict_proba(self, X):
        value = self.value[self.apply(X)]
        return value / np.maximum(value.sum(axis=1, keepdims=True), np.finfo(float).tiny)


def node_impurity(value, criterion):
    """f(class weights) of every row of ``value``, in weight units (see kernels.criteria)."""
    value = np.maximum(value, 0.0)
    total = value.sum(axis=1)
    safe = np.where(total > 0, total, 1.0)
    if criterion == "error":
        return total - value.max(axis=1)
    if criterion == "gini":
        return np.maximum(total - (value ** 2).sum(axis=1) / safe, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(value > 0, np.log2(np.where(value > 0, value, 1.0) / safe[:, None]), 0.0)
    return np.maximum(-(value * logs).sum(axis=1), 0.0)


def node_orders(tree, problem):
    """(node, rows in weight order) of every node the finder was called on.

    Replays the growth: each child keeps its parent's order (stable partition).
    """
    ds = problem.dataset
    stack = [(0, problem.order)]
    while stack:
        node, order = stack.pop()
        if tree.node_assessments[node] > 0:
            yield node, order
        k = tree.feature[node]
        if k != LEAF:
            goes_left = ds.goes_left(k, order, tree.left_rank[node], tree.categories_left[node])
            stack.append((tree.children_right[node], order[~goes_left]))
            stack.append((tree.children_left[node], order[goes_left]))


def grow_from_problem(problem, finder, max_depth, return_leaves=False):
    """Grow a tree from a validated root Problem (its order is kept by every child).

    The built-in finders grow it in one numba call; any other finder is
    called once per node from a Python loop.  Both number the nodes alike
    (depth first, a node's two children consecutively, left first).  With
    ``return_leaves``, returns (tree, leaf id of every row of X, -1 for rows
    not in ``problem.order``) when the kernel grew the tree, else (tree, None).
    """
    params = kernel_finder_params(finder)
    if params is not None:
        tree, leaves = _grow_with_kernel(problem, params, max_depth)
        return (tree, leaves) if return_leaves else tree
    ds, y, w = problem.dataset, problem.y, problem.sample_weight
    C = problem.n_classes
    tree = Tree(C, ds.n_features, problem.criterion)

    def class_weights(order):  # summed in index order, as the kernel's tree builder does
        rows = np.sort(order)
        return np.bincount(y[rows], weights=w[rows], minlength=C)

    root = tree._add(class_weights(problem.order), problem.order.size)
    stack = [(root, problem.order, 0)]
    while stack:
        node, order, depth = stack.pop()
        value = tree._rows[node][5]
        if depth >= max_depth or order.size < max(2, 2 * problem.min_leaf) \
                or np.count_nonzero(value > 0) < 2:
            continue
        split = finder.find(replace(problem, order=order))
        tree._rows[node][7] = split.assessments
        if not split.found:
            continue
        goes_left = split.goes_left(ds, order)
        left_order, right_order = order[goes_left], order[~goes_left]
        if min(left_order.size, right_order.size) < problem.min_leaf:
            raise ValueError(f"finder {type(finder).__name__} returned a split leaving "
                             f"{min(left_order.size, right_order.size)} examples in a child, "
                             f"fewer than min_samples_leaf={problem.min_leaf}")
        left = tree._add(class_weights(left_order), left_order.size)
        right = tree._add(class_weights(right_order), right_order.size)
        tree._rows[node][:5] = [split.feature, split.threshold, split.left_rank, left, right]
        tree._rows[node][8] = split.categories_left
        stack.append((right, right_order, depth + 1))
        stack.append((left, left_order, depth + 1))
    tree._freeze()
    tree.left_value, tree.right_value = split_values(tree, ds)
    return (tree, None) if return_leaves else tree


def split_values(tree, dataset):
    """(left_value, right_value) per node: the training values of the split feature at
    ranks ``left_rank`` and ``left_rank + 1``, i.e. the largest value <= threshold and
    the smallest above it over all of ``dataset``'s rows (0 included for sparse
    columns); NaN at leaves and categorical splits."""
    left = np.full(tree.node_count, np.nan)
    right = np.full(tree.node_count, np.nan)
    for node in np.flatnonzero((tree.feature != LEAF) & (tree.left_rank >= 0)):
        values = dataset.feature_values(tree.feature[node])
        left[node], right[node] = values[tree.left_rank[node]], values[tree.left_rank[node] + 1]
    return left, right


def _grow_with_kernel(problem, params, max_depth):
    """(tree, leaf of every row) for a built-in finder: one ``kernels.build.grow`` call."""
    ds = problem.dataset
    method, method_params = params
    task = kernel_task(problem, sorted_rows(problem.order, ds.n_rows))
    data = ds.kernel_data()
    # two-level features' canonical sums are coarse histograms (``kernels.stats``)
    coarse = ds.coarse_bins() if method == EXHAUSTIVE or data.two_level.any() else \
        no_coarse_bins()
    with ds.workspace(problem.n_classes) as work:
        grown = build.grow(method, method_params, min(int(max_depth), 2 ** 31), data, work,
                           ds.values, task, coarse)
    categories = [None] * grown.feature.size
    if grown.cat_codes.size:  # a categorical split (the check spares the others a pass)
        for node in np.flatnonzero(grown.cat_end > grown.cat_start):
            categories[node] = ds.feature_values(grown.feature[node])[
                grown.cat_codes[grown.cat_start[node]:grown.cat_end[node]]]
    tree = Tree.from_arrays(problem.n_classes, ds.n_features, problem.criterion, grown.feature,
                            grown.threshold, grown.left_rank, grown.children_left,
                            grown.children_right, grown.value, grown.n_node_samples,
                            grown.node_assessments, categories)
    tree.left_value, tree.right_value = grown.left_value, grown.right_value  # as split_values
    return tree, grown.leaf_of


def grow_tree(ds, y, sample_weight=None, max_depth=3, criterion="error", method="adaptive",
              rows=None, features=None, weight_ordered=False, bounds="tight", min_samples_leaf=1):
    """Grow a depth-``max_depth`` tree: one numba call for a built-in finder, else one
    finder call per node (``grow_from_problem``).

    A node becomes a leaf at ``max_depth``, when it holds fewer than two
    examples with positive weight (fewer than 2 ``min_samples_leaf``: every
    leaf keeps at least ``min_samples_leaf``), when one class holds all its
    weight, or when no candidate feature has an admissible split on it.
    Children keep their parent's weight order (stable partition), so only the
    root is sorted.
    """
    max_depth = v.check_positive_int(max_depth, "max_depth")
    finder = get_finder(method)
    problem = check_problem(ds, y, sample_weight, criterion, rows, features, weight_ordered, bounds,
                            min_samples_leaf=min_samples_leaf)
    return grow_from_problem(problem, finder, max_depth)
