"""Adaptive's floors on a boosting run's nodes (apsplit.experiments.floors, benchmarks.floors)."""

import json

import numpy as np
import pytest

import apsplit
from apsplit import lower_bounds
from apsplit.experiments import floors
from apsplit.experiments.loaders import load_satimage
from apsplit.kernels.search import examples_floor
from benchmarks import floors as floors_cli


@pytest.fixture(scope="module")
def result():
    X, y, classes = load_satimage()
    return floors.run(X[:400], classes[y[:400]], "satimage400", rounds=6, depth=2, every=3,
                      repeats=1, floors=(1 / 256, 1 / 16, 1 / 4))


def test_the_nodes_hold_their_bound_stops_and_finders(result):
    assert [n["round"] for n in result["nodes"]][0] == 1
    assert {n["round"] for n in result["nodes"]} == {1, 3, 6}
    for node in result["nodes"]:
        assert node["bound"] == node["n"] + sum(node["stops"])
        assert all(1 <= m <= node["n"] for m in node["stops"])
        assert 1 <= node["n_eff"] <= node["n"] + 1e-9
        for name, (assessed, scans, cpu) in node["finders"].items():
            assert assessed >= node["bound"] and scans > 0 and cpu >= 0, name
        counts = [node["finders"][str(e)][0] for e in (1 / 256, 1 / 16, 1 / 4)]
        assert counts == sorted(counts) or counts[0] <= counts[-1]


def test_node_stops_agree_with_the_weight_order_bound():
    X, y, _ = load_satimage()
    ds = apsplit.Dataset(X[:300])
    w = np.linspace(2.0, 1.0, 300)
    problem = apsplit.finders.check_problem(ds, y[:300], w, "error", None, None, False, "tight")
    stops = lower_bounds.node_stops(problem)
    assert stops.size == ds.n_features - 1
    assert lower_bounds.weight_order(ds, y[:300], w) == 300 + stops.sum()


def test_the_rule_and_its_estimate_follow_the_kernel(result):
    rule = floors.rule()
    for w in (np.ones(300), np.r_[np.ones(100), np.full(900, 1e-6)], np.geomspace(1, 1e-3, 500)):
        n_eff = w.sum() ** 2 / (w ** 2).sum()
        assert rule(w.size, n_eff) == pytest.approx(examples_floor(w, w.size), rel=1e-9)
    low, high = (floors.rule_estimate(result, lambda n, n_eff, e=e: e) for e in (1 / 256, 1 / 4))
    nodes = result["nodes"]
    bound = sum(v["bound"] for v in nodes)
    assert low[0] == pytest.approx(sum(v["finders"][str(1 / 256)][0] for v in nodes) / bound)
    assert high[0] == pytest.approx(sum(v["finders"][str(1 / 4)][0] for v in nodes) / bound)
    rows = floors.stop_table(result)
    assert rows and all(k > 0 and r > 0 for _, _, k, _, r, _ in rows)
    table = floors.format_table(result, {"rule": rule})
    assert "median m*/n_eff" in table and "rule" in table


def test_the_command_writes_its_json(tmp_path, capsys):
    path = tmp_path / "f.json"
    assert floors_cli.main(["--data", "satimage", "--rows", "300", "--rounds", "2", "--depth", "1",
                            "--every", "1", "--repeats", "1", "--caps", "0.55",
                            "--json", str(path)]) == 0
    saved = json.loads(path.read_text())
    assert saved["settings"]["rounds"] == 2 and saved["nodes"]
    assert "rule, cap 0.55" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        floors_cli.main(["--data", "satimage", "--caps", "1.5"])
