"""Benchmarks of apsplit, run from the repository root as ``python -m benchmarks.<name>``."""
