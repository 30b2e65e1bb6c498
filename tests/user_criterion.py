"""The tests' user criterion: Newton's gain with lambda + 1, registered with bounds.

A tree grown with it is the built-in tree of ``reg_lambda + 1``, array for array,
whatever the other parameters: a check of a user's criterion through every grower
(exhaustive, quick, adaptive, forests, ``train``) against the built-in engine.  One
criterion for every test file, registered once per process (``registered()``) with
``cache=True``: its growers compile once, and later processes load them from disk.
"""

import numba

import apsplit
from apsplit.kernels.newton_bounds import extended_score
from apsplit.kernels.newton_split import Params, newton_score, newton_weight

NAME = "test_lambda_plus_one"


@numba.njit
def _plus_one(params):
    return Params(params.max_depth, params.capacity, params.learning_rate,
                  params.reg_lambda + 1.0, params.reg_alpha, params.gamma,
                  params.min_child_weight, params.max_delta_step, params.n_threads)


@numba.njit
def score(G, H, params):
    return newton_score(G, H, _plus_one(params))


@numba.njit
def weight(G, H, params):
    return newton_weight(G, H, _plus_one(params))


@numba.njit
def bounds(G_lo, G_hi, H_lo, H_hi, params):
    """Newton's score is convex in (G, H) (a maximum over the weight w of functions affine
    in (G, H)), even in G and non-increasing in H.  So over the box its largest value is
    at a corner of its convex extension to H = 0 (``extended_score``, which is at least the
    score 0 there), and its least at (the G of least |G|, H_hi), or 0 if the box meets H = 0."""
    p = _plus_one(params)
    hi = max(max(extended_score(G_lo, H_lo, p), extended_score(G_hi, H_lo, p)),
             max(extended_score(G_lo, H_hi, p), extended_score(G_hi, H_hi, p)))
    if H_lo <= 0.0:
        return 0.0, hi
    return newton_score(min(max(0.0, G_lo), G_hi), H_hi, p), hi


def registered():
    """The criterion's name, registered in this process if it was not."""
    if NAME not in apsplit.available_criteria():
        apsplit.register_criterion(NAME, score, weight, bounds=bounds, cache=True)
    return NAME
