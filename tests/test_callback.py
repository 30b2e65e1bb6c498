"""Callbacks on their own (a stand-in model): XGBoost's early-stopping rule, the evaluation
monitor's lines, the progress bar, the container's log; training runs in test_training.py."""

import io
import sys

import pytest

from apsplit.adapters import (CallbackContainer, EarlyStopping, EvaluationMonitor, ProgressBar,
                              TrainingCallback)


class Model:
    """The part of Booster that callbacks use."""

    def __init__(self, rounds=0):
        self.rounds = rounds
        self.attrs = {}

    def num_boosted_rounds(self):
        return self.rounds

    def set_attr(self, **kw):
        self.attrs.update({k: str(v) for k, v in kw.items()})

    @property
    def best_iteration(self):
        return int(self.attrs["best_iteration"]) if "best_iteration" in self.attrs else None


def run(callback, scores, model=None):
    """Feed per-round scores of one metric; returns (rounds run, model)."""
    model = model or Model()
    c = CallbackContainer([callback])
    model = c.before_training(model)
    for epoch, s in enumerate(scores):
        c.record([("valid", "rmse", s)])
        if c.after_iteration(model, epoch):
            return epoch + 1, model
    return len(scores), model


def test_early_stopping_rule():
    n, model = run(EarlyStopping(2), [5, 4, 4, 4.5, 3])
    assert n == 4 and model.attrs == {"best_iteration": "1", "best_score": "4"}
    n, model = run(EarlyStopping(2, maximize=True), [1, 2, 2, 1])
    assert n == 4 and model.best_iteration == 1
    n, model = run(EarlyStopping(1, min_delta=0.5), [5, 4.6, 4])
    assert n == 2 and model.best_iteration == 0
    # continued training: epochs count from the model's rounds
    n, model = run(EarlyStopping(5), [3, 2], model=Model(rounds=10))
    assert model.best_iteration == 11


def test_early_stopping_picks_last_set_and_metric():
    model = Model()
    es = EarlyStopping(1)
    c = CallbackContainer([es])
    c.before_training(model)
    c.record([("train", "rmse", 1.0), ("valid", "rmse", 9.0), ("valid", "auc", 0.5)])
    c.after_iteration(model, 0)
    assert model.attrs["best_score"] == "0.5" and es.maximize  # auc: larger is better
    with pytest.raises(ValueError, match="no evaluation set named 'x'"):
        EarlyStopping(1, data_name="x").after_iteration(model, 0, c.history)
    with pytest.raises(ValueError, match="at least one evaluation set"):
        EarlyStopping(1).after_iteration(model, 0, {})
    with pytest.raises(ValueError, match="positive integer"):
        EarlyStopping(0)


def test_evaluation_monitor_period_and_last_line():
    out = io.StringIO()
    run(EvaluationMonitor(period=2, stream=out), [0.5, 0.25, 0.125])
    assert out.getvalue().splitlines() == ["[0]\tvalid-rmse:0.50000", "[2]\tvalid-rmse:0.12500"]
    out = io.StringIO()
    c = CallbackContainer([EvaluationMonitor(period=5, stream=out)])
    c.record([("valid", "rmse", 1.0)])
    c.after_iteration(None, 1)
    c.after_training(Model())
    assert out.getvalue() == "[1]\tvalid-rmse:1.00000\n"  # the last round is always shown


def test_progress_bar_and_container_checks():
    out = io.StringIO()
    bar = ProgressBar(total=3, stream=out)
    c = CallbackContainer([bar])
    m = c.before_training(Model())
    for i in range(3):
        c.after_iteration(m, i)
    c.after_training(m)
    assert "3/3" in out.getvalue()
    with pytest.raises(TypeError, match="TrainingCallback"):
        CallbackContainer([lambda env: None])

    class Bad(TrainingCallback):
        def before_training(self, model):
            return None

    with pytest.raises(TypeError, match="must return the model"):
        CallbackContainer([Bad()]).before_training(Model())


def test_progress_bar_without_tqdm_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)       # import tqdm.auto raises ImportError
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    out = io.StringIO()
    c = CallbackContainer([ProgressBar(total=2, stream=out)])
    m = c.before_training(Model())
    for i in range(2):
        c.after_iteration(m, i)
    c.after_training(m)
    assert 'pip install "apsplit[bench]"' in out.getvalue() and "round 2/2" in out.getvalue()


def test_callbacks_are_checked_without_xgboost(monkeypatch):
    """xgboost is optional: without it apsplit's callbacks are accepted and others refused."""
    monkeypatch.setitem(sys.modules, "xgboost", None)  # import xgboost now raises ImportError
    monkeypatch.setitem(sys.modules, "xgboost.callback", None)
    assert len(CallbackContainer([ProgressBar(total=1, stream=io.StringIO())]).callbacks) == 1
    with pytest.raises(TypeError, match="TrainingCallback"):
        CallbackContainer([object()])
