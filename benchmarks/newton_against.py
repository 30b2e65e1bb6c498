"""This checkout's boosting fits against another checkout's (before/after), side by side.
From the repository root:

    python -m benchmarks.newton_against /work/main [--datasets satimage,a8a,higgs7k,agaricus,pendigits]
        [--rounds 100] [--repeats 3]

Each checkout's ``train`` (100 rounds of depth 6, eta 0.3, lambda 1, one tree per class
and round) runs in a worker process of its own, started in that checkout (its
``apsplit`` and ``apsplit.adapters``: kernels and the Python around them), and XGBoost
exact (``nthread=1``) in a third; the three fits of a repeat run one after the other in
a shuffled order.  Times are CPU seconds of the fit in its process
(``time.process_time``), the least of ``--repeats``: on a shared machine they move far
less than wall times.  "same trees": a digest of every tree's splits, thresholds and
leaf values is equal in the two checkouts.
"""

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

from apsplit.optional import require

from .newton_phases import boosting_problem

# Run by each worker in its checkout: reads "<library> <dataset> <rounds> <params json>"
# lines, fits once (after one untimed round, which compiles or loads the kernels) and
# answers {"seconds": CPU seconds, "digest": of the trees}.
_WORKER = r'''
import hashlib, json, sys, time
import numpy as np
from apsplit.experiments.stock import load_split

warm = set()
for line in sys.stdin:
    library, name, rounds, params = line.split(" ", 3)
    params = json.loads(params)
    data = load_split(name)
    X, y = data["X"], data["y"]
    digest = ""
    if library == "xgboost":
        import xgboost as xgb
        fit = lambda n: xgb.train({**params, "tree_method": "exact", "nthread": 1},
                                  xgb.DMatrix(X, label=y), n)
    else:
        from apsplit.adapters import DMatrix, train
        fit = lambda n: train(params, DMatrix(X, label=y), n)
    if (library, name) not in warm:
        fit(1)
        warm.add((library, name))
    start = time.process_time()
    model = fit(int(rounds))
    seconds = time.process_time() - start
    if library != "xgboost":
        h = hashlib.sha1()
        for tree in model.trees:
            for a in (tree.feature, tree.threshold, tree.value):
                h.update(np.ascontiguousarray(a).tobytes())
        digest = h.hexdigest()
    print(json.dumps({"seconds": seconds, "digest": digest}), flush=True)
'''


class Worker:
    """A Python process in ``checkout`` running ``_WORKER``."""

    def __init__(self, checkout):
        checkout = Path(checkout).resolve()
        if not (checkout / "apsplit" / "kernels" / "newton_grow.py").is_file():
            raise SystemExit(f"{checkout} has no apsplit/kernels/newton_grow.py")
        self.process = subprocess.Popen([sys.executable, "-c", _WORKER], cwd=checkout,
                                        env={**os.environ, "PYTHONPATH": str(checkout)},
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)

    def fit(self, library, name, rounds, params):
        self.process.stdin.write(f"{library} {name} {rounds} {json.dumps(params)}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"the worker stopped while fitting {name} ({library})")
        return json.loads(answer)

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def run(name, workers, rounds, repeats):
    """(least CPU seconds per worker name, the two checkouts grew the same trees)."""
    params = boosting_problem(name)[2]
    times = {k: [] for k in workers}
    digests = {}
    for _ in range(repeats):
        order = list(workers)
        random.shuffle(order)
        for k in order:
            out = workers[k].fit("xgboost" if k == "xgb" else "apsplit", name, rounds, params)
            times[k].append(out["seconds"])
            digests[k] = out["digest"]
    return {k: min(v) for k, v in times.items()}, digests["before"] == digests["after"]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.newton_against",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkout", help="the other checkout's root (the 'before')")
    parser.add_argument("--datasets", default="satimage,a8a,higgs7k,agaricus,pendigits")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    require("xgboost", "this benchmark")  # its third worker fits XGBoost
    here = Path(__file__).resolve().parent.parent
    workers = {"before": Worker(args.checkout), "after": Worker(here), "xgb": Worker(here)}
    try:
        print("dataset | before s | after s | after / before | XGBoost exact s | before / xgb "
              "| after / xgb | same trees")
        for name in args.datasets.split(","):
            t, same = run(name, workers, args.rounds, args.repeats)
            print(f"{name} | {t['before']:.2f} | {t['after']:.2f} "
                  f"| {t['after'] / t['before']:.2f} | {t['xgb']:.2f} "
                  f"| {t['before'] / t['xgb']:.2f} | {t['after'] / t['xgb']:.2f} "
                  f"| {'yes' if same else 'NO'}", flush=True)
    finally:
        for worker in workers.values():
            worker.close()


if __name__ == "__main__":
    main()
