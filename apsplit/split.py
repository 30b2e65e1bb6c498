"""The result of one split search."""

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Split:
    """Best split of a node.

    feature      column of X (-1 when no feature takes two distinct values in the node)
    threshold    x <= threshold goes left (midpoint of consecutive distinct values);
                 NaN for a categorical split
    score        sum over the two children of (child weight / node weight) * impurity(child);
                 lower is better; inf when there is no split
    assessments  exact number of (feature, example) pairs assessed by this call
    left_weights, right_weights
                 class weights of the two children (length C)
    left_rank    rank of the largest value <= threshold among the feature's distinct
                 values in X: code <= left_rank selects the same rows as
                 x <= threshold; -1 when there is no split or a categorical one
    categories_left
                 categorical split: sorted array of the category values going left
                 (every other value, unseen ones included, goes right); else None
    scans        how many times the call recomputed a feature's bounds from its
                 statistics (built-in finders; each scan visits the feature's
                 values, so it is the search's bookkeeping cost; 0 if not counted)
    """

    feature: int
    threshold: float
    score: float
    assessments: int
    left_weights: np.ndarray
    right_weights: np.ndarray
    left_rank: int = -1
    categories_left: np.ndarray | None = None
    scans: int = 0

    @property
    def found(self):
        """True unless every candidate feature was constant in the node."""
        return self.feature >= 0

    def goes_left(self, ds, rows):
        """Boolean mask of the ``rows`` of Dataset ``ds`` this split sends left."""
        return ds.goes_left(self.feature, rows, self.left_rank, self.categories_left)

    @staticmethod
    def none(assessments, n_classes, scans=0):
        zeros = np.zeros(n_classes)
        return Split(-1, math.nan, math.inf, int(assessments), zeros, zeros.copy(), -1,
                     scans=scans)
