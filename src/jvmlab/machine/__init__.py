"""The machine: its fingerprint, its settings (doctor), and environment factors."""
