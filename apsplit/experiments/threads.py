"""Speed-up from one thread to several: apsplit's two tree growers beside XGBoost and LightGBM.

For every dataset and every thread count of ``threads``, in one run:

* apsplit Newton: ``adapters.train`` (``binary:logistic``, or ``multi:softprob`` for
  more than two classes), ``rounds`` rounds of depth 6, ``nthread`` threads (a level's
  column scans in parallel, ``kernels/newton_parallel.py``);
* apsplit AdaBoost: ``APBoostClassifier`` (exhaustive, gini, depth 3, ``rounds`` trees),
  ``n_jobs`` threads (the coarse histograms and the survivors' exact scans in parallel,
  ``kernels/coarse.py``, ``kernels/refine.py``);
* XGBoost exact and LightGBM with the Newton settings (depth 6, eta 0.3, lambda 1,
  hessian sum >= 1 per child; LightGBM with 2^6 leaves), on as many threads.

Seconds: the least of ``repeats`` fits after an untimed one (numba's kernels compiled or
loaded, the libraries warm), the counts alternating fit by fit (1, 2, 1, 2, ...), so that
a slow spell of the shared machine falls on every count; ``same``'s digest of a model is
taken after its clock stops.  AdaBoost's fastest fit at each count is split into its
parts: its trees (``grow``, one kernel call each), the rounds' bookkeeping between them
(the trees' predictions, the new weights, the votes: one thread) and the rest (binning
X, the labels, the first order).  ``speed-up``: a model's 1-thread seconds over its seconds
at the count, from the same run.  ``same``: apsplit's model at the count equals its
1-thread model at every repeat (every tree's arrays for Newton, the decision function
for AdaBoost), as it must.  A speed-up needs the cores to be idle: on a shared machine
the figures measure contention too (the run records the load average).
"""

import os
import time
from pathlib import Path

import numpy as np

from ..adapters import DMatrix, train
from ..adapters.sklearn import APBoostClassifier
from .report import optional_library, panel_grid, publish, text_table
from .scaling import row_pool
from .stock import load_split

__all__ = ["run", "format_table", "plot", "report"]

NEWTON = {"max_depth": 6, "eta": 0.3, "lambda": 1.0, "min_child_weight": 1.0,
          "base_score": 0.5}


def _newton_params(n_classes):
    if n_classes > 2:
        return {**NEWTON, "objective": "multi:softprob", "num_class": n_classes}
    return {**NEWTON, "objective": "binary:logistic"}


ADABOOST_PARTS = ["trees", "rounds' bookkeeping", "binning and the rest"]


def _tree_digest(bst):
    return [np.concatenate([tree.feature.astype(float), tree.threshold, tree.value])
            for tree in bst.trees]


def _models(n_classes, rounds):
    """[(name, fit(X, y, threads) -> (a call giving the model's digest, or None; {part:
    seconds} or None))]: the parts but "the rest", which the caller has from its clock
    (the digest is taken after it stops)."""
    params = _newton_params(n_classes)
    xgb, lgb = optional_library("xgboost"), optional_library("lightgbm")

    def newton(X, y, threads):
        bst = train({**params, "nthread": threads}, DMatrix(X, label=y), rounds,
                    verbose_eval=False)
        return lambda: _tree_digest(bst), None

    def adaboost(X, y, threads):
        model = APBoostClassifier(n_estimators=rounds, max_depth=3, n_jobs=threads).fit(X, y)
        trees = sum(record["seconds"] for record in model.history_)
        rounds_total = sum(record["round_seconds"] for record in model.history_)
        return lambda: [model.decision_function(X[:2000])], {
            "trees": trees, "rounds' bookkeeping": rounds_total - trees}

    def xgboost_exact(X, y, threads):
        xgb.train({**params, "tree_method": "exact", "nthread": threads},
                  xgb.DMatrix(X, label=y), rounds)
        return None, None

    def lightgbm(X, y, threads):
        lgb_params = {"objective": "multiclass" if n_classes > 2 else "binary",
                      "num_class": n_classes if n_classes > 2 else 1, "max_depth": 6,
                      "num_leaves": 64, "learning_rate": 0.3, "lambda_l2": 1.0,
                      "min_sum_hessian_in_leaf": 1.0, "min_data_in_leaf": 1,
                      "num_threads": threads, "verbose": -1, "deterministic": True}
        lgb.train(lgb_params, lgb.Dataset(X, label=y), rounds)
        return None, None

    return [("apsplit Newton", newton), ("apsplit AdaBoost", adaboost),
            ("XGBoost exact", xgboost_exact), ("LightGBM", lightgbm)]


def _same(a, b):
    return a is not None and len(a) == len(b) and all(
        np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))


def run_dataset(name, X, y, rounds, threads, repeats):
    """{"dataset", "rows", "features", "models": [{"model", "seconds": {t: s}, "same": {t:
    bool}, "parts": {t: {part: s}} (AdaBoost's, of its fastest fit; else empty)}]}."""
    n_classes = int(np.max(y)) + 1
    models = []
    for model, fit in _models(n_classes, rounds):
        fit(X, y, threads[0])  # untimed: compile or load, warm up
        seconds = {str(t): np.inf for t in threads}
        same, parts, first = {}, {}, None
        for _ in range(repeats):  # the counts alternate: a slow spell of the machine hits all
            for t in threads:
                start = time.perf_counter()
                digest_of, fit_parts = fit(X, y, t)
                elapsed = time.perf_counter() - start
                digest = None if digest_of is None else digest_of()
                if elapsed < seconds[str(t)] and fit_parts is not None:
                    parts[str(t)] = {**fit_parts, ADABOOST_PARTS[-1]: elapsed - sum(
                        fit_parts.values())}
                seconds[str(t)] = min(seconds[str(t)], elapsed)
                if first is None:
                    first = digest
                if digest is not None:
                    same[str(t)] = same.get(str(t), True) and _same(digest, first)
        models.append({"model": model, "seconds": seconds, "same": same, "parts": parts})
    return {"dataset": name, "rows": int(X.shape[0]), "features": int(X.shape[1]),
            "models": models}


def run(datasets, rounds=20, threads=(1, 2), repeats=2, size=None):
    """Every dataset of ``datasets`` (bundled names; ``size``: its rows shuffled, then
    jittered copies as far as needed, ``scaling.row_pool``) at every thread count."""
    results = []
    for name in datasets:
        data = load_split(name, holdout=0)
        X, y = data["X"], data["y"]
        if size:
            X, y = row_pool(X, y, size)
            name = f"{name} x{size / data['X'].shape[0]:.3g} ({size} rows)"
        results.append(run_dataset(name, X, y, rounds, list(threads), repeats))
    return {"rounds": rounds, "threads": list(threads), "repeats": repeats,
            "load_average": list(os.getloadavg()), "cpus": os.cpu_count(), "datasets": results}


def format_table(result):
    threads = [str(t) for t in result["threads"]]
    header = ["dataset", "model"] + [f"{t} thr s" for t in threads] + \
        [f"speed-up {t}" for t in threads[1:]] + ["same trees"]
    rows = []
    for d in result["datasets"]:
        for m in d["models"]:
            s = m["seconds"]
            same = m["same"]
            rows.append([d["dataset"], m["model"]] + [f"{s[t]:.3f}" for t in threads] +
                        [f"{s[threads[0]] / s[t]:.2f}x" for t in threads[1:]] +
                        ["—" if not same else ("yes" if all(same.values()) else "NO")])
    load = ", ".join(f"{x:.2f}" for x in result["load_average"])
    return (f"{result['rounds']} rounds, least of {result['repeats']} fits, load average "
            f"after the run {load} ({result['cpus']} CPUs)\n\n" + text_table(header, rows, 2)
            + "\n\napsplit AdaBoost's fastest fits, part by part:\n\n"
            + _format_parts(result, threads))


def _format_parts(result, threads):
    header = ["dataset", "part"] + [f"{t} thr s" for t in threads] + \
        [f"speed-up {t}" for t in threads[1:]]
    rows = []
    for d in result["datasets"]:
        for m in d["models"]:
            for part in ADABOOST_PARTS if m["parts"] else []:
                s = {t: m["parts"][t][part] for t in threads}
                rows.append([d["dataset"], part] + [f"{s[t]:.3f}" for t in threads] +
                            [f"{s[threads[0]] / s[t]:.2f}x" for t in threads[1:]])
    return text_table(header, rows, 2)


def plot(result, path):
    threads = [str(t) for t in result["threads"]]
    fig, axes = panel_grid(len(result["datasets"]), 4.5, 3.2)
    for ax, d in zip(axes, result["datasets"]):
        names = [m["model"] for m in d["models"]]
        for i, t in enumerate(threads[1:]):
            ups = [m["seconds"][threads[0]] / m["seconds"][t] for m in d["models"]]
            ax.barh(np.arange(len(names)) + 0.8 * i / len(threads), ups,
                    height=0.8 / len(threads), label=f"{t} threads")
        ax.axvline(1.0, color="k", lw=0.8)
        ax.set_yticks(np.arange(len(names)), names)
        ax.set_xlabel(f"speed-up over {threads[0]} thread")
        ax.set_title(f"{d['dataset']}: {d['rows']} x {d['features']}", fontsize=9)
        ax.legend(fontsize=7)
    for ax in axes[len(result["datasets"]):]:
        ax.set_visible(False)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def report(result, json_path, plot_path):
    publish(result, format_table(result), plot, json_path, plot_path)
