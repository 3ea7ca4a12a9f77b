"""Collectives between trainer processes (pe_cli/distributed/processes.py) without MPI: what a process
without mpi4py says. Real runs over mpiexec are in tests/transpiler/test_distributed.py."""
import sys

import pytest

from pe_cli.base.errors import PeError
from pe_cli.distributed import processes


def test_missing_mpi4py_is_one_clear_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", None)
    monkeypatch.setattr(processes, "_GROUPS", {})
    with pytest.raises(PeError, match=r"needs mpi4py.*pip install 'pe-cli\[mpi\]'"):
        processes.group(2, 0)
