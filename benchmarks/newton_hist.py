"""The histogram path of the Newton grower against the column scan, per tree, side by side.
From the repository root:

    python -m benchmarks.newton_hist [--datasets satimage,pendigits] [--depth 6] [--repeats 15]

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
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    main()
