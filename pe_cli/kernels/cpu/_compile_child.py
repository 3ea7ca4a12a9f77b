"""The helper process that compiles numba loops for a first run (see _numba.py, ``_Later``).

A first run on a machine would otherwise wait for numba at its first step (LeNet-5: 12 loops, about
9 s on a 2-core VM). The parent asks this process, one loop at a time, to compile a loop for the
argument types of a call; it compiles it with ``cache=True``, so numba writes it to the cache the
parent reads (the same ``NUMBA_CACHE_DIR`` or ``__pycache__``), and answers. The parent then loads
it from the cache in a few milliseconds. Meanwhile the parent's steps run numpy replicas of the
loops (_replicas.py: the same bits), on its own core: a compile in a thread of the parent would hold
the GIL that the parent's numpy calls hand back and forth hundreds of times a step.

Messages are JSON lines. First line in: ``{"path": sys.path}``. Then per loop in:
``{"id": n, "module": ..., "name": ..., "spec": [...]}``; out: ``{"id": n, "ok": bool, "s": seconds}``.
A spec names each argument's numba type (``spec_of``); the child makes a stand-in value of that type
(``stand_ins``) only to ask numba for the same signature the parent's call has. Nothing is
unpickled.
"""
import importlib
import json
import sys
import time

import numpy as np

from . import _cblas, _numba


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
            if not -2 ** 63 <= a < 2 ** 63:
                return None
            spec.append(["int"])
        elif isinstance(a, float):
            spec.append(["float"])
        elif isinstance(a, np.generic) and a.dtype.kind in "iuf":
            spec.append(["scalar", a.dtype.str])
        else:
            dtype = next((d for d in (np.float32, np.float64) if a is _cblas.gemm(np.dtype(d))), None)
            if dtype is None:
                return None
            spec.append(["gemm", np.dtype(dtype).str])
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
        elif kind == "gemm":
            values.append(_cblas.gemm(np.dtype(rest[0])))
        else:
            raise ValueError(f"unknown argument kind {kind!r}")
    return values


def _compile(request):
    _numba._choose_layer()                 # as the parent: parallel twins need the same layer
    loop = getattr(importlib.import_module(request["module"]), request["name"])
    sig = tuple(loop.typeof_pyval(v) for v in stand_ins(request["spec"]))
    loop.compile(sig)


def main():
    import warnings
    warnings.simplefilter("ignore")       # numba's warnings would go nowhere: stderr is closed
    first = json.loads(sys.stdin.readline() or "{}")
    sys.path[:] = first.get("path", sys.path)
    for line in sys.stdin:
        request = json.loads(line)
        start = time.perf_counter()
        try:
            _compile(request)
            ok = True
        except Exception:                 # noqa: BLE001 - the parent then compiles it itself
            ok = False
        answer = {"id": request["id"], "ok": ok, "s": round(time.perf_counter() - start, 3)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
