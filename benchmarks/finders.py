"""Split finders on single nodes of real data under boosting weights.

Assessments and time of the exhaustive, quick and adaptive finders against the
weight-order lower bound, and an exhaustive Gini search against scikit-learn
(the benchmark itself is apsplit.bench).  From the repository root:

    python -m benchmarks.finders [--datasets satimage,a8a,higgs7k] [--rounds 20] [--quick]
"""

import argparse
from pathlib import Path

from apsplit import bench


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.finders", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default=",".join(bench.DEFAULT_DATASETS),
                        help=f"comma-separated, from {', '.join(bench.DATASETS)} "
                             f"(default {','.join(bench.DEFAULT_DATASETS)})")
    parser.add_argument("--data-dir", type=Path,
                        help="folder of the shared data files (default $APSPLIT_DATA, else ../shared/data)")
    bench.add_arguments(parser, json_default="results/finders.json", plot_default="results/finders.png")
    args = parser.parse_args(argv)
    datasets = [name.strip() for name in args.datasets.split(",") if name.strip()]
    unknown = sorted(set(datasets) - set(bench.DATASETS))
    if unknown or not datasets:
        parser.error(f"unknown datasets {unknown}; choose from {', '.join(bench.DATASETS)}")
    bench.report(args, datasets, args.data_dir)


if __name__ == "__main__":
    main()
