"""``train`` and ``Booster``: XGBoost's gradient boosting API over apsplit's exact Newton trees.

``train(params, dtrain, num_boost_round, ...)`` has ``xgboost.train``'s
signature and semantics; each round computes the objective's gradients
and hessians at the current margins (float32 values, as XGBoost's
``GradientPair``: see ``adapters.objectives``) and grows one tree per output
with ``apsplit.newton.grow_newton_tree`` (one per class per round for
``multi:*``: the exhaustive method grows a round's trees in one call,
``apsplit.newton.grow_newton_forest``, the same trees).  Parameters, by XGBoost's names and aliases:

====================================  =============================================
eta, learning_rate                    shrinkage (0.3)
max_depth                             depth of every tree (6)
lambda, reg_lambda                    L2 on the leaf weights (1)
alpha, reg_alpha                      L1 on the leaf weights (0)
gamma, min_split_loss                 least gain kept by the bottom-up pruning (0)
min_child_weight                      least hessian sum in each child (1)
max_delta_step                        clips each leaf weight, 0: none (0)
scale_pos_weight                      weight of the positive rows (logistic objectives)
base_score                            the intercept (estimated from the labels when
                                      not given, for built-in objectives: as XGBoost 3)
objective                             a name from ``adapters.objectives.OBJECTIVES``
eval_metric                           a name or a list (``adapters.metrics``)
num_class                             outputs of ``multi:*`` (required there)
seed, random_state                    the sampling's numpy stream (0)
nthread, n_jobs                       threads of the tree grower (absent, None or <= 0: every
                                      core, as XGBoost); the same trees for any count
subsample                             XGBoost's Bernoulli row draw per round (1)
colsample_bytree                      XGBoost's feature draw per round (1)
colsample_bylevel, colsample_bynode   of those, per level of each tree, then per node (1, 1)
bagging_fraction, bagging_freq        LightGBM's bagging (1, 0)
data_sample_strategy                  "bagging" (default) or "goss" (LightGBM's)
top_rate, other_rate                  GOSS's rates (0.2, 0.1)
tree_method                           "exact" (what apsplit grows); other values warn
method                                apsplit's: the split finder, "exhaustive", "quick"
                                      or "adaptive" (the same trees)
weight_order                          apsplit's: quick's and adaptive's row order,
                                      a name of ``apsplit.newton.WEIGHT_ORDERS``
criterion                             apsplit's: "newton" (XGBoost's gain) or a name
                                      registered with ``apsplit.register_criterion``
====================================  =============================================

The sampling parameters build a sampler (``adapters.sampling``; ``train(...,
sampler=)`` takes one of your own): one sample per round, shared by the class
trees.  An unknown parameter warns (``UserWarning``) naming it, as XGBoost does;
XGBoost parameters that would change the model and are not supported yet
(``num_parallel_tree``, ``max_leaves`` ...) raise a ValueError when set away from
their defaults.

**Margins in float32.**  XGBoost keeps the training margins in a float32
cache, adds each tree's leaf values to it (float32(weight) * float32(eta),
in float32), and computes the next gradients from it; ``train`` does the
same (also for the evals sets), so that the two libraries' gradients,
hence trees, agree.  ``Booster.predict`` sums the trees' float64 values
in float64.

**Thresholds.**  The tree grower puts a threshold between the two training
values a split separates and sends ``x <= threshold`` left; XGBoost sends
``x < t`` left, t a float32 between the same two values.  On new data a
value in between (say their midpoint, common with integer features) could
go either way, so ``train`` sets each tree's ``threshold`` to the largest
float32 below XGBoost's t: on float32 data (``DMatrix`` rounds X so)
``x <= threshold`` is then ``x < t``, and apsplit predicts as XGBoost on any
data.  ``left_value`` / ``right_value`` keep the two training values.

Differences from XGBoost: with a custom objective and no ``eval_metric``
no built-in metric is evaluated (XGBoost falls back to ``rmse`` on the raw
margins); every callback's ``after_iteration`` runs even after one asked to
stop.
"""

import copy
import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .. import newton
from ..criteria import get_criterion
from .callback import CallbackContainer, EarlyStopping, EvaluationMonitor, ProgressBar
from .dmatrix import DMatrix, as_dmatrix, prepare_X
from .metrics import get_metric
from .objectives import CustomObjective, get_objective
from .sampling import SAMPLING_PARAMS, check_sample, from_params

__all__ = ["train", "Booster", "parse_params"]

_ALIASES = {"eta": "learning_rate", "lambda": "reg_lambda", "alpha": "reg_alpha",
            "min_split_loss": "gamma", "random_state": "seed", "n_jobs": "nthread"}
_TREE = ("max_depth", "learning_rate", "reg_lambda", "reg_alpha", "gamma", "min_child_weight",
         "max_delta_step")
_OTHER = ("base_score", "objective", "eval_metric", "num_class", "seed", "nthread", "method",
          "weight_order", "criterion", "scale_pos_weight", "tree_method", "verbosity", "silent", "booster",
          "disable_default_eval_metric", "validate_parameters", "device")
# XGBoost parameters that change the model, accepted only at their default value
_UNSUPPORTED = {"num_parallel_tree": 1, "max_leaves": 0,
                "grow_policy": "depthwise", "monotone_constraints": None,
                "interaction_constraints": None, "sampling_method": "uniform",
                "multi_strategy": "one_output_per_tree"}


@dataclass
class TrainParams:
    """``train``'s parameters after aliases, defaults and checks."""
    tree: dict
    objective: str = None
    base_score: object = None
    eval_metric: tuple = ()
    num_class: int = None
    method: str = "exhaustive"
    weight_order: str = newton.DEFAULT_WEIGHT_ORDER
    criterion: str = "newton"
    scale_pos_weight: float = 1.0
    disable_default_eval_metric: bool = False
    sampling: dict = None
    seed: object = None
    n_threads: int = -1


def _items(params):
    if params is None:
        return []
    if isinstance(params, dict):
        return list(params.items())
    try:
        items = [tuple(p) for p in params]
    except TypeError:
        raise TypeError(f"params must be a dict or a list of (name, value) pairs, got "
                        f"{type(params).__name__}") from None
    if any(len(p) != 2 for p in items):
        raise TypeError("params must be a dict or a list of (name, value) pairs")
    return items


def parse_params(params):
    """XGBoost-style params (dict or (name, value) pairs) as a ``TrainParams``."""
    tree, other, metrics, sampling = {}, {}, [], {}
    for key, value in _items(params):
        if not isinstance(key, str):
            raise TypeError(f"parameter names must be str, got {key!r}")
        name = _ALIASES.get(key, key)
        if name == "eval_metric":
            metrics.extend([value] if isinstance(value, str) else list(value))
        elif name in _TREE:
            if value is not None:
                tree[name] = value
        elif name in _OTHER:
            other[name] = value
        elif name in SAMPLING_PARAMS:
            sampling[name] = value
        elif name in _UNSUPPORTED:
            if value is not None and value != _UNSUPPORTED[name]:
                raise ValueError(f"parameter {key!r}={value!r} is not supported yet")
        else:
            warnings.warn(f"parameter {key!r} is not used by apsplit's train and is ignored",
                          UserWarning, stacklevel=3)
    criterion = other.get("criterion", "newton")
    get_criterion(criterion)  # an unknown name fails here, listing the registered ones
    tm = other.get("tree_method")
    if tm not in (None, "exact"):
        warnings.warn(f"tree_method={tm!r}: apsplit grows exact trees (XGBoost's 'exact')",
                      UserWarning, stacklevel=3)
    booster = other.get("booster")
    if booster not in (None, "gbtree"):
        raise ValueError(f"booster={booster!r} is not supported; apsplit grows trees ('gbtree')")
    method = other.get("method", "exhaustive")
    if not isinstance(method, str):
        raise TypeError(f"method must be a registered finder name, got {method!r}")
    num_class = other.get("num_class")
    if num_class is not None:
        if isinstance(num_class, str) and num_class.isdigit():
            num_class = int(num_class)
        if not (isinstance(num_class, (int, np.integer)) and not isinstance(num_class, bool)
                and num_class >= 1):
            raise ValueError(f"num_class must be a positive integer, got {num_class!r}")
        num_class = int(num_class)
    objective = other.get("objective")
    if objective is not None and not isinstance(objective, str):
        raise TypeError(f"params['objective'] must be a name; pass a custom objective as obj=, "
                        f"got {objective!r}")
    spw = float(other.get("scale_pos_weight", 1.0))
    if not spw > 0:
        raise ValueError(f"scale_pos_weight must be positive, got {spw!r}")
    for m in metrics:
        get_metric(m)  # unknown names fail here
    from_params(sampling)  # bad sampling parameters fail here, naming them
    n_threads = _thread_param(other.get("nthread"))
    return TrainParams(tree=tree, objective=objective, base_score=other.get("base_score"),
                       eval_metric=tuple(metrics), num_class=num_class, method=method,
                       weight_order=other.get("weight_order", newton.DEFAULT_WEIGHT_ORDER),
                       criterion=criterion, scale_pos_weight=spw,
                       disable_default_eval_metric=bool(other.get("disable_default_eval_metric",
                                                                  False)),
                       sampling=sampling, seed=other.get("seed"), n_threads=n_threads)


def _thread_param(nthread):
    """XGBoost's ``nthread`` as ``apsplit.newton.thread_count``'s argument: None or <= 0
    (XGBoost's "every core") -> -1."""
    if nthread is None:
        return -1
    if isinstance(nthread, bool) or not isinstance(nthread, (int, np.integer)):
        raise ValueError(f"nthread must be an integer, got {nthread!r}")
    return -1 if nthread <= 0 else int(nthread)


class Booster:
    """A trained model: the trees, the objective's link, the intercept (XGBoost's names).

    Attributes
    ----------
    trees : list of apsplit.newton.NewtonTree (leaf values already times the learning rate)
    tree_info : list of int, the output (class) each tree adds to
    base_margin : (n_outputs,) the starting margin of every row
    history : list of dict, per round: round, seconds (in the tree grower), nodes,
        round_seconds (the whole round), rows and features (how many the grower saw),
        node_features (how many features each node's split search took: ``features``
        after colsample_bylevel and colsample_bynode), sampler (its name, "none" without
        sampling), and assessments when the grower counts them
    best_iteration, best_score : set by early stopping (None otherwise)
    input_dtype : "float32" (arrays given to predict are rounded to float32 first, as
        XGBoost reads them) or "float64" (the model holds trees read from LightGBM, which
        compare in double; see the property)

    ``to_xgboost()``, ``to_lightgbm()`` and ``save_model(path, format=...)`` serve the
    model in XGBoost or LightGBM (``adapters.export``).
    """

    def __init__(self, objective, n_outputs, base_margin, n_features, feature_names=None,
                 params=None):
        self.objective = objective
        self.n_outputs = int(n_outputs)
        self.base_margin = np.asarray(base_margin, dtype=np.float64).reshape(self.n_outputs)
        self.n_features = int(n_features)
        self.feature_names = feature_names
        self.params = dict(params or {})
        self.trees = []
        self.tree_info = []
        self.history = []
        self._attrs = {}

    @property
    def input_dtype(self):
        """How predict reads an array (a DMatrix rounds X to float32 itself): "float32"
        (every tree's thresholds are for float32 values: X is rounded first, as XGBoost
        reads it) or "float64" (some trees were read from LightGBM, which compares in
        double: they get X as given, the other trees X rounded to float32)."""
        return "float64" if any(getattr(t, "input_dtype", "float32") == "float64"
                                for t in self.trees) else "float32"

    # -- XGBoost's model API ---------------------------------------------------------
    def num_boosted_rounds(self):
        return len(self.trees) // self.n_outputs

    def num_features(self):
        return self.n_features

    def attr(self, key):
        return self._attrs.get(key)

    def attributes(self):
        return dict(self._attrs)

    def set_attr(self, **kwargs):
        for key, value in kwargs.items():
            if value is None:
                self._attrs.pop(key, None)
            else:
                self._attrs[key] = str(value)

    @property
    def best_iteration(self):
        value = self.attr("best_iteration")
        return None if value is None else int(value)

    @best_iteration.setter
    def best_iteration(self, value):
        self.set_attr(best_iteration=value)

    @property
    def best_score(self):
        value = self.attr("best_score")
        return None if value is None else float(value)

    @best_score.setter
    def best_score(self, value):
        self.set_attr(best_score=value)

    def __getitem__(self, item):
        """``booster[a:b]``: a Booster with the trees of rounds a..b-1 (step 1)."""
        if isinstance(item, (int, np.integer)):
            item = slice(int(item), int(item) + 1)
        if not isinstance(item, slice):
            raise TypeError("a Booster is sliced by rounds: booster[start:stop]")
        if item.step not in (None, 1):
            raise ValueError("a Booster slice takes step 1 only")
        start, stop, _ = item.indices(self.num_boosted_rounds())
        out = copy.copy(self)
        k = self.n_outputs
        out.trees = self.trees[start * k:stop * k]
        out.tree_info = self.tree_info[start * k:stop * k]
        out.history = self.history[start:stop]
        out._attrs = {}
        return out

    def __len__(self):
        return self.num_boosted_rounds()

    def copy(self):
        return copy.deepcopy(self)

    # -- prediction ------------------------------------------------------------------
    def _rows(self, data):
        """(X, base margins (n, n_outputs) or None) of a DMatrix, array or sparse matrix."""
        if isinstance(data, DMatrix) or type(data).__module__.startswith("xgboost"):
            d = as_dmatrix(data)
            if (self.feature_names is not None and d.feature_names is not None
                    and list(d.feature_names) != list(self.feature_names)):
                raise ValueError(f"feature_names mismatch: the model has {self.feature_names}, "
                                 f"the data {d.feature_names}")
            X, margin = d.data, d.base_margin
        else:
            X, _ = prepare_X(data, round32=self.input_dtype == "float32")
            margin = None
        if X.shape[1] != self.n_features:
            raise ValueError(f"the data has {X.shape[1]} features but the model was trained on "
                             f"{self.n_features}")
        if margin is not None:
            margin = margin.reshape(X.shape[0], -1)
            if margin.shape[1] != self.n_outputs:
                raise ValueError(f"base_margin has {margin.shape[1]} columns, the model "
                                 f"{self.n_outputs} outputs")
        return X, margin

    def _tree_range(self, iteration_range):
        if iteration_range is None or tuple(iteration_range) == (0, 0):
            return 0, len(self.trees)
        a, b = (int(i) for i in iteration_range)
        rounds = self.num_boosted_rounds()
        if not 0 <= a < b <= rounds:
            raise ValueError(f"iteration_range {tuple(iteration_range)} is outside the model's "
                             f"{rounds} rounds")
        return a * self.n_outputs, b * self.n_outputs

    def predict_margin(self, X, margin=None, iteration_range=None):
        """Raw margins (n, n_outputs) of prepared X (float64 sums)."""
        n = X.shape[0]
        out = np.empty((n, self.n_outputs))
        out[:] = self.base_margin if margin is None else margin
        lo, hi = self._tree_range(iteration_range)
        trees = self.trees[lo:hi]
        mixed = any(getattr(t, "input_dtype", "float32") == "float64" for t in trees)
        X32 = None
        for tree, k in zip(trees, self.tree_info[lo:hi]):
            if mixed and getattr(tree, "input_dtype", "float32") == "float32":
                if X32 is None:  # X as given for LightGBM's trees, rounded for the others
                    X32 = _round32(X)
                out[:, k] += tree.predict(X32)
            else:
                out[:, k] += tree.predict(X)
        return out

    def predict(self, data, output_margin=False, iteration_range=None):
        """Predictions for a DMatrix or an array (dense or scipy.sparse), XGBoost's shapes.

        output_margin   raw margins: (n,), or (n, num_class) for multi-class
        iteration_range (start, stop): the trees of rounds start..stop-1; None or
                        (0, 0): all (XGBoost's default, whatever best_iteration)
        Otherwise the objective's prediction: probabilities for logistic
        objectives, (n, num_class) probabilities for multi:softprob, class
        indices for multi:softmax; a custom objective gives raw margins.
        """
        X, margin = self._rows(data)
        m = self.predict_margin(X, margin, iteration_range)
        if output_margin or self.objective is None:
            return m[:, 0] if self.n_outputs == 1 else m
        return self.objective.transform(m)

    # -- importances -----------------------------------------------------------------
    def feature_importances(self, importance_type="total_gain"):
        """One value per feature: "weight" (how many splits use it), "total_gain",
        "gain" (total_gain / weight), "total_cover", "cover" (XGBoost's get_score types)."""
        types = ("weight", "gain", "total_gain", "cover", "total_cover")
        if importance_type not in types:
            raise ValueError(f"unknown importance_type {importance_type!r}; choose one of {types}")
        weight = np.zeros(self.n_features)
        gain = np.zeros(self.n_features)
        cover = np.zeros(self.n_features)
        for tree in self.trees:
            inner = np.asarray(tree.children_left)[:tree.node_count] >= 0
            f = np.asarray(tree.feature)[:tree.node_count][inner]
            np.add.at(weight, f, 1.0)
            np.add.at(gain, f, np.asarray(tree.gain, dtype=np.float64)[:tree.node_count][inner])
            np.add.at(cover, f, np.asarray(tree.cover, dtype=np.float64)[:tree.node_count][inner])
        if importance_type == "weight":
            return weight
        if importance_type.startswith("total_"):
            return gain if importance_type == "total_gain" else cover
        with np.errstate(invalid="ignore", divide="ignore"):
            values = (gain if importance_type == "gain" else cover) / weight
        return np.where(weight > 0, values, 0.0)

    def get_score(self, importance_type="weight"):
        """XGBoost's ``get_score``: {feature name (or "f<i>"): value} for the features used."""
        values = self.feature_importances(importance_type)
        used = self.feature_importances("weight") > 0
        names = self.feature_names or [f"f{i}" for i in range(self.n_features)]
        return {names[i]: float(values[i]) for i in np.nonzero(used)[0]}

    # -- import ----------------------------------------------------------------------
    @classmethod
    def from_xgboost(cls, booster_or_path):
        """The model of an ``xgboost.Booster`` (read through ``save_raw("json")``) or of an
        XGBoost model file (JSON, or UBJSON with xgboost installed), as an apsplit
        Booster predicting what XGBoost predicts (``adapters.model_import``): trees of
        numerical and categorical splits, of the objectives ``train`` supports; DART,
        ``num_parallel_tree > 1`` and other objectives raise a ValueError."""
        from .model_import import from_xgboost
        return from_xgboost(booster_or_path)

    @classmethod
    def from_lightgbm(cls, booster_or_path):
        """The model of a ``lightgbm.Booster`` (read through ``model_to_string()``) or of a
        LightGBM text model file, as an apsplit Booster predicting LightGBM's raw scores
        (``adapters.model_import``; its ``input_dtype`` is "float64": thresholds compared
        in double), categorical splits included; linear trees and other objectives raise
        a ValueError."""
        from .model_import import from_lightgbm
        return from_lightgbm(booster_or_path)

    # -- export ----------------------------------------------------------------------
    def to_xgboost(self):
        """The model as an ``xgboost.Booster``, loaded from the JSON apsplit writes
        (``adapters.export``): same trees, intercept, default directions and feature
        names; margins equal apsplit's to float32 precision (XGBoost sums in float32)."""
        from .export import to_xgboost
        return to_xgboost(self)

    def to_lightgbm(self):
        """The model as a ``lightgbm.Booster``, loaded from the text apsplit writes
        (``adapters.export``); LightGBM reads an absent scipy.sparse entry as 0.0, so
        pass dense data with NaN for missing (``adapters.export.missing_as_nan``)."""
        from .export import to_lightgbm
        return to_lightgbm(self)

    def save_model(self, path, format="xgboost"):
        """Write the model file: ``format="xgboost"`` (XGBoost's JSON, for
        ``xgboost.Booster(model_file=path)``) or ``"lightgbm"`` (LightGBM's text, for
        ``lightgbm.Booster(model_file=path)``)."""
        from .export import save_model
        save_model(self, path, format)

    def __repr__(self):
        name = self.objective.name if self.objective is not None else "custom"
        return (f"Booster({name}, {self.num_boosted_rounds()} rounds, {self.n_outputs} "
                f"output{'s' if self.n_outputs > 1 else ''})")


# ------------------------------------------------------------------------ train
def _evals(evals, dtrain, given):
    """[(DMatrix, name)]; the training data (``given`` as passed) maps to ``dtrain`` itself."""
    if evals is None:
        return []
    out = []
    for pair in evals:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and isinstance(pair[1], str)):
            raise TypeError(f"evals must be a list of (DMatrix, name) pairs, got {pair!r}")
        d = dtrain if pair[0] is given or pair[0] is dtrain else \
            as_dmatrix(pair[0], f"evals[{pair[1]!r}]")
        out.append((d, pair[1]))
    return out


def _round32(X):
    """X (dense or CSR float64) with its values rounded to float32."""
    if sp.issparse(X):
        X = X.copy()
        X.data = X.data.astype(np.float32).astype(np.float64)
        return X
    return X.astype(np.float32).astype(np.float64)


def _start_margin(booster, d):
    """float32 margins (n, n_outputs) of a DMatrix before this call's rounds."""
    margin = booster.predict_margin(d.data, d.base_margin)
    return margin.astype(np.float32)


def _use_xgboost_thresholds(trees):
    """Route new values as XGBoost does: every split's ``threshold`` (of each of the round's
    ``trees``) becomes the largest float32 below XGBoost's t
    (``NewtonTree.xgboost_split_conditions``), so that ``x <= threshold`` on float32 data
    is XGBoost's ``x < t``.  The training rows' partition is unchanged (left_value <=
    threshold < right_value still holds); a value between the two, such as their
    midpoint, now goes where XGBoost sends it."""
    for tree in trees:
        below = np.nextafter(tree.xgboost_split_conditions(), np.float32(-np.inf))
        tree.threshold = np.where(tree.feature >= 0, below.astype(np.float64), tree.threshold)


def _preds_for(m):
    return m[:, 0] if m.shape[1] == 1 else m


def train(params, dtrain, num_boost_round=10, *, evals=(), obj=None, custom_metric=None,
          maximize=None, early_stopping_rounds=None, evals_result=None, verbose_eval=True,
          xgb_model=None, callbacks=None, sampler=None):
    """Boost ``num_boost_round`` rounds of exact Newton trees; XGBoost's ``train``.

    params          XGBoost's parameters (module docstring), dict or (name, value) pairs
    dtrain          a DMatrix (or an xgboost.DMatrix)
    evals           [(DMatrix, name), ...] evaluated after every round
    obj             custom objective ``obj(preds, dtrain) -> (grad, hess)`` on raw margins,
                    (n,) or (n, num_class); see ``adapters.objectives`` for the
                    LightGBM and scikit-learn forms
    custom_metric   ``f(preds, dmatrix) -> (name, value)``; preds are the prediction
                    (raw margins when obj is given)
    maximize        for early stopping: whether larger scores are better (default: by
                    the metric's name)
    early_stopping_rounds   stop when the last metric on the last evals set has not
                    improved for that many rounds (needs evals); the Booster keeps every
                    round and gets best_iteration / best_score
    evals_result    a dict to fill with {name: {metric: [value per round]}}
    verbose_eval    True, or a period in rounds: print the evaluations (EvaluationMonitor)
    xgb_model       the model to continue from (its trees are kept): an apsplit Booster,
                    an xgboost.Booster, a lightgbm.Booster, or a model file of either
                    (``Booster.from_xgboost`` / ``from_lightgbm``, ``adapters.model_import``)
    callbacks       TrainingCallback instances (apsplit's or xgboost's)
    sampler         a ``adapters.sampling.Sampler`` of your own: the rows (and their g, h)
                    and features each round's trees see; instead of the sampling
                    parameters (subsample, colsample_*, bagging_*, GOSS)
    """
    p = parse_params(params)
    sampler = from_params(p.sampling, sampler)
    if not (isinstance(num_boost_round, (int, np.integer)) and num_boost_round >= 0):
        raise ValueError(f"num_boost_round must be a non-negative integer, got {num_boost_round!r}")
    given = dtrain
    dtrain = as_dmatrix(dtrain, "dtrain")
    evals = _evals(evals, dtrain, given)
    tree_params = newton.NewtonParams(**p.tree)

    custom = CustomObjective(obj) if obj is not None else None
    objective = get_objective(p.objective) if p.objective is not None else (
        None if custom is not None else get_objective("reg:squarederror"))
    if objective is not None and objective.multiclass:
        if p.num_class is None or p.num_class < 2:
            raise ValueError(f"objective {objective.name!r} needs num_class >= 2 in params "
                             f"(got {p.num_class!r})")
        n_outputs = p.num_class
    else:
        if p.num_class is not None and p.num_class > 1 and custom is None:
            raise ValueError(f"num_class={p.num_class} is for the multi:* objectives, not "
                             f"{objective.name!r}")
        n_outputs = p.num_class or 1
    num_class = n_outputs if n_outputs > 1 else None
    if objective is not None and custom is None:
        objective.check_labels(dtrain.label, num_class)
    for d, name in evals:
        if d is not dtrain:
            if d.num_col() != dtrain.num_col():
                raise ValueError(f"evals[{name!r}] has {d.num_col()} features, dtrain "
                                 f"{dtrain.num_col()}")
            if objective is not None and custom is None:
                objective.check_labels(d.label, num_class, where=f"evals[{name!r}]")

    # metrics: checked against the task before any round
    metric_names = list(p.eval_metric)
    if not metric_names and objective is not None and not p.disable_default_eval_metric \
            and custom is None:
        metric_names = [objective.default_metric]
    metrics = [get_metric(m) for m in metric_names]
    task = objective.task if objective is not None else (
        "multiclass" if n_outputs > 1 else "binary")
    for m in metrics:
        if custom is not None and objective is None:
            if m.multiclass_input != (n_outputs > 1) and m.name != "auc":
                raise ValueError(f"eval_metric {m.name!r} does not fit a custom objective with "
                                 f"{n_outputs} output{'s' if n_outputs > 1 else ''}")
        else:
            m.check_task(task, objective.name)
    if metrics or custom_metric is not None:
        for d, name in evals:
            if d.label is None:
                raise ValueError(f"evals[{name!r}] has no label: the metrics need one")
    if custom_metric is not None and not callable(custom_metric):
        raise TypeError(f"custom_metric must be callable, got {custom_metric!r}")

    # the model: a new one, or a copy of xgb_model to continue
    if xgb_model is not None:
        if not isinstance(xgb_model, Booster):
            from .model_import import load_model
            xgb_model = load_model(xgb_model)
        if xgb_model.n_features != dtrain.num_col():
            raise ValueError(f"xgb_model has {xgb_model.n_features} features, dtrain "
                             f"{dtrain.num_col()}")
        by_categories = sorted({int(t.feature[node]) for t in xgb_model.trees
                                for node in np.flatnonzero(t.category_start >= 0)})
        numeric = [f for f in by_categories if not dtrain.categorical[f]]
        if numeric:
            raise ValueError(f"xgb_model splits the features {numeric} by categories but "
                             f"dtrain has them numeric: give them feature_types 'c' (or a "
                             f"DataFrame's category dtype)")
        if xgb_model.n_outputs != n_outputs or (
                objective is not None and xgb_model.objective is not None
                and xgb_model.objective.name != objective.name):
            raise ValueError(f"xgb_model has the objective "
                             f"{getattr(xgb_model.objective, 'name', None)!r} with "
                             f"{xgb_model.n_outputs} output(s); params ask for "
                             f"{getattr(objective, 'name', None)!r} with {n_outputs}")
        bst = xgb_model.copy()
        bst._attrs = {}
    else:
        if p.base_score is not None:
            base = (objective or get_objective("reg:squarederror")).base_margin(
                p.base_score, n_outputs) if objective is not None else \
                np.broadcast_to(np.asarray(p.base_score, float).ravel(), (n_outputs,))
        elif custom is None:
            y, w = dtrain.label, dtrain.weight
            base = objective.base_margin(objective.estimate_base_score(y, w, num_class),
                                         n_outputs)
        elif objective is not None:
            base = objective.base_margin(0.5, n_outputs)
        else:
            base = np.full(n_outputs, 0.5)
        base = np.asarray(base, dtype=np.float32).astype(np.float64)  # XGBoost stores float32
        bst = Booster(objective, n_outputs, base, dtrain.num_col(), dtrain.feature_names,
                      params=dict(_items(params)))

    callbacks = list(callbacks or ())
    if verbose_eval and evals:
        callbacks.append(EvaluationMonitor(period=1 if verbose_eval is True else int(verbose_eval)))
    if early_stopping_rounds:
        if not evals:
            raise ValueError("early_stopping_rounds needs at least one evaluation set in evals=")
        callbacks.append(EarlyStopping(rounds=early_stopping_rounds, maximize=maximize))
    for cb in callbacks:
        if isinstance(cb, ProgressBar) and cb.total is None:
            cb.total = int(num_boost_round)
    container = CallbackContainer(callbacks)

    data = dtrain.binned(p.n_threads)
    labels = dtrain.label
    weights = dtrain.weight if dtrain.weight is not None else np.ones(dtrain.num_row())
    margin = _start_margin(bst, dtrain)
    eval_margins = [margin if d is dtrain else _start_margin(bst, d) for d, _ in evals]
    if custom is None and objective is not None and labels is None:
        raise ValueError("dtrain has no label")

    if sampler is not None:
        seed = 0 if p.seed is None else p.seed
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer to sample, got {seed!r}")
        rng = np.random.default_rng(int(seed))
        if hasattr(sampler, "start"):
            sampler.start(dtrain.num_row(), dtrain.num_col(), tree_params.learning_rate)
    sampler_name = "none" if sampler is None else getattr(sampler, "name",
                                                          type(sampler).__name__)
    bst = container.before_training(bst)
    for i in range(int(num_boost_round)):
        if container.before_iteration(bst, i):
            break
        start = time.perf_counter()
        if custom is not None:
            grad, hess = custom.gradient(_preds_for(margin), dtrain, n_outputs)
        else:
            grad, hess = objective.gradient(margin, labels, weights,  # float32 margins
                                            p.scale_pos_weight)
            grad = grad.reshape(dtrain.num_row(), n_outputs)
            hess = hess.reshape(dtrain.num_row(), n_outputs)
        rows = features = None
        bylevel = bynode = 1.0
        if sampler is not None:
            s = check_sample(sampler.sample(i, grad, hess, rng), sampler, grad.shape,
                             dtrain.num_col())
            rows, features, grad, hess = s.rows, s.features, s.grad, s.hess
            bylevel, bynode = s.colsample_bylevel, s.colsample_bynode
        n_features = dtrain.num_col() if features is None else int(features.size)
        per_node = newton.colsample_count(bynode, newton.colsample_count(bylevel, n_features))
        record = {"round": bst.num_boosted_rounds(), "seconds": 0.0, "nodes": 0,
                  "rows": dtrain.num_row() if rows is None else int(rows.size),
                  "features": n_features, "node_features": per_node,
                  "sampler": sampler_name}
        assessments = 0
        if rows is not None and rows.size == 0:  # nothing drawn: one leaf of value 0
            rows, grad, hess = None, np.zeros_like(grad), np.zeros_like(hess)
        # the per-level and per-node draws: a seed per tree from the round's stream
        seeds = [int(rng.integers(2 ** 63)) if min(bylevel, bynode) < 1.0 else 0
                 for _ in range(n_outputs)]
        t0 = time.perf_counter()
        if n_outputs > 1 and p.method == "exhaustive":  # one call for the round's trees
            trees = newton.grow_newton_forest(data, grad, hess, tree_params, rows=rows,
                                              features=features, criterion=p.criterion,
                                              colsample_bylevel=bylevel,
                                              colsample_bynode=bynode, seeds=seeds,
                                              n_threads=p.n_threads)
        else:
            trees = [newton.grow_newton_tree(data, np.ascontiguousarray(grad[:, k]),
                                             np.ascontiguousarray(hess[:, k]), tree_params,
                                             rows=rows, features=features,
                                             method=p.method, weight_order=p.weight_order,
                                             criterion=p.criterion,
                                             colsample_bylevel=bylevel,
                                             colsample_bynode=bynode, seed=seeds[k],
                                             n_threads=p.n_threads)
                     for k in range(n_outputs)]
        record["seconds"] += time.perf_counter() - t0
        _use_xgboost_thresholds(trees)
        for k, tree in enumerate(trees):
            record["nodes"] += int(tree.node_count)
            a = getattr(tree, "assessments", None)
            if a is not None:
                assessments += int(a)
            bst.trees.append(tree)
            bst.tree_info.append(k)
            # XGBoost adds float32 leaf values to a float32 margin cache; the grower
            # returns the training rows' leaves (row_leaf), so they are not routed again
            leaf32 = tree.xgboost_leaf_values()
            leaves = tree.row_leaf
            if rows is not None:  # the rows the tree did not see are routed
                leaves = leaves.copy()
                out = np.flatnonzero(leaves < 0)
                if out.size:
                    leaves[out] = tree.apply(dtrain.data[out])
            margin[:, k] += leaf32[leaves]
            for (d, _), m in zip(evals, eval_margins):
                if m is not margin:
                    m[:, k] += leaf32[tree.apply(d.data)]
        if assessments:
            record["assessments"] = assessments
        record["round_seconds"] = time.perf_counter() - start
        bst.history.append(record)
        container.record(_evaluate(bst, evals, eval_margins, metrics, custom_metric,
                                   raw=custom is not None))
        if container.after_iteration(bst, i):
            break
    bst = container.after_training(bst)
    if evals_result is not None:
        evals_result.clear()
        evals_result.update(container.history)
    return bst


def _evaluate(bst, evals, margins, metrics, custom_metric, raw):
    scores = []
    for (d, name), m in zip(evals, margins):
        m = m.astype(np.float64)
        if metrics:
            pred = _preds_for(m) if bst.objective is None else bst.objective.eval_transform(m)
            for metric in metrics:
                scores.append((name, metric.name, metric(pred, d.label, d.weight)))
        if custom_metric is not None:
            pred = _preds_for(m) if (raw or bst.objective is None) else bst.objective.transform(m)
            out = custom_metric(pred, d)
            pairs = out if isinstance(out, list) else [out]
            for pair in pairs:
                if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)):
                    raise TypeError("custom_metric must return (name, value) or a list of them, "
                                    f"got {out!r}")
                scores.append((name, pair[0], float(pair[1])))
    return scores
