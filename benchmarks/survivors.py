"""How many features the exhaustive search's prefilter leaves to the exact pass, per node,
as boosting goes on (apsplit.experiments.survivors).  From the repository root:

    python -m benchmarks.survivors --data higgs7k --rounds 30
    python -m benchmarks.survivors --data higgs7k --size 56000 --rounds 30   # jittered copies
"""

import argparse
import sys

from apsplit.experiments import paper, survivors
from apsplit.experiments.report import require_plotting
from apsplit.experiments.scaling import add_size_argument, pooled


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.survivors", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paper.add_sweep_arguments(parser, rounds_default=30, json_default="results/survivors.json",
                              plot_default="results/survivors.png", client=True)
    add_size_argument(parser)
    args = parser.parse_args(argv)
    require_plotting(parser)
    data = paper.sweep_data(parser, args)
    X, y = pooled(data["X"], data["y"], args.size)
    result = survivors.run(X, y, data["name"], args.rounds, args.depth, args.client)
    survivors.report(result, args.json, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
