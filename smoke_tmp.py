import numpy as np, pandas as pd, xgboost as xgb
from apsplit.adapters import DMatrix, train
rng = np.random.default_rng(0)
n = 3000
cat = pd.Categorical(rng.choice(list("abcdefghij"), n))
num = rng.normal(size=n)
y = (np.isin(np.asarray(cat), list("aceh")) * 1.0 + 0.3 * num + rng.normal(size=n) * 0.3 > 0.5).astype(float)
df = pd.DataFrame({"c": cat, "x": num})
df.loc[::17, "c"] = np.nan
d = DMatrix(df, label=y)
print(d.feature_types, d.feature_names, d.categorical)
bst = train({"objective": "binary:logistic", "max_depth": 3}, d, 10)
p = bst.predict(d)
print(bst.trees[0].feature, bst.trees[0].categories_right[0])
print(((p > 0.5) == y).mean())
x = bst.to_xgboost()
dx = xgb.DMatrix(df, enable_categorical=True)
print(np.abs(x.predict(dx, output_margin=True) - bst.predict(d, output_margin=True)).max())
l = bst.to_lightgbm()
print(np.abs(l.predict(d.data, raw_score=True) - bst.predict(d, output_margin=True)).max())
d2 = DMatrix(dx, label=y)
print(d2.feature_types, np.abs(bst.predict(d2) - p).max())
from apsplit.adapters.sklearn import APGradientBoostingClassifier
m = APGradientBoostingClassifier(n_estimators=10, max_depth=3).fit(df, y)
print(m.is_categorical_, (m.predict(df) == y).mean())
df2 = df.copy(); df2["c"] = df2["c"].cat.reorder_categories(list("jihgfedcba"))
print(np.abs(m.predict_proba(df2) - m.predict_proba(df)).max())
m2 = APGradientBoostingClassifier(n_estimators=10, max_depth=3, categorical_features=[0]).fit(np.column_stack([df["c"].cat.codes.replace(-1, np.nan), num]), y)
print(m2.is_categorical_)
