"""The architecture of issue 30 as a test: one loop. Only the session (and the importers, which
store what another tool measured) create experiments or record invocations, and one module
hands slots to Dask. Read from the source (AST), so a new copy of the loop fails here."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "jvmlab"
# who may call Store.create_experiment / Store.record_invocation, and why
LOOP = {
    "jvmlab.execute.session": "the session records every slot",
    "jvmlab.execute.experiment": "the session's opening step (create or resume)",
    "jvmlab.importers.store": "imports store what another tool measured",
    "jvmlab.report.synthetic": "a synthetic experiment for the report's demos (an importer of made-up data)",
}
SLOT_TASKS = {"run_order", "run_slot"}  # what a node runs for one slot (cluster/parcel.py, cluster/task.py)


@cache
def _modules() -> dict[str, ast.Module]:
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = ast.parse(path.read_text(), str(path))
    return out


def _calls(tree: ast.Module, names: set[str]) -> set[str]:
    """The method names of ``names`` called as ``something.NAME(...)`` in the module."""
    return {node.func.attr for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names}


def _submits_slots(tree: ast.Module) -> bool:
    """Hands a slot task to Dask: ``client.submit(run_order, ...)`` (or a wrapper calling it)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "submit":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Name) and (first.id in SLOT_TASKS or "run_order" in first.id):
                return True
    return False


def test_only_the_session_and_the_importers_create_experiments_or_record_invocations() -> None:
    offenders = {name: sorted(found) for name, tree in _modules().items()
                 if name not in LOOP and (found := _calls(tree, {"create_experiment", "record_invocation"}))}
    assert not offenders, f"a second loop: {offenders}; run slots through jvmlab.execute.session"


def test_the_check_sees_a_new_copy_of_the_loop() -> None:
    """The check itself can fail: a module recording an invocation by hand is found."""
    tree = ast.parse("def measure(store):\n    store.record_invocation(1, 2, block=0)\n")
    assert _calls(tree, {"create_experiment", "record_invocation"}) == {"record_invocation"}
    assert _submits_slots(ast.parse("client.submit(run_order, order, workers=[n])"))


def test_the_session_module_has_the_loop() -> None:
    modules = _modules()
    assert _calls(modules["jvmlab.execute.session"], {"record_invocation"}) == {"record_invocation"}
    assert _submits_slots(modules["jvmlab.cluster.dispatch"])


def test_one_module_hands_slots_to_dask() -> None:
    dispatchers = sorted(name for name, tree in _modules().items() if _submits_slots(tree))
    assert dispatchers == ["jvmlab.cluster.dispatch"]


def _session_writes(tree: ast.Module) -> set[str]:
    """Fields of a session set from outside: ``session.X = ...``, ``session.X[k] = ...`` (also
    through ``self.session`` or the dispatcher's ``self.ctx``)."""
    def is_session(node: ast.expr) -> bool:
        return ((isinstance(node, ast.Name) and node.id == "session")
                or (isinstance(node, ast.Attribute) and node.attr in ("session", "ctx")))
    found = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else [])
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Attribute) and is_session(target.value):
                found.add(target.attr)
    return found


def test_no_driver_sets_a_field_of_the_session() -> None:
    """A driver plugs in through execute/driver.py (next blocks, cell, folder, judge, observe);
    it never sets the session's fields (issue 42: minheap set five of them, the tuner popped
    results out of one)."""
    offenders = {name: sorted(found) for name, tree in _modules().items()
                 if name != "jvmlab.execute.session" and (found := _session_writes(tree))}
    assert not offenders, f"drivers set session fields: {offenders}; answer through the Driver protocol"
    assert _session_writes(ast.parse("session.judge = f\nself.session.collectors[1] = []\n")) == {
        "judge", "collectors"}, "the check itself can fail"
