"""The import layers: no package imports one above it, and no modules import each other in a loop.

The contracts are in ``pyproject.toml`` (``[tool.importlinter]``); these tests run them with
import-linter on the real import graph of ``src/jvmlab`` (grimp counts imports made inside
functions and under ``TYPE_CHECKING`` too), and check that they would catch a new upward
import or a new loop.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from copy import deepcopy
from pathlib import Path

import grimp
import pytest
from importlinter.application.use_cases import read_user_options
from importlinter.configuration import configure
from importlinter.contracts.acyclic_siblings import AcyclicSiblingsContract
from importlinter.contracts.layers import LayersContract
from importlinter.domain.contract import Contract

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "jvmlab"
CONTRACT_TYPES: dict[str, type[Contract]] = {"layers": LayersContract, "acyclic_siblings": AcyclicSiblingsContract}


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("jvmlab", cache_dir=None)


@pytest.fixture(scope="module")
def contracts() -> dict[str, Contract]:
    configure()  # import-linter's readers and graph builder, as `lint-imports` sets them
    options = read_user_options(str(ROOT / "pyproject.toml"))
    made = {}
    for contract_options in options.contracts_options:
        cls = CONTRACT_TYPES[contract_options["type"]]
        made[contract_options["id"]] = cls(name=contract_options["name"], session_options=options.session_options,
                                           contract_options=contract_options)
    assert set(made) == {"layers", "acyclic"}
    return made


def _kept(contract: Contract, graph: grimp.ImportGraph) -> tuple[bool, dict]:
    check = contract.check(deepcopy(graph), verbose=False)
    return check.kept, check.metadata


def test_lint_imports_passes_on_the_code_as_it_is() -> None:
    """What a developer runs (`lint-imports`) passes; its output names any broken import."""
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "2 kept, 0 broken" in done.stdout


def test_both_contracts_hold(graph: grimp.ImportGraph, contracts: dict[str, Contract]) -> None:
    for name, contract in contracts.items():
        kept, metadata = _kept(contract, graph)
        assert kept, f"{name}: {metadata}"


def test_a_new_upward_import_breaks_the_layers(graph: grimp.ImportGraph, contracts: dict[str, Contract]) -> None:
    """The store reading the report (the loop issue 13 removed) is refused again."""
    upward = deepcopy(graph)
    upward.add_import(importer="jvmlab.store.sql", imported="jvmlab.report.summary", line_number=1,
                      line_contents="from jvmlab.report.summary import summarize")
    kept, metadata = _kept(contracts["layers"], upward)
    assert not kept
    assert "jvmlab.store.sql" in repr(metadata) and "jvmlab.report.summary" in repr(metadata)
    ground = deepcopy(graph)
    ground.add_import(importer="jvmlab.model.process", imported="jvmlab.execute.session", line_number=1,
                      line_contents="from jvmlab.execute.session import run_experiment")
    assert not _kept(contracts["layers"], ground)[0]


def test_a_new_loop_inside_a_package_breaks_the_acyclic_contract(graph: grimp.ImportGraph,
                                                                  contracts: dict[str, Contract]) -> None:
    """jdk/flags imports jdk/openj9; openj9 importing flags back (as it once did) is a loop."""
    assert graph.direct_import_exists(importer="jvmlab.jdk.flags", imported="jvmlab.jdk.openj9")
    looped = deepcopy(graph)
    looped.add_import(importer="jvmlab.jdk.openj9", imported="jvmlab.jdk.flags", line_number=1,
                      line_contents="from jvmlab.jdk.flags import FlagCheck")
    kept, metadata = _kept(contracts["acyclic"], looped)
    assert not kept and "jvmlab.jdk" in metadata["cycle_breakers_by_package"]


def _imports_inside_functions() -> list[tuple[str, str]]:
    """(importer, imported) for every ``from jvmlab... import`` written inside a function."""
    found = []
    for path in SRC.rglob("*.py"):
        module = ".".join(("jvmlab", *path.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("jvmlab"):
                    found.append((module, node.module or ""))
    return found


def test_imports_inside_functions_are_checked_too(graph: grimp.ImportGraph) -> None:
    """A function-level import cannot dodge the contracts: each one is an edge of the graph."""
    inside = _imports_inside_functions()
    assert inside, "no function-level imports left to check (then this test can go)"
    for importer, imported in inside:
        # `from jvmlab.x import y` may name a module y (the edge goes to jvmlab.x.y) or a name in x.
        assert graph.direct_import_exists(importer=importer, imported=imported) or any(
            target.startswith(imported + ".") for target in graph.find_modules_directly_imported_by(importer)
        ), (importer, imported)
