"""apsplit.optional: the extras that install the optional libraries, and every module
importable without them."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from apsplit.optional import EXTRAS, install_command, installed, require

ROOT = Path(__file__).resolve().parents[1]
# the distribution each optional module comes from, where the name differs
DISTRIBUTIONS = {"xgboost": ("xgboost-cpu", "xgboost")}


def _requirement_names(extra):
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    return {req.split(">")[0].split("=")[0].split("[")[0].strip() for req in extras[extra]}


@pytest.mark.parametrize("module", sorted(EXTRAS))
def test_each_extra_is_declared_and_installs_its_module(module):
    names = _requirement_names(EXTRAS[module])
    assert set(DISTRIBUTIONS.get(module, (module,))) & names, (module, names)


@pytest.mark.parametrize("module", ["xgboost", "lightgbm", "pandas", "matplotlib.figure",
                                    "tqdm.auto"])
def test_a_missing_module_names_its_extra(monkeypatch, module):
    monkeypatch.setitem(sys.modules, module, None)  # import now raises ImportError
    extra = EXTRAS[module.split(".")[0]]
    assert installed(module) is None
    assert install_command(module) == f'pip install "apsplit[{extra}]"'
    with pytest.raises(ImportError) as info:
        require(module, "this test")
    message = str(info.value)
    assert message.startswith(f"this test needs {module.split('.')[0]}, which is not installed")
    assert f'pip install "apsplit[{extra}]"' in message and f'pip install ".[{extra}]"' in message


def test_an_installed_module_is_returned():
    assert require("numpy", "this test").__name__ == "numpy"
    assert installed("numpy").__name__ == "numpy"


_BLOCKED = """
import importlib, pathlib, sys
BLOCKED = {"xgboost", "lightgbm", "pandas", "matplotlib", "tqdm"}
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"blocked: {name}")
sys.meta_path.insert(0, Block())
def modules(folder, package):
    for path in sorted(pathlib.Path(folder).rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        yield ".".join((package,) + parts[:-1] + (() if parts[-1] == "__init__" else parts[-1:]))
names = [*modules("apsplit", "apsplit"), *modules("adapters", "apsplit.adapters"),
         *modules("benchmarks", "benchmarks")]
for name in names:
    importlib.import_module(name)
from apsplit.adapters import DMatrix, train
import numpy as np
X = np.arange(40.0).reshape(20, 2)
bst = train({"objective": "binary:logistic", "max_depth": 1}, DMatrix(X, label=X[:, 0] > 9), 1)
for export in (bst.to_xgboost, bst.to_lightgbm):
    try:
        export()
    except ImportError as exc:
        print(exc)
print(len(names), "modules")
"""


def test_every_module_imports_without_the_optional_libraries():
    """A fresh interpreter where xgboost, lightgbm, pandas, matplotlib and tqdm cannot be
    imported (installed or not): every module of apsplit and the benchmarks imports, and
    an export says which extra to install."""
    done = subprocess.run([sys.executable, "-c", _BLOCKED], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("exporting to XGBoost needs xgboost") \
        and 'pip install "apsplit[xgboost]"' in lines[0]
    assert lines[1].startswith("exporting to LightGBM needs lightgbm") \
        and 'pip install "apsplit[lightgbm]"' in lines[1]
    assert int(lines[2].split()[0]) > 50
