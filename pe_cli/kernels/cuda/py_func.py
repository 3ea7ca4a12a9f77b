"""CUDA kernel of ops/py_func.py: the Python function runs on the host, as Fluid's does: the inputs
are copied over, the outputs copied back."""

from . import runtime as rt
from ._host import given_cpu_kernel


def py_func(ins, attrs, cpu_py_func):
    outs = cpu_py_func({"X": [rt.to_host(x) for x in ins.get("X") or []]}, attrs)
    return {"Out": [rt.to_device(v) for v in outs["Out"]]}


HOST_OPS = {
    "py_func": given_cpu_kernel(py_func),
}
