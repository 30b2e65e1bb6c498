"""A level's row moves (``kernels/newton_moves.py``): every row to the child its node's split
sends it to, the same on one lane and on two, against routing written out in numpy."""

import numba
import numpy as np
import pytest

from apsplit.kernels import lanes, newton_grow
from apsplit.kernels.newton_moves import OpenRows, move_rows, regroup
from apsplit.newton import NewtonData

N = 3 * lanes.MIN_WORK_PER_LANE   # enough rows and entries for two lanes in both passes
CATEGORY_SET = np.array([1, 4])   # slot 3's right set


def _level():
    """X (a column feature, a histogram feature, a categorical one, and an all-missing one;
    5% NaN), its columns, and a level of four nodes: slot 0 became a leaf, slots 1-3 split
    on features 0, 1 and 2, each with its default side; a tenth of the rows is closed."""
    rng = np.random.default_rng(11)
    X = np.column_stack([rng.normal(size=N), rng.integers(0, 9, N).astype(float),
                         rng.integers(0, 6, N).astype(float), np.full(N, np.nan)])
    X[:, :3][rng.random((N, 3)) < 0.05] = np.nan
    data = NewtonData(X, categorical=[2])
    cols = data.columns()
    assert list(data.histogram_features) == [1]
    tree = newton_grow._new_tree(16, N, CATEGORY_SET.size)
    slot_node = np.array([3, 4, 5, 6])
    for node, feature, threshold, default_left in ((4, 0, 0.25, True), (5, 1, 3.0, False),
                                                   (6, 2, np.nan, True)):
        tree.feature[node], tree.threshold[node] = feature, threshold
        tree.default_left[node] = default_left
    tree.category_start[6], tree.category_count[6] = 0, CATEGORY_SET.size
    tree.category_codes[:] = CATEGORY_SET
    child_slot = np.array([-1, 0, 2, 4])
    position = rng.integers(0, 4, N).astype(np.int32)
    position[rng.random(N) < 0.1] = -1
    active = np.flatnonzero(position >= 0)
    return X, cols, tree, slot_node, child_slot, position, active


def _expected(X, tree, slot_node, child_slot, position, active):
    """The next slot of every row (-1: closed or in a leaf), and the leaf of every row of
    slot 0, by the routing rules written out."""
    moved = np.full(N, -1)
    row_leaf = np.full(N, -1)
    for r in active:
        node = slot_node[position[r]]
        if child_slot[position[r]] < 0:
            row_leaf[r] = node
            continue
        x = X[r, tree.feature[node]]
        if np.isnan(x):
            right = not tree.default_left[node]
        elif tree.category_start[node] >= 0:
            right = int(x) in CATEGORY_SET
        else:
            right = not x <= tree.threshold[node]
        moved[r] = child_slot[position[r]] + right
    return moved, row_leaf


def _by_slot(position, active):
    """The ``OpenRows`` of the ``active`` rows: slot by slot, each slot's ascending."""
    m = position.max() + 1
    return OpenRows(np.concatenate([active[position[active] == s] for s in range(m)]),
                    np.array([0, *np.cumsum(np.bincount(position[active], minlength=m))]))


@pytest.mark.parametrize("n_threads", [1, 2])
def test_every_row_goes_where_its_split_sends_it(n_threads):
    """Two lanes split the rows, and the split columns inside a column (pass 2's shares are
    of the columns' concatenated entries); an empty split column in the list changes nothing."""
    X, cols, tree, slot_node, child_slot, position, active = _level()
    moved = np.full(N, -1, np.int32)
    split_columns = np.array([0, 2, 3])   # the column features split on (3: no entries)
    threads = min(n_threads, numba.get_num_threads())
    move_rows(tree, cols, _by_slot(position, active), position, moved, child_slot, slot_node,
              split_columns, np.int64(threads))
    expected_moved, expected_leaf = _expected(X, tree, slot_node, child_slot, position, active)
    np.testing.assert_array_equal(moved, expected_moved)
    np.testing.assert_array_equal(tree.row_leaf, expected_leaf)
    assert set(np.unique(moved)) == {-1, 0, 1, 2, 3, 4, 5}


def test_regroup_puts_each_split_slots_rows_in_its_childrens_segments():
    """Slot 0 became a leaf, slots 1 and 2 split (children 0-1 and 2-3): the next level's
    rows are slot by slot, each child's ascending, and ``position`` takes ``moved``."""
    rng = np.random.default_rng(5)
    n = 40
    position = rng.integers(0, 3, n).astype(np.int32)
    rows = np.concatenate([np.flatnonzero(position == s) for s in range(3)])
    start = np.array([0, *np.cumsum(np.bincount(position, minlength=3))])
    child_slot = np.array([-1, 0, 2])
    moved = np.where(position == 0, -1, 2 * (position - 1) + rng.integers(0, 2, n)).astype(np.int32)
    out = regroup(OpenRows(rows, start), position, moved, child_slot)
    expected = [np.flatnonzero(moved == t) for t in range(4)]
    np.testing.assert_array_equal(out.rows, np.concatenate(expected))
    np.testing.assert_array_equal(out.start, [0, *np.cumsum([e.size for e in expected])])
    np.testing.assert_array_equal(position, moved)
