"""Random row samples of the bundled datasets, and the scores of saved model files loaded in a
fresh process, shared by the tests that compare with XGBoost and LightGBM."""

import subprocess
import sys

import numpy as np
import scipy.sparse as sp

from apsplit.experiments.loaders import load_bundled


def bundled_sample(name, rows, nan=0.0, seed=0, round32=True):
    """(X, y, X_other, y_other): a random subset of ``rows`` rows of a bundled dataset and up
    to 1000 of the others (data not trained on), in their original order.  Dense X is
    float64 holding float32 values (``round32``: as XGBoost and scikit-learn see them), with
    a share ``nan`` of its entries set to NaN; sparse X is CSR."""
    X, y, _ = load_bundled(name)
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    perm = rng.permutation(n)
    idx = np.sort(perm[:min(rows, n)])
    other = np.sort(perm[min(rows, n):min(rows, n) + 1000])
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
    else:
        X = np.asarray(X, dtype=np.float64)
        if round32:
            X = X.astype(np.float32).astype(np.float64)
        if nan:
            X = X.copy()
            X[rng.random(X.shape) < nan] = np.nan
    return X[idx], y[idx], X[other], y[other]


_LOAD_AND_SCORE = """
import sys, numpy as np, xgboost, lightgbm
X = np.load(sys.argv[3])
xb = xgboost.Booster(model_file=sys.argv[1])
lb = lightgbm.Booster(model_file=sys.argv[2])
np.save(sys.argv[4], np.stack([xb.predict(xgboost.DMatrix(X), output_margin=True),
                               lb.predict(X, raw_score=True)]))
"""


def fresh_process_scores(xgboost_file, lightgbm_file, X, tmp_path):
    """(XGBoost's margins, LightGBM's raw scores) of dense X from the two model files, each
    loaded by its library in a new Python process."""
    np.save(tmp_path / "X.npy", X)
    run = subprocess.run([sys.executable, "-c", _LOAD_AND_SCORE, str(xgboost_file),
                          str(lightgbm_file), str(tmp_path / "X.npy"),
                          str(tmp_path / "scores.npy")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return np.load(tmp_path / "scores.npy")
