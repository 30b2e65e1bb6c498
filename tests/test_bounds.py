"""The bounds benchmark (apsplit.experiments.bounds, benchmarks.bounds) in quick mode."""

import json

import pytest

from apsplit.experiments import bounds
from benchmarks import bounds as bounds_command


@pytest.fixture(scope="module")
def result():
    return bounds.run(["satimage"], criteria=("entropy", "gini"), rounds=2, repeats=1, quick=True)


def test_result_layout_and_consistency(result):
    assert [(r["node"], r["criterion"]) for r in result["nodes"]] == [("root", "entropy"),
                                                                      ("root", "gini")]
    for r in result["nodes"]:
        n, K = r["n_rows"], r["n_features"]
        for b in bounds.BOUNDS:
            assert n <= r[b]["weight_order_bound"] <= r[b]["assessments"] <= n * K
            assert r[b]["seconds"] > 0
        assert r["scores_agree"]
        assert r["assessments_tight_over_paper"] == pytest.approx(
            r["tight"]["assessments"] / r["paper"]["assessments"])
        assert r["bound_tight_over_paper"] == pytest.approx(
            r["tight"]["weight_order_bound"] / r["paper"]["weight_order_bound"])
    assert json.loads(json.dumps(result)) == result


def test_best_first_adaptive_ignores_the_upper_bounds():
    """adaptive prunes with lower bounds only: both settings assess the same pairs."""
    result = bounds.run(["satimage"], criteria=("entropy", "gini"), rounds=2, repeats=1, quick=True,
                        method="adaptive")
    assert result["settings"]["method"] == "adaptive"
    for r in result["nodes"]:
        assert r["paper"]["assessments"] == r["tight"]["assessments"]
        assert r["tight"]["weight_order_bound"] <= r["tight"]["assessments"]


def test_table_has_a_row_per_node_and_criterion(result):
    table = bounds.format_table(result)
    assert table.count("\nsatimage  root") == 2
    assert "tight/paper" in table


def test_main_writes_json_and_png(tmp_path, capsys):
    out_json, out_png = tmp_path / "b.json", tmp_path / "b.png"
    bounds_command.main(["--datasets", "satimage", "--criteria", "error", "--rounds", "1", "--repeats", "1",
                 "--json", str(out_json), "--plot", str(out_png)])
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    written = json.loads(out_json.read_text())
    assert written["settings"]["criteria"] == ["error"]
    assert written["settings"]["method"] == bounds.METHOD
    assert [n["criterion"] for n in written["nodes"]] == ["error"]
    assert str(out_png) in capsys.readouterr().out


def test_help_names_the_options(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bounds_command.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "--criteria" in out and "--method" in out


@pytest.mark.parametrize("argv", [["--criteria", "mse"], ["--criteria", ","], ["--datasets", "mnist"],
                                  ["--method", "fastest"]])
def test_bad_options_are_refused(argv):
    with pytest.raises(SystemExit) as exit_info:
        bounds_command.main(argv)
    assert exit_info.value.code == 2
