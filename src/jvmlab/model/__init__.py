"""The ground floor: typed, frozen records that several layers share.

Nothing here imports another jvmlab package, so every layer (plan, collect, execute, store,
analyze, report, cli) can name these records without climbing: the process result, the
collected data and the probe's context, stored rows, hazards and the JDK description.
"""
