"""Categorical features: apsplit's exact categorical Newton splits against LightGBM's and
XGBoost's categorical handling (the benchmark is apsplit.experiments.categorical).  From the
repository root:

    python -m benchmarks.categorical [--rounds 50] [--depth 6] [--repeats 3]
"""

from apsplit.experiments.categorical import main

if __name__ == "__main__":
    main()
