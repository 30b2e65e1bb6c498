"""The Newton engine's design choices, measured (the benchmark is
apsplit.experiments.newton_engine).  From the repository root:

    python -m benchmarks.newton_engine [--repeats 5] [--rows 50000]
"""

from apsplit.experiments.newton_engine import main

if __name__ == "__main__":
    main()
