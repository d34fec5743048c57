"""Loopback ports: a free one per invocation, whether one is taken, and who still listens."""

from __future__ import annotations

import socket
from pathlib import Path

LOOPBACK = "127.0.0.1"
_LISTEN = "0A"  # TCP state LISTEN in /proc/net/tcp


def free_port() -> int:
    """A port the kernel says is free on 127.0.0.1 now (bound then released: a tiny race
    remains, which a server that cannot bind reports as its own failure)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def port_taken(port: int) -> bool:
    """True when something already accepts or holds ``port`` on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return True
    return False


def accepts(port: int, timeout_s: float = 0.5) -> bool:
    """One TCP connect attempt to 127.0.0.1:port."""
    try:
        with socket.create_connection((LOOPBACK, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def listening_ports() -> set[int]:
    """Ports in LISTEN state on this machine (IPv4 and IPv6), read from /proc/net/tcp*."""
    ports: set[int] = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 3 and fields[3] == _LISTEN:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports
