"""The paper's depth sweep (Table 10): adaptive's and Quick Boost's assessments under
AdaBoost at tree depths 1-5 (any dataset; the paper used W4A and A6A, 500 rounds).  The
benchmark itself is apsplit.experiments.depths.  From the repository root:

    python -m benchmarks.depths --data a8a --rows 11220      # the paper's A6A stand-in
    python -m benchmarks.depths --data satimage
"""

import argparse
import sys

from apsplit.experiments import depths, paper
from apsplit.experiments.report import require_plotting


def _depths(text):
    try:
        values = [int(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--depths needs integers like 1,2,3, got {text!r}") from None
    if not values or min(values) < 1 or len(set(values)) < len(values):
        raise argparse.ArgumentTypeError(f"--depths needs distinct integers >= 1, got {text!r}")
    return values


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.depths", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paper.add_sweep_arguments(parser, rounds_default=500, json_default="results/depths.json",
                              plot_default="results/depths.png", depth=False,
                              client=True)
    parser.add_argument("--depths", type=_depths, default=list(depths.DEPTHS),
                        help="comma-separated tree depths (default 1,2,3,4,5)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    require_plotting(parser)
    data = paper.sweep_data(parser, args)
    result = depths.run(data["X"], data["y"], data["name"], args.rounds, args.depths, args.client,
                        progress=not args.no_progress)
    depths.report(result, args.json, args.plot)
    return 0 if result["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
