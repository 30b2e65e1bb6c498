"""Speed-up from one thread to several: apsplit's Newton and AdaBoost growers beside XGBoost
exact and LightGBM, the same models at every count (apsplit.experiments.threads).  From the
repository root:

    python -m benchmarks.threads --datasets higgs7k,a8a,satimage --rounds 20
    python -m benchmarks.threads --datasets higgs7k --size 56000 --rounds 20   # jittered copies
    python -m benchmarks.threads --datasets higgs7k --size 56000 --rounds 100 --repeats 3
"""

import argparse
import sys

from apsplit.experiments import threads
from apsplit.experiments.loaders import BUNDLED
from apsplit.experiments.paper import list_type
from apsplit.experiments.report import add_output_arguments, count, require_plotting
from apsplit.experiments.scaling import counts_type


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.threads", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", type=list_type("datasets", list(BUNDLED)),
                        default=["higgs7k", "a8a", "satimage"],
                        help="bundled datasets, comma-separated (default higgs7k,a8a,satimage)")
    parser.add_argument("--size", type=count(1),
                        help="rows: each dataset shuffled, then jittered copies of it as far "
                             "as needed (benchmarks.scaling's rows; default as bundled)")
    parser.add_argument("--rounds", type=count(1), default=20, help="boosting rounds (20)")
    parser.add_argument("--threads", type=counts_type("threads", 1), default=[1, 2],
                        help="thread counts, comma-separated, the first the reference "
                             "(default 1,2)")
    parser.add_argument("--repeats", type=count(1), default=2,
                        help="timed fits per cell, the least kept (2)")
    add_output_arguments(parser, "results/threads.json", "results/threads.png",
                         "the speed-ups")
    args = parser.parse_args(argv)
    require_plotting(parser)
    result = threads.run(args.datasets, args.rounds, args.threads, args.repeats, args.size)
    threads.report(result, args.json, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
