"""Existing result files (JMH JSON, hyperfine JSON) turned into a stored experiment, so that
``jvmlab report`` and ``jvmlab compare`` work on them. What the files cannot tell (block
order, per-run CPU times) is stored as unknown and said in the report."""
