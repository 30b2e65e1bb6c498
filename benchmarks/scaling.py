"""Scaling: per-tree fit time of depth-3 boosted trees as the rows grow from 10^3 to 2·10^5,
apsplit (each finder) against LightGBM, XGBoost exact and hist and scikit-learn's AdaBoost,
with one thread and every thread, in one run; the fitted exponent of time in n, apsplit's
memory per (row, feature), a log-log PNG.  The benchmark itself is
apsplit.experiments.scaling.  From the repository root:

    python -m benchmarks.scaling [--datasets higgs7k] [--data PATH --format svm|uci|tsv|npz|idx|kdd ...]
        [--sizes 1000,2000,...,224000] [--layouts dense,sparse] [--methods exhaustive,quick,adaptive]
        [--trees 10] [--repeats 3] [--threads 1,2] [--budget 60] [--labels native|odd-even]
        [--quick] [--json results/scaling.json] [--plot results/scaling.png]
"""

import argparse

from apsplit.experiments import scaling


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scaling", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    scaling.add_arguments(parser)
    args = parser.parse_args(argv)
    scaling.report(args, parser)


if __name__ == "__main__":
    main()
