"""How Quick Boost's defaults were chosen: its assessments over a grid of
(initial_fraction, n_batches), under AdaBoost with depth-D trees for T rounds,
against adaptive's.  The benchmark itself is apsplit.sweep.  From the
repository root (the paper's two datasets):

    python -m benchmarks.quick_sweep --data ../shared/data/satimage.trn --format uci
    python -m benchmarks.quick_sweep --data ../shared/data/a8a.svm --format svm --rows 11220
"""

import argparse
import sys

from apsplit import paper, sweep
from apsplit.bench import _count
from apsplit.datasets import FORMATS


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.quick_sweep", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="the training data file")
    parser.add_argument("--format", choices=FORMATS, required=True)
    parser.add_argument("--rows", type=_count(1), help="keep the first N rows (default all)")
    parser.add_argument("--rounds", type=_count(1), default=40, help="boosting rounds (default 40)")
    parser.add_argument("--depth", type=_count(1), default=3, help="tree depth (default 3)")
    parser.add_argument("--json", default="results/quick-sweep.json")
    parser.add_argument("--plot", default="results/quick-sweep.png")
    args = parser.parse_args(argv)
    try:
        data = paper.first_rows(paper.load_data(args.data, args.format), args.rows)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    result = sweep.run(data["X"], data["y"], data["name"], args.rounds, args.depth)
    sweep.report(result, args.json, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
