"""Sampling clients over the exact Newton trees: the rows and features each round's trees see.

A sampler chooses, every boosting round, which rows the tree grower may use
(possibly rescaling their gradients and hessians) and which features it may
split on; the exact finder does the rest.  ``train`` builds one from XGBoost's
and LightGBM's parameter names, or takes a user's own as ``sampler=``:

=====================================  ==========================================
``subsample``                          ``Subsample(fraction)``: XGBoost's Bernoulli
                                       draw of each row, every round
``bagging_fraction``, ``bagging_freq``  ``Bagging(fraction, freq)``: LightGBM's
                                       bagging, redrawn every ``freq`` rounds
``colsample_bytree``,                  ``ColumnSample(bytree, bylevel, bynode)``:
``colsample_bylevel``,                 XGBoost's floor(fraction * K) features (at
``colsample_bynode``                   least 1) per tree, then of those per level,
                                       then of those per node
``data_sample_strategy="goss"``,       ``GOSS(top_rate, other_rate)``: LightGBM's
``top_rate``, ``other_rate``           gradient-based one-side sampling
=====================================  ==========================================

A sampler of your own subclasses ``Sampler`` and implements ``sample``::

    class EveryOtherRow(Sampler):
        name = "every-other-row"
        def sample(self, round, grad, hess, rng):
            rows = np.arange(round % 2, grad.shape[0], 2)
            return Sample(rows=rows, grad=grad, hess=hess)

    train(params, dtrain, 10, sampler=EveryOtherRow())

``grad`` and ``hess`` are (n_rows, n_outputs) arrays (one column per class for
``multi:*``); one sample per round is shared by the round's trees.  ``rng`` is a
``numpy.random.Generator``, ``numpy.random.default_rng(seed)`` made once per
``train`` call (``seed`` from the params, default 0), so the draws are
reproducible from ``seed``.  ``start(n_rows, n_features, learning_rate)`` is
called once at the start of every ``train`` call, before round 0 (``round``
counts this call's rounds, from 0, as LightGBM's ``iter``).
"""

import math
import numbers
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..newton import colsample_count

__all__ = ["Sample", "Sampler", "Subsample", "Bagging", "ColumnSample", "GOSS", "Chain",
           "from_params", "check_sample", "SAMPLING_PARAMS"]

# train's parameters that choose a sampler, with their defaults (no sampling)
SAMPLING_PARAMS = {"subsample": 1.0, "colsample_bytree": 1.0, "colsample_bylevel": 1.0,
                   "colsample_bynode": 1.0, "bagging_fraction": 1.0,
                   "bagging_freq": 0, "data_sample_strategy": "bagging", "top_rate": 0.2,
                   "other_rate": 0.1}


@dataclass(frozen=True)
class Sample:
    """What one round's trees see.

    rows      int indices of the rows the grower uses (None: every row; none at all:
              the round's trees are one leaf of value 0)
    grad      (n_rows, n_outputs) gradients, possibly rescaled (GOSS); every row's,
              only ``rows`` are read
    hess      (n_rows, n_outputs) hessians, likewise
    features  int indices of the candidate features (None: every feature)
    colsample_bylevel, colsample_bynode
              fractions of ``features`` each level of the round's trees searches, and
              of those each node (``grow_newton_tree``'s; 1: every one), drawn in the
              grower from a seed the round's ``rng`` gives each tree
    """
    rows: Optional[np.ndarray]
    grad: np.ndarray
    hess: np.ndarray
    features: Optional[np.ndarray] = None
    colsample_bylevel: float = 1.0
    colsample_bynode: float = 1.0


def _fraction(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a number in (0, 1], got {value!r}")
    value = float(value)
    if not (0.0 < value <= 1.0):
        raise ValueError(f"{what} must be in (0, 1], got {value!r}")
    return value


class Sampler:
    """The base of every sampler: ``sample(round, grad, hess, rng) -> Sample``.

    The base itself samples nothing (every row, every feature).  ``name`` is
    recorded in ``Booster.history``.
    """

    name = "none"

    def start(self, n_rows, n_features, learning_rate):
        """Called once at the start of every ``train`` call (before round 0)."""
        self.n_rows, self.n_features, self.learning_rate = n_rows, n_features, learning_rate

    def sample(self, round, grad, hess, rng):
        return Sample(rows=None, grad=grad, hess=hess, features=None)

    def __repr__(self):
        return f"{type(self).__name__}()"


class Subsample(Sampler):
    """XGBoost's ``subsample``: each row is used with probability ``fraction``, drawn
    afresh every round (a Bernoulli draw per row, so the count is Binomial(n, fraction)).
    No reweighting.  ``fraction=1`` draws nothing."""

    def __init__(self, fraction):
        self.fraction = _fraction(fraction, "subsample")
        self.name = f"subsample({self.fraction:g})"

    def sample(self, round, grad, hess, rng):
        if self.fraction == 1.0:
            return Sample(None, grad, hess)
        rows = np.flatnonzero(rng.random(grad.shape[0]) < self.fraction)
        return Sample(rows, grad, hess)

    def __repr__(self):
        return f"Subsample({self.fraction!r})"


class Bagging(Sampler):
    """LightGBM's bagging (``bagging_fraction``, ``bagging_freq``): at every round that is
    a multiple of ``freq`` each row is kept with probability ``fraction`` (LightGBM's
    ``BaggingHelper`` draws per row, so the count is Binomial(n, fraction), not a fixed
    number), and the rounds in between reuse that bag.  No reweighting.  ``freq=0`` or
    ``fraction=1``: no bagging (LightGBM's default)."""

    def __init__(self, fraction, freq=1):
        self.fraction = _fraction(fraction, "bagging_fraction")
        if isinstance(freq, bool) or not isinstance(freq, numbers.Integral):
            raise TypeError(f"bagging_freq must be an integer, got {freq!r}")
        if freq < 0:
            raise ValueError(f"bagging_freq must be >= 0 (0: no bagging), got {freq!r}")
        self.freq = int(freq)
        self.name = f"bagging({self.fraction:g}, freq={self.freq})"
        self._bag = None

    @property
    def active(self):
        return self.freq > 0 and self.fraction < 1.0

    def start(self, n_rows, n_features, learning_rate):
        super().start(n_rows, n_features, learning_rate)
        self._bag = None

    def sample(self, round, grad, hess, rng):
        if not self.active:
            return Sample(None, grad, hess)
        if self._bag is None or round % self.freq == 0:
            self._bag = np.flatnonzero(rng.random(grad.shape[0]) < self.fraction)
        return Sample(self._bag, grad, hess)

    def __repr__(self):
        return f"Bagging({self.fraction!r}, freq={self.freq})"


class ColumnSample(Sampler):
    """XGBoost's column sampling, multiplied as XGBoost multiplies it: ``bytree``, every
    round a uniform draw without replacement of ``max(1, floor(bytree * K))`` of the K
    features (``colsample_count``); ``bylevel``, at every level of every tree
    ``max(1, floor(bylevel * T))`` of those T; ``bynode``, at every node
    ``max(1, floor(bynode * L))`` of its level's L (the last two drawn in the grower,
    ``grow_newton_tree``).  A fraction of 1 draws nothing."""

    def __init__(self, bytree=1.0, bylevel=1.0, bynode=1.0):
        self.bytree = _fraction(bytree, "colsample_bytree")
        self.bylevel = _fraction(bylevel, "colsample_bylevel")
        self.bynode = _fraction(bynode, "colsample_bynode")
        self.name = "+".join(
            f"colsample_{what}({value:g})" for what, value in
            (("bytree", self.bytree), ("bylevel", self.bylevel), ("bynode", self.bynode))
            if value < 1.0) or "colsample_bytree(1)"

    @property
    def active(self):
        return min(self.bytree, self.bylevel, self.bynode) < 1.0

    def sample(self, round, grad, hess, rng):
        features = None
        if self.bytree < 1.0:
            K = self.n_features
            features = np.sort(rng.permutation(K)[:colsample_count(self.bytree, K)])
        return Sample(None, grad, hess, features, self.bylevel, self.bynode)

    def __repr__(self):
        return f"ColumnSample({self.bytree!r}, bylevel={self.bylevel!r}, bynode={self.bynode!r})"


def goss_counts(n_rows, top_rate, other_rate):
    """LightGBM's GOSS counts and factor: top_k = max(1, int(n * top_rate)),
    other_k = int(n * other_rate), and the small rows' g and h multiplied by
    float32(n - top_k) / other_k (which is (1 - top_rate) / other_rate when both
    counts are exact)."""
    top_k = max(1, int(n_rows * top_rate))
    other_k = int(n_rows * other_rate)
    factor = float(np.float32(n_rows - top_k) / np.float32(other_k)) if other_k else 0.0
    return top_k, other_k, factor


def goss_warmup(learning_rate):
    """Rounds without sampling at the start: int(1 / learning_rate), as LightGBM's
    ``iter < static_cast<int>(1.0f / learning_rate)`` (every round if it is 0)."""
    return math.inf if learning_rate <= 0 else int(1.0 / learning_rate)


class GOSS(Sampler):
    """LightGBM's gradient-based one-side sampling (``data_sample_strategy="goss"``).

    Rows are ranked by |g * h| summed over the outputs; the top ``top_k`` are kept
    (every row tied with the top_k-th value too, as LightGBM keeps them), and
    ``other_k`` rows drawn uniformly without replacement from the rest have their g
    and h multiplied by ``factor`` (``goss_counts``).  No sampling in the first
    ``int(1 / learning_rate)`` rounds (``goss_warmup``; ``learning_rate`` defaults to
    the tree's).  One difference: when rows tie at the threshold LightGBM's sequential
    draw takes fewer than other_k on average; this takes exactly other_k.
    """

    def __init__(self, top_rate=0.2, other_rate=0.1, learning_rate=None):
        self.top_rate = _fraction(top_rate, "top_rate")
        self.other_rate = _fraction(other_rate, "other_rate")
        if self.top_rate + self.other_rate > 1.0:
            raise ValueError(f"top_rate + other_rate must be at most 1, got {self.top_rate!r} "
                             f"+ {self.other_rate!r}")
        self.fixed_learning_rate = learning_rate
        self.name = f"goss({self.top_rate:g}, {self.other_rate:g})"

    @property
    def warmup(self):
        lr = self.fixed_learning_rate if self.fixed_learning_rate is not None \
            else self.learning_rate
        return goss_warmup(lr)

    def sample(self, round, grad, hess, rng):
        if round < self.warmup:
            return Sample(None, grad, hess)
        n = grad.shape[0]
        top_k, other_k, factor = goss_counts(n, self.top_rate, self.other_rate)
        score = np.abs(grad * hess).sum(axis=1)
        threshold = np.partition(score, n - top_k)[n - top_k]
        big = score >= threshold
        rest = np.flatnonzero(~big)
        small = np.sort(rng.choice(rest, size=min(other_k, rest.size), replace=False))
        grad, hess = grad.copy(), hess.copy()
        grad[small] *= factor
        hess[small] *= factor
        rows = np.sort(np.concatenate([np.flatnonzero(big), small]))
        return Sample(rows, grad, hess)

    def __repr__(self):
        return f"GOSS(top_rate={self.top_rate!r}, other_rate={self.other_rate!r})"


class Chain(Sampler):
    """Samplers applied in turn: each sees the previous one's g and h; the rows and
    features are the intersection of theirs (e.g. a row sampler and ``ColumnSample``)."""

    def __init__(self, *samplers):
        self.samplers = samplers
        self.name = "+".join(getattr(s, "name", type(s).__name__) for s in samplers)

    def start(self, n_rows, n_features, learning_rate):
        super().start(n_rows, n_features, learning_rate)
        for s in self.samplers:
            _start(s, n_rows, n_features, learning_rate)

    def sample(self, round, grad, hess, rng):
        rows = features = None
        bylevel = bynode = 1.0
        for s in self.samplers:
            out = check_sample(s.sample(round, grad, hess, rng), s, grad.shape,
                               self.n_features)
            grad, hess = out.grad, out.hess
            if out.rows is not None:
                rows = out.rows if rows is None else np.intersect1d(rows, out.rows)
            if out.features is not None:
                features = out.features if features is None else \
                    np.intersect1d(features, out.features)
            bylevel *= out.colsample_bylevel
            bynode *= out.colsample_bynode
        return Sample(rows, grad, hess, features, bylevel, bynode)

    def __repr__(self):
        return f"Chain({', '.join(map(repr, self.samplers))})"


def _start(sampler, n_rows, n_features, learning_rate):
    start = getattr(sampler, "start", None)
    if start is not None:
        start(n_rows, n_features, learning_rate)


def _indices(values, size, what, name):
    arr = np.asarray(values)
    if arr.ndim != 1 or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"sampler {name!r} returned {what} that are not 1-d int indices "
                         f"(dtype {arr.dtype}, shape {arr.shape})")
    arr = np.unique(arr.astype(np.int64))
    if arr.size != np.asarray(values).size:
        raise ValueError(f"sampler {name!r} returned duplicate {what}")
    if arr.size and (arr[0] < 0 or arr[-1] >= size):
        raise ValueError(f"sampler {name!r} returned {what} outside 0..{size - 1}")
    return arr


def check_sample(out, sampler, shape, n_features):
    """A sampler's output checked: a ``Sample`` with valid, sorted, unique indices and g, h
    of the shape given; errors name the sampler."""
    name = getattr(sampler, "name", type(sampler).__name__)
    if not isinstance(out, Sample):
        raise TypeError(f"sampler {name!r}.sample must return an apsplit.adapters.sampling."
                        f"Sample, got {type(out).__name__}")
    grad = np.asarray(out.grad, dtype=np.float64)
    hess = np.asarray(out.hess, dtype=np.float64)
    if grad.shape != tuple(shape) or hess.shape != tuple(shape):
        raise ValueError(f"sampler {name!r} returned grad {grad.shape} / hess {hess.shape}; "
                         f"expected {tuple(shape)}")
    rows = None if out.rows is None else _indices(out.rows, shape[0], "rows", name)
    features = None if out.features is None else _indices(out.features, n_features,
                                                          "features", name)
    if features is not None and features.size == 0:
        raise ValueError(f"sampler {name!r} returned no features")
    bylevel = _fraction(out.colsample_bylevel, f"sampler {name!r}'s colsample_bylevel")
    bynode = _fraction(out.colsample_bynode, f"sampler {name!r}'s colsample_bynode")
    return Sample(rows, grad, hess, features, bylevel, bynode)


def from_params(values, sampler=None):
    """The sampler of train's sampling parameters (``SAMPLING_PARAMS``, by name) and
    ``sampler=``; None when nothing is sampled.  Every mistake is a ValueError (or
    TypeError) naming the parameter."""
    given = {k: v for k, v in values.items() if v is not None}
    strategy = given.get("data_sample_strategy", "bagging")
    if strategy not in ("bagging", "goss"):
        raise ValueError(f"data_sample_strategy must be 'bagging' or 'goss', got {strategy!r}")
    sub = Subsample(given.get("subsample", 1.0))
    bag = Bagging(given.get("bagging_fraction", 1.0), given.get("bagging_freq", 0))
    col = ColumnSample(given.get("colsample_bytree", 1.0), given.get("colsample_bylevel", 1.0),
                       given.get("colsample_bynode", 1.0))
    top = _fraction(given.get("top_rate", 0.2), "top_rate")
    other = _fraction(given.get("other_rate", 0.1), "other_rate")
    goss = GOSS(top, other) if strategy == "goss" else None  # checks top + other <= 1
    if sampler is not None:
        if not callable(getattr(sampler, "sample", None)):
            raise TypeError(f"sampler must be a Sampler (an object with a sample method), got "
                            f"{sampler!r}")
        changed = sorted(k for k, v in given.items() if v != SAMPLING_PARAMS[k])
        if changed:
            raise ValueError(f"sampler= replaces the sampling parameters; got both sampler= and "
                             f"{', '.join(changed)}")
        return sampler
    if goss is not None and bag.active:
        raise ValueError("data_sample_strategy='goss' cannot be combined with bagging "
                         "(bagging_fraction < 1 with bagging_freq > 0), as in LightGBM")
    row = [s for s, on in ((sub, sub.fraction < 1.0), (bag, bag.active), (goss, goss is not None))
           if on]
    if len(row) > 1:
        raise ValueError(f"choose one row sampler: got {' and '.join(s.name for s in row)}")
    chosen = row + ([col] if col.active else [])
    if not chosen:
        return None
    return chosen[0] if len(chosen) == 1 else Chain(*chosen)
