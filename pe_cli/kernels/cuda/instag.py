"""CUDA twin of kernels/cpu/instag.py: which instances stay depends on their tags, so the selection
runs on the host (the CPU kernel, a ``HOST_OPS`` row, as sequence_erase does) and the results are copied
over; the gradient scatters back on the host (kernels/instag_rows.py) from Ins' shape alone."""

from ..instag_rows import scatter_back
from . import runtime as rt
from ._host import host_ops

HOST_OPS = host_ops("filter_by_instag")


def filter_by_instag_grad(ins, attrs):
    x = ins["Ins"]
    dx = scatter_back(
        tuple(x.shape), x.dtype, rt.to_host(ins["LossWeight"]), rt.to_host(ins["IndexMap"]), rt.to_host(ins["Out@GRAD"])
    )
    return {"Ins@GRAD": rt.to_device(dx)}
