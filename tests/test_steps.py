"""Adaptive's batch sizes against assessments and CPU time (apsplit.experiments.steps, benchmarks.steps)."""

import json
from contextlib import contextmanager

import numpy as np
import pytest

import apsplit
from apsplit import finders
from apsplit.experiments import steps
from apsplit.experiments.loaders import load_satimage
from benchmarks import steps as steps_cli


def test_larger_batches_assess_more_and_every_finder_grows_the_same_trees(tmp_path):
    X, y, classes = load_satimage()
    registry = dict(finders._REGISTRY)
    result = steps.run(X[:600], classes[y[:600]], "satimage600", rounds=4, depth=2,
                       steps=(0.0, 1 / 8, 1.0))
    assert result["agree"]
    by = {row["method"]: row for row in result["rows"]}
    assert set(by) == {"exhaustive", "quick", "adaptive", "adaptive[e=0]", "adaptive[e=1/8]",
                       "adaptive[e=1]"}
    counts = [by[steps.finder_name(e)]["assessments"] for e in (0.0, 1 / 8, 1.0)]
    assert result["weight_order"] <= counts[0] <= counts[1] <= counts[2]
    assert counts[2] <= by["exhaustive"]["assessments"]
    assert counts[0] < counts[2]  # the steps matter
    # the default's floor lies between none and the largest
    assert counts[0] <= by["adaptive"]["assessments"] <= counts[2]
    assert_same_registry(registry)
    table = steps.format_table(result)
    assert "weight-order bound" in table and "every finder grew the same trees" in table
    steps.report(result, tmp_path / "s.json", tmp_path / "s.png")
    saved = json.loads((tmp_path / "s.json").read_text())
    assert saved["rows"] == result["rows"]
    assert (tmp_path / "s.png").stat().st_size > 0


def assert_same_registry(before):
    """The registry holds the same names bound to the same finder objects."""
    after = dict(finders._REGISTRY)
    assert after.keys() == before.keys()
    assert all(after[name] is before[name] for name in before)


def test_a_run_leaves_the_finder_registry_as_it_found_it_also_on_error():
    mine = apsplit.Adaptive(min_step=1 / 4)
    X, y = np.arange(40.0).reshape(20, 2), np.arange(20) % 2
    with registered("adaptive[e=1/8]", mine):  # a user's finder under a name a run would use
        registry = dict(finders._REGISTRY)
        steps.run(X, y, rounds=1, depth=1, steps=(0.0, 1 / 8))
        assert_same_registry(registry)
        with pytest.raises(ValueError, match="unknown client"):
            steps.run(X, y, rounds=1, depth=1, steps=(1 / 8, 1 / 4), client="boost7")
        assert_same_registry(registry)
    assert "adaptive[e=1/8]" not in apsplit.available_finders()


@contextmanager
def registered(name, finder):
    apsplit.register_finder(name, finder)
    try:
        yield
    finally:
        del finders._REGISTRY[name]


def test_step_labels_name_each_fraction_exactly():
    assert [steps.step_label(e) for e in (0.0, 1 / 8, 1 / 256, 1 / 1024)] == ["0", "1/8", "1/256", "1/1024"]
    assert steps.finder_name(1 / 1024) != steps.finder_name(1 / 1000)  # distinct names


@pytest.mark.parametrize("argv, message", [
    (["--steps", "0,2"], "--steps must lie in [0, 1]"),
    (["--steps", "1/0"], "--steps needs fractions like"),
    (["--steps", "x"], "--steps needs fractions like"),
    (["--steps", "0,1/8,0.125"], "--steps lists a value twice"),
    (["--client", "boost7"], "unknown client 'boost7'")])
def test_bad_arguments_are_argparse_errors(tmp_path, argv, message, capsys):
    """Each is refused with its own message, before the (missing) data file is read."""
    with pytest.raises(SystemExit) as exc:
        steps_cli.main(["--data", str(tmp_path / "missing.trn"), "--format", "uci", *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_adaptive_rejects_steps_outside_0_1():
    with pytest.raises(ValueError, match="min_step_examples must lie in"):
        apsplit.Adaptive(min_step_examples=1.5)
    with pytest.raises(ValueError, match="min_step must lie in"):
        apsplit.Adaptive(min_step=-0.1)
