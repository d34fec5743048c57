"""Loopback ports: a free one per invocation, whether one is taken, whether one accepts."""

from __future__ import annotations

import socket

LOOPBACK = "127.0.0.1"


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

