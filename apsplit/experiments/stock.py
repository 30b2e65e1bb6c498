"""Against the stock libraries: apsplit's AdaBoost next to scikit-learn, XGBoost and LightGBM.

For every dataset, boost ``rounds`` trees of depth ``depth`` with:

* scikit-learn's ``AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth,
  criterion))`` on dense float64, dense float32 and, for sparse data, CSC
  float32 input (DecisionTreeClassifier works in float32, so float32 input
  spares a copy every round; CSC is its sparse path);
* the same ``AdaBoostClassifier`` with ``estimator=APTreeClassifier(max_depth,
  criterion, method)`` (each tree bins X again: that is inside its fit);
* ``APBoostClassifier(boosting="adaboost", ..., n_jobs=threads)`` (bins X once per fit);
* for context only, gradient boosting: XGBoost (``tree_method`` "exact" and
  "hist") and LightGBM (``num_leaves=2**depth``, ``min_child_samples=1``),
  both with ``n_jobs=threads`` (default 1, as scikit-learn has one core; the
  APTree inside scikit-learn's AdaBoost keeps its default, one thread), other
  parameters at their defaults (learning rate 0.3 and 0.1;
  for C > 2 classes one tree per class and round).  Optional: a library that
  is not installed is listed under "unavailable" and its rows are left out.

How the numbers are measured
----------------------------
* Fit seconds: wall time (``time.perf_counter``) of ``fit`` on the training
  data, the least of ``repeats`` fits.  The numba-based models (APTree and
  APBoost) first fit two untimed rounds on the same data, so no kernel is
  compiled or loaded on the clock.  Binning is part of apsplit's fit and so
  of its time; ``binning_seconds`` reports ``apsplit.Dataset(X)`` of the
  training data on its own, after an untimed call (which loads its kernels).
* ``over_sklearn_best``: a model's fit seconds divided by those of
  scikit-learn's fastest input format, measured in the same run.
* Accuracies: ``score`` on the training data and on the test data.  The test
  data is the dataset's test file where there is one (agaricus, higgs7k);
  otherwise a fixed stratified held-out split (``holdout`` of the rows,
  ``random_state=0``) that is then left out of training; with
  ``holdout=0``, no test accuracy.
* Assessments: the (feature, example) pairs apsplit assessed, summed over the
  trees (``history_`` of APBoost, ``tree_.assessments`` of every APTree).
* Trajectory: ``staged_score`` on the training data, every round, of every
  AdaBoost-family model against scikit-learn's on dense float32 input; the
  first round (1-based) where they differ, or None.  The finders are exact,
  but where candidate splits tie scikit-learn and apsplit may pick different
  ones (see ``apsplit.adapters.sklearn``), and from there the runs diverge.
* ``quick`` (a smoke test): ``QUICK_ROUNDS`` rounds and at most
  ``QUICK_ROWS`` training (and test) rows, a fixed random subset.

Used by ``python -m benchmarks.stock``.
"""

import argparse
import datetime
import os
import platform
import sys
import time
from pathlib import Path

import numba
import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.base import clone
from sklearn.ensemble import AdaBoostClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from .. import __version__
from ..adapters.sklearn import APBoostClassifier, APTreeClassifier
from ..dataset import Dataset
from ..finders import available_finders
from ..optional import installed
from .loaders import BUNDLED, load_bundled
from .nodes import selected_datasets
from .paper import parse_list
from .report import (add_output_arguments, count, not_installed, panel_grid,
                     require_plotting, text_table, timed, write_json)

__all__ = ["DEFAULT_DATASETS", "DEFAULTS", "QUICK_ROUNDS", "QUICK_ROWS", "CRITERIA",
           "load_split", "run", "run_dataset", "format_table", "plot", "add_arguments", "report"]

DEFAULT_DATASETS = ("satimage", "a8a", "higgs7k", "agaricus", "pendigits")
DEFAULTS = {"rounds": 100, "depth": 3, "criterion": "gini", "methods": ("exhaustive", "adaptive"),
            "repeats": 1, "holdout": 0.2, "threads": 1}
QUICK_ROUNDS, QUICK_ROWS = 5, 1000
CRITERIA = ("gini", "entropy")
REFERENCE = "dense float32"  # scikit-learn's input whose trajectory the others are compared with
WARMUP_ROUNDS = 2
LIBRARY_COLORS = {"scikit-learn": "#7f7f7f", "scikit-learn + APTree": "#5b8fd6",
                  "apsplit": "#e07b39", "xgboost": "#4c9a5b", "lightgbm": "#9c5fb5"}


# -- data -------------------------------------------------------------------------------
def _subset(X, y, rows, seed=0):
    """A fixed random subset of ``rows`` rows (in their original order); all when rows >= n."""
    n = X.shape[0]
    if rows is None or rows >= n:
        return X, y
    keep = np.sort(np.random.default_rng(seed).choice(n, rows, replace=False))
    return X[keep], y[keep]


def _load_test(name, classes):
    """(X_test, y_test as codes of ``classes``) of a bundled dataset's test file."""
    X, codes, test_classes = load_bundled(name, "test")
    labels = test_classes[codes]
    unknown = np.setdiff1d(labels, classes)
    if unknown.size:
        raise ValueError(f"{BUNDLED[name].test}: labels {unknown.tolist()} are not in the training data")
    return X, np.searchsorted(classes, labels)


def load_split(name, holdout=DEFAULTS["holdout"], rows=None):
    """{"X", "y", "X_test", "y_test", "classes", "test_source"} of a bundled dataset.

    The test data is the dataset's test file (``loaders.BUNDLED``) if it has one,
    else a stratified held-out fraction ``holdout`` of the rows
    (``random_state=0``), else (holdout 0) none.  ``rows`` keeps a fixed
    random subset of at most that many training and test rows.
    """
    X, y, classes = load_bundled(name)
    if BUNDLED[name].test is not None:
        X_test, y_test = _load_test(name, classes)
        source = f"test file {BUNDLED[name].test}"
    elif holdout > 0:
        X, X_test, y, y_test = train_test_split(X, y, test_size=holdout, stratify=y, random_state=0)
        source = f"held-out {holdout:.0%} of the rows (stratified, random_state=0)"
    else:
        X_test = y_test = None
        source = "none"
    X, y = _subset(X, y, rows)
    if X_test is not None:
        X_test, y_test = _subset(X_test, y_test, rows)
    return {"X": X, "y": y, "X_test": X_test, "y_test": y_test, "classes": classes,
            "test_source": source}


def _inputs(X):
    """{name: matrix} of the input formats: scikit-learn's, and apsplit's (float64 as loaded)."""
    dense = X.toarray() if sp.issparse(X) else np.asarray(X)
    formats = {"dense float64": np.asarray(dense, dtype=np.float64),
               "dense float32": np.asarray(dense, dtype=np.float32)}
    if sp.issparse(X):
        formats["CSC float32"] = sp.csc_matrix(X, dtype=np.float32)
        formats["CSR float64"] = sp.csr_matrix(X, dtype=np.float64)
    return formats


# -- models -----------------------------------------------------------------------------
def _adaboost(estimator, rounds):
    """scikit-learn's AdaBoostClassifier, discrete SAMME (asked for only where it is not the default)."""
    samme = {"algorithm": "SAMME"} if AdaBoostClassifier().get_params().get("algorithm") == "SAMME.R" \
        else {}
    return AdaBoostClassifier(estimator=estimator, n_estimators=rounds, random_state=0, **samme)


def _models(sparse, rounds, depth, criterion, methods, threads, unavailable):
    """[{model, library, input, method, estimator, numba}] in the order they are run."""
    apsplit_input = "CSR float64" if sparse else "dense float64"
    models = [{"model": "AdaBoost + DecisionTree", "library": "scikit-learn", "input": layout,
               "method": None, "numba": False,
               "estimator": _adaboost(DecisionTreeClassifier(max_depth=depth, criterion=criterion,
                                                             random_state=0), rounds)}
              for layout in ("dense float64", "dense float32") + (("CSC float32",) if sparse else ())]
    for method in methods:
        models.append({"model": f"AdaBoost + APTree ({method})", "library": "scikit-learn + APTree",
                       "input": apsplit_input, "method": method, "numba": True,
                       "estimator": _adaboost(APTreeClassifier(max_depth=depth, criterion=criterion,
                                                               method=method), rounds)})
    for method in methods:
        models.append({"model": f"APBoost ({method})", "library": "apsplit", "input": apsplit_input,
                       "method": method, "numba": True,
                       "estimator": APBoostClassifier(boosting="adaboost", n_estimators=rounds,
                                                      max_depth=depth, criterion=criterion,
                                                      method=method, n_jobs=threads)})
    xgboost, lightgbm = installed("xgboost"), installed("lightgbm")
    if xgboost is None:
        unavailable["xgboost"] = not_installed("xgboost")
    else:
        models += [{"model": f"XGBoost {tree_method}", "library": "xgboost", "input": apsplit_input,
                    "method": None, "numba": False,
                    "estimator": xgboost.XGBClassifier(tree_method=tree_method, max_depth=depth,
                                                       n_estimators=rounds, n_jobs=threads,
                                                       random_state=0)}
                   for tree_method in ("exact", "hist")]
    if lightgbm is None:
        unavailable["lightgbm"] = not_installed("lightgbm")
    else:
        models.append({"model": "LightGBM", "library": "lightgbm", "input": apsplit_input,
                       "method": None, "numba": False,
                       "estimator": lightgbm.LGBMClassifier(max_depth=depth, num_leaves=2 ** depth,
                                                            n_estimators=rounds, min_child_samples=1,
                                                            n_jobs=threads, random_state=0,
                                                            verbose=-1)})
    return models


def _fit_timed(estimator, X, y, repeats, warm_up):
    """(the last fitted model, [wall seconds of each of ``repeats`` fits]) after an optional warm-up."""
    if warm_up:
        clone(estimator).set_params(n_estimators=min(WARMUP_ROUNDS, estimator.n_estimators)).fit(X, y)
    seconds = []
    for _ in range(repeats):
        model = clone(estimator)
        start = time.perf_counter()
        model.fit(X, y)
        seconds.append(time.perf_counter() - start)
    return model, seconds


def _staged_train_scores(model, X, y):
    """Training accuracy after every round (scikit-learn's ``staged_score``; APBoost's equivalent)."""
    if hasattr(model, "staged_score"):
        return [float(s) for s in model.staged_score(X, y)]
    return [float(accuracy_score(y, p)) for p in model.staged_predict(X)]


def _trajectory(scores, reference):
    """{"equal", "first_differing_round", "rounds"} of one staged score list against the reference's."""
    differ = [i + 1 for i, (a, b) in enumerate(zip(scores, reference)) if a != b]
    if not differ and len(scores) != len(reference):
        differ = [min(len(scores), len(reference)) + 1]
    return {"equal": not differ, "first_differing_round": differ[0] if differ else None,
            "rounds": len(scores), "reference_rounds": len(reference)}


def _assessments(model):
    if isinstance(model, APBoostClassifier):
        return int(sum(h["assessments"] for h in model.history_))
    if isinstance(model, AdaBoostClassifier) and isinstance(model.estimators_[0], APTreeClassifier):
        return int(sum(e.tree_.assessments for e in model.estimators_))
    return None


def _rounds_run(model):
    if hasattr(model, "estimators_"):
        return len(model.estimators_)
    if isinstance(model, APBoostClassifier):
        return len(model.history_)
    return int(model.n_estimators)  # gradient boosting runs every round


def run_dataset(name, data, *, rounds, depth, criterion, methods, repeats, threads, progress=False):
    """The benchmark on one ``load_split`` dict; a JSON-ready dict (see the module docstring)."""
    X, y, X_test, y_test = data["X"], data["y"], data["X_test"], data["y_test"]
    sparse = sp.issparse(X)
    train, test = _inputs(X), (None if X_test is None else _inputs(X_test))
    # after a warm-up call, which loads the binning kernels (numba), as the fits' warm-up does
    _, binning = timed(lambda: Dataset(train["CSR float64" if sparse else "dense float64"]), 1,
                       min)
    unavailable = {}
    rows = []
    staged = {}
    for spec in _models(sparse, rounds, depth, criterion, methods, threads, unavailable):
        layout = spec["input"]
        model, seconds = _fit_timed(spec["estimator"], train[layout], y, repeats, spec["numba"])
        row = {k: spec[k] for k in ("model", "library", "input", "method")}
        row.update({"fit_seconds": min(seconds), "fit_seconds_repeats": seconds,
                    "train_accuracy": float(model.score(train[layout], y)),
                    "test_accuracy": None if test is None else float(model.score(test[layout], y_test)),
                    "assessments": _assessments(model), "rounds_run": _rounds_run(model)})
        if spec["library"] not in ("xgboost", "lightgbm"):
            staged[len(rows)] = _staged_train_scores(model, train[layout], y)
        rows.append(row)
        if progress:
            print(f"{name}: {row['model']} [{layout}] {row['fit_seconds']:.3f} s", file=sys.stderr)
    sk = {r["input"]: r["fit_seconds"] for r in rows if r["library"] == "scikit-learn"}
    best = min(sk, key=sk.get)
    reference = next(i for i, r in enumerate(rows)
                     if r["library"] == "scikit-learn" and r["input"] == REFERENCE)
    for i, row in enumerate(rows):
        row["over_sklearn_best"] = row["fit_seconds"] / sk[best]
        row["trajectory"] = (_trajectory(staged[i], staged[reference])
                             if i in staged and i != reference else None)
    return {"dataset": name, "n_train": int(X.shape[0]), "n_test": None if X_test is None else
            int(X_test.shape[0]), "n_features": int(X.shape[1]), "n_classes": len(data["classes"]),
            "sparse": sparse, "test_source": data["test_source"], "binning_seconds": binning,
            "sklearn_best_input": best, "sklearn_best_seconds": sk[best],
            "trajectory_reference": f"scikit-learn AdaBoost + DecisionTree, {REFERENCE}",
            "models": rows, "unavailable": unavailable}


def _check(methods, criterion):
    methods = parse_list(",".join(methods) if not isinstance(methods, str) else methods, "methods",
                         available_finders())
    if criterion not in CRITERIA:
        raise ValueError(f"unknown criterion {criterion!r}; choose from {', '.join(CRITERIA)}")
    return methods


def run(datasets=DEFAULT_DATASETS, *, rounds=None, depth=DEFAULTS["depth"],
        criterion=DEFAULTS["criterion"], methods=DEFAULTS["methods"], repeats=DEFAULTS["repeats"],
        threads=DEFAULTS["threads"], holdout=DEFAULTS["holdout"], rows=None, quick=False,
        progress=False):
    """Run the benchmark on bundled datasets; a JSON-ready dict {"settings", "datasets"}.

    ``rounds`` defaults to DEFAULTS (QUICK_ROUNDS with ``quick``, which also
    caps ``rows`` at QUICK_ROWS).
    """
    methods = _check(methods, criterion)
    rounds = (QUICK_ROUNDS if quick else DEFAULTS["rounds"]) if rounds is None else int(rounds)
    if quick:
        rows = QUICK_ROWS if rows is None else min(rows, QUICK_ROWS)
    if rounds < 1 or int(depth) < 1 or int(repeats) < 1 or int(threads) < 1:
        raise ValueError(f"rounds, depth, repeats and threads must be >= 1, "
                         f"got {rounds}, {depth}, {repeats}, {threads}")
    if not 0 <= holdout < 1:
        raise ValueError(f"holdout must be in [0, 1), got {holdout}")
    versions = {m: getattr(installed(m), "__version__", None)
                for m in ("xgboost", "lightgbm")}
    settings = {"datasets": list(datasets), "rounds": rounds, "depth": int(depth),
                "criterion": criterion, "methods": methods, "repeats": int(repeats),
                "threads": int(threads), "holdout": holdout, "rows": rows, "quick": quick,
                "date": datetime.date.today().isoformat(), "cpu_count": os.cpu_count(),
                "apsplit": __version__, "numpy": np.__version__, "numba": numba.__version__,
                "sklearn": sklearn.__version__, **versions,
                "python": platform.python_version(), "machine": platform.machine()}
    results = [run_dataset(name, load_split(name, holdout, rows), rounds=rounds, depth=int(depth),
                           criterion=criterion, methods=methods, repeats=int(repeats),
                           threads=int(threads), progress=progress)
               for name in datasets]
    return {"settings": settings, "datasets": results}


# -- output -----------------------------------------------------------------------------
def _accuracy(value):
    return "-" if value is None else f"{value:.4f}"


def _trajectory_text(t):
    if t is None:
        return "-"
    return "same" if t["equal"] else f"differs @{t['first_differing_round']}"


def format_table(result):
    """The results as text: one row per dataset and model, then the notes."""
    s = result["settings"]
    rows = []
    for d in result["datasets"]:
        where = f"{d['dataset']} ({d['n_train']}x{d['n_features']})"
        for r in d["models"]:
            rows.append([where, r["model"], r["input"], f"{r['fit_seconds']:.3f}",
                         f"{r['over_sklearn_best']:.2f}", _accuracy(r["train_accuracy"]),
                         _accuracy(r["test_accuracy"]),
                         "-" if r["assessments"] is None else f"{r['assessments']:,}",
                         str(r["rounds_run"]), _trajectory_text(r["trajectory"])])
    lines = [f"Boosting {s['rounds']} rounds of depth-{s['depth']} trees, criterion {s['criterion']}; "
             f"fit s = wall seconds, least of {s['repeats']} fit(s) (numba models after a warm-up); "
             f"XGBoost/LightGBM: gradient boosting, n_jobs={s['threads']}, for context",
             text_table(["dataset", "model", "input", "fit s", "/ sklearn best", "train acc",
                         "test acc", "assessments", "rounds", "vs sklearn (train, staged)"],
                        rows, n_left=3) if rows else "no results"]
    notes = [f"{d['dataset']}: test data = {d['test_source']}; sklearn best input: "
             f"{d['sklearn_best_input']}; apsplit binning alone {d['binning_seconds']:.3f} s "
             "(inside apsplit's fit times)" for d in result["datasets"]]
    unavailable = {k: v for d in result["datasets"] for k, v in d["unavailable"].items()}
    notes += [f"skipped {lib} rows: {why}" for lib, why in unavailable.items()]
    notes.append("vs sklearn: staged training accuracy of every round against scikit-learn's "
                 f"AdaBoost on {REFERENCE} input; 'differs @r' = first round that differs "
                 "(ties between candidate splits can make the runs diverge)")
    return "\n".join(lines + [""] + notes)


def plot(result, path):
    """Bar chart of fit seconds (log scale), one panel per dataset; labels: / sklearn best."""
    datasets = result["datasets"]
    height = max((len(d["models"]) for d in datasets), default=0) * 0.32 + 1.2
    fig, axes = panel_grid(len(datasets), 5.6, height)
    for ax, d in zip(axes, datasets):
        models = d["models"][::-1]
        names = [f"{r['model']} [{r['input']}]" for r in models]
        seconds = [r["fit_seconds"] for r in models]
        bars = ax.barh(names, seconds, color=[LIBRARY_COLORS.get(r["library"]) for r in models])
        ax.bar_label(bars, [f"{r['over_sklearn_best']:.2f}x" for r in models], fontsize=7, padding=2)
        ax.set_xscale("log")
        ax.set_xlim(min(seconds) / 2, max(seconds) * 4)
        ax.tick_params(axis="x", which="minor", labelbottom=False)
        ax.set_xlabel("fit seconds (log scale)")
        ax.tick_params(axis="y", labelsize=7)
        ax.set_title(f"{d['dataset']} ({d['n_train']} x {d['n_features']}, {d['n_classes']} classes)",
                     fontsize=9)
    for ax in axes[len(datasets):]:
        ax.set_visible(False)
    s = result["settings"]
    fig.suptitle(f"Fit time, {s['rounds']} rounds, depth {s['depth']}, criterion {s['criterion']} "
                 "(labels: / scikit-learn AdaBoost's best input)", fontsize=10)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


# -- command line -----------------------------------------------------------------------
def _methods_type(text):
    try:
        return parse_list(text, "methods", available_finders())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _fraction(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {text}")
    return value


def add_arguments(parser, json_default="results/stock.json", plot_default="results/stock.png"):
    """The benchmark's options (``python -m benchmarks.stock``)."""
    parser.add_argument("--datasets", default=",".join(DEFAULT_DATASETS),
                        help=f"comma-separated, from the bundled {', '.join(BUNDLED)} "
                             f"(default {','.join(DEFAULT_DATASETS)})")
    parser.add_argument("--rounds", type=count(1),
                        help=f"boosting rounds (default {DEFAULTS['rounds']}; {QUICK_ROUNDS} with --quick)")
    parser.add_argument("--depth", type=count(1), default=DEFAULTS["depth"],
                        help=f"tree depth (default {DEFAULTS['depth']})")
    parser.add_argument("--criterion", choices=CRITERIA, default=DEFAULTS["criterion"],
                        help=f"split criterion of the AdaBoost trees (default {DEFAULTS['criterion']})")
    parser.add_argument("--methods", type=_methods_type, default=list(DEFAULTS["methods"]),
                        help="comma-separated apsplit finders, each run as APTree and APBoost "
                             f"(default exhaustive,adaptive; any of {','.join(available_finders())})")
    parser.add_argument("--repeats", type=count(1), default=DEFAULTS["repeats"],
                        help="timed fits per model; the least wall time is reported (default 1)")
    parser.add_argument("--threads", type=count(1), default=DEFAULTS["threads"],
                        help="n_jobs of APBoostClassifier, XGBoost and LightGBM (default 1: "
                             "scikit-learn's AdaBoost uses one core)")
    parser.add_argument("--holdout", type=_fraction, default=DEFAULTS["holdout"],
                        help="test share held out of datasets without a test file (default "
                             f"{DEFAULTS['holdout']}; 0: no test accuracy for them)")
    parser.add_argument("--rows", type=count(2),
                        help="keep a fixed random subset of at most N training (and test) rows")
    parser.add_argument("--quick", action="store_true",
                        help=f"a smoke test: {QUICK_ROUNDS} rounds and at most {QUICK_ROWS} rows "
                             "unless given")
    parser.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    add_output_arguments(parser, json_default, plot_default, "the bar chart")


def report(args, parser):
    """Run with parsed ``add_arguments`` options: print the table, write JSON and PNG."""
    require_plotting(parser)
    datasets = selected_datasets(parser, args)
    result = run(datasets, rounds=args.rounds, depth=args.depth, criterion=args.criterion,
                 methods=args.methods, repeats=args.repeats, threads=args.threads,
                 holdout=args.holdout, rows=args.rows, quick=args.quick,
                 progress=not args.no_progress)
    print(format_table(result))
    write_json(result, args.json)
    if result["datasets"]:
        plot(result, args.plot)
        print(f"\nwrote {args.json} and {args.plot}")
    else:
        print(f"\nwrote {args.json} (no results to plot)")
    return result
