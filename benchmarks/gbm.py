"""Gradient boosting: apsplit's exact Newton trees against XGBoost (exact, hist), LightGBM and
scikit-learn's HistGradientBoostingClassifier: the same objective, depth, rounds, learning rate
and lambda, one thread by default; fit seconds, test log loss and accuracy, every ratio
measured in one run, and whether apsplit's margins are XGBoost exact's.  The benchmark itself
is apsplit.experiments.gbm.  From the repository root:

    python -m benchmarks.gbm [--datasets satimage,a8a,higgs7k,agaricus,pendigits]
        [--data PATH --format svm|uci|tsv ...] [--rounds 100] [--depth 6] [--eta 0.3]
        [--lam 1] [--threads 1] [--repeats 1] [--quick] [--json results/gbm.json]
        [--clients goss,subsample0.5,colsample0.5,bagging0.5]
"""

import argparse

from apsplit.experiments import gbm


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gbm", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    gbm.add_arguments(parser)
    args = parser.parse_args(argv)
    gbm.report(args, parser)


if __name__ == "__main__":
    main()
