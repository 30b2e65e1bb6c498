"""Training callbacks in XGBoost's protocol (``xgboost.callback``).

A callback subclasses ``TrainingCallback`` and overrides any of its hooks:

before_training(model) -> model        once, before the first round
after_training(model) -> model         once, after the last
before_iteration(model, epoch, evals_log) -> bool   True stops before the round
after_iteration(model, epoch, evals_log) -> bool    True stops after it

``evals_log`` is ``{data_name: {metric_name: [value per round]}}``, kept by
the ``CallbackContainer`` that ``train`` runs.  ``EarlyStopping``,
``EvaluationMonitor`` and ``ProgressBar`` are built on the protocol.
Instances of ``xgboost.callback.TrainingCallback`` (XGBoost's own
``EarlyStopping``, ``EvaluationMonitor`` ...) run too: apsplit's ``Booster``
has the methods they call (``attr``, ``set_attr``, ``num_boosted_rounds``,
slicing).  Unlike XGBoost's container, every callback's ``after_iteration``
runs each round, even after one has asked to stop.
"""

import sys

import numpy as np

from ..optional import install_command, installed
from .metrics import MAXIMIZE

__all__ = ["TrainingCallback", "CallbackContainer", "EarlyStopping", "EvaluationMonitor",
           "ProgressBar"]


class TrainingCallback:
    """Base of the training callbacks; every hook does nothing by default."""

    def before_training(self, model):
        return model

    def after_training(self, model):
        return model

    def before_iteration(self, model, epoch, evals_log):
        return False

    def after_iteration(self, model, epoch, evals_log):
        return False


def _is_callback(cb):
    if isinstance(cb, TrainingCallback):
        return True
    xgboost_callback = installed("xgboost.callback")  # without xgboost, none of its callbacks
    return xgboost_callback is not None and isinstance(cb, xgboost_callback.TrainingCallback)


class CallbackContainer:
    """Runs the callbacks and keeps ``history``: the evaluation log of every round."""

    def __init__(self, callbacks):
        callbacks = list(callbacks or ())
        for cb in callbacks:
            if not _is_callback(cb):
                raise TypeError(f"callbacks must be TrainingCallback instances, got {cb!r}")
        self.callbacks = callbacks
        self.history = {}

    def record(self, scores):
        """Append one round's ``[(data_name, metric_name, value), ...]`` to ``history``."""
        for data, metric, value in scores:
            self.history.setdefault(data, {}).setdefault(metric, []).append(value)

    def before_training(self, model):
        for cb in self.callbacks:
            model = cb.before_training(model=model)
            if model is None:
                raise TypeError(f"{type(cb).__name__}.before_training must return the model")
        return model

    def after_training(self, model):
        for cb in self.callbacks:
            model = cb.after_training(model=model)
            if model is None:
                raise TypeError(f"{type(cb).__name__}.after_training must return the model")
        return model

    def before_iteration(self, model, epoch):
        return any([cb.before_iteration(model, epoch, self.history) for cb in self.callbacks])

    def after_iteration(self, model, epoch):
        return any([cb.after_iteration(model, epoch, self.history) for cb in self.callbacks])


class EarlyStopping(TrainingCallback):
    """Stop once the score has not improved for ``rounds`` rounds (XGBoost's rule).

    The score is ``metric_name`` (default: the last metric) on ``data_name``
    (default: the last evaluation set).  ``maximize`` defaults to True for
    metrics that grow with quality (auc ...).  An improvement must beat the
    best by more than ``min_delta``.  The model gets ``best_iteration`` and
    ``best_score``; ``save_best=True`` returns it cut after the best round.
    """

    def __init__(self, rounds, metric_name=None, data_name=None, maximize=None, save_best=False,
                 min_delta=0.0):
        if not (isinstance(rounds, (int, np.integer)) and rounds > 0):
            raise ValueError(f"early stopping rounds must be a positive integer, got {rounds!r}")
        if not (min_delta >= 0):
            raise ValueError(f"min_delta must be non-negative, got {min_delta!r}")
        self.rounds = int(rounds)
        self.metric_name = metric_name
        self.data_name = data_name
        self.maximize = maximize
        self.save_best = save_best
        self.min_delta = float(min_delta)
        self.best_score = None
        self.current_rounds = 0
        self.starting_round = 0

    def before_training(self, model):
        self.starting_round = model.num_boosted_rounds()
        self.best_score = None
        self.current_rounds = 0
        return model

    def _improved(self, score):
        if self.best_score is None:
            return True
        if self.maximize:
            return score - self.min_delta > self.best_score
        return self.best_score - self.min_delta > score

    def after_iteration(self, model, epoch, evals_log):
        if not evals_log:
            raise ValueError("early stopping needs at least one evaluation set (evals=)")
        data = self.data_name if self.data_name is not None else list(evals_log)[-1]
        if data not in evals_log:
            raise ValueError(f"early stopping: no evaluation set named {data!r}; "
                             f"have {list(evals_log)}")
        log = evals_log[data]
        metric = self.metric_name if self.metric_name is not None else list(log)[-1]
        if metric not in log:
            raise ValueError(f"early stopping: no metric {metric!r} on {data!r}; have {list(log)}")
        if self.maximize is None:
            self.maximize = any(metric.startswith(m) for m in MAXIMIZE)
        score = log[metric][-1]
        if isinstance(score, tuple):
            score = score[0]
        if self._improved(score):
            self.best_score = score
            self.current_rounds = 0
            model.set_attr(best_score=str(score), best_iteration=str(epoch + self.starting_round))
        else:
            self.current_rounds += 1
        return self.current_rounds >= self.rounds

    def after_training(self, model):
        if not self.save_best or model.best_iteration is None:
            return model
        best_iteration, best_score = model.best_iteration, model.best_score
        model = model[: best_iteration + 1]
        model.set_attr(best_iteration=str(best_iteration), best_score=str(best_score))
        return model


class EvaluationMonitor(TrainingCallback):
    """Print ``[epoch]\\tdata-metric:value ...`` every ``period`` rounds and at the last one."""

    def __init__(self, period=1, show_stdv=False, stream=None):
        self.period = int(period)
        self.show_stdv = show_stdv
        self.stream = stream
        self._latest = None

    def _line(self, epoch, evals_log):
        parts = [f"[{epoch}]"]
        for data, metrics in evals_log.items():
            for metric, values in metrics.items():
                parts.append(f"{data}-{metric}:{values[-1]:.5f}")
        return "\t".join(parts)

    def after_iteration(self, model, epoch, evals_log):
        if not evals_log:
            return False
        line = self._line(epoch, evals_log)
        if self.period > 0 and epoch % self.period == 0:
            print(line, file=self.stream or sys.stdout)
            self._latest = None
        else:
            self._latest = line
        return False

    def after_training(self, model):
        if self._latest is not None:
            print(self._latest, file=self.stream or sys.stdout)
        return model


class ProgressBar(TrainingCallback):
    """A progress bar over the boosting rounds: tqdm's when installed, else a line on stderr.

    ``total`` is the number of rounds (``train`` fills it in when None);
    the bar shows the last evaluation score.
    """

    def __init__(self, total=None, stream=None):
        self.total = total
        self.stream = stream
        self._bar = None
        self._done = 0

    def before_training(self, model):
        tqdm = installed("tqdm.auto")
        if tqdm is None:
            print(f"(a line per round: for tqdm's bar, {install_command('tqdm')})",
                  file=self.stream or sys.stderr)
        else:
            self._bar = tqdm.tqdm(total=self.total, unit="round", file=self.stream)
        self._done = 0
        return model

    def after_iteration(self, model, epoch, evals_log):
        self._done += 1
        last = None
        for data, metrics in evals_log.items():
            for metric, values in metrics.items():
                last = f"{data}-{metric}={values[-1]:.5g}"
        if self._bar is not None:
            self._bar.update(1)
            if last:
                self._bar.set_postfix_str(last)
        else:
            total = "?" if self.total is None else self.total
            print(f"\rround {self._done}/{total}" + (f" {last}" if last else ""),
                  end="", file=self.stream or sys.stderr)
        return False

    def after_training(self, model):
        if self._bar is not None:
            self._bar.close()
        else:
            print(file=self.stream or sys.stderr)
        return model
