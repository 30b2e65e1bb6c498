"""The named state of the AdaBoost-family engine: what its kernels pass each other.

numba types a NamedTuple as a tuple whose fields have names: ``node.task.feats``
compiles to the same load as ``node[4]`` did.  The records nest (a ``Node``
holds its ``BinnedData``, ``Workspace`` and ``Task``), so a kernel takes a few
records instead of their 40 arrays.  Passing them costs nothing to a kernel
compiled without reference counting (``_nrt=False``: the per-batch loops of
``search``); an ordinary kernel updates the count of every array in its
arguments, so the hot ones the loops call take small views built per call
instead (``stats.Column``, ``Stream``, ``Seen``, ``Rule``).

The layers: ``BinnedData`` and ``Workspace`` belong to the Dataset
(``Dataset.kernel_data``, ``Dataset.workspace``); ``Task`` and ``Params`` are
what a caller asks for; ``Node``, ``State`` and ``Scratch`` are one search's,
made by ``search.setup``.
"""

from typing import NamedTuple

import numpy as np

from .heap import Heap


class BinnedData(NamedTuple):
    """A binned Dataset (``apsplit.dataset``): feature k's bins are its sorted distinct values."""

    is_sparse: bool
    codes: np.ndarray         # dense: (K, n) rank of every example's value; sparse: empty
    bin_offsets: np.ndarray   # (K + 1): feature k's bins are bin_offsets[k]:bin_offsets[k + 1]
    zero_rank: np.ndarray     # sparse: the rank of feature k's implicit zero, -1 if none
    csc_indptr: np.ndarray    # sparse, CSC: column k's entries are csc_indptr[k]:csc_indptr[k + 1]
    csc_rows: np.ndarray      # ... their rows (sorted)
    csc_codes: np.ndarray     # ... their ranks
    csr_indptr: np.ndarray    # sparse, CSR: row i's entries are csr_indptr[i]:csr_indptr[i + 1]
    csr_features: np.ndarray  # ... their columns (sorted)
    csr_codes: np.ndarray     # ... their ranks
    categorical: np.ndarray   # uint8 per column: its values are unordered categories
    csr_bins: np.ndarray      # sparse: the global bin (int32) of every CSR entry
    two_level: np.ndarray     # uint8 per column: dense numeric with more values than coarse
                              # bins: its canonical sums are two-level (``stats``)
    coarse_of_rank: np.ndarray  # ... per bin, its coarse bin within its feature (uint8; else empty)


class Workspace(NamedTuple):
    """A Dataset's scratch arrays for C classes (``Dataset.workspace``).

    hist, mark, present, counts and in_node are zero between kernel calls (every
    kernel that returns leaves them zeroed); bucket_pos and bucket_code are scratch.
    """

    hist: np.ndarray         # (bins, C) class weights a feature has seen per bin
    mark: np.ndarray         # uint8 per bin: seen by a listed feature
    present: np.ndarray      # per bin: a listed feature's seen ranks, sorted, from its offset
    bucket_pos: np.ndarray   # per stored entry: weight-order position (sparse buckets)
    bucket_code: np.ndarray  # per stored entry: its rank (sparse buckets)
    in_node: np.ndarray      # uint8 per row: in the node (sparse canonical passes)
    counts: np.ndarray       # int64 per bin: examples seen (a minimum leaf size)


class Task(NamedTuple):
    """One node's search: its rows, their weights and labels, the candidates and the rule."""

    order: np.ndarray        # the node's rows, positive weight, decreasing weight order
    index_order: np.ndarray  # the same rows, sorted
    w: np.ndarray            # weight per row of X
    y: np.ndarray            # class code per row of X
    n_classes: int
    feats: np.ndarray        # candidate columns; ties go to the first listed
    crit: int                # ``criteria.CRITERIA`` code
    bounds: int              # ``criteria.BOUNDS`` code, or ``criteria.NO_UB``
    min_leaf: int            # examples each child must keep (1: any split)
    # the node's two-level canonical coarse sums T_b as the tree builder keeps them
    # (``build.grow``: its coarse histogram's weights, feature k's bins from
    # coarse_offsets[k]); empty: each search sums them from the node's rows (``stats``)
    coarse_sums: np.ndarray = np.zeros((0, 1))
    coarse_offsets: np.ndarray = np.zeros(1, np.int64)
    # the node's class totals as the tree builder sums them (``stats.class_totals`` of its
    # rows in index order, the canonical totals); empty: each search sums them
    totals: np.ndarray = np.zeros(0)


class Params(NamedTuple):
    """A search method's parameters (``search.search``); the others ignore them."""

    initial_fraction: float = 0.0   # quick: weight fraction every feature first sees
    n_batches: int = 0              # quick: equal-weight batches for the rest
    min_step: float = -1.0          # adaptive: least batch, of the unseen weight (-1: the rule's)
    min_step_examples: float = -1.0  # adaptive: least batch, of the unseen examples (-1: the rule's)
    first_column: int = -1          # adaptive: column assessed fully first (-1: none)
    n_threads: int = 1              # exhaustive: threads of the coarse histograms and the
                                    # survivors' refinements (the same split for any count)


class Node(NamedTuple):
    """What a search of one node reads: fixed once ``search.setup`` has made it."""

    data: BinnedData
    work: Workspace
    task: Task              # bounds: NO_UB for the adaptive search (it uses lower bounds only)
    w_ord: np.ndarray       # weights in weight order (batched searches; else empty)
    y_ord: np.ndarray       # labels in weight order
    cumw: np.ndarray        # (n + 1) prefix sums of w_ord
    cumcls: np.ndarray      # (n + 1, C) prefix sums of the class weights in weight order
    totals: np.ndarray      # (C) class weights, summed in index order (canonical)
    parent: float           # the node's impurity f(totals)
    weight: float           # the node's weight, the canonical sum of totals
    buckets: np.ndarray     # sparse, batched: (F, 2) feature f's entries in bucket_pos/code
    cat_left: np.ndarray    # per bin: a categorical winner's categories going left
    coarse_sums: np.ndarray  # (MAX_COARSE, C) a two-level feature's coarse bin sums, zero between uses


class State(NamedTuple):
    """Per candidate feature f (its position in ``feats``), what the search knows of it."""

    seen: np.ndarray         # m_f: f has seen the weight-order prefix [0, m_f)
    n_present: np.ndarray    # a listed f: its seen values' count (its ``present`` list)
    lb: np.ndarray           # lower bound on f's best score (weight units)
    ub: np.ndarray           # upper bound
    ranks: np.ndarray        # (F, 2) f's best split, left and right ranks (fully assessed)
    stored_seen: np.ndarray  # sparse: f's stored entries among the seen examples
    lb_rank: np.ndarray      # the left rank of the split attaining lb (-1: one-sided)
    lb_left: np.ndarray      # (F, C) its seen left class weights
    final: np.ndarray        # uint8: f's bounds are exact and its statistics zeroed
    scans: np.ndarray        # (1,) scans of a feature's values so far
    cursor: np.ndarray       # sparse, batched: f's next bucket entry
    listed: np.ndarray       # uint8: f keeps a sorted list of its seen values (``stats``)


class Scratch(NamedTuple):
    """A search's scratch arrays (allocated by ``search.setup``)."""

    left: np.ndarray        # (C) left class weights of a scan
    right: np.ndarray       # (C) right class weights
    zero: np.ndarray        # (C) class weights of a sparse feature's implicit zero
    unseen_cls: np.ndarray  # (C) class weights of the examples a feature has not seen
    out_ranks: np.ndarray   # (3) a scan's best ranks and the left rank attaining lb
    prefix: np.ndarray      # (C) a two-level scan's coarse prefix P_b
    inner: np.ndarray       # (C) ... and its running sum inside a coarse bin
    new_bins: np.ndarray    # the bins a listed feature sees first in a batch
    cat_side: np.ndarray    # categorical partitions: side per category
    cat_key: np.ndarray     # ... sort key per category
    cat_order: np.ndarray   # ... categories by key
    candidates: np.ndarray  # the fully assessed features that may hold the split
    by_lb: Heap             # the live features by lb (adaptive searches)
    by_ub: Heap             # ... by ub (adaptive_paper)


class Found(NamedTuple):
    """A node's split as ``search.run`` returns it (position -1: none)."""

    position: int           # the split's feature, as a position in ``feats``
    left_rank: int
    right_rank: int
    score: float            # weight units (divide by node_weight)
    assessments: int
    children: np.ndarray    # (2, C) class weights of the left and right child
    node_weight: float
    left_codes: np.ndarray  # a categorical split's codes going left; else empty
    scans: int              # scans of a feature's values
