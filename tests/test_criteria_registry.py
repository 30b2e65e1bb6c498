"""A user's own split criterion (apsplit.register_criterion, apsplit/criteria.py).

- The README's example runs as written (its code block is executed here), and its
  criterion grows the brute-force tree of tests/newton_oracle.py with the same score
  in plain Python (the jitted functions' ``py_func``) on random small nodes with
  NaN, zero hessians, min_child_weight, alpha, gamma, sparse input.  The draws are
  test_newton's: dyadic gradients and hessians, so that both sides' sums are exact
  and the same float operations give the same scores, hence the same trees.
- Newton's score with lambda + 1 registered as a user's criterion
  (tests/user_criterion.py) grows the built-in trees of lambda + 1, array for
  array, alone and in ``train``; a criterion registered without a weight gets
  Newton's.
- Registration refuses, with a clear error, what the kernel could not run.
- ``cache=True`` keeps a criterion's growers on disk, under a name that changes
  with its code.
"""

import importlib.util
import itertools
import re
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import given, settings

import apsplit
import newton_oracle as oracle
from apsplit import criteria
from apsplit.adapters import DMatrix, train
from apsplit.experiments.loaders import load_bundled
from apsplit.kernels.newton_split import newton_score, newton_weight
from apsplit.newton import NewtonData, NewtonParams, NewtonTree, grow_newton_tree
from strategies import scaled
from test_newton import all_features, all_rows, as_input, assert_same_tree, params, problems
import user_criterion

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_criterion_code():
    """The README's code block that registers a criterion."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    found = [b for b in blocks if "register_criterion(" in b]
    assert len(found) == 1, "the README has one example of register_criterion"
    return found[0]


@pytest.fixture(scope="module")
def readme():
    """The README's example, executed on higgs7k's training rows; its namespace."""
    X, y, _ = load_bundled("higgs7k")
    namespace = {"X": X, "y": y.astype(float)}
    exec(compile(readme_criterion_code(), "README.md", "exec"), namespace)
    return namespace


@pytest.fixture
def name():
    """A fresh criterion name, unregistered after the test."""
    fresh = f"test_registry_{next(_NAMES)}"
    yield fresh
    criteria._REGISTRY.pop(fresh, None)


_NAMES = itertools.count()


def assert_same_arrays(a, b):
    for field in NewtonTree._ARRAYS:
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)


# ------------------------------------------------------------------- the README's example

def test_readme_example_trains(readme):
    bst = readme["bst"]
    assert {"newton", "significant"} <= set(apsplit.available_criteria())
    assert bst.num_boosted_rounds() == 200
    X, y = readme["X"], readme["y"]
    p = bst.predict(X)
    assert np.all((p > 0) & (p < 1))
    # it learns: the training log loss drops well below the constant model's
    base = -np.mean(y * np.log(y.mean()) + (1 - y) * np.log(1 - y.mean()))
    loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    assert loss < 0.85 * base
    # the score is Newton's of the gradient sum beyond Z sqrt(H) standard errors
    score, weight = readme["significant_score"], readme["significant_weight"]
    kp = NewtonParams().kernel_params(10)
    assert score(5.0, 4.0, kp) == (5.0 - 2.0) ** 2 / 5.0
    assert weight(-5.0, 4.0, kp) == 3.0 / 5.0
    assert score(1.5, 4.0, kp) == 0.0 and weight(1.5, 4.0, kp) == 0.0


@settings(max_examples=scaled(0.5))
@given(problems(max_rows=24, max_features=3), params())
def test_user_criterion_tree_equals_the_brute_force_tree(readme, problem, p):
    X, g, h, rows, features, fmt = problem
    tree = grow_newton_tree(NewtonData(as_input(X, fmt)), g, h, p, rows=rows, features=features,
                            criterion="significant")
    score = readme["significant_score"].py_func
    weight = readme["significant_weight"].py_func
    ref = oracle.grow(X, g, h, all_rows(rows, X.shape[0]), all_features(features, X.shape[1]), p,
                      score=score, weight=weight)
    assert_same_tree(tree, 0, ref, X, p)


# ------------------------------------------------------ Newton's score with lambda + 1

def plus_one(p):
    return NewtonParams(**{**vars(p), "reg_lambda": p.reg_lambda + 1.0})


@settings(max_examples=scaled(0.3))
@given(problems(max_rows=30, max_features=4), params())
def test_a_users_newton_with_lambda_plus_one_grows_the_built_in_tree_of_it(problem, p):
    X, g, h, rows, features, fmt = problem
    data = NewtonData(as_input(X, fmt))
    built_in = grow_newton_tree(data, g, h, plus_one(p), rows=rows, features=features)
    mine = grow_newton_tree(data, g, h, p, rows=rows, features=features,
                            criterion=user_criterion.registered())
    assert_same_arrays(mine, built_in)


def test_a_users_newton_with_lambda_plus_one_trains_the_built_in_model():
    X, y, _ = load_bundled("satimage")
    X, y = X[:1500], (y[:1500] == 2).astype(float)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    dtrain = DMatrix(X, label=y)
    params = {"objective": "binary:logistic", "max_depth": 4, "alpha": 0.5,
              "max_delta_step": 0.7, "lambda": 0.5}
    ref = train({**params, "lambda": 1.5}, dtrain, 10)
    mine = train({**params, "criterion": user_criterion.registered()}, dtrain, 10)
    for a, b in zip(mine.trees, ref.trees):
        assert_same_arrays(a, b)
    np.testing.assert_array_equal(mine.predict(dtrain, output_margin=True),
                                  ref.predict(dtrain, output_margin=True))


def test_the_default_weight_is_newtons(name):
    assert apsplit.register_criterion(name, newton_score).weight is newton_weight


# ------------------------------------------------------------------------ the registry

@numba.njit
def _constant(G, H, params):
    return 0.0


def test_register_returns_the_criterion_and_lists_it(name):
    c = apsplit.register_criterion(name, _constant, _constant)
    assert c.name == name and c.score is _constant and c.weight is _constant
    assert name in apsplit.available_criteria()
    assert apsplit.available_criteria() == sorted(apsplit.available_criteria())
    assert criteria.get_criterion(name) is c


def test_not_jitted_is_a_type_error(name):
    def plain(G, H, params):
        return 0.0

    with pytest.raises(TypeError, match=r"score must be a numba-jitted .*decorate plain with "
                                        r"@numba.njit"):
        apsplit.register_criterion(name, plain)
    with pytest.raises(TypeError, match=r"weight must be a numba-jitted .*decorate plain"):
        apsplit.register_criterion(name, _constant, plain)
    with pytest.raises(TypeError, match="non-empty string"):
        apsplit.register_criterion("", _constant)
    assert name not in apsplit.available_criteria()


def test_a_registered_name_needs_overwrite(name):
    for overwrite in (False, True):
        with pytest.raises(ValueError, match="'newton' is the built-in criterion .*cannot be "
                                             "replaced"):
            apsplit.register_criterion("newton", _constant, overwrite=overwrite)
    assert criteria.get_criterion("newton").score is newton_score
    apsplit.register_criterion(name, _constant)
    with pytest.raises(ValueError, match=f"'{name}' is already registered.*overwrite=True"):
        apsplit.register_criterion(name, newton_score)

    @numba.njit
    def other(G, H, params):
        return 1.0

    apsplit.register_criterion(name, other, overwrite=True)
    replaced = criteria.get_criterion(name)
    assert replaced.score is other and replaced._grower is None  # compiled afresh when used


def test_a_score_that_does_not_compile_names_the_criterion(name):
    @numba.njit
    def typo(G, H, params):
        return G * G / (H + params.lamda)

    with pytest.raises(ValueError) as info:
        apsplit.register_criterion(name, typo)
    message = str(info.value)
    assert f"criterion {name!r}: score(G, H, params) fails" in message
    assert "TypingError: Unknown attribute 'lamda'" in message
    # numba's first informative line, not its pipeline header or traceback
    assert "Failed in nopython mode" not in message and "During:" not in message
    assert "\n" not in message
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert name not in apsplit.available_criteria()


@pytest.mark.parametrize("body, match", [
    ("return 1", r" returned 1 \(int\).*must return a float"),
    ("return G > H", r" returned False \(bool\).*must return a float"),
    ("return (G, H)", r" returned \(1.0, 2.0\) \(tuple\).*must return a float"),
    ("return np.array([G])", r" returned .*\(ndarray\).*must return a float"),
    ("return G / (H + params.reg_lambda)", r"\(G, H, params\) fails at G=0.5, H=0.0, "
                                           r"reg_lambda=0.0 \(ZeroDivisionError: division by "
                                           r"zero\)"),
    ("return math.log(H) if H > 0 else -math.inf", r" returned -inf at G=0.0, H=0.0.*finite"),
])
def test_a_score_that_is_not_a_finite_float_is_refused(name, body, match):
    namespace = {"np": np, "math": __import__("math")}
    exec(f"def bad(G, H, params):\n    {body}\n", namespace)
    bad = numba.njit(namespace["bad"])
    with pytest.raises(ValueError, match=f"criterion {name!r}: score" + match):
        apsplit.register_criterion(name, bad)
    with pytest.raises(ValueError, match=f"criterion {name!r}: weight" + match):
        apsplit.register_criterion(name, _constant, bad)


def test_wrong_arity_is_refused(name):
    @numba.njit
    def two(G, H):
        return 0.0

    with pytest.raises(ValueError, match=r"score\(G, H, params\) fails.*TypeError: too many "
                                         r"arguments"):
        apsplit.register_criterion(name, two)


# ----------------------------------------------------------- criterion names and methods

def test_unknown_criterion_lists_the_available_ones():
    X = np.arange(12.0).reshape(6, 2)
    g, h = np.linspace(-1, 1, 6), np.ones(6)
    with pytest.raises(ValueError, match=r"unknown criterion 'gini'; available: \[.*'newton'.*\]"
                                         r".*register_criterion"):
        grow_newton_tree(NewtonData(X), g, h, NewtonParams(), criterion="gini")
    with pytest.raises(TypeError, match="criterion must be a registered name"):
        grow_newton_tree(NewtonData(X), g, h, NewtonParams(), criterion=newton_score)
    with pytest.raises(ValueError, match=r"unknown criterion 'gini'; available: \[.*'newton'"):
        train({"objective": "reg:squarederror", "criterion": "gini"}, DMatrix(X, label=g), 1)


@pytest.mark.parametrize("method", ["quick", "adaptive"])
def test_quick_and_adaptive_need_bounds_a_user_criterion_lacks(readme, method):
    X = np.arange(12.0).reshape(6, 2)
    g, h = np.linspace(-1, 1, 6), np.ones(6)
    needs_bounds = (rf"method='{method}' cannot use the criterion 'significant': quick and "
                    r"adaptive prune with bounds on the criterion; register it with bounds= "
                    r"\(apsplit.register_criterion\) or use method='exhaustive'")
    with pytest.raises(ValueError, match=needs_bounds):
        grow_newton_tree(NewtonData(X), g, h, NewtonParams(), method=method,
                         criterion="significant")
    with pytest.raises(ValueError, match=needs_bounds):
        train({"objective": "reg:squarederror", "criterion": "significant", "method": method},
              DMatrix(X, label=g), 1)


# --------------------------------------------------------- the benchmark of the criterion

def test_the_benchmark_measures_the_readmes_criterion(readme, capsys):
    from apsplit.experiments import criterion as bench

    kp = NewtonParams(reg_lambda=0.5).kernel_params(10)
    for G, H in itertools.product([-7.5, -1.0, 0.0, 0.3, 12.0], [0.0, 0.25, 1.0, 9.0, 400.0]):
        assert bench.significant_score(G, H, kp) == readme["significant_score"](G, H, kp)
        assert bench.significant_weight(G, H, kp) == readme["significant_weight"](G, H, kp)
    bench.main(["--datasets", "higgs7k", "--rounds", "3", "--depth", "2"])
    out = capsys.readouterr().out
    assert "log loss @3" in out and "newton, alpha 10" in out and "significant (Z 1)" in out


def test_the_scikit_learn_estimators_take_a_criterion():
    from apsplit.adapters.sklearn import APGradientBoostingClassifier

    X, y, _ = load_bundled("satimage")
    X, y = X[:600], (y[:600] == 1)
    ref = APGradientBoostingClassifier(n_estimators=5, max_depth=3, reg_lambda=2.0).fit(X, y)
    mine = APGradientBoostingClassifier(n_estimators=5, max_depth=3,
                                        criterion=user_criterion.registered()).fit(X, y)
    np.testing.assert_array_equal(mine.predict_proba(X), ref.predict_proba(X))
    with pytest.raises(ValueError, match="unknown criterion 'nope'"):
        APGradientBoostingClassifier(n_estimators=1, criterion="nope").fit(X, y)


# ------------------------------------------------------------------------- cache=True
_NEW_PROCESS = """
import sys
sys.path.insert(0, {tests!r})
import numpy as np
from apsplit import criteria
from apsplit.newton import NewtonData, NewtonParams, grow_newton_tree
import user_criterion
criterion = criteria.get_criterion(user_criterion.registered())
x = np.arange(40, dtype=float)[:, None]
tree = grow_newton_tree(NewtonData(x), np.sin(x[:, 0]), np.ones(40), NewtonParams(max_depth=2),
                        criterion=criterion.name)
stats = criterion.grower().stats
print(len(stats.cache_hits), len(stats.cache_misses), repr(tree.base_weight.tolist()))
"""


def test_a_cached_criterion_is_loaded_not_compiled_in_a_new_process():
    # the tests' criterion is registered with cache=True: once grown here, its grower is on
    # disk, and a new process loads it (a cache hit, no compile) and grows the same tree
    criterion = criteria.get_criterion(user_criterion.registered())
    assert criterion.cache
    x = np.arange(40, dtype=float)[:, None]
    tree = grow_newton_tree(NewtonData(x), np.sin(x[:, 0]), np.ones(40),
                            NewtonParams(max_depth=2), criterion=criterion.name)
    script = _NEW_PROCESS.format(tests=str(Path(__file__).parent))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split(maxsplit=2)
    assert out[:2] == ["1", "0"]
    assert out[2].strip() == repr(tree.base_weight.tolist())


def _module(tmp_path, name, lam):
    """A criterion's module file ``name``.py whose score divides by H + ``lam``, imported."""
    path = tmp_path / f"{name}.py"
    path.write_text("import numba\n\n\n@numba.njit\ndef score(G, H, params):\n"
                    f"    return G * G / (H + {lam})\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_cached_criterions_name_changes_with_its_code(tmp_path):
    first = criteria.source_tag([_module(tmp_path, "crit_a", 1.0).score])
    assert criteria.source_tag([_module(tmp_path, "crit_a", 1.0).score]) == first
    assert criteria.source_tag([_module(tmp_path, "crit_a", 2.0).score]) != first  # edited
    assert criteria.source_tag([_module(tmp_path, "crit_b", 1.0).score]) != first
    assert criteria.source_tag([user_criterion.score]) != criteria.source_tag(
        [user_criterion.weight])  # two functions of one file


def test_cache_refuses_what_a_file_cannot_name(name):
    lam = 2.0

    @numba.njit
    def closure(G, H, params):
        return G * G / (H + lam)

    with pytest.raises(ValueError, match="cache=True needs criterion functions defined at the "
                                         "top level of a file; .*closure is a closure"):
        apsplit.register_criterion(name, closure, cache=True)
    namespace = {}
    exec("import numba\n@numba.njit\ndef typed_in(G, H, params):\n    return 0.0\n", namespace)
    with pytest.raises(ValueError, match="typed_in is not in a file"):
        apsplit.register_criterion(name, namespace["typed_in"], cache=True)
    with pytest.raises(TypeError, match="cache must be True or False"):
        apsplit.register_criterion(name, _constant, cache=1)
    assert name not in apsplit.available_criteria()
    assert not apsplit.register_criterion(name, closure).cache  # uncached, a closure is fine
