"""The paper's bounds against the tight ones, on single nodes of real data under boosting weights.

For each dataset, node (as in ``benchmarks.finders``: weights after
``rounds`` AdaBoost rounds) and criterion: the assessments and wall time of
Algorithm 1 as printed (``adaptive_paper``) with ``bounds="paper"`` and
``bounds="tight"``, and the weight-order lower bound on assessments computed
with each one's lower bound; ratios are tight / paper.  Upper bounds matter
only to finders that prune with them: the best-first ``adaptive`` uses lower
bounds alone, so ``bounds=`` does not change it (``--method adaptive`` shows
that, with its assessments).  From the repository root:

    python -m benchmarks.bounds [--datasets satimage,a8a,higgs7k] [--criteria entropy,gini,error]
                                [--method adaptive_paper]
                                [--rounds 20] [--repeats 5] [--json results/bounds.json]
                                [--plot results/bounds.png]
"""

import argparse

from apsplit.experiments import bounds


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bounds", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    bounds.add_arguments(parser)
    return bounds.report(parser.parse_args(argv), parser)


if __name__ == "__main__":
    main()
