"""XGBoost's Newton criterion, and the scan of one sorted column for every open node of a level.

The criterion.  A node holds rows with gradients g_i and hessians h_i >= 0; a
child with sums (G, H) gets the weight (XGBoost's ``CalcWeight``)

    w(G, H) = -T(G) / (H + lambda),   T(G) = sign(G) max(|G| - alpha, 0),

clipped to [-max_delta_step, max_delta_step] when max_delta_step > 0, and 0 when
H <= 0.  Its *score* is the loss reduction of that leaf against the weight 0,

    s(G, H) = -(2 G w + (H + lambda) w^2 + 2 alpha |w|)   at w = w(G, H)    (0 when H <= 0),

which for max_delta_step = 0 equals T(G)^2 / (H + lambda).  Proof: the
regularised second-order loss of a leaf, 2 x [G w + (H + lambda) w^2 / 2 + alpha |w|],
is a convex function of w whose minimiser is -T(G) / (H + lambda) (the L1 term
is a soft threshold: for G > alpha the subgradient condition reads
G + (H + lambda) w - alpha = 0 with w < 0, symmetrically for G < -alpha, and
w = 0 is optimal for |G| <= alpha); substituting it gives
-(2 G w + (H + lambda) w^2 + 2 alpha |w|) = T(G)^2 / (H + lambda).  With the
clip, s is the same quadratic at the clipped w, which is what XGBoost computes
(``CalcGainGivenWeight``).  The gain of a split into L and R is

    gain = s(L) + s(R) - s(L + R),

(no 1/2 and no gamma: gamma is applied by pruning afterwards), and a split is
*admissible* when each child holds a row with h > 0 and has H >= min_child_weight
(XGBoost's ``IsValidSplit``: H > 0 on both sides; counting the rows with h > 0
decides that exactly, where H computed as a difference of sums may be a
rounding residue).  A node is split when its best gain exceeds 1e-6
(XGBoost's ``kRtEps``).

The scan (XGBoost's ``EnumerateSplit``, exact greedy).  Each feature's present
entries are sorted by value once (``apsplit.newton.NewtonData``); a row's open
node is ``position[row]`` (a *slot* 0..m-1 of the level, -1 for rows in
finished leaves; ``Rows``).  One pass over the column visits every open node's present
rows in value order, and keeps per slot the running sums of the rows seen.
Where the value changes inside a node, the running sums are one side of the
candidate "values up to here | the rest"; the other side is the node's totals
minus them, so it holds the node's missing rows.  Hence:

- the *forward* pass (ascending values) puts the missing rows right
  (default_left = False); after it, "every present row left, the missing rows
  right" is one more candidate;
- the *backward* pass (descending values) puts them left (default_left = True),
  then "every present row right, the missing rows left".

Every candidate XGBoost enumerates is met, in XGBoost's order: features by
increasing index, in a feature the forward pass (run, as in XGBoost, only
when the column has a missing value somewhere in the training data and two
distinct values; ``Columns.forward``), then the backward pass, each in scan
order.  In a node without missing rows the backward pass repeats the forward
candidates, so it is skipped there when the forward pass ran.  The cost is
one or two passes over the column's stored entries per level, whatever the
number of open nodes: O(entries) per level, linear in n.

Ties.  A candidate replaces a node's best only when its gain exceeds the best
by more than the node's tie window ``Level.tie`` = 1e-10 (sum_i |g_i|)^2 /
(H + lambda), a scale of the node's gains: gains equal in exact arithmetic
but computed from sums taken in another order (a few ulps apart) are then
ties, and the first candidate in XGBoost's order wins, which makes
XGBoost's tie rule (a lower feature index wins; in a feature only a strictly
larger gain replaces, ``NeedReplace``) deterministic here.  The grower
applies the rule to each feature's candidates, then to the features' bests in
index order (``newton_parallel``: the same tree for any number of threads), so
the chosen gain is within two windows of the optimum.  XGBoost compares gains in float32
(relative precision ~6e-8 of the children's scores); candidates whose gains
differ by less than that but more than the window can be chosen differently
(apsplit keeps the larger).

The criterion is a parameter: ``scan_feature`` takes the child score as a
jitted function ``score(G, H, params)``; numba compiles one specialisation
per function, inlined like a direct call.  Two numba facts decide how it is
passed.  A kernel whose *argument* is a jitted function is not found again in
numba's on-disk cache (the function's type holds its identity), and a
non-inlined call that passes one on carries the dispatcher as a run-time
value, which numba refuses to cache at all ("uses dynamic globals").  So the
functions here that take ``score`` are ``inline='always'`` (the criterion is
then a compile-time constant of their caller), and their caller, the grower,
is written once and specialised per criterion with the criterion bound as a
global (``newton_grow.specialise``): the built-in grower is cached on disk, a
user's criterion compiles once per process and runs at the built-in speed
(``python -m benchmarks.newton_engine``).
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .unsigned import u

KRT_EPS = 1e-6       # XGBoost's kRtEps: a split must gain more than this
TIE_WINDOW = 1e-10   # relative tie window of the gains (see the module docstring)


class Params(NamedTuple):
    """The growth parameters as the kernels take them (``apsplit.newton.NewtonParams``)."""

    max_depth: int
    capacity: int          # nodes the tree may hold: min(2^(max_depth+1), 2 n) - 1
    learning_rate: float
    reg_lambda: float
    reg_alpha: float
    gamma: float
    min_child_weight: float
    max_delta_step: float
    n_threads: int = 1     # threads of a level's column scans (the tree is the same for any)


class Columns(NamedTuple):
    """Each feature's present entries sorted by value (``NewtonData``'s kernel view).

    Feature f's entries are ``indptr[f]:indptr[f + 1]``: ``rows`` ascending in
    ``values`` (ties by row).  ``forward[f]``: XGBoost runs the forward pass
    on column f (it has a missing value and two distinct values).
    ``categorical[f]``: f's values are category codes, split by sets
    (``newton_categorical``).  ``hist_index[f]`` >= 0: f is a histogram feature
    (``newton_hist``), its rows' rank codes in column ``hist_index[f]`` of
    ``hist_codes`` (n x F_hist uint8), its distinct present values ascending in
    ``hist_values[hist_start[j]:hist_start[j + 1]]`` (j = ``hist_index[f]``).
    ``indicator_index[f]`` >= 0: f is an indicator feature (``newton_indicator``), j =
    ``indicator_index[f]``, its one present value ``indicator_value[j]``; row i holds
    the indicator features ``indicator_entries[indicator_indptr[i]:indicator_indptr[i +
    1]]`` (their indices j, ascending).
    """

    indptr: np.ndarray
    rows: np.ndarray
    values: np.ndarray
    forward: np.ndarray
    categorical: np.ndarray
    hist_index: np.ndarray
    hist_codes: np.ndarray
    hist_start: np.ndarray
    hist_values: np.ndarray
    indicator_index: np.ndarray
    indicator_value: np.ndarray
    indicator_indptr: np.ndarray
    indicator_entries: np.ndarray


class Rows(NamedTuple):
    """The rows' statistics and their open node.

    ``gh[row]`` = (g, h), side by side so that a row costs one cache line when the
    column visits rows in value order; ``position[row]`` (int32) is the row's slot
    in the level, -1 for rows outside the tree or in a finished leaf.
    """

    gh: np.ndarray
    position: np.ndarray


class Level(NamedTuple):
    """The open nodes of one level, by slot: their sums, score and tie window."""

    grad: np.ndarray      # G of the node
    hess: np.ndarray      # H of the node
    n_pos: np.ndarray     # rows with h > 0
    n_rows: np.ndarray    # rows
    score: np.ndarray     # s(G, H)
    tie: np.ndarray       # tie window of the node's gains
    abs_grad: np.ndarray  # sum of |g| of the node's rows


class Running(NamedTuple):
    """The sums of the rows a pass has seen so far in each slot, and the last value seen."""

    grad: np.ndarray
    hess: np.ndarray
    n_pos: np.ndarray
    n_rows: np.ndarray
    last: np.ndarray
    visit: np.ndarray     # the slots a pass visits: the node may split on the feature (and,
                          # for the backward pass after a forward one, has missing rows in it)


class Best(NamedTuple):
    """The best admissible candidate of each slot so far."""

    gain: np.ndarray          # -inf: none yet
    feature: np.ndarray       # -1: none
    default_left: np.ndarray  # missing rows go left
    left_value: np.ndarray    # the two consecutive present values the split separates
    right_value: np.ndarray   # (-inf / +inf: every present row on the other side)


@njit(cache=True, inline='always')
def soft_threshold(G, alpha):
    """T(G) = sign(G) max(|G| - alpha, 0) (XGBoost's ``ThresholdL1``)."""
    if G > alpha:
        return G - alpha
    if G < -alpha:
        return G + alpha
    return 0.0


# error_model="numpy": no division-by-zero test and raise per call (H > 0 and lambda >= 0
# here, so H + lambda > 0; NaN divides to NaN either way), a branch in the scans' loops
@njit(cache=True, error_model="numpy")
def newton_weight(G, H, params):
    """w(G, H) = -T(G) / (H + lambda), clipped by max_delta_step; 0 when H <= 0."""
    if H <= 0.0:
        return 0.0
    w = -soft_threshold(G, params.reg_alpha) / (H + params.reg_lambda)
    if params.max_delta_step != 0.0 and abs(w) > params.max_delta_step:
        w = math.copysign(params.max_delta_step, w)
    return w


@njit(cache=True, error_model="numpy")
def newton_score(G, H, params):
    """s(G, H): T(G)^2 / (H + lambda), or the loss reduction at the clipped weight."""
    if H <= 0.0:
        return 0.0
    if params.max_delta_step == 0.0:
        # T(G)^2 without a branch on the sign of G (a coin flip along a scan of
        # interleaved nodes): |T(G)| = max(|G| - alpha, 0), the same float, since
        # -G - alpha rounds to exactly -(G + alpha)
        t = max(abs(G) - params.reg_alpha, 0.0)
        return t * t / (H + params.reg_lambda)
    w = newton_weight(G, H, params)
    return -(2.0 * G * w + (H + params.reg_lambda) * w * w + 2.0 * params.reg_alpha * abs(w))


@njit(cache=True)
def make_level(m):
    """A zeroed Level of ``m`` slots."""
    return Level(np.zeros(m), np.zeros(m), np.zeros(m, np.int64), np.zeros(m, np.int64),
                 np.zeros(m), np.zeros(m), np.zeros(m))


@njit(cache=True)
def make_running(m):
    return Running(np.zeros(m), np.zeros(m), np.zeros(m, np.int64), np.zeros(m, np.int64),
                   np.zeros(m), np.zeros(m, np.bool_))


@njit(cache=True)
def make_best(m):
    return Best(np.full(m, -np.inf), np.full(m, -1, np.int64), np.zeros(m, np.bool_),
                np.full(m, np.nan), np.full(m, np.nan))


@njit(cache=True)
def _reset(run):
    run.grad[:] = 0.0
    run.hess[:] = 0.0
    run.n_pos[:] = 0
    run.n_rows[:] = 0


@njit(inline='always')
def side_gain(G, H, n_pos, node_grad, node_hess, node_pos, node_score, params, score):
    """Gain of splitting a node (sums node_grad, node_hess, node_pos; score node_score)
    into a side with sums (G, H, n_pos) and the rest; -inf when not admissible."""
    if n_pos <= 0 or node_pos - n_pos <= 0:
        return -np.inf
    H2 = node_hess - H
    if H < params.min_child_weight or H2 < params.min_child_weight:
        return -np.inf
    return score(G, H, params) + score(node_grad - G, H2, params) - node_score


@njit(inline='always')
def split_gain(level, s, G, H, n_pos, params, score):
    """``side_gain`` for slot ``s`` of the level."""
    return side_gain(G, H, n_pos, level.grad[s], level.hess[s], level.n_pos[s], level.score[s],
                     params, score)


@njit(cache=True, inline='always')
def _record(best, level, s, gain, f, default_left, left_value, right_value):
    """Keep the candidate if it beats slot ``s``'s best by more than the tie window."""
    if gain > best.gain[s] + level.tie[s] and gain < np.inf:
        best.gain[s] = gain
        best.feature[s] = f
        best.default_left[s] = default_left
        best.left_value[s] = left_value
        best.right_value[s] = right_value


@njit(inline='always')
def _pass(cols, rows, f, forward, level, run, best, params, score):
    """One pass over feature ``f``'s column, ascending (``forward``) or descending.

    At each present entry of an open node: if its value differs from the last one
    seen in the node, the candidate "the rows seen | the rest" is considered; then
    the row joins its node's running sums.  The backward pass skips the nodes that
    ``run.visit`` leaves out: those without a missing row (their candidates are the
    forward pass's), and in both passes the nodes that may not split on ``f``
    (``colsample_bynode``).  The loop body is written out here, on the arrays taken out
    of the named tuples once: a call per entry to a function of the tuples, or a
    field read per entry (or per candidate) of a tuple built in the caller, pays
    numba's reference counting of the arrays (measured 40-100x slower per entry;
    per candidate, 20% of the time on continuous data).

    With one open node (the root) the running sums stay in registers instead
    (``_single_pass``; measured 25-45% faster per entry there: with the sums in
    memory, every entry waits for the previous one's stores).
    """
    if level.grad.shape[0] == 1:
        _single_pass(cols, rows, f, forward, level, run, best, params, score)
        return
    lo, hi = cols.indptr[f], cols.indptr[f + 1]
    if hi > lo and cols.values[lo] == cols.values[hi - 1]:
        _one_value_pass(cols, rows, f, forward, run)
        return
    col_rows, col_values = cols.rows, cols.values
    gh, position = rows.gh, rows.position
    run_grad, run_hess, run_pos, run_rows = run.grad, run.hess, run.n_pos, run.n_rows
    last, visit = run.last, run.visit
    node_grad, node_hess, node_pos, node_score = level.grad, level.hess, level.n_pos, level.score
    tie, best_gain, best_feature = level.tie, best.gain, best.feature
    best_default, best_left, best_right = best.default_left, best.left_value, best.right_value
    for i in range(hi - lo):
        e = u(lo + i if forward else hi - 1 - i)  # unsigned subscripts: no sign tests
        r = u(col_rows[e])
        signed_slot = position[r]
        if signed_slot < 0:
            continue
        s = u(signed_slot)
        if not visit[s]:
            continue
        v = col_values[e]
        if run_rows[s] > 0 and v != last[s]:
            gain = side_gain(run_grad[s], run_hess[s], run_pos[s], node_grad[s], node_hess[s],
                             node_pos[s], node_score[s], params, score)
            if gain > best_gain[s] + tie[s] and gain < np.inf:  # _record, on the arrays
                best_gain[s] = gain
                best_feature[s] = f
                best_default[s] = not forward
                best_left[s] = last[s] if forward else v
                best_right[s] = v if forward else last[s]
        h = gh[r, 1]
        run_grad[s] += gh[r, 0]
        run_hess[s] += h
        run_pos[s] += h > 0.0
        run_rows[s] += 1
        last[s] = v


@njit(inline='always')
def _one_value_pass(cols, rows, f, forward, run):
    """``_pass`` over a column whose present entries hold one value (a one-hot or
    binary sparse column): no value changes inside a node, so no candidate but the
    caller's last one, and the pass only sums each visited slot's rows, in the same
    order as ``_pass`` (the same sums to the bit).  Each entry skips ``_pass``'s
    read and comparison of the slot's last value."""
    lo, hi = cols.indptr[f], cols.indptr[f + 1]
    col_rows = cols.rows
    gh, position = rows.gh, rows.position
    run_grad, run_hess, run_pos, run_rows = run.grad, run.hess, run.n_pos, run.n_rows
    visit = run.visit
    for i in range(hi - lo):
        r = u(col_rows[u(lo + i if forward else hi - 1 - i)])  # unsigned: no sign tests
        signed_slot = position[r]
        if signed_slot < 0:
            continue
        s = u(signed_slot)
        if not visit[s]:
            continue
        h = gh[r, 1]
        run_grad[s] += gh[r, 0]
        run_hess[s] += h
        run_pos[s] += h > 0.0
        run_rows[s] += 1
    run.last[:] = cols.values[lo]


@njit(inline='always')
def _single_pass(cols, rows, f, forward, level, run, best, params, score):
    """``_pass`` for a level of one open node (slot 0): the same candidates, its
    running sums held in locals and stored into ``run`` at the end."""
    if not run.visit[0]:
        return
    lo, hi = cols.indptr[f], cols.indptr[f + 1]
    col_rows, col_values = cols.rows, cols.values
    gh, position = rows.gh, rows.position
    node_grad, node_hess, node_pos = level.grad[0], level.hess[0], level.n_pos[0]
    node_score, tie = level.score[0], level.tie[0]
    G, H, n_pos, n_rows, last = run.grad[0], run.hess[0], run.n_pos[0], run.n_rows[0], run.last[0]
    for i in range(hi - lo):
        e = u(lo + i if forward else hi - 1 - i)  # unsigned subscripts: no sign tests
        r = u(col_rows[e])
        if position[r] < 0:
            continue
        v = col_values[e]
        if n_rows > 0 and v != last:
            gain = side_gain(G, H, n_pos, node_grad, node_hess, node_pos, node_score, params,
                             score)
            if gain > best.gain[0] + tie and gain < np.inf:
                best.gain[0] = gain
                best.feature[0] = f
                best.default_left[0] = not forward
                best.left_value[0] = last if forward else v
                best.right_value[0] = v if forward else last
        h = gh[r, 1]
        G += gh[r, 0]
        H += h
        n_pos += h > 0.0
        n_rows += 1
        last = v
    run.grad[0], run.hess[0], run.n_pos[0], run.n_rows[0], run.last[0] = G, H, n_pos, n_rows, last


@njit(inline='always')
def scan_feature(cols, rows, f, level, run, best, params, score, allowed):
    """Every candidate split of feature ``f`` in every open slot that may split on it
    (``allowed[s]``), kept in ``best``.

    The forward pass (if ``cols.forward[f]``) then the backward pass; see the
    module docstring.  ``run`` is scratch of the level's size.
    """
    m = level.grad.shape[0]
    run.visit[:] = allowed
    if cols.forward[f]:
        _reset(run)
        _pass(cols, rows, f, True, level, run, best, params, score)
        for s in range(m):
            run.visit[s] = allowed[s] and run.n_rows[s] < level.n_rows[s]
            if run.n_rows[s] > 0 and run.visit[s]:
                gain = split_gain(level, s, run.grad[s], run.hess[s], run.n_pos[s], params, score)
                _record(best, level, s, gain, f, False, run.last[s], np.inf)
    _reset(run)
    _pass(cols, rows, f, False, level, run, best, params, score)
    for s in range(m):
        if run.n_rows[s] > 0 and run.n_rows[s] < level.n_rows[s]:
            gain = split_gain(level, s, run.grad[s], run.hess[s], run.n_pos[s], params, score)
            _record(best, level, s, gain, f, True, -np.inf, run.last[s])
