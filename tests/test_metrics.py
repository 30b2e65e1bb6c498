"""Metrics: XGBoost's values on XGBoost's own predictions, scikit-learn's definitions, weights,
ties in AUC, and the errors for unknown metrics or metrics of another task."""

import numpy as np
import pytest
from sklearn.metrics import log_loss, roc_auc_score

from apsplit.adapters.metrics import get_metric
from apsplit.adapters.objectives import get_objective

RNG = np.random.default_rng(1)
N = 400
X = RNG.normal(size=(N, 4))
W = RNG.uniform(0.5, 2.0, N)


@pytest.mark.parametrize("objective,metrics,y", [
    ("binary:logistic", ["logloss", "error", "auc", "rmse", "error@0.7"],
     (X[:, 0] + RNG.normal(size=N) > 0).astype(float)),
    ("binary:logitraw", ["logloss", "error", "auc"], (X[:, 1] > 0.3).astype(float)),
    ("reg:squarederror", ["rmse"], X[:, 0] * 2 + RNG.normal(size=N)),
    ("multi:softprob", ["mlogloss", "merror", "auc"],
     np.digitize(X[:, 0] + 0.5 * RNG.normal(size=N), [-0.5, 0.5]).astype(float)),
    ("multi:softmax", ["mlogloss", "merror"], np.digitize(X[:, 2], [0.0]).astype(float)),
])
def test_metrics_match_xgboost_on_its_predictions(objective, metrics, y):
    import xgboost as xgb
    params = {"objective": objective, "eval_metric": metrics, "max_depth": 2, "base_score": 0.5}
    if objective.startswith("multi"):
        params["num_class"] = int(y.max()) + 1
    d = xgb.DMatrix(X, label=y, weight=W)
    result = {}
    bst = xgb.train(params, d, 3, evals=[(d, "t")], evals_result=result, verbose_eval=False)
    margin = bst.predict(d, output_margin=True).astype(np.float64).reshape(N, -1)
    pred = get_objective(objective).eval_transform(margin)
    for name in metrics:
        ours = get_metric(name)(pred, y, W)
        assert ours == pytest.approx(result["t"][name][-1], rel=1e-5, abs=1e-6), name


def test_metrics_match_sklearn():
    y = (RNG.random(N) < 0.4).astype(float)
    p = np.clip(RNG.random(N), 0.01, 0.99)
    assert get_metric("logloss")(p, y, W) == pytest.approx(log_loss(y, p, sample_weight=W))
    assert get_metric("auc")(p, y, W) == pytest.approx(roc_auc_score(y, p, sample_weight=W))
    tied = np.round(p, 1)  # many ties: one trapezoid per group, as scikit-learn
    assert get_metric("auc")(tied, y, W) == pytest.approx(roc_auc_score(y, tied, sample_weight=W))
    assert get_metric("error")(p, y, None) == pytest.approx(np.mean((p > 0.5) != y))
    assert get_metric("rmse")(p, y, None) == pytest.approx(np.sqrt(np.mean((p - y) ** 2)))


def test_weights_are_repeated_rows():
    y = np.array([0.0, 1.0, 1.0, 0.0])
    p = np.array([0.2, 0.9, 0.4, 0.6])
    w = np.array([1.0, 2.0, 1.0, 3.0])
    rep = np.repeat(np.arange(4), w.astype(int))
    for name in ("logloss", "error", "auc", "rmse"):
        assert get_metric(name)(p, y, w) == pytest.approx(get_metric(name)(p[rep], y[rep]))


def test_bad_metric_names_and_tasks():
    with pytest.raises(ValueError, match="unknown eval_metric 'mae'"):
        get_metric("mae")
    with pytest.raises(ValueError, match="threshold after '@'"):
        get_metric("error@x")
    with pytest.raises(ValueError, match="'mlogloss' does not fit objective 'binary:logistic'"):
        get_metric("mlogloss").check_task("binary", "binary:logistic")
    with pytest.raises(ValueError, match="'logloss' does not fit objective 'reg:squarederror'"):
        get_metric("logloss").check_task("regression", "reg:squarederror")
    assert get_metric("auc").maximize and not get_metric("rmse").maximize
