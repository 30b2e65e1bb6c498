"""Exporting AdaBoost / SAMME (``adapters.boosting``, ``APBoostClassifier``) and
``APTreeClassifier`` to XGBoost and LightGBM (``adapters.export.vote_booster`` /
``proba_booster``), checked with the real libraries on the bundled datasets.

**How close.**  LightGBM sums the leaves in double: its raw scores are apsplit's
``decision_function`` (``predict_proba`` for a tree) within 1e-12 (apsplit divides
the vote sum by sum |alpha| once, the leaves carry alpha_t / sum |alpha|: rounding
only).  XGBoost sums float32 leaves in float32: a row's margin is within
``(T + 2) * eps32 * S``, S the sum of |leaf| the row reaches (at most 2 for two
classes, 1 for SAMME's margins, 1 for a tree's probabilities), T the trees per
output.  Both are asserted on the training rows and on up to 1000 held-out rows.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from apsplit import Dataset
from apsplit.adapters import AdaBoost, LazyBoost
from apsplit.adapters.sklearn import APBoostClassifier, APTreeClassifier
from samples import bundled_sample, fresh_process_scores

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")

EPS32 = float(np.finfo(np.float32).eps)
ROUNDS = 8


def _both(X, Xo):
    return sp.vstack([X, Xo]).tocsr() if sp.issparse(X) else np.vstack([X, Xo])


# name: dataset, rows, labels, model, rows rounded to float32
CASES = {
    "satimage-samme": ("satimage", 1500, lambda y: y,
                       lambda: AdaBoost(n_rounds=ROUNDS, max_depth=3, method="exhaustive"), True),
    "higgs7k-adaboost-float64": ("higgs7k", 2000, lambda y: y,
                                 lambda: AdaBoost(n_rounds=ROUNDS, max_depth=3,
                                                  method="exhaustive"), False),
    "higgs7k-textbook-lazy": ("higgs7k", 1500, lambda y: y,
                              lambda: LazyBoost(n_rounds=ROUNDS, max_depth=2, method="exhaustive",
                                                algorithm="textbook", random_state=0), True),
    "a8a-sparse-apboost": ("a8a", 3000, lambda y: y,
                           lambda: APBoostClassifier(n_estimators=ROUNDS, max_depth=3), True),
    "satimage-apboost-labels": ("satimage", 1000, lambda y: np.array(list("abcdef"))[y],
                                lambda: APBoostClassifier(n_estimators=ROUNDS, max_depth=2,
                                                          learning_rate=0.5), True),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def boosted(request):
    name, rows, labels, make, round32 = CASES[request.param]
    X, y, Xo, _ = bundled_sample(name, rows, round32=round32)
    model = make().fit(X, labels(y.astype(int)))
    return request.param, model, X, _both(X, Xo)


def _bound(model):
    n_classes = len(model.classes_)
    rounds = len(model.estimator_weights_)
    return (rounds + 2) * EPS32 * (2.0 if n_classes == 2 else 1.0)


def test_xgboost_margins_are_the_decision_function(boosted):
    case, model, X, X_all = boosted
    xb = model.to_xgboost()
    d = xgb.DMatrix(X_all)  # sparse: an absent entry is missing, sent where 0 goes
    ours = model.decision_function(X_all)
    theirs = xb.predict(d, output_margin=True)
    assert theirs.shape == ours.shape
    assert np.max(np.abs(theirs - ours)) <= _bound(model), case
    codes = np.searchsorted(model.classes_, model.predict(X_all))
    if len(model.classes_) == 2:  # binary:logitraw: predict is the margin
        np.testing.assert_array_equal(xb.predict(d), theirs)
        clear = np.abs(ours) > _bound(model)
        np.testing.assert_array_equal((theirs > 0)[clear], codes[clear] == 1)
    else:  # multi:softmax: the class code, wherever the two best margins are apart
        top2 = np.sort(ours, axis=1)[:, -2:]
        clear = top2[:, 1] - top2[:, 0] > 2 * _bound(model)
        assert clear.mean() > 0.9
        np.testing.assert_array_equal(xb.predict(d)[clear], codes[clear])


def test_lightgbm_raw_scores_are_the_decision_function(boosted):
    case, model, X, X_all = boosted
    lb = model.to_lightgbm()  # an absent sparse entry is 0.0, as apsplit reads it
    ours = model.decision_function(X_all)
    np.testing.assert_allclose(lb.predict(X_all, raw_score=True), ours, rtol=0, atol=1e-12)
    codes = np.searchsorted(model.classes_, model.predict(X_all))
    if len(model.classes_) > 2:
        np.testing.assert_array_equal(np.argmax(lb.predict(X_all, raw_score=True), axis=1), codes)
    else:  # no objective: predict is the raw score
        np.testing.assert_allclose(lb.predict(X_all), ours, rtol=0, atol=1e-12)


def test_one_tree_per_round_and_class(boosted):
    case, model, X, _ = boosted
    rounds, n_classes = len(model.estimator_weights_), len(model.classes_)
    outputs = 1 if n_classes == 2 else n_classes
    assert model.to_xgboost().num_boosted_rounds() == rounds
    assert model.to_lightgbm().num_trees() == rounds * outputs


@pytest.mark.parametrize("name, rows", [("satimage", 1500), ("higgs7k", 2000), ("a8a", 3000)])
def test_a_tree_classifier_exports_its_probabilities(name, rows):
    X, y, Xo, _ = bundled_sample(name, rows, round32=False)
    tree = APTreeClassifier(max_depth=5).fit(X, y)
    X_all = _both(X, Xo)
    proba = tree.predict_proba(X_all)
    want = proba[:, 1] if proba.shape[1] == 2 else proba
    theirs = tree.to_xgboost().predict(xgb.DMatrix(X_all))
    assert theirs.shape == want.shape
    assert np.max(np.abs(theirs - want)) <= 3 * EPS32
    np.testing.assert_allclose(tree.to_lightgbm().predict(X_all), want, rtol=0, atol=1e-15)


@pytest.mark.parametrize("kind", ["samme", "tree"])
def test_saved_files_load_in_a_fresh_process(tmp_path, kind):
    X, y, Xo, _ = bundled_sample("satimage", 1000)
    if kind == "samme":
        model = APBoostClassifier(n_estimators=5, max_depth=2).fit(X, y)
        score = model.decision_function
    else:
        model = APTreeClassifier(max_depth=4).fit(X, y)
        score = model.predict_proba
    model.save_model(tmp_path / "m.json", format="xgboost")
    model.save_model(str(tmp_path / "m.txt"), format="lightgbm")
    X_all = _both(X, Xo)
    xm, lm = fresh_process_scores(tmp_path / "m.json", tmp_path / "m.txt", X_all, tmp_path)
    ours = score(X_all)
    assert np.max(np.abs(xm - ours)) <= 8 * EPS32
    np.testing.assert_allclose(lm, ours, rtol=0, atol=1e-12)


def test_feature_names_of_a_dataframe_travel():
    pd = pytest.importorskip("pandas")
    X, y, _, _ = bundled_sample("satimage", 500)
    frame = pd.DataFrame(X, columns=[f"band_{i}" for i in range(X.shape[1])])
    model = APBoostClassifier(n_estimators=3, max_depth=2).fit(frame, y == 3)
    assert model.to_xgboost().feature_names == list(frame.columns)
    assert model.to_lightgbm().feature_name() == list(frame.columns)


# ------------------------------------------------------------------ refused
def test_a_split_no_float32_threshold_can_hold_is_refused():
    X = np.array([[1.0], [1.0 + 1e-12], [1.0], [1.0 + 1e-12]])
    y = np.array([0, 1, 0, 1])
    model = AdaBoost(n_rounds=1, max_depth=1, method="exhaustive").fit(X, y)
    assert model.trees_[0].feature[0] == 0  # apsplit (float64) splits the two values
    with pytest.raises(ValueError, match=r"tree 0, node 0 \(feature 0\).*1\.0 and "
                                         r"1\.000000000001.*one float32"):
        model.to_xgboost()
    # LightGBM compares in double: it holds the split
    np.testing.assert_array_equal(model.to_lightgbm().predict(X), model.decision_function(X))


def test_categorical_splits_are_the_libraries_categorical_splits():
    rng = np.random.default_rng(0)

    def rows(n, n_categories):
        return np.column_stack([rng.normal(size=n), rng.integers(0, n_categories, size=n),
                                rng.integers(0, 5, size=n)]).astype(float)
    X = rows(600, 40)
    y = (np.isin(X[:, 1], [1, 3, 20, 21, 35]) ^ (X[:, 0] > 1)).astype(int)
    model = AdaBoost(n_rounds=6, max_depth=2, method="exhaustive")
    model.fit(Dataset(X, categorical_features=[1, 2]), y)
    assert any(c is not None for t in model.trees_ for c in t.categories_left)
    X_all = np.vstack([X, rows(300, 60)])  # held out: categories never seen in training too
    X_all[-5:, 1] = -3.0  # negative: right in apsplit, "invalid" in both libraries
    ours = model.decision_function(X_all)
    np.testing.assert_allclose(model.to_lightgbm().predict(X_all), ours, rtol=0, atol=1e-12)
    xb = model.to_xgboost()
    assert xb.feature_types == ["q", "c", "c"]
    theirs = xb.predict(xgb.DMatrix(X_all, feature_types=xb.feature_types,
                                    enable_categorical=True))
    assert np.max(np.abs(theirs - ours)) <= _bound(model)
    X[:, 1] -= 0.5  # categories -0.5, 0.5, ...: not non-negative integers
    model.fit(Dataset(X, categorical_features=[1, 2]), y)
    with pytest.raises(ValueError, match=r"splits feature 1 by categories \[.*\]: the formats "
                                         r"hold categories that are integers in \[0, 2\*\*24\)"):
        model.to_lightgbm()
    with pytest.raises(ValueError, match=r"splits feature 1 by categories"):
        model.to_xgboost()


def test_an_unfitted_model_and_an_unknown_format(tmp_path):
    with pytest.raises(ValueError, match="not fitted"):
        AdaBoost(n_rounds=2).to_xgboost()
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        APTreeClassifier().to_lightgbm()
    X, y, _, _ = bundled_sample("satimage", 300)
    model = APTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match=r"'onnx'.*\['xgboost', 'lightgbm'\]"):
        model.save_model(tmp_path / "m", format="onnx")
