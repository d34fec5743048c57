"""Client commands run in the spec's folder (or their phase's ``cwd``), wherever jvmlab is
started from: a client with relative paths works from another folder (issue 32), on the real
built-in server. The server's own hooks run around each server invocation."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cli_runner import run_jvmlab

pytestmark = pytest.mark.jvm

JDK17 = "/usr/lib/jvm/java-17-openjdk-amd64"
CLIENT = "#!/bin/sh\n# relative paths: only right when run in its own folder\ncat data/rate.txt\n"


def _client(folder: Path, rate: int) -> None:
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "rate.txt").write_text(f"rate {rate}\n")
    script = folder / "client.sh"
    script.write_text(CLIENT)
    script.chmod(0o755)


def _spec(phase_cwd: str) -> str:
    return f"""
[workload]
builtin = "httpserver"
jvm_args = "-Xmx128m -XX:TieredStopAtLevel=1"
[jvms]
jdk17 = "{JDK17}"
[run]
invocations = 1
warmup = 0
[server]
stop_grace = "2s"
ready_timeout = "20s"
before_each = ["./prep.sh", "{{invocation_dir}}"]
[load]
parser = "regex"
regex = "rate (?P<req_per_s>[0-9]+)"
[[load.phases]]
name = "measure"
count = 1
command = ["./client.sh"]
{phase_cwd}
"""


@pytest.mark.parametrize("phase_cwd, folder, rate", [("", ".", 111), ('cwd = "tools"', "tools", 222)])
def test_a_relative_client_runs_from_another_folder(tmp_path: Path, phase_cwd: str, folder: str, rate: int) -> None:
    app = tmp_path / "app"
    _client(app / folder, rate)
    prep = app / "prep.sh"
    prep.write_text('#!/bin/sh\necho prepared > "$1/prepared.txt"\n')
    prep.chmod(0o755)
    (app / "spec.toml").write_text(_spec(phase_cwd))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    check = run_jvmlab("check", str(app / "spec.toml"), cwd=elsewhere)
    assert check.returncode == 0, check.stderr
    assert "hook before_each (server): " in check.stdout
    proc = run_jvmlab("run", str(app / "spec.toml"), "--store", str(tmp_path / "lab.db"), "--quiet",
                      cwd=elsewhere, timeout=240)
    assert proc.returncode == 0, proc.stderr
    with sqlite3.connect(tmp_path / "lab.db") as db:
        rows = db.execute("select i.status, i.reason, i.artifacts_dir, m.value from invocation i left join metric m "
                          "on m.invocation_id = i.id and m.name = 'load.req_per_s'").fetchall()
    assert len(rows) == 1
    status, reason, artifacts, value = rows[0]
    assert status == "ok", reason
    assert value == rate  # read from data/rate.txt: the client ran in its folder
    assert (Path(artifacts) / "prepared.txt").read_text().strip() == "prepared"


def test_a_missing_client_folder_is_one_line(tmp_path: Path) -> None:
    app = tmp_path / "app"
    _client(app, 1)
    (app / "prep.sh").write_text("#!/bin/sh\n")
    (app / "prep.sh").chmod(0o755)
    (app / "spec.toml").write_text(_spec('cwd = "nowhere"'))
    proc = run_jvmlab("check", str(app / "spec.toml"), cwd=tmp_path)
    assert proc.returncode == 2
    assert "[load] phase 'measure' cwd nowhere is not a folder" in proc.stderr
