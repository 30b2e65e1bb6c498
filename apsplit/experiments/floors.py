"""Adaptive's examples floor on the nodes of a boosting run: where features stop, and what
each floor costs.

A client (``paper.parse_client``) boosts with exhaustive search; the nodes of
every ``every``-th round (and of the first) are kept.  Per node: n, the
effective examples n_eff = (sum w)^2 / sum w^2, the weight-order bound and
each non-winning feature's stopping point m* (the fewest heaviest examples
whose LB reaches the optimum, ``lower_bounds.node_stops``), and, for Quick
Boost, the default ``Adaptive()`` and ``Adaptive(min_step_examples=e)`` at
every e of ``FLOORS``: assessments, scans and the least process time of
``repeats`` calls.  ``stop_table`` summarises m* / n_eff by node size;
``rule_estimate`` prices a floor rule on the nodes, interpolating each
node's assessments and time between the measured floors (in log e).  Used
by ``python -m benchmarks.floors``; how the default rule was chosen from it is
in docs/steps.md.
"""

import math
import time
from dataclasses import replace

import numpy as np

from .. import lower_bounds
from ..dataset import Dataset
from ..finders import Adaptive, Exhaustive, Finder, Quick
from ..kernels.search import (FLOOR_MIN_EXAMPLES, FLOOR_OVERSHOOT, FLOOR_STOP_MAX,
                              FLOOR_STOP_PER_EFFECTIVE)
from . import paper
from .report import text_table

__all__ = ["FLOORS", "SIZE_BINS", "record_nodes", "measure_node", "run", "stop_table",
           "rule", "rule_estimate", "format_table"]

FLOORS = (1 / 1024, 1 / 512, 1 / 256, 1 / 128, 1 / 96, 1 / 64, 1 / 48, 1 / 32, 1 / 24, 1 / 16,
          1 / 12, 1 / 8, 1 / 6, 1 / 4)
SIZE_BINS = (0, 50, 100, 200, 400, 800, 1600, 3200)


class _Recorder(Finder):
    """Exhaustive search that keeps the Problem of every node of the rounds it is told to."""

    name = "recorder"

    def __init__(self, every):
        self.every, self.round, self.nodes, self.exhaustive = every, 0, [], Exhaustive()

    def find(self, problem):
        if self.round == 0 or self.round % self.every == self.every - 1:
            self.nodes.append((self.round + 1, problem))
        return self.exhaustive.find(problem)


def record_nodes(X, y, client="adaboost", depth=3, rounds=500, every=25):
    """[(round, Problem)] of every node split in round 1 and every ``every``-th round."""
    cls, extra = paper.parse_client(client)
    recorder = _Recorder(int(every))

    def next_round(*_):
        recorder.round += 1

    cls(**extra, n_rounds=rounds, max_depth=depth, criterion="error", random_state=0,
        method=recorder, callback=next_round).fit(X if isinstance(X, Dataset) else Dataset(X), y)
    return recorder.nodes


def _least_cpu(call, repeats):
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.process_time()
        result = call()
        best = min(best, time.process_time() - start)
    return result, best


def measure_node(problem, floors=FLOORS, repeats=3):
    """One node: {"n", "n_eff", "bound", "stops" (m* of the non-winning features), and per
    finder ("quick", "adaptive", and each floor e as str(e)): [assessments, scans, CPU s]};
    None when the node has no split."""
    stops = lower_bounds.node_stops(problem)
    if stops is None:
        return None
    w = problem.sample_weight[problem.order]
    n = int(problem.order.size)
    finders = {"quick": Quick(), "adaptive": Adaptive(),
               **{str(e): Adaptive(min_step_examples=e) for e in floors}}
    out = {"n": n, "n_eff": float(w.sum() ** 2 / (w * w).sum()), "bound": int(n + stops.sum()),
           "stops": stops.tolist(), "finders": {}}
    for name, finder in finders.items():
        split, cpu = _least_cpu(lambda: finder.find(problem), repeats)
        out["finders"][name] = [int(split.assessments), int(split.scans), cpu]
    return out


def run(X, y, name="data", client="adaboost", depth=3, rounds=500, every=25, repeats=3,
        floors=FLOORS):
    """{"settings", "floors", "nodes": [``measure_node`` + "round"]} of one boosting run."""
    nodes = record_nodes(X, y, client, depth, rounds, every)
    for finder in [Quick(), Adaptive()] + [Adaptive(min_step_examples=e) for e in floors]:
        finder.find(replace(nodes[0][1]))  # compile (or load) the kernels untimed
    measured = []
    for rnd, problem in nodes:
        node = measure_node(problem, floors, repeats)
        if node is not None:
            measured.append({"round": rnd, **node})
    return {"settings": {"dataset": name, "client": client, "depth": depth, "rounds": rounds,
                         "every": every, "repeats": repeats},
            "floors": list(floors), "nodes": measured}


def stop_table(result, bins=SIZE_BINS):
    """Per node-size bin (rounds after the first): [(lo, hi, nodes, median n_eff, median over
    nodes of median m* / n_eff, median m* / n)]; m* over the features that stop before n."""
    rows = []
    for lo, hi in zip(bins, list(bins[1:]) + [math.inf]):
        ratios, fractions, n_effs = [], [], []
        for node in result["nodes"]:
            stops = np.array(node["stops"])
            stops = stops[stops < node["n"]]
            if node["round"] > 1 and lo <= node["n"] < hi and stops.size:
                ratios.append(np.median(stops) / node["n_eff"])
                fractions.append(np.median(stops) / node["n"])
                n_effs.append(node["n_eff"])
        if ratios:
            rows.append((lo, hi, len(ratios), float(np.median(n_effs)), float(np.median(ratios)),
                         float(np.median(fractions))))
    return rows


def _at(node, floors, e, field):
    """A node's assessments (0) or CPU (2) at floor e, linear in log e between measured floors."""
    logs = np.log(floors)
    values = [node["finders"][str(f)][field] for f in floors]
    return float(np.interp(math.log(e), logs, values))


def rule(cap=FLOOR_STOP_MAX, per_effective=FLOOR_STOP_PER_EFFECTIVE, overshoot=FLOOR_OVERSHOOT):
    """floor_of_node(n, n_eff) of ``kernels.search.examples_floor``'s formula with these
    constants: max(2 overshoot m / (n - m), FLOOR_MIN_EXAMPLES), m = min(per_effective n_eff,
    cap n)."""
    def floor_of_node(n, n_eff):
        m = min(per_effective * n_eff, cap * n)
        return max(2.0 * overshoot * m / (n - m), FLOOR_MIN_EXAMPLES)
    return floor_of_node


def rule_estimate(result, floor_of_node):
    """(assessments / bound, CPU / Quick Boost's) over the nodes when each node's floor is
    ``floor_of_node(n, n_eff)`` (interpolated, see the module docstring)."""
    floors = result["floors"]
    nodes = result["nodes"]
    assessed = sum(_at(v, floors, floor_of_node(v["n"], v["n_eff"]), 0) for v in nodes)
    cpu = sum(_at(v, floors, floor_of_node(v["n"], v["n_eff"]), 2) for v in nodes)
    return (assessed / sum(v["bound"] for v in nodes),
            cpu / sum(v["finders"]["quick"][2] for v in nodes))


def format_table(result, rules=None):
    """The stopping points by node size, the measured finders, and ``rules`` ({label:
    floor_of_node}) priced by ``rule_estimate``."""
    s = result["settings"]
    nodes = result["nodes"]
    bound = sum(v["bound"] for v in nodes)
    quick = sum(v["finders"]["quick"][2] for v in nodes)
    stops = [[f"{lo}-{'' if hi == math.inf else hi}", str(k), f"{ne:.0f}", f"{r:.2f}", f"{fr:.2f}"]
             for lo, hi, k, ne, r, fr in stop_table(result)]
    names = ["quick", "adaptive"] + [str(e) for e in result["floors"]]
    labels = ["quick", "adaptive (default)"] + [f"adaptive[e=1/{round(1 / e)}]"
                                                for e in result["floors"]]
    measured = [[label, f"{sum(v['finders'][k][0] for v in nodes) / bound:.4f}",
                 f"{sum(v['finders'][k][2] for v in nodes) / quick:.3f}"]
                for k, label in zip(names, labels)]
    priced = [[label, *(f"{x:.4f}" if j == 0 else f"{x:.3f}"
                        for j, x in enumerate(rule_estimate(result, rule)))]
              for label, rule in (rules or {}).items()]
    return "\n".join([
        f"{s['dataset']}: {s['client']}, depth {s['depth']}, {s['rounds']} rounds; the nodes of "
        f"round 1 and every {s['every']}th round ({len(nodes)} nodes)",
        "stopping points m* (features other than the winner, stopping before n) by node size, "
        "rounds after the first:",
        text_table(["n", "nodes", "median n_eff", "median m*/n_eff", "median m*/n"], stops, 1),
        "",
        "over all these nodes (CPU: the least of the repeats, per node):",
        text_table(["finder", "/ bound", "CPU / quick"], measured + priced, 1)])
