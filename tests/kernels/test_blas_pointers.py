"""The BLAS functions pe's loops are handed (kernels/cpu/runtime/cblas.py) each have a ctypes class of their
signature: numba's dispatcher keeps the numba type of the first function pointer of a class it meets, so a
second pointer of that class with another signature (a library's SGEMV after its SGEMM, as a planned step
passes them, or its DGEMM after its SGEMM) missed every compiled loop and took the dispatcher's slow path on
every call (~75 us: a tiny model's planned step in a process that had run an MLP's went 26 us -> 273 us).

A fresh process: which pointer numba meets first is fixed there."""

import json
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import numba.core.dispatcher as dispatcher
    from pe_cli.kernels.cpu import _blas_loops
    from pe_cli.kernels.cpu.runtime import cblas

    pointers = {}
    for dtype in (np.dtype(np.float32), np.dtype(np.float64)):
        for kind, fn in (("gemm", cblas.gemm(dtype)), ("numpy_gemm", cblas.numpy_gemm(dtype)),
                         ("numpy_gemv", cblas.numpy_gemv(dtype))):
            if fn is not None:
                pointers[f"{kind} {dtype}"] = fn
    classes = {}
    for name, fn in pointers.items():
        classes.setdefault(type(fn), set()).add((tuple(fn.argtypes), fn.restype))

    slow = []
    original = dispatcher.Dispatcher._compile_for_args

    def counted(self, *args, **kws):
        slow.append(self.py_func.__name__)
        return original(self, *args, **kws)

    def products():  # each pointer's loop, float32 then float64, GEMMs then GEMVs: numpy's bits each
        out = []
        for dtype in (np.float32, np.float64):
            a = np.arange(12, dtype=dtype).reshape(3, 4) - 5
            b = np.arange(8, dtype=dtype).reshape(4, 2) / 4
            v = np.arange(4, dtype=dtype) - 1.5
            for fn in (cblas.gemm(np.dtype(dtype)), cblas.numpy_gemm(np.dtype(dtype))):
                c = np.full((3, 2), 9, dtype)
                _blas_loops.gemm_blocks(fn, 111, 111, a, b, c, c[0, :0], c[:0], 0, 1, False)
                out.append(bool(np.array_equal(c, a @ b)))
            c = np.full(3, 9, dtype)
            _blas_loops.gemv_column(cblas.numpy_gemv(np.dtype(dtype)), 111, a, v, c)
            out.append(bool(np.array_equal(c, a @ v)))
        return out

    first = products()  # (compiles or loads each loop once per signature)
    dispatcher.Dispatcher._compile_for_args = counted
    again = products()
    print(json.dumps({"classes": [len(v) for v in classes.values()], "pointers": len(pointers),
                      "first": first, "again": again, "slow": slow}))
""")


def test_each_blas_signature_has_its_own_ctypes_class_and_no_loop_call_takes_numbas_slow_path():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout.splitlines()[-1])
    assert run["pointers"] >= 6  # GEMM, numpy's GEMM and numpy's GEMV, float32 and float64
    assert run["classes"] and all(n == 1 for n in run["classes"])  # one signature a class
    assert all(run["first"]) and all(run["again"])  # numpy's products, bit for bit
    assert run["slow"] == []  # every call after the first found its compiled loop at once
