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
finished leaves; ``Rows``).  One walk down the column gathers every open node's present
rows, in value order, into a stretch of scratch per slot (``_gather``: each entry's g,
h and value); a pass over a slot's stretch keeps the running sums of the rows seen
in registers (``_slot_pass``).  Where the value changes inside a node, the running
sums are one side of the candidate "values up to here | the rest"; the other side is
the node's totals minus them, so it holds the node's missing rows.  A slot's
stretch is its rows in the column's order, so its sums are added in the same order as
in one pass over the whole column with per-slot sums in memory (this scan's former
design), to the bit; that pass waited, entry after entry, on the previous
entry's stores.  Only the candidates that the criterion's cheap test
(``newton_may_exceed``: no division) cannot refuse have their gain computed.  Hence:

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
one walk over the column's stored entries and one or two passes over the gathered
ones per level, whatever the number of open nodes: O(entries) per level, linear in n.

Ties.  Gains are compared on a grid: the *cell* of a node's gain is floor(gain / w)
with w the node's tie window ``Level.tie`` = 1e-10 (sum_i |g_i|)^2 / (H + lambda), a
scale of its gains (``tie_cell``; a quotient that overflows is the highest cell).
A candidate replaces a node's best only when its
cell is higher (``beats``), so the chosen split is the first candidate, in XGBoost's
order, of the highest cell: within w of the optimum, and the first of the candidates
whose gains are equal in exact arithmetic but computed from sums taken in other
orders (a few ulps apart; unless they straddle a cell's edge, a measure-zero event).
This makes XGBoost's tie rule (a lower feature index wins; in a feature only a
strictly larger gain replaces, ``NeedReplace``) deterministic here.  "The first of
the highest cell" does not depend on how the candidates are grouped: a feature's
best, then the features' bests in index order (``newton_parallel``, any number of
threads), or every candidate in one sequence, choose the same split; and a
candidate proven to lie in a lower cell than another one's, or in the same cell
after it, can be left out without changing the choice (the finders' and the
blocks' pruning).  XGBoost compares gains in float32 (relative precision ~6e-8 of
the children's scores); candidates whose gains differ by less than that but lie in
different cells can be chosen differently (apsplit keeps the higher cell).

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
user's criterion compiles once per process and runs at kernel speed (1.01-1.25x
the built-in's time, which also has ``newton_may_exceed``: ``python -m
benchmarks.newton_engine``).
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .unsigned import u

KRT_EPS = 1e-6       # XGBoost's kRtEps: a split must gain more than this
TIE_WINDOW = 1e-10   # relative tie window of the gains (see the module docstring)
_CELL_MARGIN = 2.0 ** -45  # ``record_bar``'s margin below a cell's edge, relative


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
    1]]`` (their indices j, ascending).  ``coarse_index[f]`` >= 0: f has coarse bins
    (``newton_coarse``), j = ``coarse_index[f]``: row r's bin ``coarse_codes[r, j]`` of
    ``coarse_start[j + 1] - coarse_start[j]`` (that number: missing), bin b's entries
    from ``coarse_entry[coarse_start[j] + b]`` to the next bin's (the last: to
    ``indptr[f + 1]``) in the column as ``apsplit.newton.NewtonData`` built it.
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
    coarse_index: np.ndarray
    coarse_codes: np.ndarray
    coarse_start: np.ndarray
    coarse_entry: np.ndarray


class SortedColumns(NamedTuple):
    """What a column scan reads of ``Columns`` (``sorted_columns``): each feature's present
    entries sorted by value, and ``forward``.  The scan's inlined calls count a reference
    to every array of the tuples they take, per call, where numba's pruning of those counts
    gives up on a large body: four arrays here, not ``Columns``' seventeen."""

    indptr: np.ndarray
    rows: np.ndarray
    values: np.ndarray
    forward: np.ndarray


@njit(cache=True, inline='always')
def sorted_columns(cols):
    """``cols``' ``SortedColumns`` (the same arrays)."""
    return SortedColumns(cols.indptr, cols.rows, cols.values, cols.forward)


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


class Node(NamedTuple):
    """A slot's sums, score and tie window (``Level``, one slot)."""

    grad: float
    hess: float
    n_pos: int
    score: float
    tie: float


@njit(inline='always')
def level_node(level, s):
    """Slot s of the level as a ``Node``."""
    return Node(level.grad[s], level.hess[s], level.n_pos[s], level.score[s], level.tie[s])


class Running(NamedTuple):
    """A pass's scratch: per slot the sums of the rows it has seen and the last value
    seen; per entry the column's entries of the visited slots, slot by slot."""

    grad: np.ndarray
    hess: np.ndarray
    n_pos: np.ndarray
    n_rows: np.ndarray
    last: np.ndarray
    visit: np.ndarray     # the slots a pass visits: the node may split on the feature (and,
                          # for the backward pass after a forward one, has missing rows in it)
    start: np.ndarray     # slot s's entries: entry_*[start[s]:end[s]], in column order
    end: np.ndarray
    entry_grad: np.ndarray
    entry_hess: np.ndarray
    entry_value: np.ndarray
    known: np.ndarray     # per slot, the highest gain of a candidate of the lane's earlier
                          # features (-inf: none): a pass refuses what lies in a lower cell


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


@njit(cache=True, inline='always')
def tie_cell(gain, tie):
    """The cell of ``gain`` on its node's tie grid: floor(gain / tie) (the module
    docstring); the gain itself when tie is 0 (a node whose rows have no gradient)."""
    return np.floor(gain / tie) if tie > 0.0 else gain


@njit(cache=True, inline='always')
def beats(gain, best, tie):
    """``gain`` replaces ``best`` (-inf: none yet): it is finite and in a higher cell."""
    return tie_cell(gain, tie) > tie_cell(best, tie) and gain < np.inf


@njit(cache=True, inline='always')
def _edge_bar(edge, tie):
    """A gain <= this is in a cell below ``edge`` (an integer): edge times tie, less 2^-45
    max(1, |edge|) cells.  Proof sketch: gain <= bar gives gain / tie <= edge - (2^-45 - 3
    ulps) max(1, |edge|) (the bar's two roundings), below the float before edge, so the
    computed quotient is below edge and its floor at most edge - 1."""
    return (edge - _CELL_MARGIN * max(1.0, abs(edge))) * tie


@njit(cache=True, inline='always')
def record_bar(best, tie):
    """A bar no gain that replaces ``best`` stays under: a gain <= it is in best's cell or
    lower (``_edge_bar`` of the cell above best's; best itself with no grid)."""
    if not tie > 0.0:
        return best
    return _edge_bar(np.floor(best / tie) + 1.0, tie)


@njit(cache=True, inline='always')
def below_bar(gain, tie):
    """A gain <= this is in a lower cell than ``gain``'s (``_edge_bar`` of gain's cell; -inf
    with no grid: nothing is proven lower)."""
    if not tie > 0.0:
        return -np.inf
    return _edge_bar(np.floor(gain / tie), tie)


# the relative slack of ``newton_may_exceed``: far above the few ulps (1e-15) of rounding it
# must cover, far below any gain difference the scan decides on
EXCEED_SLACK = 1e-12
_LOW, _HIGH = 1e-100, 1e100  # where ``newton_may_exceed`` decides: the range of its factors
_LEAST_KEPT = 1e-200         # and of its left side


@njit(cache=True, inline='always')
def exceed_limit(bar, node_score):
    """The ``limit`` a criterion's cheap test takes for a candidate to beat ``bar``:
    bar + node_score, less EXCEED_SLACK (|bar| + |node_score|); NaN (no refusal) unless
    its magnitude is within [1e-100, 1e100].  Computed once per bar, not per entry."""
    limit = (bar + node_score) - EXCEED_SLACK * (abs(bar) + abs(node_score))
    return limit if _LOW <= abs(limit) <= _HIGH else np.nan


@njit(cache=True, inline='always', error_model="numpy")
def newton_may_exceed(G, H, G_other, H_other, limit, params):
    """False only when ``newton_score(G, H) + newton_score(G_other, H_other) - node_score``,
    as computed, is <= bar (``limit`` = ``exceed_limit(bar, node_score)``): the scan's test
    of a candidate, without its two divisions.

    For max_delta_step = 0 the scores are t^2 / a and t'^2 / c, t = |T(G)|, a = H + lambda
    (the score's own roundings of them).  For a, c > 0, multiplying by a c, the gain is
    <= bar when K = t^2 c + t'^2 a <= (bar + node_score) a c.  The test refuses when K (1 +
    e) < limit a c, e = EXCEED_SLACK = 1e-12, and only where a and c lie in [1e-100,
    1e100] (a + c <= 1e100), |limit| in [1e-100, 1e100] and K >= 1e-200: there every
    product is a normal number (K may overflow to inf, which fails the test; an underflow
    of t^2 costs at most 3e-224, far below e K).  Proof sketch: K and the right side are
    then computed within ~6 ulps of S = K + (|bar| + |node_score|) a c, so a refusal
    gives, exactly, K - (bar + node_score) a c <= -(e - 6 ulps) S; the gain as computed
    is within ~4 ulps of S / (a c) of its exact value; e is four thousand times those
    ulps, so the computed gain is <= bar.  Elsewhere (and for max_delta_step != 0, where
    the score is not t^2 / a, or NaN) the candidate is let through: never refused
    wrongly.  Where H <= 0 < a the score is 0 <= t^2 / a: the test only lets more
    through."""
    if params.max_delta_step != 0.0:
        return True
    lam = params.reg_lambda
    t = max(abs(G) - params.reg_alpha, 0.0)
    t_other = max(abs(G_other) - params.reg_alpha, 0.0)
    a = H + lam
    c = H_other + lam
    kept = t * t * c + t_other * t_other * a
    decides = (a >= _LOW) & (c >= _LOW) & (a + c <= _HIGH) & (kept >= _LEAST_KEPT)
    return not (decides & (kept * (1.0 + EXCEED_SLACK) < limit * (a * c)))


@njit(cache=True, inline='always')
def may_exceed_always(G, H, G_other, H_other, limit, params):
    """The test of a criterion with no cheaper one (a user's): every candidate through."""
    return True


def may_exceed_of(score):
    """The cheap test of ``score``'s candidates: ``newton_may_exceed`` for the built-in
    score, ``may_exceed_always`` (no test) for any other."""
    return newton_may_exceed if score is newton_score else may_exceed_always


@njit(cache=True)
def make_level(m):
    """A zeroed Level of ``m`` slots."""
    return Level(np.zeros(m), np.zeros(m), np.zeros(m, np.int64), np.zeros(m, np.int64),
                 np.zeros(m), np.zeros(m), np.zeros(m))


@njit(cache=True)
def make_running(m, n_entries):
    """A pass's scratch for ``m`` slots holding ``n_entries`` rows in all."""
    return Running(np.zeros(m), np.zeros(m), np.zeros(m, np.int64), np.zeros(m, np.int64),
                   np.zeros(m), np.zeros(m, np.bool_), np.zeros(m, np.int64),
                   np.zeros(m, np.int64), np.empty(n_entries), np.empty(n_entries),
                   np.empty(n_entries), np.full(m, -np.inf))


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
def _gather(cols, rows, f, level, run):
    """Feature ``f``'s present entries in the slots ``run.visit`` marks, slot by slot in
    column order: (g, h, value) at ``run.entry_*[run.start[s]:run.end[s]]``.  Slot s has
    room for its ``level.n_rows[s]`` rows.  The slots' ends are counted in an array of
    the call's own, copied to ``run.end`` at the end: numba cannot tell a ``Running``
    array from the entries' arrays, and ends kept there were written through memory
    the entries might alias (the gather 1.2x slower, a probe)."""
    m = level.n_rows.shape[0]
    start = run.start
    end = np.empty(m, np.int64)
    room = 0
    for s in range(m):
        start[s] = room
        end[s] = room
        room += level.n_rows[s]
    lo, hi = cols.indptr[f], cols.indptr[f + 1]
    col_rows, col_values = cols.rows, cols.values
    gh, position, visit = rows.gh, rows.position, run.visit
    entry_grad, entry_hess, entry_value = run.entry_grad, run.entry_hess, run.entry_value
    for i in range(hi - lo):
        e = u(lo + i)  # unsigned subscripts: no sign tests
        r = u(col_rows[e])
        signed_slot = position[r]
        if signed_slot < 0:
            continue
        s = u(signed_slot)
        if not visit[s]:
            continue
        p = u(end[s])
        entry_grad[p] = gh[r, 0]
        entry_hess[p] = gh[r, 1]
        entry_value[p] = col_values[e]
        end[s] = p + 1
    run.end[:] = end


BLOCK = 16                    # entries of a block, bounded as a whole (``_block_may_exceed``)
_BLOCK_WIDEN = 128.0 * 2.0 ** -53  # its box's widening, relative (rounding of the running sums)


@njit(inline='always')
def _block_sums(entries, lo, hi, first, stop, forward):
    """The sums of the negative g, the positive g and the h of entries ``first`` .. ``stop - 1``
    of a pass over a slot's gathered entries ``lo:hi`` of ``entries``."""
    entry_grad, entry_hess = entries.grad, entries.hess
    pos = neg = H = 0.0
    for k in range(first, stop):
        e = u(lo + k if forward else hi - 1 - k)
        g = entry_grad[e]
        pos += max(g, 0.0)
        neg += min(g, 0.0)
        H += entry_hess[e]
    return neg, pos, H


@njit(inline='always')
def box_may_exceed(G_lo, G_hi, H_lo, H_hi, node_grad, node_hess, limit, params, may_exceed):
    """False only when ``may_exceed`` refuses all four corners of the box [G_lo, G_hi] x
    [H_lo, H_hi] of one side's sums: then no candidate whose computed side sums lie in
    the box has a computed gain above the bar (``_block_may_exceed``'s proof)."""
    return (may_exceed(G_lo, H_lo, node_grad - G_lo, node_hess - H_lo, limit, params)
            | may_exceed(G_lo, H_hi, node_grad - G_lo, node_hess - H_hi, limit, params)
            | may_exceed(G_hi, H_lo, node_grad - G_hi, node_hess - H_lo, limit, params)
            | may_exceed(G_hi, H_hi, node_grad - G_hi, node_hess - H_hi, limit, params))


@njit(inline='always')
def _block_may_exceed(G, H, block, node_grad, node_hess, limit, params, may_exceed):
    """False only when no candidate whose left sums are the running (G, H) plus those of
    some entries of a block (``block`` = its ``_block_sums``) can beat the bar: by
    ``may_exceed`` (``newton_may_exceed``, alpha = 0) at the four corners of the box of
    those left sums.

    Proof sketch.  A candidate's left sums lie in [G + neg, G + pos] x [H, H + H_b],
    widened by 128 ulps of |G| + sum |g| and of H + H_b for the rounding of at most
    ``BLOCK`` (16) additions.  A refusal at a corner means (``newton_may_exceed``, with a,
    c >= 1e-100 there, hence on the box) that the exact f(G, H) = G^2 / (H + lambda) +
    (G_P - G)^2 / (H_P - H + lambda) - s_P is at most bar - (e - 10 ulps) W, W = |bar| +
    |s_P|.  f is jointly convex where both denominators are positive (a quadratic over a
    linear function, twice), so it stays below that bound on the whole box.  The scan's
    computed gain at a candidate is within ~16 ulps of W of f at its sums (its right
    side's roundings and the three scores'; the scores add up to at most bar + s_P <= W),
    far less than e W: it is <= bar, and no candidate of the block is recorded."""
    neg, pos, H_b = block
    widen_G = _BLOCK_WIDEN * (abs(G) + pos - neg)
    widen_H = _BLOCK_WIDEN * (H + H_b)
    return box_may_exceed(G + neg - widen_G, G + pos + widen_G, H - widen_H, H + H_b + widen_H,
                          node_grad, node_hess, limit, params, may_exceed)


class Entries(NamedTuple):
    """A pass's gathered entries (``Running``'s ``entry_*``), slot by slot."""

    grad: np.ndarray
    hess: np.ndarray
    value: np.ndarray


class SlotPass(NamedTuple):
    """What a pass over one slot's entries found (``_slot_pass``): the sums of all its
    entries and the last value, and its best candidate if one beat the slot's best."""

    grad: float
    hess: float
    n_pos: int
    last: float
    recorded: bool
    gain: float
    left_value: float
    right_value: float


@njit(inline='always')
def _slot_pass(entries, lo, hi, forward, node, top, known, params, score, may_exceed):
    """One pass over a slot's gathered entries ``lo:hi``, ascending (``forward``) or
    descending; ``node``: the slot's sums, ``top``: its best gain so far, ``known``: a gain
    of another feature in it (-inf: none).

    At each entry whose value differs from the last one seen: the candidate "the rows
    seen | the rest" is considered; then the entry joins the sums.  The sums stay in
    registers (a slot's entries are contiguous), and whether an entry is a candidate is
    a product of flags, not a branch per test (on continuous columns with repeated
    values, ``v != last`` is a coin flip).  ``may_exceed`` (the criterion's cheap test,
    no division; its ``limit`` computed once per best) lets through every candidate
    whose gain, as computed, can exceed ``record_bar`` of the best and ``below_bar`` of
    ``known`` (a candidate under it lies in a lower cell, never the level's choice);
    only those have their gain computed, as ``side_gain`` computes it, and the last one
    that ``beats`` the best is returned.  For a criterion whose test can refuse, without
    alpha, the entries come in blocks of ``BLOCK``, and a block that
    ``_block_may_exceed`` refuses only adds its entries to the sums, in order.  Scalars
    and one tuple of arrays in, scalars out: numba counts a reference to every array of
    every tuple an inlined call takes, per call, and this runs per (feature, slot)."""
    entry_grad, entry_hess, entry_value = entries.grad, entries.hess, entries.value
    node_grad, node_hess, node_pos = node.grad, node.hess, node.n_pos
    node_score, tie, mcw = node.score, node.tie, params.min_child_weight
    known_bar = below_bar(known, tie)  # lower cells than another feature's known gain
    limit = exceed_limit(max(record_bar(top, tie), known_bar), node_score)
    G = H = 0.0
    n_pos = 0
    last = 0.0
    recorded = False  # the last record, kept in registers until the end
    best_gain = best_last = best_value = 0.0
    if hi > lo:  # the first entry: no candidate before it
        e = u(lo if forward else hi - 1)
        last = entry_value[e]
        G = entry_grad[e]
        H = entry_hess[e]
        n_pos = np.int64(H > 0.0)
    n = hi - lo
    # blocks are bounded only for a criterion whose test refuses at all, without alpha
    bounded = (params.reg_alpha == 0.0) & (not may_exceed(1.0, 1.0, 1.0, 1.0, 1e99, params))
    i = 1
    while i < n:
        stop = min(i + BLOCK, n)
        skip = False
        if bounded:
            skip = not _block_may_exceed(G, H, _block_sums(entries, lo, hi, i, stop, forward),
                                         node_grad, node_hess, limit, params, may_exceed)
        if skip:  # no candidate of the block can be recorded: only its sums, in order
            for k in range(i, stop):
                e = u(lo + k if forward else hi - 1 - k)
                h = entry_hess[e]
                G += entry_grad[e]
                H += h
                n_pos += h > 0.0
            last = entry_value[u(lo + stop - 1 if forward else hi - stop)]
            i = stop
            continue
        for k in range(i, stop):
            e = u(lo + k if forward else hi - 1 - k)
            v = entry_value[e]
            H_other = node_hess - H
            G_other = node_grad - G
            candidate = ((v != last) & (n_pos > 0) & (node_pos - n_pos > 0)
                         & (H >= mcw) & (H_other >= mcw))
            if candidate & may_exceed(G, H, G_other, H_other, limit, params):
                gain = score(G, H, params) + score(G_other, H_other, params) - node_score
                if beats(gain, top, tie):
                    top = gain
                    limit = exceed_limit(max(record_bar(top, tie), known_bar), node_score)
                    recorded = True
                    best_gain, best_last, best_value = gain, last, v
            h = entry_hess[e]
            G += entry_grad[e]
            H += h
            n_pos += h > 0.0
            last = v
        i = stop
    return SlotPass(G, H, n_pos, last, recorded, best_gain,
                    best_last if forward else best_value, best_value if forward else best_last)


@njit(inline='always')
def _one_value_pass(cols, rows, f, forward, run):
    """A pass over a column whose present entries hold one value (a one-hot or binary
    sparse column): no value changes inside a node, so no candidate but the caller's
    last one, and the pass only sums each visited slot's rows, in column order (the
    same sums to the bit as ``_slot_pass``'s), with no gathering."""
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
def _pass(cols, rows, f, forward, one_value, level, run, best, params, score, may_exceed):
    """One pass over feature ``f``'s column in every visited slot (``run.visit``: those that
    may split on ``f``, and for a backward pass after a forward one, those with a
    missing row), ascending (``forward``) or descending; ``run`` ends with each slot's
    sums.  A column of ``one_value`` is summed in place; any other was gathered."""
    _reset(run)
    if one_value:
        _one_value_pass(cols, rows, f, forward, run)
        return
    entries = Entries(run.entry_grad, run.entry_hess, run.entry_value)
    start, end, visit, known = run.start, run.end, run.visit, run.known
    run_grad, run_hess, run_pos, run_rows, run_last = run.grad, run.hess, run.n_pos, \
        run.n_rows, run.last
    best_gain, best_feature, best_default = best.gain, best.feature, best.default_left
    best_left, best_right = best.left_value, best.right_value
    for s in range(level.grad.shape[0]):
        if not visit[s]:
            continue
        lo, hi = start[s], end[s]
        found = _slot_pass(entries, lo, hi, forward, level_node(level, s), best_gain[s],
                           known[s], params, score, may_exceed)
        if found.recorded:
            best_gain[s] = found.gain
            best_feature[s] = f
            best_default[s] = not forward
            best_left[s] = found.left_value
            best_right[s] = found.right_value
        run_grad[s], run_hess[s], run_pos[s] = found.grad, found.hess, found.n_pos
        run_rows[s], run_last[s] = hi - lo, found.last


@njit(inline='always')
def _record_closing(f, forward, level, run, best, params, score):
    """After a pass (``run`` holding its sums): in every slot with rows of the pass and
    rows outside it, the candidate "the pass's present rows | the rest (the missing
    rows)", kept if it ``beats`` the slot's best (missing rows right after a forward pass, left
    after a backward one); one call per pass, the arrays taken out once."""
    run_grad, run_hess, run_pos, run_rows, run_last = run.grad, run.hess, run.n_pos, \
        run.n_rows, run.last
    node_grad, node_hess, node_pos, node_rows = level.grad, level.hess, level.n_pos, \
        level.n_rows
    node_score, tie = level.score, level.tie
    for s in range(node_grad.shape[0]):
        if not (run_rows[s] > 0 and run_rows[s] < node_rows[s]):
            continue
        gain = side_gain(run_grad[s], run_hess[s], run_pos[s], node_grad[s], node_hess[s],
                         node_pos[s], node_score[s], params, score)
        if beats(gain, best.gain[s], tie[s]):
            best.gain[s] = gain
            best.feature[s] = f
            best.default_left[s] = not forward
            best.left_value[s] = run_last[s] if forward else -np.inf
            best.right_value[s] = np.inf if forward else run_last[s]


@njit(inline='always')
def scan_feature(cols, rows, f, level, run, best, params, score, may_exceed, allowed):
    """Every candidate split of feature ``f`` in every open slot that may split on it
    (``allowed[s]``), kept in ``best``.

    The column's entries are gathered slot by slot (``_gather``), then the forward pass
    (if ``cols.forward[f]``) and the backward pass scan each slot's entries; see the
    module docstring.  ``cols``: the ``SortedColumns`` of the data's ``Columns``.
    ``run``: scratch of the level's slots and rows (``make_running``).
    """
    m = level.grad.shape[0]
    visit, n_rows = run.visit, run.n_rows
    for s in range(m):
        visit[s] = allowed[s]
    lo, hi = cols.indptr[f], cols.indptr[f + 1]
    one_value = hi > lo and cols.values[lo] == cols.values[hi - 1]
    if not one_value:
        _gather(cols, rows, f, level, run)
    if cols.forward[f]:
        _pass(cols, rows, f, True, one_value, level, run, best, params, score, may_exceed)
        for s in range(m):  # the backward pass: the slots with missing rows
            visit[s] = allowed[s] and n_rows[s] < level.n_rows[s]
        _record_closing(f, True, level, run, best, params, score)
    _pass(cols, rows, f, False, one_value, level, run, best, params, score, may_exceed)
    _record_closing(f, False, level, run, best, params, score)
