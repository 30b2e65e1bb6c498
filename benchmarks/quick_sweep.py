"""How Quick Boost's defaults were chosen: its assessments over a grid of
(initial_fraction, n_batches), under AdaBoost with depth-D trees for T rounds,
against adaptive's.  The benchmark itself is apsplit.experiments.sweep.  From
the repository root (the paper's two datasets, bundled with apsplit):

    python -m benchmarks.quick_sweep --data satimage
    python -m benchmarks.quick_sweep --data a8a --rows 11220
"""

import argparse
import sys

from apsplit.experiments import paper, sweep
from apsplit.experiments.report import require_plotting


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.quick_sweep", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paper.add_sweep_arguments(parser, rounds_default=40, json_default="results/quick-sweep.json",
                              plot_default="results/quick-sweep.png")
    args = parser.parse_args(argv)
    require_plotting(parser)
    data = paper.sweep_data(parser, args)
    result = sweep.run(data["X"], data["y"], data["name"], args.rounds, args.depth)
    sweep.report(result, args.json, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
