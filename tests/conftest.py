"""Hypothesis profiles for the apsplit test suite.

Select one with APSPLIT_HYPOTHESIS_PROFILE (default "ci"):
  ci        the default: moderate example counts, whole suite in a few minutes; derandomized
            (the same examples every run), so that a run is reproducible and CI's verdict
            depends on the code, not on the draw
  dev       quick feedback while editing
  thorough  ten times ci, random examples every run, for a long hunt
Tests that need fewer examples ask for a share of the profile's count
(``strategies.scaled``).
"""

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=300, derandomize=True, **_COMMON)
settings.register_profile("dev", max_examples=25, **_COMMON)
settings.register_profile("thorough", max_examples=3000, **_COMMON)
settings.load_profile(os.environ.get("APSPLIT_HYPOTHESIS_PROFILE", "ci"))
