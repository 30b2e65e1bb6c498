"""The exhaustive tree's phases at a late round's root (apsplit.experiments.phases,
benchmarks.phases)."""

import json
import sys

import pytest

from apsplit import Dataset
from apsplit.experiments import phases, survivors
from apsplit.experiments.loaders import load_bundled, load_satimage
from apsplit.finders import get_finder
from apsplit.tree import grow_from_problem
from benchmarks import phases as phases_command


def test_the_timed_root_is_the_last_rounds_and_its_survivors_are_the_searchs():
    X, y, _ = load_satimage()
    X, y = X[:400], y[:400]
    result = phases.run(X, y, "satimage", rounds=3, depth=2, repeats=1)
    counter = survivors.SurvivorCounter()
    root = phases.last_round_root(Dataset(X, prefilter=True), y, 3, 2)
    counter.find(root)
    assert root.sample_weight.max() > root.sample_weight.min()  # reweighted: a later round
    assert result["survivors"] == counter.calls[0][2]
    assert 0.0 <= result["flagged_share"] <= 1.0
    assert result["flagged_ranks"] >= 2 * result["flagged_bins"]  # a flagged bin holds 2+ values
    assert 0 <= result["walked_ranks"] <= result["flagged_ranks"]  # found splits only lower limits
    assert list(result["phases"]) == ["coarse histograms", "bounds", "survivors' passes",
                                      "... at the node's limit", "root search", "tree"]
    assert all(ms > 0 for ms in result["phases"].values())


def test_command(tmp_path, capsys):
    out = tmp_path / "p.json"
    assert phases_command.main(["--data", "satimage", "--size", "500", "--rounds", "2",
                                "--depth", "2", "--repeats", "1", "--json", str(out),
                                "--plot", str(tmp_path / "p.png")]) == 0
    assert json.loads(out.read_text())["rows"] == 500
    assert (tmp_path / "p.png").stat().st_size > 0
    printed = capsys.readouterr().out
    assert "survivors' passes" in printed and "trees, one thread:" in printed


def test_odd_even_labels_are_the_labels_parity(tmp_path):
    """``--labels odd-even`` (MNIST's odd against even digits) times the trees of the
    labels' parity, as benchmarks.scaling's option does."""
    from apsplit.experiments.scaling import odd_even
    out = tmp_path / "p.json"
    assert phases_command.main(["--data", "pendigits", "--rows", "400", "--rounds", "2",
                                "--depth", "2", "--repeats", "1", "--labels", "odd-even",
                                "--json", str(out), "--plot", str(tmp_path / "p.png")]) == 0
    X, y, classes = load_bundled("pendigits")
    direct = phases.run(X[:400], odd_even(classes[y[:400]]), "pendigits", rounds=2, depth=2,
                        repeats=1)
    keys = ("node", "rows", "histogram", "survivors", "feature")
    assert [[node[k] for k in keys] for node in json.loads(out.read_text())["nodes"]] == \
        [[node[k] for k in keys] for node in direct["nodes"]]


def test_on_two_threads_the_phases_search_the_same_nodes_alike(capsys):
    """``--threads 2``: every phase on two threads; the nodes, their histograms and the
    splits their searches return are the one-thread run's."""
    X, y, _ = load_satimage()
    X, y = X[:600], y[:600]
    one = phases.run(X, y, "satimage", rounds=3, depth=3, repeats=1)
    two = phases.run(X, y, "satimage", rounds=3, depth=3, repeats=1, threads=2)
    assert (one["threads"], two["threads"]) == (1, 2)
    keys = ("node", "rows", "histogram", "survivors", "feature")
    assert [[node[k] for k in keys] for node in two["nodes"]] == \
        [[node[k] for k in keys] for node in one["nodes"]]
    assert "trees, 2 threads:" in phases.format_table(two)
    with pytest.raises(SystemExit):
        phases_command.main(["--data", "satimage", "--threads", "0"])
    assert "--threads" in capsys.readouterr().err


def test_sparse_data_is_timed_in_the_dense_layout():
    """Sparse input (a LIBSVM file) is timed as benchmarks.scaling's default dense layout:
    the same tree, nodes and survivors as its dense copy."""
    X, y, _ = load_bundled("agaricus")
    X, y = X[:400], y[:400]
    sparse = phases.run(X, y, "agaricus", rounds=2, depth=2, repeats=1)
    dense = phases.run(X.toarray(), y, "agaricus", rounds=2, depth=2, repeats=1)
    keys = ("node", "rows", "histogram", "survivors", "feature")
    assert [[node[k] for k in keys] for node in sparse["nodes"]] == \
        [[node[k] for k in keys] for node in dense["nodes"]]


def test_without_lightgbm_the_table_names_its_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "lightgbm", None)  # import lightgbm raises ImportError
    X, y, _ = load_satimage()
    result = phases.run(X[:300], y[:300], "satimage", rounds=2, depth=2, repeats=1)
    assert result["lightgbm_tree_ms"] is None
    assert 'pip install "apsplit[lightgbm]"' in phases.format_table(result)


def test_the_profiled_nodes_are_the_trees_searched_nodes_with_the_growers_histograms():
    X, y, _ = load_satimage()
    X, y = X[:600], y[:600]
    result = phases.run(X, y, "satimage", rounds=3, depth=3, repeats=1)
    root = phases.last_round_root(Dataset(X, prefilter=True), y, 3, 3)
    tree = grow_from_problem(root, get_finder("exhaustive"), 3)
    nodes = {node["node"]: node for node in result["nodes"]}
    split = [node for node in range(tree.feature.size) if tree.feature[node] >= 0]
    assert set(split) <= set(nodes)  # every split node was searched ...
    for node, record in nodes.items():  # ... and each search returns the tree's split
        assert record["feature"] == tree.feature[node]
    kinds = set()
    for parent in split:
        left, right = tree.children_left[parent], tree.children_right[parent]
        if left in nodes and right in nodes and nodes[parent]["histogram"] != "none":
            small, large = sorted((left, right), key=lambda c: (2 * tree.n_node_samples[c] >
                                                                 tree.n_node_samples[parent]))
            assert (nodes[small]["histogram"], nodes[large]["histogram"]) == ("summed",
                                                                              "subtracted")
            kinds.add(nodes[large]["histogram"])
    assert kinds == {"subtracted"}  # the data has such a pair
    assert nodes[0]["histogram"] == "summed"
    for record in nodes.values():
        timed = {phase for phase, ms in record["ms"].items() if ms is not None}
        assert timed == (set(phases.NODE_PHASES) if record["histogram"] != "none" else {"search"})
    totals = phases.node_totals(result)
    assert 0 < totals["floor"] < totals["nodes"]
    assert "the floor, histograms and canonical sums" in phases.format_table(result)
