"""The paper's depth sweep (Aziz et al. 2018, Table 10): assessments of adaptive and Quick
Boost under AdaBoost at tree depths 1-5.

For each depth, ``paper.run`` boosts ``rounds`` trees with each finder (every
finder grows the same trees: checked) and records the total assessments, the
weight-order lower bound and the CPU seconds.  The paper reports depths 1-5
after 500 rounds on W4A and A6A; its A6A figures (depths 2-5; the extracted
text lost depth 1's) are printed beside ours when the data is a8a's first
11220 rows.  Used by ``python -m benchmarks.depths``.
"""

from pathlib import Path

from . import paper
from .report import figure_class, publish, text_table

__all__ = ["DEPTHS", "METHODS", "PAPER_A6A", "run", "format_table", "plot", "report"]

DEPTHS = (1, 2, 3, 4, 5)
METHODS = ("quick", "adaptive")
# Table 10 of the paper, A6A after 500 rounds: depth -> (adaptive, Quick Boost) assessments
PAPER_A6A = {2: (1.23e9, 1.29e9), 3: (1.69e9, 1.83e9), 4: (2.08e9, 2.34e9), 5: (2.44e9, 2.89e9)}


def run(X, y, name="data", rounds=500, depths=DEPTHS, client="adaboost", progress=False):
    """{"dataset", "rounds", "client", "depths": [per depth: totals per method, bound, CPU s,
    improvement, agree]}."""
    rows = []
    for depth in depths:
        result = paper.run(X, y, dataset=name, clients=(client,), methods=METHODS, depth=depth,
                           rounds=rounds, progress=progress)
        [summary] = result["clients"]
        runs = {r["method"]: r for r in result["runs"]}
        rows.append({"depth": depth, "rounds_run": summary["rounds_run"],
                     "assessments": {m: runs[m]["total_assessments"] for m in METHODS},
                     "cpu_seconds": {m: runs[m]["cpu_seconds"] for m in METHODS},
                     "weight_order_bound": summary["weight_order_total"],
                     "improvement": summary["improvement"], "agree": summary["agree"],
                     "mismatches": summary["mismatches"]})
    return {"dataset": name, "rows": int(X.shape[0]), "rounds": rounds, "client": client,
            "depths": rows, "agree": all(r["agree"] for r in rows)}


def _paper_cells(result, depth):
    """The paper's A6A figures at ``depth`` when the run is on A6A's stand-in, else dashes."""
    if not (result["dataset"] in ("a8a", "a8a.svm", "a8a.svm.gz") and result["rows"] == 11220
            and result["rounds"] == 500 and depth in PAPER_A6A):
        return ["-", "-", "-"]
    ap, qb = PAPER_A6A[depth]
    return [f"{ap:.2e}", f"{qb:.2e}", f"{100 * (qb - ap) / qb:.1f}%"]


def format_table(result):
    """Per depth: Quick Boost's and adaptive's assessments, the saving, the bound, CPU."""
    rows = []
    for r in result["depths"]:
        a, q = r["assessments"]["adaptive"], r["assessments"]["quick"]
        bound = r["weight_order_bound"]
        rows.append([str(r["depth"]), f"{q:,}", f"{a:,}",
                     f"{r['improvement']['assessments_percent']:.1f}%", f"{bound:,}",
                     f"{a / bound:.3f}", f"{r['cpu_seconds']['quick']:.2f}",
                     f"{r['cpu_seconds']['adaptive']:.2f}",
                     f"{r['improvement']['cpu_percent']:.1f}%", "yes" if r["agree"] else "NO",
                     *_paper_cells(result, r["depth"])])
    header = ["depth", "QB assessments", "AP assessments", "AP saves", "WO bound", "AP / bound",
              "QB CPU s", "AP CPU s", "AP saves CPU", "same trees", "paper AP", "paper QB",
              "paper saves"]
    lines = [f"{result['dataset']} ({result['rows']} rows), {result['client']}, {result['rounds']} "
             "rounds: assessments at each tree depth (the paper's Table 10)",
             text_table(header, rows, n_left=1)]
    lines += [f"WARNING depth {r['depth']}: {m}" for r in result["depths"] for m in r["mismatches"]]
    return "\n".join(lines)


def plot(result, path):
    """Assessments against depth, per finder, with the weight-order bound."""
    fig = figure_class()(figsize=(5.5, 4), layout="constrained")
    ax = fig.subplots()
    depths = [r["depth"] for r in result["depths"]]
    for method, color in zip(METHODS, ("#5b8fd6", "#e07b39")):
        ax.plot(depths, [r["assessments"][method] for r in result["depths"]], "o-", color=color,
                label=method)
    ax.plot(depths, [r["weight_order_bound"] for r in result["depths"]], "k--",
            label="weight-order bound")
    ax.set_xticks(depths)
    ax.set_xlabel("tree depth")
    ax.set_ylabel("assessments")
    ax.set_title(f"{result['dataset']}: {result['client']}, {result['rounds']} rounds")
    ax.legend()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def report(result, json_path, plot_path):
    """Print the table, write the JSON and the PNG."""
    publish(result, format_table(result), plot, json_path, plot_path)
