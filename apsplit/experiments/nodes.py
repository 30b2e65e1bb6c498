"""Benchmark of the split finders on single nodes of real data under boosting weights.

For each dataset: the weights after ``rounds`` rounds of discrete AdaBoost
(SAMME) with exact depth-1 stumps; then, for the root node (all rows) and,
with ``depth > 1``, the nodes of a depth-``depth`` tree below it:

* per finder (error criterion): assessments and wall time of one call,
  against the weight-order lower bound on assessments; ``adaptive_oracle``
  is adaptive told the optimum's column (``Adaptive(first_feature=...)``,
  taken from the exhaustive search): no search knows it, so its time is a
  floor on adaptive's once the race for the leader is won;
* an exhaustive Gini search against scikit-learn's
  ``DecisionTreeClassifier(max_depth=1, criterion="gini")`` on the same node
  and weights (its best of dense and, for sparse data, CSC input).

Times are the median over ``repeats`` calls after a warm-up call.  apsplit's
binning (``Dataset``) is built once per dataset and not timed: boosting
reuses it across rounds and nodes.  Used by ``apsplit compare`` and
``benchmarks/finders.py``.
"""

import math
import platform
from functools import partial
from pathlib import Path

import numba
import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.tree import DecisionTreeClassifier

from .. import __version__, lower_bounds
from ..dataset import Dataset
from ..finders import Adaptive, find_split, weight_order
from .loaders import BUNDLED, load_bundled
from .report import (add_output_arguments, count, panel_grid, progress_bar, publish, text_table,
                     timed)

__all__ = ["DEFAULT_DATASETS", "DEFAULTS", "QUICK_DEFAULTS", "METHODS", "run", "boosting_weights",
           "tree_nodes", "real_nodes", "bench_node", "format_table", "plot", "add_arguments",
           "add_dataset_arguments", "selected_datasets", "rounds_and_repeats", "report"]

METHODS = ("exhaustive", "quick", "adaptive", "adaptive_paper", "adaptive_oracle")
ORACLE = "adaptive_oracle"  # adaptive told the optimum's column (exhaustive's): a floor, not a finder
CRITERION = "error"

DEFAULT_DATASETS = ("satimage", "a8a", "higgs7k")
DEFAULTS = {"rounds": 20, "repeats": 5}
QUICK_DEFAULTS = {"rounds": 5, "repeats": 1}


def boosting_weights(ds, y, n_classes, rounds):
    """Weights after ``rounds`` rounds of discrete AdaBoost (SAMME) with exact error stumps."""
    all_rows = np.arange(ds.n_rows)
    w = np.full(ds.n_rows, 1.0 / ds.n_rows)
    for _ in range(rounds):
        stump = find_split(ds, y, w, criterion="error", method="exhaustive")
        if not stump.found:
            break
        goes_left = stump.goes_left(ds, all_rows)
        predicted = np.where(goes_left, np.argmax(stump.left_weights), np.argmax(stump.right_weights))
        miss = predicted != y
        err = w[miss].sum()
        if err <= 0 or err >= (n_classes - 1) / n_classes:  # perfect, or no better than chance
            break
        alpha = math.log((1.0 - err) / err) + math.log(n_classes - 1)
        w = w * np.exp(alpha * miss)
        w /= w.sum()
    return w


def _children(ds, y, w, name, rows):
    """[(name, rows)] of the children of an exhaustive error split that hold two classes."""
    split = find_split(ds, y, w, method="exhaustive", rows=rows, weight_ordered=True)
    if not split.found:
        return []
    goes_left = split.goes_left(ds, rows)
    prefix = "" if name == "root" else name
    return [(prefix + side, part) for side, part in (("L", rows[goes_left]), ("R", rows[~goes_left]))
            if np.unique(y[part]).size > 1]


def tree_nodes(ds, y, w, depth):
    """[(name, rows)] of the nodes a depth-``depth`` tree splits, level by level from the root.

    The tree is grown by exhaustive error search; names are "root", "L", "R",
    "LL", ...  Rows are in decreasing weight order (children keep it).
    """
    level = [("root", weight_order(w, np.arange(ds.n_rows)))]
    nodes = list(level)
    for _ in range(depth - 1):
        level = [child for name, rows in level for child in _children(ds, y, w, name, rows)]
        nodes += level
    return nodes


def _sklearn_score(fitted):
    """Split score (weighted child Gini / node weight) of a fitted depth-1 sklearn tree."""
    t = fitted.tree_
    if t.node_count < 3:
        return math.inf
    weights = t.weighted_n_node_samples
    return float((weights[1] * t.impurity[1] + weights[2] * t.impurity[2]) / weights[0])


def _versus_sklearn(ds, X, y, w, rows, repeats):
    """Exhaustive Gini search: apsplit against DecisionTreeClassifier(max_depth=1) on one node."""
    ours, ours_seconds = timed(partial(find_split, ds, y, w, criterion="gini", method="exhaustive",
                                       rows=rows, weight_ordered=True), repeats)
    X_node = X[rows]
    inputs = {"dense": np.asarray(X_node.toarray() if sp.issparse(X) else X_node, dtype=np.float32)}
    if sp.issparse(X):
        inputs["sparse"] = sp.csc_matrix(X_node, dtype=np.float32)
    seconds, scores = {}, {}
    for layout, X_in in inputs.items():
        tree = DecisionTreeClassifier(max_depth=1, criterion="gini", random_state=0)
        fitted, seconds[layout] = timed(partial(tree.fit, X_in, y[rows], sample_weight=w[rows]), repeats)
        scores[layout] = _sklearn_score(fitted)
    best = min(seconds, key=seconds.get)
    return {"apsplit_seconds": ours_seconds, "apsplit_score": float(ours.score),
            "sklearn_seconds": seconds, "sklearn_best_input": best, "sklearn_score": scores[best],
            "apsplit_over_sklearn": ours_seconds / seconds[best]}


def bench_node(ds, X, y, w, rows, repeats):
    """Assessments and times of every finder on one node, its lower bound, and the sklearn comparison."""
    methods = {}
    for method in METHODS:  # exhaustive first: the oracle is given its column
        finder = Adaptive(first_feature=methods["exhaustive"]["feature"]) if method == ORACLE \
            else method
        split, seconds = timed(partial(find_split, ds, y, w, criterion=CRITERION, method=finder,
                                       rows=rows, weight_ordered=True), repeats)
        methods[method] = {"assessments": split.assessments, "seconds": seconds,
                           "feature": split.feature, "score": float(split.score),
                           "scans": split.scans}
    bound = lower_bounds.weight_order(ds, y, w, rows=rows, criterion=CRITERION)
    exhaustive_score = methods["exhaustive"]["score"]
    return {"n_rows": int(rows.size), "methods": methods, "weight_order_bound": bound,
            **{f"{m}_over_bound": methods[m]["assessments"] / bound for m in METHODS},
            "seconds_over_exhaustive": {m: methods[m]["seconds"] / methods["exhaustive"]["seconds"]
                                        for m in METHODS},
            "scores_agree": all(math.isclose(m["score"], exhaustive_score, rel_tol=1e-12, abs_tol=1e-12)
                                for m in methods.values()),
            "gini": _versus_sklearn(ds, X, y, w, rows, repeats)}


def run(datasets=DEFAULT_DATASETS, rounds=None, repeats=None, depth=1, quick=False,
        progress=False):
    """Run the benchmark on bundled datasets; returns a JSON-ready dict {"settings", "nodes"}.

    ``rounds`` and ``repeats`` default to ``DEFAULTS``, or ``QUICK_DEFAULTS`` with ``quick``.
    """
    rounds, repeats = rounds_and_repeats(rounds, repeats, quick)
    settings = {"datasets": list(datasets), "rounds": rounds, "repeats": repeats, "depth": depth,
                "criterion": CRITERION, "quick": quick, "apsplit": __version__,
                "numpy": np.__version__, "numba": numba.__version__, "sklearn": sklearn.__version__,
                "python": platform.python_version(), "machine": platform.machine()}
    nodes = [{"dataset": name, "node": node, "n_features": ds.n_features, "n_classes": n_classes,
              "sparse": ds.is_sparse, **bench_node(ds, X, y, w, rows, repeats)}
             for name, X, ds, y, w, n_classes, node, rows in real_nodes(datasets, rounds, depth,
                                                                        progress)]
    return {"settings": settings, "nodes": nodes}


def rounds_and_repeats(rounds, repeats, quick):
    """(rounds, repeats): the given ones, else ``DEFAULTS`` (``QUICK_DEFAULTS`` with ``quick``)."""
    defaults = QUICK_DEFAULTS if quick else DEFAULTS
    return (defaults["rounds"] if rounds is None else rounds,
            defaults["repeats"] if repeats is None else repeats)


def real_nodes(datasets, rounds, depth, progress):
    """Yield (name, X, Dataset, y, w, n_classes, node name, rows) for every node of every
    bundled dataset named.

    ``w`` are the weights after ``rounds`` AdaBoost rounds; the nodes those of
    ``tree_nodes(depth)``.
    """
    bar = progress_bar(progress, iterable=datasets, desc="datasets")
    for name in datasets if bar is None else bar:
        X, y, classes = load_bundled(name)
        ds = Dataset(X)
        w = boosting_weights(ds, y, len(classes), rounds)
        for node, rows in tree_nodes(ds, y, w, depth):
            yield name, X, ds, y, w, len(classes), node, rows


def format_table(result):
    """The benchmark's results as readable text."""
    s = result["settings"]
    finder_rows, sklearn_rows = [], []
    for node in result["nodes"]:
        nk = node["n_rows"] * node["n_features"]
        where = [node["dataset"], node["node"], f"{node['n_rows']}x{node['n_features']}"]
        for m in METHODS:
            r = node["methods"][m]
            finder_rows.append(where + [m, f"{r['assessments']:,}", f"{r['assessments'] / nk:.3f}",
                                        f"{node[m + '_over_bound']:.3f}",
                                        f"{r['scans'] / node['n_features']:.1f}",
                                        f"{r['seconds'] * 1e3:.2f}",
                                        f"{node['seconds_over_exhaustive'][m]:.2f}"])
        bound = node["weight_order_bound"]
        finder_rows.append(where + ["weight-order bound", f"{bound:,}", f"{bound / nk:.3f}", "1.000",
                                    "-", "-", "-"])
        g = node["gini"]
        sk = g["sklearn_seconds"]
        sklearn_rows.append(where + [f"{g['apsplit_seconds'] * 1e3:.2f}", f"{sk['dense'] * 1e3:.2f}",
                                     f"{sk['sparse'] * 1e3:.2f}" if "sparse" in sk else "-",
                                     f"{g['apsplit_over_sklearn']:.3f}"])
    tables = [f"Split finders on one node under AdaBoost (SAMME) weights after {s['rounds']} rounds; "
           f"criterion={s['criterion']}; time = median of {s['repeats']} calls after a warm-up; "
           "scans / K: how often the call recomputed a feature's bounds, per feature",
           text_table(["dataset", "node", "n x K", "method", "assessments", "/ (n*K)", "/ bound",
                       "scans / K", "ms", "ms / exhaustive"],
                      finder_rows, n_left=4),
           "",
           "Exhaustive Gini search, same node and weights: apsplit vs scikit-learn "
           "DecisionTreeClassifier(max_depth=1) (ms)",
           text_table(["dataset", "node", "n x K", "apsplit", "sklearn dense", "sklearn sparse",
                       "apsplit / sklearn best"], sklearn_rows, n_left=3)]
    notes = [f"WARNING {n['dataset']} {n['node']}: the finders' scores differ"
              for n in result["nodes"] if not n["scores_agree"]]
    if not result["nodes"]:
        return "\n".join(notes or ["no results"])
    return "\n".join(tables + ([""] + notes if notes else []))


def plot(result, path):
    """Bar chart of assessments per finder, one panel per node, the weight-order bound dashed."""
    nodes = result["nodes"]
    fig, axes = panel_grid(len(nodes), 4.2, 3.6)
    for ax, node in zip(axes, nodes):
        counts = [node["methods"][m]["assessments"] for m in METHODS]
        bars = ax.bar(METHODS, counts, color=["#9e9e9e", "#5b8fd6", "#e07b39", "#6bb36b", "#c9a227"])
        ax.bar_label(bars, [f"{node[m + '_over_bound']:.2f}x" for m in METHODS], fontsize=8)
        ax.axhline(node["weight_order_bound"], color="black", linestyle="--", linewidth=1,
                   label="weight-order bound")
        ax.set_title(f"{node['dataset']} {node['node']} ({node['n_rows']} x {node['n_features']})",
                     fontsize=10)
        ax.set_ylabel("assessments")
        ax.margins(y=0.12)
        ax.legend(loc="lower right", fontsize=8)
    for ax in axes[len(nodes):]:
        ax.set_visible(False)
    fig.suptitle(f"Assessments per finder (labels: / weight-order bound)\n"
                 f"AdaBoost weights after {result['settings']['rounds']} rounds", fontsize=9)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def add_arguments(parser, json_default, plot_default):
    """The benchmark's options, shared by ``apsplit compare`` and ``benchmarks/finders.py``."""
    parser.add_argument("--rounds", type=count(0),
                        help=f"AdaBoost rounds that set the node's weights (default {DEFAULTS['rounds']}; "
                             f"{QUICK_DEFAULTS['rounds']} with --quick)")
    parser.add_argument("--repeats", type=count(1),
                        help=f"timed calls per measurement, median reported (default {DEFAULTS['repeats']}; "
                             f"{QUICK_DEFAULTS['repeats']} with --quick)")
    parser.add_argument("--depth", type=count(1), default=1,
                        help="benchmark every node a tree of this depth splits (default 1: the root only)")
    parser.add_argument("--quick", action="store_true", help="fewer rounds and repeats (for CI)")
    add_output_arguments(parser, json_default, plot_default, "the bar chart")


def add_dataset_arguments(parser):
    """``--datasets``: the bundled datasets a node benchmark runs on."""
    parser.add_argument("--datasets", default=",".join(DEFAULT_DATASETS),
                        help=f"comma-separated, from the bundled {', '.join(BUNDLED)} "
                             f"(default {','.join(DEFAULT_DATASETS)})")


def selected_datasets(parser, args):
    """The dataset names of ``--datasets``; a parser error names unknown ones."""
    datasets = [name.strip() for name in args.datasets.split(",") if name.strip()]
    unknown = sorted(set(datasets) - set(BUNDLED))
    if unknown or not datasets:
        parser.error(f"unknown datasets {unknown}; choose from {', '.join(BUNDLED)}")
    return datasets


def report(args, datasets):
    """Run with parsed ``add_arguments`` options; print the table, write JSON and PNG."""
    result = run(datasets, rounds=args.rounds, repeats=args.repeats, depth=args.depth,
                 quick=args.quick, progress=True)
    publish(result, format_table(result), plot, args.json, args.plot, bool(result["nodes"]))
    return result


