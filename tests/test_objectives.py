"""Objectives: XGBoost 3's intercept, the gradient formulas, float32 rounding, label checks,
and the custom-objective forms (shape, NaN/inf and negative-hessian checks)."""

import json

import numpy as np
import pytest

from apsplit.adapters import DMatrix, lightgbm_objective, sklearn_objective
from apsplit.adapters.objectives import (OBJECTIVES, CustomObjective, check_gradients,
                                         get_objective, round_float32)

RNG = np.random.default_rng(0)
N = 300
X = RNG.normal(size=(N, 3))
W = RNG.uniform(0.5, 2.0, N)
LABELS = {"reg:squarederror": RNG.normal(2.0, 1.0, N),
          "reg:logistic": RNG.random(N),
          "binary:logistic": (RNG.random(N) < 0.3).astype(float),
          "binary:logitraw": (RNG.random(N) < 0.6).astype(float),
          "multi:softprob": RNG.integers(0, 3, N).astype(float),
          "multi:softmax": np.where(RNG.random(N) < 0.5, 0.0, 2.0)}  # class 1 absent


def _xgb_base_score(name, y, w):
    import xgboost as xgb
    params = {"objective": name, "tree_method": "exact", "max_depth": 1}
    if name.startswith("multi"):
        params["num_class"] = 3
    bst = xgb.train(params, xgb.DMatrix(X, label=y, weight=w), 1)
    text = json.loads(bst.save_config())["learner"]["learner_model_param"]["base_score"]
    return np.array([float(v) for v in text.strip("[]").split(",")])


@pytest.mark.parametrize("name", sorted(OBJECTIVES))
def test_intercept_is_xgboosts(name):
    """Without base_score, XGBoost 3 estimates the intercept; apsplit's is the same."""
    y = LABELS[name]
    obj = get_objective(name)
    num_class = 3 if obj.multiclass else None
    ours = obj.estimate_base_score(y, W, num_class)
    np.testing.assert_allclose(ours, _xgb_base_score(name, y, W), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("name", ["binary:logistic", "binary:logitraw", "multi:softprob"])
def test_base_score_to_margin_as_xgboost(name):
    import xgboost as xgb
    params = {"objective": name, "base_score": 0.3}
    if name.startswith("multi"):
        params["num_class"] = 3
    bst = xgb.train(params, xgb.DMatrix(X, label=LABELS[name]), 0)
    theirs = bst.predict(xgb.DMatrix(X[:2]), output_margin=True).reshape(2, -1)[0]
    ours = get_objective(name).base_margin(0.3, 3)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_gradients_are_the_loss_derivatives():
    """First derivatives by finite differences of the losses; hessians by XGBoost's formulas."""
    m = RNG.normal(size=(N, 1))
    h = 1e-6
    for name, loss in (("reg:squarederror", lambda m, y: 0.5 * (m - y) ** 2),
                       ("binary:logistic", lambda m, y: np.logaddexp(0, m) - y * m)):
        y = LABELS[name]
        g, hess = get_objective(name).gradient(m, y, W)
        fd = W * (loss(m[:, 0] + h, y) - loss(m[:, 0] - h, y)) / (2 * h)
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6)
        assert np.all(g == round_float32(g)) and np.all(hess == round_float32(hess))
    p = 1 / (1 + np.exp(-m[:, 0]))
    _, hess = get_objective("reg:logistic").gradient(m, LABELS["reg:logistic"], W)
    np.testing.assert_allclose(hess, np.maximum(p * (1 - p), 1e-16) * W, rtol=1e-6)
    M = RNG.normal(size=(N, 3))
    y = LABELS["multi:softprob"]
    g, hess = get_objective("multi:softprob").gradient(M, y, W)
    P = np.exp(M) / np.exp(M).sum(1, keepdims=True)
    onehot = np.eye(3)[y.astype(int)]
    np.testing.assert_allclose(g, (P - onehot) * W[:, None], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(hess, np.maximum(2 * P * (1 - P) * W[:, None], 1e-16), rtol=1e-6)


def _xgboost_softmax_pairs(m, y, w):
    """XGBoost's multi-class ``GetGradient``, row by row in float32 scalars (wmax starting at
    FLT_MIN, the sum of expf in double in class order, cast once); numpy's float32 exp."""
    f32 = np.float32
    g, h = np.empty(m.shape), np.empty(m.shape)
    for i in range(m.shape[0]):
        wmax = f32(np.finfo(f32).tiny)
        for x in m[i]:
            wmax = max(x, wmax)
        e = np.exp(m[i] - wmax)
        wsum = 0.0
        for x in e:
            wsum += float(x)
        for k in range(m.shape[1]):
            p = e[k] / f32(wsum)
            h[i, k] = max(f32(2.0) * p * (f32(1.0) - p) * w[i], f32(1e-16))
            g[i, k] = (p - f32(1.0) if y[i] == k else p) * w[i]
    return g, h


@pytest.mark.parametrize("K", [2, 3, 10])
def test_softmax_pairs_follow_xgboost_rule_bit_for_bit(K):
    """Rows of mixed, all-negative (shifted by FLT_MIN, not their largest margin) and
    far-apart margins (sums where the order of the double additions matters), weights."""
    n = 400
    m = (RNG.normal(size=(n, K)) * RNG.choice([0.1, 3.0, 40.0], (n, 1))).astype(np.float32)
    m[: n // 4] = -np.abs(m[: n // 4])
    y = RNG.integers(0, K, n).astype(np.float32)
    w = RNG.choice([1.0, 0.25, 3.0], n).astype(np.float32)
    g, h = get_objective("multi:softprob").gradient(m, y, w)
    expected_g, expected_h = _xgboost_softmax_pairs(m, y, w)
    np.testing.assert_array_equal(g, expected_g)
    np.testing.assert_array_equal(h, expected_h)


def test_hessian_floor_and_scale_pos_weight():
    obj = get_objective("binary:logistic")
    y = np.array([1.0, 0.0])
    g, h = obj.gradient(np.array([[60.0], [1.0]]), y, np.ones(2))
    assert h[0] == round_float32(1e-16)
    g2, h2 = obj.gradient(np.array([[60.0], [1.0]]), y, np.ones(2), scale_pos_weight=3.0)
    assert g2[0] == round_float32(3 * g[0]) and g2[1] == g[1]


def test_transforms():
    M = np.array([[0.0, 1.0, -1.0], [2.0, 0.0, 0.0]])
    assert get_objective("multi:softmax").transform(M).tolist() == [1.0, 0.0]
    np.testing.assert_allclose(get_objective("multi:softprob").transform(M).sum(1), 1.0)
    assert get_objective("binary:logitraw").transform(M[:, :1]).tolist() == [0.0, 2.0]
    np.testing.assert_allclose(get_objective("binary:logistic").transform(M[:, :1]),
                               [0.5, 1 / (1 + np.exp(-2))])


# ------------------------------------------------------------------ label checks
def test_labels_that_do_not_fit():
    with pytest.raises(ValueError, match="3 classes: use 'multi:softprob' with num_class=3"):
        get_objective("binary:logistic").check_labels(np.array([0.0, 1.0, 2.0]), None)
    with pytest.raises(ValueError, match=r"labels in \[0, 1\]"):
        get_objective("reg:logistic").check_labels(np.array([0.5, 1.5]), None)
    with pytest.raises(ValueError, match="num_class=2 needs labels in 0..1.*set num_class=3"):
        get_objective("multi:softprob").check_labels(np.array([0.0, 2.0]), 2)
    with pytest.raises(ValueError, match="integer class labels"):
        get_objective("multi:softmax").check_labels(np.array([0.0, 0.5]), 2)
    with pytest.raises(ValueError, match="needs labels"):
        get_objective("reg:squarederror").check_labels(None, None)
    with pytest.raises(ValueError, match="NaN or inf"):
        get_objective("reg:squarederror").check_labels(np.array([np.nan]), None)


def test_unknown_objective_and_bad_base_score():
    with pytest.raises(ValueError, match="unknown objective 'binary:hinge'"):
        get_objective("binary:hinge")
    with pytest.raises(ValueError, match=r"base_score in \(0, 1\)"):
        get_objective("binary:logistic").base_margin(1.5, None)
    with pytest.raises(ValueError, match="3 numbers"):
        get_objective("multi:softprob").base_margin([0.1, 0.2], 3)


# ------------------------------------------------------------- custom objectives
def test_check_gradients_shapes():
    g, h = check_gradients(np.ones(4), np.ones(4), 4, 1)
    assert g.shape == (4, 1)
    flat = np.arange(6.0)
    g, _ = check_gradients(flat, np.ones(6), 2, 3)
    assert g.tolist() == [[0, 1, 2], [3, 4, 5]]  # XGBoost's row-major flat form
    with pytest.raises(ValueError, match=r"grad of shape \(3,\); expected \(4,\)"):
        check_gradients(np.ones(3), np.ones(4), 4, 1)
    with pytest.raises(ValueError, match=r"hess of shape \(2, 2\); expected \(2, 3\) or \(6,\)"):
        check_gradients(np.ones((2, 3)), np.ones((2, 2)), 2, 3)
    with pytest.raises(ValueError, match="grad with 1 NaN or inf"):
        check_gradients(np.array([1.0, np.nan]), np.ones(2), 2, 1)
    with pytest.raises(ValueError, match="hess with 1 NaN or inf"):
        check_gradients(np.ones(2), np.array([1.0, np.inf]), 2, 1)
    with pytest.raises(ValueError, match="1 negative hessian"):
        check_gradients(np.ones(2), np.array([1.0, -0.5]), 2, 1)
    with pytest.raises(TypeError, match="pair"):
        CustomObjective(lambda p, d: p).gradient(np.zeros(2), None, 1)


def test_custom_forms_receive_labels_and_weights():
    d = DMatrix(X[:4], label=[0, 1, 0, 1], weight=[1, 2, 3, 4])
    preds = np.zeros(4, dtype=np.float32)

    def sk(y_true, y_pred, sample_weight):
        return (y_pred - y_true) * sample_weight, sample_weight

    g, h = CustomObjective(sklearn_objective(sk)).gradient(preds, d, 1)
    assert g[:, 0].tolist() == [0, -2, 0, -4] and h[:, 0].tolist() == [1, 2, 3, 4]
    g, _ = CustomObjective(sklearn_objective(lambda y, p: (p - y, np.ones_like(p)))).gradient(
        preds, d, 1)
    assert g[:, 0].tolist() == [0, -1, 0, -1]

    def lgb_style(preds, train_data):
        return preds - train_data.get_label(), train_data.get_weight()

    g, h = CustomObjective(lightgbm_objective(lgb_style)).gradient(preds, d, 1)
    assert h[:, 0].tolist() == [1, 2, 3, 4]


def test_logistic_pairs_are_float32_arithmetic():
    """A confident row: XGBoost's 1 - p cancels in float32, so its hessian is not the float64
    one rounded; apsplit's is XGBoost's (float32 operations)."""
    m = np.array([[12.5], [-3.0]])
    g, h = get_objective("binary:logistic").gradient(m, np.array([1.0, 0.0]), np.ones(2))
    f = np.float32
    p = f(1) / (np.exp(f(-12.5)) + f(1) + f(1e-16))
    assert h[0] == float(p * (f(1) - p)) and g[0] == float(p - f(1))
    assert h[0] != round_float32(np.exp(-12.5) / (1 + np.exp(-12.5)) ** 2)
