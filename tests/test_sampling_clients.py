"""Row and column sampling in the AdaBoost clients (``Boosting(sampler=...)``,
``APBoostClassifier(subsample=, colsample_bytree=)``) and the sampling parameters of the
gradient-boosting estimators: the counts, what the trees were grown on, seeds, bad input."""

import numpy as np
import pytest

from apsplit.adapters import AdaBoost, DMatrix, LazyBoost, train
from apsplit.adapters.sampling import (GOSS, Chain, ColumnSample, Sample, Sampler, Subsample,
                                       colsample_count)
from apsplit.adapters.sklearn import (APBoostClassifier, APGradientBoostingClassifier,
                                      APGradientBoostingRegressor)
from samples import bundled_sample


@pytest.fixture(scope="module")
def data():
    X, y, _, _ = bundled_sample("satimage", 1000)
    return X, y


class _Fixed(Sampler):
    """Every other row from round % 2, and the features 0, 5 and 17."""

    name = "fixed"

    def sample(self, round, grad, hess, rng):
        rows = np.arange(round % 2, grad.shape[0], 2)
        return Sample(rows, grad, hess, np.array([0, 5, 17]))


def test_the_tree_is_grown_on_the_samplers_rows_and_features(data):
    X, y = data
    model = AdaBoost(n_rounds=4, max_depth=3, method="exhaustive", sampler=_Fixed()).fit(X, y)
    assert [h["sampler"] for h in model.history_] == ["fixed"] * 4
    for t, (tree, record) in enumerate(zip(model.trees_, model.history_)):
        assert set(tree.feature[tree.feature >= 0]) <= {0, 5, 17}
        assert record["n_rows"] == tree.n_node_samples[0] == X[t % 2::2].shape[0]
        assert record["n_features"] == 3
    # the error and the reweighting cover every row: apsplit's training error is of them all
    assert model.history_[-1]["train_error"] == pytest.approx(np.mean(model.predict(X) != y))


def test_every_finder_grows_the_same_trees_on_the_draws(data):
    X, y = data

    def fit(method):
        return AdaBoost(n_rounds=4, max_depth=3, method=method, random_state=2,
                        sampler=Chain(Subsample(0.5), ColumnSample(0.5))).fit(X, y)
    exhaustive, adaptive = fit("exhaustive"), fit("adaptive")
    for a, b in zip(exhaustive.trees_, adaptive.trees_):
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_array_equal(exhaustive.estimator_weights_, adaptive.estimator_weights_)
    assert adaptive.history_[0]["assessments"] < exhaustive.history_[0]["assessments"]


def test_subsample_and_colsample_counts(data):
    X, y = data
    sampler = Chain(Subsample(0.4), ColumnSample(0.25))
    model = AdaBoost(n_rounds=12, max_depth=2, method="exhaustive", sampler=sampler,
                     random_state=0).fit(X, y)
    rows = np.array([h["n_rows"] for h in model.history_])
    n = X.shape[0]
    # Binomial(n, 0.4) per round: the mean of 12 within 4 standard errors
    assert abs(rows.mean() - 0.4 * n) < 4 * np.sqrt(n * 0.4 * 0.6 / rows.size)
    assert len(set(rows)) > 1
    assert all(h["n_features"] == colsample_count(0.25, 36) == 9 for h in model.history_)


def test_seeded_by_random_state(data):
    X, y = data

    def fit(seed):
        return APBoostClassifier(n_estimators=5, max_depth=2, subsample=0.5,
                                 colsample_bytree=0.5, random_state=seed).fit(X, y)
    a, b, c = fit(3), fit(3), fit(4)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert [h["n_rows"] for h in a.history_] != [h["n_rows"] for h in c.history_]
    lazy = LazyBoost(n_rounds=3, max_depth=2, method="exhaustive", random_state=1,
                     sampler=Subsample(0.5)).fit(X, y)
    assert all(h["n_features"] == 18 for h in lazy.history_)  # LazyBoost's own draw, kept


def test_a_sampled_model_exports_its_decision_function(data):
    xgb = pytest.importorskip("xgboost")
    X, y = data
    model = APBoostClassifier(n_estimators=5, max_depth=2, subsample=0.6,
                              random_state=0).fit(X, y == 3)
    theirs = model.to_xgboost().predict(xgb.DMatrix(X))
    assert np.max(np.abs(theirs - model.decision_function(X))) <= 7 * 2 * 2 ** -23
    np.testing.assert_allclose(model.to_lightgbm().predict(X), model.decision_function(X),
                               rtol=0, atol=1e-12)


def test_what_the_boosting_clients_refuse(data):
    X, y = data
    with pytest.raises(ValueError, match="GOSS ranks rows by their gradients"):
        AdaBoost(sampler=GOSS())
    with pytest.raises(TypeError, match="sampler must be an apsplit.adapters.sampling.Sampler"):
        AdaBoost(sampler="subsample")
    with pytest.raises(ValueError, match="colsample_bylevel/bynode"):
        AdaBoost(n_rounds=2, method="exhaustive", sampler=ColumnSample(bylevel=0.5)).fit(X, y)

    class Doubling(Sampler):
        name = "doubling"

        def sample(self, round, grad, hess, rng):
            return Sample(None, 2 * grad, 2 * hess)

    with pytest.raises(ValueError, match="'doubling' changed the weights"):
        AdaBoost(n_rounds=2, method="exhaustive", sampler=Doubling()).fit(X, y)

    class Nothing(Sampler):
        name = "nothing"

        def sample(self, round, grad, hess, rng):
            return Sample(np.zeros(0, np.int64), grad, hess)

    with pytest.raises(ValueError, match="'nothing' drew no example of positive weight in "
                                         "round 1"):
        AdaBoost(n_rounds=2, method="exhaustive", sampler=Nothing()).fit(X, y)
    for bad in (0.0, 1.5):
        for name in ("subsample", "colsample_bytree"):
            with pytest.raises(ValueError, match=f"'{name}' parameter of APBoostClassifier"):
                APBoostClassifier(n_estimators=2, **{name: bad}).fit(X, y)


# ------------------------------------------------------------------ gradient-boosting estimators
SAMPLED = {"subsample": 0.7, "colsample_bytree": 0.8, "colsample_bylevel": 0.5,
           "colsample_bynode": 0.6}


def test_the_estimators_sample_as_train_does(data):
    X, y = data
    clf = APGradientBoostingClassifier(n_estimators=4, max_depth=3, random_state=5, **SAMPLED)
    clf.fit(X, y == 3)
    bst = train({"objective": "binary:logistic", "max_depth": 3, "seed": 5, **SAMPLED},
                DMatrix(X, label=(y == 3).astype(float)), 4)
    np.testing.assert_array_equal(clf.predict_proba(X)[:, 1], bst.predict(X))
    assert [h["rows"] for h in clf.history_] == [h["rows"] for h in bst.history]
    per_tree = colsample_count(0.8, 36)
    assert all(h["features"] == per_tree for h in clf.history_)
    assert all(h["node_features"] == colsample_count(0.6, colsample_count(0.5, per_tree))
               for h in clf.history_)
    goss = APGradientBoostingRegressor(n_estimators=6, max_depth=3, learning_rate=0.5,
                                       data_sample_strategy="goss", top_rate=0.3,
                                       other_rate=0.2).fit(X, y)
    rows = [h["rows"] for h in goss.history_]
    assert rows[:2] == [1000, 1000]  # LightGBM's warm-up: int(1 / 0.5) rounds
    assert all(r >= 300 + 200 for r in rows[2:]) and goss.history_[2]["sampler"] == "goss(0.3, 0.2)"


def test_the_estimators_refuse_bad_sampling(data):
    X, y = data
    for name in SAMPLED:
        for bad in (0.0, -1.0, 1.01):
            with pytest.raises(ValueError, match=f"'{name}' parameter"):
                APGradientBoostingClassifier(n_estimators=1, **{name: bad}).fit(X, y)
    with pytest.raises(ValueError, match="'data_sample_strategy' parameter"):
        APGradientBoostingRegressor(n_estimators=1, data_sample_strategy="gradient").fit(X, y)
    with pytest.raises(ValueError, match="top_rate \\+ other_rate must be at most 1"):
        APGradientBoostingRegressor(n_estimators=1, data_sample_strategy="goss", top_rate=0.7,
                                    other_rate=0.5).fit(X, y)
    with pytest.raises(ValueError, match="choose one row sampler"):
        APGradientBoostingRegressor(n_estimators=1, data_sample_strategy="goss",
                                    subsample=0.5).fit(X, y)
