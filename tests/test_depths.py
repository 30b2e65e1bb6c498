"""The depth sweep (apsplit.experiments.depths, benchmarks.depths): the paper's Table 10."""

import json

import pytest

from apsplit.experiments import depths
from apsplit.experiments.loaders import load_satimage
from benchmarks import depths as depths_command


@pytest.fixture(scope="module")
def result():
    X, y, _ = load_satimage()
    return depths.run(X[:200], y[:200], "satimage", rounds=3, depths=(1, 2))


def test_every_depth_has_both_finders_on_the_same_trees(result):
    assert [r["depth"] for r in result["depths"]] == [1, 2]
    assert result["agree"]
    for r in result["depths"]:
        a, q = r["assessments"]["adaptive"], r["assessments"]["quick"]
        assert r["weight_order_bound"] <= a and r["weight_order_bound"] <= q
        assert r["improvement"]["assessments_percent"] == pytest.approx(100 * (q - a) / q)
    # a deeper tree splits more nodes: more assessments
    assert result["depths"][1]["assessments"]["quick"] > result["depths"][0]["assessments"]["quick"]


def test_table_shows_the_papers_figures_only_for_its_setting(result):
    table = depths.format_table(result)
    assert "satimage (200 rows), adaboost, 3 rounds" in table
    assert "paper AP" in table and "1.23e+09" not in table
    a6a = {**result, "dataset": "a8a", "rows": 11220, "rounds": 500,
           "depths": [{**result["depths"][1]}]}
    assert "1.23e+09" in depths.format_table(a6a) and "4.7%" in depths.format_table(a6a)


def test_command(tmp_path, capsys):
    out = tmp_path / "d.json"
    status = depths_command.main(["--data", "satimage", "--rows", "150", "--rounds", "2",
                                  "--depths", "1,3", "--no-progress", "--json", str(out),
                                  "--plot", str(tmp_path / "d.png")])
    assert status == 0
    assert [r["depth"] for r in json.loads(out.read_text())["depths"]] == [1, 3]
    assert (tmp_path / "d.png").stat().st_size > 0
    assert "AP saves" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--depths", "0,1"], "distinct integers >= 1"), (["--depths", "1,1"], "distinct integers"),
    (["--depths", "x"], "needs integers"), (["--client", "boost"], "client")])
def test_bad_arguments(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        depths_command.main(["--data", "satimage", "--json", str(tmp_path / "x.json"), *argv])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
