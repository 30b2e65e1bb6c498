"""Split finders on single nodes of real data under boosting weights.

Assessments and time of the exhaustive, quick and adaptive finders against the
weight-order lower bound, and an exhaustive Gini search against scikit-learn
(the benchmark itself is apsplit.experiments.nodes).  From the repository root:

    python -m benchmarks.finders [--datasets satimage,a8a,higgs7k] [--rounds 20] [--quick]
"""

import argparse

from apsplit.experiments import nodes
from apsplit.experiments.report import require_plotting


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.finders", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    nodes.add_dataset_arguments(parser)
    nodes.add_arguments(parser, json_default="results/finders.json", plot_default="results/finders.png")
    args = parser.parse_args(argv)
    require_plotting(parser)
    nodes.report(args, nodes.selected_datasets(parser, args))


if __name__ == "__main__":
    main()
