"""Collectors: add JVM flags, watch the process, turn files and samples into measurements."""
