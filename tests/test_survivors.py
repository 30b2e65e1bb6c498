"""The prefilter's survivors per node (apsplit.experiments.survivors, benchmarks.survivors)."""

import json

import numpy as np

from apsplit import Dataset, find_split
from apsplit.experiments import survivors
from apsplit.experiments.loaders import load_satimage
from apsplit.finders import check_problem
from benchmarks import survivors as survivors_command


def _problem(ds, y):
    return check_problem(ds, y, np.ones(y.size), "gini", None, None, False)


def test_a_separating_feature_leaves_one_survivor():
    """Feature 2 separates the classes; the noise features' every split is provably worse."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 6))
    y = (X[:, 2] > 0.1).astype(np.int64)
    counter = survivors.SurvivorCounter()
    split = counter.find(_problem(Dataset(X, prefilter=True), y))
    assert split.feature == 2
    assert counter.calls == [(3000, 6, 1)]
    plain = find_split(Dataset(X, prefilter=False), y, criterion="gini", method="exhaustive")
    assert (plain.feature, plain.threshold, plain.score) == (split.feature, split.threshold,
                                                            split.score)


def test_noise_keeps_more_features():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 6))
    y = rng.integers(0, 2, 3000)
    counter = survivors.SurvivorCounter()
    counter.find(_problem(Dataset(X, prefilter=True), y))
    assert 1 < counter.calls[0][2] <= 6


def test_run_and_command(tmp_path, capsys):
    X, y, _ = load_satimage()
    result = survivors.run(X[:300], y[:300], "satimage", rounds=3, depth=2)
    assert result["rounds"] == 3
    for r in result["per_round"]:
        assert 1 <= r["nodes"] <= 3
        assert 0 <= r["mean_survivors"] <= r["max_survivors"] <= X.shape[1]
        assert 0.0 <= r["pair_share"] <= 1.0
    out = tmp_path / "s.json"
    assert survivors_command.main(["--data", "satimage", "--size", "500", "--rounds", "2",
                                   "--depth", "2", "--json", str(out),
                                   "--plot", str(tmp_path / "s.png")]) == 0
    assert json.loads(out.read_text())["rows"] == 500
    assert (tmp_path / "s.png").stat().st_size > 0
    assert "survivors / node" in capsys.readouterr().out
