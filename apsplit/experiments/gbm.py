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
* ``--clients goss,subsample0.5,colsample0.5,bylevel0.5,bynode0.5,bagging0.5``:
  apsplit with each sampler (``adapters.sampling``, seed 0) beside the library's
  own (LightGBM GOSS and bagging, XGBoost exact's subsample and colsample_bytree /
  bylevel, and hist's colsample_bynode, which exact refuses; seed 0), with the
  rows per round and the features per node's
  split search the trees saw (apsplit: ``Booster.history``;
  LightGBM: its trees' root counts; XGBoost does not report them).  The random
  streams differ, so these models are compared by their metrics only.
* ``--data PATH --format svm|uci|tsv`` adds a dataset from a file (held-out
  test rows); ``--quick``: 5 rounds on at most 1000 rows.

Used by ``python -m benchmarks.gbm``.
"""

import datetime
import platform
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import train_test_split

from .. import __version__
from ..adapters import DMatrix, train
from ..optional import installed
from .loaders import BUNDLED, FORMATS, load_file
from .report import not_installed, text_table, write_json
from .stock import _subset, load_split

__all__ = ["DEFAULT_DATASETS", "DEFAULTS", "run", "run_dataset", "format_table", "add_arguments",
           "report", "parse_clients"]

DEFAULT_DATASETS = ("satimage", "a8a", "higgs7k", "agaricus", "pendigits")
DEFAULTS = {"rounds": 100, "depth": 6, "eta": 0.3, "lam": 1.0, "repeats": 1, "threads": 1}
QUICK_ROUNDS, QUICK_ROWS = 5, 1000
SAME = 1e-5


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


def parse_clients(text):
    """``--clients`` as [(label, apsplit params, library, the library's params)]:
    ``goss`` (LightGBM's GOSS), ``subsample<f>``, ``colsample<f>``, ``bylevel<f>`` and
    ``bynode<f>`` (XGBoost exact's subsample / colsample_bytree / colsample_bylevel /
    colsample_bynode), ``bagging<f>`` (LightGBM's bagging, every round)."""
    out = []
    for item in (c.strip() for c in (text or "").split(",")):
        if not item:
            continue
        if item == "goss":
            out.append((item, {"data_sample_strategy": "goss"}, "lightgbm",
                        {"data_sample_strategy": "goss"}))
            continue
        for prefix, library in (("subsample", "xgboost"), ("colsample", "xgboost"),
                                ("bylevel", "xgboost"), ("bynode", "xgboost"),
                                ("bagging", "lightgbm")):
            if item.startswith(prefix):
                try:
                    f = float(item[len(prefix):])
                except ValueError:
                    f = None
                if f is None or not 0 < f <= 1:
                    raise ValueError(f"client {item!r}: {prefix} takes a fraction in (0, 1], "
                                     f"e.g. {prefix}0.5")
                params = {"subsample": {"subsample": f}, "colsample": {"colsample_bytree": f},
                          "bylevel": {"colsample_bylevel": f},
                          "bynode": {"colsample_bynode": f},
                          "bagging": {"bagging_fraction": f, "bagging_freq": 1}}[prefix]
                out.append((item, params, library, params))
                break
        else:
            raise ValueError(f"unknown client {item!r}; choose goss, subsample<f>, "
                             f"colsample<f>, bylevel<f>, bynode<f>, bagging<f>")
    return out


def _lgb_seen(bst):
    """LightGBM's rows per tree (the root's internal_count), averaged."""
    counts = [t["tree_structure"].get("internal_count") for t in bst.dump_model()["tree_info"]]
    counts = [c for c in counts if c is not None]
    return {"rows_per_round": float(np.mean(counts))} if counts else {}


def _models(n_classes, rounds, depth, eta, lam, threads, unavailable, clients=()):
    """[(name, library, fit(X, y) -> (margin_fn, proba_fn[, seen]))] in the order they are
    run; ``seen``: the rows and features per round the trees saw (sampling clients)."""
    from .. import newton
    multi = n_classes > 2
    params = {"objective": "multi:softprob" if multi else "binary:logistic", "max_depth": depth,
              "eta": eta, "lambda": lam, "min_child_weight": 1.0, "base_score": 0.5,
              "nthread": threads}
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
    for label, aparams, _, _ in clients:
        def fit(X, y, aparams=aparams):
            bst = train({**params, **aparams, "seed": 0}, DMatrix(X, label=y), rounds,
                        verbose_eval=False)
            seen = {"rows_per_round": float(np.mean([h["rows"] for h in bst.history])),
                    "features_per_round": float(np.mean([h["node_features"]
                                                          for h in bst.history]))}
            return (lambda Z: bst.predict(DMatrix(Z), output_margin=True),
                    lambda Z: _proba2(bst.predict(DMatrix(Z))), seen)
        models.append((f"apsplit {label}", "apsplit", fit))
    xgb = installed("xgboost")
    if xgb is None:
        unavailable["xgboost"] = not_installed("xgboost")
    else:
        for tree_method in ("exact", "hist"):
            def fit(X, y, tree_method=tree_method):
                bst = xgb.train({**params, "tree_method": tree_method, "nthread": threads},
                                xgb.DMatrix(X, label=y), rounds)
                return (lambda Z: bst.predict(xgb.DMatrix(Z), output_margin=True),
                        lambda Z: _proba2(bst.predict(xgb.DMatrix(Z))))
            models.append((f"XGBoost {tree_method}", "xgboost", fit))
        for label, _, library, xparams in clients:
            if library != "xgboost":
                continue

            # XGBoost's exact method refuses colsample_bynode: hist has it
            tree_method = "hist" if "colsample_bynode" in xparams else "exact"

            def fit(X, y, xparams=xparams, tree_method=tree_method):
                bst = xgb.train({**params, **xparams, "tree_method": tree_method,
                                 "nthread": threads, "seed": 0}, xgb.DMatrix(X, label=y), rounds)
                return (lambda Z: bst.predict(xgb.DMatrix(Z), output_margin=True),
                        lambda Z: _proba2(bst.predict(xgb.DMatrix(Z))), {})
            models.append((f"XGBoost {tree_method} {label}", "xgboost", fit))
    lgb = installed("lightgbm")
    if lgb is None:
        unavailable["lightgbm"] = not_installed("lightgbm")
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
        for label, _, library, lextra in clients:
            if library != "lightgbm":
                continue

            def fit(X, y, lextra=lextra):
                lparams = {"objective": "multiclass" if multi else "binary",
                           "max_depth": depth, "num_leaves": 2 ** depth, "learning_rate": eta,
                           "lambda_l2": lam, "min_sum_hessian_in_leaf": 1.0,
                           "min_data_in_leaf": 1, "num_threads": threads, "verbose": -1,
                           "deterministic": True, "seed": 0, **lextra}
                if multi:
                    lparams["num_class"] = n_classes
                bst = lgb.train(lparams, lgb.Dataset(X, label=y), rounds)
                return None, lambda Z: _proba2(bst.predict(Z)), _lgb_seen(bst)
            models.append((f"LightGBM {label}", "lightgbm", fit))
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


def run_dataset(name, data, rounds, depth, eta, lam, repeats, threads, clients=()):
    """One dataset's rows: fit seconds, test metrics, ratios, and margins against XGBoost exact."""
    X, y, X_test, y_test = data["X"], data["y"], data["X_test"], data["y_test"]
    n_classes = int(max(y.max(), y_test.max())) + 1
    unavailable = {}
    models = _models(n_classes, rounds, depth, eta, lam, threads, unavailable, clients)
    labels = [c[0] for c in clients]
    warm = {"objective": "multi:softprob", "num_class": n_classes} if n_classes > 2 else \
        {"objective": "binary:logistic"}
    train({**warm, "max_depth": depth, "base_score": 0.5}, DMatrix(X, label=y), 1)  # compile
    rows, margins = [], {}
    for model, library, fit in models:
        out, seconds = _best(lambda: fit(X, y), repeats)
        margin_fn, proba_fn = out[:2]
        logloss, accuracy = _metrics(proba_fn(X_test), y_test)
        client = next((c for c in labels if model.endswith(" " + c)), None)
        if margin_fn is not None and client is None:
            margins[model] = np.asarray(margin_fn(X_test), dtype=np.float64)
        row = {"dataset": name, "model": model, "library": library, "fit_seconds": seconds,
               "test_logloss": logloss, "test_accuracy": accuracy}
        if client is not None:
            row["client"] = client
            row.update(out[2] if len(out) > 2 else {})
        rows.append(row)
    times = {r["model"]: r["fit_seconds"] for r in rows}
    ref = margins.get("XGBoost exact")
    for r in rows:
        r["over_xgb_exact"] = r["fit_seconds"] / times["XGBoost exact"] \
            if "XGBoost exact" in times else None
        r["over_lightgbm"] = r["fit_seconds"] / times["LightGBM"] if "LightGBM" in times else None
        if r["library"] == "apsplit" and ref is not None and r["model"] in margins:
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
        threads=DEFAULTS["threads"], quick=False, clients=""):
    """The benchmark on bundled ``datasets`` and ``files`` [(path, format)]; a JSON-ready dict.
    ``clients``: sampling clients (``parse_clients``), each beside its library's."""
    clients = parse_clients(clients)
    rows = QUICK_ROWS if quick else None
    rounds = QUICK_ROUNDS if quick else rounds
    results = []
    for name in datasets:
        results.append(run_dataset(name, load_split(name, rows=rows), rounds, depth, eta, lam,
                                   repeats, threads, clients))
    for path, fmt in files:
        results.append(run_dataset(Path(path).name, _file_split(path, fmt, rows), rounds, depth,
                                   eta, lam, repeats, threads, clients))
    return {"benchmark": "gbm", "date": datetime.date.today().isoformat(),
            "settings": {"rounds": rounds, "depth": depth, "eta": eta, "lambda": lam,
                         "repeats": repeats, "threads": threads, "quick": quick,
                         "clients": [c[0] for c in clients],
                         "apsplit": __version__, "python": platform.python_version()},
            "datasets": results}


def _fmt(x, spec):
    return "" if x is None else format(x, spec)


def format_table(result):
    header = ["dataset", "model", "fit s", "/ xgb exact", "/ lightgbm", "test logloss",
              "test acc", "vs xgb exact"]
    clients = any("client" in r for d in result["datasets"] for r in d["rows"])
    if clients:
        header += ["rows/round", "features/round"]
    rows = []
    for d in result["datasets"]:
        for r in d["rows"]:
            diff = r.get("margin_difference_vs_xgb_exact")
            same = "" if diff is None else ("same" if diff < SAME else f"{diff:.1e}")
            row = [d["dataset"], r["model"], f"{r['fit_seconds']:.3f}",
                   _fmt(r["over_xgb_exact"], ".2f"), _fmt(r["over_lightgbm"], ".2f"),
                   f"{r['test_logloss']:.4f}", f"{r['test_accuracy']:.4f}", same]
            if clients:
                row += [_fmt(r.get("rows_per_round"), ".1f"),
                        _fmt(r.get("features_per_round"), ".1f")]
            rows.append(row)
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
    parser.add_argument("--clients", default="",
                        help="sampling clients, comma-separated: goss, subsample<f>, "
                             "colsample<f>, bylevel<f>, bynode<f>, bagging<f> (e.g. goss,subsample0.5,colsample0.5), "
                             "each beside LightGBM's GOSS / bagging or XGBoost exact's "
                             "subsample / colsample_bytree")
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
    try:
        parse_clients(args.clients)
    except ValueError as exc:
        parser.error(str(exc))
    result = run(datasets, list(zip(args.data, args.format)), args.rounds, args.depth, args.eta,
                 args.lam, args.repeats, args.threads, args.quick, args.clients)
    print(format_table(result))
    write_json(result, args.json)
    print(f"wrote {args.json}")
    return result
