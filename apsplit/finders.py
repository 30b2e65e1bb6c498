"""Split finders behind one interface, a registry of them, and ``find_split``.

A finder is any object with a ``find(problem) -> Split`` method.  The
built-in ones (``exhaustive``, ``quick``, ``adaptive``) run one numba kernel
per call.  ``register_finder`` adds a user's finder under a name, so that
every client (trees, boosting loops, estimators) can use it by that name.
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from . import validation as v
from .dataset import Dataset
from .kernels.categorical import MAX_SUBSET_CATEGORIES
from .kernels.criteria import BOUNDS, CRITERIA
from .kernels.coarse import new_histogram
from .kernels.search import EXHAUSTIVE, METHODS, run, run_exhaustive
from .kernels.state import Params, Task
from .kernels.stats import class_totals
from .parallel import check_threads
from .split import Split

__all__ = ["Problem", "Finder", "Exhaustive", "Quick", "Adaptive", "AdaptivePaper", "find_split",
           "register_finder", "available_finders", "get_finder", "weight_order"]


@dataclass
class Problem:
    """One node to split, already validated.

    order     the node's examples with positive weight, in decreasing weight order
              (ties in the order given); examples are assessed in this order.  A
              finder whose ``reads_weight_order`` is False may be given them in
              any order (the boosting clients then skip keeping the order)
    features  candidate feature columns (int64); ties go to the one listed first
    min_leaf  a split must leave at least this many examples in each child
    """

    dataset: Dataset
    y: np.ndarray
    sample_weight: np.ndarray
    order: np.ndarray
    features: np.ndarray
    n_classes: int
    criterion: str = "error"
    bounds: str = "tight"
    min_leaf: int = 1


class Finder:
    """Base of split finders: subclasses implement ``find(problem) -> Split``.

    ``reads_weight_order``: whether the split depends on the order of
    ``Problem.order`` (True unless a finder says otherwise).  ``n_threads``: the
    threads it searches on (1 unless a finder says otherwise); the clients bin X
    (``Dataset``) on as many."""

    name = "finder"
    reads_weight_order = True
    n_threads = 1

    def find(self, problem):
        raise NotImplementedError

    def __repr__(self):
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({params})"


def kernel_task(problem, index_order):
    """The kernels' ``Task`` of a Problem whose rows sorted are ``index_order``."""
    return Task(problem.order, index_order, problem.sample_weight, problem.y, problem.n_classes,
                problem.features, CRITERIA[problem.criterion], BOUNDS[problem.bounds],
                problem.min_leaf)


class QuickParams(NamedTuple):
    """Quick's fields of the kernels' ``Params``."""

    initial_fraction: float
    n_batches: int


class AdaptiveParams(NamedTuple):
    """Adaptive's fields of the kernels' ``Params`` (-1: the rule's floor / no column)."""

    min_step: float
    min_step_examples: float
    first_column: int


class _KernelFinder(Finder):
    def _params(self):
        """The method's parameters, a NamedTuple of some of ``kernels.state.Params``'s fields."""
        return ()

    def kernel_params(self):
        """The kernels' ``Params``: this method's, the others' defaults."""
        params = self._params()
        return Params(**params._asdict()) if params else Params()

    def find(self, problem):
        ds = problem.dataset
        task = kernel_task(problem, np.sort(problem.order))
        with ds.workspace(problem.n_classes) as work:
            method = METHODS[self.name]
            if method == EXHAUSTIVE:
                coarse = ds.coarse_bins()
                found = run_exhaustive(self.kernel_params(), ds.kernel_data(), work, task, coarse,
                                       new_histogram(coarse, problem.n_classes), False,
                                       class_totals(task.index_order, task.w, task.y,
                                                    problem.n_classes))
            else:
                found = run(method, self.kernel_params(), ds.kernel_data(), work, task)
        pos, left_rank, right_rank, score, total, children, node_weight, left_codes, scans = found
        if pos < 0:
            return Split.none(total, problem.n_classes, int(scans))
        k = int(problem.features[pos])
        score = float(score / node_weight)
        if ds.categorical[k]:
            return Split(k, np.nan, score, int(total), children[0], children[1], -1,
                         ds.feature_values(k)[left_codes], scans=int(scans))
        threshold, left_rank = ds.threshold(k, left_rank, right_rank)
        return Split(k, threshold, score, int(total), children[0], children[1], left_rank,
                     scans=int(scans))


class ExhaustiveParams(NamedTuple):
    """Exhaustive's field of the kernels' ``Params``."""

    n_threads: int


class Exhaustive(_KernelFinder):
    """Classic search: every feature assessed on every example of the node.

    n_threads  threads of the coarse histograms and of the survivors' exact scans
               (dense numeric features), or, where the coarse bins do not pay, of the
               plain search's features (default 1, -1: every core); the same split,
               bit for bit, for any count (``kernels/refine.py``, ``search.exhaustive``)

    It reads the node's rows in index order (``reads_weight_order`` False).
    """

    name = "exhaustive"
    reads_weight_order = False

    def __init__(self, n_threads=1):
        self.n_threads = check_threads(n_threads)

    def _params(self):
        return ExhaustiveParams(self.n_threads)


class Quick(_KernelFinder):
    """Quick Boost (Appel et al. 2013).

    initial_fraction  weight fraction every feature is first assessed on (default 0.4)
    n_batches         equal-weight batches for the remaining weight (default 50)

    The defaults minimised Quick Boost's assessments over initial_fraction in
    {0.02, 0.05, 0.1, 0.2, 0.4} x n_batches in {5, 10, 20, 50} (40 rounds of
    AdaBoost, depth 3, on satimage and on the first 11220 rows of a8a:
    ``python -m benchmarks.quick_sweep``); (0.1, 10) assessed 2.72x
    (satimage) and 1.13x (a8a) more.  The best cell is the grid's corner.
    """

    name = "quick"

    def __init__(self, initial_fraction=0.4, n_batches=50):
        self.initial_fraction = v.check_fraction(initial_fraction, "initial_fraction")
        self.n_batches = v.check_positive_int(n_batches, "n_batches")

    def _params(self):
        return QuickParams(float(self.initial_fraction), int(self.n_batches))


class Adaptive(_KernelFinder):
    """Adaptive pruning (Aziz et al. 2018), the arm with the smallest lower bound assessed first.

    min_step           smallest batch, as a fraction of the feature's unseen weight
                       (default None: 1/16)
    min_step_examples  smallest batch, as a fraction of its unseen examples
                       (default None: chosen per node from its weights, see below)
    first_feature      a column to assess fully first, whose score every other
                       feature is then raised to (default None); a warm start,
                       exact whatever the column (one not among the node's
                       candidate features is ignored).  Given the optimum's column
                       it shows what adaptive costs once the race for the
                       leader is won (``benchmarks.finders``' adaptive_oracle)

    Each batch ends with a re-scan of the feature's values; larger steps mean
    fewer re-scans and more assessments.  By default the examples floor is
    a = max(m / (16 (n - m)), 1/256) per node, m = min(2 n_eff, 0.55 n) the
    expected stopping point of a feature, n_eff = (sum w)^2 / sum w^2 the
    node's effective examples (``kernels.search.examples_floor``): a batch
    aims to overshoot a feature's weight-order bound by about 1/32 of it.  On
    satimage and a6a, under every client, adaptive then assesses within 2.4%
    of the bound in 0.60-0.91x Quick Boost's CPU time; on MNIST's first 2000
    rows within 1.0-2.8% (``python -m benchmarks.claim``, docs/paper.md).  A
    fixed fraction (0 = none) keeps a fixed floor (``python -m benchmarks.steps``).
    """

    name = "adaptive"

    def __init__(self, min_step=None, min_step_examples=None, first_feature=None):
        self.min_step = None if min_step is None else \
            v.check_fraction(min_step, "min_step", allow_zero=True)
        self.min_step_examples = None if min_step_examples is None else \
            v.check_fraction(min_step_examples, "min_step_examples", allow_zero=True)
        self.first_feature = None if first_feature is None else \
            v.check_non_negative_int(first_feature, "first_feature")

    def _params(self):
        return AdaptiveParams(*(-1.0 if x is None else float(x)
                                for x in (self.min_step, self.min_step_examples)),
                              -1 if self.first_feature is None else int(self.first_feature))


class AdaptivePaper(_KernelFinder):
    """Adaptive-Pruning Stump exactly as the paper's Algorithm 1 (leader = smallest UB)."""

    name = "adaptive_paper"


_REGISTRY = {"exhaustive": Exhaustive(), "quick": Quick(), "adaptive": Adaptive(),
             "adaptive_paper": AdaptivePaper()}


def kernel_finder_params(finder):
    """(method id, its ``Params``) of a built-in finder whose ``find`` is the kernel's,
    so that a whole tree can be grown in one kernel call; else None."""
    if isinstance(finder, _KernelFinder) and type(finder).find is _KernelFinder.find \
            and finder.name in METHODS:
        return METHODS[finder.name], finder.kernel_params()
    return None


def register_finder(name, finder, overwrite=False):
    """Make ``finder`` (an object with ``find(problem) -> Split``) usable as ``method=name``."""
    if not isinstance(name, str) or not name:
        raise TypeError("a finder's name must be a non-empty string")
    if not callable(getattr(finder, "find", None)):
        raise TypeError(f"{finder!r} has no find(problem) method")
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"a finder named {name!r} is already registered (pass overwrite=True)")
    _REGISTRY[name] = finder
    return finder


def available_finders():
    """Names usable as ``method=``."""
    return sorted(_REGISTRY)


def get_finder(method):
    """The finder for ``method``: a registered name or a finder object."""
    if isinstance(method, str):
        if method not in _REGISTRY:
            raise ValueError(f"unknown method {method!r}; available: {available_finders()}")
        return _REGISTRY[method]
    if callable(getattr(method, "find", None)):
        return method
    raise TypeError(f"method must be a registered name or an object with find(problem), got {method!r}")


def weight_order(sample_weight, rows):
    """``rows`` with positive weight, by decreasing weight (stable: ties keep their order)."""
    w = sample_weight[rows]
    order = rows[np.argsort(-w, kind="stable")]
    return order[: np.count_nonzero(w > 0)]


def check_problem(ds, y, sample_weight, criterion, rows, features, weight_ordered,
                  bounds="tight", n_classes=None, min_samples_leaf=1):
    """Validate a node's inputs once; returns a Problem."""
    v.check_dataset(ds)
    y, n_classes = v.check_labels(y, ds.n_rows, n_classes)
    w = v.check_weights(sample_weight, ds.n_rows)
    v.check_choice(criterion, CRITERIA, "criterion")
    v.check_choice(bounds, BOUNDS, "bounds")
    rows = v.check_indices(rows, ds.n_rows, "rows")
    features = v.check_indices(features, ds.n_features, "features")
    if weight_ordered:
        wr = w[rows]
        if np.any(wr[1:] > wr[:-1]):
            raise ValueError("weight_ordered=True but rows are not in decreasing weight order")
        order = rows[: np.count_nonzero(wr > 0)]
    else:
        order = weight_order(w, rows)
    if order.size == 0:
        raise ValueError("all sample weights of the node's rows are zero")
    check_categories(ds, features, n_classes, criterion)
    # above n_rows no split is admissible either way; the cap keeps the kernels' int64 exact
    min_leaf = min(v.check_positive_int(min_samples_leaf, "min_samples_leaf"), ds.n_rows)
    if min_leaf > 1 and ds.categorical[features].any():
        raise ValueError("min_samples_leaf > 1 is not supported with categorical features (their "
                         "exact partition rules do not hold under a minimum child size)")
    return Problem(ds, y, w, order, features, n_classes, criterion, bounds, min_leaf)


def check_categories(ds, features, n_classes, criterion):
    """Refuse categorical features whose best partition would need enumerating more than
    ``MAX_SUBSET_CATEGORIES`` categories (gini or entropy with more than two classes)."""
    if n_classes <= 2 or criterion == "error":
        return
    cat = features[ds.categorical[features] != 0]
    big = cat[ds.n_bins[cat] > MAX_SUBSET_CATEGORIES]
    if big.size:
        k = int(big[0])
        raise ValueError(
            f"categorical feature {k} has {int(ds.n_bins[k])} categories; with {n_classes} classes "
            f"the {criterion} criterion's exact split enumerates the partitions of the categories, "
            f"up to {MAX_SUBSET_CATEGORIES} (two classes or criterion='error' have no limit)")


def find_split(ds, y, sample_weight=None, criterion="error", method="adaptive", rows=None,
               features=None, weight_ordered=False, bounds="tight", min_samples_leaf=1):
    """Exact best split of the node ``rows`` over ``features``.

    Every method returns the score a brute-force search returns (and, with
    the built-in finders, the same split: ties go to the feature listed
    first, then the smallest threshold).  Rows with zero weight are left out
    of the search (they cannot change a score) and are not assessed.

    Parameters
    ----------
    ds : Dataset
    y : class codes 0..C-1, one per row of X
    sample_weight : non-negative weights, one per row (default: all ones)
    criterion : "error" | "entropy" | "gini"
    method : a registered finder name (see ``available_finders()``) or a finder object
    rows, features : int indices of the node's examples / candidate features (default all)
    weight_ordered : True if ``rows`` is already in decreasing weight order
        (as boosting clients keep it); skips the sort, checked in O(n)
    bounds : "tight" (default) or "paper" (the paper's): the bounds used to prune,
        stated and proved in ``apsplit.kernels.criteria``
    min_samples_leaf : the split must leave at least this many examples (with
        positive weight) in each child, as scikit-learn's; 1 (default): any split
    """
    finder = get_finder(method)
    problem = check_problem(ds, y, sample_weight, criterion, rows, features, weight_ordered, bounds,
                            min_samples_leaf=min_samples_leaf)
    return finder.find(problem)
