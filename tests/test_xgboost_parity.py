"""The same trees as XGBoost's ``tree_method="exact"``, the real library, on the bundled data.

Every comparison trains 20 rounds with the same parameters and ``base_score``
set in both libraries, then walks each pair of trees from the root: both
nodes are leaves or both split, on the same feature, sending the same
training values left, with the same default direction for missing values
when the node's rows hold any; and the margins agree within 1e-5 relative.

**Thresholds.**  XGBoost sends ``x < t`` left, ``t`` a float32 (the float32
midpoint of two consecutive distinct values, or the upper value when the
midpoint rounds onto it), on the data cast to float32.  ``DMatrix`` rounds
X to float32 as XGBoost does, and an apsplit tree sends ``x <= threshold``
left.  The tree grower puts ``threshold`` between the same two values;
``train`` then moves it to the largest float32 below t, so that on float32
data the two rules agree on every value, not only on the training values
(a value at the midpoint, common with integer features, would otherwise go
left in apsplit and right in XGBoost).  The test checks that
``NewtonTree.xgboost_split_conditions()`` is XGBoost's t, that for every
distinct training value v of the node's feature ``(v < t) == (v <=
threshold)``, and the margins on up to 1000 rows not trained on.

**Default directions.**  A node whose rows hold no missing value on its
feature routes missing values by convention only (XGBoost then says "left",
from its backward scan); the test compares the directions of the nodes
whose training rows do hold missing values, where the data decide.

**Ties.**  XGBoost sums gains in float32 and prefers the lower feature index
on ties, apsplit in float64.  Where two candidate splits' gains agree within
float32 precision the libraries may choose differently; the walk then checks
that the two chosen gains agree within 1e-5 relative (a tie, not an error),
records it, and stops comparing below that node and the margins of that
run.  A run listed in ``TIES`` must meet its tie (so that a change removing
it is noticed); no run below meets one (``TIES`` tells of one seen on another
draw of rows).

Rows are subsampled to keep the tests fast (the row counts are in ``CASES``).
"""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from apsplit.adapters import DMatrix, train
from samples import bundled_sample

import xgboost as xgb
ROUNDS = 20


def _data(name, rows, nan=0.0, seed=0, held_out=False):
    """``samples.bundled_sample``'s (X, y), and with ``held_out`` the other rows too."""
    X, y, X_other, y_other = bundled_sample(name, rows, nan, seed)
    return (X, y, X_other, y_other) if held_out else (X, y)


# name, rows, objective, labels (function of the class codes), depth, extra params, nan
CASES = {
    "satimage-ovr-d3": ("satimage", 1500, "binary:logistic", lambda y: (y == 0), 3, {}, 0.0),
    "satimage-ovr-d6": ("satimage", 1500, "binary:logistic", lambda y: (y == 3), 6, {}, 0.0),
    "satimage-softprob": ("satimage", 800, "multi:softprob", lambda y: y, 3, {"num_class": 6},
                          0.0),
    "pendigits": ("pendigits", 2000, "binary:logitraw", lambda y: (y == 4), 3,
                  {"reg_alpha": 0.5, "gamma": 0.5}, 0.0),
    "higgs7k": ("higgs7k", 2000, "binary:logistic", lambda y: y, 3, {"min_child_weight": 2.0},
                0.0),
    "higgs7k-max-delta-step": ("higgs7k", 2000, "binary:logistic", lambda y: y, 3,
                               {"min_child_weight": 2.0, "max_delta_step": 0.7}, 0.0),
    "satimage-max-delta-step": ("satimage", 1500, "binary:logistic", lambda y: (y == 2), 3,
                                {"max_delta_step": 0.5, "reg_lambda": 0.5}, 0.0),
    "agaricus": ("agaricus", 3000, "binary:logistic", lambda y: y, 3, {}, 0.0),
    "a8a": ("a8a", 3000, "reg:squarederror", lambda y: y, 3, {"reg_lambda": 3.0}, 0.0),
    "agaricus-reg-logistic": ("agaricus", 1500, "reg:logistic", lambda y: y, 3,
                              {"scale_pos_weight": 2.0}, 0.0),
    "higgs7k-nan": ("higgs7k", 2000, "binary:logistic", lambda y: y, 3, {}, 0.05),
    "satimage-nan": ("satimage", 1500, "reg:squarederror", lambda y: y.astype(float), 3,
                     {"eta": 0.1}, 0.05),
}

# runs that meet a tie within float32 precision (the walk checks that it is one).  None of the
# runs below does.  One seen before: higgs7k with max_delta_step 0.7 on another draw of 2000
# rows, where the clipped leaf weights made two thresholds of one feature gain the same to
# 3e-8 relative; XGBoost kept the one its float32 scan met first, apsplit the larger float64
# gain, and the trees differed from there on.
TIES = {}


def _xgb_trees(bst):
    return json.loads(bst.save_raw("json"))["learner"]["gradient_booster"]["model"]["trees"]


def _column(X, rows, k):
    col = X[rows][:, [k]]
    if sp.issparse(col):
        dense = np.full(col.shape[0], np.nan)
        c = col.tocoo()
        dense[c.row] = c.data
        return dense
    return np.asarray(col).ravel()


def compare_trees(ours, theirs, X, ties):
    """Walk an apsplit NewtonTree beside one of XGBoost's JSON trees (module docstring)."""
    stack = [(0, 0, np.arange(X.shape[0]))]
    while stack:
        a, b, rows = stack.pop()
        a_leaf = ours.children_left[a] < 0
        b_leaf = theirs["left_children"][b] < 0
        if a_leaf or b_leaf:
            assert a_leaf == b_leaf, f"node {a}/{b}: leaf in one tree only ({len(rows)} rows)"
            assert ours.value[a] == pytest.approx(theirs["split_conditions"][b], rel=1e-5,
                                                  abs=1e-7)
            continue
        f, k = int(ours.feature[a]), int(theirs["split_indices"][b])
        values = _column(X, rows, f) if f == k else None
        t = np.float32(theirs["split_conditions"][b])
        distinct = np.unique(values[~np.isnan(values)]) if f == k else None
        if f != k or not np.array_equal(distinct < t, distinct <= ours.threshold[a]):
            ga, gb = float(ours.gain[a]), float(theirs["loss_changes"][b])
            assert ga == pytest.approx(gb, rel=1e-6), f"node {a}/{b}: split (feature {f}, " \
                f"{ours.threshold[a]}) != ({k}, {t}), gains {ga} vs {gb} (not a tie)"
            ties.append((a, (f, float(ours.threshold[a])), (k, float(t)), ga, gb))
            continue
        assert ours.xgboost_split_conditions()[a] == t, f"node {a}/{b}: XGBoost's threshold"
        present = ~np.isnan(values)
        if not present.all():
            assert bool(ours.default_left[a]) == bool(theirs["default_left"][b]), \
                f"node {a}/{b}: default direction differs"
        left = np.where(present, values < t, bool(theirs["default_left"][b]))
        stack.append((int(ours.children_left[a]), theirs["left_children"][b], rows[left]))
        stack.append((int(ours.children_right[a]), theirs["right_children"][b], rows[~left]))


def run_both(X, y, params, rounds=ROUNDS, obj=None, weight=None):
    xparams = {**params, "tree_method": "exact", "nthread": 1}
    bx = xgb.train(xparams, xgb.DMatrix(X, label=y, weight=weight), rounds, obj=obj)
    ba = train({**params, "method": "exhaustive"}, DMatrix(X, label=y, weight=weight), rounds,
               obj=obj, verbose_eval=False)
    return ba, bx


def check_same_model(ba, bx, X, X_new=None):
    trees = _xgb_trees(bx)
    assert len(trees) == len(ba.trees)
    assert [int(i) for i in json.loads(bx.save_raw("json"))["learner"]["gradient_booster"]
            ["model"]["tree_info"]] == ba.tree_info
    ties = []
    for ours, theirs in zip(ba.trees, trees):
        compare_trees(ours, theirs, X, ties)
        if ties:
            break
    if not ties:
        for Z in (X,) if X_new is None or X_new.shape[0] == 0 else (X, X_new):
            mx = bx.predict(xgb.DMatrix(Z), output_margin=True)
            ma = ba.predict(DMatrix(Z), output_margin=True)
            scale = max(1.0, float(np.abs(mx).max()))
            np.testing.assert_allclose(ma, mx, rtol=1e-5, atol=1e-5 * scale)
    return ties


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_trees_as_xgboost_exact(case):
    name, rows, objective, label, depth, extra, nan = CASES[case]
    X, y, X_new, _ = _data(name, rows, nan, held_out=True)
    params = {"objective": objective, "max_depth": depth, "eta": 0.3, "base_score": 0.5, **extra}
    ba, bx = run_both(X, label(y).astype(np.float64), params)
    ties = check_same_model(ba, bx, X, X_new)
    if case in TIES:
        assert ties, f"the tie of {case} is gone: remove it from TIES"
    else:
        assert not ties, f"ties within float32 precision: {ties}"


def test_same_trees_with_the_estimated_intercept():
    """No base_score: both libraries estimate it from the labels (XGBoost 3)."""
    X, y = _data("satimage", 1000)
    ba, bx = run_both(X, (y == 5).astype(float), {"objective": "binary:logistic", "max_depth": 3})
    assert not check_same_model(ba, bx, X)


def test_same_trees_with_weights():
    X, y = _data("satimage", 1000)
    w = np.random.default_rng(3).uniform(0.2, 3.0, X.shape[0])
    ba, bx = run_both(X, (y == 1).astype(float), {"objective": "binary:logistic",
                                                  "max_depth": 3, "base_score": 0.3}, weight=w)
    assert not check_same_model(ba, bx, X)


def pseudo_huber(preds, dtrain):
    """A custom objective written for XGBoost: pseudo-Huber loss with delta 1.5."""
    delta = 1.5
    d = preds - dtrain.get_label()
    s = 1.0 + (d / delta) ** 2
    return d / np.sqrt(s), 1.0 / (s * np.sqrt(s))


def softprob_obj(preds, dtrain):
    """A custom multi-class objective written for XGBoost (its demo's softmax), (n, K) in/out."""
    labels = dtrain.get_label().astype(int)
    e = np.exp(preds - preds.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    grad = p.copy()
    grad[np.arange(len(labels)), labels] -= 1.0
    hess = np.maximum(2.0 * p * (1.0 - p), 1e-6)
    return grad, hess


def test_custom_objective_same_model_in_both_libraries():
    X, y = _data("higgs7k", 1500)
    target = X[:, 0] * 2 + y  # a regression target
    ba, bx = run_both(X, target, {"max_depth": 3, "base_score": 0.0}, obj=pseudo_huber)
    assert not check_same_model(ba, bx, X)


def test_custom_multiclass_objective_same_model():
    X, y = _data("satimage", 600)
    ba, bx = run_both(X, y.astype(float), {"max_depth": 2, "num_class": 6, "base_score": 0.0},
                      rounds=5, obj=softprob_obj)
    assert not check_same_model(ba, bx, X)


@pytest.mark.parametrize("objective,metrics,label", [
    ("binary:logistic", ["logloss", "error", "auc"], lambda y: (y == 0)),
    ("multi:softmax", ["mlogloss", "merror", "auc"], lambda y: y),
])
def test_evals_result_and_early_stopping_as_xgboost(objective, metrics, label):
    """The same evaluation log, round by round, and the same best iteration."""
    X, y, X_new, y_new = _data("satimage", 800, held_out=True)
    y, y_new = label(y).astype(float), label(y_new).astype(float)
    params = {"objective": objective, "max_depth": 3, "base_score": 0.5, "eval_metric": metrics,
              "eta": 0.5}
    if objective.startswith("multi"):
        params["num_class"] = 6
    ours, theirs = {}, {}
    dx, dxn = xgb.DMatrix(X, label=y), xgb.DMatrix(X_new, label=y_new)
    bx = xgb.train({**params, "tree_method": "exact", "nthread": 1}, dx, 30,
                   evals=[(dx, "train"), (dxn, "valid")], evals_result=theirs,
                   early_stopping_rounds=3, verbose_eval=False)
    da, dan = DMatrix(X, label=y), DMatrix(X_new, label=y_new)
    ba = train(params, da, 30, evals=[(da, "train"), (dan, "valid")], evals_result=ours,
               early_stopping_rounds=3, verbose_eval=False)
    assert ba.best_iteration == bx.best_iteration
    assert ba.num_boosted_rounds() == bx.num_boosted_rounds()
    for data in ("train", "valid"):
        for m in metrics:
            np.testing.assert_allclose(ours[data][m], theirs[data][m], rtol=1e-5, atol=1e-6,
                                       err_msg=f"{data}-{m}")
