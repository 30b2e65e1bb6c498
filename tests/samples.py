"""Random row samples of the bundled datasets, shared by the tests that compare with XGBoost
and LightGBM."""

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
