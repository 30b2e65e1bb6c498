"""How many features survive the exhaustive search's prefilter, node by node, round by round.

The prefilter (``kernels/coarse.py``, docs/design.md) scores every feature's coarse-bin
boundaries and bounds the splits inside each bin; a feature *survives* when it may still
hold the node's best split, and only survivors get the exact (canonical) pass over their
values, the pass that costs the most per tree.  This boosts ``rounds`` trees with a client
whose finder is the exhaustive search with the prefilter forced on
(``Dataset(X, prefilter=True)``), and records at every node searched how many of its F
candidate features survived: a split's ``scans`` counts the F coarse scans plus one per
survivor.  The trees are the exhaustive search's, whatever the prefilter keeps.  Used by
``python -m benchmarks.survivors``.
"""

from pathlib import Path

import numpy as np

from ..dataset import Dataset
from ..finders import get_finder
from . import paper
from .report import figure_class, publish, text_table

__all__ = ["SurvivorCounter", "run", "format_table", "plot", "report"]


class SurvivorCounter:
    """The exhaustive finder, recording per call the node's rows, its candidate features
    and the survivors (``scans`` minus the features' coarse scans)."""

    def __init__(self):
        self.finder = get_finder("exhaustive")
        self.calls = []

    def find(self, problem):
        split = self.finder.find(problem)
        n_features = int(problem.features.size)
        self.calls.append((int(problem.order.size), n_features, int(split.scans) - n_features))
        return split


def run(X, y, name="data", rounds=30, depth=3, client="adaboost", criterion="gini"):
    """{"dataset", "rows", "features", "rounds", "depth", "client", "criterion", "per_round":
    [per round: nodes, mean and largest survivors per node, the survivors' share of the
    nodes' (row, feature) pairs]}."""
    counter = SurvivorCounter()
    per_round, start = [], 0

    def after_round(_model, _record):
        nonlocal start
        calls = np.array(counter.calls[start:], dtype=np.int64).reshape(-1, 3)
        start = len(counter.calls)
        rows, features, survivors = calls.T
        per_round.append({"nodes": int(calls.shape[0]),
                          "mean_survivors": float(survivors.mean()) if calls.size else 0.0,
                          "max_survivors": int(survivors.max()) if calls.size else 0,
                          "mean_features": float(features.mean()) if calls.size else 0.0,
                          "pair_share": float((rows * survivors).sum() / max((rows * features).sum(), 1))})

    model_class, options = paper.parse_client(client)
    model = model_class(n_rounds=rounds, max_depth=depth, criterion=criterion, method=counter,
                        callback=after_round, **options)
    model.fit(Dataset(X, prefilter=True), y)
    return {"dataset": name, "rows": int(X.shape[0]), "features": int(X.shape[1]),
            "rounds": len(per_round), "depth": depth, "client": client, "criterion": criterion,
            "per_round": per_round}


def _rounds_shown(per_round):
    """Rounds 1-5, then every tenth, and the last."""
    last = len(per_round)
    return [r for r in range(1, last + 1) if r <= 5 or r % 10 == 0 or r == last]


def format_table(result):
    rows = [[str(r), str(result["per_round"][r - 1]["nodes"]),
             f"{result['per_round'][r - 1]['mean_survivors']:.1f}",
             str(result["per_round"][r - 1]["max_survivors"]),
             f"{100 * result['per_round'][r - 1]['pair_share']:.0f}%"]
            for r in _rounds_shown(result["per_round"])]
    header = ["round", "nodes", "survivors / node", "most", "survivors' share of pairs"]
    return "\n".join([f"{result['dataset']} ({result['rows']:,} rows x {result['features']} "
                      f"features), {result['client']}, depth {result['depth']}, "
                      f"{result['criterion']}: features left to the exact pass per node",
                      text_table(header, rows, n_left=1)])


def plot(result, path):
    """Mean survivors per node against the round, with the number of features."""
    fig = figure_class()(figsize=(5.5, 4), layout="constrained")
    ax = fig.subplots()
    rounds = np.arange(1, result["rounds"] + 1)
    ax.plot(rounds, [r["mean_survivors"] for r in result["per_round"]], "o-", ms=3,
            label="survivors per node (mean)")
    ax.plot(rounds, [r["mean_features"] for r in result["per_round"]], "k--",
            label="candidate features")
    ax.set_xlabel("boosting round")
    ax.set_ylabel("features")
    ax.set_title(f"{result['dataset']} ({result['rows']:,} rows): {result['client']}")
    ax.legend()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def report(result, json_path, plot_path):
    publish(result, format_table(result), plot, json_path, plot_path)
