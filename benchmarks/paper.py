"""Reproduce the paper's Tables 2-3 and Figures 1-2 (Aziz et al. 2018) on any dataset.

Boosts depth-D trees for T rounds with every client and split finder, and
reports total assessments, CPU seconds, training (and test) errors, the
improvement of adaptive over Quick Boost, and the lower bounds on the
assessments; checks that every finder grew the same trees (exit status 1 if
not).  The benchmark itself is apsplit.experiments.paper.  From the repository
root (``--data`` takes a file, or a dataset bundled with apsplit by name):

    python -m benchmarks.paper --data a8a --rows 11220 \\
        --depth 3 --rounds 500 --clients adaboost,lazy0.5,lazy0.9,trim0.9,trim0.99 \\
        --json results/a6a.json --plot results/a6a.png

Clients: adaboost (AdaBoost/SAMME), lazyF (LazyBoost, a random fraction F of
the features each round), trimM (weight trimming: the heaviest examples
holding a fraction M of the weight).
"""

import argparse
import sys

from apsplit.experiments import paper


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.paper", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paper.add_arguments(parser, data=True, rounds_default=500, quick_rounds=10,
                        json_default="results/paper.json", plot_default="results/paper.png")
    args = parser.parse_args(argv)
    return paper.report(args, parser, rounds_default=500, quick_rounds=10)


if __name__ == "__main__":
    sys.exit(main())
