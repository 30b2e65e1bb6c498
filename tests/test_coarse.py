"""The exhaustive search's prefilter (kernels.coarse, kernels.refine): coarse bins, the
bound inside a bin against brute force, and the same splits and trees as the search
over every feature's exact values."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import apsplit
import oracle
from strategies import WEIGHT_KINDS, nodes, scaled
from test_tree import SETTINGS, assert_same_tree, boosting_weights, check_structure

from apsplit.experiments.loaders import load_bundled
from apsplit.kernels import coarse
from apsplit.kernels.criteria import CRITERIA
from apsplit.kernels.stats import class_totals

UNFILTERED = apsplit.Quick(initial_fraction=1.0)  # every feature scored canonically, no prefilter


def _totals(task):
    """A node's class totals as the tree builder hands them to its histogram."""
    return class_totals(task.index_order, task.w, task.y, task.n_classes)


# ------------------------------------------------------------------ the bins
@pytest.mark.parametrize("fmt", [None, "csr"])
@pytest.mark.parametrize("B", [2, 7, 256])
def test_coarse_bins_group_consecutive_ranks(fmt, B):
    """Every feature's ranks grouped into consecutive coarse bins; sparse: each row's bin
    is its listed entry's or, when it has none, its feature's rest bin, the bin holding
    the most rows (the zeros' on a tie), which lists no row."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=900).round(2), rng.integers(0, 4, 900),
                         np.where(rng.random(900) < 0.7, 0.0, rng.normal(size=900)),
                         np.where(rng.random(900) < 0.8, 1.0, 0.0),  # mostly stored: zeros listed
                         np.full(900, 2.0),  # stored everywhere: no row listed
                         np.zeros(900), np.where(rng.random(900) < 0.5, 0.0, 3.0)])
    X[:20, 3] = 0.5  # a stored value outside the rest bin (B > 2), beside listed zeros
    ds = apsplit.Dataset(X if fmt is None else sp.csr_matrix(X), coarse_bins=B)
    bins = ds.coarse_bins()
    if fmt is not None:
        entry_rows = np.repeat(np.arange(ds.n_rows), np.diff(bins.listed_indptr))
        listed_features = bins.bin_feature[bins.listed_bins]
    for k in range(ds.n_features):
        local = bins.of_rank[ds.bin_offsets[k]:ds.bin_offsets[k + 1]].astype(int)
        n_coarse = bins.offsets[k + 1] - bins.offsets[k]
        assert n_coarse <= min(B, ds.n_bins[k])
        codes = ds.column_codes(k, np.arange(ds.n_rows))
        counts = np.bincount(local, weights=np.bincount(codes, minlength=ds.n_bins[k]))
        assert np.all((counts <= 2 * ds.n_rows / B) | (np.bincount(local) == 1))
        np.testing.assert_array_equal(np.unique(local), np.arange(n_coarse))
        assert np.all(np.diff(local) >= 0), "a coarse bin holds consecutive ranks"
        np.testing.assert_array_equal(bins.span[bins.offsets[k]:bins.offsets[k + 1]],
                                      np.bincount(local))
        expected = bins.offsets[k] + local[codes]
        if fmt is None:
            np.testing.assert_array_equal(bins.offsets[k] + bins.codes[k], expected)
            continue
        listed = listed_features == k
        rebuilt = np.full(ds.n_rows, bins.rest_bin[k])
        rebuilt[entry_rows[listed]] = bins.listed_bins[listed]
        np.testing.assert_array_equal(rebuilt, expected)
        assert not np.any(bins.listed_bins[listed] == bins.rest_bin[k])
        rows_in = np.bincount(expected - bins.offsets[k], minlength=n_coarse)
        assert rows_in[bins.rest_bin[k] - bins.offsets[k]] == rows_in.max()
        if ds.zero_rank[k] >= 0:
            zero_bin = bins.offsets[k] + local[ds.zero_rank[k]]
            if rows_in[zero_bin - bins.offsets[k]] == rows_in.max():
                assert bins.rest_bin[k] == zero_bin
    if fmt is not None:  # the column stored everywhere lists no row; the mostly stored one
        assert not np.any(listed_features == 4)  # its zeros (B = 2: maybe one bin, none)
        assert np.sum(listed_features == 3) < 0.3 * ds.n_rows
        assert B == 2 or np.sum(listed_features == 3) > 0


@pytest.mark.parametrize("bad", [1, 257, 2.5, True, "8"])
def test_coarse_bins_must_be_an_integer_from_2_to_256(bad):
    with pytest.raises(ValueError, match="coarse_bins must be an integer from 2 to 256"):
        apsplit.Dataset(np.zeros((3, 1)), coarse_bins=bad)


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_prefilter_must_be_auto_true_or_false(bad):
    with pytest.raises(ValueError, match="prefilter must be 'auto', True or False"):
        apsplit.Dataset(np.zeros((3, 1)), prefilter=bad)


def test_auto_prefilters_where_the_plain_scans_are_long():
    """"auto": the prefilter at a8a's root (no feature grouped: exact histograms, whose
    larger child's comes by subtraction) and on 56,000 continuous rows (2 values per
    coarse bin on average or more); the same split as without it."""
    X, y, _ = load_bundled("a8a")
    splits = {mode: apsplit.find_split(apsplit.Dataset(X, prefilter=mode), y, criterion="gini",
                                       method="exhaustive") for mode in ("auto", False)}
    assert X.shape[1] < splits["auto"].scans <= X.shape[1] + 3
    assert splits[False].scans == X.shape[1]
    assert (splits["auto"].feature, splits["auto"].threshold, splits["auto"].score) == \
        (splits[False].feature, splits[False].threshold, splits[False].score)
    X, y, _ = load_bundled("higgs7k")
    rng = np.random.default_rng(0)
    X = np.vstack([X * (1 + 1e-6 * rng.uniform(-1, 1, X.shape)) for _ in range(8)])
    y = np.tile(y, 8)
    splits = {mode: apsplit.find_split(apsplit.Dataset(X, prefilter=mode), y, criterion="gini",
                                       method="exhaustive") for mode in ("auto", True, False)}
    F = X.shape[1]
    assert F < splits["auto"].scans <= F + 3 and splits[False].scans == F
    for mode in (True, False):
        assert (splits[mode].feature, splits[mode].threshold, splits[mode].score) == \
            (splits["auto"].feature, splits["auto"].threshold, splits["auto"].score)


def check_auto_at(X, y, w, rows, prefiltered):
    """"auto" prefilters the node ``rows`` (its survivors scanned once more) or not, and
    finds the split the plain search finds."""
    found = {mode: apsplit.find_split(apsplit.Dataset(X, prefilter=mode), y, w,
                                      criterion="gini", method="exhaustive", rows=rows)
             for mode in ("auto", False)}
    F = X.shape[1]
    assert (found["auto"].scans > F) == prefiltered and found[False].scans == F
    assert (found["auto"].feature, found["auto"].threshold, found["auto"].score) == \
        (found[False].feature, found[False].threshold, found[False].score)


def test_without_grouped_features_auto_prefilters_nodes_of_8_rows_per_bin():
    """Three features of 20 values (one coarse bin each, 60 bins), three classes: "auto"
    prefilters a node of at least 8 rows per bin of a feature, 160 rows (the root of 1,000,
    a node of 160), and not one of 159; ``prefilter=True`` prefilters it.  The same split
    either way."""
    rng = np.random.default_rng(5)
    n = 1000
    X = rng.integers(0, 20, (n, 3)).astype(float)
    X[:20] = np.arange(20.0)[:, None]  # every value present
    y = np.digitize(X[:, 1] + 4 * rng.normal(size=n), [7.0, 13.0])
    w = rng.random(n)
    for rows, prefiltered in ((None, True), (np.arange(100, 260), True),
                              (np.arange(100, 259), False)):
        check_auto_at(X, y, w, rows, prefiltered)
    forced = apsplit.find_split(apsplit.Dataset(X, prefilter=True), y, w, criterion="gini",
                                method="exhaustive", rows=np.arange(100, 259))
    assert forced.scans > X.shape[1]


def test_auto_counts_only_the_features_grouped_into_coarse_bins():
    """Ten two-valued features beside three of 1,500 values, three classes: the mean over
    the grouped three (1,500 scanned bins, over 2 per coarse bin) decides, not the mean over
    all 13 (349), so the root is prefiltered; a node of 100 rows scans at most 400 bins per
    feature (under 2 per coarse bin): the plain search.  The same split either way."""
    rng = np.random.default_rng(4)
    n = 1500
    X = np.column_stack([rng.integers(0, 2, (n, 10)), rng.normal(size=(n, 3))])
    y = np.digitize(X[:, 10] + 0.5 * rng.normal(size=n), [-0.5, 0.5])
    w = rng.random(n)
    for rows, prefiltered in ((None, True), (np.arange(100), False)):
        check_auto_at(X, y, w, rows, prefiltered)


@pytest.mark.parametrize("grouped", [False, True])
def test_auto_prefilters_every_node_of_two_classes(grouped):
    """Two classes: "auto" prefilters a node however few rows it holds per bin, grouped
    features or not (20 values, or 1,500 beside ten two-valued ones); the same split."""
    rng = np.random.default_rng(6)
    n = 1500
    X = np.column_stack([rng.integers(0, 2, (n, 10)), rng.normal(size=(n, 3))]) if grouped \
        else rng.integers(0, 20, (n, 3)).astype(float)
    y = (X[:, -1] + 0.5 * rng.normal(size=n) > np.median(X[:, -1])).astype(int)
    w = rng.random(n)
    for rows in (None, np.arange(100), np.arange(10)):
        check_auto_at(X, y, w, rows, True)


# ------------------------------------------------------------ the inner bound
@settings(max_examples=scaled(1.0))
@given(st.integers(2, 5), st.sampled_from(sorted(CRITERIA)), st.data())
def test_inner_bound_is_below_every_split_inside_the_bin(C, criterion, data):
    """Every placement of a bin's examples (not only those its values allow) scores at
    least the bound: the vertex minimum (C <= 4, its two boundaries' scores given) or
    the superadditive bound, as ``box_bound`` computes them."""
    weight = WEIGHT_KINDS[data.draw(st.sampled_from(["uniform", "extreme", "boosting"]))]
    draw_weights = st.lists(weight, min_size=C, max_size=C).map(np.array)
    prefix, suffix = data.draw(draw_weights), data.draw(draw_weights)
    m = data.draw(st.integers(1, 6))
    labels = np.array(data.draw(st.lists(st.integers(0, C - 1), min_size=m, max_size=m)))
    w = np.array(data.draw(st.lists(weight, min_size=m, max_size=m)))
    B = np.bincount(labels, weights=w, minlength=C)
    totals = prefix + B + suffix
    high, left, right = prefix + B, np.empty(C), np.empty(C)
    crit = CRITERIA[criterion]
    before = coarse._split_score(crit, prefix, totals, right)
    after = coarse._split_score(crit, high, totals, right)
    bound = coarse.inner_bound(crit, prefix, high, totals, before, after, left, right)
    vertex = coarse.box_bound(crit, prefix, high, totals, np.inf, left, right)
    superadditive = coarse.box_bound(crit, prefix, high, totals, -np.inf, left, right)
    # for C > 4, the superadditive bound (at most both boundaries' scores, up to rounding);
    # box_bound scores two classes without arrays, so a few ulps of W log2 W apart
    expected = min(before, after, vertex if C <= coarse.MAX_VERTEX_CLASSES else superadditive)
    W = totals.sum()
    tolerance = 1e-14 * W * (2.0 + abs(np.log2(W))) if C == 2 and W > 0.0 else 0.0
    assert abs(bound - expected) <= tolerance
    for side in itertools.product([False, True], repeat=m):
        L = prefix + np.bincount(labels[list(side)], weights=w[list(side)], minlength=C)
        R = totals - L
        score = L.sum() * oracle.impurity(L, criterion) + R.sum() * oracle.impurity(R, criterion)
        assert bound <= score + 1e-9 * totals.sum()


@settings(max_examples=scaled(1.0))
@given(st.integers(2, 5), st.sampled_from(sorted(CRITERIA)), st.data())
def test_box_bound_is_below_every_point_of_the_box(C, criterion, data):
    """Any left weights between low and high (a run's splits inside a flagged bin)
    score at least the bound, vertices and interior points alike."""
    weight = WEIGHT_KINDS[data.draw(st.sampled_from(["uniform", "extreme", "boosting"]))]
    draw_weights = st.lists(weight, min_size=C, max_size=C).map(np.array)
    low, width, rest = data.draw(draw_weights), data.draw(draw_weights), data.draw(draw_weights)
    high = low + width
    totals = high + rest
    left, right = np.empty(C), np.empty(C)
    crit = CRITERIA[criterion]
    bound = coarse.box_bound(crit, low, high, totals, np.inf, left, right)
    superadditive = coarse.box_bound(crit, low, high, totals, -np.inf, left, right)
    assert superadditive <= bound + 1e-12 * totals.sum()
    fractions = data.draw(st.lists(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]),
                                            min_size=C, max_size=C), min_size=1, max_size=8))
    for x in fractions:
        L = low + np.array(x) * width
        R = totals - L
        score = L.sum() * oracle.impurity(L, criterion) + R.sum() * oracle.impurity(R, criterion)
        assert bound <= score + 1e-9 * totals.sum()


@settings(max_examples=scaled(1.0))
@given(st.sampled_from(sorted(CRITERIA)), st.integers(1, 12), st.data())
def test_two_class_scores_are_the_generic_scores(criterion, m, data):
    """The bin-parallel two-class scores (a boundary's, the box's other vertices') are
    the generic ones up to rounding, bins empty or of one class, weights extreme."""
    weight = WEIGHT_KINDS[data.draw(st.sampled_from(["uniform", "extreme", "boosting"]))]
    cell = st.one_of(st.just(0.0), weight)
    weights = np.array(data.draw(st.lists(st.tuples(cell, cell), min_size=m, max_size=m)))
    totals = weights.sum(axis=0) + np.array(data.draw(st.tuples(cell, cell)))
    crit = CRITERIA[criterion]
    fast = np.empty((4, m + 1))
    coarse._two_class_scores(weights, 0, m, None, totals, crit, fast, True)
    boundaries_only = np.full((4, m + 1), np.nan)  # a feature of one value per bin
    coarse._two_class_scores(weights, 0, m, None, totals, crit, boundaries_only, False)
    np.testing.assert_array_equal(boundaries_only[0, :m], fast[0, :m])
    assert np.isnan(boundaries_only[1]).all()
    prefixes = np.vstack([np.zeros(2), np.cumsum(weights, axis=0)])
    left, right = np.empty(2), np.empty(2)
    after = [coarse._split_score(crit, high, totals, right) for high in prefixes[1:]]
    vertices = [coarse.inner_bound(crit, low, high, totals, np.inf, np.inf, left, right)
                for low, high in zip(prefixes[:-1], prefixes[1:])]
    tolerance = 1e-12 * max(totals.sum(), 1e-300)  # ulps of the node weight
    np.testing.assert_allclose(fast[0, :m], after, rtol=0, atol=tolerance)
    np.testing.assert_allclose(fast[1, :m], vertices, rtol=0, atol=tolerance)


def _drawn_bins(data, m, count_choices, crit):
    """m coarse bins of one feature, two classes, drawn: (counts, weights, totals,
    ``BinSums``, n, f(T), (4, 2) scratch); an empty bin's weights are 0.0, as a node's."""
    weight = WEIGHT_KINDS[data.draw(st.sampled_from(["uniform", "extreme", "boosting"]))]
    counts = np.array(data.draw(st.lists(st.sampled_from(count_choices), min_size=m,
                                         max_size=m)), np.int64)
    cell = st.tuples(weight, weight).map(np.array)
    weights = np.array([data.draw(cell) if c > 0 else np.zeros(2) for c in counts]).reshape(m, 2)
    span = np.array(data.draw(st.lists(st.integers(1, 3), min_size=m, max_size=m)), np.int64)
    totals = weights.sum(axis=0)
    sums = coarse.BinSums(np.array([0, m], np.int64), span, weights, counts)
    vectors = np.zeros((4, 2))
    whole = coarse._split_score(crit, vectors[0], totals, vectors[1])
    return counts, weights, totals, sums, np.int64(counts.sum()), whole, vectors


@settings(max_examples=scaled(1.0))
@given(st.sampled_from(sorted(CRITERIA)), st.integers(1, 12), st.integers(1, 4), st.data())
def test_two_class_feature_bounds_are_the_generic_bounds(criterion, m, min_leaf, data):
    """``_feature_bounds`` of two classes (selects, no branch per bin) against
    ``generic_feature_bounds`` on the same bins: the same boundary scores bit for bit,
    the same least admissible boundary, inner bounds up to rounding, +inf in the same
    bins; empty bins (leading, trailing, between), bins of one example, of one value
    and of many, extreme weights, ``min_leaf`` leaving no admissible boundary."""
    crit = CRITERIA[criterion]
    counts, weights, totals, sums, n, whole, vectors = _drawn_bins(data, m, [0, 0, 1, 2, 5], crit)
    results = []
    for bounds_of in ("_feature_bounds", "generic_feature_bounds"):
        out = coarse.BinBounds(np.full(m, np.nan), np.full(m, np.nan))
        least = np.full(1, np.nan)
        scratch = coarse.BoundsScratch(np.full((4, m + 1), np.nan), np.full(m, -1), vectors) \
            if bounds_of == "_feature_bounds" else vectors
        boundary = getattr(coarse, bounds_of)(sums, 0, totals, whole, n, crit, min_leaf, out,
                                              least, scratch)
        results.append((boundary, out, least[0]))
    (fast, fast_bins, fast_least), (generic, generic_bins, generic_least) = results
    assert fast == generic
    np.testing.assert_array_equal(fast_bins.boundary, generic_bins.boundary)
    np.testing.assert_array_equal(np.isinf(fast_bins.inner), np.isinf(generic_bins.inner))
    finite = np.isfinite(generic_bins.inner)
    W = max(totals.sum(), 1e-300)
    tolerance = 1e-14 * W * (2.0 + abs(np.log2(W)))  # a few ulps of W log2 W (box_bound)
    np.testing.assert_allclose(fast_bins.inner[finite], generic_bins.inner[finite], rtol=0,
                               atol=tolerance)
    assert fast_least == generic_least or abs(fast_least - generic_least) <= tolerance


@settings(max_examples=scaled(1.0))
@given(st.sampled_from(sorted(CRITERIA)), st.integers(1, 12), st.integers(1, 4), st.data())
def test_two_class_bounds_of_the_nonempty_bins_listed_are_every_bins_bounds(criterion, m,
                                                                            min_leaf, data):
    """A small node's two-class bounds (``_feature_bounds`` where its rows are at most the
    feature's bins), scored over its nonempty bins only (listed), are the bounds over
    every bin bit for bit: boundary scores, inner bounds, their least and the least
    admissible boundary, +inf at the empty bins; empty bins leading, trailing and
    between, none nonempty, bins of one example, of one value and of many, extreme
    weights, ``min_leaf`` leaving no admissible boundary."""
    crit = CRITERIA[criterion]
    counts, weights, totals, sums, n, whole, vectors = _drawn_bins(data, m, [0, 0, 0, 1, 1, 2],
                                                                   crit)
    nonempty = np.flatnonzero(counts)
    results = []
    for listed in (None, nonempty, "chosen by _feature_bounds"):
        out = coarse.BinBounds(np.full(m, np.nan), np.full(m, np.nan))
        least = np.full(1, np.nan)
        scratch = np.full((4, m + 1), np.nan)
        if isinstance(listed, str):
            boundary = coarse._feature_bounds(sums, 0, totals, whole, n, crit, min_leaf, out,
                                              least, coarse.BoundsScratch(scratch, np.full(m, -1),
                                                                          vectors))
        else:
            if listed is not None:
                out.boundary[:], out.inner[:] = np.inf, np.inf  # as _feature_bounds sets them
            size = m if listed is None else nonempty.size
            coarse._two_class_scores(weights, 0, size, listed, totals, crit, scratch, True)
            boundary = coarse._two_class_bounds(sums, 0, size, listed, n, min_leaf, whole,
                                                scratch, out, least)
        results.append((boundary, out.boundary, out.inner, least[0]))
    every = results[0]
    for other in results[1:]:
        for value, expected in zip(other, every):
            np.testing.assert_array_equal(value, expected)
    assert np.isinf(every[1][counts == 0]).all() and np.isinf(every[2][counts == 0]).all()


@pytest.mark.parametrize("rows", ["every", "half", "seven"])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_nodes_histogram_sums_its_rows_two_level_features_in_row_order(rows, seed):
    """``build_dense``: exact counts; a two-level feature's class weights are the sums of
    its rows in index order, bit for bit (its canonical sums, ``stats``); the others',
    summed in four lanes or from the rows outside a dominant bin, are within the
    histogram's error bound of them.  Few values, one dominant value, extreme weight
    ratios, a node whose size is not a multiple of 4 and one smaller than 4."""
    rng = np.random.default_rng(seed)
    n, C = 1003, 3
    X = np.column_stack([rng.normal(size=n),                        # two-level
                         rng.integers(0, 3, n),                     # three values
                         np.where(rng.random(n) < 0.9, 0.0, rng.integers(1, 20, n)),  # dominant
                         rng.integers(0, 6, n) * (rng.random(n) < 0.5)])
    y = rng.integers(0, C, n)
    w = np.exp(rng.normal(scale=12.0, size=n))  # ratios beyond 1e100
    ds = apsplit.Dataset(X, coarse_bins=8, prefilter=True)
    data, bins = ds.kernel_data(), ds.coarse_bins()
    assert data.two_level.tolist() == [1, 0, 0, 0]
    assert bins.dominant.tolist() == [-1, -1, 0, 0]  # 0.9 and 0.58 of the rows are 0
    node = {"every": np.arange(n), "half": np.sort(rng.choice(n, n // 2, replace=False)),
            "seven": np.sort(rng.choice(n, 7, replace=False))}[rows]
    hist = coarse.new_histogram(bins, C)
    hist.weights[:] = np.nan  # every bin written, empty ones included
    hist.counts[:] = -1
    rows = node.astype(np.int64)
    coarse.build_dense(bins, np.arange(4), rows, w, y, class_totals(rows, w, y, C), hist,
                       np.int64(1))
    for k in range(4):
        lo, hi = bins.offsets[k], bins.offsets[k + 1]
        codes = bins.codes[k, node]
        sums = np.zeros((hi - lo, C))
        np.add.at(sums, (codes, y[node]), w[node])  # unbuffered: in index order
        np.testing.assert_array_equal(hist.counts[lo:hi], np.bincount(codes, minlength=hi - lo))
        if k == 0:
            np.testing.assert_array_equal(hist.weights[lo:hi], sums)
        else:
            assert np.abs(hist.weights[lo:hi] - sums).sum() <= hist.error[0]


@pytest.mark.parametrize("rows", ["every", "half", "seven"])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("C", [2, 3])
def test_a_sparse_nodes_histogram_gives_each_rest_bin_the_rest_of_the_node(rows, seed, C):
    """``build_sparse``: exact counts, class weights within the histogram's error bound
    of the node's rows' sums, whichever bin is a feature's rest: its zeros' (a mostly
    zero column), a stored value's (one-hot's common value, zeros listed), the only
    one (stored everywhere), with listed values beside it; one-hot columns summed down
    their stored rows at a node of every row (two classes); extreme weight ratios."""
    rng = np.random.default_rng(seed)
    n = 1003
    X = np.column_stack([np.where(rng.random(n) < 0.7, 0.0, rng.normal(size=n)),  # rest: zeros
                         np.where(rng.random(n) < 0.85, 1.0, 0.0),                 # rest: 1.0
                         np.full(n, -2.0),                                          # all stored
                         np.where(rng.random(n) < 0.6, 4.0, rng.integers(0, 3, n)),  # rest: 4.0
                         rng.normal(size=n),
                         np.where(rng.random(n) < 0.2, 7.0, 0.0)])                  # one-hot
    y = rng.integers(0, C, n)
    w = np.exp(rng.normal(scale=12.0, size=n))  # ratios beyond 1e100
    ds = apsplit.Dataset(sp.csr_matrix(X), coarse_bins=8, prefilter=True)
    bins, K = ds.coarse_bins(), X.shape[1]
    expected = np.column_stack([bins.offsets[k] + bins.of_rank[ds.bin_offsets[k]
                                + ds.column_codes(k, np.arange(n))] for k in range(K)])
    zero_bins = [bins.offsets[k] + bins.of_rank[ds.bin_offsets[k] + ds.zero_rank[k]]
                 if ds.zero_rank[k] >= 0 else -1 for k in range(K)]
    rest_is_zero = [bins.rest_bin[k] == zero_bins[k] for k in range(K)]
    assert rest_is_zero == [True, False, False, False, False, True]
    node = {"every": np.arange(n), "half": np.sort(rng.choice(n, n // 2, replace=False)),
            "seven": np.sort(rng.choice(n, 7, replace=False))}[rows].astype(np.int64)
    hist = coarse.new_histogram(bins, C)
    hist.weights[:] = np.nan  # every bin written, empty ones included
    hist.counts[:] = -1
    feats = np.arange(K)
    coarse.build_sparse(bins, ds.kernel_data(), feats, feats, node, w, y,
                        class_totals(node, w, y, C), hist)
    for k in range(K):
        lo, hi = bins.offsets[k], bins.offsets[k + 1]
        codes = expected[node, k] - lo
        sums = np.zeros((hi - lo, C))
        np.add.at(sums, (codes, y[node]), w[node])
        np.testing.assert_array_equal(hist.counts[lo:hi], np.bincount(codes, minlength=hi - lo))
        assert np.abs(hist.weights[lo:hi] - sums).sum() <= hist.error[0]
        assert np.all(hist.weights[lo:hi][hist.counts[lo:hi] == 0] == 0.0)


def test_a_feature_with_a_dominant_bin_lists_the_other_rows():
    """``list_other_rows``: a feature whose most frequent coarse bin holds half the rows or
    more lists every other row, ascending, with its bin; two-level features and those
    without such a bin list none."""
    rng = np.random.default_rng(3)
    n = 400
    X = np.column_stack([rng.normal(size=n),                                  # two-level
                         rng.integers(0, 4, n),                               # no bin of half
                         np.where(rng.random(n) < 0.6, 0.0, rng.normal(size=n)),  # mostly 0
                         np.full(n, 2.0),                                     # one value
                         np.where(np.arange(n) < n // 2, 1.0, 5.0)])          # exactly half
    bins = apsplit.Dataset(X, coarse_bins=64, prefilter=True).coarse_bins()
    others = coarse.OtherRows(bins.dominant, bins.other_offsets, bins.other_rows, bins.other_codes)
    assert (others.dominant >= 0).tolist() == [False, False, True, True, True]
    for k in range(X.shape[1]):
        codes = bins.codes[k]
        counts = np.bincount(codes)
        listed = others.rows[others.offsets[k]:others.offsets[k + 1]]
        if k == 0 or counts.max() < n / 2:
            assert others.dominant[k] == -1 and listed.size == 0
            continue
        d = others.dominant[k]
        assert counts[d] == counts.max()
        np.testing.assert_array_equal(listed, np.flatnonzero(codes != d))
        np.testing.assert_array_equal(others.codes[others.offsets[k]:others.offsets[k + 1]],
                                      codes[listed])


def _larger_child(cut, seed=7, n_classes=2, sigma=2.0, zero_share=0.0, levels=None, min_leaf=1):
    """A node of 600 rows split at x_0 <= ``cut``: (Dataset, kernel data, coarse bins, the
    parent's, smaller and larger child's tasks, their weights).  Lognormal weights
    (``sigma``), a ``zero_share`` of them 0; x rounded to 1 / ``levels`` (ties) if given;
    ``min_leaf`` examples at least in each child of a split."""
    from apsplit.finders import check_problem, kernel_task
    rng = np.random.default_rng(seed)
    n = 600
    X = rng.normal(size=(n, 3))
    if levels is not None:
        X = np.round(X * levels) / levels
    y = np.digitize(X[:, 1] + rng.normal(size=n), {2: [0.0], 3: [-0.5, 0.5]}[n_classes])
    w = rng.lognormal(sigma=sigma, size=n)
    w[rng.random(n) < zero_share] = 0.0
    ds = apsplit.Dataset(X, coarse_bins=4, prefilter=True)
    data, bins = ds.kernel_data(), ds.coarse_bins()
    assert data.two_level.all()  # 600 values in 4 coarse bins

    def task(rows):
        problem = check_problem(ds, y, w, "gini", rows, None, False, "tight",
                                min_samples_leaf=min_leaf)
        return kernel_task(problem, np.sort(problem.order))

    return (ds, data, bins, task(np.arange(n)), task(np.flatnonzero(X[:, 0] <= cut)),
            task(np.flatnonzero(X[:, 0] > cut)), w)


@pytest.mark.parametrize("cut", [-0.5, -1.2])  # the larger child: 69% or 88% of the rows
def test_a_larger_childs_subtracted_histogram_is_its_canonical_sums_in_every_finder(cut):
    """The larger child's coarse histogram is its parent's minus the smaller child's
    (``coarse.subtract``): counts exact, weights 0 in its empty bins, nonnegative,
    within the histogram's error bound of the sums of its rows, rounded otherwise.
    Given as the node's canonical coarse sums (``Task.coarse_sums``, as the tree
    builder gives them), the prefiltered search on it returns the split, score and
    child weights of every finder's plain search, bit for bit."""
    from apsplit.finders import get_finder
    from apsplit.kernels.refine import MOST_ROWS
    from apsplit.kernels.search import METHODS, run, run_exhaustive
    from apsplit.kernels.stats import class_totals
    ds, data, bins, parent, smaller, larger, w = _larger_child(cut)
    n = w.size
    assert (larger.index_order.size >= MOST_ROWS * n) == (cut < -1.0)
    one = np.int64(1)
    hists = [coarse.new_histogram(bins, 2) for _ in range(3)]
    for t, hist in zip((parent, smaller, larger), hists):
        coarse.build_dense(bins, t.feats, t.index_order, t.w, t.y, _totals(t), hist, one)
    subtracted, summed_smaller, summed = hists
    coarse.subtract(bins, parent.feats, subtracted, summed_smaller, w.sum())
    np.testing.assert_array_equal(subtracted.counts, summed.counts)
    assert not np.array_equal(subtracted.weights, summed.weights)  # else this shows nothing
    assert np.all(subtracted.weights >= 0.0)
    assert np.all(subtracted.weights[subtracted.counts == 0] == 0.0)
    assert np.abs(subtracted.weights - summed.weights).max() <= subtracted.error[0]
    given = larger._replace(coarse_sums=subtracted.weights, coarse_offsets=bins.offsets)
    totals = class_totals(larger.index_order, larger.w, larger.y, 2)
    with ds.workspace(2) as work:
        prefiltered = run_exhaustive(get_finder("exhaustive").kernel_params(), data, work,
                                     given, bins, subtracted, True, totals)
        plain = [run(np.int64(METHODS[name]), get_finder(name).kernel_params(), data, work,
                     given) for name in ("exhaustive", "quick", "adaptive")]
    assert prefiltered.position >= 0
    for found in plain:
        for field in ("position", "left_rank", "right_rank", "score", "children",
                      "node_weight"):
            np.testing.assert_array_equal(getattr(found, field), getattr(prefiltered, field))


def _most_rows_by_rank_and_listed(seed, **node):
    """The survivors' ``Refined`` rows of a larger child of 93% of the rows (``_larger_child``),
    its flagged bins' rows read by rank from every row of X and listed from its own."""
    ds, data, bins, parent, smaller, larger, w = _larger_child(-1.5, seed, **node)
    hist, small = (coarse.new_histogram(bins, parent.n_classes) for _ in range(2))
    for t, h in ((parent, hist), (smaller, small)):
        coarse.build_dense(bins, t.feats, t.index_order, t.w, t.y, _totals(t), h, np.int64(1))
    coarse.subtract(bins, parent.feats, hist, small, w.sum())
    every_row = _survivors(data, bins, larger, hist)
    assert every_row.row_w.size == w.size  # the path under test
    return _refined_both_ways(ds, data, bins, larger, every_row, every_row._replace(row_w=np.zeros(0)))


def _root_by_rank_and_listed(seed, **node):
    """The survivors' ``Refined`` rows of the root of ``_larger_child``'s rows, its flagged
    bins' rows read from the rows sorted by rank and listed from its own rows.  Second:
    whether the root holds every row (no weight is 0: its weights per row are X's)."""
    ds, data, bins, parent, _, _, w = _larger_child(-1.5, seed, **node)
    hist = coarse.new_histogram(bins, parent.n_classes)
    coarse.build_dense(bins, parent.feats, parent.index_order, parent.w, parent.y,
                       _totals(parent), hist, np.int64(1))
    root = _survivors(data, bins, parent, hist)
    assert root.row_w.size == w.size  # the by-rank path
    return (_refined_both_ways(ds, data, bins, parent, root, root._replace(row_w=np.zeros(0))),
            parent.index_order.size == w.size)


def _survivors(data, bins, task, hist):
    """``refine.Survivors`` of ``task``'s node whose coarse histogram is ``hist``."""
    from apsplit.kernels.refine import survivors_of
    from apsplit.kernels.search import TOL
    rows = task.index_order
    totals = np.bincount(task.y[rows], task.w[rows], minlength=task.n_classes)
    bounds = np.empty(bins.offsets[-1])
    prefilter = coarse.survivors(bins, task.feats, data.categorical, hist, totals,
                                 np.int64(rows.size), task.crit, task.min_leaf,
                                 TOL * totals.sum(), bounds, np.int64(1))
    return survivors_of(task, bins, task.feats, prefilter, bounds, hist, totals,
                        np.int64(1))


def _refined_both_ways(ds, data, bins, task, first, second):
    """The ``Refined`` rows of two ``Survivors`` of ``task``'s node (one thread)."""
    from apsplit.kernels.refine import new_refined, refine_survivors
    got = []
    with ds.workspace(task.n_classes) as work:
        for survivors in (first, second):
            got.append(new_refined(survivors.features.size, task.n_classes))
            refine_survivors(data, work, task, bins, survivors, got[-1], np.int64(1))
    return got


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_a_node_of_most_rows_reads_by_rank_what_its_rows_list(seed):
    """A subtracted node holding ``MOST_ROWS`` of X's rows reads its flagged bins' rows
    by rank from every row of X, the others weighing 0 (x + 0 = x): its survivors' rows
    are the ones its own rows listed give, bit for bit."""
    every_row, listed = _most_rows_by_rank_and_listed(seed)
    assert listed.walked.sum() > 0  # flagged bins' rows were listed and walked
    for a, b in zip(every_row, listed):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", [7, 8, 9])
@pytest.mark.parametrize("min_leaf", [1, 25])
def test_the_roots_flagged_bins_read_by_rank_are_its_rows_listed(seed, min_leaf):
    """A node of every row (the root) reads its flagged bins' rows from the rows sorted
    by rank (``refine._sum_flagged_by_rank``): in index order within a rank, so its
    survivors' rows are the ones its rows listed give, bit for bit."""
    (by_rank, listed), every_row = _root_by_rank_and_listed(seed, min_leaf=min_leaf)
    assert every_row and listed.walked.sum() > 0  # flagged bins' rows were summed and walked
    for a, b in zip(by_rank, listed):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=scaled(0.1))
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([2, 3]), st.sampled_from([0.5, 4.0]),
       st.sampled_from([0.0, 0.05]), st.sampled_from([None, 40]), st.sampled_from([1, 25]))
def test_reading_by_rank_is_listing_under_ties_zeros_and_extreme_weights(
        seed, n_classes, sigma, zero_share, levels, min_leaf):
    """The same for a node of most rows and for the root, with 2 or 3 classes, weight
    ratios up to e^(4 z), zero weights (rows outside every node: 0 in ``row_w`` as the
    other rows are), tied values and a minimum leaf size."""
    node = dict(n_classes=n_classes, sigma=sigma, zero_share=zero_share, levels=levels,
                min_leaf=min_leaf)
    for a, b in zip(*_most_rows_by_rank_and_listed(seed, **node)):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(*_root_by_rank_and_listed(seed, **node)[0]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("criterion", sorted(CRITERIA))
def test_each_boundary_score_is_its_canonical_score(criterion, n_classes):
    """The prefilter scores every coarse boundary of a two-level feature canonically
    (``coarse.BinBounds``): the score ``stats._full_split`` gives the left weights
    P_(b+1), the node's coarse sums added in bin order, bit for bit, so the survivors'
    passes read them; at a larger child too (its subtracted histogram)."""
    from apsplit.kernels.criteria import NO_UB
    from apsplit.kernels.search import TOL
    from apsplit.kernels.stats import _full_split
    ds, data, bins, parent, smaller, larger, w = _larger_child(-0.5, n_classes=n_classes,
                                                               zero_share=0.05)
    hist, small = (coarse.new_histogram(bins, n_classes) for _ in range(2))
    for t, h in ((parent, hist), (smaller, small)):
        coarse.build_dense(bins, t.feats, t.index_order, t.w, t.y, _totals(t), h, np.int64(1))
    for task, h in ((parent, None), (larger, hist)):
        if h is None:
            h = coarse.new_histogram(bins, n_classes)
            coarse.build_dense(bins, task.feats, task.index_order, task.w, task.y, _totals(task),
                               h, np.int64(1))
        else:
            coarse.subtract(bins, parent.feats, h, small, w.sum())
        rows = task.index_order
        totals = np.zeros(n_classes)
        for i in rows:  # in index order, as the tree builder sums them
            totals[task.y[i]] += task.w[i]
        bounds = np.empty(bins.offsets[-1])
        prefilter = coarse.survivors(bins, task.feats, data.categorical, h, totals,
                                     np.int64(rows.size), CRITERIA[criterion], task.min_leaf,
                                     TOL * totals.sum(), bounds, np.int64(1))
        seen_total = 0.0
        for c in range(n_classes):
            seen_total += totals[c]
        checked = 0
        for k in task.feats:
            prefix = np.zeros(n_classes)
            for b in range(bins.offsets[k], bins.offsets[k + 1]):
                if h.counts[b] == 0:
                    assert prefilter.boundary_scores[b] == np.inf
                    continue
                prefix = prefix + h.weights[b]
                expected = _full_split(CRITERIA[criterion], NO_UB, prefix.copy(),
                                       np.empty(n_classes), totals, seen_total,
                                       np.zeros(n_classes), 0.0)
                assert np.array_equal(prefilter.boundary_scores[b], expected)
                checked += 1
        assert checked >= 2 * task.feats.size  # every feature, two boundaries at least


def _root_survivors(X, y, w, coarse_bins):
    """The root's Dataset, task, coarse bins and ``refine.Survivors`` (one thread)."""
    from apsplit.finders import check_problem, kernel_task
    from apsplit.kernels.refine import survivors_of
    from apsplit.kernels.search import TOL
    ds = apsplit.Dataset(X, coarse_bins=coarse_bins, prefilter=True)
    data, bins = ds.kernel_data(), ds.coarse_bins()
    problem = check_problem(ds, y, w, "gini", None, None, False, "tight")
    task = kernel_task(problem, np.sort(problem.order))
    hist = coarse.new_histogram(bins, 2)
    coarse.build_dense(bins, task.feats, task.index_order, task.w, task.y, _totals(task), hist,
                       np.int64(1))
    totals = np.bincount(y, w, minlength=2)
    bounds = np.empty(bins.offsets[-1])
    prefilter = coarse.survivors(bins, task.feats, data.categorical, hist, totals,
                                 np.int64(len(y)), task.crit, task.min_leaf,
                                 TOL * totals.sum(), bounds, np.int64(1))
    return ds, task, bins, survivors_of(task, bins, task.feats, prefilter, bounds, hist, totals,
                        np.int64(1))


def test_a_found_split_lowers_the_limit_for_the_survivors_after_it():
    """Each survivor's pass lowers the limit to its split's score plus the margin
    (``refine``): fewer exact values walked than under the node's limit alone, and the
    same rows wherever a split within the tie window of the optimum lies, on one lane
    or two."""
    from apsplit.kernels.lanes import lane_count
    from apsplit.kernels.refine import new_refined, refine_survivors
    from apsplit.kernels.search import TOL
    rng = np.random.default_rng(3)
    n = 14000
    X = rng.normal(size=(n, 10))  # ten features of about equal worth: several survive
    y = (X @ np.linspace(1.0, 0.9, 10) + rng.normal(size=n) > 0).astype(np.int64)
    w = rng.lognormal(sigma=1.0, size=n)
    ds, task, bins, survivors = _root_survivors(X, y, w, 64)
    assert survivors.features.size >= 3
    assert lane_count(2, survivors.features.size, survivors.features.size * n) == 2
    static = survivors._replace(margin=np.inf)  # min(limit, s + inf): the node's limit throughout
    rows = {}
    with ds.workspace(2) as work:
        for name, chosen, threads in [("static", static, 1), ("lowered", survivors, 1),
                                      ("two lanes", survivors, 2)]:
            rows[name] = new_refined(survivors.features.size, 2)
            refine_survivors(ds.kernel_data(), work, task, bins, chosen, rows[name],
                             np.int64(threads))
    assert rows["lowered"].walked.sum() < rows["static"].walked.sum()
    smallest = rows["static"].scores.min()
    window = rows["static"].scores <= smallest + TOL * w.sum()
    for name in ("lowered", "two lanes"):
        got = rows[name]
        assert got.scores.min() == smallest
        assert np.all(got.scores >= rows["static"].scores)  # a subset of the splits
        assert np.all(got.scores[~window] > smallest + TOL * w.sum())
        for a, b in zip(got[:4], rows["static"][:4]):
            np.testing.assert_array_equal(a[window], b[window])


def test_survivors_are_dealt_to_lanes_by_the_rows_and_bins_their_passes_read():
    """``refine._pass_costs``: at the root, whose coarse sums are read, a two-level
    survivor's pass reads the rows of its bins within the limit and walks its coarse
    bins; dealt by them (``lanes.deal``) the lanes are balanced within the heaviest
    survivor, which round-robin is not here (the survivors are features 0, 2 and 4).
    With no bin within the limit, the survivors are still dealt to both lanes."""
    from apsplit.kernels.lanes import deal
    from apsplit.kernels.refine import BIN_WALK_ROWS, _pass_costs
    rng = np.random.default_rng(1)
    n = 6000
    X = rng.normal(size=(n, 6))
    y = (X @ np.array([1, 0.2, 1, 0.2, 1, 0.2]) + rng.normal(size=n) > 0).astype(np.int64)
    w = rng.lognormal(sigma=1.0, size=n)
    ds, task, bins, survivors = _root_survivors(X, y, w, 32)
    S = survivors.features.size
    assert S >= 3
    expected = np.zeros(S)
    for j, k in enumerate(survivors.features):
        lo, hi = bins.offsets[k], bins.offsets[k + 1]
        within = survivors.bounds[lo:hi] <= survivors.limit
        expected[j] = survivors.node_counts[lo:hi][within].sum() + BIN_WALK_ROWS * (hi - lo)
    costs = _pass_costs(ds.kernel_data(), task, bins, survivors)
    np.testing.assert_array_equal(costs, expected)
    load = np.bincount(deal(costs, 2), weights=costs, minlength=2)
    assert load.max() - load.min() <= costs.max()
    round_robin = np.bincount(np.arange(S) % 2, weights=costs, minlength=2)
    assert round_robin.max() - round_robin.min() > costs.max()
    none_within = survivors._replace(bounds=np.full_like(survivors.bounds, np.inf))
    assert set(deal(_pass_costs(ds.kernel_data(), task, bins, none_within), 2)) == {0, 1}


# --------------------------------------------------- same splits, same trees
@settings(max_examples=scaled(0.5))
@given(nodes(sparse=None, max_rows=60), st.integers(1, 4), st.sampled_from(SETTINGS),
       st.sampled_from([2, 3, 5]), st.sampled_from([1, 1, 3]))
def test_prefiltered_trees_are_the_unfiltered_trees(node, max_depth, setting, B, min_leaf):
    """Coarse bins of many values each, sibling subtraction down the tree: the same tree
    as the plain search on a Dataset of the same coarse bins (its two-level sums)."""
    criterion, bounds = setting
    options = dict(max_depth=max_depth, criterion=criterion, bounds=bounds, rows=node.rows,
                   features=node.features, min_samples_leaf=min_leaf)
    tree = apsplit.grow_tree(apsplit.Dataset(node.matrix(), coarse_bins=B, prefilter=True),
                             node.y, node.w,
                             method="exhaustive", **options)
    reference = apsplit.grow_tree(apsplit.Dataset(node.matrix(), coarse_bins=B, prefilter=False),
                                  node.y, node.w, method=UNFILTERED, **options)
    assert_same_tree(tree, reference)
    check_structure(tree, node.y, node.w, node.rows, max_depth)
    threaded = apsplit.grow_tree(apsplit.Dataset(node.matrix(), coarse_bins=B, prefilter=True),
                                 node.y, node.w, method=apsplit.Exhaustive(n_threads=-1),
                                 **options)
    assert_same_tree(threaded, tree)


@settings(max_examples=scaled(0.3), deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from(oracle.CRITERIA),
       st.sampled_from([0.0, 0.3]), st.sampled_from([1.0, 8.0]))
def test_prefiltered_trees_on_one_hot_columns_are_the_unfiltered_trees(seed, criterion,
                                                                        zero_share, sigma):
    """Sparse one-hot columns, rare, common and stored everywhere, beside a many-valued
    one, two classes, every row: the root's one-hot columns are summed down their
    stored rows (``_sum_one_hot``), the others' rows listed outside their rest bins;
    the same tree as the plain search.  Zero weights, lognormal weights of sigma 8, ties."""
    rng = np.random.default_rng(seed)
    n = 300
    shares = [0.02, 0.3, 0.5, 0.7, 0.95, 1.0]
    X = np.column_stack([(rng.random(n) < share).astype(float) for share in shares]
                        + [np.where(rng.random(n) < 0.4, 0.0, rng.integers(1, 9, n))])
    y = (X[:, 1] + X[:, 3] + rng.random(n) > 1.2).astype(int)
    w = rng.lognormal(sigma=sigma, size=n)
    w[rng.random(n) < zero_share] = 0.0
    w[0] = 1.0
    options = dict(max_depth=3, criterion=criterion)
    ds = apsplit.Dataset(sp.csr_matrix(X), prefilter=True)
    tree = apsplit.grow_tree(ds, y, w, method="exhaustive", **options)
    assert_same_tree(tree, apsplit.grow_tree(apsplit.Dataset(sp.csr_matrix(X), prefilter=False),
                                             y, w, method=UNFILTERED, **options))
    check_structure(tree, y, w, np.arange(n), 3)


def test_each_nodes_class_weights_are_the_totals_its_search_is_given():
    """The tree builder hands each prefiltered search the class weights it summed while
    splitting the parent (``build.grow``): bit for bit the node's ``stats.class_totals``,
    its rows' weights summed in index order, as every finder's search sums them."""
    from apsplit.experiments.phases import _rows_of_nodes
    from apsplit.kernels.stats import class_totals
    X, y, _ = load_bundled("higgs7k")
    X, y = X[:3000], y[:3000]
    w = boosting_weights(len(y), seed=2)
    ds = apsplit.Dataset(X, prefilter=True)
    tree = apsplit.grow_tree(ds, y, w, max_depth=4, criterion="gini", method="exhaustive")
    rows_of = _rows_of_nodes(tree, tree.apply(ds))
    assert tree.node_count >= 15
    for node, rows in rows_of.items():
        np.testing.assert_array_equal(tree.value[node], class_totals(rows, w, y, 2))


@pytest.mark.parametrize("criterion", oracle.CRITERIA)
@pytest.mark.parametrize("fmt", [None, "csr"])
def test_prefiltered_trees_on_higgs7k(criterion, fmt):
    """7000 continuous rows, boosting-like weights, depth 5: the same tree, few survivors."""
    X, y, _ = load_bundled("higgs7k")
    X = X[:3000] if fmt is None else sp.csr_matrix(np.where(np.abs(X[:3000]) < 0.5, 0.0, X[:3000]))
    y = y[:3000]
    w = boosting_weights(len(y), seed=1)
    ds = apsplit.Dataset(X, prefilter=True)
    tree = apsplit.grow_tree(ds, y, w, max_depth=5, criterion=criterion, method="exhaustive")
    assert_same_tree(tree, apsplit.grow_tree(ds, y, w, max_depth=5, criterion=criterion,
                                             method=UNFILTERED))
    assert_same_tree(tree, apsplit.grow_tree(ds, y, w, max_depth=5, criterion=criterion,
                                             method=apsplit.Exhaustive(n_threads=-1)))
    root = apsplit.find_split(ds, y, w, criterion=criterion, method="exhaustive")
    F = ds.n_features
    assert F + 1 <= root.scans <= F + 3, "the coarse bins leave one to three features to score"


@pytest.mark.parametrize("share", ["one row", "first and last", "most", "all but the ends"])
def test_weights_in_node_on_one_two_and_three_lanes(share):
    """``refine.weights_in_node``: a node's weights per row of X, 0 elsewhere, against
    numpy, on one, two and three lanes (the shares end between the node's rows and
    cover X once: a node without X's first or last rows, one of a single row)."""
    from apsplit.kernels.lanes import lane_count
    from apsplit.kernels.refine import weights_in_node
    rng = np.random.default_rng(7)
    N = 80000
    w = rng.lognormal(size=N)
    rows = {"one row": np.array([N // 2]), "first and last": np.array([0, N - 1]),
            "most": np.flatnonzero(rng.random(N) < 0.8),
            "all but the ends": np.arange(1, N - 1)}[share]
    expected = np.zeros(N)
    expected[rows] = w[rows]
    for threads in (1, 2, 3):
        got = weights_in_node(rows.astype(np.int64), w, np.int64(threads))
        assert got.tobytes() == expected.tobytes()
    assert share in ("one row", "first and last") or lane_count(3, rows.size, N + rows.size) == 3


def test_survivors_are_the_same_on_one_two_and_three_lanes():
    """``coarse.survivors`` scores each feature's bins on one thread, the features in
    contiguous shares: the same survivors, limit, boundary scores and bounds on one,
    two and three lanes (enough bins for three)."""
    from apsplit.kernels.lanes import lane_count
    from apsplit.kernels.search import TOL
    rng = np.random.default_rng(11)
    n, K = 6000, 31  # uneven shares
    X = rng.normal(size=(n, K))
    y = (X[:, :4].sum(axis=1) + rng.normal(size=n) > 0).astype(np.int64)
    w = rng.lognormal(size=n)
    ds = apsplit.Dataset(X, prefilter=True)
    bins, data = ds.coarse_bins(), ds.kernel_data()
    problem = apsplit.finders.check_problem(ds, y, w, "gini", None, None, False)
    task = apsplit.finders.kernel_task(problem, np.arange(n))
    hist = coarse.new_histogram(bins, 2)
    totals = _totals(task)
    coarse.build_dense(bins, task.feats, task.index_order, task.w, task.y, totals, hist,
                       np.int64(1))
    assert lane_count(3, K, bins.offsets[-1] * coarse.BIN_BOUND_VISITS) == 3
    results = []
    for threads in (1, 2, 3):
        bounds = np.full(bins.offsets[-1], np.nan)
        prefilter = coarse.survivors(bins, task.feats, data.categorical, hist, totals,
                                     np.int64(n), task.crit, task.min_leaf, TOL * w.sum(),
                                     bounds, np.int64(threads))
        results.append((prefilter.keep.tobytes(), prefilter.limit, prefilter.margin,
                        prefilter.boundary_scores.tobytes(), bounds.tobytes()))
    assert results[0] == results[1] == results[2]
    assert 0 < len(results[0][0]) // 8 < K  # some features pruned, some kept
