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


def test_sampling_clients(tmp_path, capsys):
    path = tmp_path / "c.json"
    gbm_command.main(["--datasets", "agaricus", "--quick", "--depth", "3", "--json", str(path),
                      "--clients", "goss,subsample0.5,colsample0.5,bagging0.5"])
    out = capsys.readouterr().out
    assert "rows/round" in out and "apsplit goss" in out
    (d,) = json.loads(path.read_text())["datasets"]
    models = {r["model"]: r for r in d["rows"]}
    n, k = d["train_rows"], d["features"]
    assert models["apsplit colsample0.5"]["features_per_round"] == k // 2
    assert models["apsplit colsample0.5"]["rows_per_round"] == n
    assert 0 < models["apsplit subsample0.5"]["rows_per_round"] < n
    assert "margin_difference_vs_xgb_exact" not in models["apsplit goss"]
    if "LightGBM goss" in models:  # its root counts: fewer rows after the warm-up
        assert models["LightGBM goss"]["rows_per_round"] < n
    with pytest.raises(SystemExit):
        gbm_command.main(["--clients", "subsample2"])
    assert "subsample takes a fraction in (0, 1]" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        gbm_command.main(["--clients", "dart"])
    assert "unknown client 'dart'" in capsys.readouterr().err
