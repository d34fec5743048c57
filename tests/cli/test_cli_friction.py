"""Small things users expect from a command line (issue 12's friction list)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab import __version__


def test_version(tmp_path: Path) -> None:
    proc = run_jvmlab("--version", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == f"jvmlab {__version__}"


def test_flags_show_no_type_in_help(tmp_path: Path) -> None:
    for command in (["run", "--help"], ["report", "--help"], ["demo", "--help"], ["--help"]):
        proc = run_jvmlab(*command, cwd=tmp_path)
        assert (proc.returncode == 0 and "--json" in proc.stdout) or "--debug" in proc.stdout
        assert "<bool>" not in proc.stdout, command
    assert "<int" in run_jvmlab("run", "--help", cwd=tmp_path).stdout, "options with values keep their type"


def test_comparing_an_experiment_with_itself_is_refused(tmp_path: Path) -> None:
    proc = run_jvmlab("compare", "1", "1", "--store", "lab.db", cwd=tmp_path)
    assert proc.returncode == 2 and "two different experiments" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.jvm
def test_check_counts_in_words(tmp_path: Path, jdk17_home: Path) -> None:
    (tmp_path / "one.toml").write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n'
                                       f'[run]\ninvocations = 1\n')
    proc = run_jvmlab("check", "one.toml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "ok: 1 cell, 1 invocation per cell" in proc.stdout


@pytest.mark.jvm
def test_jdks_shows_the_selector_to_write(tmp_path: Path, jdk17_home: Path) -> None:
    import json

    proc = run_jvmlab("jdks", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    found = {j["home"]: j["selector"] for j in json.loads(proc.stdout)}
    selector = found[str(jdk17_home)]
    (tmp_path / "s.toml").write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{selector}"\n')
    check = run_jvmlab("check", "s.toml", cwd=tmp_path)
    assert check.returncode == 0 and str(jdk17_home) in check.stdout


def test_demo_list_says_where_artifacts_go_and_agrees_with_the_readme(tmp_path: Path) -> None:
    REPO = Path(__file__).resolve().parents[2]

    proc = run_jvmlab("demo", "--list", "--store", "sb.db", cwd=tmp_path)
    assert proc.returncode == 0
    assert f"outputs and logs to {tmp_path / 'sb-artifacts'}/" in proc.stdout
    readme = (REPO / "README.md").read_text()
    assert "`lab.db` -> `lab-artifacts/`" in readme
    [all_line] = [line for line in proc.stdout.splitlines() if line.startswith("all ")]
    [readme_all] = [line for line in readme.splitlines() if line.startswith("| `all` |")]
    listed = all_line.split("(", 1)[1].rstrip(")")
    assert listed in readme_all, (listed, readme_all)
