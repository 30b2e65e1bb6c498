"""apsplit: exact greedy-optimal splits for boosted decision trees, assessing few examples."""

from . import lower_bounds
from .dataset import Dataset
from .finders import (Adaptive, AdaptivePaper, Exhaustive, Finder, Problem, Quick, available_finders,
                      find_split, get_finder, register_finder)
from .split import Split
from .tree import Tree, grow_tree

__version__ = "0.1.0"
__all__ = ["Dataset", "find_split", "Split", "Finder", "Problem", "Exhaustive", "Quick",
           "Adaptive", "AdaptivePaper", "register_finder", "available_finders", "get_finder", "Tree",
           "grow_tree", "lower_bounds"]
