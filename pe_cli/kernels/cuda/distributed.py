"""CUDA twins of kernels/cpu/distributed.py: MPI carries host arrays (the registry's MPI wheels are not
CUDA-aware), so sends copy device arrays to the host and received blocks are copied to the device."""

from ..cpu import distributed as _cpu
from . import runtime as rt
from ._host import on_host

send = _cpu.send
send_barrier = _cpu.send_barrier
fetch_barrier = _cpu.fetch_barrier
listen_and_serv = _cpu.listen_and_serv


def recv(ins, attrs):
    return _cpu.recv(ins, attrs, to_device=rt.to_device)


# the id and table ops: index bookkeeping, on the host (Fluid runs them on the CPU only)
split_ids = on_host(_cpu.split_ids)
merge_ids = on_host(_cpu.merge_ids)
ref_by_trainer_id = on_host(_cpu.ref_by_trainer_id)
lookup_sparse_table = on_host(_cpu.lookup_sparse_table)
distributed_lookup_table = _cpu.distributed_lookup_table
prefetch = _cpu.prefetch
checkpoint_notify = _cpu.checkpoint_notify
recv_save = _cpu.recv_save
fl_listen_and_serv = _cpu.fl_listen_and_serv
