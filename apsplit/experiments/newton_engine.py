"""The Newton engine's design choices, measured: named state, the criterion as a parameter,
and the time per tree against XGBoost's exact method.  From the repository root:

    python -m benchmarks.newton_engine [--repeats 5] [--rows 50000]

1. *Named state*: the column pass of ``kernels.newton_split`` (named tuples of
   arrays) against the same loop written on positional arrays.
2. *A user's criterion*: the built-in grower (criterion "newton", cached on disk)
   against criteria registered with ``apsplit.register_criterion`` and grown by
   ``grow_newton_tree(criterion=...)``, as a user would: a copy of the Newton score
   defined here, and the README's criterion ("significant",
   ``experiments.criterion``).  Per tree (depth 6, one tree, the same gradients:
   logistic at margin 0; the data of 3.), the time over the built-in's, and the
   one-off seconds per process: registering (numba compiles the score and weight
   for the probe calls) and the first tree (the grower's compile, less one tree).
   With ``--cache`` both are registered with ``cache=True``: the first run compiles
   and writes their growers to numba's disk cache, a second run loads them.
3. *Per tree*: apsplit against ``xgboost.train(tree_method="exact", nthread=1)``,
   depth 6, one round, the same gradients (logistic at margin 0), on the bundled
   satimage data and on synthetic continuous data with and without 10% NaN.

Every ratio is of times measured side by side in one run (best of ``--repeats``).
"""

import argparse
import time

import numpy as np
from numba import njit

from apsplit import available_criteria, register_criterion
from apsplit.experiments import criterion
from apsplit.experiments.loaders import load_satimage
from apsplit.kernels.newton_split import (BLOCK, Rows, _block_may_exceed, _gather, _pass, beats,
                                          exceed_limit, make_best, make_running,
                                          newton_may_exceed, newton_score, record_bar,
                                          soft_threshold)
from apsplit.newton import NewtonData, NewtonParams, grow_newton_tree
from apsplit.optional import install_command, installed

COPY = "newton_copy"


@njit
def _user_score(G, H, params):
    """The Newton score again, as a user would register it."""
    if H <= 0.0:
        return 0.0
    t = soft_threshold(G, params.reg_alpha)
    return t * t / (H + params.reg_lambda)


@njit
def _named_passes(cols, rows, level, run, best, params, n_features):
    for f in range(n_features):
        run.visit[:] = True
        lo, hi = cols.indptr[f], cols.indptr[f + 1]
        one_value = hi > lo and cols.values[lo] == cols.values[hi - 1]
        if not one_value:
            _gather(cols, rows, f, level, run)
        _pass(cols, rows, f, False, one_value, level, run, best, params, newton_score,
              newton_may_exceed)
    return best.gain[0]


@njit
def _positional_passes(indptr, col_rows, col_values, position, gh, node_grad, node_hess, node_pos,
                       node_score, node_tie, entry_grad, entry_hess, entry_value, best_gain,
                       best_feature, best_left, best_right, params):
    """``_named_passes`` written on positional arrays for one node (slot 0): the same
    gathering, blocks and loop, 18 arguments.  The scalar tests (``newton_may_exceed``,
    ``_block_may_exceed``) and the score are the kernel's own: they take no arrays."""
    mcw = params.min_child_weight
    tie, sc, tg, th, tp = node_tie[0], node_score[0], node_grad[0], node_hess[0], node_pos[0]
    for f in range(indptr.shape[0] - 1):
        n = 0
        for e in range(indptr[f], indptr[f + 1]):
            r = col_rows[e]
            if position[r] < 0:
                continue
            entry_grad[n], entry_hess[n], entry_value[n] = gh[r, 0], gh[r, 1], col_values[e]
            n += 1
        if n == 0 or entry_value[0] == entry_value[n - 1]:
            continue  # one value: no candidate inside (``_one_value_pass``)
        limit = exceed_limit(record_bar(best_gain[0], tie), sc)
        last, G, H = entry_value[n - 1], entry_grad[n - 1], entry_hess[n - 1]
        n_pos = np.int64(H > 0.0)
        i = 1
        while i < n:  # descending, in blocks as ``_slot_pass``
            stop = min(i + BLOCK, n)
            neg = pos = H_b = 0.0
            for k in range(i, stop):
                g = entry_grad[n - 1 - k]
                neg += min(g, 0.0)
                pos += max(g, 0.0)
                H_b += entry_hess[n - 1 - k]
            if not _block_may_exceed(G, H, (neg, pos, H_b), tg, th, limit, params,
                                     newton_may_exceed):
                for k in range(i, stop):
                    h = entry_hess[n - 1 - k]
                    G += entry_grad[n - 1 - k]
                    H += h
                    n_pos += h > 0.0
                last = entry_value[n - stop]
                i = stop
                continue
            for k in range(i, stop):
                e = n - 1 - k
                v = entry_value[e]
                H2, G2 = th - H, tg - G
                candidate = (v != last) & (n_pos > 0) & (tp - n_pos > 0) & (H >= mcw) \
                    & (H2 >= mcw)
                if candidate & newton_may_exceed(G, H, G2, H2, limit, params):
                    gain = newton_score(G, H, params) + newton_score(G2, H2, params) - sc
                    if beats(gain, best_gain[0], tie):
                        limit = exceed_limit(record_bar(gain, tie), sc)
                        best_gain[0], best_feature[0] = gain, f
                        best_left[0], best_right[0] = v, last
                h = entry_hess[e]
                G += entry_grad[e]
                H += h
                n_pos += h > 0.0
                last = v
            i = stop
    return best_gain[0]


def _best_of(repeats, fn, *args):
    fn(*args)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def _datasets(n_rows):
    X, y, _ = load_satimage()
    yield "satimage 4435 x 36", X, (y == 0).astype(float)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_rows, 20))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=n_rows) > 1).astype(float)
    yield f"normal {n_rows} x 20", X, y
    X = X.copy()
    X[rng.random(X.shape) < 0.1] = np.nan
    yield f"normal {n_rows} x 20, 10% NaN", X, y


def named_state(repeats):
    X, y, _ = load_satimage()
    data = NewtonData(X)
    cols = data.columns()
    n = data.n_rows
    gh = np.column_stack([0.5 - (y == 0), np.full(n, 0.25)])
    position = np.zeros(n, np.int32)
    params = NewtonParams().kernel_params(n)
    G, H = gh[:, 0].sum(), gh[:, 1].sum()
    level_score = newton_score(G, H, params)
    from apsplit.kernels.newton_split import Level
    level = Level(np.array([G]), np.array([H]), np.array([n]), np.array([n]),
                  np.array([level_score]), np.zeros(1), np.abs(gh[:, 0]).sum(keepdims=True))
    rows = Rows(gh, position)
    named_best = make_best(1)
    named = _best_of(repeats, _named_passes, cols, rows, level, make_running(1, n), named_best,
                     params, data.n_features)
    run, best = make_running(1, n), make_best(1)
    positional = _best_of(repeats, _positional_passes, cols.indptr, cols.rows, cols.values,
                          position, gh, level.grad, level.hess, level.n_pos, level.score,
                          level.tie, run.entry_grad, run.entry_hess, run.entry_value, best.gain,
                          best.feature, best.left_value, best.right_value, params)
    # the positional copy keeps no default side (the backward pass: always left)
    same = all(np.array_equal(getattr(named_best, field), getattr(best, field))
               for field in ("gain", "feature", "left_value", "right_value"))
    print(f"1. one pass over every column of satimage ({cols.rows.size} entries), one node:")
    print(f"   named tuples {named * 1e3:.2f} ms, positional arrays {positional * 1e3:.2f} ms "
          f"(ratio {named / positional:.2f}); the same split: {'yes' if same else 'NO'}")
    return same


def _interleaved(repeats, fns):
    """The least time of each function over ``repeats`` rounds, the functions taking turns
    in every round (so that a slow spell of the shared machine hits them alike)."""
    best = [np.inf] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def user_criteria(repeats, n_rows, cache=False):
    """Registered criteria against the built-in one, per tree and in compile seconds
    (``cache``: registered with ``cache=True``)."""
    print("2. a user's criterion (apsplit.register_criterion, then grow_newton_tree"
          "(criterion=...)) against the built-in, one depth-6 tree:")
    params = NewtonParams(max_depth=6)
    names = {"newton": "newton (built-in)"}
    compile_seconds = {}
    start = time.perf_counter()
    if COPY not in available_criteria():
        register_criterion(COPY, _user_score, cache=cache)
    compile_seconds[COPY] = [time.perf_counter() - start]
    names[COPY] = "newton, registered copy"
    start = time.perf_counter()
    significant = criterion.register(cache)
    compile_seconds[significant] = [time.perf_counter() - start]
    names[significant] = f"{significant} (README)"
    for i, (label, X, y) in enumerate(_datasets(n_rows)):
        g, h = (0.5 - y).astype(np.float32), np.full(y.size, 0.25, np.float32)
        data = NewtonData(X)
        grow = {name: (lambda name=name: grow_newton_tree(data, g, h, params, criterion=name))
                for name in names}
        if i == 0:  # the first tree of each criterion in the process: load or compile
            first = {}
            for name, fn in grow.items():
                start = time.perf_counter()
                fn()
                first[name] = time.perf_counter() - start
        times = dict(zip(grow, _interleaved(repeats, list(grow.values()))))
        if i == 0:
            print(f"   the first tree (seconds, once per process; less one tree's time): "
                  f"built-in {first['newton'] - times['newton']:.2f} (numba's disk cache)"
                  + "".join(f"; {names[n]} {first[n] - times[n]:.2f} to compile, after "
                            f"{compile_seconds[n][0]:.2f} to register" for n in compile_seconds)
                  + (" (cache=True: a load from numba's disk cache after the first run)"
                     if cache else ""))
        nodes = {name: fn().node_count for name, fn in grow.items()}
        cells = [f"built-in {times['newton'] * 1e3:.1f} ms ({nodes['newton']} nodes)"]
        cells += [f"{names[n]} {times[n] / times['newton']:.2f}x ({nodes[n]} nodes)"
                  for n in compile_seconds]
        print(f"   {label:<30} " + " | ".join(cells))


def against_xgboost(repeats, n_rows):
    xgb = installed("xgboost")
    if xgb is None:
        print(f"3. skipped: xgboost is not installed ({install_command('xgboost')})")
        return
    print("3. one depth-6 tree, same gradients, one thread:")
    for name, X, y in _datasets(n_rows):
        g, h = (0.5 - y).astype(np.float32), np.full(y.size, 0.25, np.float32)
        start = time.perf_counter()
        data = NewtonData(X)
        binning = time.perf_counter() - start
        params = NewtonParams(max_depth=6)
        ours = _best_of(repeats, grow_newton_tree, data, g, h, params)
        dtrain = xgb.DMatrix(X, missing=np.nan)
        xgb_params = {"tree_method": "exact", "nthread": 1, "max_depth": 6, "base_score": 0.0}
        theirs = _best_of(repeats, lambda: xgb.train(xgb_params, dtrain, 1,
                                                     obj=lambda _p, _d: (g, h)))
        print(f"   {name:<30} apsplit {ours * 1e3:8.1f} ms   XGBoost exact {theirs * 1e3:8.1f} ms"
              f"   ratio {ours / theirs:5.2f}   (NewtonData {binning * 1e3:.0f} ms, once)")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.newton_engine", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", type=int, default=50000, help="rows of the synthetic sets")
    parser.add_argument("--cache", action="store_true",
                        help="register the user criteria with cache=True (run twice: the "
                             "second run loads their growers from numba's disk cache)")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.rows < 10:
        parser.error("--repeats must be >= 1 and --rows >= 10")
    named_state(args.repeats)
    user_criteria(args.repeats, args.rows, args.cache)
    against_xgboost(args.repeats, args.rows)


if __name__ == "__main__":
    main()
