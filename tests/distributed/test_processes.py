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


def test_mpichs_error_stack_is_said_in_one_line():
    """What MPICH raised when two trainers' broadcasts differed in size (captured from a real run):
    the failing call and the innermost reason, not nine lines of its internals."""
    stack = (
        "Other MPI error, error stack:\n"
        "internal_Bcast_c(292)....................: MPI_Bcast_c(buffer=0x560d3391d410, count=5, MPI_FLOAT, 0, "
        "MPI_COMM_WORLD) failed\n"
        "MPID_Bcast(290)..........................: \n"
        "MPIDI_Bcast_allcomm_composition_json(236): \n"
        "MPIR_Bcast_intra_binomial(102)...........: message sizes do not match across processes in th"
    )
    assert processes.mpi_cause(stack) == (
        "MPI_Bcast_c(buffer=0x560d3391d410, count=5, MPI_FLOAT, 0, MPI_COMM_WORLD) "
        "failed: message sizes do not match across processes in th"
    )
    assert processes.mpi_cause("MPI_ERR_TRUNCATE: message truncated") == "message truncated"
