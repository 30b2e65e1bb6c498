"""quick and adaptive Newton trees inside a boosting run: assessments and CPU time over
exhaustive's, for every weight order.  From the repository root:

    python -m benchmarks.newton_pruning [--rounds 20] [--depths 3,6] [--repeats 2]
                                        [--datasets higgs7k,satimage,a8a] [--orders ...]
                                        [--bound-orders abs_grad_plus_hess | all | none]

Per dataset (higgs7k: binary; satimage: softmax, one tree per class and round,
i.e. one-vs-rest trees; a8a: binary, sparse; agaricus-cat and synthetic-cat:
binary, ``benchmarks.categorical``'s categorical data, its categorical columns
split by sets of codes) and depth, ``apsplit.adapters.train``
boosts ``rounds`` rounds (eta 0.3, lambda 1, min_child_weight 1) with each
method and weight order (``apsplit.newton.WEIGHT_ORDERS``).  Reported:

* assessments / exhaustive's: the (feature, row) pairs the split searches looked
  at, summed over the run (``Booster.history``);
* assessments / bound: the same over the weight-order lower bound of the weight
  order (``apsplit.lower_bounds.newton_tree_bound``, summed over the run's trees),
  for the orders of ``--bound-orders`` (default: the default order only; the
  bound tries every prefix of every node, O(n^2) per node: minutes on a8a);
* CPU / exhaustive's: the seconds in the tree grower (``history[...]["seconds"]``)
  summed over the run, the least of ``repeats`` runs, the contenders alternated
  within each repeat; one untimed round first per contender (compiling or
  loading the kernels);
* same: every tree's splits and gains equal exhaustive's (checked).
"""

import argparse

import numpy as np

from ..adapters import DMatrix, train
from ..lower_bounds import newton_tree_bound
from ..newton import DEFAULT_WEIGHT_ORDER, WEIGHT_ORDERS, NewtonParams, grow_newton_tree
from . import categorical
from .loaders import load_bundled
from .report import text_table

DATASETS = ("higgs7k", "satimage", "a8a")
CATEGORICAL = {"agaricus-cat": categorical.agaricus, "synthetic-cat": categorical.synthetic}


def _problem(name):
    """(training DMatrix, objective parameters) of a dataset name."""
    if name in CATEGORICAL:
        data = CATEGORICAL[name]()
        types = ["c" if j in data.categorical else "q" for j in range(data.X.shape[1])]
        return DMatrix(data.X, label=data.y, feature_types=types), \
            {"objective": "binary:logistic"}
    X, y, classes = load_bundled(name)
    if len(classes) > 2:
        codes = np.searchsorted(classes, y)
        return DMatrix(X, label=codes), {"objective": "multi:softprob",
                                         "num_class": len(classes)}
    return DMatrix(X, label=(y == classes[-1]).astype(float)), {"objective": "binary:logistic"}


def _contenders(orders=tuple(WEIGHT_ORDERS)):
    yield "exhaustive", None
    for method in ("quick", "adaptive"):
        for order in orders:
            yield method, order


def _fit(dtrain, params, rounds, method, order):
    extra = {"method": method} if order is None else {"method": method, "weight_order": order}
    bst = train({**params, **extra}, dtrain, rounds, verbose_eval=False)
    seconds = sum(r["seconds"] for r in bst.history)
    assessments = sum(r["assessments"] for r in bst.history)
    return bst, seconds, assessments


def run_bounds(ref, dtrain, tree_params, orders):
    """{order: the weight-order bound summed over the trees of ``ref``} (an exhaustive run
    of ``train``).  Each round's gradients are recomputed as ``train`` computed them (the
    float32 margin cache, the objective's float32 arithmetic), checked by growing each
    tree again and comparing it with ``ref``'s."""
    data = dtrain.binned()
    n, K = dtrain.num_row(), ref.n_outputs
    weights = np.ones(n) if dtrain.weight is None else dtrain.weight
    margin = np.tile(ref.base_margin.astype(np.float32), (n, 1))
    totals = dict.fromkeys(orders, 0)
    for r in range(ref.num_boosted_rounds()):
        grad, hess = ref.objective.gradient(margin.astype(np.float64), dtrain.label, weights)
        grad, hess = grad.reshape(n, K), hess.reshape(n, K)
        for k in range(K):
            tree = ref.trees[r * K + k]
            g, h = np.ascontiguousarray(grad[:, k]), np.ascontiguousarray(hess[:, k])
            again = grow_newton_tree(data, g, h, tree_params)
            if not (np.array_equal(again.feature, tree.feature)
                    and np.array_equal(again.gain, tree.gain)):
                raise RuntimeError(f"round {r}: the replayed gradients grow another tree")
            for order in orders:
                totals[order] += newton_tree_bound(data, g, h, tree_params, again,
                                                   weight_order=order)
            margin[:, k] += tree.xgboost_leaf_values()[tree.row_leaf]
    return totals


def run(datasets=DATASETS, depths=(3, 6), rounds=20, repeats=2, orders=tuple(WEIGHT_ORDERS),
        bound_orders=(DEFAULT_WEIGHT_ORDER,)):
    """Rows of (dataset, depth, method, order, assessment ratio, CPU ratio, same trees,
    assessments over the weight-order bound (NaN for the orders not in ``bound_orders``, and
    for the categorical datasets, which the bound does not take))."""
    rows = []
    for name in datasets:
        dtrain, objective = _problem(name)
        for depth in depths:
            params = {**objective, "max_depth": depth, "eta": 0.3, "lambda": 1.0,
                      "min_child_weight": 1.0, "base_score": 0.5, "nthread": 1}
            contenders = list(_contenders(orders))
            for method, order in contenders:
                _fit(dtrain, params, 1, method, order)
            best = {}
            for _ in range(repeats):
                for c in contenders:
                    bst, seconds, assessments = _fit(dtrain, params, rounds, *c)
                    old = best.get(c)
                    best[c] = (bst, min(seconds, old[1]) if old else seconds, assessments)
            ref, ref_seconds, ref_assessments = best[("exhaustive", None)]
            tree_params = NewtonParams(max_depth=depth, learning_rate=0.3, reg_lambda=1.0,
                                       min_child_weight=1.0)
            # the weight-order bound does not take categorical features
            bounded = [] if name in CATEGORICAL else [o for o in orders if o in bound_orders]
            bounds = run_bounds(ref, dtrain, tree_params, bounded)
            for c in contenders[1:]:
                bst, seconds, assessments = best[c]
                same = all(np.array_equal(a.feature, b.feature) and np.array_equal(a.gain, b.gain)
                           for a, b in zip(ref.trees, bst.trees))
                rows.append({"dataset": name, "depth": depth, "method": c[0], "order": c[1],
                             "assessments": assessments / ref_assessments,
                             "cpu": seconds / ref_seconds, "same": same,
                             "exhaustive_seconds": ref_seconds,
                             "bound": assessments / bounds[c[1]] if c[1] in bounds else np.nan,
                             "exhaustive_bound": ref_assessments / bounds[c[1]]
                             if c[1] in bounds else np.nan})
    return rows


def format_rows(rows):
    table = [[r["dataset"], str(r["depth"]), r["method"], r["order"], f"{r['assessments']:.3f}",
              "-" if np.isnan(r["bound"]) else f"{r['bound']:.3f}",
              "-" if np.isnan(r["exhaustive_bound"]) else f"{r['exhaustive_bound']:.3f}",
              f"{r['cpu']:.2f}", "yes" if r["same"] else "NO"] for r in rows]
    return text_table(["dataset", "depth", "method", "weight order", "assessments / exh.",
                       "/ bound", "exh. / bound", "CPU / exh.", "same trees"], table, 4)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS),
                        help=f"comma-separated, of {', '.join(DATASETS + tuple(CATEGORICAL))}")
    parser.add_argument("--depths", default="3,6")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--orders", default=",".join(WEIGHT_ORDERS),
                        help="the weight orders of quick and adaptive (comma-separated)")
    parser.add_argument("--bound-orders", default=DEFAULT_WEIGHT_ORDER,
                        help="the weight orders whose lower bound is computed (comma-separated, "
                             "'all' or 'none')")
    args = parser.parse_args(argv)
    depths = tuple(int(d) for d in args.depths.split(","))
    bound_orders = {"all": tuple(WEIGHT_ORDERS), "none": ()}.get(
        args.bound_orders, tuple(args.bound_orders.split(",")))
    for name in args.datasets.split(","):   # a table per dataset, as it is measured
        print(format_rows(run([name], depths, args.rounds, args.repeats,
                              tuple(args.orders.split(",")), bound_orders)), flush=True)
