"""CUDA tests run the CUDA kernels on numba's simulator (tests/conftest.py turns it on unless
PE_REAL_GPU=1). The simulator runs every GPU thread as a Python thread and polls them at each
syncthreads(); a short GIL switch interval makes those hand-offs ~5x faster. It is restored after
each module, so other tests never see it."""

import sys

import pytest

pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (pip install '.[cudasim]')")


@pytest.fixture(autouse=True, scope="module")
def _fast_simulator_handoffs():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    yield
    sys.setswitchinterval(old)
