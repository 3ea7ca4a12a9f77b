"""Per-element functions written once and compiled for either device: each module's ``make(jit, ...)``
returns its functions compiled by ``jit`` (numba.njit for the CPU loops, cuda.jit(device=True) for the
CUDA kernels). Plain Python and math only, so that both devices' numbers come from the same formulas."""
