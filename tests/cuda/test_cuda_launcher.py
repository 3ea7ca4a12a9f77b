"""pe's short kernel-launch path (pe_cli/kernels/cuda/launcher.py) on a real GPU: after the first
launch of a signature (numba's path, which compiles), launches skip numba's per-call typing and
marshalling, and give what numba's path gives for every argument kind pe passes: arrays of several
layouts and dtypes, Python and numpy scalars, bools, and tuples of them."""

import pathlib
import re

import numpy as np
import pytest
from numba import cuda

from pe_cli.kernels.cuda import launcher, runtime

real_gpu_only = pytest.mark.skipif(runtime.simulated(), reason="the short path exists on a real GPU only")


def test_every_kernel_is_launched_through_the_launcher():
    """pe's kernels use @jit_kernel (a bare @cuda.jit kernel would pay numba's per-call cost)."""
    folder = pathlib.Path(runtime.__file__).parent
    bare = [
        f"{path.name}:{n}"
        for path in sorted(folder.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.fullmatch(r"\s*@cuda\.jit\s*", line)
    ]
    assert bare == []


@launcher.jit_kernel
def _mix(x, y, out, scale, shift, flag, dims, weights):
    i = cuda.grid(1)
    if i < out.shape[0]:
        w = weights[0] if flag else weights[1]
        out[i, 0] = x[i] * scale + shift + dims[0] - dims[1] + w
        out[i, 1] = y[i, 1] + np.float32(shift)


def _run(n, shift):
    dev = runtime.device(0)
    with dev:
        x = runtime.to_device(np.arange(n, dtype=np.float64))
        y = runtime.to_device(np.arange(3 * n, dtype=np.float32).reshape(n, 3))
        out = runtime.empty((n, 2), np.float64)
        _mix[(n + 31) // 32, 32, runtime.stream()](x, y, out, 2.5, shift, True, (7, 3), (0.25, 9.0))
        return runtime.to_host(out)


@real_gpu_only
def test_short_path_gives_numba_paths_results():
    first = _run(100, np.float32(1.5))  # numba's path, compiles
    assert [v for v in _mix.launches.values() if v is not None], "the signature was not cached"
    second = _run(100, np.float32(1.5))  # the short path
    expect = np.stack(
        [np.arange(100) * 2.5 + 1.5 + 4 + 0.25, np.arange(300, dtype=np.float32).reshape(100, 3)[:, 1] + 1.5], axis=1
    )
    np.testing.assert_allclose(first, expect, rtol=1e-6)
    np.testing.assert_allclose(second, expect, rtol=1e-6)
    # another size (same signature) and another scalar type (a new signature) stay right
    np.testing.assert_allclose(_run(7, np.float32(1.5)), expect[:7], rtol=1e-6)
    np.testing.assert_allclose(_run(7, 1.5)[:, 0], expect[:7, 0], rtol=1e-6)
