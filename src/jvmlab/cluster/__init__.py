"""Running an experiment on a Dask cluster: each worker is a node running one JVM at a time,
whole randomized blocks per node, results streamed into the shared store by the client."""
