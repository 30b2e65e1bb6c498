"""The K trees of a boosting round (one per class) grown in one compiled call.

A multi-class round grows one tree per class on the same rows and candidate features,
each from its own (g, h).  ``grow_round`` grows them with the criterion's tree grower
(``newton_grow._grow``: depthwise growth, gamma pruning, compaction), one after
the other, inside one numba call: tree t is exactly the tree that grower returns for
``gh[t]`` and the draw seeded ``seeds[t]``, since it is that grower's own call.  What the
one call saves is Python's work per tree (argument checks, copies of the gradient
columns, one dispatch), which the Python wrapper (``apsplit.newton.grow_newton_forest``)
then does once per round.

Sharing the column passes between the K trees (one pass over a column updating every
tree's nodes, the row's K slots read together) was measured and dropped; see
docs/gradient-boosting.md ("Where the time goes").
"""

from . import newton_grow
from .newton_grow import ColumnDraw, bind_globals, split_source_tag

# The criterion's tree grower (``newton_grow.specialise``): a free name of ``_grow_round``,
# bound per criterion by ``specialise`` (a placeholder here).
grow_tree = None


def _grow_round(cols, gh, root_rows, features, params, draw, seeds):
    """The K trees of ``gh`` ((K, n, 2): every tree's (g, h) per row) on the rows
    ``root_rows`` and candidate ``features`` (both sorted): tree t is ``grow_tree(cols,
    gh[t], root_rows, features, params, draw)`` with ``draw``'s seed replaced by
    ``seeds[t]``.  Returns the list of the K ``Tree``s."""
    trees = [grow_tree(cols, gh[0], root_rows, features, params,
                       ColumnDraw(draw.per_level, draw.per_node, seeds[0]))]
    for t in range(1, gh.shape[0]):
        trees.append(grow_tree(cols, gh[t], root_rows, features, params,
                               ColumnDraw(draw.per_level, draw.per_node, seeds[t])))
    return trees


def specialise(tree_grower, name, cache=False):
    """The round grower of a criterion's tree grower (``newton_grow.specialise``'s), named
    ``grow_round_<name>``; ``cache`` for criteria whose code lives in a file (the name then
    carries a hash of the kernels the tree grower compiles in, as that grower's does)."""
    if cache:
        name = f"{name}_{split_source_tag(newton_grow.__file__, __file__)}"
    return bind_globals(_grow_round, f"grow_round_{name}", cache, {"grow_tree": tree_grower})


grow_round_newton = specialise(newton_grow.grow_newton, "newton", cache=True)
grow_round_newton.__doc__ = """The K Newton trees of a round: ``_grow_round`` with
``newton_grow.grow_newton``.

(cols, gh (K, n, 2), root_rows, features, params, draw, seeds (K,) int64) -> list of K Trees."""
