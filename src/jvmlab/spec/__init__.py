"""Experiment specs: TOML in, validated typed records out."""
