"""Bounds on the Newton gain over the unseen rows' placements (kernels/newton_bounds.py): for
random seen parts and random subsets of the unseen rows sent left, the gain lies between the
bounds; the extended score is Newton's where H > 0."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apsplit.kernels import newton_bounds as nb
from apsplit.kernels.newton_split import newton_score
from apsplit.newton import NewtonParams
from strategies import scaled

_VALUES = st.one_of(st.floats(-8, 8, allow_nan=False), st.integers(-4, 4).map(float),
                    st.just(0.0))


@st.composite
def nodes(draw):
    n_seen = draw(st.integers(0, 6))
    n_unseen = draw(st.integers(0, 12))
    g = np.array(draw(st.lists(_VALUES, min_size=n_seen + n_unseen,
                               max_size=n_seen + n_unseen)))
    h = np.abs(np.array(draw(st.lists(_VALUES, min_size=g.size, max_size=g.size))))
    if draw(st.booleans()):
        h[np.array(draw(st.lists(st.booleans(), min_size=g.size, max_size=g.size)), bool)] = 0.0
    params = NewtonParams(reg_lambda=draw(st.sampled_from([0.0, 1.0, 5.0])),
                          reg_alpha=draw(st.sampled_from([0.0, 0.5])),
                          min_child_weight=draw(st.sampled_from([0.0, 1.0])),
                          max_delta_step=draw(st.sampled_from([0.0, 0.3])))
    seen_left = np.array(draw(st.lists(st.booleans(), min_size=n_seen, max_size=n_seen)), bool)
    return g, h, n_seen, seen_left, params


def _gain(GL, HL, G, H, p):
    return newton_score(GL, HL, p) + newton_score(G - GL, H - HL, p) - newton_score(G, H, p)


@given(nodes(), st.integers(0, 2 ** 32 - 1))
@settings(max_examples=scaled(1.0))
def test_gain_between_bounds_for_random_subsets(node, seed):
    g, h, n_seen, seen_left, params = node
    p = params.kernel_params(g.size)
    G, H = g.sum(), h.sum()
    parent = nb.Parent(G, H, newton_score(G, H, p), np.abs(g).sum(),
                       *nb.parent_slack(g.size, np.abs(g).sum(), H))
    seq = np.arange(g.size)
    gh = np.stack([g, h], axis=1)
    unseen = nb.unseen_region(gh, seq, n_seen, g.size, parent.slack_G, parent.slack_H)
    GL, HL = g[:n_seen][seen_left].sum(), h[:n_seen][seen_left].sum()
    mcw = params.min_child_weight
    upper = nb.newton_gain_upper(GL, HL, unseen, max(mcw - parent.slack_H, 0.0),
                                 H - mcw + parent.slack_H, parent, p)
    box = nb.Box(GL + unseen.G_neg - parent.slack_G, GL + unseen.G_pos + parent.slack_G,
                 HL - parent.slack_H, HL + unseen.H + parent.slack_H)
    HR_seen = h[:n_seen][~seen_left].sum()
    surely = HL - parent.slack_H > max(mcw, 0.0) and HR_seen - parent.slack_H > max(mcw, 0.0)
    lower = nb.newton_gain_lower(box, parent, p) if surely else -np.inf
    rng = np.random.default_rng(seed)
    scale = 1e-12 * (1.0 + np.abs(g).sum() ** 2 / (p.reg_lambda + 1e-3))
    for _ in range(20):
        left = rng.random(g.size - n_seen) < rng.random()
        L_G, L_H = GL + g[n_seen:][left].sum(), HL + h[n_seen:][left].sum()
        if L_H < mcw or H - L_H < mcw:
            continue  # not admissible: never recorded, the upper bound need not cover it
        gain = _gain(L_G, L_H, G, H, p)
        assert gain <= upper + scale
        assert lower <= gain + scale


def test_extended_score_is_newton_score_where_h_positive():
    p = NewtonParams(max_delta_step=0.5, reg_alpha=0.25).kernel_params(10)
    for G, H in [(3.0, 2.0), (-0.1, 0.5), (0.2, 1e-9), (-7.0, 40.0)]:
        assert nb.extended_score(G, H, p) == pytest.approx(newton_score(G, H, p), rel=1e-15)
        assert nb.extended_score(G, -H, p) >= 0.0
    assert nb.extended_score(1.0, -1.5, NewtonParams(reg_lambda=1.0).kernel_params(10)) == np.inf


def test_polygon_is_in_the_box_and_holds_every_subset():
    rng = np.random.default_rng(0)
    g, h = rng.normal(size=30), rng.uniform(0, 1, 30)
    u = nb.unseen_region(np.stack([g, h], 1), np.arange(30), 0, 30, 0.0, 0.0)
    assert u.vertex_G.min() >= u.G_neg - 1e-9 and u.vertex_G.max() <= u.G_pos + 1e-9
    assert u.vertex_H.min() >= -1e-9 and u.vertex_H.max() <= u.H + 1e-9
    # a subset's sum is inside the polygon: on the inner side of every edge
    for _ in range(200):
        s = rng.random(30) < 0.5
        point = np.array([g[s].sum(), h[s].sum()])
        for d in range(u.vertex_G.size):
            a = np.array([u.vertex_G[d], u.vertex_H[d]])
            b = np.array([u.vertex_G[(d + 1) % 16], u.vertex_H[(d + 1) % 16]])
            cross = (b - a)[0] * (point - a)[1] - (b - a)[1] * (point - a)[0]
            assert cross >= -1e-9


def test_upper_bound_holds_for_subnormal_hessians():
    """The polygon's scaling overflows for sums near the subnormal range; the bound then
    falls back to the box and still covers the gains (here inf: 1 / 2e-311 overflows)."""
    for g, h in [([0.0], [2.2e-311]), ([1.0, -1.0], [2.2e-311, 2.2e-311]),
                 ([1e-3, -1e-3, 0.5], [0.0, 1e-310, 1.0])]:
        g, h = np.array(g), np.array(h)
        p = NewtonParams(reg_lambda=0.0, min_child_weight=0.0).kernel_params(g.size)
        G, H = g.sum(), h.sum()
        parent = nb.Parent(G, H, newton_score(G, H, p), np.abs(g).sum(),
                           *nb.parent_slack(g.size, np.abs(g).sum(), H))
        unseen = nb.unseen_region(np.stack([g, h], axis=1), np.arange(g.size), 0, g.size,
                                  parent.slack_G, parent.slack_H)
        assert np.isfinite(unseen.vertex_G).all() and np.isfinite(unseen.vertex_H).all()
        upper = nb.newton_gain_upper(0.0, 0.0, unseen, 0.0, H + parent.slack_H, parent, p)
        assert upper >= _gain(g[0], h[0], G, H, p)


@st.composite
def categorical_nodes(draw):
    """``nodes`` whose seen rows carry categories (up to 12, and missing: -1)."""
    g, h, n_seen, _, params = draw(nodes())
    n_categories = draw(st.integers(1, 12))
    category = np.array(draw(st.lists(st.integers(-1, n_categories - 1), min_size=n_seen,
                                      max_size=n_seen)), np.int64)
    return g, h, n_seen, category, n_categories, params


def _inside(G, H, region):
    """(G, H) is on the inner side of every edge of the region (counterclockwise), in
    coordinates scaled by the region's extent; an edge shorter than 1e-9 of it (a
    rounding's length, pointing anywhere) bounds nothing and is passed over."""
    sG, sH = np.ptp(region.vertex_G), np.ptp(region.vertex_H)
    vG, vH = region.vertex_G / sG, region.vertex_H / sH
    for d in range(vG.size):
        e = (d + 1) % vG.size
        dG, dH = vG[e] - vG[d], vH[e] - vH[d]
        if np.hypot(dG, dH) < 1e-9:
            continue
        if dG * (H / sH - vH[d]) - dH * (G / sG - vG[d]) < -1e-12:
            return False
    return True


@given(categorical_nodes(), st.integers(0, 2 ** 32 - 1))
@settings(max_examples=scaled(1.0))
def test_partition_bound_holds_for_random_placements_and_partitions(node, seed):
    """The unseen rows get random categories (seen ones, missing, new ones) and the
    categories a random side: the left child's sums lie in ``items_region`` and every
    admissible partition's gain is <= ``partition_gain_upper``."""
    g, h, n_seen, category, q, params = node
    p = params.kernel_params(g.size)
    G, H = g.sum(), h.sum()
    parent = nb.Parent(G, H, newton_score(G, H, p), np.abs(g).sum(),
                       *nb.parent_slack(g.size, np.abs(g).sum(), H))
    gh = np.stack([g, h], axis=1)
    unseen = nb.unseen_region(gh, np.arange(g.size), n_seen, g.size, parent.slack_G,
                              parent.slack_H)
    item = np.where(category < 0, q, category)       # the missing rows: item q
    item_G = np.bincount(item, g[:n_seen], q + 1)
    item_H = np.bincount(item, h[:n_seen], q + 1)
    region = nb.items_region(unseen, item_G, item_H)
    mcw = params.min_child_weight
    upper = nb.partition_gain_upper(region, max(mcw - parent.slack_H, 0.0),
                                    H - mcw + parent.slack_H, parent, p)
    rng = np.random.default_rng(seed)
    scale = 1e-12 * (1.0 + np.abs(g).sum() ** 2 / (p.reg_lambda + 1e-3))
    for _ in range(20):
        every = np.concatenate([item, rng.integers(0, q + 4, g.size - n_seen)])  # q + 1..: new
        left = (rng.random(q + 4) < rng.random())[every]
        L_G, L_H, R_G, R_H = g[left].sum(), h[left].sum(), g[~left].sum(), h[~left].sum()
        assert _inside(L_G, L_H, region)
        if L_H < mcw or R_H < mcw or not (h[left] > 0).any() or not (h[~left] > 0).any():
            continue  # not admissible: never recorded, the upper bound need not cover it
        gain = newton_score(L_G, L_H, p) + newton_score(R_G, R_H, p) - parent.score
        assert gain <= upper + scale


def test_items_region_is_the_minkowski_sum():
    """Without unseen rows the region is the items' zonotope (up to its rounding box): its
    vertices are the subset sums of the items sorted by angle, and the box is tiny."""
    g, h = np.array([1.0, -2.0, 0.5]), np.array([1.0, 1.0, 2.0])
    gh = np.zeros((0, 2))
    unseen = nb.unseen_region(gh, np.zeros(0, np.int64), 0, 0, 0.0, 0.0)
    region = nb.items_region(unseen, g, h)
    found = {(round(a, 9) + 0.0, round(b, 9) + 0.0)
             for a, b in zip(region.vertex_G, region.vertex_H)}
    # the hexagon of the prefixes and suffixes of the items in angle order
    assert found == {(0.0, 0.0), (1.0, 1.0), (1.5, 3.0), (-0.5, 4.0), (-1.5, 3.0), (-2.0, 1.0)}
    assert np.ptp(region.vertex_G) == pytest.approx(3.5) and np.ptp(region.vertex_H) == \
        pytest.approx(4.0)


@pytest.mark.parametrize("g, h", [([0.0, 0.0, 1e-254, -3e-255], [0.0, 1.0, 1.0, 0.5]),
                                  ([2.0 ** 20, -3 * 2.0 ** 20, 0.5, 1.0],
                                   [2.0 ** -30, 0.0, 3 * 2.0 ** -30, 2.0 ** -31])])
def test_items_region_holds_every_sum_at_extreme_aspect_ratios(g, h):
    """G extents 1e254 times smaller than the H extents, and the reverse: the angles are
    sorted in the scaled space, so the region still holds every subset sum of the
    unseen rows (the last two) plus the items' (the first two rows, two categories)."""
    g, h = np.array(g), np.array(h)
    G, H = g.sum(), h.sum()
    parent = nb.Parent(G, H, 0.0, np.abs(g).sum(), *nb.parent_slack(4, np.abs(g).sum(), H))
    unseen = nb.unseen_region(np.stack([g, h], 1), np.arange(4), 2, 4, parent.slack_G,
                              parent.slack_H)
    region = nb.items_region(unseen, g[:2], h[:2])
    for mask in range(16):
        left = np.array([(mask >> i) & 1 for i in range(4)], bool)
        assert _inside(g[left].sum(), h[left].sum(), region)


@given(st.lists(st.floats(0, 4), min_size=1, max_size=10),
       st.sampled_from([0.5, 1.0, 1.0 - 2 ** -40, 1.0 + 2 ** -40, 2.0]),
       st.integers(0, 2 ** 32 - 1))
@settings(max_examples=scaled(1.0))
def test_can_split_is_false_only_where_no_partition_is_admissible(h, share, seed):
    """Against every partition of the node's rows into two sides: where a side pair has a
    row of h > 0 each and both hessian sums (each in a random order) >= min_child_weight,
    ``can_split`` holds; and it fails where H < 2 min_child_weight beyond the rounding."""
    h = np.array(h)
    rng = np.random.default_rng(seed)
    H = float(np.sum(h[rng.permutation(h.size)]))
    mcw = H / 2 * share
    params = NewtonParams(min_child_weight=mcw).kernel_params(h.size, 1)
    n_pos = int(np.count_nonzero(h > 0))
    admissible = False
    for mask in range(1, 2 ** h.size - 1):
        left = np.array([(mask >> i) & 1 for i in range(h.size)], bool)
        sides = [float(np.sum(rng.permutation(h[side]))) for side in (left, ~left)]
        positive = [np.count_nonzero(h[side] > 0) for side in (left, ~left)]
        if min(positive) > 0 and min(sides) >= mcw:
            admissible = True
            break
    got = nb.can_split(h.size, n_pos, H, params)
    if admissible:
        assert got
    if n_pos < 2 or H < 2 * mcw * (1 - 1e-12):
        assert not got


def test_can_split_needs_two_rows_of_positive_hessian():
    params = NewtonParams(min_child_weight=0.0).kernel_params(3, 1)
    assert not nb.can_split(3, 1, 5.0, params)
    assert nb.can_split(3, 2, 5.0, params)
