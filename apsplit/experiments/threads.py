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
loaded, the libraries warm), each repeat fitting every model in turn, at every count in
turn (1, 2, 1, 2, ...), so that a slow spell of the shared machine falls on every model
and count; ``same``'s digest of a model is taken after its clock stops.  AdaBoost's
fastest fit at each count is split into its parts: its trees (``grow``, one kernel call
each), the rounds' bookkeeping between them (the trees' predictions, the new weights, the
votes: one thread) and the rest (binning X, the labels, the first order).  AdaBoost's
trees are also timed round by round (each round's least over the repeats, ``history_``'s
seconds): early trees, whose nodes keep few features after the bounds, gain less from a
thread than late ones.  ``speed-up``: a model's 1-thread seconds over its seconds at the
count, from the same run.  ``same``: apsplit's model at the count equals its 1-thread
model at every repeat (every tree's arrays for Newton, the decision function for
AdaBoost), as it must.  A speed-up needs the cores to be idle: on a shared machine the
figures measure contention too.  The run records the load average; and the rounds'
bookkeeping, one thread's work at every count, is a control: when it runs below
``CONTENDED`` of its one-thread speed at a higher count, the table says the cores were
shared (a slow spell may also spare it).
"""

import os
import time
from pathlib import Path
from typing import NamedTuple

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
CONTENDED = 0.8  # the bookkeeping's speed-up below which the run is said to share its cores


class Fitted(NamedTuple):
    """What a timed fit gives besides its seconds (None where the model has none)."""

    digest: object       # a call giving the model's digest (``same``), after the clock stops
    parts: dict          # {part: seconds} but "the rest", which the caller has from its clock
    round_trees: list    # seconds of each round's tree


def _tree_digest(bst):
    return [np.concatenate([tree.feature.astype(float), tree.threshold, tree.value])
            for tree in bst.trees]


def _models(n_classes, rounds):
    """[(name, fit(X, y, threads) -> ``Fitted``)]."""
    params = _newton_params(n_classes)
    xgb, lgb = optional_library("xgboost"), optional_library("lightgbm")

    def newton(X, y, threads):
        bst = train({**params, "nthread": threads}, DMatrix(X, label=y), rounds,
                    verbose_eval=False)
        return Fitted(lambda: _tree_digest(bst), None, None)

    def adaboost(X, y, threads):
        model = APBoostClassifier(n_estimators=rounds, max_depth=3, n_jobs=threads).fit(X, y)
        round_trees = [record["seconds"] for record in model.history_]
        rounds_total = sum(record["round_seconds"] for record in model.history_)
        return Fitted(lambda: [model.decision_function(X[:2000])],
                      {"trees": sum(round_trees),
                       "rounds' bookkeeping": rounds_total - sum(round_trees)}, round_trees)

    def xgboost_exact(X, y, threads):
        xgb.train({**params, "tree_method": "exact", "nthread": threads},
                  xgb.DMatrix(X, label=y), rounds)
        return Fitted(None, None, None)

    def lightgbm(X, y, threads):
        lgb_params = {"objective": "multiclass" if n_classes > 2 else "binary",
                      "num_class": n_classes if n_classes > 2 else 1, "max_depth": 6,
                      "num_leaves": 64, "learning_rate": 0.3, "lambda_l2": 1.0,
                      "min_sum_hessian_in_leaf": 1.0, "min_data_in_leaf": 1,
                      "num_threads": threads, "verbose": -1, "deterministic": True}
        lgb.train(lgb_params, lgb.Dataset(X, label=y), rounds)
        return Fitted(None, None, None)

    return [("apsplit Newton", newton), ("apsplit AdaBoost", adaboost),
            ("XGBoost exact", xgboost_exact), ("LightGBM", lightgbm)]


def _same(a, b):
    return a is not None and len(a) == len(b) and all(
        np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))


class _Timings:
    """One model's fits at every count, over the repeats."""

    def __init__(self, model, threads):
        self.model = model
        self.seconds = {str(t): np.inf for t in threads}
        self.same, self.parts, self.round_trees, self.first = {}, {}, {}, None

    def add(self, t, elapsed, fitted):
        """Record a fit at count ``t`` (a string) that took ``elapsed`` seconds."""
        digest = None if fitted.digest is None else fitted.digest()
        if elapsed < self.seconds[t] and fitted.parts is not None:
            self.parts[t] = {**fitted.parts,
                             ADABOOST_PARTS[-1]: elapsed - sum(fitted.parts.values())}
        if fitted.round_trees is not None:
            least = self.round_trees.get(t, fitted.round_trees)
            self.round_trees[t] = [min(a, b) for a, b in zip(least, fitted.round_trees)]
        self.seconds[t] = min(self.seconds[t], elapsed)
        if self.first is None:
            self.first = digest
        if digest is not None:
            self.same[t] = self.same.get(t, True) and _same(digest, self.first)

    def result(self):
        return {"model": self.model, "seconds": self.seconds, "same": self.same,
                "parts": self.parts, "round_trees": self.round_trees}


def run_dataset(name, X, y, rounds, threads, repeats):
    """{"dataset", "rows", "features", "models": [{"model", "seconds": {t: s}, "same": {t:
    bool}, "parts": {t: {part: s}} (AdaBoost's, of its fastest fit; else empty),
    "round_trees": {t: [s]} (AdaBoost's, each round's least; else empty)}]}."""
    models = _models(int(np.max(y)) + 1, rounds)
    for _, fit in models:
        fit(X, y, threads[0])  # untimed: compile or load, warm up
    timings = [_Timings(model, threads) for model, _ in models]
    for _ in range(repeats):  # models and counts alternate: a slow spell falls on all
        for timing, (_, fit) in zip(timings, models):
            for t in threads:
                start = time.perf_counter()
                fitted = fit(X, y, t)
                timing.add(str(t), time.perf_counter() - start, fitted)
    return {"dataset": name, "rows": int(X.shape[0]), "features": int(X.shape[1]),
            "models": [timing.result() for timing in timings]}


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
    header = ["dataset", "model"] + _speed_up_header(threads) + ["same trees"]
    rows = []
    for d in result["datasets"]:
        for m in d["models"]:
            same = m["same"]
            rows.append([d["dataset"], m["model"]] + _speed_up_columns(threads, m["seconds"]) +
                        ["—" if not same else ("yes" if all(same.values()) else "NO")])
    load = ", ".join(f"{x:.2f}" for x in result["load_average"])
    return (f"{result['rounds']} rounds, least of {result['repeats']} fits, load average "
            f"after the run {load} ({result['cpus']} CPUs)\n\n" + text_table(header, rows, 2)
            + "\n\napsplit AdaBoost's fastest fits, part by part:\n\n"
            + _format_parts(result, threads)
            + "\n\napsplit AdaBoost's trees by rounds (each round's least; round 1 also makes "
              "the coarse bins and the workspace):\n\n" + _format_rounds(result, threads))


def _speed_up_header(threads, unit="s"):
    """The headings of ``_speed_up_columns``."""
    return [f"{t} thr {unit}" for t in threads] + [f"speed-up {t}" for t in threads[1:]]


def _speed_up_columns(threads, seconds, scale=1.0):
    """Each count's time (seconds times ``scale``), then each speed-up over the first."""
    return [f"{seconds[t] * scale:.3f}" for t in threads] + \
        [f"{seconds[threads[0]] / seconds[t]:.2f}x" for t in threads[1:]]


def _format_parts(result, threads):
    header = ["dataset", "part"] + _speed_up_header(threads)
    rows, shared = [], []
    for d in result["datasets"]:
        for m in d["models"]:
            for part in ADABOOST_PARTS if m["parts"] else []:
                s = {t: m["parts"][t][part] for t in threads}
                rows.append([d["dataset"], part] + _speed_up_columns(threads, s))
                shared += [f"{d['dataset']} at {t} threads ({s[threads[0]] / s[t]:.2f}x)"
                           for t in threads[1:] if part == ADABOOST_PARTS[1]
                           and s[threads[0]] / s[t] < CONTENDED]
    note = "" if not shared else (
        "\n\nthe rounds' bookkeeping, one thread's work at every count, ran slower in "
        + ", ".join(shared) + ": the cores were shared, and that run's speed-ups understate")
    return text_table(header, rows, 2) + note


def round_groups(n_rounds):
    """[(first, last)] rounds, 1-based, inclusive: round 1 alone, then the others in up
    to four runs of near-equal length."""
    if n_rounds < 1:
        return []
    cuts = sorted({1 + (n_rounds - 1) * g // 4 for g in range(5)})
    return [(1, 1)] + [(a + 1, b) for a, b in zip(cuts, cuts[1:])]


def _format_rounds(result, threads):
    header = ["dataset", "rounds"] + _speed_up_header(threads, "ms")
    rows = []
    for d in result["datasets"]:
        for m in d["models"]:
            if not m["round_trees"]:
                continue
            n_rounds = min(len(m["round_trees"][t]) for t in threads)
            for first, last in round_groups(n_rounds):
                s = {t: sum(m["round_trees"][t][first - 1:last]) for t in threads}
                label = f"{first}" if first == last else f"{first}-{last}"
                rows.append([d["dataset"], label] + _speed_up_columns(threads, s, 1e3))
    return text_table(header, rows, 2)


def plot(result, path):
    """Per dataset a row of two panels: each model's speed-up, and AdaBoost's trees' round
    by round."""
    threads = [str(t) for t in result["threads"]]
    fig, axes = panel_grid(2 * len(result["datasets"]), 4.5, 3.2, per_row=2)
    for ax, rounds_ax, d in zip(axes[0::2], axes[1::2], result["datasets"]):
        _plot_rounds(rounds_ax, d, threads)
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
    for ax in axes[2 * len(result["datasets"]):]:
        ax.set_visible(False)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def _plot_rounds(ax, d, threads):
    for m in d["models"]:
        trees = m["round_trees"]
        if not trees:
            continue
        n_rounds = min(len(trees[t]) for t in threads)
        for t in threads[1:]:
            ups = np.array(trees[threads[0]][:n_rounds]) / np.array(trees[t][:n_rounds])
            ax.plot(np.arange(1, n_rounds + 1), ups, marker=".", label=f"{t} threads")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xlabel("round")
    ax.set_ylabel(f"speed-up over {threads[0]} thread")
    ax.set_title(f"{d['dataset']}: apsplit AdaBoost's trees", fontsize=9)
    ax.legend(fontsize=7)


def report(result, json_path, plot_path):
    publish(result, format_table(result), plot, json_path, plot_path)
