"""Hypothesis profiles for the apsplit test suite, and the workers' shares of the compile.

Select one with APSPLIT_HYPOTHESIS_PROFILE (default "ci"):
  ci        the default: moderate example counts, whole suite in a few minutes; derandomized
            (the same examples every run), so that a run is reproducible and CI's verdict
            depends on the code, not on the draw
  dev       quick feedback while editing
  thorough  ten times ci, random examples every run, for a long hunt
Tests that need fewer examples ask for a share of the profile's count
(``strategies.scaled``).

APSPLIT_COMPILE_LOG=<folder> logs numba's compiles per worker (``compile_log``).
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from apsplit import Dataset, grow_tree
from apsplit.newton import NewtonData, NewtonParams, grow_newton_tree

_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=300, derandomize=True, **_COMMON)
settings.register_profile("dev", max_examples=25, **_COMMON)
settings.register_profile("thorough", max_examples=3000, **_COMMON)
settings.load_profile(os.environ.get("APSPLIT_HYPOTHESIS_PROFILE", "ci"))

if os.environ.get("APSPLIT_COMPILE_LOG"):
    import compile_log

    compile_log.start(os.environ["APSPLIT_COMPILE_LOG"],
                      os.environ.get("PYTEST_XDIST_WORKER", "main"))


def _adaboost_grower(n_values):
    """Compile (or load) ``kernels.build.grow`` for codes of features with ``n_values``
    distinct values: uint8 codes up to 255, uint16 above."""
    x = np.arange(2 * n_values, dtype=float) % n_values
    grow_tree(Dataset(x[:, None]), (x > n_values / 2).astype(int), max_depth=2, method="exhaustive")


def _newton_grower(method):
    """Compile (or load) the built-in Newton tree grower of ``method`` ("exhaustive": the
    one ``train`` and the forests call; "adaptive": the batched one)."""
    x = np.arange(40, dtype=float)[:, None]
    grow_newton_tree(NewtonData(x), np.sin(x[:, 0]), np.ones(40), NewtonParams(max_depth=2),
                     method=method)


# The kernels nearly every test file needs, split between the two xdist workers.  On a
# clean clone numba compiles each in minutes (either AdaBoost grower about 3.7, the
# exhaustive Newton grower 0.9, the batched 0.7, on 2 cores: ``compile_log``), and both
# workers compiled the same ones at once; now each compiles its share first and loads
# the other share from numba's disk cache, written by the other worker meanwhile.
_SHARES = {"gw0": (lambda: _adaboost_grower(8), lambda: _newton_grower("exhaustive")),
           "gw1": (lambda: _adaboost_grower(300), lambda: _newton_grower("adaptive"))}


@pytest.fixture(scope="session", autouse=True)
def _compile_share(worker_id):
    for compile_kernel in _SHARES.get(worker_id, ()):
        compile_kernel()
