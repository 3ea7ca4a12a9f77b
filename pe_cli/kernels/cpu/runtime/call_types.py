"""The numba argument types of a loop's call, as JSON, and values of those types: what the parent
sends the compile helper (``spec_of``, loops.py) and what the helper compiles for
(``stand_ins``, compile_child.py). Nothing is unpickled."""

import numpy as np

from . import cblas

# a CBLAS GEMM argument (the loops' source's, numpy's own) or numpy's own GEMV
_GEMMS = {"gemm": cblas.gemm, "numpy_gemm": cblas.numpy_gemm, "numpy_gemv": cblas.numpy_gemv}


def spec_of(args):
    """A JSON description of the numba types of ``args``, or None when one cannot be described
    (a non-contiguous or unaligned array, an object numba types by value)."""
    spec = []
    for a in args:
        if isinstance(a, np.ndarray):
            if not (a.flags.c_contiguous and a.flags.aligned) or a.dtype.kind not in "biuf":
                return None
            spec.append(["array", a.dtype.str, a.ndim, bool(a.flags.writeable)])
        elif isinstance(a, (bool, np.bool_)):
            spec.append(["bool"])
        elif isinstance(a, int):
            if not -(2**63) <= a < 2**63:
                return None
            spec.append(["int"])
        elif isinstance(a, float):
            spec.append(["float"])
        elif isinstance(a, np.generic) and a.dtype.kind in "iuf":
            spec.append(["scalar", a.dtype.str])
        else:
            kind = next(
                (
                    (k, np.dtype(d))
                    for k, of in _GEMMS.items()
                    for d in (np.float32, np.float64)
                    if a is of(np.dtype(d))
                ),
                None,
            )
            if kind is None:
                return None
            spec.append([kind[0], kind[1].str])
    return spec


def stand_ins(spec):
    """Values whose numba types are those ``spec`` describes."""
    values = []
    for kind, *rest in spec:
        if kind == "array":
            dtype, ndim, writeable = rest
            a = np.zeros((1,) * ndim, dtype=np.dtype(dtype))
            a.flags.writeable = writeable
            values.append(a)
        elif kind == "bool":
            values.append(True)
        elif kind == "int":
            values.append(1)
        elif kind == "float":
            values.append(1.0)
        elif kind == "scalar":
            values.append(np.dtype(rest[0]).type(1))
        elif kind in _GEMMS:
            values.append(_GEMMS[kind](np.dtype(rest[0])))
        else:
            raise ValueError(f"unknown argument kind {kind!r}")
    return values
