"""The histogram path of the Newton grower against the column scan, per tree, side by side.
From the repository root:

    python -m benchmarks.newton_hist [--datasets satimage,pendigits] [--depth 6] [--repeats 15]
        [--json results/newton_hist.json] [--plot results/newton_hist.png]

On each bundled set, a round's trees (one per class, ``grow_newton_forest``) on the
softmax gradients of random margins (normal, seed 0), grown from
``NewtonData(X)`` (the default ``histogram_density``: the dense features of few values
from histograms, ``kernels/newton_hist.py``) and from ``NewtonData(X,
histogram_density=None)`` (every feature's sorted column, the grower before
histograms), in alternation; CPU seconds per tree, the least of ``--repeats``.  The
trees of the two are checked equal array for array first.
"""

import argparse
import time

import numpy as np

from apsplit.experiments.report import (add_output_arguments, count, figure_class,
                                        require_plotting, write_json)
from apsplit.experiments.stock import load_split
from apsplit.newton import NewtonData, NewtonParams, NewtonTree, grow_newton_forest


def softmax_gradients(y, seed=0):
    """(G, H) of softmax at random normal margins: one column per class."""
    n_classes = int(y.max()) + 1
    p = np.exp(np.random.default_rng(seed).normal(size=(y.size, n_classes)))
    p /= p.sum(1, keepdims=True)
    return p - np.eye(n_classes)[y.astype(int)], np.maximum(2 * p * (1 - p), 1e-16)


def per_tree_seconds(data, G, H, params):
    """CPU seconds per tree of one round."""
    start = time.process_time()
    grow_newton_forest(data, G, H, params)
    return (time.process_time() - start) / G.shape[1]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.newton_hist", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default="satimage,pendigits")
    parser.add_argument("--depth", type=count(1), default=6)
    parser.add_argument("--repeats", type=count(1), default=15)
    add_output_arguments(parser, "results/newton_hist.json", "results/newton_hist.png",
                         "a bar chart of the milliseconds per tree")
    args = parser.parse_args(argv)
    require_plotting(parser)
    rows = []
    params = NewtonParams(max_depth=args.depth)
    print("dataset | histogram features | column scan ms/tree | histograms ms/tree | ratio")
    for name in args.datasets.split(","):
        data = load_split(name)
        X, (G, H) = data["X"], softmax_gradients(data["y"])
        hist, columns = NewtonData(X), NewtonData(X, histogram_density=None)
        for a, b in zip(grow_newton_forest(hist, G, H, params),
                        grow_newton_forest(columns, G, H, params)):
            for array in NewtonTree._ARRAYS:
                x, y = getattr(a, array), getattr(b, array)
                if not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
                    raise AssertionError(f"{name}: the trees differ in {array}")
        column_s = hist_s = np.inf
        for _ in range(args.repeats):
            column_s = min(column_s, per_tree_seconds(columns, G, H, params))
            hist_s = min(hist_s, per_tree_seconds(hist, G, H, params))
        print(f"{name} | {hist.histogram_features.size} of {X.shape[1]} | {column_s * 1e3:.2f} | "
              f"{hist_s * 1e3:.2f} | {hist_s / column_s:.2f}", flush=True)
        rows.append({"dataset": name, "histogram_features": int(hist.histogram_features.size),
                     "features": int(X.shape[1]), "column_scan_ms": column_s * 1e3,
                     "histograms_ms": hist_s * 1e3, "ratio": hist_s / column_s})
    write_json({"depth": args.depth, "repeats": args.repeats, "datasets": rows}, args.json)
    plot(rows, args.plot)
    print(f"\nwrote {args.json} and {args.plot}")


def plot(rows, path):
    """Milliseconds per tree, the column scan's beside the histograms', per dataset."""
    fig = figure_class()(figsize=(5, 3.5), layout="constrained")
    ax = fig.subplots()
    x = np.arange(len(rows))
    ax.bar(x - 0.2, [r["column_scan_ms"] for r in rows], 0.4, label="column scan")
    ax.bar(x + 0.2, [r["histograms_ms"] for r in rows], 0.4, label="histograms")
    ax.set_xticks(x, [r["dataset"] for r in rows])
    ax.set_ylabel("CPU ms per tree")
    ax.legend()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
