"""scikit-learn estimators: the estimator checks, and the same trees as scikit-learn's on real data."""

import inspect
import pickle
import tracemalloc

import numba
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.ensemble import AdaBoostClassifier
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from apsplit.experiments.loaders import load_bundled
from apsplit import Dataset
from apsplit import dataset as apsplit_dataset
from apsplit.adapters import AdaBoost
from apsplit.adapters.sklearn import APBoostClassifier, APTreeClassifier

CRITERIA = ("gini", "entropy")


def bundled(name):
    X, y, _ = load_bundled(name)
    return X, y


@pytest.fixture(scope="module")
def real():
    """Real data sets, exact in float32 (scikit-learn's trees cast X to float32)."""
    higgs, y = bundled("higgs7k")
    return {"satimage": bundled("satimage"),
            "pendigits": bundled("pendigits"),
            "higgs": (higgs.astype(np.float32).astype(np.float64), y),
            "a8a": bundled("a8a")}


# ------------------------------------------------------------ estimator checks
def _expected_failed_checks(estimator):
    """With min_samples_leaf > 1 an integer weight is not a repeated row, as in scikit-learn
    (whose trees fail these checks alike): the leaf sizes count rows."""
    if getattr(estimator, "min_samples_leaf", 1) == 1:
        return {}
    reason = "min_samples_leaf counts rows, not weight"
    return {"check_sample_weight_equivalence_on_dense_data": reason,
            "check_sample_weight_equivalence_on_sparse_data": reason}


@parametrize_with_checks([APTreeClassifier(),
                          APTreeClassifier(criterion="entropy", max_depth=None, method="exhaustive"),
                          APTreeClassifier(min_samples_leaf=2),
                          APBoostClassifier(n_estimators=5),
                          APBoostClassifier(boosting="lazy", n_estimators=5, random_state=0),
                          APBoostClassifier(boosting="trim", n_estimators=5, criterion="error")],
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# ------------------------------------------------------ the same trees as sklearn
def impurity(value, criterion):
    p = value[value > 0] / value.sum()
    return 1.0 - np.sum(p ** 2) if criterion == "gini" else -np.sum(p * np.log2(p))


def children_impurity(values, criterion):
    """Weighted impurity of two children given their class weights."""
    total = sum(v.sum() for v in values)
    return sum(v.sum() * impurity(v, criterion) for v in values) / total


def compare_trees(a, s, criterion):
    """Walk an apsplit Tree beside a scikit-learn ``tree_`` from the root.

    Every pair of nodes reached holds the same examples (count, weight, class
    distribution) and both are leaves or both split.  Where the splits differ,
    scikit-learn's must reach the same impurity as ours (a tie, broken by its
    random feature order) and the walk stops below it.  The one leaf rule
    that differs: scikit-learn splits a pure node when rounding puts its
    impurity above machine epsilon; apsplit keeps it a leaf.
    Returns (nodes compared, ties).
    """
    compared, ties = 0, 0
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        compared += 1
        assert a.n_node_samples[i] == s.n_node_samples[j]
        np.testing.assert_allclose(a.value[i].sum(), s.weighted_n_node_samples[j], rtol=1e-9)
        np.testing.assert_allclose(a.value[i] / a.value[i].sum(), s.value[j][0], atol=1e-9)
        their_leaf = s.children_left[j] < 0
        if a.feature[i] < 0:
            pure = np.count_nonzero(a.value[i]) == 1
            assert their_leaf or (pure and s.impurity[j] < 1e-12), f"apsplit leaf {i}, sklearn split {j}"
            continue
        assert not their_leaf, f"sklearn leaf {j}, apsplit split {i}"
        if a.feature[i] == s.feature[j] and np.isclose(a.threshold[i], s.threshold[j], rtol=1e-12):
            stack += [(a.children_left[i], s.children_left[j]), (a.children_right[i], s.children_right[j])]
            continue
        mine = children_impurity([a.value[a.children_left[i]], a.value[a.children_right[i]]], criterion)
        kids = [s.children_left[j], s.children_right[j]]
        theirs_ = sum(s.weighted_n_node_samples[c] * s.impurity[c] for c in kids) \
            / s.weighted_n_node_samples[j]
        assert abs(mine - theirs_) <= 1e-9, f"node {i}: apsplit {mine}, sklearn {theirs_}"
        ties += 1
    return compared, ties


def fit_both(X, y, criterion, max_depth, sample_weight=None, min_samples_leaf=1, method="exhaustive"):
    ours = APTreeClassifier(criterion=criterion, max_depth=max_depth, method=method,
                            min_samples_leaf=min_samples_leaf).fit(X, y, sample_weight)
    theirs = DecisionTreeClassifier(criterion=criterion, max_depth=max_depth, random_state=0,
                                    min_samples_leaf=min_samples_leaf)
    return ours, theirs.fit(X, y, sample_weight)


@pytest.mark.parametrize("name, criterion", [("satimage", "entropy"), ("pendigits", "entropy"),
                                             ("higgs", "entropy"), ("higgs", "gini")])
def test_same_tree_as_sklearn_without_ties(real, name, criterion):
    """At depth 4 these have no tied candidate splits (the Gini trees of satimage
    and pendigits have one each): identical trees."""
    X, y = real[name]
    ours, theirs = fit_both(X, y, criterion, max_depth=4)
    assert compare_trees(ours.tree_, theirs.tree_, criterion) == (theirs.tree_.node_count, 0)
    assert ours.tree_.node_count == theirs.tree_.node_count
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, atol=1e-12)


@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("name, max_depth, fmt", [("satimage", 8, None), ("pendigits", 8, None),
                                                  ("higgs", 8, None), ("a8a", 6, "csr"),
                                                  ("a8a", 6, "csc")])
def test_deep_trees_reach_sklearn_impurity_at_every_tie(real, name, max_depth, fmt, criterion):
    X, y = real[name]
    X = X if fmt is None else X.asformat(fmt)
    ours, theirs = fit_both(X, y, criterion, max_depth)
    compared, ties = compare_trees(ours.tree_, theirs.tree_, criterion)
    assert compared >= 15, "the walk stopped above depth 3"


@pytest.mark.parametrize("name, criterion, min_samples_leaf, method",
                         [("satimage", "gini", 20, "exhaustive"), ("satimage", "entropy", 0.01, "adaptive"),
                          ("higgs", "gini", 50, "quick"), ("pendigits", "entropy", 7, "adaptive")])
def test_min_samples_leaf_gives_sklearns_tree(real, name, criterion, min_samples_leaf, method):
    """scikit-learn's min_samples_leaf (a count or a fraction of the rows): every leaf keeps
    that many examples, and the tree is scikit-learn's (ties: the same impurity)."""
    X, y = real[name]
    ours, theirs = fit_both(X, y, criterion, 6, min_samples_leaf=min_samples_leaf, method=method)
    compared, _ = compare_trees(ours.tree_, theirs.tree_, criterion)
    assert compared >= 15
    least = min_samples_leaf if isinstance(min_samples_leaf, int) else np.ceil(min_samples_leaf * len(y))
    leaves = ours.tree_.feature < 0
    assert ours.tree_.n_node_samples[leaves].min() >= least
    free = APTreeClassifier(criterion=criterion, max_depth=6).fit(X, y)
    assert free.tree_.n_node_samples[free.tree_.feature < 0].min() < least  # the constraint binds


@pytest.mark.parametrize("criterion", CRITERIA)
def test_boosting_weights_and_zero_weights_match_sklearn(real, criterion):
    X, y = real["satimage"]
    w = np.exp(np.random.default_rng(0).normal(size=len(y)) * 2.0)
    w[::7] = 0.0
    ours, theirs = fit_both(X, y, criterion, max_depth=5, sample_weight=w)
    assert ours.tree_.n_node_samples[0] == np.count_nonzero(w)
    compare_trees(ours.tree_, theirs.tree_, criterion)


def adaboost(estimator, n_estimators=20):
    kwargs = {"algorithm": "SAMME"} if "algorithm" in inspect.signature(AdaBoostClassifier).parameters else {}
    return AdaBoostClassifier(estimator=estimator, n_estimators=n_estimators, random_state=0,
                              **kwargs)


@pytest.mark.parametrize("name, criterion", [("satimage", "gini"), ("pendigits", "gini"),
                                             ("pendigits", "entropy")])
def test_adaboost_same_staged_errors_as_sklearn(real, name, criterion):
    X, y = real[name]
    X, y = X[:2000], y[:2000]
    ours = adaboost(APTreeClassifier(criterion=criterion, max_depth=3)).fit(X, y)
    theirs = adaboost(DecisionTreeClassifier(criterion=criterion, max_depth=3)).fit(X, y)
    assert len(ours.estimators_) == len(theirs.estimators_) == 20
    for a, s in zip(ours.estimators_, theirs.estimators_):
        compare_trees(a.tree_, s.tree_, criterion)
    np.testing.assert_array_equal(list(ours.staged_score(X, y)), list(theirs.staged_score(X, y)))
    np.testing.assert_allclose(ours.estimator_weights_, theirs.estimator_weights_, rtol=1e-9)


@pytest.mark.parametrize("name, criterion, max_depth, min_samples_leaf, n_jobs",
                         [("satimage", "gini", 3, 1, None), ("pendigits", "entropy", 3, 1, -1),
                          ("pendigits", "gini", 1, 1, None), ("satimage", "gini", 3, 25, -1),
                          ("pendigits", "entropy", 3, 10, None)])
def test_apboost_same_staged_errors_as_sklearn_adaboost(real, name, criterion, max_depth,
                                                        min_samples_leaf, n_jobs):
    X, y = real[name]
    X, y = X[:2000], y[:2000]
    ours = APBoostClassifier(n_estimators=20, criterion=criterion, max_depth=max_depth,
                             min_samples_leaf=min_samples_leaf, n_jobs=n_jobs).fit(X, y)
    theirs = adaboost(DecisionTreeClassifier(criterion=criterion, max_depth=max_depth,
                                             min_samples_leaf=min_samples_leaf)).fit(X, y)
    np.testing.assert_allclose([h["train_error"] for h in ours.history_],
                               [1 - s for s in theirs.staged_score(X, y)], atol=1e-12)
    for mine, sklearn in zip(ours.staged_predict(X), theirs.staged_predict(X)):
        np.testing.assert_array_equal(mine, sklearn)
    np.testing.assert_allclose(ours.estimator_weights_, theirs.estimator_weights_, rtol=1e-9)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-9)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-9)
    ties = sum(compare_trees(a, s.tree_, criterion)[1]
               for a, s in zip(ours.booster_.trees_, theirs.estimators_))
    if ties == 0:  # a tie may split on another feature: same predictions, other importances
        np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_, atol=1e-9)


# ------------------------------------------------------------------ behaviour
def small_problem(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, 5)).astype(float)
    X[rng.random(X.shape) < 0.6] = 0.0
    labels = np.array(["cat", "dog", "eel"])
    y = labels[(X[:, 0] + X[:, 2] > 4).astype(int) + (X[:, 1] > 2)]
    return X, y


def test_string_labels_and_fitted_attributes():
    X, y = small_problem()
    clf = APTreeClassifier(criterion="entropy", max_depth=3).fit(X, y)
    np.testing.assert_array_equal(clf.classes_, ["cat", "dog", "eel"])
    assert clf.n_classes_ == 3 and clf.n_features_in_ == 5
    assert set(clf.predict(X)) <= set(clf.classes_)
    assert clf.score(X, y) > 0.9
    proba = clf.predict_proba(X)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))
    assert clf.feature_importances_.shape == (5,)
    assert abs(clf.feature_importances_.sum() - 1.0) < 1e-12
    assert np.all(clf.tree_.feature[clf.apply(X)] == -1)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_input_gives_the_dense_tree(fmt):
    X, y = small_problem(seed=1)
    dense = APTreeClassifier(max_depth=4).fit(X, y)
    Xs = sp.csr_matrix(X).asformat(fmt)
    sparse = APTreeClassifier(max_depth=4).fit(Xs, y)
    for name in ("feature", "threshold", "value", "children_left"):
        np.testing.assert_array_equal(getattr(sparse.tree_, name), getattr(dense.tree_, name))
    np.testing.assert_array_equal(sparse.predict_proba(Xs), dense.predict_proba(X))
    np.testing.assert_array_equal(sparse.apply(Xs), dense.apply(X))


def test_sparse_input_is_never_densified():
    """Binning, fitting and predicting a 100000 x 2000 matrix with 40000 entries (1.6 GB
    dense in float64, 200 MB in one byte per cell) peak below 1/50 of its dense size.

    tracemalloc sees every numpy allocation, so a dense copy made by any route
    (toarray, todense, np.asarray, .A, another sparse class) counts, whatever
    its dtype down to one byte a cell.
    """
    rng = np.random.default_rng(0)
    n, K, nnz = 100_000, 2000, 40_000
    X = sp.csr_matrix((rng.integers(1, 9, nnz).astype(float),
                       (rng.integers(0, n, nnz), rng.integers(0, K, nnz))), shape=(n, K))
    y = (np.asarray(X[:, :50].sum(axis=1)).ravel() + rng.random(n) > 0.9).astype(int)
    limit = n * K * 8 / 50
    fits = {"tree": lambda X: APTreeClassifier(max_depth=3).fit(X, y).predict_proba(X),
            "boost": lambda X: APBoostClassifier(n_estimators=3, max_depth=2).fit(X, y).predict(X)}
    APTreeClassifier(max_depth=3).fit(X[:1000], y[:1000])  # load the kernels before tracing
    APBoostClassifier(n_estimators=3, max_depth=2).fit(X[:1000], y[:1000]).predict(X[:1000])
    inputs = [cls(X) for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.lil_matrix,
                                 sp.csr_array, sp.coo_array)]
    runs = [(f"Dataset({type(A).__name__})", lambda A=A: Dataset(A)) for A in inputs]
    runs += [(f"{name} on {type(A).__name__}", lambda fit=fit, A=A: fit(A))
             for name, fit in fits.items() for A in inputs[:2]]
    for what, run in runs:
        tracemalloc.start()
        try:
            run()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < limit, f"{what}: peak {peak / 1e6:.0f} MB, the dense matrix {n * K * 8 / 1e9:.1f} GB"


def test_every_method_grows_the_same_tree():
    X, y = small_problem(seed=2)
    w = np.random.default_rng(3).exponential(size=len(y))
    trees = [APTreeClassifier(criterion="gini", max_depth=4, method=m).fit(X, y, w).tree_
             for m in ("exhaustive", "quick", "adaptive")]
    for tree in trees[1:]:
        np.testing.assert_array_equal(tree.feature, trees[0].feature)
        np.testing.assert_array_equal(tree.threshold, trees[0].threshold)
    assert trees[2].assessments <= trees[0].assessments


def test_pickle_round_trip():
    X, y = small_problem()
    clf = APTreeClassifier(max_depth=4).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_X_is_rejected(bad):
    X, y = small_problem()
    X[3, 2] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        APTreeClassifier().fit(X, y)
    clf = APTreeClassifier().fit(*small_problem())
    with pytest.raises(ValueError, match="NaN|infinity"):
        clf.predict(X)


@pytest.mark.parametrize("y", [np.linspace(0.0, 1.0, 60), np.r_[np.zeros(30), np.full(30, 0.5)],
                               np.eye(2, dtype=int)[np.arange(60) % 2]])
def test_estimators_and_clients_refuse_the_same_labels_alike(y):
    """Continuous and multilabel targets: one rule, one message (scikit-learn's)."""
    X = np.random.default_rng(0).random((60, 3))
    messages = set()
    for model in (APTreeClassifier(), APBoostClassifier(n_estimators=2), AdaBoost(n_rounds=2)):
        with pytest.raises(ValueError, match="Unknown label type: continuous|1d array") as err:
            model.fit(X, y)
        messages.add(str(err.value))
    assert len(messages) == 1


def test_input_errors():
    X, y = small_problem()
    with pytest.raises(NotFittedError):
        APTreeClassifier().predict(X)
    clf = APTreeClassifier().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :4])
    with pytest.raises(ValueError, match="min_samples_leaf"):
        APTreeClassifier(min_samples_leaf=0).fit(X, y)
    with pytest.raises(ValueError, match="min_samples_leaf"):
        APTreeClassifier(min_samples_leaf=1.5).fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        APTreeClassifier(criterion="mse").fit(X, y)
    with pytest.raises(ValueError, match="unknown method"):
        APTreeClassifier(method="fastest").fit(X, y)
    with pytest.raises(ValueError, match="bounds"):
        APTreeClassifier(criterion="gini", bounds="loose").fit(X, y)
    with pytest.raises(ValueError, match="non-negative"):
        APTreeClassifier().fit(X, y, -np.ones(len(y)))
    with pytest.raises(ValueError, match="n_threads must be a positive integer or -1"):
        APTreeClassifier(n_jobs=0).fit(X, y)


@pytest.mark.parametrize("fmt", [None, "csr"])
def test_apboost_clients_see_their_share(fmt):
    X, y = small_problem(seed=4)
    X = X if fmt is None else sp.csr_matrix(X)
    lazy = APBoostClassifier(boosting="lazy", n_estimators=8, feature_fraction=0.4,
                             random_state=0).fit(X, y)
    assert {h["n_features"] for h in lazy.history_} == {2}
    trim = APBoostClassifier(boosting="trim", n_estimators=8, mass=0.5).fit(X, y)
    assert all(h["n_rows"] < len(y) for h in trim.history_[1:])
    for model in (lazy, trim):
        stages = list(model.staged_decision_function(X))
        assert len(stages) == len(model.estimator_weights_) == len(model.history_)
        np.testing.assert_allclose(stages[-1], model.decision_function(X))
        np.testing.assert_array_equal(list(model.staged_predict(X))[-1], model.predict(X))
        assert set(model.predict(X)) <= {"cat", "dog", "eel"}
        again = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


def test_apboost_input_errors():
    X, y = small_problem()
    with pytest.raises(NotFittedError):
        APBoostClassifier().decision_function(X)
    with pytest.raises(ValueError, match="one class"):
        APBoostClassifier().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="boosting"):
        APBoostClassifier(boosting="gradient").fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        APBoostClassifier().fit(np.full_like(X, np.nan), y)
    with pytest.raises(ValueError, match="features"):
        APBoostClassifier(n_estimators=3).fit(X, y).predict(X[:, :2])


@pytest.mark.parametrize("estimator, n_jobs, threads", [
    (APTreeClassifier, None, 1), (APTreeClassifier, 2, 2), (APBoostClassifier, None, 1),
    (APBoostClassifier, 2, 2), (APBoostClassifier, -1, numba.get_num_threads())])
def test_x_is_binned_on_the_finders_threads(monkeypatch, estimator, n_jobs, threads):
    asked = []
    bin_columns = apsplit_dataset.bin_columns
    monkeypatch.setattr(apsplit_dataset, "bin_columns",
                        lambda X, t: asked.append(t) or bin_columns(X, t))
    X, y = small_problem(seed=5)
    estimator(n_jobs=n_jobs, method="exhaustive").fit(X, y)
    assert asked == [min(threads, numba.get_num_threads())]
