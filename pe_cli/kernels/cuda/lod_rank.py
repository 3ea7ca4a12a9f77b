"""The LoD rank table ops on CUDA: computed on the host (they gather rows), results moved to the device."""

from ...base.tensor_array import TensorArray
from ..context import wraps
from ..rank_table import RankTable
from . import runtime as rt
from ._host import host_ops


def _array(items, like):
    """A tensor array's items moved, its LoDs kept."""
    return TensorArray(items, getattr(like, "lods", None))


def _on_host(cpu_kernel):
    def kernel(ins, attrs, *ctx):
        host = {k: v if isinstance(v, (list, RankTable)) else rt.to_host(v) for k, v in ins.items()}
        host = {
            k: _array([None if a is None else rt.to_host(a) for a in v], v) if isinstance(v, list) else v
            for k, v in host.items()
        }
        outs = cpu_kernel(host, attrs, *ctx)
        return {
            k: v
            if isinstance(v, RankTable)
            else _array([rt.to_device(a) for a in v], v)
            if isinstance(v, list)
            else rt.to_device(v)
            for k, v in outs.items()
        }

    return wraps(cpu_kernel, kernel)


HOST_OPS = host_ops(
    "lod_rank_table",
    "max_sequence_len",
    "lod_tensor_to_array",
    "array_to_lod_tensor",
    "shrink_rnn_memory",
    "shrink_rnn_memory_grad",
    "reorder_lod_tensor_by_rank",
    "reorder_lod_tensor_by_rank_grad",
    "rnn_memory_helper",
    "rnn_memory_helper_grad",
    wrap=_on_host,
)
