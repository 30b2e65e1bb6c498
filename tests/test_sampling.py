"""Sampling clients (adapters.sampling) in train: the rules counted (Subsample, Bagging,
ColumnSample, GOSS), reproducibility from seed, history, a user's own Sampler, no sampling
giving today's models, the counts against LightGBM and XGBoost where they are deterministic,
fit quality, and every bad input named.  The libraries' random streams differ from numpy's,
so the draws themselves are never compared, only the rules (counts, factors, warm-up)."""

import numpy as np
import pytest
import scipy.sparse as sp

from apsplit.adapters import DMatrix, train
from apsplit.adapters.sampling import (GOSS, Bagging, Chain, ColumnSample, Sample, Sampler,
                                       Subsample, colsample_count, goss_counts, goss_warmup)

RNG = np.random.default_rng(0)
N, K = 1005, 10
X = RNG.normal(size=(N, K))
Y_REG = X @ RNG.normal(size=K) + RNG.normal(size=N)          # continuous: no gradient ties
Y_BIN = (X[:, 0] + X[:, 1] + 0.5 * RNG.normal(size=N) > 0).astype(float)
REG = {"objective": "reg:squarederror", "max_depth": 3, "base_score": 0.0}
BIN = {"objective": "binary:logistic", "max_depth": 3, "base_score": 0.5}


@pytest.fixture(scope="module")
def dreg():
    return DMatrix(X, label=Y_REG)


@pytest.fixture(scope="module")
def dbin():
    return DMatrix(X, label=Y_BIN)


def _rows(bst):
    return [h["rows"] for h in bst.history]


def _started(sampler, n=N, k=K, lr=0.3):
    sampler.start(n, k, lr)
    return sampler


# ---------------------------------------------------------------- the rules, counted
def test_subsample_rows_are_binomial(dreg):
    f, rounds = 0.3, 40
    bst = train({**REG, "subsample": f}, dreg, rounds)
    counts = np.array(_rows(bst))
    sd = np.sqrt(N * f * (1 - f))
    assert np.all(np.abs(counts - N * f) < 5 * sd)
    assert abs(counts.mean() - N * f) < 5 * sd / np.sqrt(rounds)
    assert len(set(counts.tolist())) > 1                      # redrawn every round
    assert {h["features"] for h in bst.history} == {K}
    assert bst.history[0]["sampler"] == "subsample(0.3)"
    # the draw itself: a Bernoulli per row, afresh each round
    s = _started(Subsample(f))
    rng = np.random.default_rng(1)
    g = np.zeros((100_000, 1))
    a, b = s.sample(0, g, g, rng).rows, s.sample(1, g, g, rng).rows
    assert abs(a.size / 1e5 - f) < 5 * np.sqrt(f * (1 - f) / 1e5)
    assert not np.array_equal(a, b) and np.all(np.diff(a) > 0)


def test_bagging_redraws_every_freq_rounds(dreg):
    f, freq, rounds = 0.5, 3, 12
    bst = train({**REG, "bagging_fraction": f, "bagging_freq": freq}, dreg, rounds)
    counts = _rows(bst)
    blocks = [counts[i:i + freq] for i in range(0, rounds, freq)]
    assert all(len(set(b)) == 1 for b in blocks)              # reused in between
    assert len({b[0] for b in blocks}) > 1                    # redrawn every freq rounds
    sd = np.sqrt(N * f * (1 - f))
    assert all(abs(b[0] - N * f) < 5 * sd for b in blocks)    # LightGBM: a Bernoulli per row
    s = _started(Bagging(f, freq))
    rng, g = np.random.default_rng(2), np.zeros((N, 1))
    bags = [s.sample(r, g, g, rng).rows for r in range(7)]
    for r in range(7):
        assert np.array_equal(bags[r], bags[r - r % freq])
    assert not np.array_equal(bags[0], bags[3])
    # the same bag: the trees of one period saw the same rows (their root counts)
    roots = [int(t.n_node_samples[0]) for t in bst.trees]
    assert roots == counts


def test_bagging_rule_is_lightgbms():
    """LightGBM's bags (its trees' root counts): a Bernoulli draw per row, so sizes vary
    around f n, reused for freq rounds; apsplit's follow the same rule (other draws)."""
    lgb = pytest.importorskip("lightgbm")
    f, freq, rounds = 0.5, 2, 8
    model = lgb.train({"objective": "regression", "bagging_fraction": f, "bagging_freq": freq,
                       "num_leaves": 4, "min_data_in_leaf": 1, "num_threads": 1,
                       "verbose": -1}, lgb.Dataset(X, label=Y_REG), rounds)
    counts = [t["tree_structure"]["internal_count"] for t in model.dump_model()["tree_info"]]
    bst = train({**REG, "bagging_fraction": f, "bagging_freq": freq}, DMatrix(X, label=Y_REG),
                rounds)
    sd = np.sqrt(N * f * (1 - f))
    for c in (counts, _rows(bst)):
        assert all(c[i] == c[i + 1] for i in range(0, rounds, freq))
        assert all(abs(x - N * f) < 5 * sd for x in c)
        assert len(set(c)) > 1                                # not a fixed count


def test_bagging_without_fraction_or_freq_is_a_no_op(dreg):
    plain = train(REG, dreg, 4)
    for params in ({"bagging_freq": 5}, {"bagging_fraction": 0.5}, {"bagging_freq": 0},
                   {"subsample": 1.0, "colsample_bytree": 1.0}):
        bst = train({**REG, **params}, dreg, 4)
        np.testing.assert_array_equal(bst.predict(dreg), plain.predict(dreg))
        assert _rows(bst) == [N] * 4 and bst.history[0]["sampler"] == "none"


@pytest.mark.parametrize("f, k", [(0.5, 10), (0.3, 10), (0.7, 10), (0.75, 10), (0.05, 10),
                                  (0.99, 10), (0.1, 7), (1 / 3, 9), (0.5, 1)])
def test_colsample_bytree_count(f, k):
    assert colsample_count(f, k) == max(1, int(np.float32(f) * np.float32(k)))
    s = _started(ColumnSample(f), k=k)
    rng, g = np.random.default_rng(3), np.zeros((5, 1))
    draws = [s.sample(r, g, g, rng).features for r in range(20)]
    assert all(d.size == colsample_count(f, k) and np.all(np.diff(d) > 0) and d[-1] < k
               for d in draws)
    if colsample_count(f, k) < k:
        assert len({tuple(d) for d in draws}) > 1


def test_colsample_bytree_in_train(dreg):
    bst = train({**REG, "colsample_bytree": 0.5, "max_depth": 6}, dreg, 8)
    assert {h["features"] for h in bst.history} == {5}
    for tree in bst.trees:                                     # at most 5 features per tree
        assert np.unique(tree.feature[tree.feature >= 0]).size <= 5


def test_colsample_count_matches_xgboost():
    """XGBoost's count (floor(f * K), at least 1), measured: deep trees on K useful
    features use every feature they are given."""
    xgb = pytest.importorskip("xgboost")
    import json
    rng = np.random.default_rng(4)
    Xc = rng.normal(size=(1500, 10))
    yc = Xc.sum(axis=1)
    for f in (0.3, 0.5, 0.75, 0.05):
        model = xgb.train({"colsample_bytree": f, "max_depth": 8, "tree_method": "exact",
                           "seed": 1, "nthread": 1}, xgb.DMatrix(Xc, label=yc), 10)
        trees = json.loads(model.save_raw("json"))["learner"]["gradient_booster"]["model"][
            "trees"]
        used = [len({t["split_indices"][i] for i, c in enumerate(t["left_children"]) if c >= 0})
                for t in trees]
        assert max(used) == colsample_count(f, 10)
        bst = train({"objective": "reg:squarederror", "colsample_bytree": f, "max_depth": 8},
                    DMatrix(Xc, label=yc), 10)
        assert {h["features"] for h in bst.history} == {max(used)}


def test_goss_counts_scaling_and_warmup(dreg):
    a, b, eta = 0.2, 0.1, 0.3
    top_k, other_k, factor = goss_counts(N, a, b)
    assert (top_k, other_k) == (201, 100)                     # int(n * rate), top at least 1
    assert factor == pytest.approx((N - top_k) / other_k)     # 8.04; (1 - a) / b is 8
    assert goss_counts(1000, a, b)[2] == pytest.approx((1 - a) / b)
    assert goss_counts(3, 0.2, 0.1)[:2] == (1, 0)
    assert goss_warmup(0.3) == 3 and goss_warmup(0.1) == 10 and goss_warmup(1.0) == 1
    bst = train({**REG, "data_sample_strategy": "goss", "eta": eta}, dreg, 7)
    assert _rows(bst) == [N] * 3 + [top_k + other_k] * 4
    assert bst.history[-1]["sampler"] == "goss(0.2, 0.1)"
    # the sample itself: the top |g h| kept as they are, the rest drawn and scaled
    s = _started(GOSS(a, b), lr=eta)
    rng = np.random.default_rng(5)
    grad = rng.normal(size=(N, 3))
    hess = rng.random(size=(N, 3)) + 0.1
    assert s.sample(2, grad, hess, rng).rows is None          # warm-up
    out = s.sample(3, grad, hess, rng)
    score = np.abs(grad * hess).sum(axis=1)
    top = np.sort(np.argsort(-score)[:top_k])
    assert out.rows.size == top_k + other_k and np.isin(top, out.rows).all()
    small = np.setdiff1d(out.rows, top)
    assert small.size == other_k and score[small].max() <= score[top].min()
    np.testing.assert_array_equal(out.grad[top], grad[top])
    np.testing.assert_allclose(out.grad[small], grad[small] * factor, rtol=1e-15)
    np.testing.assert_allclose(out.hess[small], hess[small] * factor, rtol=1e-15)
    assert grad is not out.grad                               # the caller's arrays untouched


def test_goss_against_lightgbm():
    """LightGBM's rows per tree (the root's internal_count) and hessian sum (internal_weight)
    on the same n, rates and learning rate, L2 loss (hessians 1, no ties): the same counts,
    warm-up and factor (n - top_k) / other_k.  The rows drawn differ (another RNG)."""
    lgb = pytest.importorskip("lightgbm")
    eta, rounds = 0.3, 6
    model = lgb.train({"objective": "regression", "data_sample_strategy": "goss",
                       "top_rate": 0.2, "other_rate": 0.1, "learning_rate": eta,
                       "num_leaves": 4, "min_data_in_leaf": 1, "num_threads": 1,
                       "verbose": -1}, lgb.Dataset(X, label=Y_REG), rounds)
    roots = [t["tree_structure"] for t in model.dump_model()["tree_info"]]
    bst = train({**REG, "data_sample_strategy": "goss", "top_rate": 0.2, "other_rate": 0.1,
                 "eta": eta}, DMatrix(X, label=Y_REG), rounds)
    assert [r["internal_count"] for r in roots] == _rows(bst)
    np.testing.assert_allclose([r["internal_weight"] for r in roots],
                               [float(t.cover[0]) for t in bst.trees], rtol=1e-5)


def test_goss_multiclass_ranks_by_the_sum_over_classes():
    y = np.digitize(X[:, 2], [-0.5, 0.5]).astype(float)
    seen = []

    class Spy(GOSS):
        def sample(self, round, grad, hess, rng):
            out = super().sample(round, grad, hess, rng)
            seen.append((grad.shape, out.rows))
            if out.rows is not None:      # every row at or above the top_k-th summed |g h|
                score = np.abs(grad * hess).sum(axis=1)
                top_k = goss_counts(N, 0.2, 0.1)[0]
                big = np.flatnonzero(score >= np.sort(score)[::-1][top_k - 1])
                assert np.isin(big, out.rows).all()
                assert out.rows.size == big.size + goss_counts(N, 0.2, 0.1)[1]
            return out

    bst = train({"objective": "multi:softprob", "num_class": 3, "max_depth": 2, "eta": 0.5},
                DMatrix(X, label=y), 4, sampler=Spy())
    assert [shape for shape, _ in seen] == [(N, 3)] * 4        # one sample per round
    for r in range(4):                                         # shared by the class trees
        rows = seen[r][1]
        n = N if rows is None else rows.size
        assert [int(t.n_node_samples[0]) for t in bst.trees[3 * r:3 * r + 3]] == [n] * 3
    assert _rows(bst)[:2] == [N, N] and _rows(bst)[2] >= sum(goss_counts(N, 0.2, 0.1)[:2])


# ---------------------------------------------------------------- seeds, history, models
@pytest.mark.parametrize("params", [{"subsample": 0.5}, {"colsample_bytree": 0.4},
                                    {"bagging_fraction": 0.6, "bagging_freq": 2},
                                    {"data_sample_strategy": "goss", "eta": 0.5},
                                    {"subsample": 0.8, "colsample_bytree": 0.5}])
def test_reproducible_from_seed(dreg, params):
    a = train({**REG, **params, "seed": 7}, dreg, 5)
    b = train({**REG, **params, "random_state": 7}, dreg, 5)
    c = train({**REG, **params, "seed": 8}, dreg, 5)
    np.testing.assert_array_equal(a.predict(dreg), b.predict(dreg))
    assert [h["rows"] for h in a.history] == [h["rows"] for h in b.history]
    assert not np.array_equal(a.predict(dreg), c.predict(dreg))
    d = train({**REG, **params}, dreg, 5)                      # default seed 0
    e = train({**REG, **params, "seed": 0}, dreg, 5)
    np.testing.assert_array_equal(d.predict(dreg), e.predict(dreg))


def test_no_sampling_is_todays_model(dbin):
    plain = train(BIN, dbin, 5)
    for kwargs in ({"params": {**BIN, "subsample": 1}}, {"sampler": Sampler()}):
        params = kwargs.pop("params", BIN)
        bst = train(params, dbin, 5, **kwargs)
        np.testing.assert_array_equal(bst.predict(dbin, output_margin=True),
                                      plain.predict(dbin, output_margin=True))
        for s, t in zip(bst.trees, plain.trees):
            np.testing.assert_array_equal(s.threshold, t.threshold)
    assert plain.history[0]["rows"] == N and plain.history[0]["features"] == K


def test_every_row_gets_the_new_trees(dbin):
    """Rows a tree did not see are routed to its leaves: the training margins (behind the
    train metric) are predict's."""
    result = {}
    bst = train({**BIN, "subsample": 0.3, "eval_metric": "logloss"}, dbin, 6,
                evals=[(dbin, "train")], evals_result=result, verbose_eval=False)
    p = np.clip(bst.predict(dbin), 1e-15, 1 - 1e-15)
    logloss = -np.mean(Y_BIN * np.log(p) + (1 - Y_BIN) * np.log(1 - p))
    assert result["train"]["logloss"][-1] == pytest.approx(logloss, rel=1e-5)


def test_sparse_input_with_subsample():
    Xs = sp.random(400, 20, density=0.2, random_state=0, format="csr")
    y = (np.asarray(Xs.sum(axis=1)).ravel() > 0.4).astype(float)
    d = DMatrix(Xs, label=y)
    result = {}
    bst = train({**BIN, "subsample": 0.5, "colsample_bytree": 0.5, "eval_metric": "logloss"},
                d, 5, evals=[(d, "train")], evals_result=result, verbose_eval=False)
    assert {h["features"] for h in bst.history} == {10}
    p = np.clip(bst.predict(d), 1e-15, 1 - 1e-15)
    assert result["train"]["logloss"][-1] == pytest.approx(
        -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)), rel=1e-5)


def test_an_empty_draw_is_a_zero_tree():
    d = DMatrix(X[:4], label=Y_REG[:4])
    bst = train({**REG, "subsample": 0.01, "min_child_weight": 0}, d, 6)
    assert 0 in _rows(bst)                                     # seed 0 draws no row at times
    for h, tree in zip(bst.history, bst.trees):
        if h["rows"] == 0:
            assert tree.node_count == 1 and tree.value[0] == 0.0
    margins = bst.predict(d, output_margin=True)
    assert np.all(np.isfinite(margins))


def test_a_users_own_sampler(dreg):
    class EveryOtherRow(Sampler):
        name = "every-other-row"

        def sample(self, round, grad, hess, rng):
            rows = np.arange(round % 2, grad.shape[0], 2)
            return Sample(rows=rows, grad=grad, hess=2 * hess, features=np.array([0, 3]))

    bst = train(REG, dreg, 4, sampler=EveryOtherRow())
    assert _rows(bst) == [503, 502, 503, 502]
    assert {h["features"] for h in bst.history} == {2}
    assert {h["sampler"] for h in bst.history} == {"every-other-row"}
    assert set(np.concatenate([t.feature for t in bst.trees])) <= {-1, 0, 3}
    assert bst.trees[0].cover[0] == pytest.approx(2 * 503)    # its hessians were used
    chained = train(REG, dreg, 2, sampler=Chain(Subsample(0.5), ColumnSample(0.5)))
    assert chained.history[0]["sampler"] == "subsample(0.5)+colsample_bytree(0.5)"
    assert chained.history[0]["features"] == 5


def test_fit_quality_with_subsample():
    """Test log loss of subsample=0.5 within a few % of the unsampled model's (bundled
    higgs7k; not equal to XGBoost's, whose random stream differs)."""
    from apsplit.experiments.loaders import load_bundled
    X_tr, y_tr, _ = load_bundled("higgs7k")
    X_te, y_te, _ = load_bundled("higgs7k", "test")
    d, dt = DMatrix(X_tr[:3000], label=y_tr[:3000]), DMatrix(X_te, label=y_te)
    params = {"objective": "binary:logistic", "max_depth": 4, "eta": 0.1,
              "eval_metric": "logloss"}
    losses = {}
    for name, extra in (("full", {}), ("sub", {"subsample": 0.5}),
                        ("goss", {"data_sample_strategy": "goss"})):
        result = {}
        train({**params, **extra}, d, 40, evals=[(dt, "test")], evals_result=result,
              verbose_eval=False)
        losses[name] = result["test"]["logloss"][-1]
    assert losses["sub"] == pytest.approx(losses["full"], rel=0.03)
    # GOSS keeps 30% of the rows: LightGBM's own GOSS ends 3.5-5% above its unsampled
    # model here (seeds 0-2); apsplit's GOSS costs about as much
    assert losses["full"] < losses["goss"] < 1.08 * losses["full"]
    lgb = pytest.importorskip("lightgbm")
    from sklearn.metrics import log_loss
    dense = np.asarray(X_tr[:3000].todense()) if sp.issparse(X_tr) else X_tr[:3000]
    dense_te = np.asarray(X_te.todense()) if sp.issparse(X_te) else X_te
    ratio = []
    for extra in ({}, {"data_sample_strategy": "goss"}):
        model = lgb.train({"objective": "binary", "max_depth": 4, "num_leaves": 16,
                           "learning_rate": 0.1, "min_data_in_leaf": 1, "num_threads": 1,
                           "verbose": -1, **extra}, lgb.Dataset(dense, label=y_tr[:3000]), 40)
        ratio.append(log_loss(y_te, model.predict(dense_te)))
    assert losses["goss"] / losses["full"] == pytest.approx(ratio[1] / ratio[0], abs=0.04)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("name", ["subsample", "colsample_bytree", "bagging_fraction",
                                  "top_rate", "other_rate"])
@pytest.mark.parametrize("value", [0, 0.0, -0.1, 1.5, float("nan")])
def test_fractions_outside_0_1_refused(dreg, name, value):
    with pytest.raises(ValueError, match=rf"{name} must be in \(0, 1\]"):
        train({**REG, name: value}, dreg, 1)


def test_bad_sampling_parameters(dreg):
    with pytest.raises(ValueError, match="top_rate \\+ other_rate must be at most 1"):
        train({**REG, "data_sample_strategy": "goss", "top_rate": 0.7, "other_rate": 0.4},
              dreg, 1)
    with pytest.raises(ValueError, match="top_rate \\+ other_rate"):
        GOSS(0.6, 0.5)
    with pytest.raises(ValueError, match="'goss' cannot be combined with bagging"):
        train({**REG, "data_sample_strategy": "goss", "bagging_fraction": 0.5,
               "bagging_freq": 1}, dreg, 1)
    with pytest.raises(ValueError, match="bagging_freq must be >= 0"):
        train({**REG, "bagging_fraction": 0.5, "bagging_freq": -1}, dreg, 1)
    with pytest.raises(TypeError, match="bagging_freq must be an integer"):
        train({**REG, "bagging_fraction": 0.5, "bagging_freq": 1.5}, dreg, 1)
    with pytest.raises(ValueError, match="data_sample_strategy must be 'bagging' or 'goss'"):
        train({**REG, "data_sample_strategy": "gosss"}, dreg, 1)
    with pytest.raises(ValueError, match="choose one row sampler: got subsample"):
        train({**REG, "subsample": 0.5, "data_sample_strategy": "goss"}, dreg, 1)
    with pytest.raises(ValueError, match="sampler= replaces the sampling parameters; .*subsample"):
        train({**REG, "subsample": 0.5}, dreg, 1, sampler=Subsample(0.5))
    with pytest.raises(TypeError, match="sampler must be a Sampler"):
        train(REG, dreg, 1, sampler="goss")
    with pytest.raises(TypeError, match="subsample must be a number"):
        train({**REG, "subsample": "half"}, dreg, 1)
    for name in ("colsample_bylevel", "colsample_bynode"):
        for value in (0.0, 1.5, float("nan")):
            with pytest.raises(ValueError, match=f"{name} must be in \\(0, 1\\], got {value}"):
                train({**REG, name: value}, dreg, 1)
        with pytest.raises(TypeError, match=f"{name} must be a number"):
            train({**REG, name: "all"}, dreg, 1)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        train({**REG, "subsample": 0.5, "seed": -1}, dreg, 1)


def test_a_bad_sample_is_named(dreg):
    def sampler(out):
        class Bad(Sampler):
            name = "bad"

            def sample(self, round, grad, hess, rng):
                return out(grad, hess)
        return Bad()

    cases = [(lambda g, h: (None, g, h), TypeError, "'bad'.sample must return"),
             (lambda g, h: Sample(np.array([0, 0, 1]), g, h), ValueError, "duplicate rows"),
             (lambda g, h: Sample(np.array([N]), g, h), ValueError, "rows outside"),
             (lambda g, h: Sample(np.array([0.5]), g, h), ValueError, "not 1-d int indices"),
             (lambda g, h: Sample(None, g[:5], h), ValueError, "expected"),
             (lambda g, h: Sample(None, g, h, np.array([K])), ValueError, "features outside"),
             (lambda g, h: Sample(None, g, h, np.array([], int)), ValueError, "no features")]
    for out, error, match in cases:
        with pytest.raises(error, match=match):
            train(REG, dreg, 1, sampler=sampler(out))
