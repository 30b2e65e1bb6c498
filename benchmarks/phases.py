"""Where an exhaustive AdaBoost tree's time goes, phase by phase, at the root of a late
round and at every node of its tree, with the floor of the exact search (its histograms
and canonical sums), beside LightGBM's time per tree (apsplit.experiments.phases).  From
the repository root:

    python -m benchmarks.phases --data higgs7k --size 56000 --rounds 30
    python -m benchmarks.phases --data higgs7k --size 56000 --rounds 30 --threads 2
    python -m benchmarks.phases --data mnist-train-60000.npz --format npz --rows 7000 \
        --labels odd-even --rounds 20
"""

import argparse
import sys

from apsplit.experiments import paper, phases
from apsplit.experiments.report import count, require_plotting
from apsplit.experiments.scaling import LABELS, add_size_argument, odd_even, pooled


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.phases", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paper.add_sweep_arguments(parser, rounds_default=30, json_default="results/phases.json",
                              plot_default="results/phases.png")
    add_size_argument(parser)
    parser.add_argument("--repeats", type=count(1), default=5,
                        help="timed calls per phase, the least kept (default 5)")
    parser.add_argument("--threads", type=count(1), default=1,
                        help="threads of every phase, the tree and LightGBM (default 1)")
    parser.add_argument("--labels", choices=LABELS, default="native",
                        help="native: the classes as loaded; odd-even: integer labels by parity "
                             "(MNIST's odd against even digits, as benchmarks.scaling's)")
    args = parser.parse_args(argv)
    require_plotting(parser)
    data = paper.sweep_data(parser, args)
    X, y = pooled(data["X"], data["y"], args.size)
    try:
        if args.labels == "odd-even":
            y = odd_even(y)
        result = phases.run(X, y, data["name"], args.rounds, args.depth, repeats=args.repeats,
                            threads=args.threads)
    except ValueError as exc:
        parser.error(str(exc))
    phases.report(result, args.json, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
