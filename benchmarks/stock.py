"""apsplit's AdaBoost against the stock libraries on real data.

scikit-learn's AdaBoostClassifier with its DecisionTreeClassifier (dense
float64, dense float32 and, for sparse data, CSC input) and with apsplit's
APTreeClassifier; APBoostClassifier; and, for context (gradient boosting,
not AdaBoost), XGBoost exact and hist and LightGBM when installed.  Fit
seconds, training and test accuracy, assessments, the ratio to
scikit-learn's fastest input, and whether the staged training accuracies
follow scikit-learn's AdaBoost round by round.  The benchmark itself is
apsplit.experiments.stock.  From the repository root:

    python -m benchmarks.stock [--datasets satimage,a8a,higgs7k,agaricus,pendigits]
        [--rounds 100] [--depth 3] [--criterion gini] [--methods adaptive,exhaustive] [--quick]
"""

import argparse

from apsplit.experiments import stock


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stock", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    stock.add_arguments(parser)
    args = parser.parse_args(argv)
    stock.report(args, parser)


if __name__ == "__main__":
    main()
