"""`--resume` after the spec changed says what changed (issue 45), not only that no experiment
of this spec is stored: the experiment it most likely meant and the differences of its spec."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from jvmlab.errors import UserError
from jvmlab.execute.experiment import find_experiment
from jvmlab.spec.diff import spec_changes
from jvmlab.store import open_store

OLD = '''name = "gc"
[workload]
builtin = "hello"
[jvms]
j = "17"
[factors.gc]
g1 = "-XX:+UseG1GC"
[run]
invocations = 10
'''


def _plan(text: str, path: Path) -> SimpleNamespace:
    """What find_experiment reads of a plan."""
    import tomllib

    return SimpleNamespace(spec_text=text, spec_hash=str(hash(text)), spec_path=path,
                           spec=SimpleNamespace(name=tomllib.loads(text).get("name")))


def test_resume_of_a_changed_spec_names_the_experiment_and_what_differs(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = store.create_experiment(name="gc", spec_text=OLD, spec_hash="old", spec_path=str(tmp_path / "a.toml"),
                                  fingerprint={}, seed=1, command_line="jvmlab run a.toml", jvmlab_version="x",
                                  artifacts_dir=str(tmp_path))
    store.set_status(exp, "interrupted")
    new = OLD.replace("invocations = 10", "invocations = 20")
    new = new.replace('g1 = "-XX:+UseG1GC"', 'g1 = "-XX:+UseG1GC"\nzgc = "-XX:+UseZGC"')
    with pytest.raises(UserError) as err:  # another file (a one-liner's spec is named by its hash)
        find_experiment(_plan(new, tmp_path / "b.toml"), store)
    said = str(err.value)
    assert said.startswith("nothing to resume: no experiment of this spec in the store")
    assert f"experiment {exp} (interrupted, 'gc') was run from a spec that differs: " in said
    assert "[factors.gc] zgc added (\"-XX:+UseZGC\")" in said and "[run] invocations: 10 -> 20" in said
    assert said.endswith("run it without --resume")


def test_spec_changes_in_words() -> None:
    assert spec_changes(OLD, OLD + "# a comment\n") == ["only comments or layout differ"]
    assert spec_changes(OLD, OLD.replace('builtin = "hello"', 'builtin = "busy"')) == [
        '[workload] builtin: "hello" -> "busy"']
    assert spec_changes(OLD, OLD.replace("[run]\ninvocations = 10\n", "")) == ["[run] invocations removed (was 10)"]
    many = OLD + "".join(f"[factors.f{i}]\nx = []\n" for i in range(6))
    assert spec_changes(OLD, many)[-1] == "2 more"
    assert spec_changes("[[", OLD) == ["the spec text differs (not readable as TOML)"]
