"""Lower bounds on the assessments any exact finder needs for one node (paper Sec. 4).

Both bounds charge the returned feature k* all n examples (boosting needs its
exact split) and, for every other feature k, the fewest examples that prove k
cannot beat the optimum E*:

weight_order  examples assessed in decreasing weight order: the smallest m
              with LB_k(m) >= E*, LB_k(m) being the bound the finders use
              (min over k's splits of the seen impurity; it grows with m, so
              a binary search finds m).
exact         examples in any order: for the error criterion, the smallest set
              M with sum_{i in M} w_i [stump j errs on i] >= E* for every
              threshold of k and every labelling of its two leaves, by integer
              programming (scipy.optimize.milp).  Meant for small nodes.

Since the weight-order prefix is one feasible M, exact <= weight_order; and
every finder here assesses at least weight_order (it prunes k only once
LB_k >= E*).  A rounding allowance of TOL * node weight is granted to E*.

newton_weight_order is the weight-order bound of a Newton (gradient/hessian)
node: the optimum's feature all n rows, every other feature k the least
prefix m of the node's rows in weight order on which the bound quick and
adaptive prune with proves that no candidate of k would be recorded against
the optimum (``kernels/newton_stops.py``, with the proof that every such
finder assesses at least that many); newton_tree_bound sums it over a grown
Newton tree's searched nodes.
"""

import math
from dataclasses import replace

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from . import validation as v
from .criteria import get_criterion
from .finders import check_problem, kernel_task
from .kernels import newton_search, newton_stops
from .newton import (DEFAULT_WEIGHT_ORDER, WEIGHT_ORDERS, NewtonData, NewtonParams, NewtonTree,
                     _check_gradient)
from .tree import node_orders
from .kernels.probe import run_probe
from .kernels.search import METHODS, TOL, run
from .kernels.state import Params

__all__ = ["weight_order", "exact", "node_weight_order", "node_stops", "node_exact", "tree_bound",
           "feature_interval", "newton_weight_order", "newton_node_stops", "newton_tree_bound"]


def _call(kernel, problem, *head):
    """``kernel(*head, data, work, task)`` of the problem on a checked-out workspace."""
    if problem.min_leaf > 1:
        raise ValueError("the lower bounds on assessments are defined without a minimum leaf "
                         f"size; got min_leaf={problem.min_leaf}")
    ds = problem.dataset
    with ds.workspace(problem.n_classes) as work:
        return kernel(*head, ds.kernel_data(), work, kernel_task(problem, np.sort(problem.order)))


def _optimum(problem):
    """(position of k*, E* in weight units) by exhaustive search; position -1 if no split."""
    found = _call(run, problem, METHODS["exhaustive"], Params())
    return found.position, found.score, found.node_weight


def _counts(problem, target):
    counts, _ = _call(run_probe, problem, 0, target, np.zeros(0, np.int64))
    return counts[:, 0].astype(np.int64)


def weight_order(ds, y, sample_weight=None, rows=None, features=None, criterion="error",
                 bounds="tight"):
    """Weight-order lower bound: n + sum_{k != k*} min{m : LB_k(m) >= E*}.

    LB_k is the lower bound of the finders' ``bounds``.  When no feature takes
    two values in the node, every (feature, example) pair must be seen to
    prove it, and the bound is n * len(features).
    """
    return node_weight_order(check_problem(ds, y, sample_weight, criterion, rows, features, False,
                                           bounds))


def node_weight_order(problem):
    """``weight_order`` of a validated Problem."""
    stops = node_stops(problem)
    if stops is None:
        return problem.order.size * problem.features.size
    return int(problem.order.size + stops.sum())


def node_stops(problem):
    """The stopping points min{m : LB_k(m) >= E*} of the features k != k* of a validated
    Problem, in feature order without k* (None when the node has no split)."""
    pos, score, node_weight = _optimum(problem)
    if pos < 0:
        return None
    return np.delete(_counts(problem, score - TOL * node_weight), pos)


def _min_cover(codes, y_ord, w_ord, n_classes, target, time_limit):
    """Fewest examples whose misclassified weight reaches ``target`` for every stump."""
    present = np.unique(codes)
    if present.size < 2:
        return 0
    rows = []
    for r in present[:-1]:
        left = codes <= r
        for cl in range(n_classes):
            for cr in range(n_classes):
                rows.append(np.where(left, y_ord != cl, y_ord != cr) * w_ord)
    A = np.array(rows)
    n = codes.size
    res = milp(np.ones(n), constraints=LinearConstraint(A, lb=target, ub=np.inf),
               integrality=np.ones(n), bounds=Bounds(0, 1),
               options={"time_limit": time_limit, "disp": False})
    if res.status == 0:
        return int(round(res.fun))
    dual = getattr(res, "mip_dual_bound", None)
    if dual is not None and np.isfinite(dual):
        return max(int(math.ceil(dual - 1e-9)), 0)
    raise RuntimeError(f"milp found no bound within {time_limit}s: {res.message}")


def exact(ds, y, sample_weight=None, rows=None, features=None, criterion="error", time_limit=10.0):
    """Exact lower bound (any assessment order), error criterion; ILP per feature.

    ``time_limit`` (seconds) applies to each feature's integer program; if it
    is reached, the solver's proven dual bound (still a valid lower bound) is
    used.  Cost grows quickly with the node size: meant for nodes of up to a
    few thousand examples.
    """
    problem = check_problem(ds, y, sample_weight, criterion, rows, features, False)
    return node_exact(problem, time_limit)


def node_exact(problem, time_limit=10.0):
    """``exact`` of a validated Problem."""
    if problem.criterion != "error":
        raise ValueError("the exact bound is an integer program over the error criterion; "
                         f"got {problem.criterion!r}")
    if problem.dataset.categorical[problem.features].any():
        raise ValueError("the exact bound's integer program covers threshold splits only; "
                         "it does not support categorical features")
    n, F = problem.order.size, problem.features.size
    pos, score, node_weight = _optimum(problem)
    if pos < 0:
        return n * F
    target = score - TOL * node_weight
    order = problem.order
    y_ord, w_ord = problem.y[order], problem.sample_weight[order]
    counts = _counts(problem, target)
    total = n
    for f, k in enumerate(problem.features):
        if f == pos or counts[f] == 0:
            continue
        total += _min_cover(problem.dataset.column_codes(k, order), y_ord, w_ord / node_weight,
                            problem.n_classes, target / node_weight, time_limit)
    return int(total)


NODE_BOUNDS = {"weight_order": node_weight_order, "exact": node_exact}


def tree_bound(problem, tree, kind="weight_order", **options):
    """Sum of a node bound over the nodes a tree's growth called the finder on.

    ``problem`` is the tree's root problem (rows in weight order); each node's
    rows are recovered by replaying the splits.  Compare with ``tree.assessments``.
    """
    if kind not in NODE_BOUNDS:
        raise ValueError(f"unknown lower bound {kind!r}; choose from {sorted(NODE_BOUNDS)}")
    bound = NODE_BOUNDS[kind]
    return sum(bound(replace(problem, order=order), **options)
               for _, order in node_orders(tree, problem))


def feature_interval(ds, y, sample_weight, feature, prefixes, rows=None, criterion="error",
                     bounds="tight", weight_ordered=False):
    """[LB, UB] on ``feature``'s best score after seeing each prefix of the weight order.

    Returns an array of shape (len(prefixes), 2), normalised by the node
    weight like ``Split.score``: the interval the finders prune with.
    """
    problem = check_problem(ds, y, sample_weight, criterion, rows, [feature], weight_ordered, bounds)
    prefixes = np.asarray(prefixes, np.int64)
    if prefixes.ndim != 1 or np.any(np.diff(prefixes) < 0) or prefixes.min() < 0 \
            or prefixes.max() > problem.order.size:
        raise ValueError(f"prefixes must be increasing lengths within 0..{problem.order.size}")
    out, node_weight = _call(run_probe, problem, 1, 0.0, prefixes)
    return out / node_weight


# -- Newton trees ------------------------------------------------------------------------------

_STOP_KERNELS = {}   # Criterion -> its compiled ``newton_stops._node_stops``


def _stops_kernel(criterion):
    crit = get_criterion(criterion)
    if crit.bounds is None:
        raise ValueError(f"the weight-order bound uses the bounds quick and adaptive prune with; "
                         f"criterion {criterion!r} has none (register it with bounds=)")
    if crit.built_in:
        return newton_stops.node_stops_newton
    if crit not in _STOP_KERNELS:
        label = crit._label()
        upper, lower = newton_search.user_gain_bounds(crit.bounds, label, crit.cache)
        _STOP_KERNELS[crit] = newton_stops.specialise(crit.score, upper, lower, label,
                                                      cache=crit.cache)
    return _STOP_KERNELS[crit]


class _NewtonNode:
    """Checked inputs of the Newton bounds: the kernel, (g, h) side by side, the rows'
    weight-order keys, the candidate features (ascending) and the kernel's Params."""

    def __init__(self, data, grad, hess, params, features, weight_order, criterion):
        if not isinstance(data, NewtonData):
            raise TypeError(f"data must be an apsplit.newton.NewtonData, got "
                            f"{type(data).__name__}")
        if not isinstance(params, NewtonParams):
            raise TypeError(f"params must be a NewtonParams, got {type(params).__name__}")
        if not isinstance(weight_order, str) or weight_order not in WEIGHT_ORDERS:
            raise ValueError(f"weight_order must be one of {sorted(WEIGHT_ORDERS)}, "
                             f"got {weight_order!r}")
        self.kernel = _stops_kernel(criterion)
        grad = _check_gradient(grad, "grad", data.n_rows)
        hess = _check_gradient(hess, "hess", data.n_rows)
        if np.any(hess < 0):
            raise ValueError(f"hess has negative entries (row {int(np.argmax(hess < 0))})")
        self.features = np.sort(v.check_indices(features, data.n_features, "features"))
        if data.categorical[self.features].any():
            raise ValueError(f"the weight-order bound covers threshold splits only, as quick and "
                             f"adaptive do; the candidates include the categorical features "
                             f"{self.features[data.categorical[self.features]].tolist()}")
        self.gh = np.stack([grad, hess], axis=1)
        self.key = np.ascontiguousarray(WEIGHT_ORDERS[weight_order](grad, hess), np.float64)
        self.data, self.params = data, params

    def stops(self, rows):
        """The NodeStops of the node of ``rows`` (ascending, checked)."""
        order = rows[np.argsort(-self.key[rows], kind="stable")]
        return self.kernel(self.data.columns(), self.data.rank_codes()[0], self.gh, rows, order,
                           self.features, self.params.kernel_params(rows.size))


def newton_node_stops(data, grad, hess, params, rows=None, features=None,
                      weight_order=DEFAULT_WEIGHT_ORDER, criterion="newton"):
    """The stopping points of a Newton node's features (``kernels.newton_stops.NodeStops``):
    ``stops[j]`` for ``features[j]`` (ascending), the optimum's position and gain."""
    node = _NewtonNode(data, grad, hess, params, features, weight_order, criterion)
    return node.stops(np.sort(v.check_indices(rows, data.n_rows, "rows")))


def newton_weight_order(data, grad, hess, params, rows=None, features=None,
                        weight_order=DEFAULT_WEIGHT_ORDER, criterion="newton"):
    """Weight-order lower bound of a Newton node: n + sum_{k != k*} stop(k).

    The node holds ``rows`` (default all) of ``data`` (``apsplit.newton.NewtonData``) with
    gradients ``grad`` and hessians ``hess``, split under ``params`` (``NewtonParams``) on
    ``features`` (default all; threshold splits), assessed in decreasing ``weight_order``
    key (``apsplit.newton.WEIGHT_ORDERS``).  stop(k) is the least prefix of the node's rows
    in weight order on which quick's and adaptive's bound proves that no candidate of k
    beats the exhaustive optimum by more than the tie window (n if none), and k* is the
    optimum's feature.  Every weight-order finder pruning with these bounds assesses at
    least this many (``kernels/newton_stops.py``); a node those finders do not search
    (fewer than two rows of h > 0, or too little hessian for two children) has bound 0.
    """
    return int(newton_node_stops(data, grad, hess, params, rows, features, weight_order,
                                 criterion).stops.sum())


def _searched_nodes(tree, n_rows):
    """(node, its rows ascending) of every node of a grown NewtonTree that was searched."""
    leaf = np.asarray(tree.row_leaf)
    if leaf.shape != (n_rows,):
        raise ValueError(f"the tree holds the leaves of {leaf.size} rows, the data has {n_rows}: "
                         f"pass the tree grown on this data")
    grown = np.flatnonzero(leaf >= 0)
    by_leaf = grown[np.argsort(leaf[grown], kind="stable")]
    starts = np.searchsorted(leaf[by_leaf], np.arange(tree.node_count + 1))
    rows_of = {}
    for node in range(tree.node_count - 1, -1, -1):   # children come after their parent
        if tree.feature[node] == -1:
            rows_of[node] = by_leaf[starts[node]:starts[node + 1]]
        else:
            rows_of[node] = np.sort(np.concatenate([rows_of.pop(tree.children_left[node]),
                                                    rows_of.pop(tree.children_right[node])]))
        if tree.node_features[node] > 0:
            yield node, rows_of[node]


def newton_tree_bound(data, grad, hess, params, tree, features=None,
                      weight_order=DEFAULT_WEIGHT_ORDER, criterion="newton"):
    """``newton_weight_order`` summed over the nodes a grown Newton tree searched.

    ``tree`` is the ``NewtonTree`` that ``grow_newton_tree(data, grad, hess, params,
    features=features, ...)`` returned (any method: they grow the same tree), without
    column sampling; each node's rows are read off its leaves (``row_leaf``).  Compare with
    quick's and adaptive's ``tree.assessments``.  With gamma > 0 the nodes pruned away are
    not in the tree, and the sum leaves them out (still a lower bound).
    """
    if not isinstance(tree, NewtonTree):
        raise TypeError(f"tree must be an apsplit.newton.NewtonTree, got {type(tree).__name__}")
    node = _NewtonNode(data, grad, hess, params, features, weight_order, criterion)
    total = 0
    for k, rows in _searched_nodes(tree, data.n_rows):
        if tree.node_features[k] != node.features.size or tree.n_node_samples[k] != rows.size:
            raise ValueError(f"node {k} of the tree searched {tree.node_features[k]} features "
                             f"of {tree.n_node_samples[k]} rows, not {node.features.size} of "
                             f"{rows.size}: pass the tree grown on these features, without "
                             f"column sampling")
        total += int(node.stops(rows).stops.sum())
    return total
