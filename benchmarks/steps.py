"""Adaptive's batch sizes: assessments against CPU time, side by side with
exhaustive search, Quick Boost and the default adaptive, whose floor is chosen per node
(``Adaptive(min_step_examples=e)`` for each e of ``--steps``).  The benchmark itself is
apsplit.experiments.steps.  From the repository root:

    python -m benchmarks.steps --data satimage
    python -m benchmarks.steps --data a8a --rows 11220
"""

import argparse
import sys
from fractions import Fraction

from apsplit.experiments import paper, steps
from apsplit.experiments.report import count, require_plotting


def _steps(text):
    try:
        values = [float(Fraction(item)) for item in text.split(",") if item.strip()]
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"--steps needs fractions like 0,1/32,1/8, got {text!r}")
    if not values or any(not 0 <= v <= 1 for v in values):
        raise argparse.ArgumentTypeError(f"--steps must lie in [0, 1], got {text!r}")
    names = [steps.finder_name(v) for v in values]
    if len(set(names)) < len(names):
        raise argparse.ArgumentTypeError(f"--steps lists a value twice, got {text!r}")
    return values


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.steps", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    paper.add_sweep_arguments(parser, rounds_default=500, json_default="results/steps.json",
                              plot_default="results/steps.png", client=True)
    parser.add_argument("--steps", type=_steps, default=list(steps.STEPS),
                        help=f"min_step_examples values (default {','.join(map(steps.step_label, steps.STEPS))})")
    parser.add_argument("--repeats", type=count(1), default=1,
                        help="fits per finder; the least CPU time is reported (default 1)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    require_plotting(parser)
    data = paper.sweep_data(parser, args)
    result = steps.run(data["X"], data["y"], data["name"], args.rounds, args.depth, args.steps,
                       args.client, args.repeats, progress=not args.no_progress)
    steps.report(result, args.json, args.plot)
    return 0 if result["agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
