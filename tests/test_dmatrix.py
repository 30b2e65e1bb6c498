"""DMatrix: dense, NaN, sparse, pandas, xgboost.DMatrix conversion, float32 values, the
meta-data getters, and clear errors for bad input."""

import pickle
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from apsplit.adapters import DMatrix

X = np.array([[1.0, np.nan, 0.1], [2.0, 3.0, 0.0], [np.nan, 1.0, 7.0]])


def test_dense_with_nan_and_float32_values():
    d = DMatrix(X, label=[0, 1, 0])
    assert d.num_row() == 3 and d.num_col() == 3
    assert np.isnan(d.data[0, 1]) and d.data[0, 2] == np.float32(0.1)  # float32 value, as XGBoost
    assert d.get_label().dtype == np.float32 and d.get_weight().size == 0
    assert not d.has_weight and d.feature_names is None


def test_missing_value_marker():
    d = DMatrix(np.array([[1.0, -999.0], [2.0, 3.0]]), missing=-999.0)
    assert np.isnan(d.data[0, 1])


def test_sparse_keeps_absent_entries_missing():
    S = sp.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    S.data[0] = np.nan  # an explicit NaN is missing too: dropped
    d = DMatrix(S)
    assert sp.issparse(d.data) and d.data.nnz == 1
    assert DMatrix(sp.csc_matrix(np.eye(3))).data.format == "csr"


def test_pandas_names_and_categoricals():
    import pandas as pd
    df = pd.DataFrame({"a": [1.0, None, 3.0], "b": [1, 2, 3]})
    d = DMatrix(df, label=pd.Series([0, 1, 1]))
    assert d.feature_names == ["a", "b"] and np.isnan(d.data[1, 0])
    assert d.feature_types == ["q", "q"] and not d.categorical.any()
    assert DMatrix(X).feature_types is None
    df["c"] = pd.Categorical(["x", None, "w"], categories=["x", "w"])
    d = DMatrix(df)
    assert d.feature_types == ["q", "q", "c"] and list(d.categorical) == [False, False, True]
    np.testing.assert_array_equal(d.data[:, 2], [0.0, np.nan, 1.0])  # codes, -1 missing
    assert list(d.binned().categorical) == [False, False, True]
    with pytest.raises(ValueError, match="column 'c' is categorical and enable_categorical"):
        DMatrix(df, enable_categorical=False)
    with pytest.raises(ValueError, match="column 's' has dtype .*, not numeric"):
        DMatrix(pd.DataFrame({"s": ["u", "v"]}))


def test_feature_types():
    d = DMatrix(np.array([[0.0, 1.5], [3.0, np.nan]]), feature_types=["c", "float"])
    assert d.feature_types == ["c", "q"] and list(d.categorical) == [True, False]
    assert d.slice([1]).feature_types == ["c", "q"] and d.slice([1]).categorical[0]
    S = DMatrix(sp.csr_matrix(np.array([[0.0, 2.0], [1.0, 0.0]])), feature_types=["q", "c"])
    assert list(S.binned().categorical) == [False, True]
    for types, message in [(["c"], "feature_types has 1 types"), (["c", "x"], "unknown"),
                           (["q", "c"], "categorical feature 1 holds the value 1.5")]:
        with pytest.raises(ValueError, match=message):
            DMatrix(np.array([[0.0, 1.5], [3.0, np.nan]]), feature_types=types)
    with pytest.raises(ValueError, match="integer codes"):
        DMatrix(np.array([[-1.0], [2.0]]), feature_types=["c"])


def test_from_xgboost_dmatrix():
    import xgboost as xgb
    dx = xgb.DMatrix(X, label=[0, 1, 0], weight=[1, 2, 3], feature_names=["p", "q", "r"])
    d = DMatrix(dx)
    np.testing.assert_array_equal(np.isnan(d.data), np.isnan(X))
    np.testing.assert_array_equal(np.nan_to_num(d.data), np.nan_to_num(X.astype(np.float32)))
    assert d.get_weight().tolist() == [1, 2, 3] and d.feature_names == ["p", "q", "r"]
    sparse = xgb.DMatrix(sp.random(50, 40, density=0.05, format="csr", random_state=0))
    assert sp.issparse(DMatrix(sparse).data)
    import pandas as pd
    df = pd.DataFrame({"c": pd.Categorical(["b", None, "a"]), "x": [1.0, 2.0, 3.0]})
    d = DMatrix(xgb.DMatrix(df, enable_categorical=True))
    assert d.feature_types == ["c", "q"] and d.feature_names == ["c", "x"]
    np.testing.assert_array_equal(d.data[:, 0], DMatrix(df).data[:, 0])


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="inf"):
        DMatrix(np.array([[np.inf, 1.0]]))
    with pytest.raises(ValueError, match="2-dimensional"):
        DMatrix(np.arange(3.0))
    with pytest.raises(ValueError, match="label has 2 entries but the data has 3 rows"):
        DMatrix(X, label=[0, 1])
    with pytest.raises(ValueError, match="weight must be non-negative"):
        DMatrix(X, weight=[1, -1, 1])
    with pytest.raises(ValueError, match="label contains NaN"):
        DMatrix(X, label=[0, np.nan, 1])
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        DMatrix(X, feature_names=["a", "b"])
    with pytest.raises(TypeError, match="numeric"):
        DMatrix([["a", "b"]])
    with pytest.raises(ValueError, match="float32's range"):
        DMatrix(np.array([[1e300]]))


def test_setters_and_pickle():
    d = DMatrix(X)
    d.set_label([1, 0, 1])
    d.set_weight([1, 1, 2])
    d.set_base_margin([0.1, 0.2, 0.3])
    assert d.get_base_margin().tolist() == pytest.approx([0.1, 0.2, 0.3])
    e = pickle.loads(pickle.dumps(d))
    assert e.get_label().tolist() == [1, 0, 1] and e._binned is None


def test_slice_and_counts():
    d = DMatrix(X, label=[0, 1, 2], weight=[1, 2, 3])
    assert d.num_nonmissing() == 7
    part = d.slice([2, 0])
    assert part.num_row() == 2 and part.get_label().tolist() == [2, 0]
    assert part.get_weight().tolist() == [3, 1] and np.isnan(part.data[0, 0])
    assert DMatrix(sp.csr_matrix(np.eye(3))).slice([1]).num_nonmissing() == 1


def test_a_dataframe_without_pandas_names_the_extra(monkeypatch):
    """Another library's DataFrame (the same type name) with pandas missing: an ImportError
    that says what to install, from DMatrix and from the estimators' dtype check."""
    from apsplit.adapters.sklearn import _dtype_categories

    class DataFrame:  # a stand-in with a DataFrame's type name and attributes
        dtypes = {}
        columns = []
        shape = (0, 0)

    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with pytest.raises(ImportError, match=r'pip install "apsplit\[pandas\]"'):
        DMatrix(DataFrame())
    with pytest.raises(ImportError, match=r'pip install "apsplit\[pandas\]"'):
        _dtype_categories(DataFrame())
