"""Adaptive's batch sizes: assessments against CPU time, side by side with exhaustive and Quick Boost.

The best-first adaptive finder re-scans a feature's values after every
batch.  Small batches keep its assessments near the weight-order lower bound
but cost many re-scans; ``Adaptive(min_step_examples=e)`` makes every batch
(before the optimum is known) hold at least a fraction e of the feature's
unseen examples.  For each fixed e, and for the default ``Adaptive()``
(which chooses e per node, ``kernels.search.examples_floor``), AdaBoost grows
the paper's trees (``paper.run``: every finder grows the same trees, checked;
CPU seconds of each fit measured in the same run), and the table puts each
finder's total assessments against the weight-order bound and its CPU
seconds against exhaustive search's.  Used by ``python -m benchmarks.steps``.
"""

from fractions import Fraction
from pathlib import Path

from ..finders import Adaptive, Exhaustive, Quick
from . import paper
from .report import figure_class, publish, text_table

__all__ = ["STEPS", "step_label", "finder_name", "run", "format_table", "plot", "report"]

STEPS = (0.0, 1 / 256, 1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4)


def step_label(step):
    """A step as a fraction: 0, 1/64, 1/1024, ... (denominators up to 2**20)."""
    return str(Fraction(step).limit_denominator(1 << 20))


def finder_name(step):
    """The name of ``Adaptive(min_step_examples=step)`` in a run's results (the default
    ``Adaptive()``, the floor chosen per node, is "adaptive")."""
    return f"adaptive[e={step_label(step)}]"


def run(X, y, name="data", rounds=500, depth=3, steps=STEPS, client="adaboost", repeats=1,
        progress=False):
    """{"dataset", "client", "rounds", "depth", "weight_order", "rows": [{"method", "step",
    "cpu_seconds", "assessments"}], "agree", "paper": the paper benchmark's result}."""
    # finder objects by name, not registered: the registry is neither read nor changed
    finders = {"exhaustive": Exhaustive(), "quick": Quick(), "adaptive": Adaptive(),
               **{finder_name(step): Adaptive(min_step_examples=step) for step in steps}}
    result = paper.run(X, y, dataset=name, clients=(client,), methods=list(finders), depth=depth,
                       rounds=rounds, repeats=repeats, progress=progress, finders=finders)
    steps_of = {finder_name(step): step for step in steps}
    rows = [{"method": r["method"], "step": steps_of.get(r["method"]),
             "cpu_seconds": r["cpu_seconds"], "assessments": r["total_assessments"]}
            for r in result["runs"]]
    return {"dataset": name, "client": client, "rounds": rounds, "depth": depth,
            "weight_order": result["clients"][0]["weight_order_total"], "rows": rows,
            "agree": result["agree"], "paper": result}


def format_table(result):
    """Per finder: CPU seconds (and over exhaustive's) and assessments (and over the bound)."""
    bound = result["weight_order"]
    exhaustive = next(r["cpu_seconds"] for r in result["rows"] if r["method"] == "exhaustive")
    rows = [[r["method"], f"{r['cpu_seconds']:.2f}", f"{r['cpu_seconds'] / exhaustive:.2f}",
             f"{r['assessments']:,}", f"{r['assessments'] / bound:.3f}"] for r in result["rows"]]
    rows.append(["weight-order bound", "", "", f"{bound:,}", "1.000"])
    header = ["finder", "CPU s", "CPU / exhaustive", "assessments", "/ bound"]
    return "\n".join([
        f"{result['dataset']}: {result['client']}, depth {result['depth']}, {result['rounds']} "
        "rounds, criterion error; CPU s = process time of one fit, all in this run",
        text_table(header, rows, n_left=1),
        "check: every finder grew the same trees" if result["agree"] else
        "ERROR: the finders grew different trees"])


def plot(result, path):
    """CPU over exhaustive's against assessments over the bound, one point per finder."""
    fig = figure_class()(figsize=(6, 4.2), layout="constrained")
    ax = fig.subplots()
    bound = result["weight_order"]
    exhaustive = next(r["cpu_seconds"] for r in result["rows"] if r["method"] == "exhaustive")
    for r in result["rows"]:
        x, y = r["assessments"] / bound, r["cpu_seconds"] / exhaustive
        ax.scatter([x], [y], color="C0" if r["step"] is not None else "C3")
        ax.annotate(r["method"], (x, y), fontsize=7, xytext=(4, 2), textcoords="offset points")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("assessments / weight-order bound")
    ax.set_ylabel("CPU seconds / exhaustive's")
    ax.set_title(f"{result['dataset']}: {result['client']}, {result['rounds']} rounds, "
                 f"depth {result['depth']}")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def report(result, json_path, plot_path):
    """Print the table, write the JSON and the PNG."""
    publish(result, format_table(result), plot, json_path, plot_path)
