"""Categorical features in gradient boosting: apsplit's exact categorical Newton splits
against LightGBM's categorical handling and XGBoost's (hist, ``enable_categorical``), and
apsplit on the one-hot columns.  From the repository root:

    python -m benchmarks.categorical [--rounds 50] [--depth 6] [--repeats 3]

Two binary problems:

- *agaricus*, the bundled one-hot mushroom data folded back into categorical
  columns: consecutive one-hot columns with at most one 1 per row form one
  feature, its code the active column (NaN where none is), found greedily on
  the training file and applied to the test file;
- *synthetic*: 20000 training and 10000 test rows, four categorical features of
  50 categories (Zipf-like frequencies) and two normal ones; the logit is a
  random effect per category of each categorical feature plus the numeric
  features, the label a Bernoulli draw of it (seed 0).

Every contender: ``--rounds`` rounds of depth ``--depth``, learning rate 0.3,
lambda 1, min_child_weight (LightGBM's min_sum_hessian_in_leaf) 1, one thread;
LightGBM with ``num_leaves`` 2^depth, ``min_data_in_leaf`` 1 and its categorical
defaults (``max_cat_to_onehot`` 4, ``cat_smooth`` 10, ``cat_l2`` 10,
``max_cat_threshold`` 32, ``min_data_per_group`` 100), XGBoost with its defaults
for categories (``max_cat_to_onehot`` 4, 256 bins).  The table gives the test
log-loss and error and the fit seconds (the least of ``--repeats`` fits, the
contenders alternated in one run).
"""

import argparse
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .loaders import load_bundled
from ..optional import require
from .report import text_table, write_json

CONTENDERS = ("apsplit categorical", "apsplit one-hot", "LightGBM categorical",
              "XGBoost hist categorical")


class Problem(NamedTuple):
    X: np.ndarray            # categorical codes (NaN missing) and numeric columns
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    one_hot: sp.csr_matrix   # the same rows with every categorical column one-hot
    one_hot_test: sp.csr_matrix
    categorical: list        # the categorical columns of X


def fold_one_hot(X, groups=None):
    """(codes, groups): the one-hot matrix X (0/1) folded into categorical columns; the
    groups (lists of columns) found greedily when not given."""
    X = sp.csc_matrix(X)
    dense = X.toarray()
    if groups is None:
        groups, current, load = [], [], np.zeros(X.shape[0])
        for j in range(X.shape[1]):
            if current and np.any(load + dense[:, j] > 1):
                groups.append(current)
                current, load = [], np.zeros(X.shape[0])
            current.append(j)
            load += dense[:, j]
        groups.append(current)
    codes = np.full((X.shape[0], len(groups)), np.nan)
    for k, cols in enumerate(groups):
        block = dense[:, cols]
        hit = block.sum(axis=1) > 0
        codes[hit, k] = np.argmax(block[hit], axis=1)
    return codes, groups


def agaricus():
    X, y, _ = load_bundled("agaricus")
    Xt, yt, _ = load_bundled("agaricus", "test")
    codes, groups = fold_one_hot(X)
    test_codes, _ = fold_one_hot(Xt, groups)
    return Problem(codes, y.astype(float), test_codes, yt.astype(float), sp.csr_matrix(X),
                   sp.csr_matrix(Xt), list(range(len(groups))))


def synthetic(n_train=20000, n_test=10000, seed=0):
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    k, c = 4, 50
    freq = 1.0 / np.arange(1, c + 1)
    freq /= freq.sum()
    cats = np.column_stack([rng.choice(c, n, p=freq) for _ in range(k)])
    effects = rng.normal(size=(k, c))
    num = rng.normal(size=(n, 2))
    logit = effects[np.arange(k), cats].sum(axis=1) + num @ np.array([0.7, -0.4])
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    X = np.column_stack([cats, num]).astype(float)
    onehot = sp.hstack([sp.csr_matrix((np.ones(n), (np.arange(n), cats[:, j])), shape=(n, c))
                        for j in range(k)] + [sp.csr_matrix(num)]).tocsr()
    return Problem(X[:n_train], y[:n_train], X[n_train:], y[n_train:], onehot[:n_train],
                   onehot[n_train:], list(range(k)))


def _fit(name, data, rounds, depth):
    """(the fitted model's test probabilities, as a function; fit seconds)."""
    X, y, Xt, _, H, Ht, categorical = data
    if name.startswith("apsplit"):
        from ..adapters import DMatrix, train
        params = {"objective": "binary:logistic", "max_depth": depth, "learning_rate": 0.3,
                  "nthread": 1}
        if name == "apsplit categorical":
            types = ["c" if j in categorical else "q" for j in range(X.shape[1])]
            d, test = DMatrix(X, label=y, feature_types=types), Xt
        else:
            d, test = DMatrix(H, label=y), Ht
        start = time.perf_counter()
        bst = train(params, d, rounds, verbose_eval=False)
        return (lambda: bst.predict(test)), time.perf_counter() - start
    if name.startswith("LightGBM"):
        lgb = require("lightgbm", "this benchmark")
        params = {"objective": "binary", "max_depth": depth, "num_leaves": 2 ** depth,
                  "learning_rate": 0.3, "lambda_l2": 1.0, "min_sum_hessian_in_leaf": 1.0,
                  "min_data_in_leaf": 1, "num_threads": 1, "verbose": -1}
        start = time.perf_counter()
        d = lgb.Dataset(X, label=y, categorical_feature=categorical, params={"verbose": -1})
        bst = lgb.train(params, d, rounds)
        return (lambda: bst.predict(Xt)), time.perf_counter() - start
    xgb = require("xgboost", "this benchmark")
    types = ["c" if j in categorical else "q" for j in range(X.shape[1])]
    params = {"objective": "binary:logistic", "max_depth": depth, "eta": 0.3, "lambda": 1.0,
              "min_child_weight": 1.0, "tree_method": "hist", "nthread": 1}
    start = time.perf_counter()
    d = xgb.DMatrix(X, label=y, feature_types=types, enable_categorical=True)
    bst = xgb.train(params, d, rounds)
    test = xgb.DMatrix(Xt, feature_types=types, enable_categorical=True)
    return (lambda: bst.predict(test)), time.perf_counter() - start


def _metrics(p, y):
    p = np.clip(p, 1e-15, 1 - 1e-15)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))), \
        float(np.mean((p > 0.5) != y))


def run(rounds=50, depth=6, repeats=3):
    result = {"rounds": rounds, "depth": depth, "repeats": repeats, "sets": {}}
    for set_name, make in (("agaricus", agaricus), ("synthetic", synthetic)):
        data = make()
        rows = {name: {"seconds": np.inf} for name in CONTENDERS}
        _fit("apsplit categorical", data, 1, depth)  # compile before timing
        for _ in range(repeats):
            for name in CONTENDERS:
                predict, seconds = _fit(name, data, rounds, depth)
                rows[name]["seconds"] = min(rows[name]["seconds"], seconds)
                rows[name]["logloss"], rows[name]["error"] = _metrics(predict(), data.y_test)
        result["sets"][set_name] = {"shape": list(data.X.shape),
                                    "one_hot_columns": int(data.one_hot.shape[1]),
                                    "rows": rows}
    return result


def format_table(result):
    rows = []
    for set_name, entry in result["sets"].items():
        for name, r in entry["rows"].items():
            rows.append([set_name, name, f"{r['logloss']:.4f}", f"{r['error']:.4f}",
                         f"{r['seconds']:.2f}"])
    return text_table(["data", "model", "test logloss", "test error", "fit s"], rows, 2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, default=Path("results/categorical.json"),
                        help="where to write the results (default results/categorical.json)")
    args = parser.parse_args(argv)
    result = run(args.rounds, args.depth, args.repeats)
    print(format_table(result))
    write_json(result, args.json)
    print(f"\nwrote {args.json}")
