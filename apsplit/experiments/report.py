"""What every experiment shares: timing, text tables, JSON and PNG output, the progress bar,
and argparse helpers."""

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

from ..optional import comes_with, install_command, installed, require

__all__ = ["timed", "text_table", "write_json", "publish", "progress_bar", "figure_class",
           "require_plotting", "panel_grid", "count", "add_output_arguments"]


def timed(call, repeats, statistic=statistics.median):
    """(result of a warm-up call, the ``statistic`` (default the median) of the wall seconds
    of ``repeats`` further calls)."""
    result = call()
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    return result, statistic(seconds)


def text_table(header, rows, n_left):
    """Rows of cells as aligned text: the first ``n_left`` columns left-aligned, the rest right."""
    widths = [max(len(r[j]) for r in [header, *rows]) for j in range(len(header))]
    return "\n".join("  ".join(c.ljust(wd) if j < n_left else c.rjust(wd)
                                for j, (c, wd) in enumerate(zip(r, widths))).rstrip()
                      for r in [header, *rows])


def write_json(result, path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")


def progress_bar(enabled, **options):
    """A tqdm progress bar built with ``options`` when ``enabled``, else None.

    tqdm comes with the optional 'bench' extra; without it there is no bar,
    and one line on stderr says what to install.
    """
    if not enabled:
        return None
    tqdm = installed("tqdm.auto")
    if tqdm is None:
        print(f"no progress bar: tqdm is not installed; {comes_with('tqdm')}", file=sys.stderr)
        return None
    return tqdm.tqdm(**options)


def not_installed(name):
    """What a table says of library ``name`` when it is missing: the extra to install."""
    return f"not installed: {install_command(name)}"


def figure_class():
    """matplotlib's Figure (rendered by Agg on save); a clear error if matplotlib is missing."""
    return require("matplotlib.figure", "plotting").Figure


def require_plotting(parser):
    """Exit with the parser's usage error, naming the extra, if matplotlib is missing:
    a command that writes a plot checks this before its run, not after it."""
    try:
        figure_class()
    except ImportError as exc:
        parser.error(str(exc))


def panel_grid(count, width, height, per_row=3):
    """(figure, flat axes) for ``count`` panels of width x height inches, at most
    ``per_row`` a row."""
    if not count:
        raise ValueError("no benchmark results to plot")
    ncols = min(count, per_row)
    nrows = -(-count // ncols)
    fig = figure_class()(figsize=(width * ncols, height * nrows), layout="constrained")
    return fig, fig.subplots(nrows, ncols, squeeze=False).ravel()


def count(minimum):
    """argparse type: an integer >= ``minimum``."""
    def parse(text):
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {text}")
        return value
    return parse


def seconds(text):
    """argparse type: a finite number of seconds >= 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, got {text}")
    return value


def add_output_arguments(parser, json_default, plot_default, plot_what):
    """``--json`` and ``--plot``: where a benchmark writes its results and its ``plot_what``."""
    parser.add_argument("--json", type=Path, default=Path(json_default),
                        help=f"where to write the results (default {json_default})")
    parser.add_argument("--plot", type=Path, default=Path(plot_default),
                        help=f"where to write {plot_what} (default {plot_default})")


def publish(result, table, plot_result, json_path, plot_path, has_results=True):
    """Print ``table``, write ``result`` as JSON and, if ``has_results``, ``plot_result`` it
    as PNG."""
    print(table)
    write_json(result, json_path)
    if has_results:
        plot_result(result, plot_path)
        print(f"\nwrote {json_path} and {plot_path}")
    else:
        print(f"\nwrote {json_path} (no results to plot)")
