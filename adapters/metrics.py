"""XGBoost's evaluation metrics (weighted), on the predictions the objective makes.

``w`` the row weights (1 when the DMatrix has none), ``p`` the prediction
(``Objective.eval_transform``: probabilities for the logistic and softmax
objectives, the raw margin for ``binary:logitraw`` and custom objectives, as
XGBoost evaluates them), ``eps = 1e-16``:

========  ================================================================
rmse      sqrt(sum w (p - y)^2 / sum w)
logloss   -sum w (y log max(p, eps) + (1 - y) log max(1 - p, eps)) / sum w, a term with
          a zero factor counting 0 (so a raw margin p > 1 can give a negative value, as in XGBoost)
error     sum w e / sum w, e = 1 - y if p > t else y; t = 0.5 or the t of "error@t"
mlogloss  -sum w log max(p_y, eps) / sum w                        (p: (n, K))
merror    sum w [argmax_k p_k != y] / sum w                       (the first max on ties)
auc       area under the weighted ROC curve, tied predictions as one step (trapezoid);
          multi-class: one class against the rest, averaged with the classes' weights
========  ================================================================

Each metric states the tasks it fits; asking for one on another task (say
``mlogloss`` for ``binary:logistic``) is a ValueError.
"""

import numpy as np

__all__ = ["Metric", "METRICS", "get_metric", "MAXIMIZE"]

_EPS = 1e-16
MAXIMIZE = ("auc", "aucpr", "pre", "map", "ndcg")  # XGBoost's EarlyStopping maximises these


def _weights(w, n):
    return np.ones(n) if w is None else w


def _rmse(p, y, w):
    return float(np.sqrt(np.dot(w, (p - y) ** 2) / w.sum()))


def _xlogy(x, y):
    """x log max(y, eps), and 0 where x = 0 (XGBoost 3.2's logloss kernel)."""
    return np.where(x == 0, 0.0, x * np.log(np.maximum(y, _EPS)))


def _logloss(p, y, w):
    return float(np.dot(w, _xlogy(-y, p) + _xlogy(-(1.0 - y), 1.0 - p)) / w.sum())


def _error(threshold):
    def error(p, y, w):
        return float(np.dot(w, np.where(p > threshold, 1.0 - y, y)) / w.sum())
    return error


def _mlogloss(p, y, w):
    py = p[np.arange(y.size), y.astype(np.int64)]
    return float(-np.dot(w, np.log(np.maximum(py, _EPS))) / w.sum())


def _merror(p, y, w):
    return float(np.dot(w, np.argmax(p, axis=1) != y) / w.sum())


def _binary_auc(score, positive, w):
    """Weighted ROC AUC, ties as one trapezoid step; NaN when one class has no weight."""
    order = np.argsort(-score, kind="stable")
    s, pos, ww = score[order], positive[order], w[order]
    tp = np.cumsum(ww * pos)
    fp = np.cumsum(ww * (1.0 - pos))
    last = np.r_[np.nonzero(np.diff(s))[0], s.size - 1]  # the end of each group of ties
    tp, fp = np.r_[0.0, tp[last]], np.r_[0.0, fp[last]]
    if tp[-1] <= 0 or fp[-1] <= 0:
        return float("nan")
    return float(np.sum((fp[1:] - fp[:-1]) * (tp[1:] + tp[:-1]) / 2.0) / (tp[-1] * fp[-1]))


def _auc(p, y, w):
    if p.ndim == 1:
        return _binary_auc(p, (y > 0.5).astype(np.float64), w)
    total, area = 0.0, 0.0
    for k in range(p.shape[1]):
        positive = (y == k).astype(np.float64)
        weight = float(np.dot(w, positive))
        a = _binary_auc(p[:, k], positive, w)
        if weight > 0 and np.isfinite(a):
            total += weight
            area += weight * a
    return area / total if total > 0 else float("nan")


class Metric:
    """A named metric ``func(pred, label, weight) -> float`` and the tasks it fits."""

    def __init__(self, name, func, tasks, multiclass_input):
        self.name = name
        self.func = func
        self.tasks = tasks
        self.multiclass_input = multiclass_input  # needs (n, K) probabilities

    @property
    def maximize(self):
        return any(self.name.startswith(m) for m in MAXIMIZE)

    def check_task(self, task, objective_name):
        if task not in self.tasks:
            raise ValueError(f"eval_metric {self.name!r} does not fit objective {objective_name!r} "
                             f"(a {task} task); it is for {' or '.join(self.tasks)} objectives")

    def __call__(self, pred, label, weight=None):
        label = np.asarray(label, dtype=np.float64)
        return self.func(pred, label, _weights(weight, label.size))

    def __repr__(self):
        return f"Metric({self.name!r})"


_TABLE = {
    "rmse": (_rmse, ("regression", "binary"), False),
    "logloss": (_logloss, ("binary",), False),
    "error": (_error(0.5), ("binary",), False),
    "mlogloss": (_mlogloss, ("multiclass",), True),
    "merror": (_merror, ("multiclass",), True),
    "auc": (_auc, ("binary", "multiclass"), False),
}
METRICS = tuple(_TABLE)


def get_metric(name):
    """A built-in metric by XGBoost's name; "error@t" sets the error's threshold."""
    if not isinstance(name, str):
        raise TypeError(f"eval_metric must be a name or a list of names, got {name!r}")
    if name.startswith("error@"):
        try:
            t = float(name[len("error@"):])
        except ValueError:
            raise ValueError(f"eval_metric {name!r}: the threshold after '@' is not a number") \
                from None
        return Metric(name, _error(t), ("binary",), False)
    if name not in _TABLE:
        raise ValueError(f"unknown eval_metric {name!r}; choose among {list(METRICS)} "
                         f"(or 'error@t'), or pass custom_metric=")
    func, tasks, multi = _TABLE[name]
    return Metric(name, func, tasks, multi)
