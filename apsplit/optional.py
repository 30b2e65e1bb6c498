"""apsplit's optional dependencies: which extra installs each, and one way to import them.

The core needs numpy, numba, scipy and scikit-learn only.  The clients read and write
XGBoost's and LightGBM's models and pandas' DataFrames; the benchmarks draw with
matplotlib and show tqdm's progress bars.  Each comes with an extra of
``pyproject.toml`` (``EXTRAS``), and where one is missing the message names the command
that installs it.
"""

import importlib

EXTRAS = {"xgboost": "xgboost", "lightgbm": "lightgbm", "pandas": "pandas",
          "matplotlib": "bench", "tqdm": "bench"}


def install_command(module):
    """``pip install "apsplit[<extra>]"``: the extra that installs ``module`` (a package
    of ``EXTRAS`` or one of its submodules)."""
    return f'pip install "apsplit[{EXTRAS[module.split(".")[0]]}]"'


def comes_with(module):
    """"it comes with apsplit's '<extra>' extra: pip install ..." (and from a checkout)."""
    extra = EXTRAS[module.split(".")[0]]
    return (f"it comes with apsplit's '{extra}' extra: {install_command(module)} "
            f"(from a checkout: pip install \".[{extra}]\")")


def installed(module):
    """The imported ``module`` (``"tqdm.auto"`` too), or None if it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def require(module, purpose):
    """The imported ``module``, or an ImportError: "<purpose> needs <package>, which is
    not installed; it comes with apsplit's '<extra>' extra: pip install ..."."""
    found = installed(module)
    if found is None:
        raise ImportError(f"{purpose} needs {module.split('.')[0]}, which is not installed; "
                          f"{comes_with(module)}")
    return found
