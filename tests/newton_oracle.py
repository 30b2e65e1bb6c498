"""Brute-force Newton splits and trees in plain numpy, written independently of apsplit's kernels.

Every candidate split of a node is scored from scratch, from boolean masks of
its rows, in XGBoost's order of enumeration (``updater_colmaker.cc``):

- features by increasing index;
- in a feature, when the column has a missing value somewhere in X and two
  distinct present values: the forward candidates (x <= a | x >= b with the
  missing rows right, for consecutive distinct present values a < b of the
  node, ascending), then "all present rows left, missing right";
- then the backward candidates (missing rows left, descending), then "missing
  left, all present rows right".

A candidate is admissible when each side holds a row with a positive
hessian and a hessian sum >= min_child_weight.  The chosen split is the first
candidate in that order of the highest cell floor(gain / w), w the tie window
1e-10 (sum |g|)^2 / (H + lambda) (apsplit's documented tie rule), if its gain
exceeds 1e-6.

The criterion is Newton's (``score``, ``weight`` below) unless another pair of
plain Python functions ``score(G, H, p)`` / ``weight(G, H, p)`` is passed (a
user's criterion, ``apsplit.register_criterion``).
"""

from dataclasses import dataclass

import numpy as np

KRT_EPS = 1e-6
TIE_WINDOW = 1e-10


def soft(G, alpha):
    return np.sign(G) * max(abs(G) - alpha, 0.0)


def weight(G, H, p):
    """The leaf weight -T(G)/(H + lambda), clipped to +-max_delta_step; 0 if H <= 0."""
    if H <= 0:
        return 0.0
    w = -soft(G, p.reg_alpha) / (H + p.reg_lambda)
    if p.max_delta_step > 0:
        w = float(np.clip(w, -p.max_delta_step, p.max_delta_step))
    return w


def score(G, H, p):
    """The loss reduction of a leaf at its weight: -(2Gw + (H + lambda) w^2 + 2 alpha |w|)."""
    if H <= 0:
        return 0.0
    w = weight(G, H, p)
    return -(2 * G * w + (H + p.reg_lambda) * w * w + 2 * p.reg_alpha * abs(w))


@dataclass
class Candidate:
    feature: int
    left: np.ndarray          # mask over the node's rows
    default_left: bool
    left_value: float         # the present values the split separates (+-inf: one side empty)
    right_value: float
    gain: float
    scale: float              # |s(L)| + |s(R)| + |s(P)|: the magnitude of the terms of the gain


def forward_enabled(column):
    """XGBoost runs the forward pass on a column with a missing value and two distinct values."""
    present = column[~np.isnan(column)]
    return bool(np.isnan(column).any()) and np.unique(present).size >= 2


def node_scale(g, h, p):
    """The tie window's scale of a node: (sum |g|)^2 / (H + lambda) (0 if H + lambda = 0)."""
    denominator = h.sum() + p.reg_lambda
    return np.abs(g).sum() ** 2 / denominator if denominator > 0 else 0.0


def candidates(X, g, h, rows, features, p, score=score):
    """Every admissible candidate of the node ``rows`` in XGBoost's order."""
    gn, hn = g[rows], h[rows]
    parent = score(gn.sum(), hn.sum(), p)
    out = []

    def add(f, left, default_left, a, b):
        right = ~left
        if not (hn[left] > 0).any() or not (hn[right] > 0).any():
            return
        HL, HR = hn[left].sum(), hn[right].sum()
        if HL < p.min_child_weight or HR < p.min_child_weight:
            return
        sL, sR = score(gn[left].sum(), HL, p), score(gn[right].sum(), HR, p)
        out.append(Candidate(f, left, default_left, a, b, sL + sR - parent,
                             abs(sL) + abs(sR) + abs(parent)))

    for f in sorted(features):
        x = X[rows, f]
        missing = np.isnan(x)
        values = np.unique(x[~missing])
        if values.size == 0:
            continue
        if forward_enabled(X[:, f]):
            for a, b in zip(values[:-1], values[1:]):
                add(f, ~missing & (x <= a), False, a, b)
            add(f, ~missing, False, values[-1], np.inf)
        for a, b in reversed(list(zip(values[:-1], values[1:]))):
            add(f, missing | (x <= a), True, a, b)
        add(f, missing, True, -np.inf, values[0])
    return out


def cell(gain, tie):
    """The gain's cell on the node's tie grid: floor(gain / tie) (the gain if tie is 0)."""
    return np.floor(gain / tie) if tie > 0 else gain


def best_split(X, g, h, rows, features, p, score=score):
    """The chosen candidate of the node (None if no admissible split gains more than 1e-6)."""
    tie = TIE_WINDOW * node_scale(g[rows], h[rows], p)
    best = None
    for c in candidates(X, g, h, rows, features, p, score):
        if np.isfinite(c.gain) and (best is None or cell(c.gain, tie) > cell(best.gain, tie)):
            best = c
    if best is None or not best.gain > KRT_EPS:
        return None
    return best


def optimum(X, g, h, rows, features, p, score=score):
    """(the largest gain over the admissible candidates, its candidate); (-inf, None) if none."""
    cands = [c for c in candidates(X, g, h, rows, features, p, score) if np.isfinite(c.gain)]
    if not cands:
        return -np.inf, None
    c = max(cands, key=lambda c: c.gain)
    return c.gain, c


@dataclass
class Node:
    rows: np.ndarray
    G: float
    H: float
    weight: float
    split: Candidate | None = None
    left: "Node | None" = None
    right: "Node | None" = None

    @property
    def is_leaf(self):
        return self.split is None


def grow(X, g, h, rows, features, p, depth=0, score=score, weight=weight):
    """The tree, recursively: a node splits by ``best_split`` until max_depth; then gamma
    pruning bottom-up (a split whose children are leaves and whose gain < gamma goes)."""
    rows = np.asarray(rows)
    G, H = g[rows].sum(), h[rows].sum()
    node = Node(rows, G, H, weight(G, H, p))
    if depth >= p.max_depth:
        return node
    split = best_split(X, g, h, rows, features, p, score)
    if split is None:
        return node
    left = grow(X, g, h, rows[split.left], features, p, depth + 1, score, weight)
    right = grow(X, g, h, rows[~split.left], features, p, depth + 1, score, weight)
    if left.is_leaf and right.is_leaf and split.gain < p.gamma:
        return node
    node.split, node.left, node.right = split, left, right
    return node


def goes_left(split, x):
    """Routing of raw values by a brute-force split (NaN: the default side)."""
    if np.isnan(x):
        return split.default_left
    if split.right_value == np.inf:
        return True
    if split.left_value == -np.inf:
        return False
    return x <= split.left_value
