"""``DMatrix``: the data of ``train`` and ``Booster.predict``, as XGBoost's.

X is dense (a missing value is NaN, or the value given as ``missing``),
scipy.sparse (an absent entry is missing, as in XGBoost: not zero) or a
pandas DataFrame (its column names become ``feature_names``; its ``category``
columns become categorical features, their codes the values, NaN where the
code is -1).  Categorical features are also named by ``feature_types`` ("c",
as in XGBoost; "q", "float", "int" or "i" numeric) and come with an
``xgboost.DMatrix``'s ``feature_types``; their values must be integer codes
in [0, 2**24), and ``train`` grows exact categorical splits on them
(``apsplit.kernels.newton_categorical``).  Values are
rounded to float32 as XGBoost stores them, so that both libraries see the
same distinct values and grow the same trees; infinite values are refused.
The tree grower's binned form (``apsplit.newton.NewtonData``) is built once,
on first use, and reused by every round.  An ``xgboost.DMatrix`` is
converted through its ``get_data()`` (CSR of its present entries),
``get_label()``, ``get_weight()`` and ``get_base_margin()``.
"""

import numbers

import numpy as np
import scipy.sparse as sp

from ..newton import NewtonData, check_codes
from ..optional import require

__all__ = ["DMatrix", "as_dmatrix"]


def _is_dataframe(X):
    return type(X).__name__ == "DataFrame" and hasattr(X, "dtypes") and hasattr(X, "columns")


def pandas_module():
    """pandas, for a DataFrame's dtypes; an ImportError naming the extra if it is missing
    (another library's DataFrame, pandas not installed)."""
    return require("pandas", "reading a DataFrame")


_NUMERIC_TYPES = ("q", "float", "int", "i")


def _from_dataframe(df, enable_categorical=True):
    """(values, column names, feature types) of a pandas DataFrame: a ``category`` column
    gives its codes (-1, pandas' missing, as NaN) and the type "c", the others "q"; text
    columns refused, and categorical ones when ``enable_categorical`` is False."""
    pd = pandas_module()
    values = np.empty(df.shape, dtype=np.float64)
    types = []
    for j, (name, dtype) in enumerate(df.dtypes.items()):
        column = df.iloc[:, j]
        if isinstance(dtype, pd.CategoricalDtype):
            if not enable_categorical:
                raise ValueError(f"column {name!r} is categorical and enable_categorical is "
                                 f"False; pass enable_categorical=True (or None) to split it "
                                 f"by categories")
            codes = column.cat.codes.to_numpy().astype(np.float64)
            codes[codes < 0] = np.nan
            values[:, j] = codes
            types.append("c")
            continue
        if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)):
            raise ValueError(f"column {name!r} has dtype {dtype}, not numeric; DMatrix needs "
                             f"numbers (NaN for missing) or a category dtype")
        values[:, j] = column.to_numpy(dtype=np.float64, na_value=np.nan)
        types.append("q")
    return values, [str(c) for c in df.columns], types


def _from_xgboost(dm):
    """X (dense with NaN when at least a third is present, else CSR), and the meta-data."""
    X = dm.get_data().tocsr()
    n, K = X.shape
    if X.nnz >= n * K / 3:
        dense = np.full((n, K), np.nan)
        rows = np.repeat(np.arange(n), np.diff(X.indptr))
        dense[rows, X.indices] = X.data
        X = dense
    label = dm.get_label()
    weight = dm.get_weight()
    margin = dm.get_base_margin()
    return (X, label if label.size else None, weight if weight.size else None,
            margin if margin.size else None, dm.feature_names, dm.feature_types)


def _float32(values, what, round32=True):
    if not np.all(np.isfinite(values) | np.isnan(values)):
        raise ValueError(f"{what} contains inf; use NaN for a missing value")
    if not round32:
        return values.astype(np.float64)
    with np.errstate(over="ignore"):
        f = values.astype(np.float32)
    if np.any(np.isinf(f) & ~np.isinf(values)):
        raise ValueError(f"{what} holds values beyond float32's range (XGBoost stores float32)")
    return f.astype(np.float64)


def prepare_X(X, missing=np.nan, what="X", round32=True):
    """X as float64 (of float32 values; ``round32=False``: the values as given): dense
    C-contiguous with NaN, or CSR without zeros removed (a stored zero is a present zero);
    also the column names of a DataFrame (its category columns as codes)."""
    names = None
    if _is_dataframe(X):
        X, names, _ = _from_dataframe(X)
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        if X.ndim != 2:
            raise ValueError(f"{what} must be 2-dimensional")
        data = X.data
        if missing is not None and not (isinstance(missing, float) and np.isnan(missing)):
            data[data == missing] = np.nan
        X.data = _float32(data, what, round32)
        if np.isnan(X.data).any():  # a NaN entry is missing, as an absent one
            coo = X.tocoo()
            keep = ~np.isnan(coo.data)
            X = sp.csr_matrix((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=X.shape)
        X.sort_indices()
        return X, names
    try:
        A = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be numeric (array-like, scipy.sparse or a DataFrame), got "
                        f"{type(X).__name__}") from None
    if A.ndim == 1:
        raise ValueError(f"{what} must be 2-dimensional (rows x features), got shape {A.shape}; "
                         f"reshape a single feature with X.reshape(-1, 1)")
    if A.ndim != 2:
        raise ValueError(f"{what} must be 2-dimensional, got shape {A.shape}")
    if missing is not None and not (isinstance(missing, float) and np.isnan(missing)):
        A = np.where(A == missing, np.nan, A)
    return np.ascontiguousarray(_float32(A, what, round32)), names


def _vector(a, n, what, allow_2d_width=None):
    if a is None:
        return None
    arr = np.asarray(a, dtype=np.float64)
    if allow_2d_width is not None and arr.ndim == 2 and arr.shape[0] == n:
        pass
    elif arr.ndim != 1:
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        else:
            raise ValueError(f"{what} must be 1-dimensional with one entry per row ({n}), "
                             f"got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{what} has {arr.shape[0]} entries but the data has {n} rows")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} contains NaN or inf")
    return np.ascontiguousarray(arr)


class DMatrix:
    """Data, labels and weights for ``train`` and ``Booster.predict`` (XGBoost's names).

    Parameters
    ----------
    X : array-like (n, K), scipy.sparse, pandas DataFrame, or an ``xgboost.DMatrix``
    label : (n,) or None
    weight : (n,) non-negative, or None (every row 1)
    base_margin : (n,) or (n, num_class), or None: each row's starting margin,
        used instead of base_score (as XGBoost)
    feature_names : K names, or None (a DataFrame's columns)
    missing : the value that marks a missing entry in dense X (default NaN)
    feature_types : K types, or None: "c" for a categorical feature, "q" (or "float",
        "int", "i") for a numeric one; default: a DataFrame's (category columns "c"), an
        xgboost.DMatrix's, else all numeric
    enable_categorical : None or True (a DataFrame's category columns are categorical),
        or False (they are refused, as XGBoost does); XGBoost's name

    ``categorical`` is the boolean mask of the categorical features.
    """

    def __init__(self, X, label=None, weight=None, base_margin=None, feature_names=None,
                 missing=np.nan, feature_types=None, enable_categorical=None):
        types = None
        if _is_xgboost_dmatrix(X):
            X, l2, w2, m2, names2, types = _from_xgboost(X)
            label = l2 if label is None else label
            weight = w2 if weight is None else weight
            base_margin = m2 if base_margin is None else base_margin
            feature_names = names2 if feature_names is None else feature_names
        if isinstance(X, DMatrix):
            raise TypeError("X is already a DMatrix")
        names = None
        if _is_dataframe(X):
            X, names, types = _from_dataframe(X, enable_categorical is not False)
        self.data, _ = prepare_X(X, missing)
        self._binned = None
        self.feature_names = feature_names if feature_names is not None else names
        self.feature_types = feature_types if feature_types is not None else types
        self.set_label(label)
        self.set_weight(weight)
        self.set_base_margin(base_margin)

    # -- XGBoost's accessors ---------------------------------------------------------
    def num_row(self):
        return self.data.shape[0]

    def num_col(self):
        return self.data.shape[1]

    @property
    def shape(self):
        return self.data.shape

    @property
    def feature_names(self):
        return self._feature_names

    @feature_names.setter
    def feature_names(self, names):
        if names is not None:
            names = [str(n) for n in names]
            if len(names) != self.num_col():
                raise ValueError(f"feature_names has {len(names)} names but the data has "
                                 f"{self.num_col()} columns")
            if len(set(names)) != len(names):
                raise ValueError("feature_names must be unique")
        self._feature_names = names

    @property
    def feature_types(self):
        """"c" (categorical) or "q" per feature; None when every feature is numeric and no
        types were given (as XGBoost)."""
        return self._feature_types

    @feature_types.setter
    def feature_types(self, types):
        self.categorical = np.zeros(self.num_col(), bool)
        if types is not None:
            types = [str(t) for t in types]
            if len(types) != self.num_col():
                raise ValueError(f"feature_types has {len(types)} types but the data has "
                                 f"{self.num_col()} columns")
            bad = [t for t in types if t != "c" and t not in _NUMERIC_TYPES]
            if bad:
                raise ValueError(f"unknown feature_types {sorted(set(bad))}: use 'c' for a "
                                 f"categorical feature, 'q' for a numeric one")
            self.categorical = np.array([t == "c" for t in types])
            types = ["c" if t == "c" else "q" for t in types]
            columns = self.data.tocsc() if sp.issparse(self.data) else self.data
            for k in np.flatnonzero(self.categorical):
                values = columns[:, [k]].data if sp.issparse(columns) else columns[:, k]
                check_codes(values[~np.isnan(values)], k)
        self._feature_types = types

    def set_label(self, label):
        if label is not None and _is_series(label):
            label = label.to_numpy()
        self._label = _vector(label, self.num_row(), "label")

    def set_weight(self, weight):
        w = _vector(weight, self.num_row(), "weight")
        if w is not None and np.any(w < 0):
            raise ValueError("weight must be non-negative")
        self._weight = w

    def set_base_margin(self, margin):
        self._base_margin = _vector(margin, self.num_row(), "base_margin", allow_2d_width=True)

    def get_label(self):
        """The labels (float32 values, as XGBoost returns them); empty when none were given."""
        if self._label is None:
            return np.zeros(0, dtype=np.float32)
        return self._label.astype(np.float32)

    def get_weight(self):
        """The weights; empty when none were given (as XGBoost)."""
        if self._weight is None:
            return np.zeros(0, dtype=np.float32)
        return self._weight.astype(np.float32)

    def get_base_margin(self):
        if self._base_margin is None:
            return np.zeros(0, dtype=np.float32)
        return self._base_margin.astype(np.float32)

    def num_nonmissing(self):
        """How many entries are present (not missing)."""
        if sp.issparse(self.data):
            return int(self.data.nnz)
        return int(np.count_nonzero(~np.isnan(self.data)))

    def slice(self, rindex):
        """A DMatrix of the rows ``rindex`` (indices), with their labels, weights and margins."""
        rows = np.asarray(rindex, dtype=np.int64)
        out = DMatrix.__new__(DMatrix)
        out.data = self.data[rows]
        out._binned = None
        out._feature_names = self._feature_names
        out._feature_types = self._feature_types
        out.categorical = self.categorical
        out._label = None if self._label is None else self._label[rows]
        out._weight = None if self._weight is None else self._weight[rows]
        out._base_margin = None if self._base_margin is None else self._base_margin[rows]
        return out

    @property
    def has_weight(self):
        return self._weight is not None

    # -- internal --------------------------------------------------------------------
    @property
    def label(self):
        """The labels as float64 (None when missing)."""
        return self._label

    @property
    def weight(self):
        """The weights as float64 (None when missing)."""
        return self._weight

    @property
    def base_margin(self):
        return self._base_margin

    def binned(self, n_threads=1):
        """The tree grower's view of X, built once (``apsplit.newton.NewtonData``; its
        columns sorted on ``n_threads`` threads)."""
        if self._binned is None:
            self._binned = NewtonData(self.data, categorical=self.categorical,
                                      n_threads=n_threads)
        return self._binned

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_binned"] = None  # rebuilt on demand
        return state

    def __repr__(self):
        kind = "sparse" if sp.issparse(self.data) else "dense"
        return f"DMatrix({self.num_row()} x {self.num_col()}, {kind})"


def _is_series(a):
    return type(a).__name__ == "Series" and hasattr(a, "to_numpy")


def _is_xgboost_dmatrix(X):
    cls = type(X)
    return cls.__module__.startswith("xgboost") and hasattr(X, "get_data") and \
        hasattr(X, "get_label")


def as_dmatrix(data, what="data"):
    """A DMatrix for data: itself, a converted xgboost.DMatrix, or one made from an array."""
    if isinstance(data, DMatrix):
        return data
    if _is_xgboost_dmatrix(data):
        try:
            return DMatrix(data)
        except AttributeError as exc:
            raise TypeError(f"cannot read this xgboost.DMatrix's data ({exc}); build an "
                            f"apsplit.adapters.DMatrix from the arrays instead") from None
    if isinstance(data, numbers.Number) or data is None:
        raise TypeError(f"{what} must be a DMatrix or an array, got {data!r}")
    return DMatrix(data)
