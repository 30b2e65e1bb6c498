"""The README's own split criterion ("significant") against XGBoost's Newton gain, in test log loss.

    python -m benchmarks.criterion [--datasets higgs7k,a8a,satimage] [--rounds 200] [--depth 6]

The criterion is Newton's score of only the part of a child's gradient sum G
beyond Z standard errors: ``T(G)^2 / (H + lambda)`` with the soft threshold
``T(G) = sign(G) max(|G| - Z sqrt(H), 0)``, and the matching leaf weight
``-T(G) / (H + lambda)``.  Under the logistic loss a row's gradient p - y has
variance p (1 - p), its hessian, when the label is drawn at the current
prediction: sqrt(H) is then the standard error of G over the child's rows (unit
sample weights), and a child has a non-zero score only if its residual is
significant at Z.  It is Newton's L1 regularisation with an alpha that grows
with the child, Z sqrt(H) in place of a constant (the same derivation gives
the score as the loss reduction at that weight: alpha is constant within a leaf).

Each configuration boosts ``rounds`` trees of depth ``depth`` (eta 0.3, lambda 1,
``binary:logistic``) with ``apsplit.adapters.train``: Newton (XGBoost's gain),
Newton with ``alpha`` (a constant L1 threshold, the nearest built-in), and the
README's criterion.  Test data: the dataset's test file (higgs7k), else a
stratified held-out 20% (``experiments.stock.load_split``); satimage is class 3
against the rest.  Printed: the test log loss after ``rounds`` rounds, the best
round's, the mean leaves per tree, and the fit seconds.
"""

import argparse
import math
import time

import numba
import numpy as np

from .. import available_criteria, register_criterion
from ..adapters import DMatrix, train
from .loaders import BUNDLED
from .report import text_table
from .stock import load_split

NAME = "significant"
Z = 1.0  # standard errors, as in the README
DATASETS = ("higgs7k", "a8a", "satimage")
POSITIVE = {"satimage": 3}  # one class against the rest for multi-class sets


@numba.njit
def significant_score(G, H, params):
    """The README's criterion: Newton's score of the gradient sum beyond Z sqrt(H)."""
    t = abs(G) - Z * math.sqrt(H)
    if H <= 0.0 or t <= 0.0:
        return 0.0
    return t * t / (H + params.reg_lambda)


@numba.njit
def significant_weight(G, H, params):
    """The leaf weight whose loss reduction ``significant_score`` is."""
    t = abs(G) - Z * math.sqrt(H)
    if H <= 0.0 or t <= 0.0:
        return 0.0
    return -math.copysign(t, G) / (H + params.reg_lambda)


def register(cache=False):
    """Register the criterion as "significant" (unless a criterion of that name is);
    ``cache``: ``register_criterion``'s."""
    if NAME not in available_criteria():
        register_criterion(NAME, significant_score, significant_weight, cache=cache)
    return NAME


def _binary(name):
    split = load_split(name)
    positive = POSITIVE.get(name, 1)
    return (split["X"], (split["y"] == positive).astype(float), split["X_test"],
            (split["y_test"] == positive).astype(float))


def run_dataset(name, rounds, depth, alpha):
    """Rows of (configuration, log loss at ``rounds``, best log loss, best round, leaves per
    tree, fit seconds) on one dataset."""
    X, y, X_test, y_test = _binary(name)
    dtrain, dtest = DMatrix(X, label=y), DMatrix(X_test, label=y_test)
    base = {"objective": "binary:logistic", "max_depth": depth, "eta": 0.3, "lambda": 1.0,
            "base_score": 0.5, "eval_metric": "logloss", "nthread": 1}
    configs = [("newton", {}), (f"newton, alpha {alpha:g}", {"alpha": alpha}),
               (f"{register()} (Z {Z:g})", {"criterion": NAME})]
    rows = []
    for label, extra in configs:
        train({**base, **extra}, dtrain, 1, verbose_eval=False)  # compile or load the grower
        result = {}
        start = time.perf_counter()
        bst = train({**base, **extra}, dtrain, rounds, evals=[(dtest, "test")],
                    evals_result=result, verbose_eval=False)
        seconds = time.perf_counter() - start
        loss = np.asarray(result["test"]["logloss"])
        leaves = np.mean([int(t.is_leaf.sum()) for t in bst.trees])
        rows.append((label, loss[-1], loss.min(), int(loss.argmin()) + 1, leaves, seconds))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.criterion", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--alpha", type=float, default=10.0, help="Newton's constant L1 row")
    args = parser.parse_args(argv)
    names = [n for n in args.datasets.split(",") if n]
    unknown = sorted(set(names) - set(BUNDLED))
    if unknown:
        parser.error(f"unknown datasets {unknown}; choose from {sorted(BUNDLED)}")
    if args.rounds < 1 or args.depth < 1:
        parser.error("--rounds and --depth must be >= 1")
    header = ["dataset", "criterion", f"log loss @{args.rounds}", "best log loss", "best round",
              "leaves / tree", "fit s"]
    table = []
    for name in names:
        for label, last, best, at, leaves, seconds in run_dataset(name, args.rounds, args.depth,
                                                                  args.alpha):
            table.append([name, label, f"{last:.4f}", f"{best:.4f}", str(at), f"{leaves:.1f}",
                          f"{seconds:.2f}"])
    print(text_table(header, table, 2))


if __name__ == "__main__":
    main()
