"""Scaling: per-tree fit time as the number of rows grows, apsplit against the stock libraries.

For every dataset and size n of a geometric grid, every model boosts ``trees``
depth-3 trees on the first n rows, with one thread and with every thread:

* apsplit's ``APBoostClassifier(boosting="adaboost", criterion="gini")`` with each
  finder (``methods``); with ``n_jobs`` set if the estimator has that parameter;
* LightGBM (``num_leaves=8, max_depth=3, min_child_samples=1,
  min_child_weight=1e-3``), XGBoost ``tree_method="exact"`` and ``"hist"``
  (``max_depth=3``), both through their scikit-learn estimators, ``n_jobs`` threads;
* scikit-learn's ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=3))`` on
  its best input (dense float32, or CSC float32 for sparse data; see
  ``benchmarks.stock``).  It has no thread parameter.

A model without a thread parameter is fitted once, with one thread; its
rows for more threads repeat those fits and say so (``thread_parameter``
None, ``same_fits_as_one_thread``).

Rows
----
The dataset's rows in a fixed random order (seed 0), so that the first n rows
of every size are a random subset of the next.  Sizes beyond the dataset's rows
are reached with copies of it, every copy's values multiplied by 1 + 1e-6·u (u
uniform in [-1, 1], a seed per copy; stored entries only for sparse data, so
zeros stay zeros): the copies' values are distinct from the originals', so a
replicated set is a continuous one beyond its size (``real_rows`` tells where).

How the numbers are measured
----------------------------
* Per-tree seconds: the wall time of ``fit`` (binning inside it, as a user sees
  it; the input matrix is built before), the least of ``repeats`` fits (the
  repeats interleaved: each pass fits every model once), divided
  by the trees grown (rounds run, times the classes for XGBoost and LightGBM with
  more than two classes).  apsplit first fits two untimed rounds at every size,
  so no numba kernel is compiled on the clock, and every model is fitted once on
  the smallest size before any measurement (libraries and kernels loaded).
* ``over_lightgbm``: per-tree seconds over LightGBM's with one thread, at the
  same size, in the same run.
* ``budget``: once a model's fit takes longer than ``budget`` seconds, it is not
  run at larger sizes (``skipped_sizes``).
* Exponent: the slope of the least-squares line of log time on log n over the
  sizes >= ``fit_from`` (``exponent``) and over 7,000–112,000 rows
  (``exponent_7k_112k``, issue 14's range); None with fewer than two sizes.
* Binned data (``binned``): the seconds to build an ``apsplit.Dataset`` of the
  n rows once (part of every apsplit fit's time), the bytes of the numpy arrays
  it holds, per (row, feature) and per stored entry (the nonzeros of sparse
  input), ``coarse_bytes``, the coarse bins its exhaustive search makes on its first
  fit (``Dataset.coarse_bins``), and ``workspace_bytes``, its scratch arrays
  for the dataset's classes, per (row, feature); ``peak_rss_growth``: Linux's
  peak resident set (VmHWM, reset through /proc/self/clear_refs) over the
  first timed fit at that size, less the resident set before it (after
  ``gc.collect`` and glibc's ``malloc_trim`` gave freed memory back), per row:
  the fit's working memory beyond what the process already held (the input
  and the row pool); None where Linux's reset is missing.

Used by ``python -m benchmarks.scaling``.
"""

import argparse
import ctypes
import datetime
import gc
import os
import platform
import re
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.tree import DecisionTreeClassifier

from .. import __version__
from ..adapters.sklearn import APBoostClassifier
from ..dataset import Dataset
from ..finders import available_finders
from ..optional import installed
from .loaders import BUNDLED, FORMATS, load_bundled, load_file
from .paper import list_type, parse_list
from .report import (add_output_arguments, count, not_installed, panel_grid, publish,
                     require_plotting, text_table)
from .stock import WARMUP_ROUNDS, _adaboost

__all__ = ["DEFAULTS", "QUICK", "LABELS", "LAYOUTS", "row_pool", "run", "run_dataset",
           "exponent", "format_table", "plot", "add_arguments", "report"]

DEFAULTS = {"datasets": ("higgs7k",), "sizes": (1000, 2000, 3500, 7000, 14000, 28000, 56000,
                                                 112000, 224000),
            "methods": ("exhaustive", "quick", "adaptive"), "trees": 10, "depth": 3,
            "repeats": 3, "threads": (1, os.cpu_count() or 1), "budget": 60.0, "fit_from": 7000,
            "labels": "native", "layouts": ("dense",)}
QUICK = {"sizes": (250, 500, 1000), "trees": 3, "repeats": 1}
ISSUE_RANGE = (7000, 112000)
JITTER = 1e-6
LABELS = ("native", "odd-even")
LAYOUTS = ("dense", "sparse")
REFERENCE = ("LightGBM", 1)  # the model and thread count every ratio is taken to
MODEL_COLORS = {"apsplit exhaustive": "#e07b39", "apsplit quick": "#c9a227",
                "apsplit adaptive": "#b5473a", "LightGBM": "#9c5fb5", "XGBoost exact": "#4c9a5b",
                "XGBoost hist": "#86c06c", "scikit-learn AdaBoost": "#7f7f7f"}


# -- rows -------------------------------------------------------------------------------
def _jittered(X, seed):
    """A copy of ``X`` with every stored value multiplied by 1 + JITTER·u, u uniform in [-1, 1]."""
    rng = np.random.default_rng(seed)
    if sp.issparse(X):
        copy = sp.csr_matrix(X, dtype=np.float64, copy=True)
        copy.data *= 1 + JITTER * rng.uniform(-1, 1, copy.data.size)
        return copy
    return X * (1 + JITTER * rng.uniform(-1, 1, X.shape))


def row_pool(X, y, rows):
    """(X, y) of ``rows`` rows: the data in a fixed random order (seed 0), then jittered
    copies of it (copy c seeded c) as far as needed; the first n rows are size n's."""
    order = np.random.default_rng(0).permutation(X.shape[0])
    X = sp.csr_matrix(X, dtype=np.float64)[order] if sp.issparse(X) else \
        np.asarray(X, dtype=np.float64)[order]
    y = np.asarray(y)[order]
    copies = -(-rows // X.shape[0]) - 1
    parts = [X] + [_jittered(X, c) for c in range(1, copies + 1)]
    X = sp.vstack(parts, format="csr") if sp.issparse(X) else np.concatenate(parts)
    return X[:rows], np.tile(y, copies + 1)[:rows]


def add_size_argument(parser):
    """--size of the commands that take ``row_pool``'s rows (``benchmarks.survivors``,
    ``benchmarks.phases``)."""
    parser.add_argument("--size", type=count(1),
                        help="rows: the data shuffled, then jittered copies of it as far as "
                             "needed (benchmarks.scaling's rows; default the data as given)")


def pooled(X, y, size):
    """``row_pool(X, y, size)``, or (X, y) as given when ``size`` is None."""
    return (X, y) if size is None else row_pool(X, y, size)


def odd_even(labels):
    """0 for each even and 1 for each odd integer label (MNIST's odd against even digits;
    ``--labels odd-even``); a ValueError if the labels are not integers or all of one parity."""
    labels = np.asarray(labels)
    try:
        values = labels.astype(np.int64)
    except ValueError:
        raise ValueError(f"labels 'odd-even' need integer labels, got {labels[:3].tolist()}") \
            from None
    parity = values % 2
    if np.unique(parity).size < 2:
        raise ValueError(f"labels 'odd-even' leave one class (labels {np.unique(labels).tolist()})")
    return parity


def _labels(y, classes, labels):
    """Class codes for ``labels``: "native" as loaded, "odd-even" the numeric labels' parity."""
    if labels == "native":
        return y, classes
    return odd_even(classes[y]), np.array(["even", "odd"])


def _inputs(X, layout):
    """(apsplit / LightGBM / XGBoost input, scikit-learn's best input, its name) of ``layout``."""
    if layout == "sparse":
        csr = sp.csr_matrix(X, dtype=np.float64)
        return csr, sp.csc_matrix(csr, dtype=np.float32), "CSC float32"
    dense = np.ascontiguousarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
    return dense, dense.astype(np.float32), "dense float32"


# -- models -----------------------------------------------------------------------------
def _models(methods, trees, depth, unavailable):
    """[{model, library, thread_parameter, estimator(threads), sklearn_input, numba}]."""
    threaded = "n_jobs" in APBoostClassifier().get_params()
    models = []
    for method in methods:
        def apsplit(threads, method=method):
            estimator = APBoostClassifier(boosting="adaboost", n_estimators=trees,
                                          max_depth=depth, criterion="gini", method=method)
            return estimator.set_params(n_jobs=threads) if threaded else estimator
        models.append({"model": f"apsplit {method}", "library": "apsplit", "numba": True,
                       "thread_parameter": "n_jobs" if threaded else None,
                       "estimator": apsplit, "sklearn_input": False})
    lightgbm, xgboost = installed("lightgbm"), installed("xgboost")
    if lightgbm is None:
        unavailable["LightGBM"] = not_installed("lightgbm")
    else:
        models.append({"model": "LightGBM", "library": "lightgbm", "numba": False,
                       "thread_parameter": "n_jobs", "sklearn_input": False,
                       "estimator": lambda threads: lightgbm.LGBMClassifier(
                           n_estimators=trees, num_leaves=2 ** depth, max_depth=depth,
                           min_child_samples=1, min_child_weight=1e-3, n_jobs=threads,
                           random_state=0, verbose=-1)})
    if xgboost is None:
        unavailable["XGBoost"] = not_installed("xgboost")
    else:
        for tree_method in ("exact", "hist"):
            models.append({"model": f"XGBoost {tree_method}", "library": "xgboost",
                           "numba": False, "thread_parameter": "n_jobs", "sklearn_input": False,
                           "estimator": lambda threads, tree_method=tree_method:
                           xgboost.XGBClassifier(n_estimators=trees, max_depth=depth,
                                                 tree_method=tree_method, n_jobs=threads,
                                                 random_state=0)})
    models.append({"model": "scikit-learn AdaBoost", "library": "scikit-learn", "numba": False,
                   "thread_parameter": None, "sklearn_input": True,
                   "estimator": lambda threads: _adaboost(
                       DecisionTreeClassifier(max_depth=depth, random_state=0), trees)})
    return models


def _trees_grown(model, n_classes):
    if isinstance(model, APBoostClassifier):
        return len(model.history_)
    if hasattr(model, "estimators_"):  # scikit-learn's AdaBoost, which may stop early
        return len(model.estimators_)
    return int(model.n_estimators) * (n_classes if n_classes > 2 else 1)


# -- memory -----------------------------------------------------------------------------
def _status_kib(field):
    with open("/proc/self/status") as status:
        return int(re.search(rf"^{field}:\s+(\d+) kB", status.read(), re.M).group(1))


def _reset_peak_rss():
    """Give freed memory back to the system (glibc's malloc_trim), reset Linux's peak resident
    set of this process; the resident bytes now, or None where there is no such reset."""
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return _status_kib("VmRSS") * 1024
    except (OSError, AttributeError):
        return None


def _binned(X, n_classes):
    """An apsplit Dataset of X: the seconds to build it, the bytes of the numpy arrays it
    holds, of the coarse bins its exhaustive search makes on its first fit
    (``Dataset.coarse_bins``) and of its workspace for ``n_classes``, each also per
    (row, feature)."""
    start = time.perf_counter()
    ds = Dataset(X)
    seconds = time.perf_counter() - start
    held = sum(v.nbytes for v in vars(ds).values() if isinstance(v, np.ndarray))
    coarse = sum(v.nbytes for v in ds.coarse_bins() if isinstance(v, np.ndarray))
    with ds.workspace(n_classes) as work:
        scratch = sum(a.nbytes for a in work)
    entries = X.shape[0] * X.shape[1]
    stored = X.nnz if sp.issparse(X) else entries
    return {"n": int(X.shape[0]), "binning_seconds": seconds, "binned_bytes": held,
            "binned_bytes_per_entry": held / entries, "stored_entries": int(stored),
            "binned_bytes_per_stored_entry": held / stored, "coarse_bytes": coarse,
            "coarse_bytes_per_entry": coarse / entries, "workspace_bytes": scratch,
            "workspace_bytes_per_entry": scratch / entries}


# -- the run ----------------------------------------------------------------------------
def exponent(points, low, high=float("inf")):
    """The least-squares slope of log per-tree seconds on log n over sizes in [low, high]."""
    kept = [(p["n"], p["per_tree_seconds"]) for p in points if low <= p["n"] <= high]
    if len(kept) < 2:
        return None
    n, seconds = np.log(np.array(kept)).T
    return float(np.polyfit(n, seconds, 1)[0])


def _fit_seconds(estimator, X, y, measure_memory):
    """(wall seconds of ``estimator.fit(X, y)``, the peak RSS growth over it in bytes, or None
    if not ``measure_memory`` or not measurable)."""
    before = _reset_peak_rss() if measure_memory else None
    start = time.perf_counter()
    estimator.fit(X, y)
    seconds = time.perf_counter() - start
    return seconds, None if before is None else max(0, _status_kib("VmHWM") * 1024 - before)


def _measure_size(runs, inputs, y, repeats, n_classes):
    """{(model, threads): point} at one size.  The repeats are interleaved (every run fitted
    once per pass), so that load coming and going on a shared machine falls on all alike."""
    for spec, threads in runs:
        if spec["numba"]:  # kernels compiled and loaded off the clock
            warm = spec["estimator"](threads)
            warm.set_params(n_estimators=min(WARMUP_ROUNDS, warm.n_estimators))
            warm.fit(inputs[spec["sklearn_input"]], y)
    seconds = {(spec["model"], t): [] for spec, t in runs}
    growth, trees = {}, {}
    for repeat in range(repeats):
        for spec, threads in runs:
            key = (spec["model"], threads)
            estimator = spec["estimator"](threads)
            elapsed, grew = _fit_seconds(estimator, inputs[spec["sklearn_input"]], y,
                                         measure_memory=repeat == 0)
            seconds[key].append(elapsed)
            growth.setdefault(key, grew)
            trees[key] = _trees_grown(estimator, n_classes)
    n = len(y)
    return {key: {"n": n, "fit_seconds": min(s), "fit_seconds_repeats": s, "trees": trees[key],
                  "per_tree_seconds": min(s) / trees[key], "peak_rss_growth_bytes": growth[key],
                  "peak_rss_growth_per_row": None if growth[key] is None else growth[key] / n}
            for key, s in seconds.items()}


def _present_classes(y, name):
    """(y as codes 0..C-1 of the classes it holds, C): XGBoost wants them contiguous."""
    present, codes = np.unique(y, return_inverse=True)
    if present.size < 2:
        raise ValueError(f"{name}: the first {y.size} rows (shuffled) hold one class; "
                         "give larger --sizes")
    return codes, int(present.size)


def run_dataset(name, X, y, classes, *, sizes, layout, methods, trees, depth, repeats, threads,
                budget, fit_from, progress=False):
    """The benchmark on one dataset (all its rows loaded); a JSON-ready dict."""
    real_rows = int(X.shape[0])
    pool, y_pool = row_pool(X, y, max(sizes))
    n_classes = len(classes)
    unavailable = {}
    specs = _models(methods, trees, depth, unavailable)
    runs = [(spec, t) for spec in specs for t in threads
            if t == 1 or spec["thread_parameter"] is not None]
    points = {(spec["model"], t): [] for spec, t in runs}
    skipped = {key: [] for key in points}
    binned = []
    warm_X, warm_sklearn, _ = _inputs(pool[:sizes[0]], layout)
    warm_y, _ = _present_classes(y_pool[:sizes[0]], name)
    for spec in specs:  # load every library and kernel before any memory or time is measured
        spec["estimator"](1).fit(warm_sklearn if spec["sklearn_input"] else warm_X, warm_y)
    for n in sizes:
        X_fit, X_sklearn, sklearn_input = _inputs(pool[:n], layout)
        y_fit, present = _present_classes(y_pool[:n], name)
        binned.append({**_binned(X_fit, present), "classes": present})
        for key, done in points.items():  # over budget at a smaller size: not run from here
            if skipped[key] or (done and done[-1]["fit_seconds"] > budget):
                skipped[key].append(n)
        active = [(spec, t) for spec, t in runs if not skipped[(spec["model"], t)]]
        measured = _measure_size(active, {False: X_fit, True: X_sklearn}, y_fit, repeats,
                                 present)
        for key, point in measured.items():
            points[key].append(point)
            if progress:
                print(f"{name} n={n}: {key[0]} ({key[1]} thread{'s' * (key[1] > 1)}) "
                      f"{point['per_tree_seconds'] * 1e3:.2f} ms/tree", file=sys.stderr)
    reference = {p["n"]: p["per_tree_seconds"] for p in points.get(REFERENCE, [])}
    rows = []
    for spec in specs:
        for t in threads:
            key = (spec["model"], t) if (spec["model"], t) in points else (spec["model"], 1)
            pts = [{**p, "over_lightgbm": p["per_tree_seconds"] / reference[p["n"]]
                    if p["n"] in reference else None} for p in points[key]]
            rows.append({"model": spec["model"], "library": spec["library"], "threads": t,
                         "thread_parameter": spec["thread_parameter"],
                         "same_fits_as_one_thread": key[1] != t,
                         "input": sklearn_input if spec["sklearn_input"] else
                         ("CSR float64" if layout == "sparse" else "dense float64"),
                         "points": pts, "skipped_sizes": skipped[key],
                         "exponent": exponent(pts, fit_from),
                         "exponent_7k_112k": exponent(pts, *ISSUE_RANGE)})
    return {"dataset": name, "layout": layout, "real_rows": real_rows,
            "n_features": int(X.shape[1]), "n_classes": n_classes, "sizes": list(sizes),
            "binned": binned, "models": rows, "unavailable": unavailable}


def _load(source, labels):
    """(name, X, y, classes) of a bundled name or a (path, format) pair."""
    if isinstance(source, str):
        X, y, classes = load_bundled(source)
        name = source
    else:
        path, fmt = source
        X, y, classes = load_file(path, fmt)
        name = Path(path).name.split(".")[0]
    y, classes = _labels(y, classes, labels)
    return name, X, y, classes


def _settings(**given):
    versions = {m: getattr(installed(m), "__version__", None)
                for m in ("numba", "sklearn", "xgboost", "lightgbm")}
    return {**given, "date": datetime.date.today().isoformat(), "cpu_count": os.cpu_count(),
            "apsplit": __version__, "numpy": np.__version__, **versions,
            "python": platform.python_version(), "machine": platform.machine()}


def run(datasets=DEFAULTS["datasets"], files=(), *, sizes=DEFAULTS["sizes"],
        layouts=DEFAULTS["layouts"], methods=DEFAULTS["methods"], trees=DEFAULTS["trees"],
        depth=DEFAULTS["depth"], repeats=DEFAULTS["repeats"], threads=DEFAULTS["threads"],
        budget=DEFAULTS["budget"], fit_from=DEFAULTS["fit_from"], labels=DEFAULTS["labels"],
        progress=False):
    """The benchmark on bundled ``datasets`` and ``files`` [(path, format)], every layout;
    a JSON-ready dict {"settings", "datasets"}."""
    sizes = sorted(set(int(n) for n in sizes))
    threads = sorted(set(int(t) for t in threads))
    if sizes[0] < 2 or threads[0] < 1 or 1 not in threads:
        raise ValueError(f"sizes must be >= 2 rows and threads include 1 (the reference), got "
                         f"sizes {sizes} and threads {threads}")
    settings = _settings(datasets=list(datasets), files=[[str(p), f] for p, f in files],
                         sizes=sizes, layouts=list(layouts), methods=list(methods), trees=trees,
                         depth=depth, repeats=repeats, threads=threads, budget=budget,
                         fit_from=fit_from, labels=labels, jitter=JITTER)
    results = []
    for source in [*datasets, *files]:
        name, X, y, classes = _load(source, labels)
        for layout in layouts:
            results.append(run_dataset(name, X, y, classes, sizes=sizes, layout=layout,
                                       methods=methods, trees=trees, depth=depth,
                                       repeats=repeats, threads=threads, budget=budget,
                                       fit_from=fit_from, progress=progress))
    return {"settings": settings, "datasets": results}


# -- output -----------------------------------------------------------------------------
def _fmt(value, spec):
    return "-" if value is None else format(value, spec)


def _threads_text(row):
    if row["same_fits_as_one_thread"]:
        return f"{row['threads']}: 1 (no param)"
    return str(row["threads"])


def format_table(result):
    """Per-tree milliseconds and the ratio to LightGBM (one thread) by size, the exponents,
    then memory per (row, feature)."""
    blocks = []
    for d in result["datasets"]:
        sizes = d["sizes"]
        header = ["model", "threads", *[f"{n:,}" for n in sizes], "exp", "exp 7k-112k"]
        times, ratios = [], []
        for r in d["models"]:
            by_n = {p["n"]: p for p in r["points"]}
            lead = [r["model"], _threads_text(r)]
            tail = [_fmt(r["exponent"], ".2f"), _fmt(r["exponent_7k_112k"], ".2f")]
            times.append(lead + [_fmt(by_n[n]["per_tree_seconds"] * 1e3, ".3g") if n in by_n
                                 else "-" for n in sizes] + tail)
            ratios.append(lead + [_fmt(by_n[n]["over_lightgbm"], ".2f") if n in by_n else "-"
                                  for n in sizes])
        where = (f"{d['dataset']} ({d['layout']}, {d['n_features']} features, {d['n_classes']} "
                 f"classes; real rows up to {d['real_rows']:,}, jittered copies beyond)")
        memory = [[f"{m['n']:,}", f"{m['binning_seconds'] * 1e3:.3g}",
                   f"{m['binned_bytes_per_entry']:.2f}", f"{m['binned_bytes_per_stored_entry']:.2f}",
                   f"{m['coarse_bytes_per_entry']:.2f}", f"{m['workspace_bytes_per_entry']:.2f}"]
                  for m in d["binned"]]
        rss = [[r["model"], *[_fmt(by_n[n]["peak_rss_growth_per_row"], ".0f") if n in by_n
                              else "-" for n in sizes]]
               for r in d["models"] if r["threads"] == 1
               for by_n in [{p["n"]: p for p in r["points"]}]]
        blocks += [f"{where}: per-tree milliseconds (least of {result['settings']['repeats']})",
                   text_table(header, times, 2), "",
                   f"{d['dataset']} ({d['layout']}): per-tree time / LightGBM's with 1 thread",
                   text_table(header[:-2], ratios, 2), "",
                   f"{d['dataset']} ({d['layout']}): apsplit's binned Dataset (built inside "
                   "every apsplit fit above)",
                   text_table(["rows", "binning ms", "binned bytes / (row, feature)",
                               "/ stored entry", "coarse bins' bytes / (row, feature)",
                               "workspace bytes / (row, feature)"], memory, 1),
                   "",
                   f"{d['dataset']} ({d['layout']}): peak RSS growth over the first timed fit, "
                   "bytes per row (1 thread)",
                   text_table(["model", *[f"{n:,}" for n in sizes]], rss, 1), ""]
        skipped = [f"  {r['model']} ({_threads_text(r)} thread(s)): not run at "
                   f"{r['skipped_sizes']} (a fit took over {result['settings']['budget']} s)"
                   for r in d["models"] if r["skipped_sizes"] and not r["same_fits_as_one_thread"]]
        blocks += skipped + [f"  {k} unavailable: {v}" for k, v in d["unavailable"].items()]
        blocks.append("")
    blocks.append("threads 'k: 1 (no param)': the model has no thread parameter; the row repeats "
                  "its 1-thread fits")
    return "\n".join(blocks)


def plot(result, path):
    """Log-log per-tree seconds against rows, a panel per dataset and layout: one line per
    model, solid with one thread, dashed with the most threads."""
    datasets = result["datasets"]
    fig, axes = panel_grid(len(datasets), 5.2, 4.0)
    most = max(result["settings"]["threads"])
    for ax, d in zip(axes, datasets):
        for r in d["models"]:
            if r["same_fits_as_one_thread"] or not r["points"] or r["threads"] not in (1, most):
                continue
            ax.plot([p["n"] for p in r["points"]], [p["per_tree_seconds"] for p in r["points"]],
                    marker="o", markersize=3, color=MODEL_COLORS.get(r["model"]),
                    linestyle="-" if r["threads"] == 1 else "--",
                    label=f"{r['model']} ({r['threads']})")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rows n")
        ax.set_ylabel("seconds per tree")
        ax.set_title(f"{d['dataset']} ({d['layout']}, {d['n_features']} features)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    for ax in axes[len(datasets):]:
        ax.set_visible(False)
    s = result["settings"]
    lines = "solid: 1 thread" + (f", dashed: {most}" if most > 1 else "")
    fig.suptitle(f"Per-tree fit time: depth {s['depth']}, {s['trees']} trees, least of "
                 f"{s['repeats']}; {lines}", fontsize=9)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


# -- command line -----------------------------------------------------------------------
def counts_type(what, minimum):
    """argparse type: comma-separated integers >= ``minimum``."""
    def parse(text):
        try:
            return [count(minimum)(item) for item in parse_list(text, what)]
        except (ValueError, argparse.ArgumentTypeError) as exc:
            raise argparse.ArgumentTypeError(f"{what}: {exc}") from None
    return parse


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def add_arguments(parser, json_default="results/scaling.json", plot_default="results/scaling.png"):
    """The benchmark's options (``python -m benchmarks.scaling``)."""
    join = lambda items: ",".join(map(str, items))  # noqa: E731
    parser.add_argument("--datasets", type=list_type("datasets", list(BUNDLED)),
                        default=list(DEFAULTS["datasets"]),
                        help=f"comma-separated bundled sets from {', '.join(BUNDLED)}, replicated "
                             f"with jitter beyond their rows (default {join(DEFAULTS['datasets'])})")
    parser.add_argument("--no-bundled", action="store_true",
                        help="no bundled set: only the --data files")
    parser.add_argument("--data", action="append", default=[], type=Path,
                        help="a dataset file to add (repeatable), read with its --format")
    parser.add_argument("--format", action="append", default=[], choices=FORMATS,
                        help="the format of each --data file, in order")
    parser.add_argument("--sizes", type=counts_type("sizes", 2), default=None,
                        help=f"comma-separated row counts (default {join(DEFAULTS['sizes'])}; "
                             f"{join(QUICK['sizes'])} with --quick)")
    parser.add_argument("--layouts", type=list_type("layouts", LAYOUTS),
                        default=list(DEFAULTS["layouts"]),
                        help="dense (float64 array) and/or sparse (scipy CSR of the same rows); "
                             "default dense")
    parser.add_argument("--methods", type=list_type("methods", available_finders()),
                        default=list(DEFAULTS["methods"]),
                        help=f"apsplit finders (default {join(DEFAULTS['methods'])})")
    parser.add_argument("--trees", type=count(1), default=None,
                        help=f"boosting rounds per fit (default {DEFAULTS['trees']}; "
                             f"{QUICK['trees']} with --quick)")
    parser.add_argument("--repeats", type=count(1), default=None,
                        help=f"timed fits per model and size, the least is kept (default "
                             f"{DEFAULTS['repeats']}; {QUICK['repeats']} with --quick)")
    parser.add_argument("--threads", type=counts_type("threads", 1),
                        default=list(DEFAULTS["threads"]),
                        help=f"thread counts, 1 among them (default {join(DEFAULTS['threads'])}: "
                             "one and every core)")
    parser.add_argument("--budget", type=_seconds, default=DEFAULTS["budget"],
                        help="a model whose fit took longer is not run at larger sizes "
                             f"(seconds, default {DEFAULTS['budget']:g})")
    parser.add_argument("--fit-from", type=count(2), default=DEFAULTS["fit_from"],
                        help=f"fit the exponent over sizes >= this (default {DEFAULTS['fit_from']})")
    parser.add_argument("--labels", choices=LABELS, default=DEFAULTS["labels"],
                        help="native: the classes as loaded; odd-even: integer labels by parity "
                             "(MNIST's odd against even digits)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test: small sizes, few trees, one repeat unless given")
    parser.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    add_output_arguments(parser, json_default, plot_default, "the log-log plot")


def report(args, parser):
    """Run with parsed ``add_arguments`` options: print the tables, write JSON and PNG."""
    require_plotting(parser)
    if len(args.format) != len(args.data):
        parser.error("give one --format per --data file")
    missing = [str(p) for p in args.data if not p.is_file()]
    if missing:
        parser.error(f"no such data file: {', '.join(missing)}")
    if 1 not in args.threads:
        parser.error("--threads must include 1 (every ratio is to LightGBM with one thread)")
    datasets = [] if args.no_bundled else args.datasets
    if not datasets and not args.data:
        parser.error("nothing to run: --no-bundled and no --data file")
    preset = QUICK if args.quick else DEFAULTS
    result = run(datasets, list(zip(args.data, args.format)),
                 sizes=args.sizes or preset["sizes"], layouts=args.layouts, methods=args.methods,
                 trees=args.trees or preset["trees"], depth=DEFAULTS["depth"],
                 repeats=args.repeats or preset["repeats"], threads=args.threads,
                 budget=args.budget, fit_from=args.fit_from, labels=args.labels,
                 progress=not args.no_progress)
    publish(result, format_table(result), plot, args.json, args.plot, bool(result["datasets"]))
    return result
