"""The thread speed-up benchmark (apsplit.experiments.threads, benchmarks.threads)."""

import json

import numba
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
    assert plot_path.stat().st_size > 0
    out = capsys.readouterr().out
    assert "speed-up 2" in out and "NO" not in out
    assert "rounds' bookkeeping" in out


def test_a_different_model_is_reported():
    assert not threads._same([[1.0, 2.0]], [[1.0, 3.0]])
    assert threads._same([[1.0, float("nan")]], [[1.0, float("nan")]])
    assert not threads._same(None, [[1.0]])


def test_bad_thread_counts_are_refused(capsys):
    with pytest.raises(SystemExit):
        threads_command.main(["--threads", "0,2"])
    assert "threads" in capsys.readouterr().err
