"""Hostile input: each case gets one clear line, exit code 2, no traceback, nothing stored.

The spec cases live in tests/data/hostile/*.toml, each with a first line `# expect: TEXT`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.cli.main import main

CORPUS = Path(__file__).resolve().parents[1] / "data" / "hostile"
SPECIAL = {"39-not-utf8.toml": "cannot read spec"}


def _expected(path: Path) -> str:
    if path.name in SPECIAL:
        return SPECIAL[path.name]
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name} needs a '# expect:' first line"
    return first.removeprefix("# expect: ")


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def _assert_one_clear_line(code: int, out: str, err: str, expected: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err + out
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("jvmlab: error: ")
    assert expected in lines[0]


CASES = sorted(CORPUS.glob("*.toml"))


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 30


@pytest.mark.parametrize("spec", CASES, ids=[p.stem for p in CASES])
def test_bad_spec_is_one_line_exit_2_and_stores_nothing(spec: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "lab.db"
    code, out, err = _run(["run", str(spec), "--store", str(store), "--quiet"], capsys)
    _assert_one_clear_line(code, out, err, _expected(spec))
    assert not store.exists(), "nothing may be written to the store"
    assert not (tmp_path / "lab-artifacts").exists()


@pytest.mark.parametrize(("args", "expected"), [
    (["run", "{spec}", "--until", "two percent"], "--until 'two percent'"),
    (["run", "{spec}", "--until", "0%"], "between 0% and 100%"),
    (["run", "{spec}", "--budget", "forever"], "--budget"),
    (["run", "{spec}", "--metric", "wal_s"], "unknown metric 'wal_s' (did you mean 'wall_s'?)"),
    (["run", "{spec}", "--no-collect", "gcc"], "unknown collector 'gcc'"),
    (["run", "{spec}", "--store", "{tmp}/no/such/folder/lab.db"], "does not exist"),
    (["run", "{spec}", "--store", "{tmp}"], "is a folder"),
    (["run", "{tmp}/missing.toml"], "no such spec file"),
    (["run", "{tmp}"], "not a regular file (a folder)"),
    (["check", "{tmp}/missing.toml"], "no such spec file"),
    (["run", "{spec}", "--resume", "--store", "{tmp}/fresh.db"], "nothing to resume"),
    (["report", "99", "--store", "{tmp}/empty.db"], "no store at"),
    (["results", "--store", "{tmp}/empty.db"], "no store at"),
    (["demo", "nosuchscenario"], "unknown scenario 'nosuchscenario'"),
    (["results", "--store", "nosuch://x"], "cannot use store nosuch://x"),
    (["results", "--store", "not a url://x"], "cannot use store"),
])
def test_bad_arguments(args: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "ok.toml"
    spec.write_text('[workload]\nbuiltin = "hello"\n[run]\ninvocations = 1\nwarmup = 0\n')
    argv = [a.replace("{spec}", str(spec)).replace("{tmp}", str(tmp_path)) for a in args]
    code, out, err = _run(argv, capsys)
    _assert_one_clear_line(code, out, err, expected)


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    from jvmlab.cli.apps import app
    from jvmlab.cli.main import _register

    _register()
    import typer.main

    group = typer.main.get_command(app)
    names = list(group.commands)
    assert {"jdks", "check", "run", "results", "report", "demo", "gc", "metrics"} <= set(names)
    for name in names:
        command = group.commands[name]
        assert (command.help or "").strip(), f"`jvmlab {name}` has no help text"
        code, out, _ = _run([name, "--help"], capsys)
        assert code == 0 and "Usage" in out


def test_artifacts_that_cannot_be_created_stop_the_run_before_it_starts(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "ok.toml"
    spec.write_text('[workload]\nbuiltin = "hello"\n[run]\ninvocations = 1\nwarmup = 0\n')
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, out, err = _run(["run", str(spec), "--store", str(tmp_path / "lab.db"), "--artifacts",
                           str(blocker / "art")], capsys)
    _assert_one_clear_line(code, out, err, "cannot create the artifacts folder")
    assert not (tmp_path / "lab.db").exists()
