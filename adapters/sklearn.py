"""scikit-learn estimators over apsplit's exact split finders.

``APTreeClassifier`` is a drop-in for ``DecisionTreeClassifier`` that grows
its tree with ``apsplit.grow_from_problem``; it takes ``sample_weight``, so
``AdaBoostClassifier(estimator=APTreeClassifier())`` works unchanged.
``APBoostClassifier`` translates scikit-learn parameters to the boosting
clients of ``apsplit.adapters`` and nothing more.  ``APGradientBoostingClassifier``
and ``APGradientBoostingRegressor`` do the same for ``apsplit.adapters.train``
(XGBoost-style gradient boosting of exact Newton trees), with
``xgboost.XGBClassifier``'s parameter names.

How the trees compare with scikit-learn's (``DecisionTreeClassifier`` with
the same criterion and depth):

- Same leaf rule: a node is split unless it is at ``max_depth``, holds fewer
  than ``max(2, 2 * min_samples_leaf)`` examples with positive weight, is
  pure (one class holds all its weight) or has no admissible split (every
  feature is constant on it, or no split leaves ``min_samples_leaf``
  examples in each child).  Zero-weight examples are
  left out of every node, as scikit-learn does (``n_node_samples`` counts
  the positive-weight ones).  Two rounding-level exceptions: scikit-learn
  splits a pure node whose computed impurity rounds above machine epsilon
  (its children predict the same class), and keeps as a leaf a node whose
  minority classes hold less than about 1e-16 of its weight; apsplit
  decides purity from the class weights exactly.
- Same thresholds: midpoints of consecutive distinct values, ``x <= t`` left.
- Ties: apsplit takes the first feature (then the smallest threshold) among
  the splits within ``1e-10 x node weight`` of the best; scikit-learn visits
  the features in a random order and keeps the first best it meets.  Where
  candidate splits tie, both trees reach the same impurity decrease but may
  split on different features.
- Precision: scikit-learn casts X to float32 and treats values closer than
  1e-7 as equal; apsplit bins the float64 values as given.  Data exact in
  float32 with gaps above 1e-7 (integer pixels, counts, most measured data)
  gives the same trees.
- Node ids: apsplit numbers the two children of a node consecutively, so
  ``apply`` returns other leaf ids than scikit-learn (same partition of X).
"""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .boosting import AdaBoost, LazyBoost, WeightTrimmingBoost, class_codes
from .dmatrix import DMatrix, _is_dataframe, pandas_module
from .export import Exportable, proba_booster
from .sampling import from_params
from .objectives import sklearn_objective
from .training import train
from ..dataset import Dataset
from ..finders import Exhaustive, check_problem, get_finder
from ..tree import grow_from_problem

try:
    from sklearn.utils.validation import validate_data
except ImportError:  # scikit-learn < 1.6
    def validate_data(estimator, *args, **kwargs):
        return estimator._validate_data(*args, **kwargs)

__all__ = ["APTreeClassifier", "APBoostClassifier", "APGradientBoostingClassifier",
           "APGradientBoostingRegressor"]

# scikit-learn's criterion names, and apsplit's "error" (weighted misclassification)
_CRITERIA = {"gini": "gini", "entropy": "entropy", "log_loss": "entropy", "error": "error"}
_SPARSE = ["csc", "csr"]
_CLIENTS = {"adaboost": AdaBoost, "lazy": LazyBoost, "trim": WeightTrimmingBoost}
_COMMON_CONSTRAINTS = {
    "criterion": [StrOptions(set(_CRITERIA))],
    "method": [str, HasMethods(["find"])],
    "bounds": [StrOptions({"tight", "paper"})],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left"),
                         Interval(RealNotInt, 0.0, 1.0, closed="neither")],
}


class _Classifier(Exportable, ClassifierMixin, BaseEstimator):
    """Input validation shared by the estimators: X finite, dense or CSC/CSR (kept sparse);
    y class labels by the clients' rule (``boosting.class_codes``); the export of the fitted
    model (``to_xgboost``, ``to_lightgbm``, ``save_model``; classes are the codes 0..C-1
    of ``classes_``)."""

    def _feature_names(self):
        names = getattr(self, "feature_names_in_", None)
        return None if names is None else [str(n) for n in names]

    def _validate_fit(self, X, y):
        """(X, y, classes, class codes)."""
        X, y = validate_data(self, X, y, accept_sparse=_SPARSE, dtype=np.float64)
        return (X, y, *class_codes(y))

    def _check_X(self, X):
        check_is_fitted(self)
        return validate_data(self, X, accept_sparse=_SPARSE, dtype=np.float64, reset=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class APTreeClassifier(_Classifier):
    """A decision tree classifier whose every split is the exact greedy optimum,
    found by an apsplit finder that assesses few (feature, example) pairs.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "error"}, default="gini"
        Impurity to minimise; "log_loss" is scikit-learn's alias of "entropy",
        "error" is the weighted misclassification rate.
    max_depth : int or None, default=3
        Depth of the tree; None grows until every leaf is pure or unsplittable.
    method : str or finder object, default="exhaustive"
        "exhaustive", "adaptive", "quick", "adaptive_paper", another name
        registered with ``apsplit.register_finder``, or an object with
        ``find(problem)``.  Every method grows the same tree; only the work
        differs.  With the data in memory "exhaustive" is the fastest;
        "adaptive" assesses the fewest (feature, example) pairs (the paper's cost measure) but spends more
        CPU time re-scanning features (README, "Figures").
    min_samples_leaf : int or float, default=1
        Every leaf keeps at least this many training examples (with positive
        weight); a float in (0, 1) is a fraction of the rows,
        ``ceil(min_samples_leaf * n_samples)``, as in scikit-learn.  Every
        finder returns the exact optimum over the admissible splits.
    bounds : {"tight", "paper"}, default="tight"
        Upper bounds used to prune ("paper": the paper's, ``apsplit.kernels.criteria``).
    n_jobs : int or None, default=None
        Threads of method="exhaustive" (``apsplit.Exhaustive(n_threads)``) and of the
        binning of X (``apsplit.Dataset(X, n_threads=...)``): None is 1, as in
        scikit-learn, -1 every core; the same tree for any count.  The other methods
        run on one thread.

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_ (when X has them)
    tree_ : apsplit.Tree
        Flat arrays of the fitted tree; ``tree_.value`` holds class weights.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Weighted impurity decrease per feature, normalised to sum 1 (as in
        scikit-learn; all zeros when the tree is a single leaf).

    ``to_xgboost()``, ``to_lightgbm()``, ``save_model(path, format)``: the tree as raw
    scores equal to ``predict_proba`` (column 1 for two classes;
    ``adapters.export.proba_booster``).

    Notes
    -----
    All of scikit-learn's estimator checks pass at the defaults (with
    ``min_samples_leaf > 1`` the sample-weight equivalence checks cannot:
    leaf sizes count rows, as in ``DecisionTreeClassifier``).  See the
    module docstring for how the trees compare with ``DecisionTreeClassifier``.
    """

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "n_jobs": [None, Integral],
    }

    def __init__(self, criterion="gini", max_depth=3, method="exhaustive", min_samples_leaf=1,
                 bounds="tight", n_jobs=None):
        self.criterion = criterion
        self.max_depth = max_depth
        self.method = method
        self.min_samples_leaf = min_samples_leaf
        self.bounds = bounds
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on X (array or scipy.sparse, never densified) and labels y."""
        X, y, self.classes_, codes = self._validate_fit(X, y)
        self.n_classes_ = len(self.classes_)
        finder = _finder(self.method, self.n_jobs)
        dataset = Dataset(X, n_threads=getattr(finder, "n_threads", 1))
        problem = check_problem(dataset, codes, sample_weight, _CRITERIA[self.criterion], None,
                                None, False, self.bounds, n_classes=self.n_classes_,
                                min_samples_leaf=_leaf_size(self.min_samples_leaf, X.shape[0]))
        max_depth = dataset.n_rows if self.max_depth is None else self.max_depth
        self.tree_ = grow_from_problem(problem, finder, max_depth)
        return self

    def apply(self, X):
        """Index (in ``tree_``) of the leaf each row of X falls in."""
        X = self._check_X(X)
        return self.tree_.apply(X)

    def predict_proba(self, X):
        """Class weight fractions of each row's leaf, columns in ``classes_`` order."""
        X = self._check_X(X)
        return self.tree_.predict_proba(X)

    def predict(self, X):
        """The heaviest class of each row's leaf (the first in ``classes_`` on ties)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def _export_booster(self):
        """The tree as raw scores equal to ``predict_proba`` (``adapters.export.proba_booster``:
        one tree per class, for two classes one tree of class 1's probability)."""
        check_is_fitted(self)
        return proba_booster(self.tree_, self.n_classes_, self._feature_names())

    @property
    def feature_importances_(self):
        check_is_fitted(self)
        return self.tree_.feature_importances_


def _finder(method, n_jobs):
    """The finder of ``method`` with scikit-learn's ``n_jobs`` (None: 1): exhaustive takes
    threads (``apsplit.Exhaustive``), the others run on one."""
    if method == "exhaustive" and n_jobs is not None:
        return Exhaustive(n_threads=n_jobs)
    return get_finder(method)


def _seed(random_state):
    """train's ``seed`` of scikit-learn's ``random_state``: an int as is, None as 0
    (XGBoost's default), a RandomState by one draw from it."""
    if random_state is None:
        return 0
    if isinstance(random_state, Integral):
        return int(random_state)
    return int(random_state.randint(2 ** 31))


def _leaf_size(min_samples_leaf, n_samples):
    """scikit-learn's reading of min_samples_leaf: a count, or a fraction of the rows."""
    if isinstance(min_samples_leaf, Integral):
        return int(min_samples_leaf)
    return max(1, math.ceil(min_samples_leaf * n_samples))


class APBoostClassifier(_Classifier):
    """apsplit's boosting clients as one scikit-learn classifier.

    A thin translation to ``apsplit.adapters.AdaBoost`` / ``LazyBoost`` /
    ``WeightTrimmingBoost`` with scikit-learn's conventions (SAMME weights and
    stopping rules), so that ``boosting="adaboost"`` reproduces
    ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=...))``.

    Parameters
    ----------
    boosting : {"adaboost", "lazy", "trim"}, default="adaboost"
        "adaboost": every example and feature each round; "lazy": a random
        ``feature_fraction`` of the features each round; "trim": the heaviest
        examples holding ``mass`` of the weight each round.
    n_estimators : int, default=50
        Boosting rounds (fewer when boosting stops early, as scikit-learn's).
    max_depth, criterion, method, min_samples_leaf, bounds
        Of every tree, as in ``APTreeClassifier``.
    learning_rate : float, default=1.0
        Shrinks every tree's weight.
    feature_fraction : float in (0, 1], default=0.5
        Used by boosting="lazy" only.
    mass : float in (0, 1], default=0.9
        Used by boosting="trim" only.
    subsample : float in (0, 1], default=1.0
        XGBoost's row subsampling: each round's tree is grown on a Bernoulli draw
        of the examples, each kept with this probability (``sampling.Subsample``).
    colsample_bytree : float in (0, 1], default=1.0
        XGBoost's feature draw per round: max(1, floor(colsample_bytree * K)) of
        the K features (``sampling.ColumnSample``).
    random_state : int, RandomState or None, default=None
        Seeds the feature draws of boosting="lazy" and the two draws above.
    n_jobs : int or None, default=None
        Threads of every tree's search and of the binning of X, as in
        ``APTreeClassifier`` (None: 1).

    Attributes
    ----------
    classes_, n_classes_, n_features_in_
    booster_ : the fitted apsplit.adapters client (``trees_`` holds its apsplit.Tree)
    estimator_weights_, estimator_errors_ : per round
    history_ : list of dict, one per round (assessments, seconds, train_error, n_rows,
        n_features, sampler, ...)
    feature_importances_ : weight-averaged impurity decrease of the trees

    ``to_xgboost()``, ``to_lightgbm()``, ``save_model(path, format)``: the model as raw
    scores equal to ``decision_function`` (``adapters.export.vote_booster``).

    Notes
    -----
    All of scikit-learn's estimator checks pass at the defaults; none is excluded.
    """

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "boosting": [StrOptions(set(_CLIENTS))],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "feature_fraction": [Interval(Real, 0, 1, closed="right")],
        "mass": [Interval(Real, 0, 1, closed="right")],
        "subsample": [Interval(Real, 0, 1, closed="right")],
        "colsample_bytree": [Interval(Real, 0, 1, closed="right")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
    }

    def __init__(self, boosting="adaboost", n_estimators=50, max_depth=3, criterion="gini",
                 method="exhaustive", learning_rate=1.0, feature_fraction=0.5, mass=0.9,
                 random_state=None, bounds="tight", min_samples_leaf=1, subsample=1.0,
                 colsample_bytree=1.0, n_jobs=None):
        self.boosting = boosting
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.criterion = criterion
        self.method = method
        self.min_samples_leaf = min_samples_leaf
        self.learning_rate = learning_rate
        self.feature_fraction = feature_fraction
        self.mass = mass
        self.random_state = random_state
        self.bounds = bounds
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Boost on X (array or scipy.sparse, never densified) and labels y."""
        X, y, classes, codes = self._validate_fit(X, y)
        if classes.size < 2:
            raise ValueError("boosting needs at least two classes; y holds one class")
        options = {"lazy": {"feature_fraction": self.feature_fraction},
                   "trim": {"mass": self.mass}}.get(self.boosting, {})
        self.booster_ = _CLIENTS[self.boosting](
            n_rounds=self.n_estimators, max_depth=self.max_depth,
            criterion=_CRITERIA[self.criterion], method=_finder(self.method, self.n_jobs),
            learning_rate=float(self.learning_rate), algorithm="samme", stopping="sklearn",
            random_state=self.random_state, bounds=self.bounds,
            min_samples_leaf=_leaf_size(self.min_samples_leaf, X.shape[0]),
            sampler=from_params({"subsample": self.subsample,
                                 "colsample_bytree": self.colsample_bytree}), **options)
        self.booster_._fit_classes(X, classes, codes, sample_weight)
        self.classes_ = self.booster_.classes_
        self.n_classes_ = len(self.classes_)
        self.estimator_weights_ = self.booster_.estimator_weights_
        self.estimator_errors_ = self.booster_.estimator_errors_
        self.history_ = self.booster_.history_
        return self

    def decision_function(self, X):
        """scikit-learn's SAMME decision: 1-D for two classes (positive: ``classes_[1]``)."""
        X = self._check_X(X)
        return self.booster_.decision_function(X)

    def staged_decision_function(self, X):
        X = self._check_X(X)
        return self.booster_.staged_decision_function(X)

    def predict(self, X):
        X = self._check_X(X)
        return self.booster_.predict(X)

    def staged_predict(self, X):
        X = self._check_X(X)
        return self.booster_.staged_predict(X)

    def predict_proba(self, X):
        """scikit-learn's SAMME probabilities (softmax of the decision / (C - 1))."""
        X = self._check_X(X)
        return self.booster_.predict_proba(X)

    def _export_booster(self):
        """Margins equal to ``decision_function`` (``adapters.export.vote_booster``)."""
        check_is_fitted(self)
        return self.booster_._export_booster(self._feature_names())

    @property
    def feature_importances_(self):
        check_is_fitted(self)
        return self.booster_.feature_importances_



# ------------------------------------------------------------------ gradient boosting
class _GradientBoosting(Exportable, BaseEstimator):
    """Parameters and fitting shared by the gradient-boosting estimators (a thin layer over
    ``apsplit.adapters.train``, as ``xgboost.XGBModel`` is over ``xgboost.train``)."""

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 0, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "reg_lambda": [Interval(Real, 0, None, closed="left")],
        "reg_alpha": [Interval(Real, 0, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "min_child_weight": [Interval(Real, 0, None, closed="left")],
        "max_delta_step": [Interval(Real, 0, None, closed="left")],
        "objective": [None, str, callable],
        "method": [str],
        "criterion": [str],
        "base_score": [None, Real, "array-like"],
        "eval_metric": [None, str, list],
        "early_stopping_rounds": [None, Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
        "subsample": [Interval(Real, 0, 1, closed="right")],
        "colsample_bytree": [Interval(Real, 0, 1, closed="right")],
        "colsample_bylevel": [Interval(Real, 0, 1, closed="right")],
        "colsample_bynode": [Interval(Real, 0, 1, closed="right")],
        "data_sample_strategy": [StrOptions({"bagging", "goss"})],
        "top_rate": [Interval(Real, 0, 1, closed="right")],
        "other_rate": [Interval(Real, 0, 1, closed="right")],
        "categorical_features": [None, "array-like", StrOptions({"from_dtype"})],
    }

    def __init__(self, n_estimators=100, learning_rate=0.3, max_depth=6, reg_lambda=1.0,
                 reg_alpha=0.0, gamma=0.0, min_child_weight=1.0, max_delta_step=0.0,
                 objective=None, method="exhaustive", base_score=None, eval_metric=None,
                 early_stopping_rounds=None, random_state=None, n_jobs=None, criterion="newton",
                 subsample=1.0, colsample_bytree=1.0, colsample_bylevel=1.0,
                 colsample_bynode=1.0, data_sample_strategy="bagging", top_rate=0.2,
                 other_rate=0.1, categorical_features="from_dtype"):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.reg_lambda = reg_lambda
        self.reg_alpha = reg_alpha
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.max_delta_step = max_delta_step
        self.objective = objective
        self.method = method
        self.base_score = base_score
        self.eval_metric = eval_metric
        self.early_stopping_rounds = early_stopping_rounds
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.criterion = criterion
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.colsample_bylevel = colsample_bylevel
        self.colsample_bynode = colsample_bynode
        self.data_sample_strategy = data_sample_strategy
        self.top_rate = top_rate
        self.other_rate = other_rate
        self.categorical_features = categorical_features

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = True
        return tags

    def _validate_X(self, X, reset):
        X = _category_codes(X, self._categories)
        return validate_data(self, X, accept_sparse=_SPARSE, dtype=np.float64,
                             ensure_all_finite="allow-nan", reset=reset)

    def _check_X(self, X):
        check_is_fitted(self)
        return self._validate_X(X, reset=False)

    def _validate_fit(self, X, y, **kwargs):
        """(X, y) validated, the category columns of a DataFrame as codes of their
        categories (kept in ``_categories`` for predict), and ``is_categorical_`` set."""
        self._categories = _dtype_categories(X)
        X = _category_codes(X, self._categories)
        X, y = validate_data(self, X, y, accept_sparse=_SPARSE, dtype=np.float64,
                             ensure_all_finite="allow-nan", **kwargs)
        self.is_categorical_ = _categorical_mask(self.categorical_features, self._categories,
                                                 getattr(self, "feature_names_in_", None),
                                                 X.shape[1])
        return X, y

    def _params(self, objective, num_class):
        params = {"objective": objective, "max_depth": self.max_depth,
                  "learning_rate": self.learning_rate, "reg_lambda": self.reg_lambda,
                  "reg_alpha": self.reg_alpha, "gamma": self.gamma,
                  "min_child_weight": self.min_child_weight,
                  "max_delta_step": self.max_delta_step, "method": self.method,
                  "criterion": self.criterion, "subsample": self.subsample,
                  "colsample_bytree": self.colsample_bytree,
                  "colsample_bylevel": self.colsample_bylevel,
                  "colsample_bynode": self.colsample_bynode,
                  "data_sample_strategy": self.data_sample_strategy,
                  "top_rate": self.top_rate, "other_rate": self.other_rate,
                  "seed": _seed(self.random_state), "nthread": self.n_jobs}
        if num_class is not None:
            params["num_class"] = num_class
        if self.base_score is not None:
            params["base_score"] = self.base_score
        if self.eval_metric is not None:
            params["eval_metric"] = self.eval_metric
        return {k: v for k, v in params.items() if v is not None}

    def _boost(self, X, y, sample_weight, eval_set, sample_weight_eval_set, objective,
               num_class, encode):
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X)
        obj = None
        if callable(objective):
            obj, objective = sklearn_objective(objective), None
        types = ["c" if c else "q" for c in self.is_categorical_]
        dtrain = DMatrix(X, label=y, weight=sample_weight, feature_types=types)
        evals = []
        if eval_set is not None:
            weights = sample_weight_eval_set or [None] * len(eval_set)
            if len(weights) != len(eval_set):
                raise ValueError("sample_weight_eval_set must have one entry per eval_set pair")
            for i, ((Xe, ye), we) in enumerate(zip(eval_set, weights)):
                Xe = self._validate_X(Xe, reset=False)
                evals.append((DMatrix(Xe, label=encode(np.asarray(ye)), weight=we,
                                      feature_types=types), f"validation_{i}"))
        if self.early_stopping_rounds is not None and not evals:
            raise ValueError("early_stopping_rounds needs an eval_set in fit")
        self.evals_result_ = {}
        self.booster_ = train(self._params(objective, num_class), dtrain, self.n_estimators,
                              evals=evals, obj=obj, evals_result=self.evals_result_,
                              early_stopping_rounds=self.early_stopping_rounds,
                              verbose_eval=False)
        self.best_iteration_ = self.booster_.best_iteration
        self.best_score_ = self.booster_.best_score
        self.history_ = self.booster_.history
        return self

    def _iteration_range(self):
        best = self.booster_.best_iteration
        return None if best is None else (0, best + 1)

    def _margin(self, X):
        X = self._check_X(X)
        return self.booster_.predict(X, output_margin=True,
                                     iteration_range=self._iteration_range())

    def _export_booster(self):
        """The fitted Booster, cut after ``best_iteration_`` when early stopping set it:
        the trees ``predict`` uses, exported by ``to_xgboost``, ``to_lightgbm`` and
        ``save_model`` (classes are the codes 0..C-1 of ``classes_``)."""
        check_is_fitted(self)
        best = self.booster_.best_iteration
        return self.booster_ if best is None else self.booster_[:best + 1]

    @property
    def feature_importances_(self):
        """Average gain of each feature's splits, normalised to sum 1 (XGBoost's "gain")."""
        check_is_fitted(self)
        gain = self.booster_.feature_importances("gain")
        total = gain.sum()
        return gain / total if total > 0 else gain


def _dtype_categories(X):
    """{column position: categories} of a DataFrame's ``category`` columns ({} otherwise)."""
    if not _is_dataframe(X):
        return {}
    pd = pandas_module()
    return {j: dtype.categories for j, dtype in enumerate(X.dtypes)
            if isinstance(dtype, pd.CategoricalDtype)}


def _category_codes(X, categories):
    """X with its category columns replaced by their codes among ``categories`` (float,
    NaN for missing values and values outside them)."""
    if not categories or not _is_dataframe(X):
        return X
    X = X.copy()
    for j, cats in categories.items():
        values = np.asarray(X.iloc[:, j], dtype=object)
        codes = cats.get_indexer(values).astype(np.float64)  # -1: missing or not in cats
        codes[codes < 0] = np.nan
        X[X.columns[j]] = codes
    return X


def _categorical_mask(spec, categories, names, n_features):
    """The boolean mask of ``categorical_features`` (HistGradientBoosting's forms)."""
    mask = np.zeros(n_features, bool)
    if spec is None:
        return mask
    if isinstance(spec, str):  # "from_dtype"
        mask[list(categories)] = True
        return mask
    spec = np.asarray(spec)
    if spec.dtype.kind in "US":
        if names is None:
            raise ValueError("categorical_features names features, but X has no feature "
                             "names (pass a DataFrame, or indices)")
        unknown = sorted(set(spec.tolist()) - set(names))
        if unknown:
            raise ValueError(f"categorical_features names {unknown}, not columns of X")
        return np.isin(np.asarray(names), spec)
    if spec.dtype == bool:
        if spec.shape != (n_features,):
            raise ValueError(f"categorical_features as a mask needs {n_features} entries, "
                             f"got shape {spec.shape}")
        return spec.copy()
    if spec.size and (spec.dtype.kind not in "iu" or spec.min() < 0
                      or spec.max() >= n_features):
        raise ValueError(f"categorical_features must be indices in [0, {n_features}), a "
                         f"boolean mask, feature names or 'from_dtype'; got {spec.tolist()}")
    mask[spec.astype(np.int64)] = True
    return mask


class APGradientBoostingRegressor(RegressorMixin, _GradientBoosting):
    """Gradient boosting of exact Newton trees, in ``xgboost.XGBRegressor``'s parameters.

    A thin wrapper of ``apsplit.adapters.train``: ``objective`` is an XGBoost
    name (default "reg:squarederror") or a callable ``f(y_true, y_pred) ->
    (grad, hess)`` on raw margins (XGBoost's scikit-learn form; a third
    parameter receives the sample weights); ``method`` is apsplit's split
    finder ("exhaustive", "quick" or "adaptive": the same trees) and
    ``criterion`` its split criterion ("newton", or a name
    registered with ``apsplit.register_criterion``); ``base_score`` None
    estimates the intercept (XGBoost 3).  NaN in
    X is a missing value; in sparse X an absent entry is missing (as in
    XGBoost, not zero).  ``fit(X, y, sample_weight=None, eval_set=None,
    sample_weight_eval_set=None)``: with ``early_stopping_rounds`` (a
    constructor parameter) the last eval_set pair decides, and predictions
    use the trees up to ``best_iteration_``.  Sampling, by XGBoost's and
    LightGBM's names (``train``'s, ``adapters.sampling``): ``subsample``,
    ``colsample_bytree``, ``colsample_bylevel``, ``colsample_bynode`` (fractions
    in (0, 1]) and ``data_sample_strategy="goss"`` with ``top_rate`` and
    ``other_rate``; ``random_state`` seeds them (train's ``seed``; None: 0, as
    XGBoost).  ``n_jobs``: threads of the tree grower (None or -1: every core, as
    XGBoost's estimators); the same model for any count.

    Attributes: ``booster_`` (the apsplit Booster), ``evals_result_``,
    ``best_iteration_``, ``best_score_``, ``history_``, ``feature_importances_``,
    ``n_features_in_``, ``is_categorical_``.

    ``categorical_features`` (``HistGradientBoostingRegressor``'s): "from_dtype" (a
    DataFrame's ``category`` columns; none for arrays), None, feature indices, a
    boolean mask or feature names.  A DataFrame's category column is coded by the
    categories seen in fit (a value outside them, at predict, is missing); other
    categorical features must hold integer codes in [0, 2**24).  Their splits are
    exact categorical splits (``apsplit.kernels.newton_categorical``).
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, eval_set=None, sample_weight_eval_set=None):
        X, y = self._validate_fit(X, y, y_numeric=True)
        objective = "reg:squarederror" if self.objective is None else self.objective
        return self._boost(X, y, sample_weight, eval_set, sample_weight_eval_set, objective,
                           None, encode=lambda ye: ye)

    def predict(self, X):
        X = self._check_X(X)
        out = self.booster_.predict(X, iteration_range=self._iteration_range())
        return np.asarray(out, dtype=np.float64)


class APGradientBoostingClassifier(ClassifierMixin, _GradientBoosting):
    """Gradient boosting of exact Newton trees, in ``xgboost.XGBClassifier``'s parameters.

    ``objective`` None: "binary:logistic" for two classes, "multi:softprob"
    (one tree per class and round) for more; an XGBoost name or a callable
    ``f(y_true, y_pred) -> (grad, hess)`` on raw margins ((n, n_classes) for
    more than two classes).  Labels may be anything (``classes_``); the
    booster sees their codes 0..C-1.  ``predict_proba`` applies the sigmoid
    (softmax) to the margins when the objective is a callable or
    "binary:logitraw".  Everything else as ``APGradientBoostingRegressor``.
    """

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None, eval_set=None, sample_weight_eval_set=None):
        X, y = self._validate_fit(X, y)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        if self.n_classes_ < 2:
            raise ValueError(f"a classifier needs at least two classes; y holds 1 class "
                             f"({self.classes_[0]!r})")
        multi = self.n_classes_ > 2
        objective = self.objective
        if objective is None:
            objective = "multi:softprob" if multi else "binary:logistic"
        num_class = self.n_classes_ if multi else None

        def encode(ye):
            pos = np.searchsorted(self.classes_, ye)
            pos = np.clip(pos, 0, self.n_classes_ - 1)
            if not np.all(self.classes_[pos] == ye):
                raise ValueError("eval_set holds labels not seen in y")
            return pos.astype(np.float64)

        return self._boost(X, codes.astype(np.float64), sample_weight, eval_set,
                           sample_weight_eval_set, objective, num_class, encode)

    def predict_proba(self, X):
        """Class probabilities, (n, n_classes), columns in ``classes_`` order."""
        m = self._margin(X)
        if self.n_classes_ == 2:
            m = np.asarray(m, dtype=np.float64).reshape(-1)
            p = 1.0 / (1.0 + np.exp(-m))
            return np.column_stack([1.0 - p, p])
        m = np.asarray(m, dtype=np.float64).reshape(-1, self.n_classes_)
        e = np.exp(m - m.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
