"""This checkout's Newton grower against another checkout's (before/after), in one process.
From the repository root:

    python -m benchmarks.newton_against /work/main [--datasets satimage,a8a,higgs7k,agaricus,pendigits]
        [--rounds 100] [--repeats 3]

The other checkout's ``apsplit`` package is copied to a temporary directory under another
name and imported beside this one; ``train`` (this checkout's, 100 rounds of depth 6, eta
0.3, lambda 1, one tree per class and round) then runs with either grower kernel, and
XGBoost exact (``nthread=1``) in the same loop, in a shuffled order each repeat.  Times
are CPU seconds of the process (``time.process_time``), the least of ``--repeats``: on a
shared machine they move far less than wall times.  "same trees": every tree's splits,
thresholds and leaf values are equal.  What differs is only the kernel; the Python
around it (``grow_newton_tree``, ``train``) is this checkout's for both.
"""

import argparse
import random
import shutil
import sys
import tempfile
import time
from importlib import import_module
from pathlib import Path

import numpy as np

from apsplit import criteria
from apsplit.adapters import DMatrix, train
from apsplit.kernels import newton_grow

from .newton_phases import boosting_problem

BASE = "apsplit_against"


def _other_grower(checkout):
    source = Path(checkout) / "apsplit"
    if not (source / "kernels" / "newton_grow.py").is_file():
        raise SystemExit(f"{checkout} has no apsplit/kernels/newton_grow.py")
    target = Path(tempfile.mkdtemp(prefix="newton_against_"))
    shutil.copytree(source, target / BASE, ignore=shutil.ignore_patterns("*.nbi", "*.nbc"))
    sys.path.insert(0, str(target))
    grow = import_module(f"{BASE}.kernels.newton_grow").grow_newton
    columns = import_module(f"{BASE}.kernels.newton_split").Columns

    def other(cols, *args):  # the columns as the other copy's own named tuple
        return grow(columns(*cols), *args)
    return other


def _same(a, b):
    return all(np.array_equal(s.feature, t.feature)
               and np.array_equal(s.threshold, t.threshold, equal_nan=True)
               and np.array_equal(s.value, t.value) for s, t in zip(a.trees, b.trees))


def run(name, kernels, rounds, repeats):
    import xgboost as xgb
    X, y, params = boosting_problem(name)
    crit = criteria.get_criterion("newton")
    times, models = {k: [] for k in [*kernels, "xgb"]}, {}
    for kernel in kernels.values():  # compile or load
        object.__setattr__(crit, "_grower", kernel)
        train(params, DMatrix(X, label=y), 1)
    for _ in range(repeats):
        order = list(times)
        random.shuffle(order)
        for k in order:
            start = time.process_time()
            if k == "xgb":
                xgb.train({**params, "tree_method": "exact", "nthread": 1},
                          xgb.DMatrix(X, label=y), rounds)
            else:
                object.__setattr__(crit, "_grower", kernels[k])
                models[k] = train(params, DMatrix(X, label=y), rounds)
            times[k].append(time.process_time() - start)
    object.__setattr__(crit, "_grower", newton_grow.grow_newton)
    best = {k: min(v) for k, v in times.items()}
    return best, _same(models["before"], models["after"])


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.newton_against",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkout", help="the other checkout's root (the 'before')")
    parser.add_argument("--datasets", default="satimage,a8a,higgs7k,agaricus,pendigits")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    kernels = {"before": _other_grower(args.checkout), "after": newton_grow.grow_newton}
    print("dataset | before s | after s | after / before | XGBoost exact s | before / xgb "
          "| after / xgb | same trees")
    for name in args.datasets.split(","):
        t, same = run(name, kernels, args.rounds, args.repeats)
        print(f"{name} | {t['before']:.2f} | {t['after']:.2f} | {t['after'] / t['before']:.2f} "
              f"| {t['xgb']:.2f} | {t['before'] / t['xgb']:.2f} | {t['after'] / t['xgb']:.2f} "
              f"| {'yes' if same else 'NO'}", flush=True)


if __name__ == "__main__":
    main()
