"""Every relative path of a spec means the spec's folder, wherever jvmlab is started from
(issue 32 item 2): a [jvms] path and a [load] java_home too, not only classpath, jar and cwd."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import run_jvmlab

pytestmark = pytest.mark.jvm


def _folder(tmp_path: Path, jdk17_home: Path, text: str) -> Path:
    app = tmp_path / "app"
    (app / "jdks").mkdir(parents=True)
    (app / "jdks" / "17").symlink_to(jdk17_home)
    (app / "spec.toml").write_text(text)
    (tmp_path / "elsewhere").mkdir()
    return app


def test_a_relative_jdk_path_means_the_specs_folder(tmp_path: Path, jdk17_home: Path) -> None:
    app = _folder(tmp_path, jdk17_home, '[workload]\nbuiltin = "hello"\n[jvms]\nj = "jdks/17"\n')
    proc = run_jvmlab("check", str(app / "spec.toml"), cwd=tmp_path / "elsewhere")
    assert proc.returncode == 0, proc.stderr
    assert "jdks/17/bin/java" in proc.stdout or str(jdk17_home) in proc.stdout


def test_a_relative_client_java_home_means_the_specs_folder(tmp_path: Path, jdk17_home: Path) -> None:
    app = _folder(tmp_path, jdk17_home, f'''
[workload]
builtin = "httpserver"
[jvms]
j = "{jdk17_home}"
[server]
[load]
java_home = "jdks/17"
[[load.phases]]
name = "measure"
count = 10
''')
    proc = run_jvmlab("check", str(app / "spec.toml"), cwd=tmp_path / "elsewhere")
    assert proc.returncode == 0, proc.stderr
    assert "clients found" in proc.stdout
