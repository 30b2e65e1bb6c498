"""The paper's CPU claim against Quick Boost, on every client and dataset, in one table.

Aziz et al. (2018, Tables 2-3) report adaptive pruning below Quick Boost in
assessments and in CPU time.  For each dataset and each client (AdaBoost,
LazyBoost 0.5 and 0.9, weight trimming 0.9 and 0.99), ``paper.run`` boosts
the same trees with the default ``Adaptive()``, the default ``Quick()`` and
exhaustive search (checked: equal training errors and splits every round),
every fit timed in the same run, the finders taking turns within each of
``repeats`` repetitions, and more while a finder's fits of the cell add up to
less than ``min_seconds`` of CPU (at most ``paper.MAX_TURNS``): the least CPU
time of each is reported, and a fit of a fraction of a second, where a
neighbour's burst can double one timing, is timed often enough to find its
unperturbed time.  Per cell:
CPU seconds, AP/QB = adaptive's CPU time over Quick Boost's, and each
finder's assessments over the summed weight-order bound.  The claim holds in
a cell when AP/QB < 1 and adaptive's assessments are within ``BOUND_SLACK``
of the bound.  Used by ``python -m benchmarks.claim``.
"""

from collections import namedtuple
from pathlib import Path

from . import paper
from .report import figure_class, publish, text_table

__all__ = ["CLIENTS", "METHODS", "BOUND_SLACK", "DatasetSpec", "parse_spec", "run", "format_table",
           "plot", "report"]

CLIENTS = ("adaboost", "lazy0.5", "lazy0.9", "trim0.9", "trim0.99")
METHODS = ("adaptive", "quick", "exhaustive")
BOUND_SLACK = 1.03  # adaptive's assessments must stay within this factor of the bound


DatasetSpec = namedtuple("DatasetSpec", "data rows depth rounds", defaults=(None, None, None))
DatasetSpec.__doc__ = "One dataset's runs: its name or file, and rows, depth, rounds (None: defaults)."


def parse_spec(text):
    """A ``DatasetSpec`` from "DATA[:ROWS[:DEPTH[:ROUNDS]]]" (empty fields: the defaults), e.g.
    "a8a:11220" or "mnist-train-60000.npz:3000:4:300"."""
    data, *numbers = str(text).split(":")
    if not data or len(numbers) > 3:
        raise ValueError(f"a dataset is DATA[:ROWS[:DEPTH[:ROUNDS]]], got {text!r}")
    try:
        values = [int(x) if x else None for x in numbers]
    except ValueError:
        raise ValueError(f"ROWS, DEPTH and ROUNDS must be integers, got {text!r}") from None
    if any(x is not None and x < 1 for x in values):
        raise ValueError(f"ROWS, DEPTH and ROUNDS must be >= 1, got {text!r}")
    return DatasetSpec(data, *values)


def run(datasets, clients=CLIENTS, methods=METHODS, depth=3, rounds=500, repeats=1,
        min_seconds=0.0, progress=False):
    """``datasets``: [(name, data dict of ``paper.load_data``, depth or None, rounds or None)].

    Returns {"cells": [per dataset x client: "dataset", "client", "depth", "rounds",
    "rounds_run", "cpu_seconds" and "assessments" per method, "weight_order_bound",
    "cpu_ratio" (AP/QB), "bound_ratio" (AP/bound), "agree", "meets"], "runs": the
    ``paper.run`` results, "agree", "meets"}.
    """
    if "adaptive" not in methods or "quick" not in methods:
        raise ValueError("the claim compares adaptive with quick: both must be in methods")
    cells, runs = [], []
    for name, data, data_depth, data_rounds in datasets:
        result = paper.run(data["X"], data["y"], dataset=name, clients=clients,
                           methods=list(methods), depth=data_depth or depth,
                           rounds=data_rounds or rounds, repeats=repeats,
                           min_seconds=min_seconds, progress=progress)
        runs.append(result)
        for summary in result["clients"]:
            by = {r["method"]: r for r in result["runs"] if r["client"] == summary["client"]}
            bound = summary["weight_order_total"]
            cpu = {m: by[m]["cpu_seconds"] for m in methods}
            cpu_ratio = cpu["adaptive"] / cpu["quick"]
            bound_ratio = by["adaptive"]["total_assessments"] / bound
            cells.append({"dataset": name, "rows": result["rows"], "client": summary["client"],
                          "depth": result["depth"], "rounds": result["rounds"],
                          "rounds_run": summary["rounds_run"], "cpu_seconds": cpu,
                          "cpu_seconds_repeats": {m: by[m]["cpu_seconds_repeats"] for m in methods},
                          "assessments": {m: by[m]["total_assessments"] for m in methods},
                          "weight_order_bound": bound, "cpu_ratio": cpu_ratio,
                          "bound_ratio": bound_ratio, "agree": summary["agree"],
                          "mismatches": summary["mismatches"],
                          "meets": cpu_ratio < 1 and bound_ratio <= BOUND_SLACK})
    return {"clients": list(clients), "methods": list(methods), "repeats": int(repeats),
            "min_seconds": float(min_seconds),
            "bound_slack": BOUND_SLACK, "cells": cells, "runs": runs,
            "agree": all(c["agree"] for c in cells), "meets": all(c["meets"] for c in cells)}


def format_table(result):
    """Per dataset x client: CPU seconds, AP/QB, assessments over the bound, same trees."""
    methods = result["methods"]
    others = [m for m in methods if m not in ("adaptive", "quick")]
    header = (["dataset", "client", "depth", "rounds", "fits", "CPU s AP", "CPU s QB"]
              + [f"CPU s {m}" for m in others] + ["AP / QB CPU", "AP / bound", "QB / bound",
                                                  "same trees", "claim"])
    rows = []
    for c in result["cells"]:
        bound = c["weight_order_bound"]
        rounds = str(c["rounds_run"]) if c["rounds_run"] == c["rounds"] else \
            f"{c['rounds_run']} of {c['rounds']}"
        fits = len(c["cpu_seconds_repeats"]["adaptive"])
        rows.append([f"{c['dataset']} ({c['rows']} rows)", c["client"], str(c["depth"]), rounds,
                     str(fits), f"{c['cpu_seconds']['adaptive']:.2f}", f"{c['cpu_seconds']['quick']:.2f}"]
                    + [f"{c['cpu_seconds'][m]:.2f}" for m in others]
                    + [f"{c['cpu_ratio']:.2f}", f"{c['bound_ratio']:.3f}",
                       f"{c['assessments']['quick'] / bound:.3f}", "yes" if c["agree"] else "NO",
                       "met" if c["meets"] else "NOT met"])
    met = sum(c["meets"] for c in result["cells"])
    lines = [f"Adaptive (AP, defaults) against Quick Boost (QB, defaults): CPU s = process time "
             f"of one fit, least of its fits (per finder: {result['repeats']}, more while they add "
             f"up to under {result.get('min_seconds', 0.0):g} s), all in one run; bound = summed "
             f"weight-order lower bound; claim: AP/QB < 1 and AP/bound <= {result['bound_slack']}",
             text_table(header, rows, n_left=2),
             f"claim met in {met} of {len(result['cells'])} cells"]
    lines += [f"ERROR {c['dataset']} {c['client']}: {m}" for c in result["cells"]
              for m in c["mismatches"]]
    lines.append("check: every finder grew the same trees" if result["agree"] else
                 "ERROR: the finders grew different trees")
    return "\n".join(lines)


def plot(result, path):
    """AP/QB CPU against AP/bound, one point per cell; the claim's region is the lower left."""
    fig = figure_class()(figsize=(6.5, 4.5), layout="constrained")
    ax = fig.subplots()
    names = list(dict.fromkeys((c["dataset"], c["rows"]) for c in result["cells"]))
    for c in result["cells"]:
        x, y = c["bound_ratio"], c["cpu_ratio"]
        key = c["dataset"], c["rows"]
        ax.scatter([x], [y], color=f"C{names.index(key)}",
                   label=f"{key[0]} ({key[1]} rows)" if c["client"] == result["clients"][0] else None)
        ax.annotate(c["client"], (x, y), fontsize=7, xytext=(4, 2), textcoords="offset points")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.axvline(result["bound_slack"], color="grey", lw=0.8, ls="--")
    ax.set_xlabel("adaptive's assessments / weight-order bound")
    ax.set_ylabel("adaptive's CPU time / Quick Boost's")
    ax.set_title("the CPU claim: below 1 on the y axis, left of the dashed line")
    ax.legend(fontsize=8)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def report(result, json_path, plot_path):
    """Print the table, write the JSON and the PNG."""
    publish(result, format_table(result), plot, json_path, plot_path)
