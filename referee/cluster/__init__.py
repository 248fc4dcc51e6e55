"""Tournaments played on a Dask cluster: the coordinator (the process that owns the schedule
and the store) sends each game to a Dask worker, which plays its `GameOrder` as a local run
does and returns the complete record; see docs/cluster.md.

Only this package imports `distributed` (the `cluster` extra), and only inside the functions
that need it: the rest of the referee runs, and starts, without it.
"""
