"""train and Booster: parameters and aliases, evals and evals_result, early stopping and
callbacks (apsplit's and XGBoost's), iteration_range, continuation, pickling, importances,
history, and every bad input named."""

import io
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from apsplit.adapters import (Booster, DMatrix, EarlyStopping, ProgressBar, TrainingCallback,
                              train)

RNG = np.random.default_rng(0)
N = 400
X = RNG.normal(size=(N, 5))
X[RNG.random(X.shape) < 0.05] = np.nan
Y_BIN = (np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) + 0.3 * RNG.normal(size=N)
         > 0).astype(float)
Y_REG = np.nan_to_num(X[:, 0]) * 2 + RNG.normal(size=N)
Y_MULTI = np.digitize(np.nan_to_num(X[:, 2]), [-0.5, 0.5]).astype(float)
BIN = {"objective": "binary:logistic", "max_depth": 3, "base_score": 0.5}


@pytest.fixture(scope="module")
def dtrain():
    return DMatrix(X[:300], label=Y_BIN[:300])


@pytest.fixture(scope="module")
def dvalid():
    return DMatrix(X[300:], label=Y_BIN[300:])


def test_aliases_give_the_same_model(dtrain):
    a = train({**BIN, "eta": 0.2, "lambda": 2.0, "alpha": 0.1, "min_split_loss": 0.1}, dtrain, 3)
    b = train({**BIN, "learning_rate": 0.2, "reg_lambda": 2.0, "reg_alpha": 0.1, "gamma": 0.1},
              dtrain, 3)
    np.testing.assert_array_equal(a.predict(dtrain), b.predict(dtrain))
    c = train(list(BIN.items()) + [("eval_metric", "auc"), ("eval_metric", "error")], dtrain, 1)
    assert c.num_boosted_rounds() == 1


def test_unknown_parameter_warns_and_unsupported_refused(dtrain):
    with pytest.warns(UserWarning, match="'colour'"):
        train({**BIN, "colour": "red"}, dtrain, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        train({**BIN, "seed": 3, "nthread": 1, "tree_method": "exact", "verbosity": 0}, dtrain, 1)
    with pytest.raises(ValueError, match="'num_parallel_tree'=2 is not supported yet"):
        train({**BIN, "num_parallel_tree": 2}, dtrain, 1)
    with pytest.raises(ValueError, match=r"unknown criterion 'gini'; available: \[.*'newton'"):
        train({**BIN, "criterion": "gini"}, dtrain, 1)


def test_evals_result_and_monitor(dtrain, dvalid, capsys):
    result = {}
    bst = train({**BIN, "eval_metric": ["logloss", "auc"]}, dtrain, 4,
                evals=[(dtrain, "train"), (dvalid, "valid")], evals_result=result)
    assert list(result) == ["train", "valid"] and list(result["valid"]) == ["logloss", "auc"]
    assert all(len(v) == 4 for v in result["valid"].values())
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("[0]\ttrain-logloss:") and "valid-auc:" in lines[0]
    assert len(lines) == 4
    p = bst.predict(dvalid)
    from apsplit.adapters.metrics import get_metric
    assert result["valid"]["auc"][-1] == pytest.approx(get_metric("auc")(p, Y_BIN[300:]))
    assert result["train"]["logloss"][0] > result["train"]["logloss"][-1]


def test_default_metric_and_custom_metric(dtrain, dvalid):
    result = {}

    def mae(preds, d):
        return "mae", float(np.mean(np.abs(preds - d.get_label())))

    train(BIN, dtrain, 2, evals=[(dvalid, "v")], custom_metric=mae, evals_result=result,
          verbose_eval=False)
    assert list(result["v"]) == ["logloss", "mae"]


def test_early_stopping_and_iteration_range(dtrain, dvalid):
    result = {}
    bst = train({**BIN, "eta": 1.0, "max_depth": 6, "min_child_weight": 0.0}, dtrain, 60,
                evals=[(dvalid, "valid")], early_stopping_rounds=3, evals_result=result,
                verbose_eval=False)
    rounds = bst.num_boosted_rounds()
    assert rounds < 60 and bst.best_iteration == rounds - 4
    losses = result["valid"]["logloss"]
    assert bst.best_score == pytest.approx(min(losses)) and np.argmin(losses) == bst.best_iteration
    full = bst.predict(dvalid)
    best = bst.predict(dvalid, iteration_range=(0, bst.best_iteration + 1))
    assert not np.allclose(full, best)
    np.testing.assert_allclose(bst[: bst.best_iteration + 1].predict(dvalid), best)
    with pytest.raises(ValueError, match="iteration_range"):
        bst.predict(dvalid, iteration_range=(0, rounds + 1))
    saved = train({**BIN, "eta": 1.0, "max_depth": 6, "min_child_weight": 0.0}, dtrain, 60,
                  evals=[(dvalid, "valid")], callbacks=[EarlyStopping(3, save_best=True)],
                  verbose_eval=False)
    assert saved.num_boosted_rounds() == bst.best_iteration + 1
    np.testing.assert_allclose(saved.predict(dvalid), best)


def test_xgboost_callbacks_run(dtrain, dvalid):
    import xgboost as xgb
    stop = xgb.callback.EarlyStopping(rounds=2)
    bst = train({**BIN, "eta": 1.0, "max_depth": 6, "min_child_weight": 0.0}, dtrain, 60,
                evals=[(dvalid, "valid")], callbacks=[stop], verbose_eval=False)
    ours = train({**BIN, "eta": 1.0, "max_depth": 6, "min_child_weight": 0.0}, dtrain, 60,
                 evals=[(dvalid, "valid")], early_stopping_rounds=2, verbose_eval=False)
    assert bst.best_iteration == ours.best_iteration
    assert bst.num_boosted_rounds() == ours.num_boosted_rounds()


def test_callback_hooks_and_stop(dtrain):
    calls = []

    class Recorder(TrainingCallback):
        def before_training(self, model):
            calls.append("before_training")
            return model

        def before_iteration(self, model, epoch, evals_log):
            calls.append(f"b{epoch}")
            return False

        def after_iteration(self, model, epoch, evals_log):
            calls.append(f"a{epoch}")
            return epoch == 1

        def after_training(self, model):
            calls.append("after_training")
            return model

    bst = train(BIN, dtrain, 5, callbacks=[Recorder()])
    assert calls == ["before_training", "b0", "a0", "b1", "a1", "after_training"]
    assert bst.num_boosted_rounds() == 2
    out = io.StringIO()
    train(BIN, dtrain, 2, callbacks=[ProgressBar(stream=out)])
    assert out.getvalue()


def test_continue_from_a_booster(dtrain):
    a = train(BIN, dtrain, 6)
    b = train(BIN, dtrain, 3)
    b = train(BIN, dtrain, 3, xgb_model=b)
    assert b.num_boosted_rounds() == 6
    np.testing.assert_allclose(b.predict(dtrain, output_margin=True),
                               a.predict(dtrain, output_margin=True), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="apsplit Booster, an xgboost.Booster"):
        train(BIN, dtrain, 1, xgb_model=object())
    with pytest.raises(FileNotFoundError):  # a path is read as an XGBoost or LightGBM file
        train(BIN, dtrain, 1, xgb_model="no-such-model-file.json")


def test_predict_inputs_shapes_and_pickle():
    d = DMatrix(X, label=Y_MULTI)
    params = {"objective": "multi:softprob", "num_class": 3, "max_depth": 2, "base_score": 0.5}
    bst = train(params, d, 3)
    assert len(bst.trees) == 9 and bst.tree_info == [0, 1, 2] * 3
    p = bst.predict(d)
    assert p.shape == (N, 3) and np.allclose(p.sum(1), 1)
    assert bst.predict(X, output_margin=True).shape == (N, 3)
    np.testing.assert_allclose(bst.predict(X), p)
    soft = train({**params, "objective": "multi:softmax"}, d, 3)
    assert soft.predict(d).shape == (N,) and set(np.unique(soft.predict(d))) <= {0.0, 1.0, 2.0}
    np.testing.assert_array_equal(soft.predict(d), np.argmax(p, axis=1))
    back = pickle.loads(pickle.dumps(bst))
    np.testing.assert_array_equal(back.predict(d), p)
    r = train({"objective": "reg:squarederror", "max_depth": 3, "base_score": 0.0},
              DMatrix(X, label=Y_REG), 3)
    S = sp.csr_matrix(np.nan_to_num(X))  # sparse: absent = missing
    assert r.predict(S).shape == (N,)
    with pytest.raises(ValueError, match="4 features but the model was trained on 5"):
        r.predict(X[:, :4])


def test_base_margin_replaces_base_score():
    d = DMatrix(X, label=Y_REG)
    bst = train({"objective": "reg:squarederror", "max_depth": 2, "base_score": 0.0}, d, 2)
    shifted = DMatrix(X, base_margin=np.full(N, 10.0))
    np.testing.assert_allclose(bst.predict(shifted), bst.predict(d) + 10.0)


def test_importances_and_history(dtrain):
    bst = train(BIN, dtrain, 3)
    weight = bst.feature_importances("weight")
    assert weight.sum() == sum(int((t.children_left[:t.node_count] >= 0).sum()) for t in bst.trees)
    gain = bst.feature_importances("gain")
    assert np.all(gain[weight == 0] == 0) and np.all(gain[weight > 0] > 0)
    assert set(bst.get_score("weight")) <= {f"f{i}" for i in range(5)}
    assert len(bst.history) == 3
    assert {"round", "seconds", "nodes", "round_seconds"} <= set(bst.history[0])


def test_importances_match_xgboost():
    import xgboost as xgb
    Xd = np.nan_to_num(X)
    params = {"objective": "reg:squarederror", "max_depth": 3, "base_score": 0.0}
    ours = train(params, DMatrix(Xd, label=Y_REG), 3)
    theirs = xgb.train({**params, "tree_method": "exact"}, xgb.DMatrix(Xd, label=Y_REG), 3)
    for kind in ("weight", "gain", "total_gain", "cover"):
        a, b = ours.get_score(kind), theirs.get_score(importance_type=kind)
        assert set(a) == set(b)
        for k in a:
            assert a[k] == pytest.approx(b[k], rel=1e-4), (kind, k)


def test_xgboost_dmatrix_is_accepted():
    import xgboost as xgb
    dx = xgb.DMatrix(X, label=Y_BIN)
    a = train(BIN, dx, 2, evals=[(dx, "t")], verbose_eval=False)
    b = train(BIN, DMatrix(X, label=Y_BIN), 2)
    np.testing.assert_allclose(a.predict(dx), b.predict(X))


def test_pandas_feature_names():
    import pandas as pd
    df = pd.DataFrame(X, columns=list("abcde"))
    bst = train(BIN, DMatrix(df, label=Y_BIN), 2)
    assert bst.feature_names == list("abcde") and set(bst.get_score()) <= set("abcde")
    with pytest.raises(ValueError, match="feature_names mismatch"):
        bst.predict(DMatrix(X, feature_names=list("vwxyz")))


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("params,label,match", [
    ({"objective": "binary:logistic"}, Y_MULTI, "3 classes: use 'multi:softprob'"),
    ({"objective": "reg:logistic"}, Y_REG, r"labels in \[0, 1\]"),
    ({"objective": "multi:softprob"}, Y_MULTI, "needs num_class >= 2"),
    ({"objective": "multi:softmax", "num_class": 2}, Y_MULTI, "num_class=2 needs labels in 0..1"),
    ({"objective": "binary:logistic", "num_class": 3}, Y_BIN, "num_class=3 is for the multi"),
    ({"objective": "binary:hinge"}, Y_BIN, "unknown objective 'binary:hinge'"),
    ({"objective": "binary:logistic", "eval_metric": "mae"}, Y_BIN, "unknown eval_metric 'mae'"),
    ({"objective": "binary:logistic", "eval_metric": "mlogloss"}, Y_BIN,
     "'mlogloss' does not fit objective 'binary:logistic'"),
    ({"objective": "reg:squarederror", "eval_metric": "auc"}, Y_REG,
     "'auc' does not fit objective 'reg:squarederror'"),
    ({"objective": "multi:softprob", "num_class": 3, "eval_metric": "logloss"}, Y_MULTI,
     "'logloss' does not fit"),
])
def test_bad_parameters_and_labels(params, label, match):
    d = DMatrix(X, label=label)
    with pytest.raises(ValueError, match=match):
        train(params, d, 1, evals=[(d, "t")], verbose_eval=False)


def test_label_missing_and_early_stopping_without_evals():
    with pytest.raises(ValueError, match="needs labels: dtrain has no label"):
        train(BIN, DMatrix(X), 1)
    with pytest.raises(ValueError, match="early_stopping_rounds needs at least one evaluation"):
        train(BIN, DMatrix(X, label=Y_BIN), 2, early_stopping_rounds=1)
    with pytest.raises(ValueError, match=r"needs labels: evals\['v'\] has no label"):
        train(BIN, DMatrix(X, label=Y_BIN), 1, evals=[(DMatrix(X), "v")])


@pytest.mark.parametrize("grad,hess,match", [
    (lambda p: np.zeros(len(p) - 1), lambda p: np.ones(len(p)), r"grad of shape \(399,\)"),
    (lambda p: np.full(len(p), np.nan), lambda p: np.ones(len(p)), "grad with 400 NaN or inf"),
    (lambda p: np.zeros(len(p)), lambda p: np.full(len(p), np.inf), "hess with 400 NaN or inf"),
    (lambda p: np.zeros(len(p)), lambda p: -np.ones(len(p)), "400 negative hessian"),
])
def test_bad_custom_objective_output(grad, hess, match):
    with pytest.raises(ValueError, match=match):
        train({"max_depth": 2}, DMatrix(X, label=Y_REG), 1,
              obj=lambda preds, d: (grad(preds), hess(preds)))


def test_custom_multiclass_objective_shapes():
    seen = []

    def obj(preds, d):
        seen.append(preds.shape)
        return np.zeros(preds.size), np.ones(preds.size)  # the flat form is accepted

    bst = train({"num_class": 3, "max_depth": 2}, DMatrix(X, label=Y_MULTI), 2, obj=obj)
    assert seen == [(N, 3), (N, 3)] and bst.predict(X).shape == (N, 3)
    with pytest.raises(ValueError, match=r"expected \(400, 3\) or \(1200,\)"):
        train({"num_class": 3}, DMatrix(X, label=Y_MULTI), 1,
              obj=lambda p, d: (np.zeros(N), np.ones(N)))


def test_booster_api():
    bst = train(BIN, DMatrix(X, label=Y_BIN), 2)
    assert isinstance(bst, Booster) and len(bst) == 2 and bst.best_iteration is None
    bst.set_attr(note="x")
    assert bst.attr("note") == "x" and bst.attributes() == {"note": "x"}
    assert "binary:logistic" in repr(bst)


def test_method_is_the_engines_choice(dtrain):
    with pytest.raises(ValueError, match="(?s)exhaustive.*adaptive"):
        train({**BIN, "method": "adaptive_paper"}, dtrain, 1)
    ex = train({**BIN, "method": "exhaustive"}, dtrain, 2)
    ad = train({**BIN, "method": "adaptive", "weight_order": "hess"}, dtrain, 2)
    assert [t.gain.tolist() for t in ex.trees] == [t.gain.tolist() for t in ad.trees]
    assert all(r["assessments"] > 0 for r in ad.history)
