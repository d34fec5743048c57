"""Servers under load: readiness, client phases and their metrics, stop (docs/servers.md)."""
