"""Split finders: exactness against a brute-force oracle, accounting, registry, input checks."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import apsplit
import oracle
from apsplit import finders
from strategies import nodes, scaled
from test_tree import assert_same_tree

METHODS = ("exhaustive", "quick", "adaptive", "adaptive_paper")
COARSE_BINS = (2, 3, 5)  # besides the default 256: features with many values per coarse bin


def split_key(split):
    return (split.feature, split.left_rank, split.threshold, split.score,
            split.left_weights, split.right_weights)


def assert_same_split(split, reference):
    """Bit-identical splits: the finders share one accumulation order by design."""
    np.testing.assert_equal(split_key(split), split_key(reference))


def check_against_oracle(split, node, expected):
    """``split`` has the brute-force score, an optimal partition and the right child weights."""
    assert split.found == expected.found
    if not expected.found:
        assert (split.feature, split.left_rank, split.score) == (-1, -1, math.inf)
        return
    assert oracle.close(split.score, expected.score)
    assert any(k == split.feature and lo <= split.threshold < hi for k, lo, hi in expected.near), \
        f"split ({split.feature}, {split.threshold}) is not among the optimal ones {expected.near}"
    left, right = oracle.child_weights(node.X, node.y, node.w, node.rows, split.feature,
                                       split.threshold)
    atol = 1e-12 * (left.sum() + right.sum())
    np.testing.assert_allclose(split.left_weights, left, rtol=0, atol=atol)
    np.testing.assert_allclose(split.right_weights, right, rtol=0, atol=atol)


def check_accounting(splits, node):
    """Exhaustive assesses every pair and scans each feature once; the others assess at least
    the winner's column, at most every pair, and scan each feature at least once."""
    n, F = node.n_positive, len(node.feature_list)
    assert splits["exhaustive"].assessments == n * F
    # one scan per feature, and the prefilter's survivors once more where it runs
    assert F <= splits["exhaustive"].scans <= 2 * F
    assert all(split.scans >= F for split in splits.values())
    for method in ("quick", "adaptive", "adaptive_paper"):
        split = splits[method]
        if split.found:
            assert n <= split.assessments <= n * F
        else:  # proving that no feature has an (admissible) split needs every pair
            assert split.assessments == n * F


def check_node(node, criteria=oracle.CRITERIA, bounds="tight", min_leaf=1):
    """Every method on every criterion: oracle optimum, then bit-identical splits and accounting."""
    ds = apsplit.Dataset(node.matrix())
    for criterion in criteria:
        expected = oracle.best_split(node.X, node.y, node.w, node.rows, node.features, criterion,
                                     min_leaf)
        splits = {}
        for method in METHODS:
            splits[method] = apsplit.find_split(ds, node.y, criterion=criterion, method=method,
                                                bounds=bounds, min_samples_leaf=min_leaf,
                                                **node.kwargs())
            check_against_oracle(splits[method], node, expected)
        for method in ("quick", "adaptive", "adaptive_paper"):
            assert_same_split(splits[method], splits["exhaustive"])
        for coarse_bins in COARSE_BINS:  # many values per coarse bin: two-level sums, refined
            check_two_level(node, coarse_bins, criterion, expected, bounds, min_leaf)
        check_accounting(splits, node)


def check_two_level(node, coarse_bins, criterion, expected, bounds, min_leaf):
    """A Dataset with ``coarse_bins`` coarse bins: features with more values sum their
    canonical statistics in two levels (``kernels.stats``), so its scores may differ
    from the default Dataset's in the last bits; on it, the exhaustive search with
    the prefilter (refining inside the flagged coarse bins) and every method without
    return the oracle's optimum and the same split, bit for bit."""
    options = dict(criterion=criterion, bounds=bounds, min_samples_leaf=min_leaf, **node.kwargs())
    plain = apsplit.Dataset(node.matrix(), coarse_bins=coarse_bins, prefilter=False)
    reference = apsplit.find_split(plain, node.y, method="exhaustive", **options)
    check_against_oracle(reference, node, expected)
    for method in ("quick", "adaptive"):
        assert_same_split(apsplit.find_split(plain, node.y, method=method, **options), reference)
    prefiltered = apsplit.Dataset(node.matrix(), coarse_bins=coarse_bins, prefilter=True)
    assert_same_split(apsplit.find_split(prefiltered, node.y, method="exhaustive", **options),
                      reference)


# ---------------------------------------------------------------- exactness
@given(nodes(sparse=False))
def test_dense_nodes_match_oracle(node):
    check_node(node)


@given(nodes(sparse=True))
def test_sparse_nodes_match_oracle(node):
    check_node(node)


@settings(max_examples=scaled(0.5))
@given(st.integers(2, 40), st.sampled_from(sorted(oracle.CRITERIA)), st.data())
def test_the_sparse_search_reads_a_column_as_its_rows(n, criterion, data):
    """Column 0 (a few values, zeros among them) beside seven full columns: the search of
    column 0 alone reads it by column (its n + nnz entries, fewer than the rows' 7 n:
    ``search.by_columns``); the same column as a matrix of its own is read by rows.
    Both add each bin's examples in index order: the same split, bit for bit, with
    ties, zero weights and extreme weight ratios, with and without the prefilter."""
    column = data.draw(st.lists(st.sampled_from([0.0, 0.0, -1.0, 2.0, 3.5]), min_size=n,
                                max_size=n))
    y = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    w = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, 1.0, 3.0, 1e-9, 1e9]),
                                    min_size=n, max_size=n)))
    if w.sum() == 0:
        w[0] = 1.0
    X = np.column_stack([column] + [np.arange(1.0, n + 1) + j for j in range(7)])
    for prefilter in (False, True):
        options = dict(criterion=criterion, method="exhaustive")
        alone = apsplit.find_split(apsplit.Dataset(sp.csr_matrix(X[:, :1]), prefilter=prefilter),
                                   y, w, **options)
        among = apsplit.find_split(apsplit.Dataset(sp.csr_matrix(X), prefilter=prefilter), y, w,
                                   features=[0], **options)
        assert (among.feature, among.left_rank, among.threshold, among.score) == \
            (alone.feature, alone.left_rank, alone.threshold, alone.score)
        np.testing.assert_equal((among.left_weights, among.right_weights),
                                (alone.left_weights, alone.right_weights))


@settings(max_examples=scaled(0.5))
@given(nodes(sparse=False, max_rows=120, max_features=3), st.sampled_from([2, 3]),
       st.sampled_from([1, 1, 3]))
def test_two_level_nodes_match_oracle(node, coarse_bins, min_leaf):
    """Features of more than 4 values per coarse bin (over 8 or 12 values here) sum in
    two levels: every method and the prefilter's refinement give the oracle's optimum,
    and the same split, bit for bit (ties across coarse bin edges, one-value bins)."""
    for criterion in oracle.CRITERIA:
        expected = oracle.best_split(node.X, node.y, node.w, node.rows, node.features, criterion,
                                     min_leaf)
        check_two_level(node, coarse_bins, criterion, expected, "tight", min_leaf)


def test_two_level_features_are_the_dense_numeric_ones_with_many_values_per_coarse_bin():
    X = np.column_stack([np.arange(100.0), np.arange(100.0) % 8, np.arange(100.0)])
    data = apsplit.Dataset(X, categorical_features=[2], coarse_bins=2).kernel_data()
    assert data.two_level.tolist() == [1, 0, 0]  # 100 > 4 * 2 values; 8 not; categorical
    assert apsplit.Dataset(sp.csr_matrix(X), coarse_bins=2).kernel_data().two_level.sum() == 0
    assert apsplit.Dataset(X).kernel_data().two_level.sum() == 0  # 100 <= 4 * 256


@settings(max_examples=scaled(0.5))
@given(nodes(sparse=None, max_classes=2))
def test_binary_nodes_match_oracle(node):
    check_node(node)


@settings(max_examples=scaled(0.5))
@given(nodes(sparse=None))
def test_paper_bounds_match_oracle(node):
    check_node(node, bounds="paper")


@settings(max_examples=scaled(0.5))
@given(nodes(sparse=None), st.sampled_from([2, 3, 5]), st.sampled_from(["tight", "paper"]))
def test_a_minimum_leaf_size_keeps_every_method_exact(node, min_leaf, bounds):
    """Only splits leaving min_leaf positive-weight rows on each side are admissible."""
    check_node(node, bounds=bounds, min_leaf=min_leaf)


@pytest.mark.parametrize("min_leaf", [6, 2 ** 62, 2 ** 63])
def test_a_leaf_size_above_half_the_rows_admits_no_split(min_leaf):
    """Even sizes beyond int64 (once a numba OverflowError): no split, every pair assessed."""
    X = np.arange(10.0).reshape(-1, 1)
    y = np.array([0, 1] * 5)
    for method in METHODS:
        split = apsplit.find_split(apsplit.Dataset(X), y, np.ones(10), method=method,
                                   min_samples_leaf=min_leaf)
        assert not split.found and split.assessments == 10
    assert apsplit.grow_tree(apsplit.Dataset(X), y, np.ones(10), min_samples_leaf=min_leaf,
                             method="exhaustive").node_count == 1


@settings(max_examples=scaled(0.5))
@given(nodes(sparse=None), st.integers(0, 5), st.sampled_from(["error", "entropy", "gini"]),
       st.sampled_from([1, 3]))
def test_a_warm_start_on_any_column_keeps_adaptive_exact(node, first, criterion, min_leaf):
    """Adaptive(first_feature=k) returns exhaustive's split whatever k: the optimum's
    column, another, one outside the node's candidates (ignored), or absent from X."""
    ds = apsplit.Dataset(node.matrix())
    options = dict(criterion=criterion, min_samples_leaf=min_leaf, **node.kwargs())
    reference = apsplit.find_split(ds, node.y, method="exhaustive", **options)
    for column in {first, max(reference.feature, 0)}:
        split = apsplit.find_split(ds, node.y, method=apsplit.Adaptive(first_feature=column),
                                   **options)
        assert_same_split(split, reference)
        assert split.assessments <= reference.assessments


@pytest.mark.parametrize("value", [-1, 1.5, True, "0"])
def test_first_feature_must_be_a_column_index(value):
    with pytest.raises(ValueError, match="first_feature must be a non-negative integer"):
        apsplit.Adaptive(first_feature=value)


@settings(max_examples=scaled(0.5))
@given(nodes(sparse=None, weight_kinds=("ones", "int")))
def test_ties_go_to_first_listed_feature_then_smallest_threshold(node):
    """With integer weights the error criterion is computed exactly, so ties are real ties."""
    ds = apsplit.Dataset(node.matrix())
    expected = oracle.best_split(node.X, node.y, node.w, node.rows, node.features, "error")
    for method in METHODS:
        split = apsplit.find_split(ds, node.y, criterion="error", method=method, **node.kwargs())
        assert split.feature == expected.feature
        if expected.found:
            assert expected.left_max <= split.threshold < expected.right_min


@settings(max_examples=scaled(0.25))
@given(nodes(sparse=None, subsets_allowed=False), st.data())
def test_duplicate_columns_tie_to_the_copy_listed_first(node, data):
    """A copy of a column scores bit-identically, so the winner is listed before its twin."""
    K = node.X.shape[1]
    X = np.hstack([node.X, node.X])
    features = np.array(data.draw(st.permutations(range(2 * K))), dtype=np.int64)
    position = np.argsort(features)
    ds = apsplit.Dataset(X if node.sparse_format is None else sp.csr_matrix(X))
    for criterion in oracle.CRITERIA:
        for method in METHODS:
            split = apsplit.find_split(ds, node.y, node.w, criterion=criterion, method=method,
                                       features=features)
            if split.found:
                twin = (split.feature + K) % (2 * K)
                assert position[split.feature] < position[twin]


@settings(max_examples=scaled(0.25))
@given(nodes(sparse=None, max_classes=3, weight_kinds=("int",)))
def test_zero_weight_is_a_removed_row_and_integer_weight_a_repeated_row(node):
    ds = apsplit.Dataset(node.matrix())
    rows = np.arange(len(node.w)) if node.rows is None else node.rows
    kept = rows[node.w[rows] > 0]
    repeated = np.repeat(kept, node.w[kept].astype(int))
    ds_repeated = apsplit.Dataset(node.X[repeated])
    for criterion in oracle.CRITERIA:
        for method in METHODS:
            split = apsplit.find_split(ds, node.y, criterion=criterion, method=method,
                                       **node.kwargs())
            removed = apsplit.find_split(ds, node.y, node.w, criterion=criterion, method=method,
                                         rows=kept, features=node.features)
            assert_same_split(removed, split)
            assert removed.assessments == split.assessments
            ones = apsplit.find_split(ds_repeated, node.y[repeated], criterion=criterion,
                                      method=method, features=node.features)
            assert ones.feature == split.feature
            assert oracle.close(ones.score, split.score)


def test_threshold_and_left_rank_agree_on_every_row():
    """``x <= threshold`` and ``code <= left_rank`` describe one split, also off the node.

    The zero-weight row (x = 3) is not in the node, but it is a row of X.
    """
    X = np.array([[1.0], [3.0], [5.0], [5.0]])
    ds = apsplit.Dataset(X)
    split = apsplit.find_split(ds, [0, 0, 1, 1], [1.0, 0.0, 1.0, 1.0], method="exhaustive")
    assert split.feature == 0 and split.score == 0.0
    by_code = ds.column_codes(0, np.arange(4)) <= split.left_rank
    np.testing.assert_array_equal(X[:, 0] <= split.threshold, by_code)


@pytest.mark.parametrize("criterion", oracle.CRITERIA)
@pytest.mark.parametrize("method", METHODS)
def test_a_child_lost_in_the_rounding_of_the_node_weight_is_still_split_off(criterion, method):
    """1e8 + 1e8 + 1e-8 rounds to 2e8, so the right child's weight computes as 0."""
    ds = apsplit.Dataset(np.array([[0.0], [0.0], [1.0]]))
    split = apsplit.find_split(ds, [0, 0, 0], [1e8, 1e8, 1e-8], criterion=criterion, method=method)
    assert (split.feature, split.threshold) == (0, 0.5)
    assert oracle.close(split.score, 0.0)


def test_methods_agree_when_two_features_tie_up_to_rounding():
    """Both features score 0.0078125 / 0.018625 mathematically; computed, they differ by one ulp.

    Every method must return the split with the smaller computed score, as exhaustive does.
    """
    X = np.array([[-2.0, 0.0], [-2.0, -1.0], [-2.0, -1.0], [-2.0, 0.0], [-1.0, 0.0]])
    y = [0, 0, 0, 1, 0]
    w = [0.0078125, 0.001, 0.001, 0.0078125, 0.001]
    ds = apsplit.Dataset(X)
    reference = apsplit.find_split(ds, y, w, method="exhaustive")
    for method in ("quick", "adaptive", "adaptive_paper"):
        assert_same_split(apsplit.find_split(ds, y, w, method=method), reference)


# ------------------------------------------------------------- weight order
@settings(max_examples=scaled(0.25))
@given(nodes(sparse=None))
def test_weight_ordered_rows_give_the_same_split(node):
    ds = apsplit.Dataset(node.matrix())
    rows = np.arange(len(node.w)) if node.rows is None else node.rows
    ordered = rows[np.argsort(-node.w[rows], kind="stable")]
    for method in METHODS:
        split = apsplit.find_split(ds, node.y, node.w, method=method, rows=rows,
                                   features=node.features)
        presorted = apsplit.find_split(ds, node.y, node.w, method=method, rows=ordered,
                                       features=node.features, weight_ordered=True)
        assert_same_split(presorted, split)
        assert presorted.assessments == split.assessments


def test_weight_ordered_rejects_unsorted_rows():
    ds = apsplit.Dataset(np.arange(6.0).reshape(3, 2))
    with pytest.raises(ValueError, match="not in decreasing weight order"):
        apsplit.find_split(ds, [0, 1, 0], [1.0, 2.0, 3.0], rows=[0, 1, 2], weight_ordered=True)


# ----------------------------------------------------------------- registry
class RecordingFinder:
    """A user's finder: exhaustive search that keeps the problems it was given."""

    def __init__(self):
        self.problems = []

    def find(self, problem):
        self.problems.append(problem)
        return apsplit.Exhaustive().find(problem)


@pytest.fixture
def registry():
    """The finder registry, restored after the test."""
    saved = dict(finders._REGISTRY)
    yield finders._REGISTRY
    finders._REGISTRY.clear()
    finders._REGISTRY.update(saved)


@pytest.fixture
def small():
    """A tiny dataset with labels and distinct weights."""
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0], [4.0, 1.0]])
    return apsplit.Dataset(X), np.array([0, 1, 0, 1, 1]), np.array([0.5, 3.0, 0.0, 2.0, 1.0])


def test_builtin_finders_are_available():
    assert {"exhaustive", "quick", "adaptive"} <= set(apsplit.available_finders())
    assert isinstance(apsplit.get_finder("quick"), apsplit.Quick)


def test_registered_finder_is_used_by_name_and_as_object(registry, small):
    ds, y, w = small
    finder = RecordingFinder()
    assert apsplit.register_finder("recording", finder) is finder
    assert "recording" in apsplit.available_finders()
    assert apsplit.get_finder("recording") is finder
    expected = apsplit.find_split(ds, y, w, method="exhaustive")
    assert_same_split(apsplit.find_split(ds, y, w, method="recording"), expected)
    assert_same_split(apsplit.find_split(ds, y, w, method=RecordingFinder()), expected)
    problem = finder.problems[0]
    np.testing.assert_array_equal(problem.order, [1, 3, 4, 0])
    np.testing.assert_array_equal(problem.features, [0, 1])
    tree = apsplit.grow_tree(ds, y, w, max_depth=2, method="recording")
    assert len(finder.problems) == 1 + np.count_nonzero(tree.node_assessments)


def test_duplicate_registration_needs_overwrite(registry):
    first, second = RecordingFinder(), RecordingFinder()
    apsplit.register_finder("mine", first)
    with pytest.raises(ValueError, match="'mine' is already registered"):
        apsplit.register_finder("mine", second)
    with pytest.raises(ValueError, match="'exhaustive' is already registered"):
        apsplit.register_finder("exhaustive", second)
    assert apsplit.get_finder("mine") is first
    apsplit.register_finder("mine", second, overwrite=True)
    assert apsplit.get_finder("mine") is second


@pytest.mark.parametrize("finder", [object(), type("NoCall", (), {"find": 3})()])
def test_registering_an_object_without_find_fails(registry, finder):
    with pytest.raises(TypeError, match="find"):
        apsplit.register_finder("broken", finder)
    assert "broken" not in apsplit.available_finders()


def test_unknown_method_name_is_named(small):
    ds, y, w = small
    with pytest.raises(ValueError, match="unknown method 'fastest'"):
        apsplit.find_split(ds, y, w, method="fastest")
    with pytest.raises(TypeError, match="method must be"):
        apsplit.find_split(ds, y, w, method=42)


# --------------------------------------------------------- Quick parameters
@settings(max_examples=scaled(0.25))
@given(nodes(sparse=None), st.one_of(st.just(1.0), st.floats(1e-6, 1.0)), st.integers(1, 30))
def test_quick_parameters_stay_exact(node, fraction, batches):
    ds = apsplit.Dataset(node.matrix())
    quick = apsplit.Quick(initial_fraction=fraction, n_batches=batches)
    for criterion in oracle.CRITERIA:
        reference = apsplit.find_split(ds, node.y, criterion=criterion, method="exhaustive",
                                       **node.kwargs())
        split = apsplit.find_split(ds, node.y, criterion=criterion, method=quick, **node.kwargs())
        assert_same_split(split, reference)


@pytest.mark.parametrize("kwargs, match", [
    (dict(initial_fraction=0.0), "initial_fraction"),
    (dict(initial_fraction=-0.1), "initial_fraction"),
    (dict(initial_fraction=1.5), "initial_fraction"),
    (dict(initial_fraction=math.nan), "initial_fraction"),
    (dict(initial_fraction="0.1"), "initial_fraction"),
    (dict(n_batches=0), "n_batches"),
    (dict(n_batches=-3), "n_batches"),
    (dict(n_batches=2.5), "n_batches"),
    (dict(n_batches=True), "n_batches"),
])
def test_quick_rejects_invalid_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        apsplit.Quick(**kwargs)


# ---------------------------------------------------------------- bad input
NAN = math.nan


@pytest.mark.parametrize("overrides, error, match", [
    (dict(y=[0, 1, 0, 1]), ValueError, "4 labels but X has 5 rows"),
    (dict(y=[[0, 1, 0, 1, 1]]), ValueError, "y must be 1-dimensional"),
    (dict(y=[0, -1, 0, 1, 1]), ValueError, "class codes 0..C-1, found -1"),
    (dict(y=[0, 0.5, 0, 1, 1]), ValueError, "non-integer"),
    (dict(y=["a", "b", "a", "b", "b"]), TypeError, "integer class codes"),
    (dict(sample_weight=[1.0, 1.0, 1.0]), ValueError, "sample_weight has 3 entries but X has 5"),
    (dict(sample_weight=[1.0, -1.0, 1.0, 1.0, 1.0]), ValueError, "non-negative"),
    (dict(sample_weight=[1.0, NAN, 1.0, 1.0, 1.0]), ValueError, "NaN"),
    (dict(sample_weight=[0.0, 0.0, 1.0, 1.0, 1.0], rows=[0, 1]), ValueError, "weights .* are zero"),
    (dict(sample_weight=np.zeros(5)), ValueError, "weights .* are zero"),
    (dict(rows=[]), ValueError, "rows is empty"),
    (dict(features=[]), ValueError, "features is empty"),
    (dict(rows=[0, 5]), ValueError, "rows holds an index outside 0..4"),
    (dict(rows=[-1, 0]), ValueError, "rows holds an index outside"),
    (dict(features=[2]), ValueError, "features holds an index outside 0..1"),
    (dict(rows=[0, 1, 1]), ValueError, "rows holds duplicate"),
    (dict(features=[1, 1]), ValueError, "features holds duplicate"),
    (dict(rows=[0.0, 1.0]), TypeError, "rows must hold integer indices"),
    (dict(method="fastest"), ValueError, "unknown method 'fastest'"),
    (dict(criterion="mse"), ValueError, "unknown criterion 'mse'"),
    (dict(bounds="loose"), ValueError, "unknown bounds 'loose'"),
    (dict(criterion="entropy", bounds="Paper"), ValueError, "unknown bounds 'Paper'"),
    (dict(criterion="gini", bounds=None), ValueError, "unknown bounds None"),
    (dict(min_samples_leaf=0), ValueError, "min_samples_leaf must be a positive integer"),
    (dict(min_samples_leaf=1.5), ValueError, "min_samples_leaf must be a positive integer"),
])
def test_find_split_rejects_bad_input(small, overrides, error, match):
    ds, y, w = small
    kwargs = dict(y=y, sample_weight=w) | overrides
    with pytest.raises(error, match=match):
        apsplit.find_split(ds, **kwargs)


@pytest.mark.parametrize("X, match", [
    (np.array([[0.0, NAN], [1.0, 2.0]]), "NaN"),
    (np.array([[0.0, np.inf], [1.0, 2.0]]), "inf"),
    (np.array([[0.0, -np.inf], [1.0, 2.0]]), "inf"),
    (sp.csr_matrix(np.array([[0.0, NAN], [1.0, 0.0]])), "NaN"),
    (sp.csc_matrix(np.array([[0.0, np.inf], [1.0, 0.0]])), "inf"),
    (np.arange(3.0), "2-dimensional"),
    (np.zeros((2, 2, 2)), "2-dimensional"),
    (np.zeros((0, 3)), "empty"),
    (np.zeros((3, 0)), "empty"),
    (sp.csr_matrix((0, 3)), "empty"),
])
def test_dataset_rejects_bad_matrices(X, match):
    with pytest.raises(ValueError, match=match):
        apsplit.Dataset(X)


def test_raw_array_instead_of_dataset_is_rejected():
    X = np.arange(8.0).reshape(4, 2)
    for call in (apsplit.find_split, apsplit.grow_tree):
        with pytest.raises(TypeError, match="expected an apsplit.Dataset.*apsplit.Dataset\\(X\\)"):
            call(X, [0, 1, 0, 1])


# ------------------------------------------------------- the plain search on threads
def _threads_data(kind, rng):
    """Two lanes' work (8000 rows x 10 columns; sparse: 20000 rows, whose values are
    the work): ties (rounded and duplicate columns; the sparse zero), zero and extreme
    weights; ``kind``: "dense" (20 coarse bins: the continuous columns are two-level,
    the rounded ones not), "sparse" or "categorical" (columns 0-2)."""
    n = 20000 if kind == "sparse" else 8000
    X = rng.normal(size=(n, 10))
    if kind != "sparse":
        X[:, :5] = np.round(X[:, :5], 1)  # many rows per value
    X[:, 5] = X[:, 4]  # a duplicate column: ties go to the first
    y = (X[:, 0] + X[:, 3] + rng.normal(size=n) > 0).astype(np.int64) + (X[:, 7] > 1)
    w = rng.lognormal(sigma=2.0, size=n)
    w[rng.random(n) < 0.05] = 0.0
    w[:20] *= 1e8
    if kind == "sparse":
        X = sp.csr_matrix(np.where(np.abs(X) < 0.3, 0.0, X))
    if kind == "categorical":
        X[:, :3] = rng.integers(0, 12, size=(n, 3))
        return apsplit.Dataset(X, categorical_features=[0, 1, 2], prefilter=False), y, w
    return apsplit.Dataset(X, coarse_bins=20, prefilter=False), y, w


@pytest.mark.parametrize("kind, criterion, min_leaf", [  # categorical: no minimum leaf size
    ("dense", "error", 1), ("dense", "entropy", 7), ("dense", "gini", 1), ("sparse", "gini", 7),
    ("sparse", "error", 1), ("categorical", "entropy", 1), ("categorical", "gini", 1)])
def test_the_plain_search_on_two_threads_is_the_one_thread_search(kind, criterion, min_leaf):
    """Where the coarse bins do not pay, the exhaustive search deals the features to its
    threads (``search.exhaustive``): the same split, bit for bit, with the same
    accounting, at the root and at every node of a tree."""
    from apsplit.kernels.lanes import lane_count
    ds, y, w = _threads_data(kind, np.random.default_rng(7))
    work = ds.n_bins.sum() if ds.is_sparse else ds.n_features * np.count_nonzero(w)
    assert lane_count(2, ds.n_features, work) == 2
    # the continuous columns 6-9 are two-level: each lane sums their coarse bins apart
    assert kind != "dense" or ds.kernel_data().two_level.sum() == 4
    one, two = apsplit.Exhaustive(n_threads=1), apsplit.Exhaustive(n_threads=2)
    options = dict(criterion=criterion, min_samples_leaf=min_leaf)
    split = apsplit.find_split(ds, y, w, method=one, **options)
    threaded = apsplit.find_split(ds, y, w, method=two, **options)
    assert split.found
    assert_same_split(threaded, split)
    assert (threaded.scans, threaded.assessments) == (split.scans, split.assessments)
    assert split.scans == ds.n_features
    tree = apsplit.grow_tree(ds, y, w, max_depth=3, method=one, **options)
    assert_same_tree(apsplit.grow_tree(ds, y, w, max_depth=3, method=two, **options), tree)
