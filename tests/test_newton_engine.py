"""benchmarks.newton_engine (apsplit.experiments.newton_engine): its optional XGBoost part."""

import sys

from apsplit.experiments import newton_engine


def test_the_xgboost_comparison_without_xgboost_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "xgboost", None)  # import xgboost now raises ImportError
    newton_engine.against_xgboost(1, 100)
    assert 'skipped: xgboost is not installed (pip install "apsplit[xgboost]")' \
        in capsys.readouterr().out


def test_the_named_and_positional_passes_find_the_same_split(capsys):
    """The positional copy the named-state figure is timed against is the same loop: it
    finds the same split on satimage's columns, blocks and tests included."""
    assert newton_engine.named_state(1)
    assert "the same split: yes" in capsys.readouterr().out
