"""Importing XGBoost and LightGBM models into apsplit (``Booster.from_xgboost``,
``Booster.from_lightgbm``, ``train(..., xgb_model=...)``), checked with the real libraries.

**How close** (15 rounds; training rows and up to 1000 held-out rows).  LightGBM
sums its leaves in double: an imported LightGBM model's margins are asserted
within 1e-6 relative (floored at 1) of LightGBM's raw scores, and measured
equal (difference 0) on every case below, float32-valued and unrounded
float64 data alike (the imported model compares in double:
``test_lightgbm_thresholds_are_compared_in_double``; rounding to float32
there would be off by 0.41).  XGBoost keeps leaves and base_score in float32
and sums in float32, apsplit sums the same float32 leaves in float64: each
row is asserted within ``(T + 2) * eps32 * (|base| + sum of |leaf values| it
reaches)`` (as in ``test_export``).  Measured on the twelve XGBoost cases (hist,
approx and exact, depth 3 and 6, lossguide to depth 8, exact with gamma (its
pruned nodes left in the file), NaN, sparse, six objectives):
at most 1.0e-6 absolute and 2.2e-7 relative to max(1, max |margin|), at most
0.16 of the bound.
Categorical models (5 rounds; ``XGB_CAT_CASES``, ``LGB_CAT_CASES``, on rows with
seen, unseen, negative, fractional and missing codes): LightGBM's raw scores asserted
within 1e-12, measured equal; XGBoost's within the bound above, measured at most
5.7e-7 absolute, 1.4e-7 relative, 0.19 of the bound.

Round trips apsplit -> library -> apsplit: through LightGBM's text the margins
are apsplit's exactly (asserted within 1e-12 relative; the intercept is folded
into the first trees' leaves); through XGBoost's JSON every row reaches the
same leaf and the leaf values become float32, so the margins are asserted
within ``(T + 1) * eps32 * (|base| + sum |leaf|)``: measured 5.0e-8 relative,
0.08 of the bound.
"""

import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit.adapters import Booster, DMatrix, train
from apsplit.adapters.model_import import load_model
from samples import bundled_sample
from strategies import scaled

xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")

EPS32 = float(np.finfo(np.float32).eps)
ROUNDS = 15


_data = bundled_sample


def _both(X, Xo):
    return sp.vstack([X, Xo]).tocsr() if sp.issparse(X) else np.vstack([X, Xo])


def _abs_sum(bst, X):
    """Per row and output: |base| + the sum of |leaf values| the row reaches."""
    total = np.tile(np.abs(bst.base_margin), (X.shape[0], 1))
    for tree, c in zip(bst.trees, bst.tree_info):
        total[:, c] += np.abs(tree.predict(X))
    return total[:, 0] if bst.n_outputs == 1 else total


# ------------------------------------------------------------------ XGBoost-trained
# name: dataset, rows, objective, labels, params, nan
XGB_CASES = {
    "higgs7k-logistic-hist-d6-nan": ("higgs7k", 2000, "binary:logistic", lambda y: y,
                                     {"tree_method": "hist", "max_depth": 6}, 0.05),
    "higgs7k-logistic-exact-d3-nan": ("higgs7k", 2000, "binary:logistic", lambda y: y,
                                      {"tree_method": "exact", "max_depth": 3}, 0.05),
    "higgs7k-logitraw-exact-d6": ("higgs7k", 1500, "binary:logitraw", lambda y: y,
                                  {"tree_method": "exact", "max_depth": 6}, 0.0),
    "higgs7k-regression-hist-d6-nan": ("higgs7k", 2000, "reg:squarederror", None,
                                       {"tree_method": "hist", "max_depth": 6}, 0.05),
    "pendigits-reglogistic-exact-d3": ("pendigits", 2000, "reg:logistic", lambda y: y == 4,
                                       {"tree_method": "exact", "max_depth": 3}, 0.0),
    "satimage-softprob-hist-d3": ("satimage", 1000, "multi:softprob", lambda y: y,
                                  {"tree_method": "hist", "max_depth": 3, "num_class": 6}, 0.0),
    "satimage-softmax-exact-d6-nan": ("satimage", 800, "multi:softmax", lambda y: y,
                                      {"tree_method": "exact", "max_depth": 6, "num_class": 6},
                                      0.05),
    "higgs7k-logistic-lossguide-nan": ("higgs7k", 2000, "binary:logistic", lambda y: y,
                                       {"tree_method": "hist", "grow_policy": "lossguide",
                                        "max_depth": 0, "max_leaves": 24}, 0.05),
    "higgs7k-logistic-exact-gamma-nan": ("higgs7k", 2000, "binary:logistic", lambda y: y,
                                         {"tree_method": "exact", "max_depth": 6,
                                          "gamma": 3.0}, 0.05),
    "higgs7k-regression-approx-d6": ("higgs7k", 1500, "reg:squarederror", None,
                                     {"tree_method": "approx", "max_depth": 6}, 0.0),
    "agaricus-sparse-hist-d6": ("agaricus", 3000, "binary:logistic", lambda y: y,
                                {"tree_method": "hist", "max_depth": 6}, 0.0),
    "a8a-sparse-exact-d3": ("a8a", 3000, "binary:logistic", lambda y: y,
                            {"tree_method": "exact", "max_depth": 3}, 0.0),
}


def _labelled(name, rows, labels, nan, **kw):
    X, y, Xo, yo = _data(name, rows, nan, **kw)
    if labels is None:  # higgs7k's first column as the target of the others
        return X[:, 1:], np.nan_to_num(X[:, 0]), Xo[:, 1:], np.nan_to_num(Xo[:, 0])
    return X, labels(y).astype(np.float64), Xo, labels(yo).astype(np.float64)


def _xgb_fit(case):
    name, rows, objective, labels, params, nan = XGB_CASES[case]
    X, y, Xo, yo = _labelled(name, rows, labels, nan)
    xb = xgb.train({"objective": objective, "seed": 0, "nthread": 1, **params},
                   xgb.DMatrix(X, label=y), ROUNDS)
    return xb, X, y, _both(X, Xo)


@pytest.fixture(scope="module", params=sorted(XGB_CASES))
def xgb_fitted(request):
    return (request.param,) + _xgb_fit(request.param)


def test_an_xgboost_model_predicts_what_xgboost_predicts(xgb_fitted):
    case, xb, _, _, X = xgb_fitted
    bst = Booster.from_xgboost(xb)
    assert bst.num_boosted_rounds() == xb.num_boosted_rounds() == ROUNDS
    assert bst.input_dtype == "float32"
    theirs = xb.predict(xgb.DMatrix(X), output_margin=True)
    ours = bst.predict(X, output_margin=True)
    assert ours.shape == theirs.shape
    T = ROUNDS
    bound = (T + 2) * EPS32 * _abs_sum(bst, X)
    name = bst.objective.name
    if name in ("reg:logistic", "binary:logistic"):  # base_score kept as a float32 probability
        p = 1.0 / (1.0 + np.exp(-bst.base_margin))
        bound = bound + 4 * EPS32 / np.minimum(p, 1 - p)
    diff = np.abs(theirs - ours)
    assert np.all(diff <= bound), (case, float(np.max(diff / bound)))
    assert diff.max() <= 2e-6 * max(1.0, np.abs(theirs).max()), case
    # the prediction itself; a DMatrix gives the same as the array
    pred = xb.predict(xgb.DMatrix(X))
    if name == "multi:softmax":
        top2 = np.sort(ours, axis=1)[:, -2:]
        clear = top2[:, 1] - top2[:, 0] > 2 * bound.max(axis=1)
        assert np.array_equal(bst.predict(X)[clear], pred[clear])
    else:
        np.testing.assert_allclose(bst.predict(X), pred, rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(bst.predict(DMatrix(X), output_margin=True), ours)


def test_an_xgboost_file_reads_as_the_booster(xgb_fitted, tmp_path):
    case, xb, _, _, X = xgb_fitted
    bst = Booster.from_xgboost(xb)
    for suffix in ("json", "ubj"):
        path = tmp_path / f"model.{suffix}"
        xb.save_model(str(path))
        again = Booster.from_xgboost(path)
        np.testing.assert_array_equal(again.predict(X, output_margin=True),
                                      bst.predict(X, output_margin=True))
    # and back to XGBoost: the thresholds and leaves are XGBoost's own
    back = bst.to_xgboost()
    np.testing.assert_array_equal(back.predict(xgb.DMatrix(X), output_margin=True),
                                  xb.predict(xgb.DMatrix(X), output_margin=True))


def test_xgboost_thresholds_become_the_float32_below():
    X = np.array([[0.0], [1.0], [2.0], [3.0]] * 10)
    y = np.array([0.0, 0.0, 1.0, 1.0] * 10)
    xb = xgb.train({"objective": "reg:squarederror", "max_depth": 1, "tree_method": "exact",
                    "base_score": 0.5}, xgb.DMatrix(X, label=y), 1)
    bst = Booster.from_xgboost(xb)
    tree = bst.trees[0]
    t = np.float32(1.5)
    assert tree.threshold[0] == float(np.nextafter(t, np.float32(-np.inf)))
    assert tree.right_value[0] == float(t)
    probe = np.array([[1.5], [float(np.nextafter(t, np.float32(-1)))], [np.nan]])
    # the same leaves (XGBoost adds base_score to the leaf in float32)
    np.testing.assert_allclose(bst.predict(probe), xb.predict(xgb.DMatrix(probe)), rtol=1e-7)
    np.testing.assert_array_equal(tree.apply(probe), [2, 1, 1])


# ------------------------------------------------------------------ LightGBM-trained
# name: dataset, rows, objective params, labels, nan, round32
LGB_CASES = {
    "higgs7k-binary-d3-nan": ("higgs7k", 2000, {"objective": "binary", "num_leaves": 8,
                                                "max_depth": 3}, lambda y: y, 0.05, True),
    "higgs7k-binary-d6-float64": ("higgs7k", 2000, {"objective": "binary", "num_leaves": 40,
                                                    "max_depth": 6}, lambda y: y, 0.05, False),
    "higgs7k-regression-d6-nan": ("higgs7k", 2000, {"objective": "regression",
                                                    "num_leaves": 31, "max_depth": 6},
                                  None, 0.05, True),
    "pendigits-xentropy-d6": ("pendigits", 2000, {"objective": "cross_entropy",
                                                  "num_leaves": 31, "max_depth": 6},
                              lambda y: y == 4, 0.0, True),
    "satimage-multiclass-d3": ("satimage", 1000, {"objective": "multiclass", "num_class": 6,
                                                  "num_leaves": 8, "max_depth": 3},
                               lambda y: y, 0.0, True),
    "satimage-multiclass-d6-nan": ("satimage", 1000, {"objective": "multiclass", "num_class": 6,
                                                      "num_leaves": 20, "max_depth": 6},
                                   lambda y: y, 0.05, False),
    "higgs7k-dart-d6": ("higgs7k", 1500, {"objective": "binary", "boosting": "dart",
                                          "num_leaves": 31, "max_depth": 6},
                        lambda y: y, 0.05, True),
    "higgs7k-custom-raw": ("higgs7k", 1500, {"objective": "none", "num_leaves": 15,
                                             "max_depth": 6}, lambda y: y, 0.05, True),
}


def _logloss_objective(preds, data):
    y = data.get_label()
    p = 1.0 / (1.0 + np.exp(-preds))
    return p - y, p * (1 - p)


def _lgb_fit(case):
    name, rows, params, labels, nan, round32 = LGB_CASES[case]
    X, y, Xo, yo = _labelled(name, rows, labels, nan, round32=round32)
    params = {"verbose": -1, "num_threads": 1, "seed": 0, "min_data_in_leaf": 5, **params}
    if params["objective"] == "none":
        params["objective"] = _logloss_objective
    lb = lgb.train(params, lgb.Dataset(X, label=y), ROUNDS)
    return lb, X, y, _both(X, Xo)


@pytest.fixture(scope="module", params=sorted(LGB_CASES))
def lgb_fitted(request):
    return (request.param,) + _lgb_fit(request.param)


def test_a_lightgbm_model_predicts_what_lightgbm_predicts(lgb_fitted):
    case, lb, _, _, X = lgb_fitted
    bst = Booster.from_lightgbm(lb)
    assert bst.num_boosted_rounds() == lb.current_iteration() == ROUNDS
    assert bst.input_dtype == "float64"
    theirs = lb.predict(X, raw_score=True)
    ours = bst.predict(X, output_margin=True)
    assert ours.shape == theirs.shape
    scale = np.maximum(np.abs(theirs), 1.0)
    assert np.all(np.abs(ours - theirs) <= 1e-6 * scale), (case, np.abs(ours - theirs).max())
    if bst.objective is not None:
        np.testing.assert_allclose(bst.predict(X), lb.predict(X), rtol=1e-6, atol=1e-12)
    else:
        assert "objective" not in bst.params


def test_a_lightgbm_file_reads_as_the_booster(lgb_fitted, tmp_path):
    case, lb, _, _, X = lgb_fitted
    path = tmp_path / "model.txt"
    lb.save_model(str(path))
    np.testing.assert_array_equal(Booster.from_lightgbm(path).predict(X, output_margin=True),
                                  Booster.from_lightgbm(lb).predict(X, output_margin=True))


def test_lightgbm_missing_type_none_sends_nan_where_zero_goes():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 3))           # no NaN in training: missing type None
    y = X[:, 0] + 0.1 * rng.normal(size=500)
    lb = lgb.train({"objective": "regression", "verbose": -1, "num_leaves": 8},
                   lgb.Dataset(X, label=y), 5)
    assert "decision_type=0" in lb.model_to_string() or " 0 " in lb.model_to_string()
    bst = Booster.from_lightgbm(lb)
    probe = np.column_stack([np.r_[np.nan, 0.0, rng.normal(size=50)],
                             np.r_[0.0, np.nan, rng.normal(size=50)],
                             np.full(52, np.nan)])
    np.testing.assert_allclose(bst.predict(probe), lb.predict(probe), rtol=1e-12)


def test_lightgbm_zero_as_missing_is_read_where_it_can_be_and_refused_by_name():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(600, 3))
    X[rng.random(X.shape) < 0.3] = 0.0
    y = (X[:, 0] + X[:, 1] > 0).astype(float)
    params = {"objective": "binary", "verbose": -1, "num_leaves": 8, "zero_as_missing": True}
    # the first two trees send 0 and NaN where x <= threshold sends 0: apsplit holds them
    lb = lgb.train(params, lgb.Dataset(X, label=y), 2)
    assert "decision_type=6" in lb.model_to_string()  # missing type zero, default left
    bst = Booster.from_lightgbm(lb)
    probe = np.vstack([X, [[0.0, np.nan, 0.0], [np.nan, 0.0, np.nan], [1e-36, -1e-36, 0.0]]])
    np.testing.assert_array_equal(bst.predict(probe, output_margin=True),
                                  lb.predict(probe, raw_score=True))
    # the third has a split sending 0 the other way: refused, naming it
    lb = lgb.train(params, lgb.Dataset(X, label=y), 10)
    with pytest.raises(ValueError, match=r"tree 2, node 6 \(feature 1\) has LightGBM's 'zero' "
                                         r"missing type sending 0 and NaN left"):
        Booster.from_lightgbm(lb)


# ------------------------------------------------------------------ apsplit round trips
ROUND_TRIPS = {
    "higgs7k-logistic-nan": ("higgs7k", 1500, "binary:logistic", lambda y: y, {}, 0.05),
    "higgs7k-regression-nan": ("higgs7k", 1500, "reg:squarederror", None, {"eta": 0.1}, 0.05),
    "pendigits-reglogistic": ("pendigits", 1500, "reg:logistic", lambda y: y == 4, {}, 0.0),
    "satimage-softprob": ("satimage", 800, "multi:softprob", lambda y: y, {"num_class": 6}, 0.0),
    "satimage-softmax": ("satimage", 800, "multi:softmax", lambda y: y, {"num_class": 6}, 0.0),
    "higgs7k-logitraw": ("higgs7k", 1500, "binary:logitraw", lambda y: y, {}, 0.05),
    "agaricus-sparse": ("agaricus", 2000, "binary:logistic", lambda y: y, {}, 0.0),
}


@pytest.fixture(scope="module", params=sorted(ROUND_TRIPS))
def ours(request):
    name, rows, objective, labels, extra, nan = ROUND_TRIPS[request.param]
    X, y, Xo, yo = _labelled(name, rows, labels, nan)
    bst = train({"objective": objective, "max_depth": 4, **extra}, DMatrix(X, label=y), 10)
    return request.param, bst, X, y, _both(X, Xo)


def test_apsplit_through_xgboost_and_back(ours, tmp_path):
    case, bst, _, _, X = ours
    back = Booster.from_xgboost(bst.to_xgboost())
    assert back.tree_info == bst.tree_info and back.n_outputs == bst.n_outputs
    assert back.objective.name == bst.objective.name
    want = bst.predict(X, output_margin=True)
    got = back.predict(X, output_margin=True)
    bound = (bst.num_boosted_rounds() + 1) * EPS32 * _abs_sum(bst, X)
    assert np.all(np.abs(got - want) <= bound), case
    # the routing is apsplit's exactly: every row reaches the same leaf
    for a, b in zip(bst.trees, back.trees):
        np.testing.assert_array_equal(a.apply(DMatrix(X).data), b.apply(DMatrix(X).data))
        np.testing.assert_array_equal(a.threshold, b.threshold)
    path = tmp_path / "m.json"
    bst.save_model(path)
    np.testing.assert_array_equal(Booster.from_xgboost(path).predict(X, output_margin=True), got)


def test_apsplit_through_lightgbm_and_back(ours, tmp_path):
    case, bst, _, _, X = ours
    if sp.issparse(X):  # LightGBM reads an absent entry as 0: the test is on dense NaN
        from apsplit.adapters.export import missing_as_nan
        X = missing_as_nan(X)
    back = Booster.from_lightgbm(bst.to_lightgbm())
    assert back.tree_info == bst.tree_info
    want = bst.predict(X, output_margin=True)
    got = back.predict(X, output_margin=True)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    path = tmp_path / "m.txt"
    bst.save_model(path, format="lightgbm")
    np.testing.assert_array_equal(Booster.from_lightgbm(path).predict(X, output_margin=True),
                                  got)


# ------------------------------------------------------------------ continuing
def test_train_continues_from_an_xgboost_model(tmp_path):
    X, y, Xo, _ = _labelled("higgs7k", 2000, lambda y: y, 0.05)
    params = {"objective": "binary:logistic", "max_depth": 4, "tree_method": "exact"}
    xb = xgb.train(params, xgb.DMatrix(X, label=y), 10)
    imported = Booster.from_xgboost(xb)
    for source in (xb, str(tmp_path / "m.json")):
        if isinstance(source, str):
            xb.save_model(source)
        bst = train(params, DMatrix(X, label=y), 5, xgb_model=source)
        assert bst.num_boosted_rounds() == 15
        for Z in (X, Xo):
            np.testing.assert_array_equal(bst[:10].predict(Z, output_margin=True),
                                          imported.predict(Z, output_margin=True))
    # the rounds added follow XGBoost exact's own continuation
    xb2 = xgb.train(params, xgb.DMatrix(X, label=y), 5, xgb_model=xb)
    np.testing.assert_allclose(bst.predict(Xo, output_margin=True),
                               xb2.predict(xgb.DMatrix(Xo), output_margin=True),
                               rtol=1e-5, atol=1e-5)


def test_train_continues_from_a_lightgbm_model():
    X, y, Xo, _ = _labelled("satimage", 800, lambda y: y, 0.0)
    lb = lgb.train({"objective": "multiclass", "num_class": 6, "verbose": -1,
                    "num_leaves": 8}, lgb.Dataset(X, label=y), 5)
    params = {"objective": "multi:softprob", "num_class": 6, "max_depth": 3}
    res = {}
    bst = train(params, DMatrix(X, label=y), 3, xgb_model=lb,
                evals=[(DMatrix(X, label=y), "train")], evals_result=res, verbose_eval=False)
    assert bst.num_boosted_rounds() == 8
    np.testing.assert_array_equal(bst[:5].predict(Xo, output_margin=True),
                                  lb.predict(Xo, raw_score=True))
    # boosting resumed from LightGBM's margins: the loss keeps falling from theirs
    start = -np.mean(np.log(lb.predict(X)[np.arange(len(y)), y.astype(int)]))
    assert res["train"]["mlogloss"][0] < start
    assert np.all(np.diff(res["train"]["mlogloss"]) < 0)


def test_continuing_with_another_objective_is_refused():
    X, y, _, _ = _labelled("higgs7k", 500, lambda y: y, 0.0)
    xb = xgb.train({"objective": "binary:logistic", "max_depth": 2}, xgb.DMatrix(X, label=y), 2)
    with pytest.raises(ValueError, match="binary:logistic.*reg:squarederror"):
        train({"objective": "reg:squarederror"}, DMatrix(X, label=y), 1, xgb_model=xb)


# ------------------------------------------------------------------ refused
# ------------------------------------------------------------------ categorical splits
FT = ["c", "q", "c"]  # feature 0: 40 categories (NaN too), 1 numeric, 2: 5 categories
#: the codes predicted on: seen, unseen (8, 39 for feature 2; 40, 100, 1e9), negative,
#: fractional (truncated; (-1, 0) is LightGBM's code 0, XGBoost's "negative") and missing
PROBE_CODES = [0, 1, 2, 3, 4, 7, 8, 20, 39, 40, 100, 1e9, -1, -3, -0.5, 0.5, 2.7, np.nan]


def _categorical_data(n_classes, rows=600, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 40, rows), rng.normal(size=rows),
                         rng.integers(0, 5, rows)]).astype(float)
    X[rng.random(rows) < 0.1, 0] = np.nan
    score = (np.isin(np.nan_to_num(X[:, 0], nan=3) % 7, [0, 3, 5]) + (X[:, 1] > 0.3)
             + (X[:, 2] == 1) + 0.3 * rng.normal(size=rows))
    y = (score > 1.5) if n_classes == 2 else np.digitize(score, [0.8, 1.6])
    probe = np.array([[a, b, c] for a in PROBE_CODES for b in (-1.0, 0.7)
                      for c in (0, 1, 2, 7, -0.5, np.nan)])
    return X, y.astype(float), np.vstack([X, probe])


def _xgb_categorical_dmatrix(X, y=None):
    return xgb.DMatrix(X, label=y, feature_types=FT, enable_categorical=True)


def _split_sets(bst):
    return [c for t in bst.trees for c in t.categories_right if c is not None]


XGB_CAT_CASES = [(method, n_classes, onehot) for method in ("hist", "approx")
                 for n_classes in (2, 3) for onehot in (1, 64)]


@pytest.mark.parametrize("method, n_classes, onehot", XGB_CAT_CASES)
def test_an_xgboost_categorical_model_predicts_what_xgboost_predicts(method, n_classes, onehot):
    """Partition (max_cat_to_onehot=1) and one-hot (64: every split a set of one) splits,
    on rows with seen, unseen, negative, fractional and missing codes."""
    X, y, Xp = _categorical_data(n_classes)
    params = {"tree_method": method, "max_depth": 4, "max_cat_to_onehot": onehot,
              "objective": "binary:logistic" if n_classes == 2 else "multi:softprob",
              **({"num_class": n_classes} if n_classes > 2 else {})}
    xb = xgb.train(params, _xgb_categorical_dmatrix(X, y), 5)
    bst = Booster.from_xgboost(xb)
    sets = _split_sets(bst)
    assert sets and (all(len(c) == 1 for c in sets) if onehot == 64
                     else any(len(c) > 1 for c in sets))
    theirs = xb.predict(_xgb_categorical_dmatrix(Xp), output_margin=True)
    ours = bst.predict(Xp, output_margin=True)
    bound = (5 + 2) * EPS32 * _abs_sum(bst, Xp)
    if n_classes == 2:  # base_score kept as a float32 probability
        p = 1.0 / (1.0 + np.exp(-bst.base_margin))
        bound = bound + 4 * EPS32 / np.minimum(p, 1 - p)
    assert np.all(np.abs(theirs - ours) <= bound), float(np.max(np.abs(theirs - ours) / bound))
    # XGBoost's default sides kept (some splits send missing values with their set)
    assert any(not t.default_left[n] for t in bst.trees
               for n in np.flatnonzero(t.category_start >= 0))
    # back to XGBoost: its own splits
    back = bst.to_xgboost()
    np.testing.assert_array_equal(back.predict(_xgb_categorical_dmatrix(Xp), output_margin=True),
                                  theirs)


def test_an_xgboost_model_of_a_dataframe_reads_its_category_codes(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y, Xp = _categorical_data(2)

    def frame(A):
        return pd.DataFrame({"a": pd.Categorical.from_codes(np.nan_to_num(A[:, 0], nan=-1)
                                                            .astype(int), [f"c{i}" for i in
                                                                           range(40)]),
                             "b": A[:, 1]})
    ok = np.isnan(Xp[:, 0]) | np.isin(Xp[:, 0], np.arange(40))
    Xp = Xp[ok][:, :2]
    xb = xgb.train({"objective": "binary:logistic", "tree_method": "hist", "max_depth": 3,
                    "max_cat_to_onehot": 1}, xgb.DMatrix(frame(X), y, enable_categorical=True), 4)
    xb.save_model(str(tmp_path / "m.ubj"))
    bst = Booster.from_xgboost(tmp_path / "m.ubj")
    assert _split_sets(bst)
    theirs = xb.predict(xgb.DMatrix(frame(Xp), enable_categorical=True), output_margin=True)
    for data in (DMatrix(frame(Xp)), Xp):  # the frame's codes, or the codes themselves
        np.testing.assert_allclose(bst.predict(data, output_margin=True), theirs,
                                   rtol=2e-6, atol=2e-6)


LGB_CAT_CASES = [(n_classes, onehot) for n_classes in (2, 3) for onehot in (4, 64)]


@pytest.mark.parametrize("n_classes, onehot", LGB_CAT_CASES)
def test_a_lightgbm_categorical_model_predicts_what_lightgbm_predicts(n_classes, onehot):
    """Bitset splits (and max_cat_to_onehot=64: one-vs-rest, sets of one), NaN in training;
    rows with seen, unseen, negative, fractional and missing codes."""
    X, y, Xp = _categorical_data(n_classes)
    params = {"objective": "binary" if n_classes == 2 else "multiclass", "verbose": -1,
              "num_leaves": 8, "min_data_in_leaf": 5, "min_data_per_group": 5,
              "cat_smooth": 1, "max_cat_to_onehot": onehot,
              **({"num_class": n_classes} if n_classes > 2 else {})}
    lb = lgb.train(params, lgb.Dataset(X, label=y, categorical_feature=[0, 2]), 5)
    bst = Booster.from_lightgbm(lb)
    sets = _split_sets(bst)
    assert sets and (all(len(c) == 1 for c in sets) if onehot == 64
                     else any(len(c) > 1 for c in sets))
    theirs = lb.predict(Xp, raw_score=True)
    ours = bst.predict(Xp, output_margin=True)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    # back to LightGBM: its own splits; to XGBoost: the same but in (-1, 0)
    np.testing.assert_allclose(bst.to_lightgbm().predict(Xp, raw_score=True), theirs,
                               rtol=1e-12, atol=1e-12)
    xgb_ours = bst.to_xgboost().predict(_xgb_categorical_dmatrix(Xp), output_margin=True)
    codes = Xp[:, [0, 2]]
    plain = ~np.any((codes > -1) & (codes < 0), axis=1)
    np.testing.assert_allclose(xgb_ours[plain], theirs[plain], rtol=1e-5, atol=1e-5)


def _lgb_stump(decision_type, words):
    """A LightGBM model of one categorical split of feature 0 (bitset ``words``): 1.0 left
    (the bitset's codes), 2.0 right."""
    return "\n".join([
        "tree", "version=v4", "num_class=1", "num_tree_per_iteration=1", "label_index=0",
        "max_feature_idx=0", "feature_names=a", "feature_infos=0:1:2", "", "Tree=0",
        "num_leaves=2", "num_cat=1", "split_feature=0", "split_gain=1", "threshold=0",
        f"decision_type={decision_type}", "left_child=-1", "right_child=-2",
        "leaf_value=1 2", "leaf_weight=1 1", "leaf_count=1 1", "internal_value=0",
        "internal_weight=2", "internal_count=2", f"cat_boundaries=0 {len(words)}",
        "cat_threshold=" + " ".join(map(str, words)), "is_linear=0", "shrinkage=1", "", "",
        "end of trees", "", "pandas_categorical:null", ""])


@pytest.mark.parametrize("decision_type", [1, 3, 5, 7, 9, 11])
def test_lightgbm_categorical_routing_is_lightgbms_for_every_missing_type(decision_type):
    """LightGBM casts x to int first: (-1, 0) is the code 0, NaN and huge values cast
    negative and go right whatever the missing type and the default bit."""
    x = np.array([0, 1, 2, 5, 32, 33, -0.0, -0.5, -0.99, -1, 0.99, 1.5, np.nan, 2.0 ** 24,
                  2.0 ** 31, 1e10, -1e10])[:, None]
    for words in ([1], [6], [2, 3], [0, 1]):  # {0}, {1, 2}, {1, 32, 33}, {32}
        lb = lgb.Booster(model_str=_lgb_stump(decision_type, words))
        bst = Booster.from_lightgbm(lb)
        assert bst.trees[0].truncate_codes
        np.testing.assert_array_equal(bst.predict(x, output_margin=True),
                                      lb.predict(x, raw_score=True))
    assert bst.predict(np.array([[-0.5]]), output_margin=True)[0] == 2.0  # {32}: 0 is out
    zero = Booster.from_lightgbm(lgb.Booster(model_str=_lgb_stump(decision_type, [1])))
    assert zero.predict(np.array([[-0.5]]), output_margin=True)[0] == 1.0  # the code 0


_CODE_VALUES = st.one_of(st.integers(-3, 75).map(float), st.floats(-2.0, 75.0),
                        st.sampled_from([np.nan, -0.0, 2.0 ** 24 - 1, 2.0 ** 24, 1e10, -1e10]))


@settings(max_examples=scaled(0.05))
@given(codes=st.sets(st.integers(0, 70), min_size=1, max_size=12), default_left=st.booleans(),
       values=st.lists(_CODE_VALUES, min_size=1, max_size=40))
def test_an_xgboost_categorical_stump_routes_any_value_as_xgboost(codes, default_left, values):
    """A one-split XGBoost model of any code set (XGBoost refuses an empty one) and default
    side (loaded by XGBoost from the JSON apsplit writes), read back: every value goes
    where XGBoost sends it."""
    from apsplit.adapters.objectives import get_objective
    from apsplit.newton import NewtonTree
    tree = NewtonTree.from_arrays([0, -1, -1], [np.nan] * 3, [default_left, False, False],
                                  [1, -1, -1], [2, -1, -1], [0.0, 1.0, 2.0], n_features=1,
                                  categories_right=[sorted(codes), None, None])
    bst = Booster(get_objective("reg:squarederror"), 1, [0.0], 1)
    bst.trees.append(tree)
    bst.tree_info.append(0)
    xb = bst.to_xgboost()
    x = np.array(values)[:, None]
    np.testing.assert_array_equal(
        Booster.from_xgboost(xb).predict(x, output_margin=True),
        xb.predict(xgb.DMatrix(x, feature_types=["c"], enable_categorical=True),
                   output_margin=True))


@settings(max_examples=scaled(0.1))
@given(codes=st.sets(st.integers(0, 70), max_size=12),
       decision_type=st.sampled_from([1, 3, 5, 7, 9, 11]),
       values=st.lists(_CODE_VALUES, min_size=1, max_size=40))
def test_a_lightgbm_categorical_stump_routes_any_value_as_lightgbm(codes, decision_type,
                                                                   values):
    words = [0] * (max(codes, default=0) // 32 + 1)
    for c in codes:
        words[c // 32] |= 1 << (c % 32)
    lb = lgb.Booster(model_str=_lgb_stump(decision_type, words))
    x = np.array(values)[:, None]
    np.testing.assert_array_equal(Booster.from_lightgbm(lb).predict(x, output_margin=True),
                                  lb.predict(x, raw_score=True))


def test_categories_apsplit_cannot_hold_are_refused_naming_tree_node_and_feature(tmp_path):
    import json
    X, y, _ = _categorical_data(2, rows=300)
    xb = xgb.train({"objective": "binary:logistic", "tree_method": "hist", "max_depth": 2,
                    "max_cat_to_onehot": 1}, _xgb_categorical_dmatrix(X, y), 2)
    doc = json.loads(bytes(xb.save_raw("json")))
    tree = doc["learner"]["gradient_booster"]["model"]["trees"][1]
    node, feature = tree["categories_nodes"][0], tree["split_indices"][tree["categories_nodes"][0]]
    for bad in (-1, 2 ** 24, 1.5):
        tree["categories"][tree["categories_segments"][0]] = bad
        with pytest.raises(ValueError, match=rf"tree 1, node {node} \(feature {feature}\) is a "
                                             rf"categorical split on the category {bad:.17g}"):
            Booster.from_xgboost(doc)
    tree["categories_sizes"][0] = len(tree["categories"]) + 5
    with pytest.raises(ValueError, match=rf"tree 1, node {node}: its categories segment"):
        Booster.from_xgboost(doc)
    # LightGBM: a bitset holding 2**24, and a threshold that indexes no bitset
    text = _lgb_stump(9, [0] * (2 ** 24 // 32) + [1])
    with pytest.raises(ValueError, match=r"tree 0, node 0 \(feature 0\) is a categorical "
                                         r"split on the category 16777216"):
        Booster.from_lightgbm(lgb.Booster(model_str=text))
    path = tmp_path / "bad.txt"
    path.write_text(_lgb_stump(9, [6]).replace("threshold=0", "threshold=3"))
    with pytest.raises(ValueError, match=r"tree 0, node 0 \(feature 0\).*does not index"):
        Booster.from_lightgbm(path)


def test_an_xgboost_split_sending_missing_with_its_set_does_not_go_to_lightgbm():
    X, y, _ = _categorical_data(2)
    xb = xgb.train({"objective": "binary:logistic", "tree_method": "hist", "max_depth": 4,
                    "max_cat_to_onehot": 1}, _xgb_categorical_dmatrix(X, y), 5)
    bst = Booster.from_xgboost(xb)
    assert any(not t.default_left[n] for t in bst.trees
               for n in np.flatnonzero(t.category_start >= 0))
    with pytest.raises(ValueError, match=r"tree \d+, node \d+ \(feature [02]\) sends a "
                                         r"missing value right"):
        bst.to_lightgbm()


@pytest.mark.parametrize("library", ["xgboost", "lightgbm"])
def test_train_continues_from_a_categorical_model(library):
    X, y, Xp = _categorical_data(2)
    if library == "xgboost":
        model = xgb.train({"objective": "binary:logistic", "tree_method": "hist",
                           "max_depth": 3, "max_cat_to_onehot": 1},
                          _xgb_categorical_dmatrix(X, y), 5)
    else:
        model = lgb.train({"objective": "binary", "verbose": -1, "num_leaves": 8,
                           "min_data_per_group": 5, "cat_smooth": 1},
                          lgb.Dataset(X, label=y, categorical_feature=[0, 2]), 5)
    imported = load_model(model)
    params = {"objective": "binary:logistic", "max_depth": 3}
    res = {}
    dtrain = DMatrix(X, label=y, feature_types=FT)
    bst = train(params, dtrain, 3, xgb_model=model, evals=[(dtrain, "train")],
                evals_result=res, verbose_eval=False)
    assert bst.num_boosted_rounds() == 8 and any(c is not None for t in bst.trees[5:]
                                                 for c in t.categories_right)
    np.testing.assert_array_equal(bst[:5].predict(Xp, output_margin=True),
                                  imported.predict(Xp, output_margin=True))
    m = imported.predict(X, output_margin=True)
    start = float(np.mean(np.logaddexp(0, m) - y * m))
    assert res["train"]["logloss"][0] < start and np.all(np.diff(res["train"]["logloss"]) < 0)
    with pytest.raises(ValueError, match=r"splits the features \[0(, 2)?\] by categories but "
                                         r"dtrain has them numeric"):
        train(params, DMatrix(X, label=y), 1, xgb_model=model)


def test_newton_tree_from_arrays_takes_categorical_splits():
    from apsplit.newton import NewtonTree
    args = ([0, -1, -1], [np.nan] * 3, [True, False, False], [1, -1, -1], [2, -1, -1],
            [0.0, -1.0, 2.0])
    x = np.array([[3.0], [5.0], [4.0], [-0.5], [0.0], [np.nan], [5.7]])
    t = NewtonTree.from_arrays(*args, n_features=1, categories_right=[[5, 0, 3], None, None])
    np.testing.assert_array_equal(t.categories_right[0], [0, 3, 5])
    np.testing.assert_array_equal(t.predict(x), [2, 2, -1, -1, 2, -1, 2])
    t = NewtonTree.from_arrays(*args, n_features=1, categories_right=[[0], None, None],
                               truncate_codes=True)
    np.testing.assert_array_equal(t.predict(x), [-1, -1, -1, 2, 2, -1, -1])
    with pytest.raises(ValueError, match="node 1 is a leaf but has categories"):
        NewtonTree.from_arrays(*args, n_features=1, categories_right=[None, [1], None])
    with pytest.raises(ValueError, match="node 0 sends the category 1.5 right"):
        NewtonTree.from_arrays(*args, n_features=1, categories_right=[[1.5], None, None])
    with pytest.raises(ValueError, match="categories_right has 2 entries"):
        NewtonTree.from_arrays(*args, n_features=1, categories_right=[None, None])


def test_a_linear_lightgbm_tree_is_refused():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 2))
    lb = lgb.train({"objective": "regression", "linear_tree": True, "verbose": -1,
                    "num_leaves": 4}, lgb.Dataset(X, label=X[:, 0] * 2), 2)
    with pytest.raises(ValueError, match="tree 0 is a linear tree"):
        Booster.from_lightgbm(lb)


@pytest.mark.parametrize("params, match", [
    ({"objective": "count:poisson"}, "objective 'count:poisson' is not supported"),
    ({"objective": "reg:squarederror", "booster": "dart"}, "DART"),
    ({"objective": "reg:squarederror", "num_parallel_tree": 2}, "num_parallel_tree=2"),
    ({"objective": "reg:squarederror", "booster": "gblinear"}, "gblinear"),
])
def test_xgboost_models_apsplit_cannot_represent_are_refused(params, match):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(200, 3))
    tree_params = {} if params.get("booster") == "gblinear" else {"max_depth": 2}
    xb = xgb.train({**tree_params, **params}, xgb.DMatrix(X, label=np.abs(X[:, 0])), 2)
    with pytest.raises(ValueError, match=match):
        Booster.from_xgboost(xb)


@pytest.mark.parametrize("params, match", [
    ({"objective": "regression_l1"}, "objective 'regression_l1' is not supported"),
    ({"objective": "poisson"}, "objective 'poisson' is not supported"),
    ({"objective": "binary", "sigmoid": 2.0}, "sigmoid:2"),
    ({"objective": "multiclassova", "num_class": 3}, "multiclassova"),
    ({"objective": "regression", "boosting": "rf", "bagging_fraction": 0.5,
      "bagging_freq": 1}, "random-forest"),
])
def test_lightgbm_models_apsplit_cannot_represent_are_refused(params, match):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 3))
    y = rng.integers(0, 3 if "num_class" in params else 2, 300).astype(float)
    lb = lgb.train({"verbose": -1, "num_leaves": 4, **params}, lgb.Dataset(X, label=y), 2)
    with pytest.raises(ValueError, match=match):
        Booster.from_lightgbm(lb)


def test_the_wrong_type_is_a_type_error():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(100, 2))
    xb = xgb.train({"max_depth": 1}, xgb.DMatrix(X, label=X[:, 0]), 1)
    lb = lgb.train({"verbose": -1, "num_leaves": 2}, lgb.Dataset(X, label=X[:, 0]), 1)
    with pytest.raises(TypeError, match="from_xgboost takes an xgboost.Booster"):
        Booster.from_xgboost(42)
    with pytest.raises(TypeError, match="from_xgboost takes an xgboost.Booster"):
        Booster.from_xgboost(lb)
    with pytest.raises(TypeError, match="from_lightgbm takes a lightgbm.Booster"):
        Booster.from_lightgbm(xb)
    with pytest.raises(TypeError, match="xgb_model must be an apsplit Booster, an xgboost"):
        train({}, DMatrix(X, label=X[:, 0]), 1, xgb_model=3.5)


def test_a_file_of_the_other_format_is_refused(tmp_path):
    rng = np.random.default_rng(9)
    X = rng.normal(size=(100, 2))
    lb = lgb.train({"verbose": -1, "num_leaves": 2}, lgb.Dataset(X, label=X[:, 0]), 1)
    path = tmp_path / "m.txt"
    lb.save_model(str(path))
    xb = xgb.train({"max_depth": 1}, xgb.DMatrix(X, label=X[:, 0]), 1)
    jpath = tmp_path / "m.json"
    xb.save_model(str(jpath))
    with pytest.raises(ValueError, match="not a LightGBM text model"):
        Booster.from_lightgbm(jpath)
    with pytest.raises(ValueError, match="not an XGBoost model"):
        Booster.from_xgboost(path)
    # train's xgb_model tells the two apart
    bst = train({}, DMatrix(X, label=X[:, 0]), 1, xgb_model=path)
    assert bst.num_boosted_rounds() == 2


def test_lightgbm_thresholds_are_compared_in_double():
    """Values that are one float32 but distinct doubles: LightGBM separates them, and so
    does the imported model (input_dtype "float64"); a DMatrix would round them together."""
    rng = np.random.default_rng(10)
    X = (1.0 + 1e-9 * np.arange(400.0)).reshape(-1, 1)
    assert np.unique(X.astype(np.float32)).size < 10
    y = (np.arange(400) % 100 > 50).astype(float) + 0.01 * rng.normal(size=400)
    lb = lgb.train({"objective": "regression", "verbose": -1, "num_leaves": 8,
                    "min_data_in_leaf": 5, "max_bin": 255}, lgb.Dataset(X, label=y), 5)
    bst = Booster.from_lightgbm(lb)
    theirs = lb.predict(X)
    assert np.unique(theirs).size > 1
    np.testing.assert_array_equal(bst.predict(X), theirs)


def test_lightgbm_through_apsplit_and_back_to_either_library():
    X, y, Xo, _ = _labelled("higgs7k", 2000, lambda y: y, 0.05, round32=False)
    lb = lgb.train({"objective": "binary", "verbose": -1, "num_leaves": 31, "seed": 0},
                   lgb.Dataset(X, label=y), ROUNDS)
    bst = Booster.from_lightgbm(lb)
    Xa = _both(X, Xo)
    raw = lb.predict(Xa, raw_score=True)
    # back to LightGBM: the double thresholds as they were, on float64 data
    np.testing.assert_array_equal(bst.to_lightgbm().predict(Xa, raw_score=True), raw)
    # to XGBoost, which reads float32: LightGBM's routing of the float32 values
    X32 = Xa.astype(np.float32).astype(np.float64)
    want = lb.predict(X32, raw_score=True)
    got = bst.to_xgboost().predict(xgb.DMatrix(X32), output_margin=True)
    bound = (ROUNDS + 2) * EPS32 * _abs_sum(bst, X32)
    assert np.all(np.abs(got - want) <= bound)


def test_a_continued_lightgbm_model_routes_each_tree_as_its_library():
    """LightGBM's trees compare X in double, the rounds train adds compare it rounded to
    float32 (as the DMatrix they were grown on)."""
    X, y, Xo, _ = _labelled("higgs7k", 1500, lambda y: y, 0.05, round32=False)
    lb = lgb.train({"objective": "binary", "verbose": -1, "num_leaves": 15},
                   lgb.Dataset(X, label=y), 5)
    bst = train({"objective": "binary:logistic", "max_depth": 4}, DMatrix(X, label=y), 4,
                xgb_model=lb)
    assert bst.input_dtype == "float64" and bst[5:].input_dtype == "float32"
    Xa = _both(X, Xo)
    np.testing.assert_array_equal(bst[:5].predict(Xa, output_margin=True),
                                  lb.predict(Xa, raw_score=True))
    rest = bst[5:].predict(Xa, output_margin=True)   # base_margin 0 (LightGBM has none)
    np.testing.assert_array_equal(rest, bst[5:].predict(DMatrix(Xa), output_margin=True))
    np.testing.assert_allclose(bst.predict(Xa, output_margin=True),
                               lb.predict(Xa, raw_score=True) + rest, rtol=1e-12, atol=1e-12)


def test_newton_tree_from_arrays_checks_its_nodes():
    from apsplit.newton import NewtonTree
    t = NewtonTree.from_arrays([0, -1, -1], [0.5, np.nan, np.nan], [True, False, False],
                               [1, -1, -1], [2, -1, -1], [0.0, -1.0, 2.0], n_features=1,
                               learning_rate=0.5)
    np.testing.assert_array_equal(t.predict(np.array([[0.0], [1.0], [np.nan]])), [-1, 2, -1])
    np.testing.assert_array_equal(t.base_weight, [0.0, -2.0, 4.0])
    np.testing.assert_array_equal(t.parent, [-1, 0, 0])
    with pytest.raises(ValueError, match="node 0 has the child 0"):
        NewtonTree.from_arrays([0, -1], [0.5, np.nan], None, [0, -1], [1, -1], [0, 0], 1)
    with pytest.raises(ValueError, match="node 0 splits on feature 3"):
        NewtonTree.from_arrays([3, -1, -1], [0.5, 0, 0], None, [1, -1, -1], [2, -1, -1],
                               [0, 0, 0], 2)
    with pytest.raises(ValueError, match="node 1 is not reached"):
        NewtonTree.from_arrays([-1, -1, -1], [0, 0, 0], None, None, None, [0, 0, 0], 1)


def test_pruned_nodes_and_leaf_only_trees():
    import json
    X, y, Xo, _ = _labelled("higgs7k", 1000, lambda y: y, 0.05)
    xb = xgb.train({"objective": "binary:logistic", "max_depth": 6, "gamma": 3.0,
                    "tree_method": "exact"}, xgb.DMatrix(X, label=y), 3)
    trees = json.loads(bytes(xb.save_raw("json")))["learner"]["gradient_booster"]["model"]["trees"]
    deleted = sum(int(t["tree_param"]["num_deleted"]) for t in trees)
    bst = Booster.from_xgboost(xb)
    assert deleted > 0 and sum(t.node_count for t in bst.trees) == sum(
        int(t["tree_param"]["num_nodes"]) for t in trees) - deleted
    for t in bst.trees:  # breadth first: a node's children consecutive, after it
        split = t.feature >= 0
        assert np.all(t.children_right[split] == t.children_left[split] + 1)
        assert np.all(t.children_left[split] > np.flatnonzero(split))
    # leaf-only trees in both libraries
    xb = xgb.train({"objective": "binary:logistic", "gamma": 1e6}, xgb.DMatrix(X, label=y), 2)
    bst = Booster.from_xgboost(xb)
    assert all(t.node_count == 1 for t in bst.trees)
    np.testing.assert_allclose(bst.predict(Xo), xb.predict(xgb.DMatrix(Xo)), rtol=1e-6)
    lb = lgb.train({"objective": "binary", "verbose": -1, "min_gain_to_split": 1e9},
                   lgb.Dataset(X, label=y), 2)
    bst = Booster.from_lightgbm(lb)
    assert all(t.node_count == 1 for t in bst.trees)
    np.testing.assert_array_equal(bst.predict(Xo, output_margin=True),
                                  lb.predict(Xo, raw_score=True))


def test_a_binary_model_without_xgboost_names_the_extra(monkeypatch):
    """A UBJSON model is read through xgboost; without it the error says what to install."""
    from apsplit.adapters.model_import import xgboost_document
    monkeypatch.setitem(sys.modules, "xgboost", None)  # import xgboost now raises ImportError
    with pytest.raises(ValueError, match=r'pip install "apsplit\[xgboost\]"'):
        xgboost_document(b"{L\x00\x00\x00\x00\x00\x00\x00\x01U\x07learner")
