"""The gradient-boosting benchmark (apsplit.experiments.gbm) and ``python -m benchmarks.gbm``."""

import json

import pytest

from apsplit.experiments import gbm
from benchmarks import gbm as gbm_command


def test_quick_run_on_one_dataset(tmp_path, capsys):
    path = tmp_path / "g.json"
    gbm_command.main(["--datasets", "agaricus", "--quick", "--depth", "3", "--json", str(path)])
    out = capsys.readouterr().out
    assert "apsplit (exhaustive)" in out and f"wrote {path}" in out
    result = json.loads(path.read_text())
    (d,) = result["datasets"]
    assert d["dataset"] == "agaricus" and d["train_rows"] == gbm.QUICK_ROWS
    models = {r["model"]: r for r in d["rows"]}
    assert "apsplit (exhaustive)" in models and "HistGradientBoosting" in models
    if "XGBoost exact" in models:  # the same model: margins within 1e-5
        assert models["apsplit (exhaustive)"]["margin_difference_vs_xgb_exact"] < gbm.SAME
        assert models["XGBoost exact"]["over_xgb_exact"] == 1.0
    assert all(0 <= r["test_accuracy"] <= 1 and r["fit_seconds"] > 0 for r in d["rows"])


def test_bad_arguments(capsys):
    with pytest.raises(SystemExit):
        gbm_command.main(["--datasets", "nope"])
    assert "unknown datasets ['nope']" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        gbm_command.main(["--data", "x.svm"])
    assert "one --format per --data" in capsys.readouterr().err
