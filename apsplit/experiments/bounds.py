"""The paper's bounds against the tight ones, on single nodes of real data under boosting weights.

For each dataset, node (as in ``benchmarks.finders``: weights after
``rounds`` AdaBoost rounds) and criterion: the assessments and wall time of
Algorithm 1 as printed (``adaptive_paper``) with ``bounds="paper"`` and
``bounds="tight"``, and the weight-order lower bound on assessments computed
with each one's lower bound; ratios are tight / paper.  Upper bounds matter
only to finders that prune with them: the best-first ``adaptive`` uses lower
bounds alone, so ``bounds=`` does not change it (``--method adaptive`` shows
that, with its assessments).  The command is ``python -m benchmarks.bounds``:

    python -m benchmarks.bounds [--datasets satimage,a8a,higgs7k] [--criteria entropy,gini,error]
                                [--method adaptive_paper]
                                [--rounds 20] [--repeats 5] [--json results/bounds.json]
                                [--plot results/bounds.png]
"""

import math
from functools import partial
from pathlib import Path

from .. import available_finders, find_split, lower_bounds
from . import nodes
from .report import figure_class, publish, require_plotting, text_table, timed

CRITERIA = ("entropy", "gini", "error")
BOUNDS = ("paper", "tight")
METHOD = "adaptive_paper"


def bench_node(ds, y, w, rows, criterion, repeats, method=METHOD):
    """``method`` with each bounds on one node, and the weight-order bound of each."""
    out = {}
    for bounds in BOUNDS:
        split, seconds = timed(partial(find_split, ds, y, w, criterion=criterion, method=method,
                                             rows=rows, weight_ordered=True, bounds=bounds), repeats)
        bound = lower_bounds.weight_order(ds, y, w, rows=rows, criterion=criterion, bounds=bounds)
        out[bounds] = {"assessments": split.assessments, "seconds": seconds, "score": float(split.score),
                       "weight_order_bound": bound}
    paper, tight = out["paper"], out["tight"]
    return {**out,
            "assessments_tight_over_paper": tight["assessments"] / paper["assessments"],
            "bound_tight_over_paper": tight["weight_order_bound"] / paper["weight_order_bound"],
            "seconds_tight_over_paper": tight["seconds"] / paper["seconds"],
            "scores_agree": math.isclose(paper["score"], tight["score"], rel_tol=1e-12, abs_tol=1e-12)}


def run(datasets=nodes.DEFAULT_DATASETS, criteria=CRITERIA, rounds=None, repeats=None, depth=1,
        quick=False, progress=False, method=METHOD):
    """Run the benchmark; returns a JSON-ready dict {"settings", "nodes"}."""
    rounds, repeats = nodes.rounds_and_repeats(rounds, repeats, quick)
    settings = {"datasets": list(datasets), "criteria": list(criteria), "rounds": rounds,
                "repeats": repeats, "depth": depth, "quick": quick, "method": method}
    results = []
    for name, _, ds, y, w, n_classes, node, rows in nodes.real_nodes(datasets, rounds, depth,
                                                                     progress):
        for criterion in criteria:
            results.append({"dataset": name, "node": node, "n_rows": int(rows.size),
                          "n_features": ds.n_features, "n_classes": n_classes, "criterion": criterion,
                          **bench_node(ds, y, w, rows, criterion, repeats, method)})
    return {"settings": settings, "nodes": results}


def format_table(result):
    """The results as readable text: one row per node and criterion."""
    s = result["settings"]
    rows = []
    for r in result["nodes"]:
        paper, tight = r["paper"], r["tight"]
        rows.append([r["dataset"], r["node"], f"{r['n_rows']}x{r['n_features']}", r["criterion"],
                     f"{paper['assessments']:,}", f"{tight['assessments']:,}",
                     f"{r['assessments_tight_over_paper']:.3f}",
                     f"{paper['weight_order_bound']:,}", f"{tight['weight_order_bound']:,}",
                     f"{r['bound_tight_over_paper']:.3f}",
                     f"{paper['seconds'] * 1e3:.2f}", f"{tight['seconds'] * 1e3:.2f}"])
    notes = [f"WARNING {r['dataset']} {r['node']} {r['criterion']}: the scores differ"
              for r in result["nodes"] if not r["scores_agree"]]
    if not rows:
        return "\n".join(notes or ["no results"])
    table = [f"{s['method']} finder, bounds='paper' vs 'tight', under AdaBoost (SAMME) weights after "
             f"{s['rounds']} rounds; time = median of {s['repeats']} calls after a warm-up",
             text_table(["dataset", "node", "n x K", "criterion", "paper", "tight",
                               "tight/paper", "bound paper", "bound tight", "tight/paper",
                               "ms paper", "ms tight"], rows, n_left=4)]
    return "\n".join(table + ([""] + notes if notes else []))


def plot(result, path):
    """Assessments of the finder with each bounds, one panel per node, weight-order bounds as ticks."""
    entries = result["nodes"]
    if not entries:
        raise ValueError("no benchmark results to plot")
    panels = list(dict.fromkeys((r["dataset"], r["node"]) for r in entries))
    fig = figure_class()(figsize=(4.6 * len(panels), 3.8), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False).ravel()
    for ax, (dataset, node) in zip(axes, panels):
        rows = [r for r in entries if (r["dataset"], r["node"]) == (dataset, node)]
        x = range(len(rows))
        for j, (bounds, color) in enumerate(zip(BOUNDS, ["#9e9e9e", "#e07b39"])):
            xs = [i + (j - 0.5) * 0.4 for i in x]
            bars = ax.bar(xs, [r[bounds]["assessments"] for r in rows], width=0.4, color=color,
                          label=f"{result['settings']['method']}, {bounds}")
            ax.scatter(xs, [r[bounds]["weight_order_bound"] for r in rows], marker="_", s=300,
                       color="black", label="weight-order bound" if j else None, zorder=3)
            if bounds == "tight":
                ax.bar_label(bars, [f"{r['assessments_tight_over_paper']:.3f}x" for r in rows], fontsize=8)
        ax.set_xticks(list(x), [r["criterion"] for r in rows])
        ax.set_title(f"{dataset} {node} ({rows[0]['n_rows']} x {rows[0]['n_features']})", fontsize=10)
        ax.set_ylabel("assessments")
        ax.margins(y=0.12)
        ax.legend(loc="lower right", fontsize=7)
    fig.suptitle(f"{result['settings']['method']} assessments with the paper's and the tight bounds (labels: tight / paper)\n"
                 f"AdaBoost weights after {result['settings']['rounds']} rounds", fontsize=9)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def add_arguments(parser):
    """The command's options (``python -m benchmarks.bounds``)."""
    nodes.add_dataset_arguments(parser)
    parser.add_argument("--criteria", default=",".join(CRITERIA),
                        help=f"comma-separated, from {', '.join(CRITERIA)} (default all)")
    parser.add_argument("--method", default=METHOD, choices=available_finders(),
                        help=f"the finder to run (default {METHOD})")
    nodes.add_arguments(parser, json_default="results/bounds.json", plot_default="results/bounds.png")


def report(args, parser):
    """Run with parsed ``add_arguments`` options; print the table, write JSON and PNG."""
    require_plotting(parser)
    datasets = nodes.selected_datasets(parser, args)
    criteria = [c.strip() for c in args.criteria.split(",") if c.strip()]
    if not criteria or set(criteria) - set(CRITERIA):
        parser.error(f"unknown criteria in {args.criteria!r}; choose from {', '.join(CRITERIA)}")
    result = run(datasets, criteria, args.rounds, args.repeats, args.depth, args.quick,
                 progress=True, method=args.method)
    publish(result, format_table(result), plot, args.json, args.plot, bool(result["nodes"]))
    return result
