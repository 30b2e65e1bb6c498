"""The benchmark of quick and adaptive Newton trees (apsplit.experiments.newton_pruning), tiny."""

import numpy as np

from apsplit.experiments import newton_pruning


def test_rows_per_method_and_order():
    rows = newton_pruning.run(["higgs7k"], depths=(2,), rounds=2, repeats=1,
                              bound_orders=("hess",))
    assert len(rows) == 8
    assert {(r["method"], r["order"]) for r in rows} == set(newton_pruning._contenders()) - {
        ("exhaustive", None)}
    for r in rows:
        assert r["same"] and 0 < r["assessments"] <= 1 and r["cpu"] > 0
        if r["order"] == "hess":   # the bound is at most what each method assessed
            assert 1 <= r["bound"] <= r["exhaustive_bound"]
        else:
            assert np.isnan(r["bound"])
    text = newton_pruning.format_rows(rows)
    assert "assessments / exh." in text and "/ bound" in text and "adaptive" in text


def test_categorical_data():
    """agaricus folded into categorical columns: quick and adaptive grow the same trees
    (no weight-order bound: it does not take categorical features)."""
    rows = newton_pruning.run(["agaricus-cat"], depths=(2,), rounds=2, repeats=1,
                              orders=("abs_grad_plus_hess",))
    assert [(r["method"], r["same"]) for r in rows] == [("quick", True), ("adaptive", True)]
    assert all(0 < r["assessments"] <= 1 and np.isnan(r["bound"]) for r in rows)
