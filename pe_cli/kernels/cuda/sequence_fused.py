"""CUDA kernels of ops/sequence_fused.py: Fluid has CPU kernels only, and falls back to them on a GPU
place; so does pe (the CPU kernels on the host, _host.py; a row-sparse gradient keeps its rows on the
host and its values go to the device)."""

from ...base.selected_rows import SelectedRows
from ..cpu import sequence_fused as _cpu
from . import runtime as rt
from ._host import on_host

fused_embedding_seq_pool = on_host(_cpu.fused_embedding_seq_pool)
fusion_seqpool_concat = on_host(_cpu.fusion_seqpool_concat)
fusion_seqpool_cvm_concat = on_host(_cpu.fusion_seqpool_cvm_concat)
fusion_seqconv_eltadd_relu = on_host(_cpu.fusion_seqconv_eltadd_relu)
fusion_seqexpand_concat_fc = on_host(_cpu.fusion_seqexpand_concat_fc)


def fused_embedding_seq_pool_grad(ins, attrs, ctx):
    grad = _cpu.fused_embedding_seq_pool_grad({k: rt.to_host(v) for k, v in ins.items()}, attrs, ctx)["W@GRAD"]
    if isinstance(grad, SelectedRows):
        return {"W@GRAD": grad.with_arrays(grad.rows, rt.to_device(grad.values))}
    return {"W@GRAD": rt.to_device(grad)}
