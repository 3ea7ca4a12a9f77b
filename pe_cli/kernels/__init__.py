"""Kernels per device kind: ``cpu/`` (numpy and numba, GIL released) and ``cuda/`` (numba.cuda),
one module per op module with one function per op type: ``kernel(ins, attrs) -> outs``."""
