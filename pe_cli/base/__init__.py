"""The floor every other package stands on, importing nothing else of pe: errors (PeError and its
kinds, did-you-mean hints), shapes (shape and geometry rules the ops and kernels share), dtypes,
places (CPUPlace, CUDAPlace), activations (the activation table), selected_rows (a row-sparse
gradient), profiler (per-op times) and rank_guard (each MPI rank under a guard that names its end).
Import the modules themselves; this package imports nothing."""
