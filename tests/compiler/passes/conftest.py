"""Fixtures the pass tests share."""

import pytest

from pe_cli.kernels.cpu.runtime import threads


@pytest.fixture
def fixed_threads(monkeypatch):
    """The kernels' threads follow the machine's load (pe_cli/kernels/cpu/runtime/threads.py), and with them
    the chunks of the parallel sums: fixed here so that two trainings compare to the bit."""
    monkeypatch.setenv("PE_DEVICE_THREADS", "2")
    threads.refresh()
    yield
    monkeypatch.delenv("PE_DEVICE_THREADS")
    threads.refresh()
