"""Planning: the matrix of cells, the run order, and checks before anything runs."""
