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
