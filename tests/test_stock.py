"""The benchmark against the stock libraries (apsplit.experiments.stock) and ``python -m benchmarks.stock``."""

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from apsplit.experiments import stock
from benchmarks import stock as stock_command

ROOT = Path(__file__).resolve().parents[1]
ROUNDS, ROWS = 3, 300
PNG = b"\x89PNG\r\n\x1a\n"
MODEL_KEYS = {"model", "library", "input", "method", "fit_seconds", "fit_seconds_repeats",
              "train_accuracy", "test_accuracy", "assessments", "rounds_run", "over_sklearn_best",
              "trajectory"}
DATASET_KEYS = {"dataset", "n_train", "n_test", "n_features", "n_classes", "sparse", "test_source",
                "binning_seconds", "sklearn_best_input", "sklearn_best_seconds",
                "trajectory_reference", "models", "unavailable"}
DENSE_MODELS = [("AdaBoost + DecisionTree", "dense float64"), ("AdaBoost + DecisionTree", "dense float32"),
                ("AdaBoost + APTree (adaptive)", "dense float64"),
                ("AdaBoost + APTree (exhaustive)", "dense float64"),
                ("APBoost (adaptive)", "dense float64"), ("APBoost (exhaustive)", "dense float64"),
                ("XGBoost exact", "dense float64"), ("XGBoost hist", "dense float64"),
                ("LightGBM", "dense float64")]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """A quick run of the command on 300 satimage rows, 3 rounds: (JSON dict, its printout, PNG path)."""
    folder = tmp_path_factory.mktemp("stock")
    json_path, png_path = folder / "s.json", folder / "s.png"
    argv = ["--datasets", "satimage", "--rounds", str(ROUNDS), "--rows", str(ROWS),
            "--methods", "adaptive,exhaustive", "--repeats", "2", "--no-progress",
            "--json", str(json_path), "--plot", str(png_path)]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        stock_command.main(argv)
    return json.loads(json_path.read_text()), printed.getvalue(), png_path


def test_json_layout(outputs):
    result, _, _ = outputs
    assert set(result) == {"settings", "datasets"}
    s = result["settings"]
    assert (s["datasets"], s["rounds"], s["depth"], s["criterion"], s["methods"], s["repeats"]) == \
        (["satimage"], ROUNDS, 3, "gini", ["adaptive", "exhaustive"], 2)
    assert s["xgboost"] and s["lightgbm"] and s["date"]
    [d] = result["datasets"]
    assert DATASET_KEYS <= set(d)
    assert (d["n_train"], d["n_test"], d["n_features"], d["n_classes"], d["sparse"]) == \
        (ROWS, ROWS, 36, 6, False)
    assert "held-out 20%" in d["test_source"] and d["unavailable"] == {}
    assert [(m["model"], m["input"]) for m in d["models"]] == DENSE_MODELS


def test_every_model_row(outputs):
    [d] = outputs[0]["datasets"]
    for m in d["models"]:
        assert MODEL_KEYS <= set(m)
        assert m["fit_seconds"] > 0 and len(m["fit_seconds_repeats"]) == 2
        assert m["fit_seconds"] == min(m["fit_seconds_repeats"])
        assert 0 <= m["train_accuracy"] <= 1 and 0 <= m["test_accuracy"] <= 1
        assert m["rounds_run"] == ROUNDS
        apsplit_model = m["library"] in ("apsplit", "scikit-learn + APTree")
        assert (m["assessments"] is not None) == apsplit_model
        if apsplit_model:
            nodes = 2 ** 3 - 1
            assert 0 < m["assessments"] <= ROUNDS * nodes * ROWS * 36


def test_ratio_to_sklearn_best(outputs):
    [d] = outputs[0]["datasets"]
    sklearn = {m["input"]: m["fit_seconds"] for m in d["models"] if m["library"] == "scikit-learn"}
    assert d["sklearn_best_input"] == min(sklearn, key=sklearn.get)
    assert d["sklearn_best_seconds"] == min(sklearn.values())
    for m in d["models"]:
        assert m["over_sklearn_best"] == pytest.approx(m["fit_seconds"] / d["sklearn_best_seconds"])


def test_trajectory_is_reported(outputs):
    [d] = outputs[0]["datasets"]
    assert d["trajectory_reference"].endswith("dense float32")
    for m in d["models"]:
        reference = m["library"] == "scikit-learn" and m["input"] == "dense float32"
        if reference or m["library"] in ("xgboost", "lightgbm"):
            assert m["trajectory"] is None
            continue
        t = m["trajectory"]
        assert set(t) == {"equal", "first_differing_round", "rounds", "reference_rounds"}
        assert t["equal"] == (t["first_differing_round"] is None)
        assert t["rounds"] == t["reference_rounds"] == ROUNDS
    # every finder grows the same trees: their trajectories agree with each other
    by_model = {m["model"]: m["trajectory"] for m in d["models"]}
    assert by_model["APBoost (adaptive)"] == by_model["APBoost (exhaustive)"]


def test_table_and_plot(outputs):
    result, printed, png = outputs
    assert png.read_bytes()[:8] == PNG
    for name, layout in DENSE_MODELS:
        assert name in printed
    assert "vs sklearn" in printed and "held-out 20%" in printed and "wrote" in printed
    assert ("same" in printed) or ("differs @" in printed)


def test_trajectory_comparison():
    assert stock._trajectory([0.5, 0.6], [0.5, 0.6])["first_differing_round"] is None
    assert stock._trajectory([0.5, 0.7, 0.8], [0.5, 0.6, 0.8]) == {
        "equal": False, "first_differing_round": 2, "rounds": 3, "reference_rounds": 3}
    assert stock._trajectory([0.5], [0.5, 0.6])["first_differing_round"] == 2


def test_sparse_inputs_and_missing_libraries(monkeypatch):
    """Sparse data adds sklearn's CSC input; a library that is not installed is a note, not a row."""
    rng = np.random.default_rng(1)
    X = sp.random(200, 12, density=0.3, format="csr", random_state=2, data_rvs=lambda n: np.ones(n))
    y = (np.asarray(X[:, 0].todense()).ravel() + rng.random(200) > 0.8).astype(np.int64)
    data = {"X": X, "y": y, "X_test": X[:50], "y_test": y[:50], "classes": np.array([0, 1]),
            "test_source": "rows 0-49"}
    real = stock.installed
    monkeypatch.setattr(stock, "installed",
                        lambda m: None if m == "lightgbm" else real(m))
    d = stock.run_dataset("toy", data, rounds=2, depth=2, criterion="entropy", methods=["adaptive"],
                          repeats=1, threads=1)
    assert d["sparse"] and set(d["unavailable"]) == {"lightgbm"}
    assert [(m["model"], m["input"]) for m in d["models"]] == [
        ("AdaBoost + DecisionTree", "dense float64"), ("AdaBoost + DecisionTree", "dense float32"),
        ("AdaBoost + DecisionTree", "CSC float32"), ("AdaBoost + APTree (adaptive)", "CSR float64"),
        ("APBoost (adaptive)", "CSR float64"), ("XGBoost exact", "CSR float64"),
        ("XGBoost hist", "CSR float64")]
    text = stock.format_table({"settings": {"rounds": 2, "depth": 2, "criterion": "entropy",
                                            "repeats": 1, "threads": 1},
                               "datasets": [d]})
    assert "skipped lightgbm rows: not installed" in text and "CSC float32" in text


def test_load_split():
    held = stock.load_split("satimage", holdout=0.25)
    assert held["X"].shape[0] + held["X_test"].shape[0] == 4435
    assert held["X_test"].shape[0] == pytest.approx(4435 * 0.25, abs=1)
    none = stock.load_split("satimage", holdout=0, rows=100)
    assert none["X"].shape == (100, 36) and none["X_test"] is None and none["test_source"] == "none"
    with pytest.raises(ValueError, match="unknown bundled dataset 'mnist'"):
        stock.load_split("mnist")


def test_test_files():
    data = stock.load_split("agaricus")
    assert sp.issparse(data["X"]) and data["X_test"].shape == (1611, 126)
    assert data["test_source"] == "test file agaricus.test.svm.gz"
    assert set(np.unique(data["y_test"])) <= {0, 1}
    higgs = stock.load_split("higgs7k", rows=100)
    assert higgs["X"].shape == (100, 28) and higgs["X_test"].shape == (100, 28)


def test_help():
    done = subprocess.run([sys.executable, "-m", "benchmarks.stock", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for option in ("--rounds", "--depth", "--criterion", "--methods", "--datasets", "--quick",
                   "--repeats", "--json", "--plot", "python -m benchmarks.stock"):
        assert option in done.stdout


@pytest.mark.parametrize("argv, message", [
    (["--criterion", "error"], "invalid choice: 'error'"),
    (["--methods", "adaptive,fast"], "unknown method 'fast'"),
    (["--methods", "quick,quick"], "listed twice"),
    (["--rounds", "0"], "must be an integer >= 1"),
    (["--depth", "x"], "argument --depth"),
    (["--datasets", "satimage,mnist"], "unknown datasets ['mnist']"),
    (["--holdout", "1.5"], "expected a number in [0, 1)"),
])
def test_bad_arguments(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        stock_command.main(argv + ["--json", str(tmp_path / "x.json")])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_python_api_errors():
    with pytest.raises(ValueError, match="unknown criterion 'error'"):
        stock.run(["satimage"], criterion="error")
    with pytest.raises(ValueError, match="unknown method 'fast'"):
        stock.run(["satimage"], methods=["fast"])
    with pytest.raises(ValueError, match="holdout"):
        stock.run(["satimage"], holdout=1.0)
