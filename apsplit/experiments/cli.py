"""The ``apsplit`` command line."""

import argparse

from . import paper
from .loaders import load_satimage

COMPARE_ROUNDS = 100
COMPARE_QUICK_ROUNDS = 5


def main(argv=None):
    """Entry point of the ``apsplit`` console script; returns the exit status."""
    parser = argparse.ArgumentParser(prog="apsplit", description="Exact greedy-optimal splits "
                                     "that assess few (feature, example) pairs.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    compare = commands.add_parser(
        "compare", help="boost on the bundled satimage data with each split finder (the paper's benchmark)",
        description="The paper's benchmark (python -m benchmarks.paper) on the bundled satimage data "
                    "(4435 x 36, 6 classes): AdaBoost with depth-3 trees grown by the adaptive, quick "
                    "and exhaustive finders; total assessments, CPU seconds and training errors "
                    "against the weight-order lower bound, and a check that all finders grow the "
                    "same trees (exit status 1 if not).")
    paper.add_arguments(compare, data=False, rounds_default=COMPARE_ROUNDS,
                        quick_rounds=COMPARE_QUICK_ROUNDS, json_default="apsplit-compare.json",
                        plot_default="apsplit-compare.png")
    args = parser.parse_args(argv)
    X, y, classes = load_satimage()
    data = {"name": "satimage", "X": X, "y": classes[y], "X_test": None, "y_test": None}
    return paper.report(args, compare, data=data, rounds_default=COMPARE_ROUNDS,
                        quick_rounds=COMPARE_QUICK_ROUNDS)
