"""The ``apsplit`` command line."""

import argparse

from . import bench


def main(argv=None):
    """Entry point of the ``apsplit`` console script."""
    parser = argparse.ArgumentParser(prog="apsplit", description="Exact greedy-optimal splits "
                                     "that assess few (feature, example) pairs.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    compare = commands.add_parser(
        "compare", help="compare the split finders on the bundled satimage data",
        description="Assessments and time of the exhaustive, quick and adaptive finders on the "
                    "bundled satimage data under AdaBoost weights, against the weight-order lower "
                    "bound and scikit-learn.")
    bench.add_arguments(compare, json_default="apsplit-compare.json", plot_default="apsplit-compare.png")
    args = parser.parse_args(argv)
    bench.report(args, datasets=["satimage"])
    return 0
