"""How Quick Boost's defaults were chosen: its assessments over a parameter grid.

For each (initial_fraction, n_batches) of the grid, AdaBoost grows depth-D
trees for T rounds with ``Quick(initial_fraction, n_batches)``, and the total
assessments are recorded, with adaptive's for comparison.  Every finder is
exact, so the trees (hence the weights) are the same for every cell.  Used by
``python -m benchmarks.quick_sweep``.
"""

from pathlib import Path

import numpy as np

from ..adapters import AdaBoost
from ..dataset import Dataset
from ..finders import Quick
from .report import figure_class, publish, text_table

__all__ = ["FRACTIONS", "BATCHES", "run", "format_table", "plot", "report"]

FRACTIONS = (0.02, 0.05, 0.1, 0.2, 0.4)
BATCHES = (5, 10, 20, 50)


def _assessments(ds, y, method, rounds, depth):
    model = AdaBoost(n_rounds=rounds, max_depth=depth, method=method).fit(ds, y)
    return sum(record["assessments"] for record in model.history_)


def run(X, y, name="data", rounds=40, depth=3, fractions=FRACTIONS, batches=BATCHES):
    """{"dataset", "rounds", "depth", "fractions", "batches", "quick": [[...]], "adaptive", "best"}."""
    ds = Dataset(X)
    grid = [[_assessments(ds, y, Quick(f, b), rounds, depth) for b in batches] for f in fractions]
    i, j = np.unravel_index(np.argmin(grid), (len(fractions), len(batches)))
    return {"dataset": name, "rounds": rounds, "depth": depth, "fractions": list(fractions),
            "batches": list(batches), "quick": grid,
            "adaptive": _assessments(ds, y, "adaptive", rounds, depth),
            "best": {"initial_fraction": fractions[i], "n_batches": batches[j],
                     "assessments": grid[i][j]}}


def format_table(result):
    """Quick Boost's assessments per cell, relative to the best cell."""
    best = result["best"]["assessments"]
    header = ["initial_fraction \\ n_batches", *map(str, result["batches"])]
    rows = [[str(f), *(f"{count / best:.3f}" for count in counts)]
            for f, counts in zip(result["fractions"], result["quick"])]
    return "\n".join([
        f"{result['dataset']}: AdaBoost, depth {result['depth']}, {result['rounds']} rounds; "
        "Quick Boost's assessments / the best cell's",
        text_table(header, rows, n_left=1),
        f"best: Quick({result['best']['initial_fraction']}, {result['best']['n_batches']}) with "
        f"{best:,} assessments; adaptive {result['adaptive']:,} ({result['adaptive'] / best:.3f})"])


def plot(result, path):
    """Heat map of Quick Boost's assessments over the grid (relative to the best cell)."""
    fig = figure_class()(figsize=(5.5, 4), layout="constrained")
    ax = fig.subplots()
    grid = np.array(result["quick"], float) / result["best"]["assessments"]
    image = ax.imshow(grid, cmap="viridis_r", aspect="auto")
    ax.set_xticks(range(len(result["batches"])), result["batches"])
    ax.set_yticks(range(len(result["fractions"])), result["fractions"])
    ax.set_xlabel("n_batches")
    ax.set_ylabel("initial_fraction")
    ax.set_title(f"{result['dataset']}: Quick Boost assessments / best")
    for (i, j), value in np.ndenumerate(grid):
        ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8, color="white")
    fig.colorbar(image, ax=ax)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def report(result, json_path, plot_path):
    """Print the table, write the JSON and the PNG."""
    publish(result, format_table(result), plot, json_path, plot_path)
