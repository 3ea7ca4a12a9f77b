"""CUDA twins of kernels/cpu/distributed.py: MPI carries host arrays (the registry's MPI wheels are not
CUDA-aware), so sends copy device arrays to the host and received blocks are copied to the device."""

from . import runtime as rt
from ._host import as_is, host_ops, with_args

HOST_OPS = {
    **host_ops("send", "send_barrier", "fetch_barrier", "listen_and_serv", wrap=as_is),
    "recv": with_args(to_device=rt.to_device),
    # the id and table ops: index bookkeeping, on the host (Fluid runs them on the CPU only)
    **host_ops("split_ids", "merge_ids", "ref_by_trainer_id", "lookup_sparse_table"),
    **host_ops(
        "distributed_lookup_table", "prefetch", "checkpoint_notify", "recv_save", "fl_listen_and_serv", wrap=as_is
    ),
}
