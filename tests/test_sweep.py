"""The Quick Boost parameter sweep (apsplit.experiments.sweep, benchmarks.quick_sweep)."""

import json

import pytest

from apsplit.experiments import sweep
from apsplit.experiments.loaders import load_satimage
from benchmarks import quick_sweep


def test_sweep_finds_the_cheapest_cell_and_writes_its_files(tmp_path):
    X, y, classes = load_satimage()
    result = sweep.run(X[:400], classes[y[:400]], "satimage400", rounds=2, depth=2,
                       fractions=(0.1, 0.4), batches=(5, 50))
    counts = [c for row in result["quick"] for c in row]
    assert result["best"]["assessments"] == min(counts)
    assert max(counts) > min(counts)  # the parameters matter
    assert result["adaptive"] <= min(counts)
    table = sweep.format_table(result)
    assert "best: Quick(" in table
    sweep.report(result, tmp_path / "s.json", tmp_path / "s.png")
    assert json.loads((tmp_path / "s.json").read_text())["quick"] == result["quick"]
    assert (tmp_path / "s.png").stat().st_size > 0


def test_bad_arguments_are_argparse_errors(tmp_path):
    with pytest.raises(SystemExit) as exc:
        quick_sweep.main(["--data", str(tmp_path / "missing.trn"), "--format", "uci"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        quick_sweep.main(["--data", "x", "--format", "csv"])
