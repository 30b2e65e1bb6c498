"""The README's own split criterion ("significant") against XGBoost's Newton gain, in test log
loss (the benchmark is apsplit.experiments.criterion).  From the repository root:

    python -m benchmarks.criterion [--datasets higgs7k,a8a,satimage] [--rounds 200] [--depth 6]
        [--alpha 10]
"""

from apsplit.experiments.criterion import main

if __name__ == "__main__":
    main()
