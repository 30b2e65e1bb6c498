"""The paper's boosting benchmark (apsplit.experiments.paper), ``python -m benchmarks.paper`` and ``apsplit compare``."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from apsplit.experiments import cli, paper
from apsplit.experiments.report import figure_class
from apsplit.adapters import AdaBoost, LazyBoost, WeightTrimmingBoost
from apsplit.experiments.loaders import load_satimage
from benchmarks import paper as paper_command

ROOT = Path(__file__).resolve().parents[1]
RUN_KEYS = {"client", "method", "assessments", "cpu_seconds", "train_error", "test_error",
            "lower_bounds"}
CLIENTS = ["adaboost", "lazy0.5", "trim0.9"]
ROUNDS, DEPTH = 5, 2


def _write_uci(path, X, labels):
    np.savetxt(path, np.column_stack([X, labels]), fmt="%g")
    return path


@pytest.fixture(scope="module")
def satimage_files(tmp_path_factory):
    """The first 300 satimage rows as a uci file, the next 100 as its test file."""
    X, y, classes = load_satimage()
    folder = tmp_path_factory.mktemp("data")
    return (_write_uci(folder / "sat.trn", X[:300], classes[y[:300]]),
            _write_uci(folder / "sat.tst", X[300:400], classes[y[300:400]]))


@pytest.fixture(scope="module")
def data(satimage_files):
    return paper.load_data(satimage_files[0], "uci", rows=250, test=satimage_files[1])


@pytest.fixture(scope="module")
def result(data):
    return paper.run(data["X"], data["y"], dataset=data["name"], X_test=data["X_test"],
                     y_test=data["y_test"], clients=CLIENTS, depth=DEPTH, rounds=ROUNDS, seed=3)


@pytest.fixture(scope="module")
def tiny_exact():
    """A tiny binary problem on which the exact bound's integer programs are quick."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 6, size=(80, 6)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.normal(0, 2, 80) > 5).astype(int)
    return paper.run(X, y, clients=["adaboost", "lazy0.5"], methods=["quick", "adaptive"], depth=2,
                     rounds=4, lower_bounds=["weight_order", "exact"], exact_rounds=[1, 3])


def test_layout(result, data):
    assert {"dataset", "rows", "depth", "rounds", "runs"} <= set(result)
    assert (result["dataset"], result["rows"], result["depth"], result["rounds"]) == \
        ("sat.trn", 250, DEPTH, ROUNDS)
    assert [(r["client"], r["method"]) for r in result["runs"]] == \
        [(c, m) for c in CLIENTS for m in paper.METHODS]
    for run in result["runs"]:
        assert RUN_KEYS <= set(run)
        n = len(run["assessments"])
        assert 1 <= n <= ROUNDS and len(run["train_error"]) == len(run["test_error"]) == n
        assert run["cpu_seconds"] > 0
        assert set(run["lower_bounds"]) == {"weight_order", "exact"}
        assert len(run["lower_bounds"]["weight_order"]) == n and run["lower_bounds"]["exact"] == {}
    assert json.loads(json.dumps(result)) == result


def test_assessments_are_the_clients_history(result, data):
    """Each run's per-round numbers are those of the client fit on its own (same seed)."""
    clients = {"adaboost": (AdaBoost, {}), "lazy0.5": (LazyBoost, {"feature_fraction": 0.5}),
               "trim0.9": (WeightTrimmingBoost, {"mass": 0.9})}
    for run in result["runs"]:
        cls, extra = clients[run["client"]]
        model = cls(**extra, n_rounds=ROUNDS, max_depth=DEPTH, method=run["method"],
                    random_state=3).fit(data["X"], data["y"])
        assert run["assessments"] == [h["assessments"] for h in model.history_]
        assert run["train_error"] == [h["train_error"] for h in model.history_]
        expected_test = [np.mean(p != data["y_test"]) for p in model.staged_predict(data["X_test"])]
        np.testing.assert_allclose(run["test_error"], expected_test)


def test_bounds_and_agreement(result):
    assert result["agree"]
    for summary in result["clients"]:
        runs = {r["method"]: r for r in result["runs"] if r["client"] == summary["client"]}
        assert summary["agree"] and summary["mismatches"] == []
        errors = {m: r["train_error"] for m, r in runs.items()}
        assert errors["adaptive"] == errors["quick"] == errors["exhaustive"]
        wo = runs["adaptive"]["lower_bounds"]["weight_order"]
        for run in runs.values():
            assert all(b <= a for a, b in zip(run["assessments"], wo))
            assert run["below_weight_order"] == []
        # exhaustive assesses every (node row, feature) pair of every split node
        assert runs["exhaustive"]["assessments"] == summary["full_assessments"]
        imp = summary["improvement"]
        q, a = runs["quick"], runs["adaptive"]
        assert imp["assessments_percent"] == pytest.approx(
            100 * (1 - a["total_assessments"] / q["total_assessments"]))
        assert imp["cpu_percent"] == pytest.approx(100 * (1 - a["cpu_seconds"] / q["cpu_seconds"]))


def test_exact_bound(tiny_exact):
    assert tiny_exact["agree"] and tiny_exact["exact_rounds"] == [1, 3]
    for run in tiny_exact["runs"]:
        bounds = run["lower_bounds"]
        assert set(bounds["exact"]) == {"1", "3"}
        for k, value in bounds["exact"].items():
            assert value <= bounds["weight_order"][int(k) - 1] <= run["assessments"][int(k) - 1]
    assert "exact bound, rounds 1,3" in paper.format_table(tiny_exact)


def test_table_and_plot(result, tiny_exact, tmp_path):
    table = paper.format_table(result)
    for client in CLIENTS:
        for method in (*paper.METHODS, "weight-order bound"):
            assert f"{client}  " in table and f" {method} " in table
    assert "train@5" in table and "test@5" in table and "improv." in table
    assert "every method grew the same trees" in table
    for res, name in ((result, "a.png"), (tiny_exact, "b.png")):
        paper.plot(res, tmp_path / name)
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_disagreeing_methods_fail(monkeypatch, satimage_files, tmp_path, capsys):
    """A client whose trees depend on the method is caught: reported, exit status 1."""
    class Skewed(AdaBoost):
        def __init__(self, method="adaptive", **options):
            super().__init__(method=method, **options)
            self.max_depth = 1 if method == "quick" else self.max_depth

    monkeypatch.setattr(paper, "parse_client", lambda spec: (Skewed, {}))
    status = paper_command.main(["--data", str(satimage_files[0]), "--format", "uci", "--rows", "200",
                                 "--depth", "2", "--rounds", "3", "--no-progress",
                                 "--json", str(tmp_path / "r.json"), "--plot", str(tmp_path / "r.png")])
    assert status == 1
    written = json.loads((tmp_path / "r.json").read_text())
    assert not written["agree"] and "quick" in written["clients"][0]["mismatches"][0]
    captured = capsys.readouterr()
    assert "ERROR adaboost: quick" in captured.out and "different trees" in captured.err


def test_command_line_module(satimage_files, tmp_path):
    out_json, out_png = tmp_path / "p.json", tmp_path / "p.png"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.paper", "--data", str(satimage_files[0]), "--format", "uci",
         "--rows", "150", "--test", str(satimage_files[1]), "--depth", "2", "--rounds", "3",
         "--clients", "adaboost,trim0.99", "--methods", "adaptive,quick", "--no-progress",
         "--json", str(out_json), "--plot", str(out_png)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    written = json.loads(out_json.read_text())
    assert (written["rows"], written["depth"], written["rounds"]) == (150, 2, 3)
    assert [(r["client"], r["method"]) for r in written["runs"]] == \
        [("adaboost", "adaptive"), ("adaboost", "quick"), ("trim0.99", "adaptive"), ("trim0.99", "quick")]
    assert all(len(r["test_error"]) == len(r["assessments"]) for r in written["runs"])
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "trim0.99" in done.stdout and "wrote" in done.stdout


def test_help(capsys):
    with pytest.raises(SystemExit) as exc:
        paper_command.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--exact-rounds" in out and "lazyF" in out and "python -m benchmarks.paper" in out


@pytest.mark.parametrize("argv, message", [
    (["--clients", "lazy2"], "feature fraction must be in (0, 1]"),
    (["--clients", "adaboost,boost"], "unknown client 'boost'"),
    (["--methods", "adaptive,fast"], "unknown method 'fast'"),
    (["--lower-bounds", "exact"], "must include weight_order"),
    (["--lower-bounds", "weight_order,exact", "--criterion", "gini"], "criterion error only"),
    (["--rows", "5000"], "rows must be in 1..300"),
    (["--format", "csv"], "invalid choice: 'csv'"),
    (["--rounds", "0"], "must be an integer >= 1"),
])
def test_bad_arguments(argv, message, satimage_files, capsys, tmp_path):
    base = ["--data", str(satimage_files[0]), "--format", "uci", "--json", str(tmp_path / "x.json")]
    with pytest.raises(SystemExit) as exc:
        paper_command.main(base + argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_missing_file(tmp_path, capsys):
    with pytest.raises(SystemExit):
        paper_command.main(["--data", str(tmp_path / "nope.svm"), "--format", "svm"])
    assert "no such data file" in capsys.readouterr().err


def test_python_api_errors(data):
    X, y = data["X"], data["y"]
    with pytest.raises(ValueError, match="weight mass must be in"):
        paper.run(X, y, clients=["trim1.5"], rounds=1)
    with pytest.raises(ValueError, match="unknown method 'fast'"):
        paper.run(X, y, methods=["fast"], rounds=1)
    with pytest.raises(ValueError, match="listed twice"):
        paper.run(X, y, methods=["quick", "quick"], rounds=1)
    with pytest.raises(ValueError, match="unknown format"):
        paper.load_data("x", "csv")
    assert paper.parse_client("lazy0.9") == (LazyBoost, {"feature_fraction": 0.9})
    assert paper.parse_client("trim0.99") == (WeightTrimmingBoost, {"mass": 0.99})


# -- apsplit compare ----------------------------------------------------------------------
def test_compare_command(tmp_path, capsys):
    out_json, out_png = tmp_path / "c.json", tmp_path / "c.png"
    assert cli.main(["compare", "--rows", "400", "--rounds", "3", "--no-progress",
                     "--json", str(out_json), "--plot", str(out_png)]) == 0
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    written = json.loads(out_json.read_text())
    assert (written["dataset"], written["rows"], written["n_features"], written["n_classes"]) == \
        ("satimage", 400, 36, 6)
    assert (written["depth"], written["rounds"], written["agree"]) == (3, 3, True)
    assert [r["method"] for r in written["runs"]] == list(paper.METHODS)
    assert {r["client"] for r in written["runs"]} == {"adaboost"}
    assert all(r["test_error"] is None for r in written["runs"])
    printed = capsys.readouterr().out
    assert "adaptive" in printed and str(out_png) in printed


def test_compare_defaults(monkeypatch):
    calls = []
    monkeypatch.setattr(paper, "report", lambda args, parser, **kw: calls.append((args, kw)) or 0)
    assert cli.main(["compare"]) == 0
    args, kw = calls[0]
    assert (args.depth, args.rounds, kw["rounds_default"]) == (3, None, cli.COMPARE_ROUNDS)
    assert args.clients == ["adaboost"] and args.methods == list(paper.METHODS)
    assert (str(args.json), str(args.plot)) == ("apsplit-compare.json", "apsplit-compare.png")
    assert kw["data"]["name"] == "satimage" and kw["data"]["X"].shape == (4435, 36)


def test_missing_matplotlib_names_the_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["compare", "--rounds", "1", "--json", str(tmp_path / "c.json"),
                  "--plot", str(tmp_path / "c.png")])
    assert exit_.value.code == 2
    assert 'pip install "apsplit[bench]"' in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()
    with pytest.raises(ImportError, match=r"matplotlib.*'bench' extra"):
        figure_class()


def test_compare_bad_options(capsys):
    with pytest.raises(SystemExit):
        cli.main(["compare", "--clients", "lazy2"])
    assert "feature fraction" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main([])


def test_every_client_and_method_is_warmed_up_before_any_clock_runs(monkeypatch):
    # two untimed rounds each (the second round's reweighting and weight-order merge
    # compile there), before the first timed fit (the timed fits report to a callback)
    fits, parse = [], paper.parse_client

    def recording(spec):
        cls, extra = parse(spec)

        class Recorded(cls):
            def fit(self, X, y, sample_weight=None):
                fits.append((spec, self.method, self.n_rounds, self.callback is not None))
                return super().fit(X, y, sample_weight)

        return Recorded, extra

    monkeypatch.setattr(paper, "parse_client", recording)
    X, y = np.random.default_rng(1).normal(size=(60, 3)), np.arange(60) % 2
    paper.run(X, y, clients=["adaboost", "trim0.9"], methods=["quick", "adaptive"], depth=2,
              rounds=3)
    first_timed = [timed for *_, timed in fits].index(True)
    assert sorted((s, m) for s, m, rounds, _ in fits[:first_timed] if rounds == 2) == [
        ("adaboost", "adaptive"), ("adaboost", "quick"), ("trim0.9", "adaptive"),
        ("trim0.9", "quick")]
