"""Fixtures of the kernel tests."""

import pytest

from pe_cli.kernels.cpu.runtime import loops, threads


@pytest.fixture(params=[1, 2], ids=["serial", "parallel"])
def device_threads(request, monkeypatch):
    """Kernels run as on a device with 1 or 2 threads: every array large enough for the parallel twins,
    which compile now, not in the background. A test file may extend it (a fixture of the same name
    that takes this one)."""
    monkeypatch.setattr(threads, "_share", request.param)
    monkeypatch.setattr(loops, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(loops, "EAGER", True)
    return request.param
