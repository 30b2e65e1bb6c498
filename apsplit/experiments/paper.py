"""The paper's boosting benchmark: Tables 2-3 and Figures 1-2 of Aziz et al. (2018) on any data.

For every client (AdaBoost, LazyBoost, weight-trimmed boosting) and every
split finder, boost ``rounds`` trees of depth ``depth`` and record, per round,
the assessments, the training error and (with a test set) the test error; per
run, the CPU seconds of the fit.  Per client, the lower bounds on the
assessments (``weight_order`` every round, ``exact`` at a few rounds) and a
check that every finder grew the same trees.

How the numbers are measured
----------------------------
* The finders are exact, so for one client every method grows the same trees
  (same seed, so LazyBoost draws the same feature subsets).  This is checked,
  not assumed: per round, the training errors of all methods must be equal
  (bit for bit) and so must the trees' splits.  ``run`` reports the outcome
  in ``result["agree"]``; the command line exits with status 1 if it fails.
* CPU seconds: ``time.process_time()`` around ``fit`` of a run that computes
  no lower bound (the minimum over ``repeats`` fits, and more while a method's fits
  of a client add up to less than ``min_seconds``; within each repeat the
  methods take turns, so a change in the machine's load falls on all of them).  Binning (building the
  ``apsplit.Dataset``) is done once, before, and reported on its own
  (``binning_cpu_seconds``): boosting reuses it, and it is the same for every
  method.  Every client first fits ``WARM_UP_ROUNDS`` rounds with every method,
  untimed (the first method with the weight-order bound), so that the numba
  kernels, those of the second round's reweighting and weight-order merge
  included, are loaded (or compiled) before any clock runs.
* Lower bounds: one more fit per client, with the first method, that also
  computes the bounds of every round's tree (the sum over the tree's nodes).
  That fit is not timed as a method's run; its CPU seconds, bounds included,
  are ``bounds_cpu_seconds``.  Its training errors and trees take part in the
  agreement check, so the bounds belong to the trees every method grew.  The
  exact bound solves integer programs (``scipy.optimize.milp``) with a time
  limit per feature: it is meant for small data (use ``rows``); a round whose
  solver finds no bound in time gets ``null`` and a note in
  ``exact_failures``.
* Figure 1's scale: per round, 1 is what exhaustive search assesses (the sum
  over the tree's split nodes of node rows x round features) and 0 the exact
  bound; the figure then shows the rounds that have one, as the paper's.
  Without exact bounds, 0 is the weight-order bound, every round.

Used by ``python -m benchmarks.paper`` and ``apsplit compare``.
"""

import argparse
import math
import platform
import re
import sys
import time
from pathlib import Path

import numba
import numpy as np
import scipy
import sklearn

from .. import __version__
from ..adapters import AdaBoost, LazyBoost, WeightTrimmingBoost
from ..dataset import Dataset
from ..finders import available_finders
from .loaders import BUNDLED, FORMATS, load_bundled, load_file
from .report import (add_output_arguments, count, figure_class, progress_bar, require_plotting,
                     text_table, write_json)

__all__ = ["METHODS", "LOWER_BOUNDS", "CHECKPOINTS", "CLIENT_FORMS", "parse_client", "parse_list",
           "load_data", "first_rows", "run", "format_table", "plot", "add_arguments", "report"]

METHODS = ("adaptive", "quick", "exhaustive")
LOWER_BOUNDS = ("weight_order", "exact")
CHECKPOINTS = (100, 300, 500)  # rounds at which the paper reports errors
DEFAULT_EXACT_ROUNDS = (1, 100, 300)
WARM_UP_ROUNDS = 2  # untimed rounds per client and method before the timed fits
MAX_TURNS = 20  # the most timed fits per finder and client, whatever ``min_seconds`` asks
CLIENT_FORMS = "adaboost, lazyF (LazyBoost, feature fraction 0 < F <= 1), trimM (weight trimming, mass 0 < M <= 1)"
METHOD_COLORS = {"exhaustive": "#7f7f7f", "quick": "#5b8fd6", "adaptive": "#e07b39",
                 "adaptive_paper": "#9c5fb5"}


# -- arguments --------------------------------------------------------------------------
def parse_client(spec):
    """(client class, its extra options) of a client spec: "adaboost", "lazyF" or "trimM"."""
    text = spec.strip().lower()
    if text == "adaboost":
        return AdaBoost, {}
    match = re.fullmatch(r"(lazy|trim)(\d*\.?\d+)", text)
    if not match:
        raise ValueError(f"unknown client {spec!r}; the forms are {CLIENT_FORMS}")
    kind, value = match.group(1), float(match.group(2))
    if not 0 < value <= 1:
        what = "feature fraction" if kind == "lazy" else "weight mass"
        raise ValueError(f"client {spec!r}: the {what} must be in (0, 1], got {value:g}")
    if kind == "lazy":
        return LazyBoost, {"feature_fraction": value}
    return WeightTrimmingBoost, {"mass": value}


def parse_list(text, what, choices=None, check=None):
    """Comma-separated names (in order, without repeats), each in ``choices`` or passing ``check``."""
    items = [part.strip() for part in str(text).split(",") if part.strip()]
    if not items:
        raise ValueError(f"no {what} given")
    repeated = sorted({i for i in items if items.count(i) > 1})
    if repeated:
        raise ValueError(f"{what} listed twice: {', '.join(repeated)}")
    for item in items:
        if choices is not None and item not in choices:
            raise ValueError(f"unknown {what[:-1] if what.endswith('s') else what} {item!r}; "
                             f"choose from {', '.join(choices)}")
        if check is not None:
            check(item)
    return items


def _check_options(clients, methods, bounds, exact_rounds, finders=()):
    clients = parse_list(",".join(clients) if not isinstance(clients, str) else clients, "clients",
                         check=parse_client)
    methods = parse_list(",".join(methods) if not isinstance(methods, str) else methods, "methods",
                         sorted({*available_finders(), *finders}))
    bounds = parse_list(",".join(bounds) if not isinstance(bounds, str) else bounds, "lower bounds",
                        LOWER_BOUNDS)
    if "weight_order" not in bounds:
        raise ValueError("the lower bounds must include weight_order (the table and figures use it)")
    if exact_rounds is not None:
        exact_rounds = sorted({int(r) for r in exact_rounds})
        if exact_rounds and exact_rounds[0] < 1:
            raise ValueError(f"exact rounds are 1-based, got {exact_rounds[0]}")
    return clients, methods, bounds, exact_rounds


# -- data -------------------------------------------------------------------------------
def load_data(path, fmt=None, rows=None, test=None, test_fmt=None):
    """{"name", "X", "y", "X_test", "y_test"} of a data file or a bundled dataset (y: the
    original labels).

    ``path`` names a file (``fmt`` its format) or, when no such file exists, one of the
    datasets bundled with apsplit (``loaders.BUNDLED``; ``fmt`` None or its format), whose
    test file, if it has one, is the test set unless ``test`` is given.  ``rows`` keeps the
    first ``rows`` rows (e.g. the paper's A6A is the first 11220 rows of a8a).  ``test`` is a
    second file with the same features, of format ``test_fmt`` (default ``fmt``); without
    one X_test and y_test are None.
    """
    name = str(path)
    if name in BUNDLED and not Path(path).exists():
        return _bundled_data(name, fmt, rows, test, test_fmt)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} for the data file {path}; choose one of "
                         f"{', '.join(FORMATS)} (or name a bundled dataset: {', '.join(BUNDLED)})")
    X, codes, classes = load_file(path, fmt)
    data = {"name": Path(path).name, "X": X, "y": classes[codes], "X_test": None, "y_test": None}
    return _with_test(data, test_fmt or fmt, test, rows)


def _bundled_data(name, fmt, rows, test, test_fmt):
    """``load_data`` of a bundled dataset."""
    spec = BUNDLED[name]
    if fmt not in (None, spec.format):
        raise ValueError(f"the bundled dataset {name!r} has format {spec.format!r}, not {fmt!r}")
    X, codes, classes = load_bundled(name)
    data = {"name": name, "X": X, "y": classes[codes], "X_test": None, "y_test": None}
    if test is None and spec.test is not None:
        X_test, test_codes, test_classes = load_bundled(name, "test")
        data["X_test"], data["y_test"] = X_test, test_classes[test_codes]
    return _with_test(data, test_fmt or spec.format, test, rows)


def _with_test(data, fmt, test, rows):
    """``data`` with the test file ``test`` (format ``fmt``, if any) read and checked, then
    ``first_rows``."""
    X = data["X"]
    if test is not None:
        path = data["name"]
        X_test, test_codes, test_classes = load_file(test, fmt, X.shape[1] if fmt == "svm" else None)
        if X_test.shape[1] != X.shape[1]:
            raise ValueError(f"{test} has {X_test.shape[1]} features, {path} has {X.shape[1]}")
        data["X_test"], data["y_test"] = X_test, test_classes[test_codes]
    return first_rows(data, rows)


def first_rows(data, rows):
    """``data`` (a ``load_data`` dict) keeping the first ``rows`` training rows (None: all)."""
    n = data["X"].shape[0]
    if rows is None:
        return data
    if not 1 <= rows <= n:
        raise ValueError(f"rows must be in 1..{n} (the rows of {data['name']}), got {rows}")
    return {**data, "X": data["X"][:rows], "y": data["y"][:rows]}


# -- the benchmark ----------------------------------------------------------------------
class _Bar:
    """Round-by-round progress (``report.progress_bar``; nothing when off or without tqdm)."""

    def __init__(self, total, enabled):
        self.bar = progress_bar(enabled, total=total, unit="round")

    def start(self, text):
        if self.bar is not None:
            self.bar.set_description(text)

    def extend(self, n):
        if self.bar is not None:
            self.bar.total += n
            self.bar.refresh()

    def tick(self, n=1):
        if self.bar is not None:
            self.bar.update(n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _signature(model):
    """Per round: the tree's splits (feature and left rank of every node), as bytes."""
    return [np.concatenate([t.feature, t.left_rank, t.children_left]).tobytes() for t in model.trees_]


def _full_counts(model):
    """Per round: what exhaustive search assesses, sum over split nodes of rows x round features."""
    return [int(t.n_node_samples[t.node_assessments > 0].sum()) * int(h["n_features"])
            for t, h in zip(model.trees_, model.history_)]


def _improvement(quick, adaptive):
    """Percent saved by adaptive relative to quick (the paper's "improv.")."""
    return 100.0 * (quick - adaptive) / quick if quick else None


def run(X, y, *, dataset="data", X_test=None, y_test=None, clients=("adaboost",), methods=METHODS,
        depth=3, rounds=100, lower_bounds=("weight_order",), exact_rounds=None,
        exact_time_limit=10.0, criterion="error", seed=0, repeats=1, min_seconds=0.0,
        progress=False, finders=None):
    """Run the benchmark; returns a JSON-ready dict (see the module docstring and README).

    X: array or scipy.sparse; y: labels.  ``clients`` are specs ("adaboost",
    "lazy0.5", "trim0.9", ...); ``methods`` names of registered finders or
    of ``finders``, a {name: finder object} dict whose finders are used
    under those names in place of the registry's (nothing is registered);
    ``lower_bounds`` must include "weight_order" and may add "exact", computed
    at ``exact_rounds`` (default: those of 1, 100, 300 that run).  The finders take turns
    ``repeats`` times, and more (at most ``MAX_TURNS``) while a finder's fits of a client
    add up to less than ``min_seconds`` of CPU time: a short fit is timed more often.
    """
    finders = dict(finders or {})
    clients, methods, bounds, exact_rounds = _check_options(clients, methods, lower_bounds,
                                                            exact_rounds, finders)
    depth = int(depth)
    rounds = int(rounds)
    if depth < 1 or rounds < 1 or int(repeats) < 1:
        raise ValueError(f"depth, rounds and repeats must be >= 1, got {depth}, {rounds}, {repeats}")
    if not 0.0 <= min_seconds < math.inf:
        raise ValueError(f"min_seconds must be a number of seconds >= 0, got {min_seconds}")
    if exact_rounds is None:
        exact_rounds = [r for r in DEFAULT_EXACT_ROUNDS if r <= rounds]
    exact_rounds = set(exact_rounds) if "exact" in bounds else set()
    y = np.asarray(y)
    start = time.process_time()
    ds = Dataset(X)
    binning = time.process_time() - start
    checkpoints = sorted({r for r in CHECKPOINTS if r <= rounds} | {rounds})
    options = {"n_rounds": rounds, "max_depth": depth, "criterion": criterion, "random_state": seed}

    bar = _Bar(rounds * len(clients) * (len(methods) * int(repeats) + 1), progress)
    # load or compile the kernels untimed: every client with every method (the first with its
    # bound's) for two rounds, the second's reweighting and weight-order merge included
    for spec in clients:
        cls, extra = parse_client(spec)
        for method in methods:
            cls(**extra, **{**options, "n_rounds": WARM_UP_ROUNDS},
                method=finders.get(method, method),
                track_lower_bounds="weight_order" if method == methods[0] else ()).fit(ds, y)

    def fit(spec, method, **tracking):
        cls, extra = parse_client(spec)
        model = cls(**extra, **options, method=finders.get(method, method),
                    callback=lambda *_: bar.tick(), **tracking)
        cpu = time.process_time()
        wall = time.perf_counter()
        model.fit(ds, y)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        bar.tick(rounds - len(model.history_))  # rounds not run (boosting stopped early)
        return model, cpu, wall

    runs, summaries = [], []
    for spec in clients:
        bar.start(f"{spec} bounds")
        reference, bounds_cpu, _ = fit(spec, methods[0], track_lower_bounds=bounds,
                                       exact_rounds=exact_rounds, exact_time_limit=exact_time_limit)
        failures = {str(h["round"]): h["exact_failure"]
                    for h in reference.history_ if "exact_failure" in h}
        lbs = {"weight_order": [int(h["weight_order"]) for h in reference.history_],
               "exact": {str(h["round"]): (None if h["exact"] is None else int(h["exact"]))
                         for h in reference.history_ if "exact" in h}}
        full = _full_counts(reference)
        expected_errors, expected_trees = [h["train_error"] for h in reference.history_], \
            _signature(reference)
        mismatches = []
        client_runs = []
        cpu_times, last = {method: [] for method in methods}, {}  # last: (model, wall s)
        turns = 0  # the finders take turns, so each turn sees the same load
        while turns < int(repeats) or (turns < MAX_TURNS and min(
                sum(cpu_times[method]) for method in methods) < min_seconds):
            turns += 1
            if turns > int(repeats):
                bar.extend(rounds * len(methods))
            for method in methods:
                bar.start(f"{spec} {method}")
                model, cpu, wall = fit(spec, method)
                cpu_times[method].append(cpu)
                last[method] = model, wall
        for method in methods:
            model, wall = last[method]
            history = model.history_
            errors = [h["train_error"] for h in history]
            if errors != expected_errors:
                differ = [i + 1 for i, (a, b) in enumerate(zip(errors, expected_errors)) if a != b]
                mismatches.append(f"{method}: training errors differ from {methods[0]}'s "
                                  f"({len(errors)} vs {len(expected_errors)} rounds; "
                                  f"first differing round {differ[0] if differ else min(len(errors), len(expected_errors)) + 1})")
            elif _signature(model) != expected_trees:
                mismatches.append(f"{method}: same training errors as {methods[0]} but other trees")
            test_error = None
            if X_test is not None:
                test_error = [float(np.mean(p != y_test)) for p in model.staged_predict(X_test)]
            assessments = [int(h["assessments"]) for h in history]
            client_runs.append({
                "client": spec, "method": method, "assessments": assessments,
                "cpu_seconds": min(cpu_times[method]), "train_error": errors,
                "test_error": test_error, "lower_bounds": lbs,
                "total_assessments": sum(assessments), "cpu_seconds_repeats": cpu_times[method],
                "wall_seconds": wall, "finder_seconds": float(sum(h["seconds"] for h in history)),
                "rounds_run": len(history),
                "below_weight_order": [i + 1 for i, (a, b) in enumerate(zip(assessments,
                                                                              lbs["weight_order"]))
                                       if a < b]})
        by_method = {r["method"]: r for r in client_runs}
        improvement = None
        if "adaptive" in by_method and "quick" in by_method:
            a, q = by_method["adaptive"], by_method["quick"]
            improvement = {"assessments_percent": _improvement(q["total_assessments"],
                                                               a["total_assessments"]),
                           "cpu_percent": _improvement(q["cpu_seconds"], a["cpu_seconds"])}
        wo = lbs["weight_order"]
        summaries.append({
            "client": spec, "agree": not mismatches, "mismatches": mismatches,
            "rounds_run": len(reference.history_), "full_assessments": full,
            "weight_order_total": sum(wo), "bounds_method": methods[0],
            "bounds_cpu_seconds": bounds_cpu, "exact_failures": failures,
            "exact_above_weight_order": [int(r) for r, v in lbs["exact"].items()
                                         if v is not None and v > wo[int(r) - 1]],
            "improvement": improvement})
        runs += client_runs
    bar.close()
    X_shape = ds.n_rows, ds.n_features
    return {"dataset": dataset, "rows": int(X_shape[0]), "depth": depth, "rounds": rounds,
            "runs": runs,
            "clients": summaries, "agree": all(s["agree"] for s in summaries),
            "n_features": int(X_shape[1]), "n_classes": int(np.unique(y).size),
            "test_rows": None if X_test is None else int(X_test.shape[0]),
            "checkpoints": checkpoints, "criterion": criterion, "seed": seed, "repeats": int(repeats),
            "methods": methods, "lower_bound_kinds": bounds, "exact_rounds": sorted(exact_rounds),
            "exact_time_limit": exact_time_limit, "binning_cpu_seconds": binning,
            "settings": {"apsplit": __version__, "numpy": np.__version__, "numba": numba.__version__,
                         "scipy": scipy.__version__, "sklearn": sklearn.__version__,
                         "python": platform.python_version(), "machine": platform.machine()}}


# -- output -----------------------------------------------------------------------------
def _at(values, checkpoint):
    return f"{values[checkpoint - 1]:.4f}" if values is not None and checkpoint <= len(values) else "-"


def _percent(value):
    return "-" if value is None else f"{value:.1f}%"


def format_table(result):
    """The results as text: per client x method, then the paper's Tables 2-3 layout."""
    r = result
    checkpoints = r["checkpoints"]
    has_test = r["test_rows"] is not None
    header = ["client", "method", "assessments", "/ WO bound", "CPU s"]
    header += [f"train@{c}" for c in checkpoints] + ([f"test@{c}" for c in checkpoints] if has_test else [])
    rows = []
    for summary in r["clients"]:
        client = summary["client"]
        wo_total = summary["weight_order_total"]
        for run in (x for x in r["runs"] if x["client"] == client):
            rows.append([client, run["method"], f"{run['total_assessments']:,}",
                         f"{run['total_assessments'] / wo_total:.3f}", f"{run['cpu_seconds']:.2f}"]
                        + [_at(run["train_error"], c) for c in checkpoints]
                        + ([_at(run["test_error"], c) for c in checkpoints] if has_test else []))
        blank = [""] * (len(header) - 5)
        rows.append([client, "weight-order bound", f"{wo_total:,}", "1.000",
                     f"({summary['bounds_cpu_seconds']:.1f})"] + blank)
        exact = {int(k): v for k, v in next(x for x in r["runs"]
                                            if x["client"] == client)["lower_bounds"]["exact"].items()
                 if v is not None}
        if exact:
            wo = next(x for x in r["runs"] if x["client"] == client)["lower_bounds"]["weight_order"]
            at = sum(wo[k - 1] for k in exact)
            rows.append([client, f"exact bound, rounds {','.join(map(str, exact))}",
                         f"{sum(exact.values()):,}", f"{sum(exact.values()) / at:.3f}*", ""] + blank)
    lines = [f"{r['dataset']}: {r['rows']} x {r['n_features']}, {r['n_classes']} classes; depth "
             f"{r['depth']}, {r['rounds']} rounds, criterion {r['criterion']}, seed {r['seed']}",
             text_table(header, rows, n_left=2),
             "CPU s: process time of fit (lower bounds not computed; binning "
             f"{r['binning_cpu_seconds']:.2f} s excluded); (..): CPU s of the fit that computed the "
             "bounds" + ("; *: against the weight-order bound on the same rounds"
                         if r["exact_rounds"] else ""),
             "",
             "Adaptive (AP) against Quick Boost (QB), as in the paper's Tables 2-3 (improv. = 1 - AP/QB)"]
    table = []
    for summary in r["clients"]:
        by = {x["method"]: x for x in r["runs"] if x["client"] == summary["client"]}
        imp = summary["improvement"]
        if imp is None:
            continue
        table.append([summary["client"], f"{by['adaptive']['cpu_seconds']:.2f}",
                      f"{by['quick']['cpu_seconds']:.2f}", _percent(imp["cpu_percent"]),
                      f"{by['adaptive']['total_assessments']:.3g}",
                      f"{by['quick']['total_assessments']:.3g}", _percent(imp["assessments_percent"])])
    lines.append(text_table(["client", "CPU s AP", "CPU s QB", "improv.", "assessments AP",
                           "assessments QB", "improv."], table, n_left=1)
                 if table else "(needs both adaptive and quick)")
    notes = []
    for summary in r["clients"]:
        c = summary["client"]
        notes += [f"ERROR {c}: {m}" for m in summary["mismatches"]]
        notes += [f"WARNING {c} {x['method']}: fewer assessments than the weight-order bound at "
                  f"rounds {x['below_weight_order'][:10]}" for x in r["runs"]
                  if x["client"] == c and x["below_weight_order"]]
        if summary["exact_above_weight_order"]:
            notes.append(f"WARNING {c}: exact bound above the weight-order bound at rounds "
                         f"{summary['exact_above_weight_order']}")
        notes += [f"note {c}: no exact bound at round {k}: {why}"
                  for k, why in summary["exact_failures"].items()]
    if r["agree"]:
        notes.append("check: every method grew the same trees (equal training errors every round)")
    return "\n".join(lines + [""] + notes)


def plot(result, path):
    """Figures 2 (cumulative assessments) and 1 (position between bound and exhaustive), per client."""
    summaries = result["clients"]
    fig = figure_class()(figsize=(11, 3.8 * len(summaries)), layout="constrained")
    axes = fig.subplots(len(summaries), 2, squeeze=False)
    for (ax2, ax1), summary in zip(axes, summaries):
        client = summary["client"]
        runs = [x for x in result["runs"] if x["client"] == client]
        wo = np.array(runs[0]["lower_bounds"]["weight_order"], float)
        exact = {int(k): v for k, v in runs[0]["lower_bounds"]["exact"].items() if v is not None}
        full = np.array(summary["full_assessments"], float)
        rounds = np.arange(1, wo.size + 1)
        # Fig. 1: 0 = exact bound at the rounds that have one (as the paper), else the
        # weight-order bound at every round; 1 = exhaustive
        ks = np.array(sorted(exact)) if exact else rounds
        zero = np.array([exact[k] for k in ks], float) if exact else wo
        span = np.where(full[ks - 1] > zero, full[ks - 1] - zero, np.nan)
        style = {"marker": "o", "markersize": 4} if exact else {}
        for run in runs:
            counts = np.array(run["assessments"], float)
            color = METHOD_COLORS.get(run["method"])
            ax2.plot(rounds, np.cumsum(counts), label=run["method"], color=color)
            ax1.plot(ks, (counts[ks - 1] - zero) / span, label=run["method"], color=color,
                     linewidth=1, **style)
        ax2.plot(rounds, np.cumsum(wo), label="weight-order bound", color="black", linestyle="--")
        ax2.set(xlabel="boosting round", ylabel="total assessments",
                title=f"{client}: cumulative assessments (Fig. 2)")
        ax2.legend(fontsize=8)
        ax1.axhline(0.0, color="black", linewidth=0.8)
        if exact:
            ax1.plot(ks, (wo[ks - 1] - zero) / span, color="black", linestyle="--", marker="D",
                     markersize=4, label="weight-order bound")
        zero_name = "exact bound" if exact else "weight-order bound"
        ax1.set(xlabel="boosting round", ylabel=f"0 = {zero_name}, 1 = exhaustive",
                title=f"{client}: assessments per round (Fig. 1)")
        ax1.legend(fontsize=8)
    fig.suptitle(f"{result['dataset']} ({result['rows']} x {result['n_features']}), depth "
                 f"{result['depth']}, {result['rounds']} rounds", fontsize=10)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


# -- command line -----------------------------------------------------------------------
def list_type(what, choices=None, check=None):
    """argparse type: a comma-separated list, checked by ``parse_list``."""
    def parse(text):
        try:
            return parse_list(text, what, choices, check)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


def _rounds_list(text):
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated round numbers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected round numbers >= 1, got {text!r}")
    return values


DATA_HELP = (f"the training data file, or a dataset bundled with apsplit: {', '.join(BUNDLED)} "
             "(the larger sets, e.g. MNIST or ijcnn1, are read from a file: see docs/data.md)")
FORMAT_HELP = ("the data file's format (not needed for a bundled dataset): svm: LIBSVM; "
               "uci: numbers, label last; tsv: tab-separated, label first; .gz/.bz2 are read directly")


def add_sweep_arguments(parser, *, rounds_default, json_default, plot_default, depth=True,
                        client=False):
    """--data, --format, --rows, --rounds, --depth (unless ``depth`` is False), --client (with
    ``client``), --json and --plot of the sweeps (``benchmarks.quick_sweep``,
    ``benchmarks.steps``, ``benchmarks.depths``)."""
    parser.add_argument("--data", required=True, help=DATA_HELP)
    parser.add_argument("--format", choices=FORMATS, help=FORMAT_HELP)
    parser.add_argument("--rows", type=count(1), help="keep the first N rows (default all)")
    parser.add_argument("--rounds", type=count(1), default=rounds_default,
                        help=f"boosting rounds (default {rounds_default})")
    if depth:
        parser.add_argument("--depth", type=count(1), default=3, help="tree depth (default 3)")
    if client:
        parser.add_argument("--client", default="adaboost",
                            help="adaboost, lazyF or trimM, as in benchmarks.paper (default adaboost)")
    parser.add_argument("--json", default=json_default)
    parser.add_argument("--plot", default=plot_default)


def sweep_data(parser, args):
    """The data of ``add_sweep_arguments``' options (an argparse error if it cannot be read,
    or if --client is not a client)."""
    try:
        if "client" in args:
            parse_client(args.client)
        return first_rows(load_data(args.data, args.format), args.rows)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))


def add_arguments(parser, *, data, rounds_default, quick_rounds, json_default, plot_default,
                  clients_default="adaboost"):
    """The benchmark's options, shared by ``python -m benchmarks.paper`` and ``apsplit compare``.

    ``data``: whether to add --data/--format/--test (the command reads a file).
    """
    if data:
        parser.add_argument("--data", type=Path, required=True, help=DATA_HELP)
        parser.add_argument("--format", choices=FORMATS, help=FORMAT_HELP)
        parser.add_argument("--test-format", choices=FORMATS,
                            help="the test file's format, if not --format's (e.g. MNIST: "
                                 "--format npz --test t10k-images-idx3-ubyte.gz --test-format idx)")
        parser.add_argument("--test", type=Path, help="a test file; test errors are "
                                                      "reported only with a test set (a bundled "
                                                      "dataset's test file is used by default)")
    parser.add_argument("--rows", type=count(1), help="keep the first N rows (default all; e.g. the "
                                                       "paper's A6A is the first 11220 rows of a8a)")
    parser.add_argument("--depth", type=count(1), default=3, help="tree depth (default 3)")
    parser.add_argument("--rounds", type=count(1),
                        help=f"boosting rounds (default {rounds_default}; {quick_rounds} with --quick)")
    parser.add_argument("--clients", type=list_type("clients", check=parse_client),
                        default=clients_default.split(","),
                        help=f"comma-separated clients (default {clients_default}): {CLIENT_FORMS}; "
                             "e.g. adaboost,lazy0.5,lazy0.9,trim0.9,trim0.99")
    parser.add_argument("--methods", type=list_type("methods", available_finders()),
                        default=list(METHODS),
                        help=f"comma-separated finders (default {','.join(METHODS)}; any of "
                             f"{','.join(available_finders())})")
    parser.add_argument("--lower-bounds", type=list_type("lower bounds", LOWER_BOUNDS),
                        default=["weight_order"],
                        help="weight_order (required) and optionally exact (integer programs: slow, "
                             "for small data): default weight_order")
    parser.add_argument("--exact-rounds", type=_rounds_list,
                        help="rounds at which the exact bound is computed (default: those of "
                             f"{','.join(map(str, DEFAULT_EXACT_ROUNDS))} that run)")
    parser.add_argument("--exact-time-limit", type=float, default=10.0,
                        help="seconds per feature's integer program (default 10)")
    parser.add_argument("--criterion", choices=("error", "entropy", "gini"), default="error",
                        help="split criterion (default error; exact bound: error only)")
    parser.add_argument("--seed", type=int, default=0, help="random_state of every client (default 0)")
    parser.add_argument("--repeats", type=count(1), default=1,
                        help="timed fits per run; the least CPU time is reported (default 1)")
    parser.add_argument("--quick", action="store_true",
                        help=f"a smoke test: {quick_rounds} rounds and at most 1000 rows unless given")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_output_arguments(parser, json_default, plot_default, "the figures")


def report(args, parser, data=None, rounds_default=500, quick_rounds=10):
    """Run with parsed ``add_arguments`` options: print the table, write JSON and PNG.

    ``data``: a ``load_data`` dict (else read from args.data/format/test).
    Returns the exit status: 0, or 1 if the methods grew different trees.
    """
    require_plotting(parser)
    if "exact" in args.lower_bounds and args.criterion != "error":
        parser.error("the exact lower bound is defined for --criterion error only")
    try:
        _check_options(args.clients, args.methods, args.lower_bounds, args.exact_rounds)
        if data is None:
            data = load_data(args.data, args.format, None, args.test, args.test_format)
        rows = args.rows
        if rows is None and args.quick:
            rows = min(1000, data["X"].shape[0])
        data = first_rows(data, rows)
    except ValueError as exc:  # bad options, a missing file (DataFileNotFoundError), bad data
        parser.error(str(exc))
    rounds = args.rounds or (quick_rounds if args.quick else rounds_default)
    result = run(data["X"], data["y"], dataset=data["name"], X_test=data["X_test"],
                 y_test=data["y_test"], clients=args.clients, methods=args.methods, depth=args.depth,
                 rounds=rounds, lower_bounds=args.lower_bounds, exact_rounds=args.exact_rounds,
                 exact_time_limit=args.exact_time_limit, criterion=args.criterion, seed=args.seed,
                 repeats=args.repeats, progress=not args.no_progress)
    print(format_table(result))
    write_json(result, args.json)
    plot(result, args.plot)
    print(f"\nwrote {args.json} and {args.plot}")
    if not result["agree"]:
        print("ERROR: the methods grew different trees (see above)", file=sys.stderr)
        return 1
    return 0
