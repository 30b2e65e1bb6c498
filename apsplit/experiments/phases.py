"""Where an exhaustive AdaBoost tree's time goes, phase by phase, at its root.

Boosts ``rounds`` AdaBoost rounds of depth-``depth`` exhaustive trees on a dense
Dataset with the prefilter on (``Dataset(X, prefilter=True)``), keeps the last
round's weights, and times on that round's root, each the least of ``repeats``
calls after an untimed one, the kernels ``search.run_exhaustive`` runs in turn:

* ``coarse histograms``: ``coarse.build_dense``, every feature's coarse bins;
* ``bounds``: ``coarse.survivors``, the boundaries' scores and the bins' bounds;
* ``survivors' passes``: ``refine.refine_survivors``, the exact scores of the
  features left (one pass over the node's rows each);
* ``... at the node's limit``: the same, the limit never lowered by the splits
  found (the passes as they ran before they lowered it), for comparison;
* ``root search``: ``search.run_exhaustive`` (the three, the node's class totals
  and the winner's ranks);

then the whole tree (``tree.grow_from_problem``, one kernel call) and, when
LightGBM is installed, LightGBM's mean time per tree on the same rows, binned
beforehand (``rounds`` rounds of depth-``depth`` trees), for scale.  Used by
``python -m benchmarks.phases``; one thread throughout.
"""

import math
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..adapters.boosting import AdaBoost
from ..dataset import Dataset
from ..finders import get_finder, kernel_task
from ..kernels import coarse as cs
from ..kernels.refine import new_refined, refine_survivors, survivors_of
from ..kernels.search import TOL, run_exhaustive
from ..kernels.stats import sorted_rows
from ..tree import grow_from_problem
from .report import figure_class, publish, text_table, timed

__all__ = ["last_round_root", "run", "format_table", "plot", "report"]

LIGHTGBM_MISSING = 'not installed: pip install "apsplit[lightgbm]"'


def last_round_root(ds, y, rounds, depth, criterion="gini"):
    """The root ``Problem`` of AdaBoost's round ``rounds`` (exhaustive trees)."""
    roots = []

    class Recording(AdaBoost):
        def _grow(self, problem):
            roots.append(problem)
            return super()._grow(problem)

    Recording(n_rounds=rounds, max_depth=depth, criterion=criterion,
              method="exhaustive").fit(ds, y)
    return roots[-1]


def _least_ms(call, repeats):
    """The least wall milliseconds of ``repeats`` calls after an untimed one (numba's
    dispatch): ``report.timed`` with the minimum."""
    return 1000.0 * timed(call, repeats, min)[1]


def _lightgbm_ms(X, y, rounds, depth):
    """LightGBM's ms per tree, its data binned beforehand (as apsplit's Dataset is): one
    thread, ``rounds`` rounds of depth-``depth`` trees (one per class with more than two
    classes); None if it is not installed."""
    try:
        import lightgbm
    except ImportError:  # the table says which extra installs it (LIGHTGBM_MISSING)
        return None
    n_classes = int(np.max(y)) + 1
    params = {"objective": "binary"} if n_classes == 2 else {"objective": "multiclass",
                                                              "num_class": n_classes}
    params.update(max_depth=depth, num_leaves=2 ** depth, min_child_samples=1, num_threads=1,
                  seed=0, verbose=-1)
    data = lightgbm.Dataset(X, y, params=params).construct()
    start = time.perf_counter()
    lightgbm.train(params, data, num_boost_round=rounds)
    trees = rounds * (1 if n_classes == 2 else n_classes)
    return 1000.0 * (time.perf_counter() - start) / trees


def run(X, y, name="data", rounds=30, depth=3, criterion="gini", repeats=5):
    """{"dataset", "rows", "features", "rounds", "depth", "criterion", "survivors",
    "flagged_share", "flagged_bins", "flagged_ranks", "walked_ranks", "phases": {phase:
    least ms}, "lightgbm_tree_ms"}."""
    if sp.issparse(X):
        raise ValueError("the phases are timed on dense data (the sparse search has no "
                         "survivors' passes)")
    X = np.asarray(X, dtype=np.float64)
    ds = Dataset(X, prefilter=True)
    problem = last_round_root(ds, y, rounds, depth, criterion)
    finder = get_finder("exhaustive")
    params, data, coarse = finder.kernel_params(), ds.kernel_data(), ds.coarse_bins()
    task = kernel_task(problem, sorted_rows(problem.order, ds.n_rows))
    C = problem.n_classes
    hist = cs.new_histogram(coarse, C)
    one = np.int64(1)
    totals = np.bincount(task.y[task.index_order], task.w[task.index_order], minlength=C)
    n = np.int64(task.index_order.size)
    tie = TOL * totals.sum()
    bounds = np.empty(coarse.offsets[-1])
    phases = {}
    with ds.workspace(C) as work:
        phases["coarse histograms"] = _least_ms(lambda: cs.build_dense(
            coarse, task.feats, task.index_order, task.w, task.y, hist, one), repeats)
        prefilter, seconds = timed(lambda: cs.survivors(
            coarse, task.feats, data.categorical, hist, totals, n, task.crit, task.min_leaf, tie,
            bounds), repeats, min)
        phases["bounds"] = 1000.0 * seconds
        kept = task.feats[prefilter.keep]
        survivors = survivors_of(task, task.feats, prefilter, bounds, hist, totals)
        out = new_refined(kept.size, C)
        phases["survivors' passes"] = _least_ms(lambda: refine_survivors(
            data, work, task, coarse, survivors, out, one), repeats)
        # the same passes with the limit held at the node's (s + inf never lowers it)
        phases["... at the node's limit"] = _least_ms(lambda: refine_survivors(
            data, work, task, coarse, survivors._replace(margin=math.inf),
            new_refined(kept.size, C), one), repeats)
        phases["root search"] = _least_ms(lambda: run_exhaustive(
            params._replace(n_threads=1), data, work, task, coarse, hist, False), repeats)
    phases["tree"] = _least_ms(lambda: grow_from_problem(problem, finder, depth, True), repeats)
    flags = [bounds[coarse.offsets[k]:coarse.offsets[k + 1]] <= prefilter.limit for k in kept]
    spans = [coarse.span[coarse.offsets[k]:coarse.offsets[k + 1]] for k in kept]
    flagged = sum(int(f.sum()) for f in flags)
    bins = sum(f.size for f in flags)
    return {"dataset": name, "rows": int(X.shape[0]), "features": int(X.shape[1]),
            "rounds": rounds, "depth": depth, "criterion": criterion,
            "survivors": int(kept.size), "flagged_share": flagged / max(bins, 1),
            "flagged_bins": flagged,
            # the exact values (ranks) in the bins within the node's limit ...
            "flagged_ranks": sum(int(span[f].sum()) for f, span in zip(flags, spans)),
            # ... and those the survivors' walks visit, under the limits their splits lower
            "walked_ranks": int(out.walked.sum()),
            "phases": phases, "lightgbm_tree_ms": _lightgbm_ms(X, y, rounds, depth)}


def format_table(result):
    F, rows = result["features"], []
    for phase, ms in result["phases"].items():
        per = {"coarse histograms": F, "bounds": F,
               "survivors' passes": max(result["survivors"], 1),
               "... at the node's limit": max(result["survivors"], 1)}.get(phase)
        rows.append([phase, f"{ms:.3f}", f"{ms / per:.4f}" if per else ""])
    if result["lightgbm_tree_ms"] is not None:
        rows.append(["LightGBM, per tree", f"{result['lightgbm_tree_ms']:.3f}", ""])
    else:
        rows.append(["LightGBM, per tree", LIGHTGBM_MISSING, ""])
    return "\n".join([
        f"{result['dataset']} ({result['rows']:,} rows x {F} features), the root of AdaBoost's "
        f"round {result['rounds']}, depth-{result['depth']} {result['criterion']} trees: "
        f"{result['survivors']} of {F} features survive, "
        f"{100 * result['flagged_share']:.1f}% of their coarse bins flagged, holding "
        f"{result['flagged_ranks'] / max(result['survivors'], 1):,.0f} exact values per survivor, "
        f"of which the walks visit {result['walked_ranks'] / max(result['survivors'], 1):,.0f} "
        "under the limits found splits lower",
        text_table(["phase", "ms (least)", "ms per feature"], rows, n_left=1)])


def plot(result, path):
    """The phases' times as bars."""
    fig = figure_class()(figsize=(6, 3.5), layout="constrained")
    ax = fig.subplots()
    names = list(result["phases"]) + (["LightGBM tree"] if result["lightgbm_tree_ms"] else [])
    values = list(result["phases"].values()) + (
        [result["lightgbm_tree_ms"]] if result["lightgbm_tree_ms"] else [])
    ax.barh(names[::-1], values[::-1])
    ax.set_xlabel("milliseconds (least of repeats, one thread)")
    ax.set_title(f"{result['dataset']} ({result['rows']:,} rows), round {result['rounds']}")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def report(result, json_path, plot_path):
    publish(result, format_table(result), plot, json_path, plot_path)
