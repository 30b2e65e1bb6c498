"""The AdaBoost-family engine's speed in two checkouts, side by side.

Times ``apsplit.find_split`` per method (exhaustive, quick, adaptive) on the
root of satimage, a8a (sparse) and higgs7k under 20 rounds of AdaBoost
weights, a depth-3 ``grow_tree`` per method on satimage, a 20-round
``APBoostClassifier`` fit (exhaustive, depth 3) on each dataset and one
(adaptive) on satimage.  Each checkout runs
in its own process (numba's disk cache warm: one untimed call first); the
processes alternate, ``--runs`` times, and every figure is the least time over
all calls of a checkout.  The checkouts' results (split, score, assessments,
scans; the trees' arrays; the fit's predicted probabilities) are compared bit
for bit.  From the repository root:

    python -m benchmarks.engine_speed --against /tmp/apsplit-main [--runs 3] [--repeats 5]

(``git archive main | tar -x -C /tmp/apsplit-main`` makes the other checkout
without touching main's worktree.)
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

DATASETS = ("satimage", "a8a", "higgs7k")
METHODS = ("exhaustive", "quick", "adaptive")


def _least(call, repeats, results, case):
    results[case] = repr(_summary(call()))  # compiles or loads the cache
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def _summary(out):
    """A found split's, a tree's or a fitted model's results, for the comparison."""
    if hasattr(out, "node_assessments"):
        return [getattr(out, name).tobytes() for name in ("feature", "threshold", "value",
                                                          "node_assessments")]
    if hasattr(out, "scans"):
        return (out.feature, out.threshold, out.score, out.assessments, out.scans)
    return out._probabilities.tobytes()


def measure(repeats):
    """({case: least seconds}, {case: results}) in the checkout this process imports
    apsplit from."""
    import apsplit
    from apsplit.adapters.sklearn import APBoostClassifier
    from apsplit.experiments.loaders import load_bundled
    from apsplit.experiments.nodes import boosting_weights

    out, results = {}, {}
    for name in DATASETS:
        X, y, _ = load_bundled(name)
        ds = apsplit.Dataset(X)
        C = int(y.max()) + 1
        w = boosting_weights(ds, y, C, 20)
        for method in METHODS:
            case = f"find_split {name} {method}"
            out[case] = _least(lambda: apsplit.find_split(ds, y, w, method=method), repeats,
                               results, case)
        exhaustive = APBoostClassifier(n_estimators=20, max_depth=3, method="exhaustive")
        case = f"APBoost fit {name} exhaustive"
        out[case] = _least(lambda: _fitted(exhaustive, X, y), repeats, results, case)
        if name == "satimage":
            for method in METHODS:
                case = f"grow_tree {name} {method}"
                out[case] = _least(lambda: apsplit.grow_tree(ds, y, w, 3, "error", method),
                                   repeats, results, case)
            model = APBoostClassifier(n_estimators=20, max_depth=3, method="adaptive")
            case = f"APBoost fit {name} adaptive"
            out[case] = _least(lambda: _fitted(model, X, y), max(1, repeats // 2), results, case)
    return out, results


def _fitted(model, X, y):
    model.fit(X, y)
    model._probabilities = np.asarray(model.predict_proba(X))
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.engine_speed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", required=True, help="the other checkout's root")
    parser.add_argument("--runs", type=int, default=3, help="alternations (default 3)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per case and run")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.repeats)))
        return
    roots = {"this": os.getcwd(), "other": os.path.abspath(args.against)}
    best = {label: {} for label in roots}
    results = {}
    for _ in range(args.runs):
        for label, root in roots.items():
            run = subprocess.run([sys.executable, os.path.abspath(__file__), "--against", root,
                                  "--worker", "--repeats", str(args.repeats)], cwd=root,
                                 env=dict(os.environ, PYTHONPATH=root), check=True,
                                 capture_output=True, text=True)
            seconds, found = json.loads(run.stdout.splitlines()[-1])
            for case, value in seconds.items():
                best[label][case] = min(value, best[label].get(case, float("inf")))
            results.setdefault(label, found)
    print(f"{'case':36s} {'this ms':>9s} {'other ms':>9s} {'this/other':>10s}")
    for case, seconds in best["this"].items():
        other = best["other"][case]
        print(f"{case:36s} {1e3 * seconds:9.2f} {1e3 * other:9.2f} {seconds / other:10.3f}")
    differ = [case for case in results["this"] if results["this"][case] != results["other"][case]]
    print("results bit-identical in every case" if not differ else f"results differ: {differ}")


if __name__ == "__main__":
    main()
