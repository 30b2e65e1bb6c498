"""The layers: the core imports neither its clients (apsplit.adapters) nor the experiment
harness (apsplit.experiments); the clients do not import the harness; nothing reads outside
the repository."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = sorted(p for p in (ROOT / "apsplit").rglob("*.py") if "experiments" not in p.parts)
CLIENTS = sorted((ROOT / "adapters").rglob("*.py"))


def imported_modules(path, package):
    """Absolute names of the modules that the file at ``path`` (in ``package``) imports."""
    tree = ast.parse(path.read_text())
    parts = package.split(".")
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = parts[: len(parts) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names += [module] + [f"{module}.{alias.name}" for alias in node.names]
    return names


def package_of(path):
    """The package a module file belongs to (adapters/ is installed as apsplit.adapters)."""
    rel = path.relative_to(ROOT).with_suffix("").parts
    rel = ("apsplit", *rel) if rel[0] == "adapters" else rel
    return ".".join(rel[:-1])


@pytest.mark.parametrize("path", CORE + CLIENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_reaches_up_a_layer(path):
    forbidden = ("apsplit.experiments",) if path in CLIENTS else ("apsplit.experiments",
                                                                  "apsplit.adapters")
    bad = [name for name in imported_modules(path, package_of(path))
           if name.startswith(forbidden)]
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_importing_the_core_loads_no_client_or_harness():
    code = ("import sys, apsplit; bad = [m for m in sys.modules if m.startswith("
            "('apsplit.adapters', 'apsplit.experiments'))]; print(bad); sys.exit(bool(bad))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr


def test_no_source_names_a_path_outside_the_repository():
    """Tests and benchmarks use the bundled data (apsplit/data); larger sets come by --data."""
    sources = [p for folder in ("apsplit", "adapters", "benchmarks", "tests")
               for p in (ROOT / folder).rglob("*.py")]
    outside = ("../" + "shared", "shared" + "/data")  # spelt apart: this file is a source too
    bad = [str(p.relative_to(ROOT)) for p in sources if any(o in p.read_text() for o in outside)]
    assert not bad


def test_adapters_resolve_in_a_checkout():
    """From the repository root the checkout's apsplit/ shadows an installed apsplit; its
    apsplit.adapters is then the checkout's adapters/ folder."""
    import apsplit.adapters
    assert Path(apsplit.adapters.__file__).resolve().parent == ROOT / "adapters"
