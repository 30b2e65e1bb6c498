"""Where an exhaustive AdaBoost tree's time goes, phase by phase, at its root and at
every node it searched.

Boosts ``rounds`` AdaBoost rounds of depth-``depth`` exhaustive trees on a dense
Dataset with the prefilter at every node (``Dataset(X, prefilter=True)``), keeps
the last round's weights, grows that round's tree (``tree.grow_from_problem``,
one kernel call: ``tree``) and takes it apart (``tree_nodes``): every node the
grower searched (``build.grow``), with its rows and its coarse histogram as the
grower has it (the root's and a smaller child's summed from their rows, a
larger child's its parent's minus its sibling's).  At each node, each the least
of ``repeats`` calls after an untimed one:

* ``histogram``: ``coarse.build_dense``, or ``coarse.subtract`` at a larger child;
* ``bounds``: ``coarse.survivors``, the boundaries' scores and the bins' bounds;
* ``canonical sums``: ``refine.refine_survivors`` with no coarse bin flagged, i.e.
  only the coarse boundaries, a two-level feature's canonical sums read from the
  node's histogram (``stats``), a one-level feature's ranks summed from its rows;
* ``survivors' passes``: ``refine.refine_survivors``, the exact scores of the
  features left;
* ``... at the node's limit``: the same, the limit never lowered by the splits
  found (the passes as they ran before they lowered it), for comparison;
* ``search``: ``search.run_exhaustive`` on the node's histogram.

The root's phases head the table, with ``root search`` (its histogram built
inside the search, as the grower's first call does) and LightGBM's mean time per
tree on the same rows, binned beforehand (``rounds`` rounds of depth-``depth``
trees), when it is installed, for scale.  The histograms and the canonical sums
are the floor of this search: every split's canonical left weights are
prefixes of them (``refine``), so a searched node pays them even when no bin is
flagged.  Used by ``python -m benchmarks.phases``; every phase, the tree and
LightGBM on ``threads`` threads (one by default): run at one and at two, it shows
which phases the second thread speeds up.
"""

import math
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..adapters.boosting import AdaBoost
from ..dataset import Dataset
from ..finders import Exhaustive, kernel_task
from ..kernels import coarse as cs
from ..kernels.refine import new_refined, refine_survivors, survivors_of
from ..kernels.search import TOL, run_exhaustive
from ..kernels.stats import class_totals, sorted_rows
from ..optional import installed
from ..tree import grow_from_problem
from .report import figure_class, not_installed, publish, text_table, timed

__all__ = ["round_roots", "last_round_root", "tree_nodes", "run", "format_table", "plot",
           "report"]

NODE_PHASES = ["histogram", "bounds", "canonical sums", "survivors' passes",
               "... at the node's limit", "search"]


def round_roots(ds, y, rounds, depth, criterion="gini"):
    """The root ``Problem`` of each of AdaBoost's ``rounds`` rounds (exhaustive trees;
    each keeps its round's weights: the rounds reweight a copy)."""
    roots = []

    class Recording(AdaBoost):
        def _grow(self, problem):
            roots.append(problem)
            return super()._grow(problem)

    Recording(n_rounds=rounds, max_depth=depth, criterion=criterion,
              method="exhaustive").fit(ds, y)
    return roots


def last_round_root(ds, y, rounds, depth, criterion="gini"):
    """The root ``Problem`` of AdaBoost's round ``rounds`` (exhaustive trees)."""
    return round_roots(ds, y, rounds, depth, criterion)[-1]


def _least_ms(call, repeats):
    """The least wall milliseconds of ``repeats`` calls after an untimed one (numba's
    dispatch): ``report.timed`` with the minimum."""
    return 1000.0 * timed(call, repeats, min)[1]


def _lightgbm_ms(X, y, rounds, depth, threads):
    """LightGBM's ms per tree, its data binned beforehand (as apsplit's Dataset is): on
    ``threads`` threads, ``rounds`` rounds of depth-``depth`` trees (one per class with
    more than two classes); None if it is not installed."""
    lightgbm = installed("lightgbm")
    if lightgbm is None:  # the table says which extra installs it
        return None
    n_classes = int(np.max(y)) + 1
    params = {"objective": "binary"} if n_classes == 2 else {"objective": "multiclass",
                                                              "num_class": n_classes}
    params.update(max_depth=depth, num_leaves=2 ** depth, min_child_samples=1, num_threads=threads,
                  seed=0, verbose=-1)
    data = lightgbm.Dataset(X, y, params=params).construct()
    start = time.perf_counter()
    lightgbm.train(params, data, num_boost_round=rounds)
    trees = rounds * (1 if n_classes == 2 else n_classes)
    return 1000.0 * (time.perf_counter() - start) / trees


def _rows_of_nodes(tree, leaves):
    """Each node's rows, sorted (the index order), from the leaf of every row."""
    rows = {}
    for node in reversed(range(tree.feature.size)):  # a child's id exceeds its parent's
        left, right = tree.children_left[node], tree.children_right[node]
        rows[node] = (np.flatnonzero(leaves == node) if left < 0
                      else np.sort(np.concatenate([rows[left], rows[right]])))
    return rows


def _totals(task):
    return class_totals(task.index_order, task.w, task.y, task.n_classes)


def _searched(tree, node, depth, max_depth, n_rows, min_leaf):
    """Whether ``build.grow`` searches the node (its rule for a leaf, before searching)."""
    return (depth < max_depth and n_rows >= max(2, 2 * min_leaf)
            and np.count_nonzero(tree.value[node] > 0.0) >= 2)


def tree_nodes(problem, tree, leaves, max_depth, repeats=5, threads=1):
    """Every node ``build.grow`` searched growing ``tree`` (exhaustive, from ``problem``,
    ``leaves`` the leaf of every row), in node order: {"node", "depth", "rows",
    "histogram" ("summed", "subtracted", or "none": the plain search, where the prefilter
    does not pay), "survivors", "walked_ranks", "feature" (the split the search returns,
    -1 if none), "ms": {phase: least ms, None where the node has no such phase}}.  A node's
    coarse histogram is the grower's: summed from its rows at the root, at a smaller child
    and below a node without one; its parent's minus its sibling's at a larger child
    (timed with ``subtract`` alone, on copies of the parent's made beforehand).  Every
    phase on ``threads`` threads."""
    params = Exhaustive(threads).kernel_params()
    ds = problem.dataset
    data, coarse, C = ds.kernel_data(), ds.coarse_bins(), problem.n_classes
    lanes = np.int64(params.n_threads)
    rows_of = _rows_of_nodes(tree, leaves)
    depth_of, ready, nodes = {0: 0}, {}, []
    with ds.workspace(C) as work:
        for node in range(tree.feature.size):
            depth, rows = depth_of[node], rows_of[node]
            for child in (tree.children_left[node], tree.children_right[node]):
                if child >= 0:
                    depth_of[child] = depth + 1
            if not _searched(tree, node, depth, max_depth, rows.size, problem.min_leaf):
                continue
            task = kernel_task(problem, rows)._replace(order=rows)
            feats, n = task.feats, np.int64(rows.size)
            ms = dict.fromkeys(NODE_PHASES)
            record = {"node": node, "depth": depth, "rows": int(rows.size), "histogram": "none",
                      "survivors": 0, "walked_ranks": 0, "ms": ms}
            if node in ready:
                hist, record["histogram"], ms["histogram"] = ready.pop(node)
            elif cs.pays(coarse, data.bin_offsets, feats, n, C):
                hist = cs.new_histogram(coarse, C)
                ms["histogram"] = _least_ms(lambda: cs.build_dense(
                    coarse, feats, task.index_order, task.w, task.y, _totals(task), hist, lanes),
                    repeats)
                record["histogram"] = "summed"
            else:
                hist = None
            if hist is not None:  # the node's canonical coarse sums, as the grower gives them
                task = task._replace(coarse_sums=hist.weights, coarse_offsets=coarse.offsets)
            found, seconds = timed(lambda: run_exhaustive(
                params, data, work, task, coarse,
                hist if hist is not None else cs.new_histogram(coarse, C), hist is not None,
                _totals(task)),
                repeats, min)
            ms["search"] = 1000.0 * seconds
            record["feature"] = int(feats[found.position]) if found.position >= 0 else -1
            if hist is not None:
                _time_survivors(record, task, data, work, coarse, hist, repeats, lanes)
                if depth + 1 < max_depth and tree.children_left[node] >= 0:
                    ready.update(_children_histograms(tree, node, rows_of, task, coarse, hist,
                                                      repeats, lanes))
            nodes.append(record)
    return nodes


def _time_survivors(record, task, data, work, coarse, hist, repeats, lanes):
    """A node's bounds, canonical sums (the passes, no bin flagged), survivors' passes and
    the same passes at the node's limit (never lowered: s + inf), into ``record``, with
    its flagged coarse bins and the exact values (ranks) they hold; on ``lanes`` threads."""
    ms = record["ms"]
    rows = task.index_order
    totals = _totals(task)
    n, tie = np.int64(rows.size), TOL * totals.sum()
    bounds = np.empty(coarse.offsets[-1])
    prefilter, seconds = timed(lambda: cs.survivors(
        coarse, task.feats, data.categorical, hist, totals, n, task.crit, task.min_leaf, tie,
        bounds, lanes), repeats, min)
    ms["bounds"] = 1000.0 * seconds
    survivors = survivors_of(task, coarse, task.feats, prefilter, bounds, hist, totals,
                             lanes)
    none_flagged = survivors._replace(bounds=np.full_like(bounds, math.inf))
    ms["canonical sums"] = _least_ms(
        lambda: _refined(data, work, task, coarse, none_flagged, lanes), repeats)
    out, seconds = timed(lambda: _refined(data, work, task, coarse, survivors, lanes), repeats,
                         min)
    ms["survivors' passes"] = 1000.0 * seconds
    ms["... at the node's limit"] = _least_ms(lambda: _refined(
        data, work, task, coarse, survivors._replace(margin=math.inf), lanes), repeats)
    kept = survivors.features
    flags = [bounds[coarse.offsets[k]:coarse.offsets[k + 1]] <= prefilter.limit for k in kept]
    spans = [coarse.span[coarse.offsets[k]:coarse.offsets[k + 1]] for k in kept]
    flagged = sum(int(f.sum()) for f in flags)
    record.update(
        survivors=int(kept.size), flagged_bins=flagged,
        flagged_share=flagged / max(sum(f.size for f in flags), 1),
        # the exact values (ranks) in the bins within the node's limit ...
        flagged_ranks=sum(int(span[f].sum()) for f, span in zip(flags, spans)),
        # ... and those the survivors' walks visit, under the limits their splits lower
        walked_ranks=int(out.walked.sum()))


def _refined(data, work, task, coarse, survivors, lanes):
    out = new_refined(survivors.features.size, task.n_classes)
    refine_survivors(data, work, task, coarse, survivors, out, lanes)
    return out


def _children_histograms(tree, node, rows_of, task, coarse, hist, repeats, lanes):
    """{child: (histogram, kind, ms)} of a split node's children, as the grower makes them
    (the smaller's summed on ``lanes`` threads)."""
    left, right = tree.children_left[node], tree.children_right[node]
    small, large = ((left, right) if 2 * rows_of[left].size <= rows_of[node].size
                    else (right, left))
    C = task.n_classes
    small_hist = cs.new_histogram(coarse, C)
    small_rows = rows_of[small]
    small_totals = class_totals(small_rows, task.w, task.y, C)
    small_ms = _least_ms(lambda: cs.build_dense(coarse, task.feats, small_rows, task.w, task.y,
                                                small_totals, small_hist, lanes), repeats)
    parent_weight = float(tree.value[node].sum())
    copies = [cs.NodeHistogram(*(field.copy() for field in hist)) for _ in range(repeats + 1)]
    large_hist = copies[-1]
    large_ms = _least_ms(lambda: cs.subtract(coarse, task.feats, copies.pop(), small_hist,
                                             parent_weight), repeats)
    return {small: (small_hist, "summed", small_ms), large: (large_hist, "subtracted", large_ms)}


def run(X, y, name="data", rounds=30, depth=3, criterion="gini", repeats=5, threads=1):
    """{"dataset", "rows", "features", "rounds", "depth", "criterion", "threads",
    "survivors", "flagged_share", "flagged_bins", "flagged_ranks", "walked_ranks",
    "phases": {phase: least ms}, "nodes": ``tree_nodes`` of the last round's tree,
    "lightgbm_tree_ms"}, timed on ``threads`` threads (-1: every core); sparse ``X`` in
    the dense layout."""
    # the dense layout, as benchmarks.scaling's default: the sparse search has no survivors
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    ds = Dataset(X, prefilter=True)  # the prefilter at every node: the root has its phases
    problem = last_round_root(ds, y, rounds, depth, criterion)
    finder = Exhaustive(threads)
    (tree, leaves), seconds = timed(lambda: grow_from_problem(problem, finder, depth, True),
                                    repeats, min)
    nodes = tree_nodes(problem, tree, leaves, depth, repeats, finder.n_threads)
    root = nodes[0]
    if root["node"] != 0:
        raise ValueError("the last round's root was not searched (one class, or too few rows)")
    params, data, coarse = finder.kernel_params(), ds.kernel_data(), ds.coarse_bins()
    task = kernel_task(problem, sorted_rows(problem.order, ds.n_rows))
    hist = cs.new_histogram(coarse, problem.n_classes)
    with ds.workspace(problem.n_classes) as work:  # its histogram built inside, as at a root
        root_search = _least_ms(lambda: run_exhaustive(
            params, data, work, task, coarse, hist, False,
            _totals(task)), repeats)
    ms = root["ms"]
    phases = {"coarse histograms": ms["histogram"], "bounds": ms["bounds"],
              "survivors' passes": ms["survivors' passes"],
              "... at the node's limit": ms["... at the node's limit"],
              "root search": root_search, "tree": 1000.0 * seconds}
    return {"dataset": name, "rows": int(X.shape[0]), "features": int(X.shape[1]),
            "rounds": rounds, "depth": depth, "criterion": criterion,
            "threads": finder.n_threads,
            **{key: root[key] for key in ("survivors", "flagged_share", "flagged_bins",
                                          "flagged_ranks", "walked_ranks")},
            "phases": phases, "nodes": nodes,
            "lightgbm_tree_ms": _lightgbm_ms(X, y, rounds, depth, finder.n_threads)}


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
        rows.append(["LightGBM, per tree", not_installed("lightgbm"), ""])
    return "\n".join([
        f"{result['dataset']} ({result['rows']:,} rows x {F} features), the root of AdaBoost's "
        f"round {result['rounds']}, depth-{result['depth']} {result['criterion']} trees, "
        f"{_threads(result)}: "
        f"{result['survivors']} of {F} features survive, "
        f"{100 * result['flagged_share']:.1f}% of their coarse bins flagged, holding "
        f"{result['flagged_ranks'] / max(result['survivors'], 1):,.0f} exact values per survivor, "
        f"of which the walks visit {result['walked_ranks'] / max(result['survivors'], 1):,.0f} "
        "under the limits found splits lower",
        text_table(["phase", "ms (least)", "ms per feature"], rows, n_left=1),
        "", _format_nodes(result)])


def _threads(result):
    threads = result["threads"]
    return "one thread" if threads == 1 else f"{threads} threads"


def node_totals(result):
    """{"nodes": the searched nodes' histograms and searches, "floor": their histograms and
    canonical sums, "tree"} in ms: what the nodes account for of the tree, and the floor."""
    nodes = result["nodes"]

    def total(*phases):
        return sum(node["ms"][phase] or 0.0 for node in nodes for phase in phases)

    return {"nodes": total("histogram", "search"), "floor": total("histogram", "canonical sums"),
            "tree": result["phases"]["tree"]}


def _format_nodes(result):
    rows = []
    for node in result["nodes"]:
        ms = node["ms"]
        per = max(node["survivors"], 1)
        rows.append([str(node["node"]), str(node["depth"]), f"{node['rows']:,}",
                     node["histogram"], str(node["survivors"]),
                     f"{node['walked_ranks'] / per:,.0f}",
                     *("" if ms[phase] is None else f"{ms[phase]:.3f}" for phase in NODE_PHASES)])
    totals = node_totals(result)
    lightgbm = result["lightgbm_tree_ms"]
    scale = f"; LightGBM's tree {lightgbm:.3f} ms" if lightgbm is not None else ""
    return "\n".join([
        "every node the tree searched (ms, least of the repeats; the search includes its "
        "bounds and passes, not a histogram made before it):",
        text_table(["node", "depth", "rows", "histogram", "survivors", "walked per survivor",
                    *NODE_PHASES], rows, n_left=4),
        f"histograms and searches {totals['nodes']:.3f} ms of the tree's {totals['tree']:.3f}; "
        f"the floor, histograms and canonical sums, {totals['floor']:.3f}{scale}"])


def plot(result, path):
    """The root's phases as bars, and each searched node's as a stacked bar."""
    fig = figure_class()(figsize=(11, 3.8), layout="constrained")
    ax, by_node = fig.subplots(1, 2)
    names = list(result["phases"]) + (["LightGBM tree"] if result["lightgbm_tree_ms"] else [])
    values = list(result["phases"].values()) + (
        [result["lightgbm_tree_ms"]] if result["lightgbm_tree_ms"] else [])
    ax.barh(names[::-1], values[::-1])
    ax.set_xlabel(f"milliseconds (least of repeats, {_threads(result)})")
    ax.set_title(f"{result['dataset']} ({result['rows']:,} rows), round {result['rounds']}")
    _plot_nodes(by_node, result["nodes"])
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def _plot_nodes(ax, nodes):
    """Per node: histogram, bounds, canonical sums, the flagged bins (the passes minus the
    sums: their rows listed and summed into exact ranks, the runs bounded) and the rest of
    its search, stacked."""
    labels = [f"{node['node']} ({node['rows']:,})" for node in nodes][::-1]
    parts = {"histogram": [], "bounds": [], "canonical sums": [], "flagged bins": [],
             "rest of search": []}
    for node in nodes[::-1]:
        ms = {phase: value or 0.0 for phase, value in node["ms"].items()}
        parts["histogram"].append(ms["histogram"])
        parts["bounds"].append(ms["bounds"])
        parts["canonical sums"].append(ms["canonical sums"])
        parts["flagged bins"].append(max(ms["survivors' passes"] - ms["canonical sums"], 0.0))
        parts["rest of search"].append(
            max(ms["search"] - ms["bounds"] - ms["survivors' passes"], 0.0))
    left = np.zeros(len(nodes))
    for name, values in parts.items():
        ax.barh(labels, values, left=left, label=name)
        left += values
    ax.set_xlabel("milliseconds")
    ax.set_ylabel("node (rows)")
    ax.set_title("every searched node of the tree")
    ax.legend(fontsize="small")


def report(result, json_path, plot_path):
    publish(result, format_table(result), plot, json_path, plot_path)
