"""The noise-aware flag tuner (docs/tuning.md): a typed space, Optuna through ask/tell,
racing in paired blocks against the incumbent, a confirmation run, and `apply`."""
