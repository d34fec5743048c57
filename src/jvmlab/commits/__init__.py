"""Commits as a factor's drivers: the CI gate on two revisions (:mod:`.gate`) and the bisection
of a range of commits (:mod:`.bisect`), each measuring revisions interleaved in one experiment
run by the session (``execute/session.py``); the step rules are pure (:mod:`.steps`)."""
