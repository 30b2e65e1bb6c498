"""The paper's CPU claim on every client: the default adaptive against the default Quick
Boost and the weight-order bound, per dataset x client (AdaBoost, LazyBoost 0.5 and 0.9,
weight trimming 0.9 and 0.99), every ratio from one run, with a check that all finders
grew the same trees.  The benchmark itself is apsplit.experiments.claim.  From the
repository root:

    python -m benchmarks.claim                                  # satimage and a6a, depth 3
    python -m benchmarks.claim --datasets mnist-train-60000.npz:2000:4:300 --format npz

A dataset is DATA[:ROWS[:DEPTH[:ROUNDS]]]: a bundled name or a file (of --format), its
first ROWS rows, and the tree depth and rounds (default --depth and --rounds).
"""

import argparse
import sys
from pathlib import Path

from apsplit.experiments import claim, paper
from apsplit.experiments.loaders import FORMATS
from apsplit.experiments.report import count, require_plotting, seconds

DEFAULT_DATASETS = ("satimage", "a8a:11220")
MIN_SECONDS = 4.0  # a fit under 2 s is timed more than twice


def _spec(text):
    try:
        return claim.parse_spec(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.claim", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", type=_spec, nargs="+",
                        default=[claim.parse_spec(d) for d in DEFAULT_DATASETS],
                        help=f"DATA[:ROWS[:DEPTH[:ROUNDS]]] ... (default {' '.join(DEFAULT_DATASETS)})")
    parser.add_argument("--format", choices=FORMATS, help="the format of data files "
                                                                "(not needed for a bundled dataset)")
    parser.add_argument("--clients", default=",".join(claim.CLIENTS),
                        help=f"comma-separated clients (default {','.join(claim.CLIENTS)})")
    parser.add_argument("--depth", type=count(1), default=3, help="tree depth (default 3)")
    parser.add_argument("--rounds", type=count(1), default=500, help="boosting rounds (default 500)")
    parser.add_argument("--repeats", type=count(1), default=2,
                        help="fits per finder, taking turns; the least CPU time is reported "
                             "(default 2)")
    parser.add_argument("--min-seconds", type=seconds, default=MIN_SECONDS,
                        help="more turns while a finder's fits of a cell add up to less CPU time "
                             f"than this, at most {paper.MAX_TURNS} (default {MIN_SECONDS:g})")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--json", default="results/claim.json")
    parser.add_argument("--plot", default="results/claim.png")
    args = parser.parse_args(argv)
    require_plotting(parser)
    try:
        clients = paper.parse_list(args.clients, "clients", check=paper.parse_client)
        datasets = []
        for spec in args.datasets:
            data = paper.load_data(spec.data, args.format if Path(spec.data).exists() else None,
                                   spec.rows)
            datasets.append((data["name"], data, spec.depth, spec.rounds))
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    result = claim.run(datasets, clients, depth=args.depth, rounds=args.rounds,
                       repeats=args.repeats, min_seconds=args.min_seconds,
                       progress=not args.no_progress)
    claim.report(result, args.json, args.plot)
    return 0 if result["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
