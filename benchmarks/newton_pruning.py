"""quick and adaptive Newton trees against exhaustive in a boosting run (the benchmark is
apsplit.experiments.newton_pruning).  From the repository root:

    python -m benchmarks.newton_pruning [--rounds 20] [--depths 3,6] [--repeats 2]
"""

from apsplit.experiments.newton_pruning import main

if __name__ == "__main__":
    main()
