"""Clients of the split finders (installed as ``apsplit.adapters``).

Boosting loops and library bridges live here; they feed the core
(``apsplit.find_split`` / ``apsplit.grow_tree``) the node's rows in weight
order and the candidate features of each round.
"""

from .boosting import AdaBoost, Boosting, LazyBoost, WeightTrimmingBoost

__all__ = ["AdaBoost", "LazyBoost", "WeightTrimmingBoost", "Boosting"]
