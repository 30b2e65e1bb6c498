"""The experiment harness: the paper's benchmark, the node and stock benchmarks, the sweeps.

A layer above the core (``apsplit``'s finders, trees and kernels) and its
clients (``apsplit.adapters``): it imports both, and neither imports it.
``benchmarks/`` holds thin command-line runners of these modules, and the
``apsplit`` console script (``apsplit compare``) is ``cli``.
"""
