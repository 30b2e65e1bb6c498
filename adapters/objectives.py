"""XGBoost's built-in objectives; the custom-objective forms of XGBoost, LightGBM, scikit-learn.

An objective turns raw margins into first and second derivatives of the
loss, one pair per row and output (``reg:*`` and ``binary:*``: one output;
``multi:*``: one per class, hence one tree per class per round).  The
formulas are XGBoost 3.2's (``src/objective/regression_loss.h``,
``multiclass_obj.cu``), ``w`` the row's weight, ``y`` its label, ``m`` its margin:

==================  ==========================  ============================  ===================
objective           gradient                    hessian                       prediction
==================  ==========================  ============================  ===================
reg:squarederror    (m - y) w                   w                             m
reg:logistic        (s(m) - y) w                max(s(m)(1 - s(m)), 1e-16) w  s(m)
binary:logistic     (s(m) - y) w                max(s(m)(1 - s(m)), 1e-16) w  s(m)
binary:logitraw     (s(m) - y) w                max(s(m)(1 - s(m)), 1e-16) w  m
multi:softprob      (p_k - [y = k]) w           max(2 p_k (1 - p_k) w, 1e-16)  p (n, K)
multi:softmax       (p_k - [y = k]) w           max(2 p_k (1 - p_k) w, 1e-16)  argmax_k p_k (n,)
==================  ==========================  ============================  ===================

``s`` is the sigmoid, ``p = softmax(m)``.  ``scale_pos_weight`` multiplies
the weight of positive rows of the logistic objectives, as in XGBoost.

**float32.**  XGBoost keeps each (gradient, hessian) pair as two float32
(``GradientPair``), computed in float32 arithmetic from the float32
margins, and sums them in double.  apsplit computes them the same way,
operation by operation in float32 (numpy's float32 ``exp`` may differ from
the C library's ``expf`` in the last bit), and hands them to the tree
grower as float64, which sums them in double: both libraries add (nearly
always) the same numbers and grow the same trees.  A custom objective's
output is rounded to float32 likewise (``round_float32``).

**base_score.**  XGBoost 3 stores the intercept in the space of the
prediction (a probability for the logistic objectives) and starts every
margin at its link: ``logit(base_score)`` for ``reg:logistic`` /
``binary:logistic``, the value itself otherwise (``multi:*`` store one
margin per class; a scalar ``base_score`` gives every class that margin).
When ``base_score`` is not given, XGBoost 3 estimates it from the
training labels and apsplit does the same (checked against XGBoost in
``tests/test_objectives.py``): the weighted mean of the labels for
``reg:*`` and ``binary:*``, and for ``multi:*`` the margins
``log max(q_k, 1e-6)`` centred to mean zero, ``q_k`` the weighted share of
class k.  With a custom objective nothing is estimated: ``base_score``
defaults to 0.5, used as a margin (XGBoost's "historical" behaviour,
dmlc/xgboost#9840).
"""

import numpy as np
from numba import njit

__all__ = ["Objective", "OBJECTIVES", "get_objective", "round_float32", "check_gradients",
           "CustomObjective", "lightgbm_objective", "sklearn_objective"]

_EPS = 1e-16          # XGBoost's kRtEps-like floor on the logistic and softmax hessians
_MULTI_SHARE_EPS = 1e-6  # the least class share in the multi-class intercept (XGBoost 3.2)
_FLT_MIN = np.float32(np.finfo(np.float32).tiny)  # C's FLT_MIN: the least positive normal


def round_float32(a):
    """The float32 value of each entry, as float64 (XGBoost's GradientPair is float32)."""
    return np.asarray(a, dtype=np.float64).astype(np.float32).astype(np.float64)


def _sigmoid(m):
    return 1.0 / (1.0 + np.exp(-m))


def _sigmoid32(m):
    """XGBoost's ``common::Sigmoid`` in float32: 1 / (expf(min(-x, 88.7)) + 1 + 1e-16)."""
    one = np.float32(1.0)
    with np.errstate(over="ignore"):
        e = np.exp(np.minimum(-m, np.float32(88.7)))
    return one / (e + one + np.float32(1e-16))


@njit(cache=True)
def _shifted32(m):
    """x - wmax for every float32 margin x of a row, in float32, wmax the largest of the
    row's margins and FLT_MIN: XGBoost's ``GetGradient`` (``multiclass_obj.cu``) starts
    wmax at ``numeric_limits<float>::min()``, the least positive normal float, so a row
    of negative margins is shifted by that, not by its largest margin."""
    out = np.empty_like(m)
    for i in range(m.shape[0]):
        top = _FLT_MIN
        for k in range(m.shape[1]):
            top = max(m[i, k], top)
        for k in range(m.shape[1]):
            out[i, k] = m[i, k] - top
    return out


@njit(cache=True)
def _softmax_pairs32(e, y, w):
    """The multi-class gradient pairs from ``e`` = expf(x - wmax) (float32, ``_shifted32``):
    per row the sum of e in double, in class order as XGBoost adds it, cast to float32 once,
    p = e / sum; then g = (p - [y = k]) w and h = max(2 p (1 - p) w, 1e-16), each
    operation in float32 (``GetGradient`` of ``multiclass_obj.cu``)."""
    n, K = e.shape
    g, h = np.empty((n, K), np.float64), np.empty((n, K), np.float64)
    one, two, eps = np.float32(1.0), np.float32(2.0), np.float32(_EPS)
    for i in range(n):
        total = 0.0
        for k in range(K):
            total += np.float64(e[i, k])
        wsum = np.float32(total)
        label = np.int64(y[i])
        for k in range(K):
            p = e[i, k] / wsum
            h[i, k] = max(two * p * (one - p) * w[i], eps)
            g[i, k] = (p - one if k == label else p) * w[i]
    return g, h


def _gradient32(name, m, y, w, scale_pos_weight):
    """The gradient pairs of XGBoost's GetGradient, each operation in float32 (its
    GradientPair is two float32).  In float64 the logistic hessian p(1 - p) of a
    confident row would differ from XGBoost's, where 1 - p cancels in float32."""
    f32 = np.float32
    one = f32(1.0)
    if name.startswith("multi:"):  # numpy's float32 exp, the rest in one pass
        return _softmax_pairs32(np.exp(_shifted32(np.ascontiguousarray(m))), y, w)
    m = m[:, 0]
    if name != "reg:squarederror" and scale_pos_weight != one:
        w = np.where(y == one, w * scale_pos_weight, w)
    if name == "reg:squarederror":
        return (m - y) * w, one * w
    p = _sigmoid32(m)
    return (p - y) * w, np.maximum(p * (one - p), f32(_EPS)) * w


def _softmax(m):
    z = m - m.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class Objective:
    """A built-in objective (XGBoost's name).

    task            "regression" | "binary" | "multiclass": which labels and metrics fit
    default_metric  XGBoost's default evaluation metric for it
    """

    def __init__(self, name, task, default_metric):
        self.name = name
        self.task = task
        self.default_metric = default_metric

    @property
    def multiclass(self):
        return self.task == "multiclass"

    def n_outputs(self, num_class):
        return num_class if self.multiclass else 1

    # -- labels ----------------------------------------------------------------------
    def check_labels(self, y, num_class, where="dtrain"):
        """Labels that fit the objective, else a ValueError naming the problem."""
        if y is None:
            raise ValueError(f"objective {self.name!r} needs labels: {where} has no label "
                             f"(DMatrix(X, label=y))")
        what = f"label of {where}"
        if not np.all(np.isfinite(y)):
            raise ValueError(f"the {what} holds NaN or inf")
        if self.name in ("reg:logistic", "binary:logistic", "binary:logitraw"):
            if y.size and (y.min() < 0 or y.max() > 1):
                values = np.unique(y)
                hint = ""
                if values.size > 2 and np.all(values == np.round(values)):
                    hint = (f"; it holds {values.size} classes: use 'multi:softprob' with "
                            f"num_class={int(values.max()) + 1}")
                raise ValueError(f"objective {self.name!r} needs labels in [0, 1], found values "
                                 f"from {y.min():g} to {y.max():g}{hint}")
        elif self.multiclass:
            if y.size and np.any(y != np.round(y)):
                raise ValueError(f"objective {self.name!r} needs integer class labels "
                                 f"0..num_class-1, found a non-integer {what}")
            if y.size and (y.min() < 0 or y.max() >= num_class):
                raise ValueError(f"objective {self.name!r} with num_class={num_class} needs labels "
                                 f"in 0..{num_class - 1}, found {y.min():g}..{y.max():g}"
                                 + (f"; set num_class={int(y.max()) + 1}" if y.min() >= 0 else ""))

    # -- the intercept ---------------------------------------------------------------
    def base_margin(self, base_score, num_class):
        """The starting margin of every row, (n_outputs,), from a given base_score."""
        k = self.n_outputs(num_class)
        b = np.asarray(base_score, dtype=np.float64).ravel()
        if b.size not in (1, k):
            raise ValueError(f"base_score must be a number or {k} numbers, got {b.size}")
        if not np.all(np.isfinite(b)):
            raise ValueError(f"base_score must be finite, got {base_score!r}")
        if self.name in ("reg:logistic", "binary:logistic"):
            if np.any(b <= 0) or np.any(b >= 1):
                raise ValueError(f"objective {self.name!r} needs base_score in (0, 1) (a "
                                 f"probability), got {base_score!r}")
            b = np.log(b / (1.0 - b))
        return np.broadcast_to(b, (k,)).astype(np.float64)

    def estimate_base_score(self, y, w, num_class):
        """XGBoost 3's intercept, in the space of base_score (see the module docstring)."""
        if w is None:
            w = np.ones_like(y, dtype=np.float64)
        total = w.sum()
        if not total > 0:
            return np.full(self.n_outputs(num_class), 0.5)
        if self.multiclass:
            share = np.bincount(y.astype(np.int64), weights=w, minlength=num_class) / total
            logs = np.log(np.maximum(share, _MULTI_SHARE_EPS))
            return logs - logs.mean()
        mean = float(np.dot(w, y) / total)
        if self.name in ("reg:logistic", "binary:logistic"):
            mean = min(max(mean, _MULTI_SHARE_EPS), 1.0 - _MULTI_SHARE_EPS)
        return np.array([mean])

    # -- derivatives and predictions -------------------------------------------------
    def gradient(self, margin, y, w, scale_pos_weight=1.0):
        """(grad, hess), each (n,) or (n, K): float64 arrays of float32 values, computed in
        float32 arithmetic op by op as XGBoost does (``_gradient32``)."""
        g, h = _gradient32(self.name, np.asarray(margin, np.float32), np.asarray(y, np.float32),
                           np.asarray(w, np.float32), np.float32(scale_pos_weight))
        return np.asarray(g, np.float64), np.asarray(h, np.float64)

    def transform(self, margin):
        """The prediction for raw margins (n, n_outputs): shape (n,) or (n, K)."""
        if self.multiclass:
            p = _softmax(margin)
            return p if self.name == "multi:softprob" else np.argmax(p, axis=1).astype(np.float64)
        m = margin[:, 0]
        return _sigmoid(m) if self.name in ("reg:logistic", "binary:logistic") else m.copy()

    def eval_transform(self, margin):
        """What the metrics see: the prediction, but class probabilities for multi:softmax."""
        if self.multiclass:
            return _softmax(margin)
        return self.transform(margin)

    def __repr__(self):
        return f"Objective({self.name!r})"

    def __reduce__(self):
        return get_objective, (self.name,)


OBJECTIVES = {o.name: o for o in (
    Objective("reg:squarederror", "regression", "rmse"),
    Objective("reg:logistic", "binary", "rmse"),
    Objective("binary:logistic", "binary", "logloss"),
    Objective("binary:logitraw", "binary", "logloss"),
    Objective("multi:softprob", "multiclass", "mlogloss"),
    Objective("multi:softmax", "multiclass", "mlogloss"),
)}
_ALIASES = {"reg:linear": "reg:squarederror"}


def get_objective(name):
    if not isinstance(name, str):
        raise TypeError(f"objective must be a name (str); pass a callable as obj=, got {name!r}")
    obj = OBJECTIVES.get(_ALIASES.get(name, name))
    if obj is None:
        raise ValueError(f"unknown objective {name!r}; choose one of {sorted(OBJECTIVES)} "
                         f"or pass a callable as obj=")
    return obj


# ------------------------------------------------------------------ custom objectives
def check_gradients(grad, hess, n_rows, n_outputs, where="the custom objective"):
    """A custom objective's output as two (n, n_outputs) float64 arrays of float32 values.

    Accepts (n,), (n, 1) for one output and (n, K) or XGBoost's flat (n * K,)
    row-major form for K outputs; refuses other shapes, NaN, inf and negative hessians.
    """
    out = []
    for name, a in (("grad", grad), ("hess", hess)):
        try:
            a = np.asarray(a, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{where} returned a {name} that is not numeric: {type(a).__name__}") \
                from None
        if a.shape in ((n_rows * n_outputs,), (n_rows, n_outputs)):
            a = a.reshape(n_rows, n_outputs)
        else:
            want = (f"({n_rows},)" if n_outputs == 1
                    else f"({n_rows}, {n_outputs}) or ({n_rows * n_outputs},)")
            raise ValueError(f"{where} returned {name} of shape {a.shape}; expected {want} "
                             f"(rows x outputs)")
        if not np.all(np.isfinite(a)):
            bad = int(np.count_nonzero(~np.isfinite(a)))
            raise ValueError(f"{where} returned a {name} with {bad} NaN or inf values")
        out.append(a)
    g, h = out
    if np.any(h < 0):
        raise ValueError(f"{where} returned {int(np.count_nonzero(h < 0))} negative hessian "
                         f"values (the smallest {h.min():g}); Newton trees need hess >= 0")
    return round_float32(g), round_float32(h)


class CustomObjective:
    """Calls ``obj(preds, dtrain) -> (grad, hess)`` (XGBoost's form) and checks its output."""

    def __init__(self, func):
        if not callable(func):
            raise TypeError(f"obj must be callable, got {func!r}")
        self.func = func

    def gradient(self, preds, dtrain, n_outputs):
        out = self.func(preds, dtrain)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError("a custom objective must return a pair (grad, hess), got "
                            f"{type(out).__name__}")
        return check_gradients(out[0], out[1], preds.shape[0], n_outputs)


def lightgbm_objective(func):
    """LightGBM's form ``func(preds, train_data) -> (grad, hess)`` as an ``obj=`` for ``train``.

    LightGBM passes raw scores, (n, K) for K classes, and a ``lightgbm.Dataset``
    whose ``get_label()`` / ``get_weight()`` the function reads; apsplit's
    ``DMatrix`` has both, so the function receives the DMatrix itself.  The
    wrapper only names the form; a LightGBM objective thus runs unchanged.
    """
    def obj(preds, dtrain):
        return func(preds, dtrain)
    obj.__name__ = getattr(func, "__name__", "lightgbm_objective")
    obj.__wrapped__ = func
    return obj


def sklearn_objective(func):
    """scikit-learn's form ``func(y_true, y_pred[, sample_weight]) -> (grad, hess)`` as ``obj=``.

    ``y_pred`` are the raw margins, as ``xgboost.XGBRegressor(objective=func)``
    passes them; a function with three parameters also receives the
    weights (None when the DMatrix has none), as XGBoost's sklearn wrapper does.
    """
    import inspect
    try:
        n_params = len(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        n_params = 2

    def obj(preds, dtrain):
        if n_params >= 3:
            weight = dtrain.get_weight() if dtrain.has_weight else None
            return func(dtrain.get_label(), preds, weight)
        return func(dtrain.get_label(), preds)
    obj.__name__ = getattr(func, "__name__", "sklearn_objective")
    obj.__wrapped__ = func
    return obj
