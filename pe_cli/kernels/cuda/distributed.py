"""CUDA twins of kernels/cpu/distributed.py: MPI carries host arrays (the registry's MPI wheels are not
CUDA-aware), so sends copy device arrays to the host and received blocks are copied to the device."""
from ..cpu import distributed as _cpu
from . import runtime as rt

send = _cpu.send
send_barrier = _cpu.send_barrier
fetch_barrier = _cpu.fetch_barrier
listen_and_serv = _cpu.listen_and_serv


def recv(ins, attrs):
    return _cpu.recv(ins, attrs, to_device=rt.to_device)
