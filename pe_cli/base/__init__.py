"""The floor every other package stands on, importing nothing else of pe: errors (PeError and its
kinds, did-you-mean hints), shapes (shape and geometry rules the ops and kernels share), dtypes,
places (CPUPlace, CUDAPlace), activations (the activation table), selected_rows (a row-sparse
gradient) and profiler (per-op times). What runs between processes (MPI, the rank guard) is the
floor above, pe_cli/distributed/.
Import the modules themselves; this package imports nothing."""
