"""Adaptive's examples floor on the nodes of one boosting run: the features' stopping points
m* by node size, and each fixed floor's (and the rule's, at several caps) assessments over
the bound and CPU time over Quick Boost's.  The benchmark itself is
apsplit.experiments.floors.  From the repository root:

    python -m benchmarks.floors --data satimage
    python -m benchmarks.floors --data a8a --rows 11220
    python -m benchmarks.floors --data mnist-train-60000.npz --format npz --rows 2000 \\
        --depth 4 --rounds 300 --every 20 --client trim0.99
"""

import argparse
import sys

from apsplit.experiments import floors, paper
from apsplit.experiments.loaders import FORMATS
from apsplit.experiments.report import count, write_json


def _caps(text):
    try:
        caps = [float(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--caps needs numbers like 0.55,0.6, got {text!r}") from None
    if not caps or not all(0 < c < 1 for c in caps):
        raise argparse.ArgumentTypeError(f"--caps must lie in (0, 1), got {text!r}")
    return caps


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.floors", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True,
                        help="a bundled dataset's name or a data file (of --format)")
    parser.add_argument("--format", choices=FORMATS, help="the data file's format")
    parser.add_argument("--rows", type=count(1), help="keep the first N rows (default all)")
    parser.add_argument("--rounds", type=count(1), default=500, help="boosting rounds (default 500)")
    parser.add_argument("--depth", type=count(1), default=3, help="tree depth (default 3)")
    parser.add_argument("--client", default="adaboost",
                        help="adaboost, lazyF or trimM, as in benchmarks.paper (default adaboost)")
    parser.add_argument("--json", default="results/floors.json")
    parser.add_argument("--every", type=count(1), default=25,
                        help="keep the nodes of round 1 and of every N-th round (default 25)")
    parser.add_argument("--repeats", type=count(1), default=3,
                        help="timed calls per finder and node, the least kept (default 3)")
    parser.add_argument("--caps", type=_caps, default=[0.5, 0.55, 0.6, 2 / 3],
                        help="price the rule's formula with these caps on m / n "
                             "(default 0.5,0.55,0.6,0.667)")
    args = parser.parse_args(argv)
    data = paper.sweep_data(parser, args)
    result = floors.run(data["X"], data["y"], data["name"], args.client, args.depth, args.rounds,
                        args.every, args.repeats)
    rules = {f"rule, cap {cap:.3g}": floors.rule(cap) for cap in args.caps}
    print(floors.format_table(result, rules))
    write_json(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
