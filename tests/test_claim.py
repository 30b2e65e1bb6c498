"""The all-clients CPU table (apsplit.experiments.claim, benchmarks.claim)."""

import json
import math

import pytest

from apsplit.experiments import claim, paper
from apsplit.experiments.loaders import load_satimage
from benchmarks import claim as claim_command


@pytest.fixture(scope="module")
def result():
    X, y, classes = load_satimage()
    data = {"X": X[:300], "y": classes[y[:300]]}
    return claim.run([("satimage", data, None, 3), ("satimage", data, 1, 2)],
                     clients=("adaboost", "trim0.9"), depth=2, rounds=5)


def test_every_cell_compares_the_finders_on_the_same_trees(result):
    assert [(c["client"], c["depth"], c["rounds"]) for c in result["cells"]] == \
        [("adaboost", 2, 3), ("trim0.9", 2, 3), ("adaboost", 1, 2), ("trim0.9", 1, 2)]
    assert result["agree"]
    for c in result["cells"]:
        bound = c["weight_order_bound"]
        assert bound <= c["assessments"]["adaptive"] <= c["assessments"]["exhaustive"]
        assert bound <= c["assessments"]["quick"]
        assert c["cpu_ratio"] == c["cpu_seconds"]["adaptive"] / c["cpu_seconds"]["quick"]
        assert c["bound_ratio"] == c["assessments"]["adaptive"] / bound
        assert c["meets"] == (c["cpu_ratio"] < 1 and c["bound_ratio"] <= claim.BOUND_SLACK)
    assert result["meets"] == all(c["meets"] for c in result["cells"])


def test_table_says_whether_the_claim_holds_per_cell(result):
    table = claim.format_table(result)
    assert "AP / QB CPU" in table and "check: every finder grew the same trees" in table
    assert f"claim met in {sum(c['meets'] for c in result['cells'])} of 4 cells" in table
    failed = {**result, "cells": [{**result["cells"][0], "agree": False, "meets": False,
                                   "mismatches": ["quick: other trees"]}], "agree": False}
    text = claim.format_table(failed)
    assert "ERROR satimage adaboost: quick: other trees" in text and "NOT met" in text


@pytest.mark.parametrize("text, spec", [
    ("satimage", ("satimage", None, None, None)),
    ("a8a:11220", ("a8a", 11220, None, None)),
    ("m.npz:3000:4:300", ("m.npz", 3000, 4, 300)),
    ("m.npz::4", ("m.npz", None, 4, None))])
def test_dataset_specs(text, spec):
    assert tuple(claim.parse_spec(text)) == spec


@pytest.mark.parametrize("text", ["", "a:0", "a:x", "a:1:2:3:4"])
def test_bad_dataset_specs_are_refused(text):
    with pytest.raises(ValueError):
        claim.parse_spec(text)


def test_command_writes_table_json_and_plot(tmp_path, capsys):
    out = tmp_path / "c.json"
    status = claim_command.main(["--datasets", "satimage:200", "--clients", "adaboost,lazy0.5",
                                 "--rounds", "2", "--depth", "1", "--repeats", "1",
                                 "--min-seconds", "0", "--no-progress", "--json", str(out),
                                 "--plot", str(tmp_path / "c.png")])
    assert status == 0
    printed = capsys.readouterr().out
    assert "satimage (200 rows)" in printed and "lazy0.5" in printed
    saved = json.loads(out.read_text())
    assert [c["client"] for c in saved["cells"]] == ["adaboost", "lazy0.5"]
    assert all(len(c["cpu_seconds_repeats"]["quick"]) == 1 for c in saved["cells"])
    assert (tmp_path / "c.png").stat().st_size > 0


def test_the_claim_needs_both_adaptive_and_quick():
    with pytest.raises(ValueError, match="both must be in methods"):
        claim.run([], methods=("adaptive", "exhaustive"))


def test_a_short_cell_is_timed_until_its_fits_add_up_to_min_seconds(monkeypatch):
    X, y, classes = load_satimage()
    data = {"X": X[:200], "y": classes[y[:200]]}
    monkeypatch.setattr(paper, "MAX_TURNS", 3)
    spec = [("satimage", data, 1, 2)]
    for min_seconds, fits in ((0.0, 2), (1e9, 3)):  # none more; as many as MAX_TURNS allows
        result = claim.run(spec, clients=("adaboost",), repeats=2, min_seconds=min_seconds)
        (cell,) = result["cells"]
        assert result["min_seconds"] == min_seconds
        for method, times in cell["cpu_seconds_repeats"].items():
            assert len(times) == fits
            assert cell["cpu_seconds"][method] == min(times)
        header, row = claim.format_table(result).splitlines()[1:3]
        assert header.split()[4] == "fits" and row.split()[6] == str(fits)  # after "(200 rows)"
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="min_seconds must be a number of seconds >= 0"):
            claim.run(spec, clients=("adaboost",), min_seconds=bad)


@pytest.mark.parametrize("value", ["-1", "nan", "inf", "soon"])
def test_bad_min_seconds_are_refused_by_the_command(value, capsys):
    with pytest.raises(SystemExit):
        claim_command.main(["--min-seconds", value])
    assert "must be a number of seconds >= 0" in capsys.readouterr().err
