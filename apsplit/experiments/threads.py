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
votes: one thread) and the rest (binning X, the labels, the first order).  ``speed-up``: a
model's 1-thread seconds over its seconds at the count, from the same run.  ``same``:
apsplit's model at the count equals its 1-thread model at every repeat (every tree's
arrays for Newton, the decision function for AdaBoost), as it must.

A speed-up needs the cores to be idle, and on a shared machine a fit's figure measures the
neighbours too: a fit takes seconds, and a slow spell of the host may fall on one count's
fits only.  So AdaBoost's trees are also grown again one by one (``replay_trees``): the
fit's roots recorded, each round's tree grown at every count in turn, ``repeats`` times,
the least kept; then, at every count in turn, the ideal loop (``ideal_loop``: the coarse
histograms' loop with nothing serial and nothing shared, on random codes of X's shape).
The counts alternate every few milliseconds, and the ideal loop's speed-up is the most any
loop gained from the threads at those moments: the trees' speed-up over it is the share
of the machine's speed-up that the trees get.  The run also records the load average, and
the rounds' bookkeeping, one thread's work at every count, is a control of the fits: when
it runs below ``CONTENDED`` of its one-thread speed at a higher count, the table says the
cores were shared (a slow spell may also spare it).
"""

import os
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ..adapters import DMatrix, train
from ..adapters.sklearn import APBoostClassifier
from ..dataset import Dataset
from ..finders import Exhaustive
from ..kernels.lanes import PRANGE_ONLY, share
from ..tree import grow_from_problem
from .phases import round_roots
from ..optional import require
from .report import panel_grid, publish, text_table
from .scaling import row_pool
from .stock import load_split

__all__ = ["ideal_loop", "replay_trees", "run", "format_table", "plot", "report"]

NEWTON = {"max_depth": 6, "eta": 0.3, "lambda": 1.0, "min_child_weight": 1.0,
          "base_score": 0.5}


def _newton_params(n_classes):
    if n_classes > 2:
        return {**NEWTON, "objective": "multi:softprob", "num_class": n_classes}
    return {**NEWTON, "objective": "binary:logistic"}


ADABOOST_PARTS = ["trees", "rounds' bookkeeping", "binning and the rest"]
CONTENDED = 0.8  # the bookkeeping's speed-up below which the run is said to share its cores
DEPTH = 3  # AdaBoost's trees
IDEAL_BINS = 256  # the ideal loop's bins per feature, as many as a coarse histogram's most


class Fitted(NamedTuple):
    """What a timed fit gives besides its seconds (None where the model has none)."""

    digest: object       # a call giving the model's digest (``same``), after the clock stops
    parts: dict          # {part: seconds} but "the rest", which the caller has from its clock


def _tree_arrays(tree):
    return np.concatenate([tree.feature.astype(float), tree.threshold, tree.value.ravel()])


def _tree_digest(bst):
    return [_tree_arrays(tree) for tree in bst.trees]


def _models(n_classes, rounds):
    """[(name, fit(X, y, threads) -> ``Fitted``)]."""
    params = _newton_params(n_classes)
    xgb, lgb = require("xgboost", "this benchmark"), require("lightgbm", "this benchmark")

    def newton(X, y, threads):
        bst = train({**params, "nthread": threads}, DMatrix(X, label=y), rounds,
                    verbose_eval=False)
        return Fitted(lambda: _tree_digest(bst), None)

    def adaboost(X, y, threads):
        model = APBoostClassifier(n_estimators=rounds, max_depth=DEPTH, n_jobs=threads).fit(X, y)
        trees = sum(record["seconds"] for record in model.history_)
        rounds_total = sum(record["round_seconds"] for record in model.history_)
        return Fitted(lambda: [model.decision_function(X[:2000])],
                      {"trees": trees, "rounds' bookkeeping": rounds_total - trees})

    def xgboost_exact(X, y, threads):
        xgb.train({**params, "tree_method": "exact", "nthread": threads},
                  xgb.DMatrix(X, label=y), rounds)
        return Fitted(None, None)

    def lightgbm(X, y, threads):
        lgb_params = {"objective": "multiclass" if n_classes > 2 else "binary",
                      "num_class": n_classes if n_classes > 2 else 1, "max_depth": 6,
                      "num_leaves": 64, "learning_rate": 0.3, "lambda_l2": 1.0,
                      "min_sum_hessian_in_leaf": 1.0, "min_data_in_leaf": 1,
                      "num_threads": threads, "verbose": -1, "deterministic": True}
        lgb.train(lgb_params, lgb.Dataset(X, label=y), rounds)
        return Fitted(None, None)

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
        self.same, self.parts, self.first = {}, {}, None

    def add(self, t, elapsed, fitted):
        """Record a fit at count ``t`` (a string) that took ``elapsed`` seconds."""
        digest = None if fitted.digest is None else fitted.digest()
        if elapsed < self.seconds[t] and fitted.parts is not None:
            self.parts[t] = {**fitted.parts,
                             ADABOOST_PARTS[-1]: elapsed - sum(fitted.parts.values())}
        self.seconds[t] = min(self.seconds[t], elapsed)
        if self.first is None:
            self.first = digest
        if digest is not None:
            self.same[t] = self.same.get(t, True) and _same(digest, self.first)

    def result(self):
        return {"model": self.model, "seconds": self.seconds, "same": self.same,
                "parts": self.parts}


@njit(cache=True, parallel=PRANGE_ONLY)
def ideal_loop(codes, w, y, hist, n_threads):
    """The coarse histograms' loop with nothing else: feature k's bins ``hist[k]`` summed
    over every row p (bin ``codes[k, p]``, class ``y[p]``, weight ``w[p]``), the features
    in ``n_threads`` contiguous shares, one per thread.  No part runs on one thread, no
    share reads what another writes, and the lanes hold the same work (to a feature): its
    speed-up is what the cores give a loop at that moment."""
    for lane in prange(n_threads):
        first, last = share(lane, n_threads, codes.shape[0])
        for k in range(first, last):
            for p in range(codes.shape[1]):
                hist[k, np.intp(codes[k, p]), y[p]] += w[p]


def _least_seconds(call, threads, repeats):
    """{t: the least seconds of ``repeats`` calls ``call(t)``}, the counts in turn."""
    least = dict.fromkeys(threads, np.inf)
    for _ in range(repeats):
        for t in threads:
            start = time.perf_counter()
            call(t)
            least[t] = min(least[t], time.perf_counter() - start)
    return least


def replay_trees(X, y, rounds, threads, repeats):
    """{"trees": {t: [s]}, "ideal": {t: [s]}, "same": bool}: per round of AdaBoost's fit
    (``rounds`` depth-3 exhaustive gini trees: the benchmark's ``APBoostClassifier``
    trees), its tree grown again from the round's root at every count ``t`` in turn,
    ``repeats`` times, the least seconds kept; then ``ideal_loop`` on random codes of X's
    shape, as many times.  ``same``: every round's tree is the same at every count."""
    roots = round_roots(Dataset(X), y, rounds, DEPTH)
    finders = {t: Exhaustive(t) for t in threads}
    rng = np.random.default_rng(0)
    codes = rng.integers(0, IDEAL_BINS, (X.shape[1], X.shape[0]), dtype=np.uint8)
    w, classes = rng.random(X.shape[0]), rng.integers(0, 2, X.shape[0])
    hist = np.zeros((X.shape[1], IDEAL_BINS, 2))
    trees, ideal = {str(t): [] for t in threads}, {str(t): [] for t in threads}
    for t in threads:  # untimed: compile or load, start the threads
        ideal_loop(codes, w, classes, hist, t)
        grow_from_problem(roots[0], finders[t], DEPTH)
    same = True
    for problem in roots:
        grown = {}

        def grow(t):
            grown[t] = grow_from_problem(problem, finders[t], DEPTH)

        least_trees = _least_seconds(grow, threads, repeats)
        least_ideal = _least_seconds(lambda t: ideal_loop(codes, w, classes, hist, t), threads,
                                     repeats)
        for t in threads:
            trees[str(t)].append(least_trees[t])
            ideal[str(t)].append(least_ideal[t])
        first = [_tree_arrays(grown[threads[0]])]
        same = same and all(_same([_tree_arrays(grown[t])], first) for t in threads)
    return {"trees": trees, "ideal": ideal, "same": bool(same)}


def run_dataset(name, X, y, rounds, threads, repeats):
    """{"dataset", "rows", "features", "models": [{"model", "seconds": {t: s}, "same": {t:
    bool}, "parts": {t: {part: s}} (AdaBoost's, of its fastest fit; else empty)}],
    "replay": ``replay_trees``}."""
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
            "models": [timing.result() for timing in timings],
            "replay": replay_trees(X, y, rounds, threads, repeats)}


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
            + f"\n\napsplit AdaBoost's trees grown again, each round's at every count in "
              f"turn, and the ideal loop after them (least of {result['repeats']}):\n\n"
            + _format_replay(result, threads))


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


def _format_replay(result, threads):
    header = ["dataset", "rounds"] + _speed_up_header(threads, "ms") + \
        [f"ideal loop {t}" for t in threads[1:]] + [f"trees / ideal {t}" for t in threads[1:]]
    rows, differ = [], []
    for d in result["datasets"]:
        replay = d["replay"]
        n_rounds = min(len(replay["trees"][t]) for t in threads)
        groups = [(f"{a}" if a == b else f"{a}-{b}", a, b) for a, b in round_groups(n_rounds)]
        for label, first, last in groups + ([("all", 1, n_rounds)] if n_rounds > 1 else []):
            trees = {t: sum(replay["trees"][t][first - 1:last]) for t in threads}
            ideal = {t: sum(replay["ideal"][t][first - 1:last]) for t in threads}
            ups = [(trees[threads[0]] / trees[t], ideal[threads[0]] / ideal[t])
                   for t in threads[1:]]
            rows.append([d["dataset"], label] + _speed_up_columns(threads, trees, 1e3)
                        + [f"{up_ideal:.2f}x" for _, up_ideal in ups]
                        + [f"{up_trees / up_ideal:.0%}" for up_trees, up_ideal in ups])
        if not replay["same"]:
            differ.append(d["dataset"])
    return text_table(header, rows, 2) + "\n\n" + (
        "the same trees at every count" if not differ
        else "the trees DIFFER between counts on " + ", ".join(differ))


def plot(result, path):
    """Per dataset a row of two panels: each model's speed-up, and AdaBoost's trees' round
    by round, grown again, beside the ideal loop's."""
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
    replay = d["replay"]
    n_rounds = min(len(replay["trees"][t]) for t in threads)
    rounds = np.arange(1, n_rounds + 1)
    for t in threads[1:]:
        for part, style, name in (("trees", "-", "trees"), ("ideal", "--", "ideal loop")):
            seconds = replay[part]
            ups = np.array(seconds[threads[0]][:n_rounds]) / np.array(seconds[t][:n_rounds])
            ax.plot(rounds, ups, style, marker=".", label=f"{name}, {t} threads")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xlabel("round")
    ax.set_ylabel(f"speed-up over {threads[0]} thread")
    ax.set_title(f"{d['dataset']}:\napsplit AdaBoost's trees, grown again", fontsize=9)
    ax.legend(fontsize=7)


def report(result, json_path, plot_path):
    publish(result, format_table(result), plot, json_path, plot_path)
