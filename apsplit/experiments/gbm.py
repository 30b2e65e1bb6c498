"""Gradient boosting: apsplit's exact Newton trees (``apsplit.adapters.train``) next to XGBoost
(exact and hist), LightGBM and scikit-learn's HistGradientBoostingClassifier.

Every library boosts ``rounds`` trees of depth ``depth`` with the same objective
(``binary:logistic``, or softmax with one tree per class and round for more
than two classes), learning rate ``eta``, L2 regularisation ``lam`` and a least
hessian sum of 1 per child (``min_child_weight`` / ``min_sum_hessian_in_leaf``;
scikit-learn has no such parameter and keeps its default), on ``threads``
threads (default 1).  apsplit runs every finder that Newton trees support
(``apsplit.newton.METHODS``; the others are listed as unavailable).

How the numbers are measured
----------------------------
* Fit seconds: wall time of one fit on the training data, the least of
  ``repeats``; apsplit first trains one untimed round, so no numba kernel is
  compiled or loaded on the clock.  apsplit's time includes building its
  ``DMatrix`` (the binned columns), as XGBoost's includes its DMatrix.
* ``/ xgb exact``, ``/ lightgbm``: fit seconds over those of XGBoost exact and
  LightGBM measured in the same run.
* Test metric: log loss (``mlogloss`` for several classes) and accuracy on the
  test data: the dataset's test file where there is one (agaricus, higgs7k),
  else a stratified held-out 20% of the rows (``random_state=0``).
* Same model: the largest relative difference between apsplit's test margins
  and XGBoost exact's (``base_score`` 0.5 in both, so neither estimates an
  intercept); "same" when below 1e-5.
* ``--data PATH --format svm|uci|tsv`` adds a dataset from a file (held-out
  test rows); ``--quick``: 5 rounds on at most 1000 rows.

Used by ``python -m benchmarks.gbm``.
"""

import datetime
import platform
import time
from importlib import import_module
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import train_test_split

from .. import __version__
from ..adapters import DMatrix, train
from .loaders import BUNDLED, FORMATS, load_file
from .report import text_table, write_json
from .stock import _subset, load_split

__all__ = ["DEFAULT_DATASETS", "DEFAULTS", "run", "run_dataset", "format_table", "add_arguments",
           "report"]

DEFAULT_DATASETS = ("satimage", "a8a", "higgs7k", "agaricus", "pendigits")
DEFAULTS = {"rounds": 100, "depth": 6, "eta": 0.3, "lam": 1.0, "repeats": 1, "threads": 1}
QUICK_ROUNDS, QUICK_ROWS = 5, 1000
SAME = 1e-5


def _optional(module):
    try:
        return import_module(module)
    except ImportError:
        return None


def _best(call, repeats):
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = call()
        best = min(best, time.perf_counter() - start)
    return out, best


def _metrics(proba, y):
    proba = np.clip(proba, 1e-15, 1 - 1e-15)
    logloss = float(-np.mean(np.log(proba[np.arange(y.size), y])))
    return logloss, float(np.mean(np.argmax(proba, axis=1) == y))


def _proba2(p):
    p = np.asarray(p, dtype=np.float64)
    return np.column_stack([1 - p, p]) if p.ndim == 1 else p


def _models(n_classes, rounds, depth, eta, lam, threads, unavailable):
    """[(name, library, fit(X, y) -> (margin_fn, proba_fn))] in the order they are run."""
    from .. import newton
    multi = n_classes > 2
    params = {"objective": "multi:softprob" if multi else "binary:logistic", "max_depth": depth,
              "eta": eta, "lambda": lam, "min_child_weight": 1.0, "base_score": 0.5}
    if multi:
        params["num_class"] = n_classes
    models = []
    for method in ("exhaustive", "adaptive"):
        if method not in newton.METHODS:
            unavailable[f"apsplit ({method})"] = "Newton trees do not support this finder yet"
            continue

        def fit(X, y, method=method):
            bst = train({**params, "method": method}, DMatrix(X, label=y), rounds,
                        verbose_eval=False)
            return (lambda Z: bst.predict(DMatrix(Z), output_margin=True),
                    lambda Z: _proba2(bst.predict(DMatrix(Z))))
        models.append((f"apsplit ({method})", "apsplit", fit))
    xgb = _optional("xgboost")
    if xgb is None:
        unavailable["xgboost"] = "not installed (pip install apsplit[xgboost])"
    else:
        for tree_method in ("exact", "hist"):
            def fit(X, y, tree_method=tree_method):
                bst = xgb.train({**params, "tree_method": tree_method, "nthread": threads},
                                xgb.DMatrix(X, label=y), rounds)
                return (lambda Z: bst.predict(xgb.DMatrix(Z), output_margin=True),
                        lambda Z: _proba2(bst.predict(xgb.DMatrix(Z))))
            models.append((f"XGBoost {tree_method}", "xgboost", fit))
    lgb = _optional("lightgbm")
    if lgb is None:
        unavailable["lightgbm"] = "not installed (pip install apsplit[lightgbm])"
    else:
        def fit(X, y):
            lparams = {"objective": "multiclass" if multi else "binary", "max_depth": depth,
                       "num_leaves": 2 ** depth, "learning_rate": eta, "lambda_l2": lam,
                       "min_sum_hessian_in_leaf": 1.0, "min_data_in_leaf": 1,
                       "num_threads": threads, "verbose": -1, "deterministic": True}
            if multi:
                lparams["num_class"] = n_classes
            bst = lgb.train(lparams, lgb.Dataset(X, label=y), rounds)
            return None, lambda Z: _proba2(bst.predict(Z))
        models.append(("LightGBM", "lightgbm", fit))
    from sklearn.ensemble import HistGradientBoostingClassifier

    def fit(X, y):
        from threadpoolctl import threadpool_limits
        dense = X.toarray() if sp.issparse(X) else X
        with threadpool_limits(threads):
            model = HistGradientBoostingClassifier(
                max_iter=rounds, max_depth=depth, max_leaf_nodes=2 ** depth, learning_rate=eta,
                l2_regularization=lam, min_samples_leaf=1, early_stopping=False).fit(dense, y)
        return None, lambda Z: model.predict_proba(Z.toarray() if sp.issparse(Z) else Z)
    models.append(("HistGradientBoosting", "scikit-learn", fit))
    return models


def run_dataset(name, data, rounds, depth, eta, lam, repeats, threads):
    """One dataset's rows: fit seconds, test metrics, ratios, and margins against XGBoost exact."""
    X, y, X_test, y_test = data["X"], data["y"], data["X_test"], data["y_test"]
    n_classes = int(max(y.max(), y_test.max())) + 1
    unavailable = {}
    models = _models(n_classes, rounds, depth, eta, lam, threads, unavailable)
    warm = {"objective": "multi:softprob", "num_class": n_classes} if n_classes > 2 else \
        {"objective": "binary:logistic"}
    train({**warm, "max_depth": depth, "base_score": 0.5}, DMatrix(X, label=y), 1)  # compile
    rows, margins = [], {}
    for model, library, fit in models:
        (margin_fn, proba_fn), seconds = _best(lambda: fit(X, y), repeats)
        logloss, accuracy = _metrics(proba_fn(X_test), y_test)
        if margin_fn is not None:
            margins[model] = np.asarray(margin_fn(X_test), dtype=np.float64)
        rows.append({"dataset": name, "model": model, "library": library,
                     "fit_seconds": seconds, "test_logloss": logloss,
                     "test_accuracy": accuracy})
    times = {r["model"]: r["fit_seconds"] for r in rows}
    ref = margins.get("XGBoost exact")
    for r in rows:
        r["over_xgb_exact"] = r["fit_seconds"] / times["XGBoost exact"] \
            if "XGBoost exact" in times else None
        r["over_lightgbm"] = r["fit_seconds"] / times["LightGBM"] if "LightGBM" in times else None
        if r["library"] == "apsplit" and ref is not None:
            diff = np.abs(margins[r["model"]] - ref) / np.maximum(1.0, np.abs(ref))
            r["margin_difference_vs_xgb_exact"] = float(diff.max())
    return {"dataset": name, "train_rows": int(X.shape[0]), "test_rows": int(X_test.shape[0]),
            "features": int(X.shape[1]), "classes": n_classes, "sparse": bool(sp.issparse(X)),
            "test_source": data["test_source"], "rows": rows, "unavailable": unavailable}


def _file_split(path, fmt, rows):
    X, y, classes = load_file(path, fmt)
    X, X_test, y, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    X, y = _subset(X, y, rows)
    X_test, y_test = _subset(X_test, y_test, rows)
    return {"X": X, "y": y, "X_test": X_test, "y_test": y_test, "classes": classes,
            "test_source": "held-out 20% of the rows (stratified, random_state=0)"}


def run(datasets=DEFAULT_DATASETS, files=(), rounds=DEFAULTS["rounds"], depth=DEFAULTS["depth"],
        eta=DEFAULTS["eta"], lam=DEFAULTS["lam"], repeats=DEFAULTS["repeats"],
        threads=DEFAULTS["threads"], quick=False):
    """The benchmark on bundled ``datasets`` and ``files`` [(path, format)]; a JSON-ready dict."""
    rows = QUICK_ROWS if quick else None
    rounds = QUICK_ROUNDS if quick else rounds
    results = []
    for name in datasets:
        results.append(run_dataset(name, load_split(name, rows=rows), rounds, depth, eta, lam,
                                   repeats, threads))
    for path, fmt in files:
        results.append(run_dataset(Path(path).name, _file_split(path, fmt, rows), rounds, depth,
                                   eta, lam, repeats, threads))
    return {"benchmark": "gbm", "date": datetime.date.today().isoformat(),
            "settings": {"rounds": rounds, "depth": depth, "eta": eta, "lambda": lam,
                         "repeats": repeats, "threads": threads, "quick": quick,
                         "apsplit": __version__, "python": platform.python_version()},
            "datasets": results}


def _fmt(x, spec):
    return "" if x is None else format(x, spec)


def format_table(result):
    header = ["dataset", "model", "fit s", "/ xgb exact", "/ lightgbm", "test logloss",
              "test acc", "vs xgb exact"]
    rows = []
    for d in result["datasets"]:
        for r in d["rows"]:
            diff = r.get("margin_difference_vs_xgb_exact")
            same = "" if diff is None else ("same" if diff < SAME else f"{diff:.1e}")
            rows.append([d["dataset"], r["model"], f"{r['fit_seconds']:.3f}",
                         _fmt(r["over_xgb_exact"], ".2f"), _fmt(r["over_lightgbm"], ".2f"),
                         f"{r['test_logloss']:.4f}", f"{r['test_accuracy']:.4f}", same])
    notes = [f"{d['dataset']}: {k} unavailable: {v}" for d in result["datasets"]
             for k, v in d["unavailable"].items()]
    return text_table(header, rows, 2) + ("\n" + "\n".join(notes) if notes else "")


def add_arguments(parser):
    parser.add_argument("--datasets", default=",".join(DEFAULT_DATASETS),
                        help=f"comma-separated bundled sets from {', '.join(BUNDLED)}, or '' "
                             f"(default {','.join(DEFAULT_DATASETS)})")
    parser.add_argument("--data", action="append", default=[], type=Path,
                        help="a dataset file to add (repeatable), read with --format")
    parser.add_argument("--format", action="append", default=[], choices=FORMATS,
                        help="the format of each --data file, in order")
    for key in ("rounds", "depth", "repeats", "threads"):
        parser.add_argument(f"--{key}", type=int, default=DEFAULTS[key],
                            help=f"default {DEFAULTS[key]}")
    parser.add_argument("--eta", type=float, default=DEFAULTS["eta"])
    parser.add_argument("--lam", type=float, default=DEFAULTS["lam"], help="L2 (lambda)")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_ROUNDS} rounds on at most {QUICK_ROWS} rows")
    parser.add_argument("--json", type=Path, default=Path("results/gbm.json"))


def report(args, parser):
    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    unknown = sorted(set(datasets) - set(BUNDLED))
    if unknown:
        parser.error(f"unknown datasets {unknown}; choose from {', '.join(BUNDLED)}")
    if len(args.format) != len(args.data):
        parser.error("give one --format per --data file")
    for key in ("rounds", "depth", "repeats", "threads"):
        if getattr(args, key) < 1:
            parser.error(f"--{key} must be at least 1")
    result = run(datasets, list(zip(args.data, args.format)), args.rounds, args.depth, args.eta,
                 args.lam, args.repeats, args.threads, args.quick)
    print(format_table(result))
    write_json(result, args.json)
    print(f"wrote {args.json}")
    return result
