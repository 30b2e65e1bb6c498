"""``benchmarks.newton_phases`` still finds its marks in the grower (no compile here)."""

from numba.core.registry import CPUDispatcher

from benchmarks import newton_phases


def test_the_timed_grower_is_built_from_the_current_grower():
    timed = newton_phases._timed_grower()
    assert isinstance(timed, CPUDispatcher)
    globals_ = timed.py_func.__globals__
    assert globals_["_clock"] is newton_phases._clock
    assert globals_["scan_batch"] is not None and globals_["score"] is not None
