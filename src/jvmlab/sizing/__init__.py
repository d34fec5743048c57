"""Sizing the JVM: the minimum heap as an interval (bisection over an executor), heap sweeps
planned as multiples of it, and the knee of a time-versus-heap curve.

The strategies here are pure: they call a probe function and never start a process
themselves, so they are tested on a fake executor with a known threshold.
"""
