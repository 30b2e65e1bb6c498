"""Exporting a gradient-boosting Booster to XGBoost and LightGBM (``adapters.export``), checked
with the real libraries: the model they load predicts what apsplit predicts.

**How close.**  LightGBM sums its leaves in double, in apsplit's order (the
intercept folded into the first tree of each class): its raw scores equal
apsplit's margins exactly on every run below (asserted within 1e-6 relative;
the largest difference measured is 0), and its probabilities within 2.2e-16.
XGBoost holds leaves and base_score in float32 and sums the trees in float32,
so its margins differ from apsplit's float64 sums by rounding only: each row is
asserted within ``(T + 2) * eps32 * (|base| + sum of |leaf values| it reaches)``
(T the number of rounds, i.e. trees per output, eps32 = 2**-23; for the logistic objectives, plus
the rounding of base_score as a float32 probability).  Measured on these runs
(20 rounds of depth 4, trained and held-out rows): XGBoost's
margins at most 1.7e-6 absolute and 4.6e-7 relative to the row's |margin|
(floored at 1), at most 0.14 of the bound; its probabilities within 1.0e-7
(logistic) and 1.9e-7 (softprob), the same classes for softmax.

Every run compares the training rows and up to 1000 rows not trained on,
where a value can fall between the two training values a split separates;
``test_float64_values_between_float32s_are_routed_as_apsplit_routes_them``
probes every midpoint and threshold on purpose.
"""

import json
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from apsplit.adapters import Booster, DMatrix, train
from apsplit.adapters.export import (lightgbm_text, lightgbm_thresholds, missing_as_nan,
                                     xgboost_conditions, xgboost_json)
from apsplit.adapters.objectives import get_objective
from samples import bundled_sample, fresh_process_scores
from apsplit.newton import NewtonData, NewtonParams, grow_newton_tree

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")

ROUNDS = 20
EPS32 = float(np.finfo(np.float32).eps)


_data = bundled_sample


def _pseudo_huber(preds, dtrain):
    r = preds - dtrain.get_label()
    s = np.sqrt(1.0 + r * r)
    return r / s, 1.0 / (s * s * s)


def _regression(X):
    """higgs7k's first column as the target of the others (a real-valued regression)."""
    return X[:, 1:], np.nan_to_num(X[:, 0])


# name: dataset, rows, objective, labels (function of the class codes), extra params, nan
CASES = {
    "satimage-ovr": ("satimage", 1500, "binary:logistic", lambda y: y == 3, {}, 0.0),
    "satimage-softprob": ("satimage", 800, "multi:softprob", lambda y: y, {"num_class": 6}, 0.0),
    "satimage-softmax": ("satimage", 800, "multi:softmax", lambda y: y, {"num_class": 6}, 0.0),
    "higgs7k-nan": ("higgs7k", 2000, "binary:logistic", lambda y: y, {}, 0.05),
    "higgs7k-logitraw-nan": ("higgs7k", 2000, "binary:logitraw", lambda y: y,
                             {"reg_alpha": 0.5}, 0.05),
    "higgs7k-regression-nan": ("higgs7k", 2000, "reg:squarederror", None, {"eta": 0.1}, 0.05),
    "pendigits-reglogistic": ("pendigits", 2000, "reg:logistic", lambda y: y == 4,
                              {"scale_pos_weight": 2.0}, 0.0),
    "agaricus-sparse": ("agaricus", 3000, "binary:logistic", lambda y: y, {}, 0.0),
    "a8a-sparse-regression": ("a8a", 3000, "reg:squarederror", lambda y: y, {"lambda": 3.0},
                              0.0),
    "higgs7k-custom": ("higgs7k", 1500, None, lambda y: y, {"base_score": 0.0}, 0.05),
}


def _fit(case):
    name, rows, objective, labels, extra, nan = CASES[case]
    X, y, Xo, yo = _data(name, rows, nan)
    if labels is None:
        (X, y), (Xo, yo) = _regression(X), _regression(Xo)
    else:
        y, yo = labels(y).astype(np.float64), labels(yo).astype(np.float64)
    params = {"max_depth": 4, **extra}
    if objective is not None:
        params["objective"] = objective
    obj = _pseudo_huber if objective is None else None
    bst = train(params, DMatrix(X, label=y), ROUNDS, obj=obj)
    X_all = sp.vstack([X, Xo]).tocsr() if sp.issparse(X) else np.vstack([X, Xo])
    return bst, X_all


def _xgb_bound(bst, X):
    """Per row (and output): what float32 leaves, base_score and summation may change."""
    k = bst.n_outputs
    total = np.tile(np.abs(bst.base_margin), (X.shape[0], 1))
    for tree, c in zip(bst.trees, bst.tree_info):
        total[:, c] += np.abs(tree.predict(X))
    bound = (len(bst.trees) // k + 2) * EPS32 * total
    name = bst.objective.name if bst.objective is not None else None
    if name in ("reg:logistic", "binary:logistic"):
        p = 1.0 / (1.0 + np.exp(-bst.base_margin))
        bound += 4 * EPS32 / np.minimum(p, 1 - p)
    return bound[:, 0] if k == 1 else bound


@pytest.fixture(scope="module", params=sorted(CASES))
def fitted(request):
    return (request.param,) + _fit(request.param)


def test_xgboost_predicts_what_apsplit_predicts(fitted):
    case, bst, X = fitted
    xb = bst.to_xgboost()
    assert xb.num_boosted_rounds() == bst.num_boosted_rounds() == ROUNDS
    d = xgb.DMatrix(X)
    ours = bst.predict(X, output_margin=True)
    theirs = xb.predict(d, output_margin=True)
    assert theirs.shape == ours.shape
    bound = _xgb_bound(bst, X)
    assert np.all(np.abs(theirs - ours) <= bound), (case, np.max(np.abs(theirs - ours) / bound))
    if bst.objective is not None and bst.objective.name == "multi:softmax":
        # classes: equal wherever apsplit's two best margins are not within the bound
        top2 = np.sort(ours, axis=1)[:, -2:]
        clear = top2[:, 1] - top2[:, 0] > 2 * bound.max(axis=1)
        np.testing.assert_array_equal(xb.predict(d)[clear], bst.predict(X)[clear])
    else:
        np.testing.assert_allclose(xb.predict(d), bst.predict(X), rtol=0, atol=1e-6)


def test_lightgbm_predicts_what_apsplit_predicts(fitted):
    case, bst, X = fitted
    lb = bst.to_lightgbm()
    assert lb.num_trees() == len(bst.trees)
    dense = missing_as_nan(X)  # LightGBM reads an absent sparse entry as 0.0
    ours = bst.predict(X, output_margin=True)
    theirs = lb.predict(dense, raw_score=True)
    np.testing.assert_allclose(theirs, ours, rtol=1e-6, atol=1e-12)
    name = bst.objective.name if bst.objective is not None else None
    if name == "multi:softmax":
        np.testing.assert_array_equal(np.argmax(lb.predict(dense), axis=1), bst.predict(X))
    else:
        np.testing.assert_allclose(lb.predict(dense), bst.predict(X), rtol=1e-12, atol=1e-15)


def test_the_files_hold_apsplits_numbers(fitted):
    """XGBoost reads back every float32 written; LightGBM every double threshold; the
    exporter's XGBoost conditions are the grower's (``xgboost_split_conditions``)."""
    case, bst, X = fitted
    ours = xgboost_json(bst)["learner"]["gradient_booster"]["model"]["trees"]
    back = json.loads(bst.to_xgboost().save_raw("json"))
    theirs = back["learner"]["gradient_booster"]["model"]["trees"]
    for a, b, tree in zip(ours, theirs, bst.trees):
        for key in ("split_conditions", "base_weights", "sum_hessian", "left_children",
                    "right_children", "split_indices", "default_left"):
            np.testing.assert_array_equal(np.float32(a[key]), np.float32(b[key]), err_msg=key)
        split = tree.feature >= 0
        np.testing.assert_array_equal(xgboost_conditions(tree)[split],
                                      tree.xgboost_split_conditions()[split])
    dumped = bst.to_lightgbm().dump_model()["tree_info"]
    for info, tree in zip(dumped, bst.trees):
        got, stack = [], [info["tree_structure"]]
        while stack:  # LightGBM's internal nodes by split_index
            node = stack.pop()
            if "split_index" in node:
                got.append((node["split_index"], node["threshold"]))
                stack += [node["left_child"], node["right_child"]]
        want = np.sort(lightgbm_thresholds(tree)[tree.feature >= 0])
        np.testing.assert_array_equal(np.sort([t for _, t in got]), want)


def test_the_base_score_is_each_formats_own():
    X, y, _, _ = _data("satimage", 600)
    b = train({"objective": "binary:logistic", "max_depth": 2}, DMatrix(X, label=y == 3), 1)
    doc = xgboost_json(b)["learner"]["learner_model_param"]
    p = 1 / (1 + np.exp(-b.base_margin[0]))
    assert float(doc["base_score"].strip("[]")) == pytest.approx(p, rel=1e-7)  # a probability
    m = train({"objective": "multi:softprob", "num_class": 6, "max_depth": 2},
              DMatrix(X, label=y), 1)
    doc = xgboost_json(m)["learner"]["learner_model_param"]
    np.testing.assert_allclose([float(v) for v in doc["base_score"].strip("[]").split(",")],
                               m.base_margin, rtol=1e-7)  # margins
    assert doc["num_class"] == "6"
    text = lightgbm_text(m)
    assert "num_tree_per_iteration=6" in text and "objective=multiclass num_class:6" in text


# ------------------------------------------------------------------ thresholds and routing
def test_float64_values_between_float32s_are_routed_as_apsplit_routes_them():
    """Integer features: held-out values at every midpoint and a fraction of a float32 ulp
    on either side of every threshold, given to LightGBM unrounded (float64) and to
    XGBoost (which rounds to float32, as apsplit's DMatrix does)."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 12, size=(400, 3)).astype(np.float64)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0], nan=5) + X[:, 1] % 3 > 6).astype(float)
    bst = train({"objective": "binary:logistic", "max_depth": 3}, DMatrix(X, label=y), 5)
    probes = [np.arange(-1, 13, 0.5)]
    for tree in bst.trees:
        for node in np.flatnonzero(tree.feature >= 0):
            t = float(tree.threshold[node])
            up = float(np.nextafter(np.float32(t), np.float32(np.inf)))
            probes.append(t + (up - t) * np.array([0.0, 0.25, 0.5, 0.75, 1.0]))
    values = np.concatenate(probes)
    Xt = np.repeat(values[:, None], 3, axis=1)
    Xt[::7, 1] = np.nan
    ours = bst.predict(Xt, output_margin=True)
    np.testing.assert_allclose(bst.to_lightgbm().predict(Xt, raw_score=True), ours, rtol=1e-12,
                               atol=1e-15)
    theirs = bst.to_xgboost().predict(xgb.DMatrix(Xt), output_margin=True)
    np.testing.assert_allclose(theirs, ours, rtol=0, atol=1e-6)


def test_a_split_no_float32_threshold_can_hold_is_refused():
    X = np.array([[1.0], [1.0 + 1e-12], [1.0], [1.0 + 1e-12]])
    g = np.array([-1.0, 1.0, -1.0, 1.0])
    tree = grow_newton_tree(NewtonData(X), g, np.ones(4), NewtonParams(max_depth=1,
                                                                       min_child_weight=0))
    assert tree.feature[0] == 0  # the grower (float64) splits the two values
    bst = Booster(get_objective("reg:squarederror"), 1, [0.0], 1)
    bst.trees.append(tree)
    bst.tree_info.append(0)
    with pytest.raises(ValueError, match=r"tree 0, node 0 \(feature 0\).*1\.0 and "
                                         r"1\.000000000001.*one float32"):
        bst.to_xgboost()
    # LightGBM compares in double: it holds the split, routed as apsplit routes float32 X
    assert bst.to_lightgbm().num_trees() == 1


def test_leaf_only_trees_and_feature_names(recwarn):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(float)
    names = ["age", "blood pressure", "x_2"]
    bst = train({"objective": "binary:logistic", "gamma": 1e9}, DMatrix(X, label=y,
                                                                       feature_names=names), 3)
    assert all(t.node_count == 1 for t in bst.trees)
    xb = bst.to_xgboost()
    assert xb.feature_names == names
    np.testing.assert_allclose(xb.predict(xgb.DMatrix(X, feature_names=names),
                                          output_margin=True),
                               bst.predict(X, output_margin=True), atol=1e-6)
    with pytest.warns(UserWarning, match="blood pressure"):
        lb = bst.to_lightgbm()
    assert lb.feature_name() == ["age", "blood_pressure", "x_2"]
    np.testing.assert_array_equal(lb.predict(X, raw_score=True), bst.predict(X, output_margin=True))


def test_attributes_and_slices_travel():
    X, y, Xv, yv = _data("satimage", 800)
    bst = train({"objective": "binary:logistic", "max_depth": 3},
                DMatrix(X, label=y == 3), 30, evals=[(DMatrix(Xv, label=yv == 3), "v")],
                early_stopping_rounds=3, verbose_eval=False)
    xb = bst.to_xgboost()
    assert xb.best_iteration == bst.best_iteration
    head = bst[:bst.best_iteration + 1]
    np.testing.assert_allclose(head.to_lightgbm().predict(Xv, raw_score=True),
                               bst.predict(Xv, output_margin=True,
                                           iteration_range=(0, bst.best_iteration + 1)),
                               rtol=1e-12)


# ------------------------------------------------------------------ files
def test_saved_files_load_in_a_fresh_process(tmp_path):
    X, y, Xo, _ = _data("higgs7k", 1500, nan=0.05)
    bst = train({"objective": "binary:logistic", "max_depth": 4}, DMatrix(X, label=y), 10)
    bst.save_model(tmp_path / "m.json", format="xgboost")
    bst.save_model(str(tmp_path / "m.txt"), format="lightgbm")
    json.loads((tmp_path / "m.json").read_text())  # plain JSON
    Xall = np.vstack([X, Xo])
    xm, lm = fresh_process_scores(tmp_path / "m.json", tmp_path / "m.txt", Xall, tmp_path)
    ours = bst.predict(Xall, output_margin=True)
    assert np.all(np.abs(xm - ours) <= _xgb_bound(bst, Xall))
    np.testing.assert_allclose(lm, ours, rtol=1e-6, atol=1e-12)


# ------------------------------------------------------------------ bad input
def test_unknown_format_lists_the_two(tmp_path):
    X, y, _, _ = _data("satimage", 300)
    bst = train({"objective": "binary:logistic", "max_depth": 2}, DMatrix(X, label=y == 1), 1)
    with pytest.raises(ValueError, match=r"'onnx'.*\['xgboost', 'lightgbm'\]"):
        bst.save_model(tmp_path / "m", format="onnx")
    assert not (tmp_path / "m").exists()


def test_a_model_without_trees():
    """XGBoost holds the intercept alone; LightGBM keeps it in the first trees: refused."""
    X, y, _, _ = _data("satimage", 300)
    bst = train({"objective": "binary:logistic"}, DMatrix(X, label=y == 1), 0)
    xb = bst.to_xgboost()
    np.testing.assert_allclose(xb.predict(xgb.DMatrix(X), output_margin=True),
                               bst.predict(X, output_margin=True), atol=1e-6)
    with pytest.raises(ValueError, match="no trees"):
        bst.to_lightgbm()


@pytest.mark.parametrize("library", ["xgboost", "lightgbm"])
def test_a_missing_library_names_the_extra(monkeypatch, library):
    X, y, _, _ = _data("satimage", 300)
    bst = train({"objective": "binary:logistic", "max_depth": 2}, DMatrix(X, label=y == 1), 1)
    monkeypatch.setitem(sys.modules, library, None)  # import now raises ImportError
    with pytest.raises(ImportError, match=rf'pip install "apsplit\[{library}\]"'):
        getattr(bst, f"to_{library}")()


def test_a_custom_multi_output_objective_exports_as_raw_margins():
    X, y, Xo, _ = _data("satimage", 600)

    def softmax(preds, dtrain):
        p = np.exp(preds - preds.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        onehot = np.eye(6)[dtrain.get_label().astype(int)]
        return p - onehot, np.maximum(2 * p * (1 - p), 1e-6)

    bst = train({"num_class": 6, "max_depth": 3, "base_score": 0.0}, DMatrix(X, label=y), 5,
                obj=softmax)
    X_all = np.vstack([X, Xo])
    ours = bst.predict(X_all, output_margin=True)
    theirs = bst.to_xgboost().predict(xgb.DMatrix(X_all))  # reg:squarederror: the margins
    assert theirs.shape == ours.shape == (X_all.shape[0], 6)
    assert np.all(np.abs(theirs - ours) <= _xgb_bound(bst, X_all))
    np.testing.assert_allclose(bst.to_lightgbm().predict(X_all), ours, rtol=1e-12, atol=1e-15)


def test_missing_as_nan():
    X = sp.csr_matrix((np.array([0.0, 2.0, np.nan]), np.array([0, 2, 1]), np.array([0, 2, 3])),
                      shape=(2, 3))
    np.testing.assert_array_equal(missing_as_nan(X), [[0.0, np.nan, 2.0],
                                                      [np.nan, np.nan, np.nan]])


def test_the_gradient_boosting_estimators_export_what_they_predict():
    from apsplit.adapters.sklearn import (APGradientBoostingClassifier,
                                          APGradientBoostingRegressor)
    X, y, Xv, yv = _data("satimage", 800, nan=0.05)
    labels = np.array(list("abcdef"))[y.astype(int)]
    clf = APGradientBoostingClassifier(n_estimators=8, max_depth=3).fit(X, labels)
    np.testing.assert_allclose(clf.to_lightgbm().predict(Xv), clf.predict_proba(Xv),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(clf.to_xgboost().predict(xgb.DMatrix(Xv)), clf.predict_proba(Xv),
                               atol=1e-6)
    binary = APGradientBoostingClassifier(n_estimators=30, max_depth=3, early_stopping_rounds=2)
    binary.fit(X, y == 3, eval_set=[(Xv, yv == 3)])
    assert binary.best_iteration_ < 29  # stopped early: the export holds the rounds used
    assert binary.to_xgboost().num_boosted_rounds() == binary.best_iteration_ + 1
    np.testing.assert_allclose(binary.to_lightgbm().predict(Xv), binary.predict_proba(Xv)[:, 1],
                               rtol=1e-12, atol=1e-15)
    reg = APGradientBoostingRegressor(n_estimators=8, max_depth=3).fit(X, y)
    np.testing.assert_allclose(reg.to_xgboost().predict(xgb.DMatrix(Xv)), reg.predict(Xv),
                               atol=1e-5)
    np.testing.assert_allclose(reg.to_lightgbm().predict(Xv), reg.predict(Xv), rtol=1e-12)


def test_a_feature_name_xgboost_refuses_is_named():
    X = np.random.default_rng(3).normal(size=(100, 2))
    bst = train({"objective": "reg:squarederror", "max_depth": 2},
                DMatrix(X, label=X[:, 0], feature_names=["ok", "x[0]"]), 1)
    with pytest.raises(ValueError, match=r"x\[0\]"):
        bst.to_xgboost()


@pytest.mark.parametrize("objective", ["binary:logistic", "multi:softprob"])
def test_categorical_newton_splits_are_the_libraries_categorical_splits(objective):
    """train on a DataFrame with category columns (NaN included); both libraries load the
    export and predict apsplit's margins on the training rows and on rows with codes
    never seen in training, negative ones and missing ones."""
    import lightgbm as lgb
    import pandas as pd
    rng = np.random.default_rng(5)
    n = 600
    a = rng.integers(0, 12, n)
    b = rng.integers(0, 5, n)
    x = rng.normal(size=n)
    k = 3 if objective == "multi:softprob" else 2
    y = (np.isin(a, [1, 4, 7, 8]) + (b == 2) + (x > 0.5)) % k
    df = pd.DataFrame({"a": pd.Categorical(a, categories=range(20)),
                       "b": pd.Categorical(b), "x": x})
    df.loc[::11, "a"] = np.nan
    params = {"objective": objective, "max_depth": 4}
    if k > 2:
        params["num_class"] = k
    bst = train(params, DMatrix(df, label=y), ROUNDS)
    assert any(s is not None for t in bst.trees for s in t.categories_right)
    X = DMatrix(df).data
    unseen = np.column_stack([rng.integers(12, 40, 50), rng.integers(-3, 9, 50),
                              rng.normal(size=50)]).astype(float)
    unseen[::7, 1] = np.nan
    X = np.vstack([X, unseen])
    ours = bst.predict(X, output_margin=True)
    xb = bst.to_xgboost()
    dx = xgb.DMatrix(X, feature_names=["a", "b", "x"], feature_types=["c", "c", "q"],
                     enable_categorical=True)
    theirs = xb.predict(dx, output_margin=True)
    assert np.all(np.abs(theirs - ours) <= _xgb_bound(bst, X))
    lb = lgb.Booster(model_str=lightgbm_text(bst))
    np.testing.assert_allclose(lb.predict(X, raw_score=True), ours, rtol=1e-6, atol=1e-12)

