"""APGradientBoostingClassifier / Regressor: scikit-learn's estimator checks, the same model as
train (and as XGBClassifier with the same parameters), eval_set with early stopping, NaN in X,
callable objectives."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from apsplit.adapters import DMatrix, train
from apsplit.adapters.sklearn import APGradientBoostingClassifier, APGradientBoostingRegressor

RNG = np.random.default_rng(0)
X = RNG.normal(size=(300, 4))
X[RNG.random(X.shape) < 0.05] = np.nan
SIGNAL = np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1])
Y3 = np.array(["low", "mid", "high"])[np.digitize(SIGNAL, [-0.7, 0.7])]


def _expected_failed_checks(estimator):
    """As in XGBoost's exact method, a row of weight 0 keeps its feature values among the split
    candidates (and softmax gives it hessian 1e-16), so it can move a threshold between two
    weighted rows: the predictions of the zero-weight rows themselves may then differ from a
    fit without them (those of every weighted row agree; checked by hand on 40 draws)."""
    if isinstance(estimator, APGradientBoostingClassifier):
        reason = "a zero-weight row's value stays a split candidate, as in XGBoost"
        return {"check_sample_weight_equivalence_on_dense_data": reason,
                "check_sample_weight_equivalence_on_sparse_data": reason}
    return {}


@parametrize_with_checks([APGradientBoostingClassifier(n_estimators=5, max_depth=3),
                          APGradientBoostingRegressor(n_estimators=5, max_depth=3)],
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_classifier_is_train_with_xgboosts_defaults():
    y = (SIGNAL > 0).astype(int)
    clf = APGradientBoostingClassifier(n_estimators=4, max_depth=3, base_score=0.5).fit(X, y)
    bst = train({"objective": "binary:logistic", "max_depth": 3, "base_score": 0.5},
                DMatrix(X, label=y), 4)
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], bst.predict(X))
    import xgboost as xgb
    ref = xgb.XGBClassifier(n_estimators=4, max_depth=3, base_score=0.5, tree_method="exact",
                            n_jobs=1).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(X), rtol=1e-5, atol=1e-6)


def test_multiclass_labels_and_early_stopping():
    tr, va = slice(0, 200), slice(200, None)
    clf = APGradientBoostingClassifier(n_estimators=50, learning_rate=1.0, max_depth=4,
                                       min_child_weight=0.0, early_stopping_rounds=2)
    clf.fit(X[tr], Y3[tr], eval_set=[(X[va], Y3[va])])
    assert list(clf.classes_) == ["high", "low", "mid"]
    assert clf.best_iteration_ is not None and clf.booster_.num_boosted_rounds() < 50
    losses = clf.evals_result_["validation_0"]["mlogloss"]
    assert np.argmin(losses) == clf.best_iteration_
    proba = clf.predict_proba(X[va])
    assert proba.shape == (100, 3) and np.allclose(proba.sum(1), 1)
    best = clf.booster_.predict(X[va], iteration_range=(0, clf.best_iteration_ + 1))
    np.testing.assert_allclose(proba, best, rtol=1e-6)
    assert set(clf.predict(X[va])) <= set(Y3)
    assert clf.feature_importances_.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="labels not seen"):
        clf.fit(X[tr], Y3[tr], eval_set=[(X[va], np.full(100, "other"))])
    with pytest.raises(ValueError, match="early_stopping_rounds needs an eval_set"):
        clf.fit(X, Y3)


def test_regressor_callable_objective():
    y = SIGNAL + 0.1 * RNG.normal(size=300)

    def squared(y_true, y_pred):
        return y_pred - y_true, np.ones_like(y_pred)

    a = APGradientBoostingRegressor(n_estimators=3, max_depth=2, objective=squared,
                                    base_score=0.0).fit(X, y)
    b = APGradientBoostingRegressor(n_estimators=3, max_depth=2, base_score=0.0).fit(X, y)
    np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-6, atol=1e-7)
    assert a.score(X, y) > 0.5


def _categorical_frame(n=300, seed=0):
    import pandas as pd
    rng = np.random.default_rng(seed)
    c = rng.choice(list("abcdef"), n)
    x = rng.normal(size=n)
    y = (np.isin(c, ["a", "d", "e"]) + 0.2 * x > 0.5).astype(int)
    df = pd.DataFrame({"c": pd.Categorical(c), "x": x})
    return df, y


def test_categorical_features_from_dtype_is_train_on_codes():
    """A DataFrame's category column is split by categories, as train() on its codes with
    feature_types "c"; a predict frame whose dtype orders the categories otherwise, or
    holds one unseen in fit (missing), is coded by fit's categories."""
    df, y = _categorical_frame()
    model = APGradientBoostingClassifier(n_estimators=5, max_depth=3).fit(df, y)
    assert list(model.is_categorical_) == [True, False]
    codes = np.column_stack([df["c"].cat.codes, df["x"]]).astype(float)
    bst = train({"objective": "binary:logistic", "max_depth": 3},
                DMatrix(codes, label=y, feature_types=["c", "q"]), 5)
    np.testing.assert_allclose(model.predict_proba(df)[:, 1], bst.predict(codes), rtol=1e-12)
    reordered = df.copy()
    reordered["c"] = reordered["c"].cat.reorder_categories(list("fedcba"))
    np.testing.assert_array_equal(model.predict_proba(reordered), model.predict_proba(df))
    unseen = df.iloc[:3].copy()
    unseen["c"] = unseen["c"].cat.add_categories("z")
    unseen.loc[unseen.index[0], "c"] = "z"
    as_missing = codes[:3].copy()
    as_missing[0, 0] = np.nan
    np.testing.assert_allclose(model.predict_proba(unseen)[:, 1], bst.predict(as_missing),
                               rtol=1e-12)
    assert any(s is not None for t in model.booster_.trees for s in t.categories_right)


@pytest.mark.parametrize("spec", [[0], np.array([True, False]), ["c"]])
def test_categorical_features_indices_mask_names(spec):
    df, y = _categorical_frame()
    X = df.assign(c=df["c"].cat.codes.astype(float))
    model = APGradientBoostingRegressor(n_estimators=3, max_depth=2,
                                        categorical_features=spec).fit(X, y)
    assert list(model.is_categorical_) == [True, False]
    assert not APGradientBoostingRegressor(n_estimators=1, categorical_features=None).fit(
        df, y).is_categorical_.any()


@pytest.mark.parametrize("spec, message", [
    ([2], "indices in"), (np.array([True]), "mask needs 2"), (["nope"], "not columns"),
    ([1], "categorical feature 1 holds the value")])
def test_bad_categorical_features_are_named(spec, message):
    df, y = _categorical_frame()
    X = df.assign(c=df["c"].cat.codes.astype(float))
    with pytest.raises(ValueError, match=message):
        APGradientBoostingRegressor(n_estimators=1, categorical_features=spec).fit(X, y)
    with pytest.raises(ValueError, match="no feature names"):
        APGradientBoostingRegressor(n_estimators=1, categorical_features=["c"]).fit(
            X.to_numpy(), y)
