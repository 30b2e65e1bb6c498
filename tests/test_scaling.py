"""The scaling benchmark (apsplit.experiments.scaling) and ``python -m benchmarks.scaling``."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from apsplit.experiments import scaling
from benchmarks import scaling as scaling_command

PNG = b"\x89PNG\r\n\x1a\n"
SIZES = (100, 200, 400)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """A tiny run: a 200-row LIBSVM file, dense and sparse, 2 trees, threads 1 and 2."""
    folder = tmp_path_factory.mktemp("scaling")
    rng = np.random.default_rng(0)
    lines = [f"{1 if i % 3 else -1} 1:{rng.integers(0, 5)} 3:{rng.random():.3f}" for i in range(200)]
    (folder / "small.svm").write_text("\n".join(lines) + "\n")
    json_path, png_path = folder / "s.json", folder / "s.png"
    scaling_command.main(["--quick", "--sizes", ",".join(map(str, SIZES)), "--trees", "2",
                          "--methods", "exhaustive", "--threads", "1,2", "--fit-from", "100",
                          "--no-bundled", "--data", str(folder / "small.svm"), "--format", "svm",
                          "--layouts", "dense,sparse", "--no-progress",
                          "--json", str(json_path), "--plot", str(png_path)])
    return json.loads(json_path.read_text()), png_path


def test_every_model_and_size(outputs):
    result, png = outputs
    assert png.read_bytes().startswith(PNG)
    assert [(d["dataset"], d["layout"]) for d in result["datasets"]] == \
        [("small", "dense"), ("small", "sparse")]
    for d in result["datasets"]:
        models = {(r["model"], r["threads"]): r for r in d["models"]}
        assert set(models) == {(m, t) for m in ("apsplit exhaustive", "LightGBM", "XGBoost exact",
                                                "XGBoost hist", "scikit-learn AdaBoost")
                               for t in (1, 2)}
        assert models[("LightGBM", 1)]["points"][0]["over_lightgbm"] == 1.0
        assert models[("scikit-learn AdaBoost", 2)]["same_fits_as_one_thread"]
        assert models[("scikit-learn AdaBoost", 1)]["input"] == \
            ("CSC float32" if d["layout"] == "sparse" else "dense float32")
        for r in d["models"]:
            assert [p["n"] for p in r["points"]] == list(SIZES)
            assert all(p["per_tree_seconds"] > 0 and p["trees"] >= 1 for p in r["points"])
            assert r["exponent"] is not None and r["exponent_7k_112k"] is None
        assert [m["n"] for m in d["binned"]] == list(SIZES)
        assert all(m["binned_bytes_per_entry"] > 0 and m["binning_seconds"] > 0
                   and m["coarse_bytes"] > 0
                   and m["coarse_bytes_per_entry"] == pytest.approx(m["coarse_bytes"] / (3 * m["n"]))
                   for m in d["binned"])
        for m in d["binned"]:  # 3 columns, the second empty: at most 2 stored a row if sparse
            assert m["stored_entries"] == 3 * m["n"] if d["layout"] == "dense" else \
                m["stored_entries"] <= 2 * m["n"]
    assert result["datasets"][0]["real_rows"] == 200  # 400 rows: a jittered copy


def test_row_pool_jitters_copies_only():
    X = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 0.0]])
    y = np.array([0, 1, 1])
    pool, labels = scaling.row_pool(X, y, 7)
    assert pool.shape == (7, 2) and labels.shape == (7,)
    originals = pool[:3]
    assert sorted(map(tuple, originals)) == sorted(map(tuple, X))  # a permutation, unchanged
    np.testing.assert_allclose(pool[3:6], originals, rtol=scaling.JITTER)
    assert not np.array_equal(pool[3:6], originals) and np.all((pool == 0) == (np.tile(
        originals, (3, 1))[:7] == 0))
    np.testing.assert_array_equal(labels, np.tile(labels[:3], 3)[:7])
    sparse, _ = scaling.row_pool(sp.csr_matrix(X), y, 6)
    assert sp.issparse(sparse) and sparse.nnz == 8  # zeros stay unstored


def test_exponent():
    points = [{"n": n, "per_tree_seconds": 1e-6 * n ** 1.5} for n in (1000, 7000, 14000, 112000,
                                                                      224000)]
    assert scaling.exponent(points, 7000) == pytest.approx(1.5)
    assert scaling.exponent(points, 7000, 112000) == pytest.approx(1.5)
    assert scaling.exponent(points[:2], 7000) is None


@pytest.mark.parametrize("argv, message", [
    (["--sizes", "100,x"], "sizes"),
    (["--sizes", "1"], "must be an integer >= 2"),
    (["--methods", "nope"], "unknown method 'nope'"),
    (["--threads", "2"], "--threads must include 1"),
    (["--data", "x.svm"], "one --format per --data"),
    (["--data", "missing.svm", "--format", "svm"], "no such data file: missing.svm"),
    (["--no-bundled"], "nothing to run"),
    (["--budget", "0"], "positive number of seconds"),
    (["--datasets", "mnist"], "unknown dataset 'mnist'"),
])
def test_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit):
        scaling_command.main(argv)
    assert message in capsys.readouterr().err


def test_odd_even_labels_need_integers():
    with pytest.raises(ValueError, match="odd-even"):
        scaling._labels(np.array([0, 1]), np.array(["a.", "b."]), "odd-even")
    with pytest.raises(ValueError, match="one class"):
        scaling._labels(np.array([0, 1]), np.array([-1, 1]), "odd-even")
    y, classes = scaling._labels(np.array([0, 1, 2]), np.array([3, 4, 7]), "odd-even")
    assert y.tolist() == [1, 0, 1] and classes.tolist() == ["even", "odd"]


def test_classes_of_a_subset_are_coded_contiguously():
    codes, count = scaling._present_classes(np.array([5, 0, 5, 2]), "d")
    assert codes.tolist() == [2, 0, 2, 1] and count == 3
    with pytest.raises(ValueError, match="hold one class"):
        scaling._present_classes(np.array([1, 1]), "d")
