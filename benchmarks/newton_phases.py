"""Where a boosting fit's time goes, by phase of the Newton grower.  From the repository root:

    python -m benchmarks.newton_phases [--datasets satimage,a8a,higgs7k,agaricus,pendigits]
        [--rounds 100] [--nthread 1] [--size ROWS]

``train`` (100 rounds, depth 6, eta 0.3, lambda 1, one tree per class and round) on each
bundled set, with a copy of ``kernels.newton_grow._grow`` (also in the round grower of
multi-class fits, ``kernels.newton_forest``) that reads a clock (numba's
``objmode``, a few microseconds a call) between its phases: the level statistics
(``level_stats`` and the nodes' weights), the scans (every feature's passes), and the
splits with the row moves; "rest" is the grower's other work (allocation, pruning,
compaction, the Python wrapper ``grow_newton_tree``, the clock calls), "outside" the
rest of ``train`` (gradients, margins, thresholds).  The copy is the source of ``_grow``
with the clock calls inserted at three lines, compiled with the built-in criterion:
the figures are shares of this run, a guide to what to speed up, not the engine's speed.
With ``--nthread 2`` beside a one-thread run they show which phases scale with threads;
``--size`` takes each set's rows shuffled, then jittered copies (``benchmarks.threads``'s).
"""

import argparse
import inspect
import time

import numpy as np
from numba import njit, objmode

from apsplit import criteria
from apsplit.adapters import DMatrix, train
from apsplit.experiments.scaling import row_pool
from apsplit.experiments.stock import load_split
from apsplit.kernels import newton_forest, newton_grow

PHASES = ("level_stats", "scans", "splits and moves")
_TOTALS = np.zeros(len(PHASES))

# (a line of _grow, the lines to put before it); phase i runs from clock i to clock i + 1
_MARKS = (
    ("        rows = Rows(gh, position)\n", "        t0 = _clock()\n"),
    ("        if depth == params.max_depth:\n", "        t1 = _clock()\n        _add(0, t1 - t0)\n"),
    ("        child_slot = np.full(m, -1, np.int64)", "        t2 = _clock()\n        _add(1, t2 - t1)\n"),
    ("        slot_node = next_slot_node\n", "        _add(2, _clock() - t2)\n"),
)


@njit
def _clock():
    with objmode(t="f8"):
        t = time.perf_counter()
    return t


@njit
def _add(phase, seconds):
    with objmode():
        _TOTALS[phase] += seconds


def _timed_grower():
    """The built-in grower, its ``_grow`` rebuilt from source with the clock calls."""
    source = inspect.getsource(newton_grow._grow)
    for line, before in _MARKS:
        if source.count(line) != 1:
            raise RuntimeError(f"newton_grow._grow changed: the line {line.strip()!r} is not "
                               f"found once; update benchmarks/newton_phases.py's marks")
        source = source.replace(line, before + line)
    # the built-in grower's globals: the criterion and its bound scanners
    env = dict(newton_grow.grow_newton.py_func.__globals__, _clock=_clock, _add=_add)
    exec(compile(source, newton_grow.__file__, "exec"), env)
    return njit(env["_grow"])


def boosting_problem(name, nthread=1, size=None):
    """(X, y, train's params) of a bundled set (``size``: its rows by ``scaling.row_pool``):
    benchmarks.gbm's settings (100 rounds are the caller's), logistic or softmax by the
    number of classes."""
    data = load_split(name)
    X, y = data["X"], data["y"]
    if size:
        X, y = row_pool(X, y, size)
    n_classes = int(max(y.max(), data["y_test"].max())) + 1
    params = {"objective": "multi:softprob" if n_classes > 2 else "binary:logistic",
              "max_depth": 6, "eta": 0.3, "lambda": 1.0, "min_child_weight": 1.0,
              "base_score": 0.5, "nthread": nthread}
    if n_classes > 2:
        params["num_class"] = n_classes
    return X, y, params


def run(name, rounds, nthread=1, size=None):
    X, y, params = boosting_problem(name, nthread, size)
    train(params, DMatrix(X, label=y), 1)  # compile
    _TOTALS[:] = 0.0
    start = time.perf_counter()
    bst = train(params, DMatrix(X, label=y), rounds)
    fit = time.perf_counter() - start
    grower = sum(h["seconds"] for h in bst.history)
    shares = list(_TOTALS) + [grower - _TOTALS.sum(), fit - grower]
    return fit, len(bst.trees), shares


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.newton_phases",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default="satimage,a8a,higgs7k,agaricus,pendigits")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--nthread", type=int, default=1, help="train's nthread (1)")
    parser.add_argument("--size", type=int, default=None,
                        help="rows: shuffled, then jittered copies (default as bundled)")
    args = parser.parse_args(argv)
    crit = criteria.get_criterion("newton")
    timed = _timed_grower()
    object.__setattr__(crit, "_grower", timed)  # one tree, and a round's trees (multi-class)
    object.__setattr__(crit, "_round", newton_forest.specialise(timed, "timed"))
    try:
        header = ["dataset", "trees", "fit s"] + list(PHASES) + ["rest of grower", "outside"]
        print(" | ".join(header))
        for name in args.datasets.split(","):
            fit, trees, shares = run(name, args.rounds, args.nthread, args.size)
            print(" | ".join([name, str(trees), f"{fit:.2f}"]
                             + [f"{s / fit:.0%}" for s in shares]), flush=True)
    finally:
        object.__setattr__(crit, "_grower", newton_grow.grow_newton)
        object.__setattr__(crit, "_round", newton_forest.grow_round_newton)


if __name__ == "__main__":
    main()
