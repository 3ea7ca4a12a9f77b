"""Compiles every CUDA kernel the op cases launch with numba's real CUDA compiler (to PTX), on a
machine without a GPU.

The simulator runs kernels as Python, so it never type-checks them the way the GPU compiler does.
This script runs every op case (forward and gradient programs) through the Executor on a
"shape-only" device: arrays carry shapes and dtypes but no data, and each launch compiles the
kernel for the argument types it was given instead of running it. It needs libNVVM (the
``nvidia-cuda-nvcc-cu12`` wheel, part of ``pip install '.[cuda]'``) but no driver.

    NUMBA_ENABLE_CUDASIM=0 python tests/cuda/compile_check.py     # exit 0: all compiled
                                                                   # exit 77: no NVVM here
"""

import os
import sys
import threading
import traceback

os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), os.path.dirname(os.path.dirname(HERE))]

import numpy as np  # noqa: E402
from numba import cuda, types  # noqa: E402
from numba.core import errors as numba_errors  # noqa: E402
from numba.cuda.dispatcher import CUDADispatcher  # noqa: E402
from numba.np.numpy_support import from_dtype  # noqa: E402

CC = (8, 0)


def nvvm_available():
    def probe(a):
        a[0] = 1

    try:
        cuda.compile_ptx(probe, (types.float32[::1],), cc=CC)
        return None
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"


class ShapeArray:
    """A device array with a shape and a dtype but no data."""

    __cuda_ndarray__ = True

    def __init__(self, shape, dtype):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape)) if self.shape else 1
        self.stream = 0

    @property
    def _numba_type_(self):
        return types.Array(from_dtype(self.dtype), self.ndim, "C")

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        shape = list(shape)
        if -1 in shape:
            known = int(np.prod([d for d in shape if d != -1])) or 1
            shape[shape.index(-1)] = self.size // known
        assert int(np.prod(shape)) == self.size, (self.shape, shape)
        return ShapeArray(shape, self.dtype)

    def copy_to_host(self, stream=0):
        return np.zeros(self.shape, self.dtype)

    def copy_to_device(self, ary, stream=0):
        pass

    def __len__(self):
        return self.shape[0]


class ShapeDevice:
    id = 0
    stream = 0
    capture = None  # (never recording a step: see step_graph.py)

    def __init__(self, runtime):
        self._rt = runtime
        self.pool = self

    def empty(self, shape, dtype):
        return ShapeArray(shape, dtype)

    def stats(self):
        return {}

    def __enter__(self):
        self._rt._local.__dict__.setdefault("stack", []).append((self, False))
        return self

    def __exit__(self, *exc):
        self._rt._local.stack.pop()

    def synchronize(self):
        pass


compiled = {}
failures = []
_lock = threading.Lock()


class CompileOnLaunch:
    def __init__(self, dispatcher):
        self.dispatcher = dispatcher

    def __call__(self, *args):
        argtypes = tuple(self.dispatcher.typeof_pyval(a) for a in args)
        fn = self.dispatcher.py_func
        key = (fn, argtypes)
        with _lock:
            if key in compiled:
                return
            compiled[key] = None
        try:
            cuda.compile_ptx(fn, argtypes, cc=CC)
        except (numba_errors.NumbaError, Exception) as e:  # noqa: BLE001
            failures.append(f"{fn.__module__}.{fn.__qualname__}{argtypes}: {type(e).__name__}: {str(e).strip()[:1500]}")


def install():
    from pe_cli.kernels.cuda import _launch, runtime

    dev = ShapeDevice(runtime)
    runtime._unavailable_reason = None
    runtime._devices[0] = dev
    runtime.device_count = lambda: 1
    runtime.device = lambda device_id=0: dev
    runtime.to_host = lambda a: a.copy_to_host() if hasattr(a, "copy_to_host") else a

    def to_device(array, dtype=None):
        if hasattr(array, "copy_to_host"):
            return array
        host = np.ascontiguousarray(array, dtype=dtype)
        return ShapeArray(host.shape, host.dtype)

    runtime.to_device = to_device
    _launch._max_blocks = lambda device_id: 64
    CUDADispatcher.__getitem__ = lambda self, config: CompileOnLaunch(self)


def as_float32(case):
    """The case with its float64 inputs in float32: models train in float32."""
    import dataclasses

    def f32(v):
        if isinstance(v, list):
            return [f32(x) for x in v]
        v = np.asarray(v)
        return v.astype(np.float32) if v.dtype == np.float64 else v

    attrs = dict(case.attrs)
    if attrs.get("in_dtype") == "float64":
        attrs["in_dtype"] = "float32"
    return dataclasses.replace(
        case, inputs={k: f32(v) for k, v in case.inputs.items()}, attrs=attrs, name=case.id + "[float32]"
    )


def main():
    reason = nvvm_available()
    if reason is not None:
        print(f"compile_check: NVVM is not available here ({reason}); nothing checked")
        return 77
    install()
    from op_test import analytic_grads, run_forward
    from tests.ops.test_ops import all_cases

    errors = []
    for case in all_cases() + [as_float32(c) for c in all_cases()]:
        for what, run in (("forward", run_forward), ("gradient", analytic_grads if case.grad else None)):
            if run is None:
                continue
            try:
                run(case, "cuda")
            except Exception as e:  # noqa: BLE001 - data-dependent host code sees zeros here
                errors.append(f"{case.id} {what}: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
    print(
        f"compile_check: {len(compiled)} kernel signatures compiled, {len(failures)} failed; "
        f"{len(errors)} cases could not run on shape-only arrays"
    )
    for e in errors:
        print("  (not run)", e)
    for f in failures:
        print("FAILED", f)
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.exit(2)
