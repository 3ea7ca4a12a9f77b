"""The numba loop of a oneDNN convolution launched in a planned step (kernels/cpu/convolution_onednn.py; its
executions prepared by runtime/onednn_prepared.py): oneDNN's C functions called without the GIL, through the
pointers passed in (as the GEMM loops call BLAS: runtime/cblas.py). Imported on first use."""

import numba

from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


@numba.njit(inline="always")
def _address(slot, a0, a1, a2, a3, a4):
    if slot == 0:
        return a0.ctypes.data
    if slot == 1:
        return a1.ctypes.data
    if slot == 2:
        return a2.ctypes.data
    if slot == 3:
        return a3.ctypes.data
    return a4.ctypes.data


@numba.njit(cache=True, nogil=True)
def run(
    set_threads, set_handle, execute, wait, nthreads, handles, prims, packed, starts, mems, slots, a0, a1, a2, a3, a4
):
    """On ``nthreads`` OpenMP threads (the count oneDNN reads, as the out-kernel sets it), each memory of ``mems``
    pointed at the array ``slots`` names (a0 ... a4), then each primitive of ``prims`` executed on the stream
    ``handles[0]`` with its arguments (``packed[starts[e]:starts[e + 1]]``, dnnl_exec_arg_t's) and waited for.
    -1, or the index of the execution that failed (a checked launch: the op then runs op by op)."""
    set_threads(nthreads)
    for j in range(mems.size):
        if set_handle(mems[j], _address(slots[j], a0, a1, a2, a3, a4)) != 0:
            return 0
    for e in range(prims.size):
        count = (starts[e + 1] - starts[e]) // 16
        if execute(prims[e], handles[0], count, packed.ctypes.data + starts[e]) != 0:
            return e
        if wait(handles[0]) != 0:
            return e
    return -1
