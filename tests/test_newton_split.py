"""The column scan's cheap tests (apsplit.kernels.newton_split): ``newton_may_exceed`` of a
candidate and ``_block_may_exceed`` of a block of entries may say "cannot beat the bar"
only when every gain they cover, computed as the scan computes it, is at most the bar.
The tie grid: ``record_bar`` holds every gain that does not ``beats`` the best, and the
first candidate of the highest cell does not depend on how the candidates are grouped.
The scans' trees against the brute force: tests/test_newton.py."""

import math

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numba import njit

from apsplit.kernels.newton_split import (BLOCK, EXCEED_SLACK, _block_may_exceed, beats,
                                          exceed_limit, may_exceed_always, may_exceed_of,
                                          newton_may_exceed, newton_score, record_bar, tie_cell)
from apsplit.newton import NewtonParams

_MAGNITUDE = st.sampled_from([0.0, 1e-300, 1e-200, 1e-12, 1e-3, 1.0, 7.0, 1e3, 1e12, 1e150,
                              1e300])
_SCALED = st.builds(lambda m, x: m * x, _MAGNITUDE, st.floats(-1.0, 1.0))
_NON_NEGATIVE = st.builds(abs, _SCALED)
# the bar around the computed gain: far above or below, a few ulps, or exactly at it
_OFFSET = st.sampled_from([-1.0, -1e-6, -1e-11, -1e-13, -1e-15, 0.0, 1e-15, 1e-13, 1e-11,
                           1e-6, 1.0])


def _params(lam, alpha, max_delta_step, min_child_weight=0.0):
    return NewtonParams(reg_lambda=lam, reg_alpha=alpha, max_delta_step=max_delta_step,
                        min_child_weight=min_child_weight).kernel_params(10)


def _gain(G, H, G_other, H_other, node_score, params):
    """The gain as the scan computes it (``_slot_pass``: the same expression)."""
    return newton_score(G, H, params) + newton_score(G_other, H_other, params) - node_score


@settings(max_examples=5000, deadline=None)
@given(G=_SCALED, H=_NON_NEGATIVE, G_other=_SCALED, H_other=st.one_of(_NON_NEGATIVE, _SCALED),
       node_score=_SCALED, offset=_OFFSET, ulps=st.integers(-4, 4),
       lam=st.sampled_from([0.0, 1e-300, 1e-6, 1.0, 100.0]),
       alpha=st.sampled_from([0.0, 0.0, 0.5, 1e6]),
       max_delta_step=st.sampled_from([0.0, 0.0, 0.0, 0.7]))
@example(G=1.0, H=1.0, G_other=-1.0, H_other=1.0, node_score=0.0, offset=0.0, ulps=-1, lam=0.0,
         alpha=0.0, max_delta_step=0.0)
@example(G=1e300, H=1e-300, G_other=1e300, H_other=1e-300, node_score=0.0, offset=0.0,
         ulps=0, lam=0.0, alpha=0.0, max_delta_step=0.0)
@example(G=0.0, H=1e300, G_other=1e-12, H_other=1e12, node_score=0.0, offset=-1.0, ulps=1,
         lam=0.0, alpha=0.0, max_delta_step=0.0)  # a c overflows: found by hypothesis
def test_a_refused_candidate_cannot_beat_the_bar(G, H, G_other, H_other, node_score, offset,
                                                 ulps, lam, alpha, max_delta_step):
    """Bars at the computed gain, a few ulps either side, or a relative offset from it; H_other
    may be a rounding residue below 0, lambda 0 or tiny, the products overflow or underflow."""
    params = _params(lam, alpha, max_delta_step)
    gain = _gain(G, H, G_other, H_other, node_score, params)
    if not math.isfinite(gain):
        bar = 0.0
    else:
        bar = gain + offset * max(abs(gain), abs(node_score), 1e-300)
        for _ in range(abs(ulps)):
            bar = np.nextafter(bar, math.copysign(np.inf, ulps))
    if not newton_may_exceed(G, H, G_other, H_other, exceed_limit(bar, node_score), params):
        assert gain <= bar, (gain, bar)


def test_the_test_refuses_what_is_clearly_below():
    """Not a test that lets everything through: a bar 1e-9 (relative) above the gain, or far
    above it, is refused; at the gain itself, or below it, the candidate goes through."""
    params = _params(1.0, 0.0, 0.0)
    rng = np.random.default_rng(0)
    for _ in range(200):
        G, G_other = rng.normal(size=2) * 10.0
        H, H_other = rng.uniform(0.5, 20.0, size=2)
        node_score = newton_score(G + G_other, H + H_other, params)
        gain = _gain(G, H, G_other, H_other, node_score, params)
        for bar, through in ((gain + 1e-9 * abs(node_score + gain) + 1e-12, False),
                             (gain + 1.0, False), (gain, True), (gain - 1e-9, True)):
            limit = exceed_limit(bar, node_score)
            assert newton_may_exceed(G, H, G_other, H_other, limit, params) == through


def test_the_refusal_scales_with_the_slack():
    """A bar just inside the slack goes through; one beyond it is refused."""
    params = _params(1.0, 0.0, 0.0)
    G, H, G_other, H_other = 3.0, 2.0, -1.0, 5.0
    node_score = newton_score(G + G_other, H + H_other, params)
    gain = _gain(G, H, G_other, H_other, node_score, params)
    scale = abs(gain) + abs(node_score) + G * G / (H + 1) + G_other ** 2 / (H_other + 1)
    inside = exceed_limit(gain + 0.1 * EXCEED_SLACK * scale, node_score)
    beyond = exceed_limit(gain + 100 * EXCEED_SLACK * scale, node_score)
    assert newton_may_exceed(G, H, G_other, H_other, inside, params)
    assert not newton_may_exceed(G, H, G_other, H_other, beyond, params)


def test_max_delta_step_and_other_criteria_let_every_candidate_through():
    """With max_delta_step the score is not t^2 / (H + lambda): no test.  A user's criterion
    has none either."""
    params = _params(1.0, 0.0, 0.5)
    assert newton_may_exceed(1.0, 1.0, 1.0, 1.0, exceed_limit(1e9, 0.0), params)
    assert may_exceed_of(newton_score) is newton_may_exceed
    assert may_exceed_of(object()) is may_exceed_always
    assert may_exceed_always(0.0, 0.0, 0.0, 0.0, 0.0, params)


@njit
def _block_refuses(G, H, block, node_grad, node_hess, limit, params):
    return not _block_may_exceed(G, H, block, node_grad, node_hess, limit, params,
                                 newton_may_exceed)


@settings(max_examples=1500, deadline=None)
@given(data=st.data(), n=st.integers(1, BLOCK), scale=st.sampled_from([1e-6, 1.0, 1e6]),
       lam=st.sampled_from([0.0, 1e-6, 1.0]), offset=_OFFSET, shift=st.integers(0, 3))
def test_a_refused_block_holds_no_candidate_that_beats_the_bar(data, n, scale, lam, offset,
                                                               shift):
    """A block of entries (g, h) after running sums (G, H), in a node of sums (G_P, H_P): when
    the block is refused, every candidate inside it (the running sums plus a prefix of the
    block, added one by one as the scan adds them) has a computed gain <= bar.  The bar:
    the block's best computed gain, moved by a relative offset and a few ulps, or another
    candidate's."""
    params = _params(lam, 0.0, 0.0)
    entry = st.tuples(st.floats(-1.0, 1.0), st.floats(0.0, 1.0))
    entries = data.draw(st.lists(entry, min_size=n, max_size=n))
    g = np.array([e[0] for e in entries]) * scale
    h = np.array([e[1] for e in entries]) * scale
    G, H = data.draw(st.floats(-50.0, 50.0)) * scale, data.draw(st.floats(0.0, 50.0)) * scale
    rest_G = data.draw(st.floats(-50.0, 50.0)) * scale
    rest_H = data.draw(st.floats(0.0, 50.0)) * scale
    node_grad = G + g.sum() + rest_G
    node_hess = H + h.sum() + rest_H
    node_score = newton_score(node_grad, node_hess, params)
    gains, left_G, left_H = [], G, H
    for k in range(n):  # the candidate before entry k, then entry k joins the sums
        gains.append(_gain(left_G, left_H, node_grad - left_G, node_hess - left_H, node_score,
                           params))
        left_G += g[k]
        left_H += h[k]
    top = sorted(gains)[-1 - min(shift, n - 1)]
    if not math.isfinite(top):
        return
    bar = top + offset * max(abs(top), abs(node_score), 1e-300)
    block = (float(np.minimum(g, 0).sum()), float(np.maximum(g, 0).sum()), float(h.sum()))
    if _block_refuses(G, H, block, node_grad, node_hess, exceed_limit(bar, node_score), params):
        assert max(gains) <= bar, (max(gains), bar)


def test_blocks_are_refused_where_the_bar_is_clearly_above():
    """Not a bound that refuses nothing: a block of small gradients far from a high bar is
    refused; the same block under a bar below its best candidate is not."""
    params = _params(1.0, 0.0, 0.0)
    G, H, node_grad, node_hess = -3.0, 10.0, 0.0, 40.0
    node_score = newton_score(node_grad, node_hess, params)
    block = (-0.05, 0.05, 0.5)  # neg, pos, H_b
    gain = _gain(G, H, node_grad - G, node_hess - H, node_score, params)
    assert _block_refuses(G, H, block, node_grad, node_hess, exceed_limit(2 * gain, node_score),
                          params)
    assert not _block_refuses(G, H, block, node_grad, node_hess,
                              exceed_limit(0.5 * gain, node_score), params)


_TIE = st.builds(lambda m, x: m * x, st.sampled_from([1e-300, 1e-30, 1e-10, 1.0, 1e10, 1e100]),
                 st.floats(0.5, 2.0))


@settings(max_examples=3000, deadline=None)
@given(tie=_TIE, cells=st.floats(-1e12, 1e12), within=st.floats(0.0, 1.0), ulps=st.integers(-8, 8))
@example(tie=1.0, cells=0.0, within=0.0, ulps=-1)
@example(tie=1e-10, cells=3.0, within=1.0, ulps=0)
def test_no_gain_above_the_record_bar_is_in_a_lower_cell(tie, cells, within, ulps):
    """A gain <= record_bar(best) never beats best; best's cell's edge a few ulps up, and any
    gain a cell above, does.  Gains a few ulps around the edge of best's cell."""
    best = (np.floor(cells) + within) * tie
    bar = record_bar(best, tie)
    edge = (np.floor(best / tie) + 1.0) * tie
    gain = edge
    for _ in range(abs(ulps)):
        gain = np.nextafter(gain, math.copysign(np.inf, ulps))
    if gain <= bar:
        assert not beats(gain, best, tie)
    assert not beats(bar, best, tie)
    assert not beats(best, best, tie)
    above = (np.floor(best / tie) + 2.0) * tie
    if abs(above) < 2.0 ** 50 * tie:   # cells of unit width: floats are denser than the grid
        assert beats(above, best, tie)
        assert bar < above


def test_record_bar_is_close_to_the_cells_edge():
    """Not vacuous: the bar lies within 2^-40 cells under the edge, so the cheap tests refuse
    what is clearly in the best's cell or below."""
    for tie in (1e-300, 1e-10, 1.0, 1e10):
        for best in (0.0, 0.3 * tie, 7.9 * tie, -2.5 * tie, 1e6 * tie):
            edge = (np.floor(best / tie) + 1.0) * tie
            bar = record_bar(best, tie)
            assert edge - 2.0 ** -40 * max(abs(edge), tie) <= bar < edge
    assert record_bar(-np.inf, 1.0) == -np.inf
    assert record_bar(5.0, 0.0) == 5.0   # no grid: strict comparison of gains


def _first_of_highest_cell(gains, tie):
    """The index kept by a fold of ``beats`` over ``gains`` in order (-1: none)."""
    best, kept = -np.inf, -1
    for i, gain in enumerate(gains):
        if beats(gain, best, tie):
            best, kept = gain, i
    return kept


@settings(max_examples=500, deadline=None)
@given(data=st.data(), n=st.integers(1, 30), tie=st.sampled_from([1e-10, 1.0, 3.0]))
def test_the_choice_does_not_depend_on_the_grouping(data, n, tie):
    """Gains on a few cells, near-ties within a cell among them: a best per group, then the
    groups' bests folded in order (the grower's per-feature bests and their merge), keep the
    candidate a fold over all keeps: the first of the highest cell."""
    cells = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    offsets = data.draw(st.lists(st.floats(0.0, 0.999), min_size=n, max_size=n))
    gains = [(c + o) * tie for c, o in zip(cells, offsets)]
    cuts = sorted(set(data.draw(st.lists(st.integers(1, n), max_size=5))) | {n})
    start, firsts = 0, []
    for cut in cuts:
        first = _first_of_highest_cell(gains[start:cut], tie)
        if first >= 0:
            firsts.append(start + first)
        start = cut
    merged = firsts[_first_of_highest_cell([gains[i] for i in firsts], tie)]
    expected = min(i for i, g in enumerate(gains) if tie_cell(g, tie) == max(
        tie_cell(x, tie) for x in gains))
    assert merged == _first_of_highest_cell(gains, tie) == expected


def test_a_near_tie_chain_keeps_the_first_of_the_highest_cell():
    """Gains 0.5, 1.2 and 1.6 windows: the rule "beat the best by more than a window" keeps
    1.6 (0.5, then 1.6 > 0.5 + 1), but 1.2 without the 0.5 before it; the grid keeps 1.2,
    the first of cell 1, either way."""
    assert _first_of_highest_cell([0.5, 1.2, 1.6], 1.0) == 1
    assert _first_of_highest_cell([1.2, 1.6], 1.0) == 0
