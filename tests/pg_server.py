"""A real PostgreSQL server for the tests: initdb + pg_ctl into a temporary folder, listening on
127.0.0.1 only, stopped by its pid's pg_ctl at the end. Skips cleanly when neither the server
binaries nor the psycopg driver can be had (``scripts/setup.sh`` installs both on Debian/Ubuntu).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT_S = 60


@dataclass(frozen=True)
class PgServer:
    """A running server; ``url(db)`` names one database on it."""

    port: int
    data_dir: Path

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"


def find_bin(name: str) -> str | None:
    """A PostgreSQL server binary on PATH, else the newest Debian one."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return candidates[-1] if candidates else None


def why_unavailable() -> str | None:
    """None when a server can be started here, else the reason (for pytest.skip)."""
    if find_bin("initdb") is None or find_bin("pg_ctl") is None:
        return "PostgreSQL server binaries (initdb, pg_ctl) not found; scripts/setup.sh installs them"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "the psycopg driver is not installed (pip install 'psycopg[binary]')"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run the server as"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_server_user(argv: list[str]) -> list[str]:
    """initdb refuses to run as root: run the server binaries as 'postgres' then."""
    if os.geteuid() != 0:
        return argv
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--", *argv]


@contextmanager
def running_server() -> Iterator[PgServer]:
    """Start a throw-away server; always stop it (pg_ctl stop -m immediate) and remove its files."""
    root = Path(tempfile.mkdtemp(prefix="jvmlab-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        for path in (root, sock):
            os.chown(path, user.pw_uid, user.pw_gid)
    port = _free_port()
    initdb, pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
    assert initdb and pg_ctl
    try:
        subprocess.run(_as_server_user([initdb, "-D", str(data), "-U", "postgres", "--auth=trust",
                                        "--no-sync", "-E", "UTF8"]),
                       check=True, capture_output=True, timeout=START_TIMEOUT_S)
        options = f"-h 127.0.0.1 -p {port} -k {sock} -c fsync=off -c max_connections=50"
        subprocess.run(_as_server_user([pg_ctl, "-D", str(data), "-o", options, "-l", str(root / "log"),
                                        "-w", "-t", str(START_TIMEOUT_S), "start"]),
                       check=True, capture_output=True, timeout=START_TIMEOUT_S + 10)
        yield PgServer(port, data)
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(_as_server_user([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]),
                           capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


_counter = itertools.count()


def fresh_database(server: PgServer) -> str:
    """CREATE DATABASE with a new name; return its URL (each test gets an empty store)."""
    import psycopg

    name = f"t{os.getpid()}_{next(_counter)}"
    with psycopg.connect(f"host=127.0.0.1 port={server.port} user=postgres dbname=postgres",
                         autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.url(name)
