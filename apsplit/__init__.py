"""apsplit: exact greedy-optimal splits for boosted decision trees, assessing few examples."""

from pathlib import Path as _Path

# A checkout keeps the clients in the top-level adapters/ folder, which an install maps to
# apsplit.adapters.  When this package is imported from a checkout (``python -m benchmarks.x``
# from the repository root, after a non-editable install or none), the checkout's apsplit/
# shadows the installed one and has no adapters/ of its own: let apsplit.adapters resolve to
# the checkout's folder, so that the checkout's core and clients are used together.
_HERE = _Path(__file__).resolve().parent
if not (_HERE / "adapters").is_dir() and (_HERE.parent / "adapters" / "__init__.py").is_file():
    __path__.append(str(_HERE.parent))  # noqa: F821 (the package's own search path)

from . import lower_bounds
from .criteria import available_criteria, register_criterion
from .dataset import Dataset
from .finders import (Adaptive, AdaptivePaper, Exhaustive, Finder, Problem, Quick, available_finders,
                      find_split, get_finder, register_finder)
from .split import Split
from .tree import Tree, grow_tree

__version__ = "0.1.0"
__all__ = ["Dataset", "find_split", "Split", "Finder", "Problem", "Exhaustive", "Quick",
           "Adaptive", "AdaptivePaper", "register_finder", "available_finders", "get_finder", "Tree",
           "grow_tree", "lower_bounds", "register_criterion", "available_criteria"]
