"""The tree builder (kernels.build): a split node's rows moved to its children, or,
above leaves, left in place, with the children's class weights summed as
``class_totals`` sums them, bit for bit; each numeric split's two training values."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import apsplit
from strategies import WEIGHT_KINDS, scaled

from apsplit.kernels.build import Cut, _split_into_leaves, _split_rows
from apsplit.kernels.stats import class_totals
from apsplit.tree import split_values


CUTS = ["numeric", "categorical", "sparse"]


def _node(data, n_rows, n_classes, kind):
    """A column of few values (ties at the cut), classes, weights of ``kind`` and a
    node: a sorted subset of the rows."""
    x = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 4.0]), min_size=n_rows,
                                    max_size=n_rows)))
    y = np.array(data.draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows,
                                    max_size=n_rows)), np.int64)
    w = np.array(data.draw(st.lists(WEIGHT_KINDS[kind], min_size=n_rows, max_size=n_rows)))
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, n_rows - 1), max_size=n_rows))),
                    np.int64)
    return np.column_stack([x, 4.0 - x]), y, w, rows


def _cut(data, X, how, rank):
    """(binned data, a ``Cut`` of kind ``how`` at ``rank``, which rows of X it sends
    left): a numeric cut (code <= rank), a categorical one (its codes drawn), or a
    numeric one on the column minus 1 stored sparse (its implicit zeros at their rank)."""
    k = data.draw(st.integers(0, 1))
    dense = apsplit.Dataset(X, categorical_features=[0, 1] if how == "categorical" else None)
    codes = dense.kernel_data().codes[k]
    if how == "categorical":
        mask = np.array(data.draw(st.lists(st.integers(0, 1), min_size=4, max_size=4)),
                        np.uint8)
        return (dense.kernel_data(), Cut(k, -1, mask, np.zeros(0, np.int64)),
                mask[codes] == 1)
    if how == "numeric":
        return dense.kernel_data(), Cut(k, rank, np.zeros(0, np.uint8), np.zeros(0, np.int64)), \
            codes <= rank
    binned = apsplit.Dataset(sp.csr_matrix(X - 1.0)).kernel_data()  # zero: rank 1
    rowcode = np.full(X.shape[0], -1, np.int64)
    for e in range(binned.csc_indptr[k], binned.csc_indptr[k + 1]):
        rowcode[binned.csc_rows[e]] = binned.csc_codes[e]
    stored = np.where(rowcode >= 0, rowcode, binned.zero_rank[k])
    return binned, Cut(k, rank, np.zeros(0, np.uint8), rowcode), stored <= rank


@settings(max_examples=scaled(1.0))
@given(st.sampled_from(sorted(WEIGHT_KINDS)), st.integers(1, 60), st.integers(2, 3),
       st.sampled_from(CUTS), st.integers(0, 4), st.data())
def test_a_partition_sums_its_sides_as_class_totals_does(kind, n_rows, n_classes, how, rank,
                                                         data):
    """``_split_rows``: the rows going left (code <= rank) first, each side in the order it
    had, and each side's class weights ``class_totals`` of its rows, bit for bit (two
    classes: summed as the rows are placed); numeric, categorical and sparse cuts, zero
    and extreme weights, one side empty, every code tied at the cut."""
    X, y, w, rows = _node(data, n_rows, n_classes, kind)
    binned, cut, left_of_x = _cut(data, X, how, rank)
    goes_left = left_of_x[rows]
    seg, spare = rows.copy(), np.empty(rows.size, np.int64)
    left_value, right_value = np.full(n_classes, np.nan), np.full(n_classes, np.nan)
    n_left = _split_rows(binned, seg, cut, spare, w, y, left_value, right_value)
    assert n_left == np.count_nonzero(goes_left)
    np.testing.assert_array_equal(seg, np.concatenate([rows[goes_left], rows[~goes_left]]))
    assert left_value.tobytes() == class_totals(rows[goes_left], w, y, n_classes).tobytes()
    assert right_value.tobytes() == class_totals(rows[~goes_left], w, y, n_classes).tobytes()


@settings(max_examples=scaled(1.0))
@given(st.sampled_from(sorted(WEIGHT_KINDS)), st.integers(1, 60), st.integers(2, 3),
       st.sampled_from(CUTS), st.integers(0, 4), st.data())
def test_rows_split_into_leaves_stay_in_place(kind, n_rows, n_classes, how, rank, data):
    """``_split_into_leaves``: the rows unmoved, each row's leaf, the left leaf's count
    and both leaves' class weights the partition's, bit for bit."""
    X, y, w, rows = _node(data, n_rows, n_classes, kind)
    binned, cut, _ = _cut(data, X, how, rank)
    seg = rows.copy()
    leaf_of = np.full(n_rows, -1, np.int64)
    value = np.full((9, n_classes), 0.0)
    n_left = _split_into_leaves(binned, seg, cut, w, y, 5, leaf_of, value)
    np.testing.assert_array_equal(seg, rows)
    partitioned, left_value, right_value = rows.copy(), np.empty(n_classes), np.empty(n_classes)
    assert n_left == _split_rows(binned, partitioned, cut, np.empty(rows.size, np.int64), w, y,
                                 left_value, right_value)
    expected_leaf = np.full(n_rows, -1, np.int64)
    expected_leaf[partitioned[:n_left]] = 5
    expected_leaf[partitioned[n_left:]] = 6
    np.testing.assert_array_equal(leaf_of, expected_leaf)
    assert value[5].tobytes() == left_value.tobytes()
    assert value[6].tobytes() == right_value.tobytes()
    assert not value[[0, 1, 2, 3, 4, 7, 8]].any()


@settings(max_examples=scaled(0.5))
@given(st.integers(5, 80), st.sampled_from(["dense", "sparse", "categorical"]),
       st.sampled_from(["exhaustive", "quick", "adaptive"]), st.integers(0, 2 ** 31 - 1))
def test_the_grown_trees_split_values_are_split_values_of_its_ranks(n_rows, kind, method, seed):
    """The kernel's tree carries each numeric split's two training values, as
    ``tree.split_values`` reads them from its ranks (NaN at leaves and categorical splits)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n_rows, 3)), 1)
    y = rng.integers(0, 2, n_rows)
    if kind == "sparse":
        X = sp.csr_matrix(np.where(rng.random(X.shape) < 0.5, 0.0, X))
    ds = apsplit.Dataset(X, categorical_features=[0] if kind == "categorical" else None)
    tree = apsplit.grow_tree(ds, y, max_depth=3, criterion="gini", method=method)
    left, right = split_values(tree, ds)
    np.testing.assert_array_equal(tree.left_value, left)
    np.testing.assert_array_equal(tree.right_value, right)
    assert np.all(np.isnan(tree.left_value) == ((tree.feature < 0) | (tree.left_rank < 0)))
