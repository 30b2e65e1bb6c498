"""The thread speed-up benchmark (apsplit.experiments.threads, benchmarks.threads)."""

import json

import numba
import numpy as np
import pytest

from apsplit.experiments import threads
from benchmarks import threads as threads_command


@pytest.mark.skipif(numba.get_num_threads() < 2, reason="one thread: nothing to compare")
def test_the_benchmark_checks_the_models_and_writes_its_results(capsys, tmp_path):
    json_path, plot_path = tmp_path / "threads.json", tmp_path / "threads.png"
    assert threads_command.main(["--datasets", "satimage", "--rounds", "2", "--repeats", "1",
                                 "--json", str(json_path), "--plot", str(plot_path)]) == 0
    result = json.loads(json_path.read_text())
    models = {m["model"]: m for m in result["datasets"][0]["models"]}
    assert set(models) == {"apsplit Newton", "apsplit AdaBoost", "XGBoost exact", "LightGBM"}
    for name in ("apsplit Newton", "apsplit AdaBoost"):
        assert models[name]["same"] == {"1": True, "2": True}
    assert all(s > 0 for m in models.values() for s in m["seconds"].values())
    parts = models["apsplit AdaBoost"]["parts"]
    for t in ("1", "2"):  # the fastest fit's parts (not another fit's): they add up to it
        assert list(parts[t]) == threads.ADABOOST_PARTS
        assert all(seconds > 0 for seconds in parts[t].values())  # binning X takes time too
        assert sum(parts[t].values()) == pytest.approx(models["apsplit AdaBoost"]["seconds"][t])
    assert all(not m["parts"] for name, m in models.items() if name != "apsplit AdaBoost")
    replay = result["datasets"][0]["replay"]
    assert replay["same"]
    for part in ("trees", "ideal"):  # every round's tree and ideal loop, at every count
        assert set(replay[part]) == {"1", "2"}
        assert all(len(seconds) == 2 and min(seconds) > 0 for seconds in replay[part].values())
    assert plot_path.stat().st_size > 0
    out = capsys.readouterr().out
    assert "speed-up 2" in out and "NO" not in out
    assert "rounds' bookkeeping" in out and "grown again" in out
    assert "the same trees at every count" in out


@pytest.mark.parametrize("n_rounds, groups", [
    (0, []), (1, [(1, 1)]), (3, [(1, 1), (2, 2), (3, 3)]),
    (20, [(1, 1), (2, 5), (6, 10), (11, 15), (16, 20)]),
    (100, [(1, 1), (2, 25), (26, 50), (51, 75), (76, 100)])])
def test_rounds_are_grouped_after_the_first(n_rounds, groups):
    assert threads.round_groups(n_rounds) == groups


def _result(bookkeeping_two_threads, same=True):
    seconds = {"1": 1.0, "2": 0.6}
    parts = {"1": {"trees": 0.7, "rounds' bookkeeping": 0.1, "binning and the rest": 0.2},
             "2": {"trees": 0.4, "rounds' bookkeeping": bookkeeping_two_threads,
                   "binning and the rest": 0.1}}
    model = {"model": "apsplit AdaBoost", "seconds": seconds, "same": {"1": True, "2": True},
             "parts": parts}
    replay = {"trees": {"1": [0.3, 0.2, 0.2], "2": [0.2, 0.1, 0.1]},
              "ideal": {"1": [0.2, 0.2, 0.2], "2": [0.1, 0.1, 0.125]}, "same": same}
    return {"rounds": 3, "threads": [1, 2], "repeats": 1, "load_average": [0.0, 0.0, 0.0],
            "cpus": 2, "datasets": [{"dataset": "d", "rows": 10, "features": 2,
                                     "models": [model], "replay": replay}]}


def test_the_table_groups_the_rounds_and_says_when_the_one_thread_part_slowed():
    table = threads.format_table(_result(0.1))
    rounds = table.split("grown again")[1]
    lines = {line.split()[1]: line.split()[2:] for line in rounds.splitlines()
             if line.startswith("d ")}
    assert list(lines) == ["1", "2", "3", "all"]  # rounds 2 and 3 apart
    # round 1's 0.3 s in milliseconds; the trees' speed-up, the ideal loop's, their ratio
    assert lines["1"] == ["300.000", "200.000", "1.50x", "2.00x", "75%"]
    assert lines["2"][2:] == ["2.00x", "2.00x", "100%"]
    assert lines["3"][2:] == ["2.00x", "1.60x", "125%"]  # the ideal loop slowed: 0.2 / 0.125
    assert lines["all"] == ["700.000", "400.000", "1.75x", "1.85x", "95%"]  # 0.6 / 0.325
    assert "the same trees at every count" in rounds
    assert "cores were shared" not in table
    shared = threads.format_table(_result(0.2))  # the one-thread part at half speed
    assert "cores were shared" in shared and "d at 2 threads (0.50x)" in shared
    assert "trees DIFFER between counts on d" in threads.format_table(_result(0.1, same=False))


def test_the_ideal_loop_sums_every_feature_on_any_thread_count():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, threads.IDEAL_BINS, (5, 300), dtype=np.uint8)
    w, y = rng.random(300), rng.integers(0, 2, 300)
    expected = np.zeros((5, threads.IDEAL_BINS, 2))
    for k in range(5):
        np.add.at(expected[k], (codes[k].astype(np.intp), y), w)
    for n_threads in (1, 2, 3):
        hist = np.zeros_like(expected)
        threads.ideal_loop(codes, w, y, hist, n_threads)
        np.testing.assert_allclose(hist, expected, rtol=1e-12)


def test_a_different_model_is_reported():
    assert not threads._same([[1.0, 2.0]], [[1.0, 3.0]])
    assert threads._same([[1.0, float("nan")]], [[1.0, float("nan")]])
    assert not threads._same(None, [[1.0]])


def test_bad_thread_counts_are_refused(capsys):
    with pytest.raises(SystemExit):
        threads_command.main(["--threads", "0,2"])
    assert "threads" in capsys.readouterr().err
