"""Boosting loops that grow each round's tree with an apsplit finder (one search per node).

A round: take the current weights (their order kept from the last round) ->
grow a tree with the chosen finder on the round's rows and features ->
weight it by alpha -> update the weights and restore their order by one O(n)
merge (``apsplit.kernels.order``).  Only the first round sorts.  A finder that
reads no weight order (``Finder.reads_weight_order``: the exhaustive one) gets
the rows of positive weight in index order instead, and no round merges.

Clients differ only in what the finder sees each round:

AdaBoost             every example with positive weight, every feature
LazyBoost            a uniformly random subset of the features (Escudero et al. 2001)
WeightTrimmingBoost  the heaviest examples holding a fraction ``mass`` of the
                     weight (Friedman et al. 1998): a prefix of the weight order

and any of them takes a ``sampler`` (``adapters.sampling``, the Newton loop's):
``Subsample`` / ``Bagging`` draw the rows the round's tree is grown on, and
``ColumnSample(bytree)`` its features (``Chain`` combines them; a user's
``Sampler`` works too).  It sees the weights as its g and h ((n, 1) arrays) and
may not change them, nor ask for per-level or per-node draws: GOSS (which
rescales) and ``ColumnSample(bylevel, bynode)`` are refused, and so is a draw
without an example of positive weight.  The round's error and the reweighting
still cover every example.

Conventions (C classes, weighted error e of the round's tree on all examples):

algorithm="samme"     alpha = lr (ln((1-e)/e) + ln(C-1)), misclassified weights
                      times exp(alpha): scikit-learn's AdaBoostClassifier
algorithm="textbook"  alpha = lr (ln((1-e)/e) + ln(C-1)) / 2: for two classes
                      Freund & Schapire's alpha = 1/2 ln((1-e)/e), weights times
                      exp(-alpha y h(x)); half of SAMME's alpha, same weights

Each alpha is the line-search minimiser, along the new tree, of the
exponential loss  L(alpha) = sum_i w0_i exp(-sum_t alpha_t m_it)  with margin
m_it = s (1[h_t(x_i) = y_i] - 1/C), s = 1 (samme) or 2 (textbook): for two
classes, exp(-y F(x) / 2) resp. exp(-y F(x)), F = sum_t alpha_t h_t(x) with
h_t in {-1, +1}.  ``refit_weights=True`` then minimises L over all alphas
jointly (convex; L-BFGS on log L, from the greedy alphas, so the loss never
rises).  L has a finite minimiser unless some direction d of the alphas
gives every example a margin sum_t d_t m_it >= 0, one of them > 0 (checked
by a linear program first): then L decreases forever along d and the greedy
alphas are kept, with a RuntimeWarning.  For two classes that means a
signed combination of the trees gets no training example wrong (and at
least one right); for C > 2 it is common (a margin is positive as soon as
an example gets more than 1/C of the weighted votes), so re-fitting is
mainly useful for two classes.

Predictions follow the weighted votes sum_t alpha_t (1[h_t = k] - 1[h_t != k]
/ (C-1)); decision_function divides them by sum_t |alpha_t| (scikit-learn
divides by sum_t alpha_t: the same while every alpha is positive).

Stopping rules (``stopping=``):

"sklearn"   scikit-learn's code: a perfect tree (e = 0) gets alpha = 1 and
            ends boosting; a tree with e >= 1 - 1/C is dropped and ends it
            (an error if it is the first); weights are floored at machine
            epsilon each round (rows of weight 0 stay 0).  For C > 2 a tree
            with 1/2 <= e < 1 - 1/C is kept with a positive alpha.
"textbook"  stop when e reaches 1/2 (that tree is dropped) or 0 (that tree
            is kept with an alpha larger than the sum of all earlier |alpha|,
            so the ensemble agrees with it).
"none"      keep going whatever e: a tree with 1 - 1/C <= e < 1 gets a
            non-positive alpha; only e = 0 (infinite alpha) ends boosting,
            as in "textbook", and e = 1 (alpha -inf) drops the tree and ends
            it.
"""

import math
import time
import warnings
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog, minimize
from scipy.special import logsumexp, softmax
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from .. import lower_bounds
from .. import validation as v
from ..dataset import Dataset
from ..finders import check_problem, get_finder, kernel_finder_params
from ..kernels.boost import add_round_votes, add_votes, floor_weights, reweight, tree_misses
from ..kernels.criteria import BOUNDS, CRITERIA
from ..kernels.order import merge_groups
from ..tree import grow_from_problem
from .export import Exportable, vote_booster
from .sampling import GOSS, check_sample

__all__ = ["Boosting", "AdaBoost", "LazyBoost", "WeightTrimmingBoost"]

ALGORITHMS = {"samme": 1.0, "textbook": 2.0}  # s: margin scale; alpha_textbook = alpha_samme / 2
STOPPING = ("sklearn", "textbook", "none")
LOWER_BOUNDS = ("weight_order", "exact")


class _TimedFinder:
    """A finder that adds the wall time of its calls to ``seconds``."""

    def __init__(self, finder):
        self.finder = finder
        self.seconds = 0.0

    def find(self, problem):
        start = time.perf_counter()
        split = self.finder.find(problem)
        self.seconds += time.perf_counter() - start
        return split


class Boosting(Exportable):
    """Base of the boosting clients (see the module docstring for the conventions).

    n_rounds            number of boosting rounds (trees), at most
    max_depth           depth of each tree (1: stumps)
    criterion           split criterion of the trees: "error" | "entropy" | "gini"
    method              a registered finder name or a finder object
    learning_rate       shrinks every alpha
    algorithm           "samme" | "textbook"
    stopping            "sklearn" | "textbook" | "none"
    refit_weights       re-fit all alphas jointly after the last round
    track_lower_bounds  names among "weight_order", "exact": lower bounds on
                        the round's assessments, recorded in ``history_``
    exact_rounds        1-based rounds at which "exact" is computed (None: all;
                        it solves integer programs, so sample a few)
    exact_time_limit    seconds per feature's integer program
    random_state        seed or RandomState for the clients that sample
    bounds              "tight" | "paper": the bounds the finder prunes with
    min_samples_leaf    every leaf of every tree keeps at least this many examples
                        (as scikit-learn's; the lower bounds need 1)
    callback            called as callback(model, record) after each round
                        (``record``: that round's ``history_`` entry)
    sampler             None, or an ``adapters.sampling.Sampler`` choosing each round's
                        rows and features (module docstring); its numpy Generator is
                        seeded from ``random_state``

    After ``fit``: ``classes_``, ``trees_`` (apsplit.Tree, predicting class
    codes), ``estimator_weights_``, ``estimator_errors_``, ``history_`` (one
    dict per round: round, assessments, seconds (growing the tree: in the
    finder's calls, or in the one kernel call that grows it with a built-in
    finder), round_seconds, n_rows, n_features (what the tree was grown on),
    sampler (its name, "none"), weighted_error, alpha, train_error,
    sorted (whether the round sorted the examples), and the lower bounds
    asked for), ``refit_`` (when ``refit_weights``: loss_before, loss_after,
    greedy_weights, converged, finite: whether L has a finite minimiser).
    """

    def __init__(self, n_rounds=100, max_depth=1, criterion="error", method="adaptive",
                 learning_rate=1.0, algorithm="samme", stopping="sklearn", refit_weights=False,
                 track_lower_bounds=(), exact_rounds=None, exact_time_limit=10.0,
                 random_state=None, bounds="tight", callback=None, min_samples_leaf=1,
                 sampler=None):
        self.n_rounds = v.check_positive_int(n_rounds, "n_rounds")
        self.max_depth = v.check_positive_int(max_depth, "max_depth")
        v.check_choice(criterion, CRITERIA, "criterion")
        self.criterion = criterion
        self.finder = get_finder(method)
        self.method = method
        if not (isinstance(learning_rate, (int, float)) and learning_rate > 0
                and math.isfinite(learning_rate)):
            raise ValueError(f"learning_rate must be a positive number, got {learning_rate!r}")
        self.learning_rate = float(learning_rate)
        self.algorithm = _check_option(algorithm, ALGORITHMS, "algorithm")
        self.stopping = _check_option(stopping, STOPPING, "stopping")
        self.refit_weights = bool(refit_weights)
        tracked = (track_lower_bounds,) if isinstance(track_lower_bounds, str) else track_lower_bounds
        self.track_lower_bounds = tuple(_check_option(b, LOWER_BOUNDS, "lower bound")
                                        for b in (tracked or ()))
        if "exact" in self.track_lower_bounds and criterion != "error":
            raise ValueError("the exact lower bound is defined for criterion='error' only")
        self.exact_rounds = None if exact_rounds is None else {int(r) for r in exact_rounds}
        self.exact_time_limit = float(exact_time_limit)
        self.random_state = random_state
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be callable, got {callback!r}")
        self.callback = callback
        v.check_choice(bounds, BOUNDS, "bounds")
        self.bounds = bounds
        self.min_samples_leaf = v.check_positive_int(min_samples_leaf, "min_samples_leaf")
        if self.track_lower_bounds and self.min_samples_leaf > 1:
            raise ValueError("the lower bounds on assessments need min_samples_leaf=1")
        self.sampler = _check_sampler(sampler)

    # -- what the finder sees each round (overridden by the clients) ------------------
    def _round_rows(self, order, w):
        return order

    def _round_features(self, n_features, rng):
        return np.arange(n_features, dtype=np.int64)

    # -- fitting ---------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Boost on X (array, scipy.sparse or apsplit.Dataset), class labels y (``class_codes``)."""
        return self._fit_classes(X, *class_codes(y), sample_weight)

    def _fit_classes(self, X, classes, codes, sample_weight):
        """``fit`` with y's ``class_codes`` given (the estimators have them already)."""
        ds = X if isinstance(X, Dataset) else Dataset(
            X, n_threads=getattr(self.finder, "n_threads", 1))
        self.classes_ = classes
        if codes.shape[0] != ds.n_rows:
            raise ValueError(f"y must hold one label per row of X ({ds.n_rows}), "
                             f"got {codes.shape[0]}")
        C = self.classes_.size
        if C < 2:
            raise ValueError(f"boosting needs at least two classes in y, got {C}")
        w0 = v.check_weights(sample_weight, ds.n_rows)
        if not w0.sum() > 0:
            raise ValueError("all sample weights are zero")
        w0 = w0 / w0.sum()
        root = check_problem(ds, codes, w0, self.criterion, None, None, False, self.bounds, C,
                             self.min_samples_leaf)
        self.n_features_in_ = ds.n_features
        correct = self._fit_rounds(ds, root, codes, w0)
        # which training examples each tree gets right, one bit each: exponential_loss()
        self._train_correct = np.column_stack(correct)
        self._train_w0 = w0
        if self.refit_weights:
            self._refit()
        return self

    def _fit_rounds(self, ds, root, codes, w0):
        C, s = root.n_classes, ALGORITHMS[self.algorithm]
        rng = check_random_state(self.random_state)
        if self.sampler is not None:
            draws = np.random.default_rng(rng.randint(2 ** 31))
            self.sampler.start(ds.n_rows, ds.n_features, self.learning_rate)
        keep_order = self._keeps_weight_order()
        zero = w0 == 0
        # scikit-learn floors the weights at eps each round; the other rules do not
        floor = np.finfo(float).eps if self.stopping == "sklearn" else 0.0
        w = w0.copy()
        n_positive = floor_weights(w, zero, floor)
        order = root.order if keep_order else _positive_rows(w, n_positive)
        votes = np.zeros((ds.n_rows, C))  # sum_t alpha_t (1[h_t = k] - 1[h_t != k] / (C-1))
        self.trees_, alphas, errors, self.history_, correct = [], [], [], [], []
        for t in range(self.n_rounds):
            start = time.perf_counter()
            rows, features = order[:n_positive], self._round_features(ds.n_features, rng)
            if self.sampler is not None:
                rows, features = self._sampled(t, w, rows, features, draws)
            problem = replace(root, sample_weight=w, order=self._round_rows(rows, w),
                              features=features)
            tree, leaves, finder_seconds = self._grow(problem)
            if leaves is None or problem.order.size < ds.n_rows:  # rows it was not grown on
                leaves = tree.apply(ds)
            leaf_class = np.argmax(tree.value, axis=1)
            miss, err = tree_misses(leaf_class, leaves, codes, w)
            err = float(err / w.sum())
            alpha, keep, stop = self._alpha(err, C, alphas)
            if not keep:
                if not self.trees_:
                    raise ValueError(f"the first tree's weighted error {err:.4g} is no better than "
                                     "chance: the ensemble cannot be fit")
                break
            if not stop and t < self.n_rounds - 1:
                w = w.copy()  # the round's Problem (a finder may keep it) keeps its weights
                n_positive = reweight(w, miss, math.exp(s * alpha), zero, floor)
                order = merge_groups(order, w, miss) if keep_order else \
                    _positive_rows(w, n_positive)
            seconds = time.perf_counter() - start
            self.trees_.append(tree)
            alphas.append(alpha)
            errors.append(err)
            correct.append(np.packbits(~miss))
            record = {"round": t + 1, "assessments": tree.assessments, "seconds": finder_seconds,
                      "round_seconds": seconds, "n_rows": int(problem.order.size),
                      "n_features": int(problem.features.size),
                      "sampler": getattr(self.sampler, "name", "none"), "weighted_error": err,
                      "alpha": alpha, "train_error": add_round_votes(votes, leaf_class, leaves,
                                                                     alpha, codes, w0),
                      "sorted": t == 0}
            record.update(self._round_bounds(t + 1, problem, tree))
            self.history_.append(record)
            if self.callback is not None:
                self.callback(self, record)
            if stop:
                break
        self.estimator_weights_ = np.array(alphas)
        self.estimator_errors_ = np.array(errors)
        return correct

    def _keeps_weight_order(self):
        """Whether the rounds keep the rows in decreasing weight order (``merge_groups``):
        when the finder reads it (``Finder.reads_weight_order``) or a weight-order lower
        bound is tracked.  Else each round's rows are its rows of positive weight in index
        order, which the exhaustive finder's trees do not depend on."""
        return getattr(self.finder, "reads_weight_order", True) or bool(self.track_lower_bounds)

    def _sampled(self, round, w, rows, features, draws):
        """The round's rows (in weight order) and features, narrowed by the sampler."""
        column = w[:, None]
        out = check_sample(self.sampler.sample(round, column, column, draws), self.sampler,
                           column.shape, self.n_features_in_)
        name = getattr(self.sampler, "name", type(self.sampler).__name__)
        if not (np.array_equal(out.grad, column) and np.array_equal(out.hess, column)):
            raise ValueError(f"sampler {name!r} changed the weights it was given; the boosting "
                             f"clients take row and feature draws only (no GOSS)")
        if out.colsample_bylevel < 1.0 or out.colsample_bynode < 1.0:
            raise ValueError(f"sampler {name!r} asks for colsample_bylevel/bynode, which the "
                             f"boosting clients' trees do not take (one feature set per tree)")
        if out.rows is not None:
            rows = rows[np.isin(rows, out.rows)]
            if rows.size == 0:
                raise ValueError(f"sampler {name!r} drew no example of positive weight in round "
                                 f"{round + 1}: the round's tree has nothing to grow on")
        if out.features is not None:
            features = np.intersect1d(features, out.features)
        return rows, features

    def _grow(self, problem):
        """(the round's tree, the leaf of each row or None, seconds spent growing it: in
        the finder's calls, or for a built-in finder in the one kernel call that grows
        the whole tree)."""
        if kernel_finder_params(self.finder) is not None:
            start = time.perf_counter()
            tree, leaves = grow_from_problem(problem, self.finder, self.max_depth, True)
            return tree, leaves, time.perf_counter() - start
        finder = _TimedFinder(self.finder)
        tree = grow_from_problem(problem, finder, self.max_depth)
        return tree, None, finder.seconds

    def _alpha(self, err, C, alphas):
        """(alpha, keep the tree, stop after it) for a tree of weighted error ``err``."""
        if err >= 1.0:  # every example misclassified: alpha would be -inf
            return 0.0, False, True
        if err <= 0.0:
            if self.stopping == "sklearn":
                return 1.0, True, True
            return 1.0 + float(np.abs(alphas).sum()), True, True
        chance = 0.5 if self.stopping == "textbook" else 1.0 - 1.0 / C
        if err >= chance and self.stopping != "none":
            return 0.0, False, True
        alpha = self.learning_rate * (math.log((1.0 - err) / err) + math.log(C - 1))
        return alpha / ALGORITHMS[self.algorithm], True, False

    def _round_bounds(self, round_number, problem, tree):
        """The lower bounds asked for of this round's tree.  An exact bound the
        solver cannot find in time is None, with the reason as "exact_failure"."""
        bounds = {}
        for kind in self.track_lower_bounds:
            if kind == "weight_order":
                bounds[kind] = lower_bounds.tree_bound(problem, tree, kind)
            elif self.exact_rounds is None or round_number in self.exact_rounds:
                try:
                    bounds[kind] = lower_bounds.tree_bound(problem, tree, kind,
                                                           time_limit=self.exact_time_limit)
                except RuntimeError as exc:
                    bounds[kind], bounds["exact_failure"] = None, str(exc)
        return bounds

    # -- joint re-fit of the alphas ----------------------------------------------------
    def exponential_loss(self, X=None, y=None, sample_weight=None, weights=None):
        """L(alpha) (module docstring) on the training data, or on (X, y, sample_weight).

        ``weights``: the alphas (default ``estimator_weights_``); sample weights
        are normalised to sum 1, as in training.
        """
        margins, log_w0 = self._margins(X, y, sample_weight)
        alphas = self.estimator_weights_ if weights is None else np.asarray(weights, float)
        return float(np.exp(logsumexp(log_w0 - margins @ alphas)))

    def _margins(self, X, y, sample_weight):
        """(m_it as an (n, T) array, log w0) on the training data (X None) or on (X, y)."""
        self._check_fitted()
        if X is None:
            if y is not None or sample_weight is not None:
                raise ValueError("pass X along with y and sample_weight")
            w0 = self._train_w0
            correct = np.unpackbits(self._train_correct, axis=0, count=w0.size).astype(bool)
        else:
            X = self._check_X(X)
            y = np.asarray(y)
            if y.shape != (X.shape[0],):
                raise ValueError(f"y must be 1-D with one label per row of X ({X.shape[0]}), "
                                 f"got shape {y.shape}")
            unknown = ~np.isin(y, self.classes_)
            if unknown.any():
                raise ValueError(f"label {y[unknown][0].item()!r} of y is not among the classes "
                                 f"seen in fit {self.classes_.tolist()}")
            codes = np.searchsorted(self.classes_, y)
            w0 = v.check_weights(sample_weight, codes.size)
            if not w0.sum() > 0:
                raise ValueError("all sample weights are zero")
            w0 = w0 / w0.sum()
            correct = np.column_stack([tree.predict(X) == codes for tree in self.trees_])
        C, s = self.classes_.size, ALGORITHMS[self.algorithm]
        with np.errstate(divide="ignore"):
            return s * (correct - 1.0 / C), np.log(w0)

    def _refit(self):
        margins, log_w0 = self._margins(None, None, None)

        def log_loss(alphas):
            z = log_w0 - margins @ alphas
            return logsumexp(z), -margins.T @ softmax(z)

        greedy = self.estimator_weights_
        finite = not _has_recession(margins[np.isfinite(log_w0)])
        if finite:
            result = minimize(log_loss, greedy, jac=True, method="L-BFGS-B")
            refit = result.x if result.fun <= log_loss(greedy)[0] else greedy
            converged = bool(result.success)
        else:
            warnings.warn("the exponential loss has no finite minimiser (some direction of the "
                          "alphas gives every example a non-negative margin, one a positive "
                          "one): kept the greedy weights", RuntimeWarning, stacklevel=3)
            refit, converged = greedy, False
        self.refit_ = {"loss_before": float(np.exp(log_loss(greedy)[0])),
                       "loss_after": float(np.exp(log_loss(refit)[0])),
                       "greedy_weights": greedy, "converged": converged, "finite": finite}
        self.estimator_weights_ = refit

    # -- prediction ------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "trees_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _check_X(self, X):
        self._check_fitted()
        if isinstance(X, Dataset):
            raise TypeError("predict on raw X (array or scipy.sparse), not on a Dataset")
        if sp.issparse(X):
            X = sp.csc_matrix(X)
            values = X.data
        else:
            X = np.asarray(X, dtype=np.float64)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D, got shape {X.shape}")
            values = X
        if not np.all(np.isfinite(values)):
            raise ValueError("X contains NaN or inf; apsplit needs finite feature values")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model was fit on {self.n_features_in_}")
        return X

    def staged_decision_function(self, X):
        """decision_function after each round."""
        X = self._check_X(X)
        C = self.classes_.size
        votes = np.zeros((X.shape[0], C))
        norm = 0.0
        for tree, alpha in zip(self.trees_, self.estimator_weights_):
            add_votes(votes, tree.predict(X), alpha)
            norm += abs(alpha)
            yield _decision(votes / norm if norm != 0 else votes)

    def decision_function(self, X):
        """sum_t alpha_t (1[h_t = k] - 1[h_t != k]/(C-1)) / sum_t |alpha_t|; for two classes
        the difference of the two columns (positive: ``classes_[1]``)."""
        result = None
        for result in self.staged_decision_function(X):
            pass
        return result

    def staged_predict(self, X):
        for decision in self.staged_decision_function(X):
            yield self.classes_[_vote(decision)]

    def predict(self, X):
        decision = self.decision_function(X)
        return self.classes_[_vote(decision)]

    def predict_proba(self, X):
        """scikit-learn's SAMME probabilities: softmax of the decision / (C - 1)."""
        decision = self.decision_function(X)
        C = self.classes_.size
        if C == 2:
            decision = np.column_stack([-decision, decision]) / 2
        else:
            decision = decision / (C - 1)
        return softmax(decision, axis=1)

    def _export_booster(self, feature_names=None):
        """The fitted model as raw-score trees whose margin is ``decision_function``
        (``adapters.export.vote_booster``): ``to_xgboost``, ``to_lightgbm``,
        ``save_model``."""
        self._check_fitted()
        return vote_booster(self.trees_, self.estimator_weights_, self.classes_.size,
                            self.n_features_in_, feature_names)

    @property
    def feature_importances_(self):
        """sum_t alpha_t importances(tree_t) / sum_t alpha_t."""
        self._check_fitted()
        alphas = self.estimator_weights_
        total = sum(a * tree.feature_importances_ for a, tree in zip(alphas, self.trees_))
        return total / alphas.sum()

    def __repr__(self):
        return f"{type(self).__name__}(n_rounds={self.n_rounds}, max_depth={self.max_depth}, " \
               f"criterion={self.criterion!r}, method={self.method!r})"


class AdaBoost(Boosting):
    """Discrete AdaBoost (two classes) / SAMME (more), every example and feature each round."""


class LazyBoost(Boosting):
    """AdaBoost whose finder sees round(feature_fraction * K) (at least 1) random features a round."""

    def __init__(self, feature_fraction=0.5, **options):
        self.feature_fraction = v.check_fraction(feature_fraction, "feature_fraction")
        super().__init__(**options)

    def _round_features(self, n_features, rng):
        size = max(1, int(round(self.feature_fraction * n_features)))
        return np.sort(rng.choice(n_features, size=size, replace=False)).astype(np.int64)


class WeightTrimmingBoost(Boosting):
    """AdaBoost whose finder sees the fewest heaviest examples holding ``mass`` of the weight."""

    def __init__(self, mass=0.9, **options):
        self.mass = v.check_fraction(mass, "mass")
        super().__init__(**options)

    def _round_rows(self, order, w):
        if self.mass >= 1.0:  # every row: a cumulative sum can stop growing before the end
            return order
        held = np.cumsum(w[order])
        return order[: int(np.searchsorted(held, self.mass * held[-1])) + 1]

    def _keeps_weight_order(self):
        return True  # the heaviest rows are a prefix of the weight order


def class_codes(y):
    """(classes, code of each label) of class labels ``y``, by scikit-learn's rule for
    classifiers, shared by the clients and the estimators: y 1-D (a column vector is
    raveled with a DataConversionWarning), binary or multiclass; continuous,
    multilabel and multioutput targets are refused."""
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    return np.unique(y, return_inverse=True)


def _check_sampler(sampler):
    if sampler is None:
        return None
    if not callable(getattr(sampler, "sample", None)):
        raise TypeError(f"sampler must be an apsplit.adapters.sampling.Sampler (an object with "
                        f"a sample method), got {sampler!r}")
    if isinstance(sampler, GOSS):
        raise ValueError("GOSS ranks rows by their gradients and rescales them; the boosting "
                         "clients have weights, not gradients (WeightTrimmingBoost keeps the "
                         "heaviest examples)")
    return sampler


def _check_option(value, choices, what):
    if value not in choices:
        raise ValueError(f"unknown {what} {value!r}; choose from {sorted(choices)}")
    return value


def _has_recession(margins):
    """True if some d has margins @ d >= 0 with a positive entry (L then has no minimiser).

    Linear program: maximise sum(margins @ d) over d in [-1, 1]^T with
    margins @ d >= 0; its optimum is 0 exactly when no such d exists.
    """
    T = margins.shape[1]
    result = linprog(-margins.sum(axis=0), A_ub=-margins, b_ub=np.zeros(margins.shape[0]),
                     bounds=[(-1.0, 1.0)] * T, method="highs")
    return result.status == 0 and -result.fun > 1e-6


def _positive_rows(w, n_positive):
    """The rows of positive weight, in index order (``n_positive`` of them): every row
    (np.arange, cheaper than np.flatnonzero) unless a weight is 0."""
    return np.arange(w.size) if n_positive == w.size else np.flatnonzero(w)


def _decision(votes):
    return votes[:, 1] - votes[:, 0] if votes.shape[1] == 2 else votes


def _vote(decision):
    """Class codes from a decision (2 classes: 1-D, positive -> 1; else argmax)."""
    if decision.ndim == 1:
        return (decision > 0).astype(np.int64)
    if decision.shape[1] == 2:
        return (decision[:, 1] - decision[:, 0] > 0).astype(np.int64)
    return np.argmax(decision, axis=1)

