"""Execution: one fresh JVM process per invocation, behind a small executor interface."""
